//! Drives the real Claude Code CLI through the project's own offline harness
//! (`fable::harness`, docs/harness.md): a scripted mock of the Messages API on loopback,
//! inside a private network namespace when the process may create one, so our hooks are
//! proven under the real host, not only with hand-made JSON.
//!
//! Where the CLI is missing the tests skip with a note, unless `FABLE_E2E_REQUIRED=1` or
//! `CI` is set: then a missing CLI is a failure, so CI can never pass by silently skipping
//! the end-to-end tests. `scripts/install-claude.sh` installs it.

#![allow(dead_code)]

use fable::harness::run::{self as harness_run, Spec};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An agent CLI binary: `$bin_var`, else `<cache>/<rel>` where the install script linked
/// it (`$cache_var`, default `~/.cache/<default_cache>`).
pub fn cached_cli(bin_var: &str, cache_var: &str, default_cache: &str, rel: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(bin_var) {
        return Some(PathBuf::from(p));
    }
    let cache = std::env::var_os(cache_var).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache")
            .join(default_cache)
    });
    let p = cache.join(rel);
    p.exists().then_some(p)
}

pub fn claude_bin() -> Option<PathBuf> {
    cached_cli("CLAUDE_BIN", "CC_HARNESS_CACHE", "cc-harness", "claude")
}

fn required() -> bool {
    std::env::var("FABLE_E2E_REQUIRED").is_ok_and(|v| v == "1") || std::env::var_os("CI").is_some()
}

/// The CLI, or `None` (with a note) when it is absent and not required.
pub fn available() -> Option<PathBuf> {
    available_cli(claude_bin(), "Claude Code CLI", "scripts/install-claude.sh", "")
}

/// `found`, tallied as ran; or `None` with a note (tallied as skipped) — a failure when
/// `FABLE_E2E_REQUIRED`/`CI` says the end-to-end tests must run. `tag` follows the test's
/// name in the tally (` (codex)`: the test command counts by host).
pub fn available_cli(found: Option<PathBuf>, what: &str, install: &str, tag: &str) -> Option<PathBuf> {
    match found {
        Some(c) => {
            record("ran", tag);
            Some(c)
        }
        None => {
            let msg = format!("end-to-end test skipped: no {what} (run {install})");
            assert!(!required(), "{msg}; FABLE_E2E_REQUIRED/CI is set, so this is a failure");
            eprintln!("{msg}");
            record("skipped", tag);
            None
        }
    }
}

/// Appends `<verdict> <test name><tag>` to `$FABLE_E2E_LOG` when set, so the test command
/// can say which end-to-end tests really ran: a test that returned early passed nothing.
/// (cargo's test threads are named after their test.)
fn record(verdict: &str, tag: &str) {
    let Some(log) = std::env::var_os("FABLE_E2E_LOG") else {
        return;
    };
    let name = std::thread::current().name().unwrap_or("unnamed").to_string();
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
        use std::io::Write;
        // One write of the whole line: tests run in parallel threads (O_APPEND keeps it whole).
        let _ = f.write_all(format!("{verdict} {name}{tag}\n").as_bytes());
    }
}

/// Directory holding the freshly built `fable` and hook binaries.
pub fn bin_dir() -> PathBuf {
    // The harness starts each session with a cleared environment and its own HOME.
    // isolation: not spawned here.
    assert_cmd::cargo::cargo_bin("fable").parent().unwrap().to_path_buf()
}

pub fn sh_quote(p: &Path) -> String {
    shell_words::quote(&p.to_string_lossy()).into_owned()
}

/// One scripted Claude Code session.
pub struct Session {
    pub name: String,
    pub steps: Vec<Value>,
    pub project: tempfile::TempDir,
    pub pre: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Extra `claude` arguments (`--model sonnet`).
    pub args: Vec<String>,
    pub timeout: u32,
    /// The run's folder (kept for inspection); the project runs in `<work>/out/proj`.
    pub work: PathBuf,
    /// A later session of an earlier run's project and HOME ([`Session::next_session`]).
    pub keep: bool,
    /// fable's hooks registered in the user settings too, under other command strings
    /// (absolute paths there, bare names in the project): every hook runs twice.
    pub twice: bool,
}

/// What the harness left behind.
pub struct Outcome {
    pub out: PathBuf,
    pub summary: Value,
    pub rc: i32,
}

impl Session {
    /// A session whose project has `.fable/` (via `fable init`) and our hooks registered by
    /// `fable install --project`, exactly as a user would set it up (the hooks on PATH, so
    /// the project settings name them by bare name).
    pub fn new(name: &str) -> Session {
        let project = tempfile::tempdir().unwrap();
        let work = tempfile::Builder::new()
            .prefix(&format!("fable-e2e-{name}-"))
            .tempdir()
            .unwrap()
            .keep();
        Session {
            name: name.to_string(),
            steps: Vec::new(),
            project,
            pre: Vec::new(),
            env: Vec::new(),
            args: Vec::new(),
            timeout: 60,
            work,
            keep: false,
            twice: false,
        }
    }

    /// Another session in `prev`'s project, with its HOME and user state (the harness's
    /// `keep`): a fresh Claude Code session, not a resume; `fable init` and
    /// `install` are not run again.
    pub fn next_session(prev: &Outcome) -> Session {
        let mut s = Session::new("next");
        let _ = std::fs::remove_dir(&s.work);
        s.work = prev.out.parent().expect("out lives in a work folder").to_path_buf();
        s.keep = true;
        s
    }

    /// Registers fable's hooks in both the user settings (absolute paths) and the project
    /// settings (bare names) of the throw-away session, as a user who ran `./install.sh`
    /// and then `fable install --project` had before the installer refused that: Claude
    /// Code runs every hook twice. (The project install is made with an empty config
    /// folder, so the installer does not see the user registration and refuse it.)
    pub fn registered_twice(mut self) -> Session {
        self.twice = true;
        self
    }

    pub fn project_path(&self) -> &Path {
        self.project.path()
    }

    /// Where the project will be while the session runs (the harness copies it there):
    /// for tool inputs that need an absolute path, such as Write's `file_path`.
    pub fn run_proj(&self) -> PathBuf {
        self.work.join("out/proj")
    }

    /// A Write tool call of `rel` (under the running project) with `content`.
    pub fn write(self, rel: &str, content: &str) -> Session {
        let file = self.run_proj().join(rel).to_string_lossy().into_owned();
        self.step(json!({"tool_use": {"name": "Write", "input": {"file_path": file, "content": content}}}))
    }

    /// An Agent tool call that runs in the foreground (`run_in_background: false`), so
    /// the sub-agent's requests take the next steps of the script, in order.
    pub fn agent(self, input: Value) -> Session {
        let mut input = input;
        if input.get("description").is_none() {
            input["description"] = json!("sub task");
        }
        input["run_in_background"] = json!(false);
        self.step(json!({"tool_use": {"name": "Agent", "input": input}}))
    }

    /// An extra argument for `claude` itself.
    pub fn arg(mut self, a: &str) -> Session {
        self.args.push(a.to_string());
        self
    }

    pub fn bash(mut self, cmd: &str) -> Session {
        self.steps
            .push(json!({"tool_use": {"name": "Bash", "input": {"command": cmd, "description": "run it"}}}));
        self
    }

    pub fn text(mut self, text: &str) -> Session {
        self.steps.push(json!({"text": text}));
        self
    }

    pub fn step(mut self, v: Value) -> Session {
        self.steps.push(v);
        self
    }

    pub fn pre(mut self, cmd: &str) -> Session {
        self.pre.push(cmd.to_string());
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> Session {
        self.env.push((k.to_string(), v.to_string()));
        self
    }

    /// Writes a file into the project before the run.
    pub fn file(self, rel: &str, content: &str) -> Session {
        let p = self.project.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
        self
    }

    pub fn run(self, claude: &Path) -> Outcome {
        let work = self.work.clone();
        let bins = bin_dir();
        let fable = sh_quote(&bins.join("fable"));
        // The pre commands share the session's user state (HOME/.local/state, where the
        // sealing key lives): the CLI under test runs with a cleared environment and no XDG
        // variables.
        let mut pre: Vec<String> = Vec::new();
        pre.extend((!self.keep).then(|| format!(
            "unset XDG_STATE_HOME XDG_CONFIG_HOME FABLE_CONFIG_DIR; {fable} init && {fable} install --project --bin-dir {} --claude {}",
            sh_quote(&bins),
            sh_quote(claude)
        )));
        if self.twice && !self.keep {
            pre[0] = format!(
                "unset XDG_STATE_HOME XDG_CONFIG_HOME FABLE_CONFIG_DIR; {fable} init && {fable} install --user --bin-dir {b} --claude {c} && CLAUDE_CONFIG_DIR=\"$(mktemp -d)\" {fable} install --project --no-skill --bin-dir {b} --claude {c}",
                b = sh_quote(&bins),
                c = sh_quote(claude)
            );
        }
        pre.extend(self.pre.iter().cloned());
        let out = work.join("out");
        let script = json!({"steps": self.steps, "default": {"text": "Nothing more to do."}});
        let mut spec = Spec::new(claude, script, &out);
        // The freshly built hooks first on PATH, for the pre commands and the CLI alike:
        // `fable install --project` writes the shared project settings portably, naming the
        // hooks by bare name, as a teammate's clone would run them.
        let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
        spec.path = std::env::join_paths(std::iter::once(bins.clone()).chain(std::env::split_paths(&path)))
            .expect("PATH entries hold no ':'");
        spec.project_src = Some(self.project.path().to_path_buf());
        spec.keep = self.keep;
        spec.pre = pre;
        spec.env = self.env.clone();
        spec.args = self.args.clone();
        spec.timeout = Duration::from_secs(self.timeout.into());
        let ran = harness_run::run(&spec).unwrap_or_else(|e| {
            panic!(
                "{e}\npre.log: {}",
                std::fs::read_to_string(out.join("pre.log")).unwrap_or_default()
            )
        });
        Outcome {
            out,
            summary: ran.summary,
            rc: ran.rc,
        }
    }
}

impl Outcome {
    pub fn proj(&self) -> PathBuf {
        self.out.join("proj")
    }

    /// fable's user state of the session (`$HOME/.local/state/fable`: key, snapshots).
    pub fn state(&self) -> PathBuf {
        self.out.join("home/.local/state/fable")
    }

    /// Evidence records, oldest first, from the live log (tests keep it below rotation).
    pub fn evidence(&self) -> Vec<Value> {
        std::fs::read_to_string(self.proj().join(".fable/evidence.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("every evidence line is JSON"))
            .collect()
    }

    /// Payloads each hook of `event` read on stdin (only events the capture saw).
    pub fn hook_payloads(&self, event: &str) -> Vec<Value> {
        self.summary["hooks"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|h| h["event"] == event)
                    .map(|h| h["payload"].clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Main-loop API requests, in order; `new_user_content` is what Claude Code sent next.
    pub fn main_requests(&self) -> Vec<Value> {
        self.summary["requests"]
            .as_array()
            .map(|a| a.iter().filter(|r| r["kind"] == "main").cloned().collect())
            .unwrap_or_default()
    }

    /// Every transcript line (main thread and sub-agents) of the session's home that
    /// mentions `needle`.
    pub fn transcript_lines(&self, needle: &str) -> Vec<String> {
        self.transcript_files()
            .iter()
            .flat_map(|f| {
                std::fs::read_to_string(f)
                    .unwrap_or_default()
                    .lines()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter(|l| l.contains(needle))
            .collect()
    }

    /// The transcript files (`*.jsonl`) under the session's home.
    pub fn transcript_files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        walk(&self.out.join("home"), &mut files);
        files
    }

    /// The body of an API request as the mock received it (`model`, `messages`, `tools`).
    pub fn request_body(&self, req: &Value) -> Value {
        let n = req["n"].as_u64().unwrap_or(0);
        let kind = req["kind"].as_str().unwrap_or("main");
        std::fs::read_to_string(self.out.join(format!("mock/{n:03}-{kind}.json")))
            .ok()
            .and_then(|s| serde_json::from_str::<Value>(&s).ok())
            .map(|v| v["body"].clone())
            .unwrap_or(Value::Null)
    }

    pub fn sent_text(req: &Value) -> String {
        req["new_user_content"].to_string()
    }

    pub fn debug(&self) -> String {
        format!(
            "out={} rc={} claude.stderr={}",
            self.out.display(),
            self.rc,
            std::fs::read_to_string(self.out.join("claude.stderr")).unwrap_or_default()
        )
    }
}
