//! `fable doctor`'s two questions about one registered hook command: does it **resolve**
//! to an executable, and does that executable **answer** a harmless payload of its event?
//!
//! Why both: a registration can look right and still do nothing. The binary may be gone
//! (an upgrade moved it), a bare name may not be on this `PATH`, or it may crash on start
//! (a wrong architecture, a missing library). Claude Code treats every one of those as a
//! non-blocking error and says nothing to the model, so fable would be silently off.
//!
//! Resolution follows the shell Claude Code runs the command through: the program word
//! (after shell-style splitting; the `# fable` comment is not a word) with
//! `$CLAUDE_PROJECT_DIR` and `$CLAUDE_PLUGIN_ROOT` expanded, looked up on `PATH` when it
//! has no `/`, taken from the project folder when relative. The probe then runs that
//! program directly (only a program fable installed: [`crate::setup::doctor_trust`]), in a
//! throwaway project (with `.fable/`, so the hook really does its work) under a throwaway
//! HOME and XDG folders: it must not log evidence, count a failure or learn a rule in the
//! user's real project, and `CLAUDE_PROJECT_DIR` points at the throwaway project for the
//! same reason. It must exit 0 within [`PROBE_TIMEOUT`] with empty stdout or one JSON
//! object (plain text too for SessionStart and UserPromptSubmit, where it becomes context).

use crate::setup::portable::{is_executable, which};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a hook may take to answer the probe. fable's hooks answer in milliseconds; a
/// hang is what this catches.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The program a command runs, found; or why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Found {
        program: PathBuf,
        args: Vec<String>,
    },
    /// Not found (or not expandable); the text says what and where.
    Missing(String),
    /// Found, but not an executable file.
    NotExecutable(PathBuf),
}

/// Resolves `command` as the shell would, with `vars` (name, value) expanded in its
/// program word and `path_env` for a bare name.
pub fn resolve(command: &str, vars: &[(&str, &Path)], path_env: Option<&std::ffi::OsStr>) -> Resolution {
    let words = match shell_words::split(command) {
        Ok(w) if !w.is_empty() => w,
        _ => return Resolution::Missing(format!("`{command}` is not a command line the shell can run")),
    };
    let mut program = words[0].clone();
    for (name, value) in vars {
        let value = value.to_string_lossy();
        program = program
            .replace(&format!("${{{name}}}"), &value)
            .replace(&format!("${name}"), &value);
    }
    if let Some(i) = program.find('$') {
        let var = &program[i..];
        return Resolution::Missing(format!(
            "{program}: uses {var}, which is not set here (fable doctor expands only CLAUDE_PROJECT_DIR \
             and CLAUDE_PLUGIN_ROOT)"
        ));
    }
    let args = words[1..].to_vec();
    if !program.contains('/') {
        return match which(&program, path_env) {
            Some(p) => Resolution::Found { program: p, args },
            None => Resolution::Missing(format!("{program}: not found on PATH")),
        };
    }
    // A relative path runs from where Claude Code starts hooks: the project folder.
    let path = match vars.iter().find(|(k, _)| *k == "CLAUDE_PROJECT_DIR") {
        Some((_, root)) if !program.starts_with('/') => root.join(&program).components().collect(),
        _ => PathBuf::from(&program),
    };
    if std::fs::metadata(&path).is_err() {
        return Resolution::Missing(format!("{program}: no such file"));
    }
    if !is_executable(&path) {
        return Resolution::NotExecutable(path);
    }
    Resolution::Found { program: path, args }
}

/// How the probe went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub ok: bool,
    /// What it did: `answered with JSON`, `exited 101: <stderr>`, …
    pub detail: String,
    pub millis: u128,
}

/// The throwaway project, HOME and state folders probes run in; removed when dropped.
pub struct Sandbox {
    root: PathBuf,
}

impl Sandbox {
    /// Creates the folders under the system temp folder, private to the user.
    pub fn new() -> std::io::Result<Sandbox> {
        use std::os::unix::fs::DirBuilderExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let root = std::env::temp_dir().join(format!("fable-doctor-{}-{nanos}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&root)?;
        let s = Sandbox { root };
        for d in ["project/.fable", "home", "state", "config", "fable-config"] {
            std::fs::create_dir_all(s.root.join(d))?;
        }
        Ok(s)
    }

    pub fn project(&self) -> PathBuf {
        self.root.join("project")
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The tool a probe for `matcher` pretends was called: its first alternative when the
/// matcher is a plain `A|B` list, else Bash.
fn tool_for(matcher: Option<&str>) -> String {
    let first = matcher.and_then(|m| m.split('|').next()).unwrap_or("");
    if !first.is_empty() && first.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        first.to_string()
    } else {
        "Bash".to_string()
    }
}

fn tool_input(tool: &str, project: &Path) -> Value {
    let file = project.join("doctor.txt");
    match tool {
        "Bash" => json!({"command": "ls", "description": "list files"}),
        "Write" => json!({"file_path": file, "content": "doctor\n"}),
        "Edit" | "MultiEdit" => json!({"file_path": file, "old_string": "a", "new_string": "b"}),
        "NotebookEdit" => json!({"notebook_path": project.join("doctor.ipynb"), "new_source": "1"}),
        "Agent" | "Task" | "Workflow" => json!({
            "description": "doctor check",
            "prompt": "List the files.",
            "subagent_type": "general-purpose"
        }),
        _ => json!({}),
    }
}

/// A small, harmless payload of `event` as Claude Code sends it (claude-code-hooks.md).
pub fn payload(event: &str, matcher: Option<&str>, project: &Path) -> Value {
    let mut p = json!({
        "session_id": "fable-doctor",
        "transcript_path": project.join("transcript.jsonl"),
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": event,
    });
    let tool = tool_for(matcher);
    let extra = match event {
        "SessionStart" => json!({"source": "startup"}),
        "SessionEnd" => json!({"reason": "other"}),
        "UserPromptSubmit" => json!({"prompt": "hello"}),
        "Stop" | "SubagentStop" => json!({"stop_hook_active": false, "last_assistant_message": "Done."}),
        "PreToolUse" => {
            json!({"tool_name": tool, "tool_input": tool_input(&tool, project), "tool_use_id": "toolu_doctor"})
        }
        "PostToolUse" => {
            let response = if tool == "Bash" {
                json!({"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false})
            } else {
                json!({"filePath": project.join("doctor.txt"), "success": true})
            };
            json!({"tool_name": tool, "tool_input": tool_input(&tool, project), "tool_response": response,
                   "tool_use_id": "toolu_doctor", "duration_ms": 1})
        }
        "PostToolUseFailure" => json!({"tool_name": tool, "tool_input": tool_input(&tool, project),
                   "tool_use_id": "toolu_doctor", "error": "Exit code 1\n", "is_interrupt": false}),
        _ => json!({}),
    };
    if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            p.insert(k.clone(), v.clone());
        }
    }
    p
}

/// Runs `program args` with `payload` on stdin inside `sandbox`, with `extra_env` (e.g.
/// `CLAUDE_PLUGIN_ROOT`), and judges the answer for `event`.
pub fn probe(
    program: &Path,
    args: &[String],
    event: &str,
    payload: &Value,
    sandbox: &Sandbox,
    extra_env: &[(&str, &Path)],
) -> Answer {
    use wait_timeout::ChildExt;
    let start = Instant::now();
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .env(
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
        )
        .env("HOME", sandbox.root.join("home"))
        .env("XDG_STATE_HOME", sandbox.root.join("state"))
        .env("XDG_CONFIG_HOME", sandbox.root.join("config"))
        .env("FABLE_CONFIG_DIR", sandbox.root.join("fable-config"))
        .env("CLAUDE_PROJECT_DIR", sandbox.project())
        .env("CLAUDE_CODE_SESSION_ID", "fable-doctor")
        .env("CLAUDECODE", "1")
        .current_dir(sandbox.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(t) = std::env::var_os("TMPDIR") {
        cmd.env("TMPDIR", t);
    }
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return answer(false, format!("could not start it: {e}"), start),
    };
    // The payload (far below a pipe buffer, so the write cannot block) goes in before the
    // wait. A hook that exits without reading it closes the pipe, and under `fable`'s
    // default SIGPIPE that write would kill the doctor itself: the signal is ignored for
    // the write (EPIPE is then an ordinary, harmless error). No other thread writes a pipe.
    if let Some(mut stdin) = child.stdin.take() {
        // SAFETY: swapping a signal disposition and putting the previous one back.
        let previous = unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        let _ = stdin.write_all(format!("{payload}\n").as_bytes());
        drop(stdin);
        unsafe { libc::signal(libc::SIGPIPE, previous) };
    }
    // Read on threads so a hook (or a grandchild holding the pipe) cannot hang the doctor.
    let out = reader(child.stdout.take());
    let err = reader(child.stderr.take());
    let status = match child.wait_timeout(PROBE_TIMEOUT) {
        Ok(Some(s)) => s,
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            let secs = PROBE_TIMEOUT.as_secs();
            return answer(false, format!("did not answer within {secs} s (killed)"), start);
        }
        Err(e) => return answer(false, format!("could not wait for it: {e}"), start),
    };
    let stdout = out.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
    let stderr = err.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
    let first_err = stderr.lines().next().unwrap_or("").trim().to_string();
    match status.code() {
        Some(0) => {}
        Some(2) => {
            return answer(
                false,
                format!("blocked a harmless {event} payload (exit 2): {first_err}"),
                start,
            )
        }
        Some(c) => return answer(false, format!("exited {c}: {first_err}"), start),
        None => return answer(false, format!("was killed by a signal: {first_err}"), start),
    }
    let text = stdout.trim();
    if text.is_empty() {
        return answer(true, "answered (no output)".to_string(), start);
    }
    if text.starts_with('{') {
        return match serde_json::from_str::<Value>(text) {
            Ok(_) => answer(true, "answered with JSON".to_string(), start),
            Err(e) => answer(
                false,
                format!("printed invalid JSON ({e}); Claude Code would ignore it"),
                start,
            ),
        };
    }
    if matches!(event, "SessionStart" | "UserPromptSubmit") {
        return answer(true, "answered with context text".to_string(), start);
    }
    let shown: String = text.chars().take(60).collect();
    answer(
        false,
        format!("printed text that is not JSON ({shown:?}); Claude Code ignores it for {event}"),
        start,
    )
}

fn reader<R: Read + Send + 'static>(pipe: Option<R>) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.by_ref().take(1 << 20).read_to_end(&mut buf);
        }
        let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
    });
    rx
}

fn answer(ok: bool, detail: String, start: Instant) -> Answer {
    Answer {
        ok,
        detail,
        millis: start.elapsed().as_millis(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_the_shell() {
        let none = std::ffi::OsStr::new("/usr/bin:/bin");
        let r = resolve("sh # fable", &[], Some(none));
        assert!(
            matches!(r, Resolution::Found { ref program, .. } if program.ends_with("sh")),
            "{r:?}"
        );
        let r = resolve(
            "\"$CLAUDE_PROJECT_DIR/bin/fable-x\" --a # fable",
            &[("CLAUDE_PROJECT_DIR", Path::new("/p"))],
            Some(none),
        );
        assert_eq!(r, Resolution::Missing("/p/bin/fable-x: no such file".into()));
        let r = resolve("\"${CLAUDE_PLUGIN_ROOT}/fable-x\"", &[], Some(none));
        assert!(
            matches!(r, Resolution::Missing(ref m) if m.contains("CLAUDE_PLUGIN_ROOT")),
            "{r:?}"
        );
        let r = resolve("fable-nope-nope", &[], Some(none));
        assert_eq!(r, Resolution::Missing("fable-nope-nope: not found on PATH".into()));
    }

    #[test]
    fn payloads_pick_a_tool_from_the_matcher() {
        let p = payload("PreToolUse", Some("Agent|Task|Workflow"), Path::new("/p"));
        assert_eq!(p["tool_name"], "Agent");
        let p = payload("PostToolUseFailure", Some("Bash"), Path::new("/p"));
        assert_eq!(p["error"], "Exit code 1\n");
        assert_eq!(payload("Stop", None, Path::new("/p"))["stop_hook_active"], false);
        assert_eq!(
            payload("PreToolUse", Some("mcp__.*"), Path::new("/p"))["tool_name"],
            "Bash"
        );
    }

    #[test]
    fn judges_exit_status_and_output() {
        let s = Sandbox::new().unwrap();
        let run = |script: &str, event: &str| {
            probe(
                Path::new("/bin/sh"),
                &["-c".into(), script.into()],
                event,
                &json!({}),
                &s,
                &[],
            )
        };
        assert!(run("cat >/dev/null", "Stop").ok);
        assert!(run("echo '{\"a\":1}'", "Stop").ok);
        assert!(run("echo context", "SessionStart").ok);
        assert!(!run("echo hi", "Stop").ok);
        assert!(!run("echo '{bad'", "Stop").ok);
        let a = run("echo boom >&2; exit 3", "Stop");
        assert_eq!(a.detail, "exited 3: boom");
        assert!(run("echo $HOME", "SessionStart").detail.contains("context"));
        let root = s.root.clone();
        drop(s);
        assert!(!root.exists(), "the sandbox is removed");
    }
}
