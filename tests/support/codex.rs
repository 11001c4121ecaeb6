//! Drives the real OpenAI Codex CLI through the project's own offline harness
//! (`fable::harness::codex_run`, docs/harness.md): a scripted mock of the Responses API on
//! loopback, inside a private network namespace when the process may create one, so our
//! hooks are proven under Codex too, not only under Claude Code.
//!
//! Where the CLI is missing the tests skip with a note, unless `FABLE_E2E_REQUIRED=1` or
//! `CI` is set: then a missing CLI is a failure. `scripts/install-codex.sh` installs it.
//! Each test is tallied in `$FABLE_E2E_LOG` as `<verdict> <test> (codex)`, so the test
//! command counts the end-to-end tests by host.

#![allow(dead_code)]

use super::harness::{available_cli, bin_dir, cached_cli, sh_quote};
use fable::harness::codex_run::{self, CodexSpec};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The Codex binary: `CODEX_BIN`, else what scripts/install-codex.sh linked in the cache.
pub fn codex_bin() -> Option<PathBuf> {
    cached_cli("CODEX_BIN", "CODEX_HARNESS_CACHE", "codex-harness", "bin/codex")
}

/// The Codex CLI, or `None` (with a note) when it is absent and not required; tallied as
/// `<verdict> <test> (codex)`.
pub fn available() -> Option<PathBuf> {
    available_cli(codex_bin(), "Codex CLI", "scripts/install-codex.sh", " (codex)")
}

/// How fable's hooks reach the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hooks {
    /// None of fable's: only what the test registers itself (the recorder, `.pre`).
    None,
    /// `fable init` and fable's Codex hooks in `$CODEX_HOME/hooks.json`, run with
    /// `--dangerously-bypass-hook-trust`.
    Bypassed,
    /// `fable init` and `fable install --host codex --project --trust`, and no bypass
    /// flag: the hooks run only because their hashes are trusted, as for a user.
    Trusted,
    /// `fable init` and `fable install --host codex --project` without `--trust`, and no
    /// bypass flag: what a user who skipped the trust step runs.
    Untrusted,
    /// A later session of an earlier run's project and HOME ([`CodexSession::next_session`]):
    /// nothing installed again, no bypass flag.
    Kept,
}

/// One scripted Codex session.
pub struct CodexSession {
    pub steps: Vec<Value>,
    pub sub_steps: Vec<Value>,
    pub side_text: Option<String>,
    pub project: tempfile::TempDir,
    pub pre: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Extra `codex exec` arguments.
    pub args: Vec<String>,
    pub timeout: u32,
    pub hooks: Hooks,
    pub record: Vec<String>,
    /// The run's folder (kept for inspection); the project runs in `<work>/out/proj`.
    pub work: PathBuf,
}

/// What the harness left behind.
pub struct CodexOutcome {
    pub out: PathBuf,
    pub summary: Value,
    pub rc: i32,
    /// Wall time of the whole run (pre commands, Codex, summary).
    pub took: Duration,
}

impl CodexSession {
    /// A session with fable's hooks installed (bypassing hook trust until
    /// [`CodexSession::trusted`]).
    pub fn new(name: &str) -> CodexSession {
        let work = tempfile::Builder::new()
            .prefix(&format!("fable-e2e-codex-{name}-"))
            .tempdir()
            .unwrap()
            .keep();
        CodexSession {
            steps: Vec::new(),
            sub_steps: Vec::new(),
            side_text: None,
            project: tempfile::tempdir().unwrap(),
            pre: Vec::new(),
            env: Vec::new(),
            args: Vec::new(),
            timeout: 60,
            hooks: Hooks::Bypassed,
            record: Vec::new(),
            work,
        }
    }

    /// No fable hooks: the harness alone (with [`CodexSession::record`]).
    pub fn without_fable(mut self) -> CodexSession {
        self.hooks = Hooks::None;
        self
    }

    /// Hooks trusted by `fable install --trust`; Codex runs without the bypass flag.
    pub fn trusted(mut self) -> CodexSession {
        self.hooks = Hooks::Trusted;
        self
    }

    /// Hooks installed by `fable install --host codex --project` alone (not trusted);
    /// Codex runs without the bypass flag.
    pub fn untrusted(mut self) -> CodexSession {
        self.hooks = Hooks::Untrusted;
        self
    }

    /// Another Codex session in `prev`'s project with its HOME and CODEX_HOME: a fresh
    /// `codex exec`, nothing installed again, no bypass flag.
    pub fn next_session(prev: &CodexOutcome) -> CodexSession {
        let mut s = CodexSession::new("next");
        let _ = std::fs::remove_dir(&s.work);
        s.work = prev.out.parent().expect("out lives in a work folder").to_path_buf();
        s.hooks = Hooks::Kept;
        s
    }

    /// Record the payloads of these events (`$CODEX_HOME/hooks.json`; runs only with the
    /// bypass flag, as nothing trusts it).
    pub fn record(mut self, events: &[&str]) -> CodexSession {
        self.record = events.iter().map(|e| e.to_string()).collect();
        self
    }

    pub fn run_proj(&self) -> PathBuf {
        self.work.join("out/proj")
    }

    /// One shell call (`exec_command {"cmd": …}`), which Codex runs for real.
    pub fn shell(self, cmd: &str) -> CodexSession {
        self.step(json!({"shell": cmd}))
    }

    /// An `apply_patch` call with `patch` (Codex's patch format). Codex offers the tool
    /// only to models it knows: use with [`CodexSession::known_model`].
    pub fn patch(self, patch: &str) -> CodexSession {
        self.step(json!({"patch": patch}))
    }

    /// Run as `gpt-5.5`, a model in Codex's built-in catalog: the request then offers
    /// `apply_patch` (and no `multi_agent_v1`, so no sub-agents). The mock answers alike.
    pub fn known_model(self) -> CodexSession {
        self.arg("-c").arg("model=\"gpt-5.5\"")
    }

    pub fn text(self, text: &str) -> CodexSession {
        self.step(json!({"text": text}))
    }

    pub fn step(mut self, v: Value) -> CodexSession {
        self.steps.push(v);
        self
    }

    /// `spawn_agent` with `message`, then `wait_agent` for it: the sub-agent's requests
    /// take the [`CodexSession::sub_step`]s.
    pub fn spawn_and_wait(self, message: &str) -> CodexSession {
        self.step(
            json!({"function_call": {"name": "spawn_agent", "namespace": "multi_agent_v1",
                                           "arguments": {"message": message}}}),
        )
        .step(
            json!({"function_call": {"name": "wait_agent", "namespace": "multi_agent_v1",
                                           "arguments": {"targets": ["{{agent_id}}"], "timeout_ms": 30000}}}),
        )
    }

    pub fn sub_step(mut self, v: Value) -> CodexSession {
        self.sub_steps.push(v);
        self
    }

    /// What a request without tools (the compaction summary) is answered with.
    pub fn side_text(mut self, t: &str) -> CodexSession {
        self.side_text = Some(t.to_string());
        self
    }

    pub fn arg(mut self, a: &str) -> CodexSession {
        self.args.push(a.to_string());
        self
    }

    pub fn pre(mut self, cmd: &str) -> CodexSession {
        self.pre.push(cmd.to_string());
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> CodexSession {
        self.env.push((k.to_string(), v.to_string()));
        self
    }

    /// Writes a file into the project before the run.
    pub fn file(self, rel: &str, content: &str) -> CodexSession {
        let p = self.project.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
        self
    }

    pub fn project_path(&self) -> &Path {
        self.project.path()
    }

    /// The shell commands that set fable up in the project as a user would: `fable init`,
    /// then the hooks — fable's Codex registration table written to the user's
    /// `$CODEX_HOME/hooks.json` (run under the bypass flag), or, trusted,
    /// `fable install --host codex --project --trust`.
    fn install(&self) -> Option<String> {
        let bins = bin_dir();
        let fable = sh_quote(&bins.join("fable"));
        let init = format!("unset XDG_STATE_HOME XDG_CONFIG_HOME FABLE_CONFIG_DIR; {fable} init");
        match self.hooks {
            Hooks::None => None,
            Hooks::Bypassed => {
                let hooks = fable::setup::codex_hooks::codex_hooks(&bins).to_string();
                Some(format!(
                    "{init} && printf '%s' {} > \"$CODEX_HOME/hooks.json\"",
                    shell_words::quote(&hooks)
                ))
            }
            Hooks::Trusted | Hooks::Untrusted => Some(format!(
                "{init} && {fable} install --host codex --project{} --bin-dir {}",
                if self.hooks == Hooks::Trusted { " --trust" } else { "" },
                sh_quote(&bins)
            )),
            Hooks::Kept => None,
        }
    }

    pub fn run(self, codex: &Path) -> CodexOutcome {
        let started = std::time::Instant::now();
        let out = self.work.join("out");
        let mut script = json!({"steps": self.steps, "default": {"text": "Nothing more to do."}});
        if !self.sub_steps.is_empty() {
            script["sub_steps"] = json!(self.sub_steps);
            script["sub_default"] = json!({"text": "Subagent done."});
        }
        if let Some(t) = &self.side_text {
            script["side_text"] = json!(t);
        }
        let mut spec = CodexSpec::new(codex, script, &out);
        let bins = bin_dir();
        let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
        spec.path = std::env::join_paths(std::iter::once(bins).chain(std::env::split_paths(&path)))
            .expect("PATH entries hold no ':'");
        spec.project_src = Some(self.project.path().to_path_buf());
        spec.pre = self.install().into_iter().chain(self.pre.iter().cloned()).collect();
        spec.env = self.env.clone();
        spec.args = self.args.clone();
        spec.timeout = Duration::from_secs(self.timeout.into());
        spec.record_hooks = self.record.clone();
        spec.bypass_hook_trust = matches!(self.hooks, Hooks::None | Hooks::Bypassed);
        spec.keep = self.hooks == Hooks::Kept;
        let ran = codex_run::run(&spec).unwrap_or_else(|e| {
            panic!(
                "{e}\npre.log: {}",
                std::fs::read_to_string(out.join("pre.log")).unwrap_or_default()
            )
        });
        CodexOutcome {
            out,
            summary: ran.summary,
            rc: ran.rc,
            took: started.elapsed(),
        }
    }
}

impl CodexOutcome {
    pub fn proj(&self) -> PathBuf {
        self.out.join("proj")
    }

    /// fable's user state of the session (`$HOME/.local/state/fable`: key, snapshots).
    pub fn state(&self) -> PathBuf {
        self.out.join("home/.local/state/fable")
    }

    /// Evidence records, oldest first.
    pub fn evidence(&self) -> Vec<Value> {
        std::fs::read_to_string(self.proj().join(".fable/evidence.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("every evidence line is JSON"))
            .collect()
    }

    /// Payloads the recorder stored for `event`, in order.
    pub fn hook_payloads(&self, event: &str) -> Vec<Value> {
        self.summary["hooks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|h| h["event"] == event)
            .map(|h| h["payload"].clone())
            .collect()
    }

    /// API requests of `kind` (`main`, `sub`, `side`), in order.
    pub fn requests(&self, kind: &str) -> Vec<Value> {
        self.summary["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["kind"] == kind)
            .cloned()
            .collect()
    }

    /// The text of each main-thread request's new input (tool outputs, developer
    /// messages, `<hook_prompt>` user messages), in order.
    pub fn texts(&self) -> Vec<String> {
        self.requests("main")
            .iter()
            .map(|r| r["new_input"].to_string())
            .collect()
    }

    /// Every text Codex sent the model in a message of `role` (`developer`, `user`) on the
    /// main thread's requests, wherever it sits in the input (a SessionStart context
    /// comes before the prompt).
    pub fn message_texts(&self, role: &str) -> Vec<String> {
        let mut seen = Vec::new();
        for r in self.requests("main") {
            let body = self.request_body(&r);
            for it in body["input"].as_array().into_iter().flatten() {
                if it["type"] == "message" && it["role"] == role {
                    for c in it["content"].as_array().into_iter().flatten() {
                        if let Some(t) = c["text"].as_str() {
                            if !seen.iter().any(|s: &String| s == t) {
                                seen.push(t.to_string());
                            }
                        }
                    }
                }
            }
        }
        seen
    }

    /// The body of an API request as the mock received it.
    pub fn request_body(&self, req: &Value) -> Value {
        let n = req["n"].as_u64().unwrap_or(0);
        let kind = req["kind"].as_str().unwrap_or("main");
        std::fs::read_to_string(self.out.join(format!("mock/{n:03}-{kind}.json")))
            .ok()
            .and_then(|s| serde_json::from_str::<Value>(&s).ok())
            .map(|v| v["body"].clone())
            .unwrap_or(Value::Null)
    }

    /// The `--json` stream's completed items of `type` (`command_execution`, `error`, …).
    pub fn items(&self, ty: &str) -> Vec<Value> {
        self.summary["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|i| i["type"] == ty)
            .cloned()
            .collect()
    }

    pub fn last_message(&self) -> String {
        self.summary["last_message"].as_str().unwrap_or("").to_string()
    }

    /// `fable <args>` in the session's project with its HOME and CODEX_HOME: stdout and
    /// stderr together, and the exit status.
    pub fn fable(&self, args: &[&str]) -> (String, i32) {
        let home = self.out.join("home");
        let out = std::process::Command::new(bin_dir().join("fable"))
            .args(args)
            .current_dir(self.proj())
            .env("HOME", &home)
            .env("CODEX_HOME", home.join(".codex"))
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("FABLE_CONFIG_DIR")
            .output()
            .expect("fable runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (text, out.status.code().unwrap_or(-1))
    }

    pub fn debug(&self) -> String {
        format!(
            "out={} rc={} took={:?} codex.stderr={}",
            self.out.display(),
            self.rc,
            self.took,
            std::fs::read_to_string(self.out.join("codex.stderr"))
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.contains("Unknown model mock-model"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    }
}
