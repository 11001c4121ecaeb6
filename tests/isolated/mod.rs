//! The way integration tests start fable's binaries: from a cleared environment, so
//! HOME, the state folder (sealing key, session state, install backups) and the config
//! folder (the trust list) are the test's own temp folders, and nothing the developer's
//! shell exports (`XDG_*`, `FABLE_CONFIG_DIR`, `CLAUDE_CONFIG_DIR`, `CLAUDE_PROJECT_DIR`)
//! reaches the real user state. Setting HOME alone is not enough: an exported
//! `XDG_STATE_HOME` still wins over it. `tests/cli_conventions.rs` checks that every test
//! naming one of our binaries clears the environment like this.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::Path;

/// The whole environment of a child: PATH and TMPDIR from the test's own, the rest
/// inside `home` (laid out as `tests/common_discipline`'s `Proj` lays it out).
pub fn vars(home: &Path) -> Vec<(&'static str, OsString)> {
    let mut v = vec![
        (
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
        ),
        ("HOME", home.into()),
        ("XDG_CONFIG_HOME", home.join("xdg-config").into()),
        ("XDG_STATE_HOME", home.join("state").into()),
        ("FABLE_CONFIG_DIR", home.join("cfg").into()),
    ];
    if let Some(t) = std::env::var_os("TMPDIR") {
        v.push(("TMPDIR", t));
    }
    v
}

/// `assert_cmd` command for one of our binaries, isolated in `home`.
pub fn cmd(bin: &str, home: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin(bin).unwrap();
    c.env_clear().envs(vars(home));
    c
}

/// `std::process` command (for pipes and concurrent children), isolated in `home`.
pub fn std_cmd(bin: &str, home: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin(bin));
    c.env_clear().envs(vars(home));
    c
}

/// `fable evidence import --seal <file>` as a user runs it: at a terminal (a pty from
/// util-linux `script`), typing `seal` at the prompt. Without a terminal it is refused.
pub fn seal_import(home: &Path, dir: &Path, file: &str) -> std::process::Output {
    use std::io::Write;
    let fable = assert_cmd::cargo::cargo_bin("fable");
    let line = format!(
        "{} evidence import --seal {}",
        shell_words::quote(&fable.to_string_lossy()),
        shell_words::quote(file)
    );
    let mut c = std::process::Command::new("script");
    c.env_clear()
        .envs(vars(home))
        .current_dir(dir)
        .args(["-qec", &line, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("util-linux `script` runs");
    child.stdin.take().unwrap().write_all(b"seal\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "sealed import failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `fable <args>` in the project `dir` (its home `dir/.home`): asserted to succeed, its
/// standard output read as JSON.
pub fn fable_json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = cmd("fable", &dir.join(".home"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fable {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// The failure hook's answer (stdout and stderr) to `command` failing with `error` in
/// `dir`. Each call has its own tool-use id: the hook acts once per call, and a repeat
/// would answer nothing.
pub fn failure_hook(dir: &Path, command: &str, error: &str) -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let id = format!("toolu_{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let payload = serde_json::json!({"session_id": "s-new", "transcript_path": "/tmp/t.jsonl", "cwd": dir.display().to_string(),
        "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": id,
        "tool_input": {"command": command}, "error": format!("Exit code 1\n{error}")});
    let out = cmd("fable-fail-streak", &dir.join(".home"))
        .current_dir(dir)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
