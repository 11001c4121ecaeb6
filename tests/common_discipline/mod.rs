//! Shared helpers for the discipline integration tests: a temp project with a `.git/`
//! folder (bounding discovery) and a `.fable/` folder, a private HOME / config / state,
//! and runners for the hook binaries with synthetic payloads in the real Claude Code shapes.
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

pub struct Proj {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub extra_env: Vec<(String, String)>,
}

impl Proj {
    /// An opted-in project: `.git/` and `.fable/`.
    pub fn new() -> Proj {
        Proj::named("proj", true)
    }

    /// A project without `.fable/`.
    pub fn bare() -> Proj {
        Proj::named("proj", false)
    }

    pub fn named(name: &str, fable: bool) -> Proj {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(name);
        fs::create_dir_all(root.join(".git")).unwrap();
        if fable {
            fs::create_dir_all(root.join(".fable")).unwrap();
        }
        let home = tmp.path().join("home");
        fs::create_dir_all(&home).unwrap();
        Proj {
            root: fs::canonicalize(&root).unwrap(),
            home: fs::canonicalize(&home).unwrap(),
            _tmp: tmp,
            extra_env: Vec::new(),
        }
    }

    pub fn with_env(mut self, k: &str, v: &str) -> Proj {
        self.extra_env.push((k.into(), v.into()));
        self
    }

    pub fn fable(&self) -> PathBuf {
        self.root.join(".fable")
    }

    pub fn ledger(&self, text: &str) -> &Proj {
        fs::write(self.fable().join("LEDGER.md"), text).unwrap();
        self
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        p
    }

    /// Appends evidence records: (cmd, exit, ok) run at the project root.
    pub fn log(&self, recs: &[(&str, i64, bool)]) -> &Proj {
        let root = self.root.to_string_lossy().into_owned();
        for (cmd, exit, ok) in recs {
            self.log_at(cmd, *exit, *ok, &root);
        }
        self
    }

    /// Logs one run the real way: a PostToolUse(Failure) payload through the real
    /// `fable-evidence` binary, so the record is sealed with this test's user key.
    pub fn log_at(&self, cmd: &str, exit: i64, ok: bool, cwd: &str) {
        let payload = if ok && exit == 0 {
            json!({"session_id":"s","cwd":cwd,"hook_event_name":"PostToolUse","tool_name":"Bash",
                   "tool_input":{"command":cmd},"tool_response":{"stdout":"","stderr":"","interrupted":false}})
        } else if ok {
            json!({"session_id":"s","cwd":cwd,"hook_event_name":"PostToolUse","tool_name":"Bash",
                   "tool_input":{"command":cmd},"tool_response":{"stdout":"","stderr":"","exit_code":exit}})
        } else {
            json!({"session_id":"s","cwd":cwd,"hook_event_name":"PostToolUseFailure","tool_name":"Bash",
                   "tool_input":{"command":cmd},"error":format!("Exit code {exit}\n")})
        };
        let root = self.root.to_string_lossy().into_owned();
        let out = self.hook_raw(
            "fable-evidence",
            payload.to_string().as_bytes(),
            &[("CLAUDE_PROJECT_DIR", &root)],
        );
        assert!(
            out.status.success(),
            "fable-evidence failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// SessionStart through the real `fable-inject`: the round's baseline is taken.
    pub fn session_start(&self, sid: &str) {
        let o = self.hook(
            "fable-inject",
            json!({"session_id": sid, "hook_event_name": "SessionStart", "source": "startup", "model": "claude-sonnet-4-5"}),
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }

    /// A Stop of session `sid`, with `extra` payload fields and `env`.
    pub fn stop_in(&self, sid: &str, extra: serde_json::Value, env: &[(&str, &str)]) -> Output {
        let mut payload = json!({"session_id": sid, "hook_event_name": "Stop", "stop_hook_active": false});
        if let (Some(m), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                m.insert(k.clone(), v.clone());
            }
        }
        self.hook_env("fable-close-guard", payload, env)
    }

    /// Logs a passing run of `cmd` in the stop's session (`s1`) with `stdout` as its
    /// output, through the real hook, so its summary is parsed as it would be live.
    pub fn ran(&self, cmd: &str, stdout: &str) -> &Proj {
        let root = self.root.to_string_lossy().into_owned();
        let payload = json!({"session_id":"s1","cwd":root,"hook_event_name":"PostToolUse","tool_name":"Bash",
               "tool_input":{"command":cmd},"tool_response":{"stdout":stdout,"stderr":"","interrupted":false}});
        let out = self.hook_raw(
            "fable-evidence",
            payload.to_string().as_bytes(),
            &[("CLAUDE_PROJECT_DIR", &root)],
        );
        assert!(
            out.status.success(),
            "fable-evidence failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self
    }

    /// Appends a record by hand, as anything but the hook could: unsealed, so it must
    /// corroborate nothing.
    pub fn forge_at(&self, cmd: &str, exit: i64, ok: bool, cwd: &str) {
        use std::io::Write;
        let v = json!({"v":1,"ts":"2026-12-02T12:00:00.000Z","session":"s","cwd":cwd,"cmd":cmd,
                       "exit":exit,"ok":ok,"tail":"","event": if ok {"PostToolUse"} else {"PostToolUseFailure"}});
        let mut f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.fable().join("evidence.jsonl"))
            .unwrap();
        writeln!(f, "{v}").unwrap();
    }

    /// The evidence log's records.
    pub fn records(&self) -> Vec<Value> {
        fs::read_to_string(self.fable().join("evidence.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    pub fn config_dir(&self) -> PathBuf {
        self.home.join("cfg")
    }

    pub fn state_home(&self) -> PathBuf {
        self.home.join("state")
    }

    /// A command for one of our binaries with a clean, private environment.
    pub fn cmd(&self, bin: &str) -> Command {
        let mut c = Command::cargo_bin(bin).unwrap();
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()))
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join("xdg-config"))
            .env("XDG_STATE_HOME", self.state_home())
            .env("FABLE_CONFIG_DIR", self.config_dir())
            // Each test's stops are all one session: without this, a test that stops
            // more than three times would meet the block limit (tests of the limit set it).
            .env("FABLE_STOP_BLOCKS", "1000")
            .current_dir(&self.root);
        for (k, v) in &self.extra_env {
            c.env(k, v);
        }
        c
    }

    /// Runs a hook binary with a JSON payload; `cwd` defaults to the project root.
    pub fn hook(&self, bin: &str, mut payload: Value) -> Output {
        if payload.get("cwd").is_none() {
            payload["cwd"] = json!(self.root.to_string_lossy());
        }
        self.hook_raw(bin, payload.to_string().as_bytes(), &[])
    }

    pub fn hook_env(&self, bin: &str, mut payload: Value, env: &[(&str, &str)]) -> Output {
        if payload.get("cwd").is_none() {
            payload["cwd"] = json!(self.root.to_string_lossy());
        }
        self.hook_raw(bin, payload.to_string().as_bytes(), env)
    }

    pub fn hook_raw(&self, bin: &str, stdin: &[u8], env: &[(&str, &str)]) -> Output {
        let mut c = self.cmd(bin);
        for (k, v) in env {
            c.env(k, v);
        }
        c.write_stdin(stdin.to_vec())
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap()
    }

    /// A Stop attempt.
    pub fn stop(&self) -> Output {
        self.hook(
            "fable-close-guard",
            json!({"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false}),
        )
    }

    pub fn stop_env(&self, env: &[(&str, &str)]) -> Output {
        self.hook_env(
            "fable-close-guard",
            json!({"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false}),
            env,
        )
    }

    /// Marks this project trusted for replay (through the real CLI).
    pub fn trust(&self) {
        let o = self
            .cmd("fable")
            .args(["trust", "--project"])
            .arg(&self.root)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    /// Runs the `fable` CLI.
    pub fn cli(&self, args: &[&str]) -> Output {
        self.cmd("fable").args(args).output().unwrap()
    }
}

/// A fresh `tool_use_id` per call, as Claude Code gives each call its own (the hooks act
/// once per call: the same payload twice is one call delivered twice).
pub fn call_id() -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    format!("toolu_{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// A failing Bash call, as Claude Code sends it.
pub fn failure(sid: &str, cmd: &str, code: i32) -> Value {
    json!({"session_id": sid, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
           "tool_input": {"command": cmd, "description": "run"}, "tool_use_id": call_id(),
           "error": format!("Exit code {code}\nsomething went wrong"), "is_interrupt": false, "duration_ms": 12})
}

/// A successful Bash call, as Claude Code sends it (no exit code).
pub fn success(sid: &str, cmd: &str) -> Value {
    json!({"session_id": sid, "hook_event_name": "PostToolUse", "tool_name": "Bash",
           "tool_input": {"command": cmd, "description": "run"}, "tool_use_id": call_id(),
           "tool_response": {"stdout": "fine", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
           "duration_ms": 5})
}

/// A Stop hook's verdict, read from the channel Claude Code honours for Stop: 2 for a
/// block (`{"decision":"block"}` on stdout with exit 0), else the exit code itself.
pub fn stop_code(o: &Output) -> i32 {
    match stop_reason(o) {
        Some(_) if o.status.code() == Some(0) => 2,
        _ => code(o),
    }
}

/// The `reason` of a Stop block given through the JSON channel.
pub fn stop_reason(o: &Output) -> Option<String> {
    let v: Value = serde_json::from_slice(&o.stdout).ok()?;
    (v["decision"] == "block").then(|| v["reason"].as_str().unwrap_or("").to_string())
}

/// What a Stop hook said to anyone: its stderr, its block reason, its `systemMessage`.
pub fn said(o: &Output) -> String {
    format!(
        "{}{}{}",
        stderr(o),
        stop_reason(o).unwrap_or_default(),
        system_message(o).unwrap_or_default()
    )
}

/// The `systemMessage` of an answer (shown to the user, not the model), if any.
pub fn system_message(o: &Output) -> Option<String> {
    let v: Value = serde_json::from_slice(&o.stdout).ok()?;
    v["systemMessage"].as_str().map(str::to_string)
}

pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `hookSpecificOutput.additionalContext` of an answer, if any.
pub fn context(o: &Output) -> Option<String> {
    let v: Value = serde_json::from_slice(&o.stdout).ok()?;
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .map(str::to_string)
}

/// True when a process is gone (or a zombie awaiting its reaper).
pub fn process_gone(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => s
            .rsplit(')')
            .next()
            .map(|r| r.trim_start().starts_with('Z'))
            .unwrap_or(false),
    }
}

pub fn exists(p: &Path) -> bool {
    p.exists()
}
