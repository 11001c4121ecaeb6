//! The project `fable bench` times freshness on: a git repository of 10,000 tracked files
//! (200 folders of 50), a card citing a passing run that the real evidence hook logged —
//! so the record carries its `tree` and the per-file snapshot sits in user state — and a
//! stop that the close guard lets through after comparing the files with it.

use crate::error::{Error, IoContext, Result};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Tracked files in the generated repository.
pub const FILES: usize = 10_000;
/// The command the card cites (a runner, so the evidence hook takes a snapshot).
pub const CITED: &str = "cargo test";

fn git(root: &Path, args: &[&str]) -> Result<()> {
    let st = Command::new("git")
        .args(args)
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .at(root)?;
    if !st.success() {
        return Err(Error::msg(format!("bench setup: git {} failed", args.join(" "))));
    }
    Ok(())
}

/// Builds the repository in `root` and logs the cited pass through `evidence_bin` with
/// `env` (the bench's user state).
pub fn build(root: &Path, evidence_bin: &Path, env: &[(&str, &str)]) -> Result<()> {
    std::fs::create_dir_all(root.join(".fable")).at(root)?;
    for d in 0..FILES / 50 {
        let dir = root.join(format!("src/m{}/d{d}", d / 20));
        std::fs::create_dir_all(&dir).at(&dir)?;
        for f in 0..50 {
            let p = dir.join(format!("f{f}.rs"));
            std::fs::write(&p, format!("pub fn f{f}() -> u32 {{ {f} }}\n")).at(&p)?;
        }
    }
    std::fs::write(root.join(".gitignore"), "target/\n*.log\n").at(root)?;
    git(root, &["init", "-q"])?;
    git(root, &["add", "-A"])?;
    log_pass(root, evidence_bin, env, 0)?;
    let ledger = format!("# Ledger\n\n- [x] 1. tests -- evidence: `{CITED}` -> 12 passed\n");
    std::fs::write(root.join(".fable/LEDGER.md"), ledger).at(root)?;
    Ok(())
}

/// Logs a passing run of [`CITED`] in `root` through `evidence_bin` (call `n`, for a
/// distinct tool call id), as the agent's run would be.
pub fn log_pass(root: &Path, evidence_bin: &Path, env: &[(&str, &str)], n: usize) -> Result<()> {
    let payload = json!({"session_id": "bench-session", "cwd": root.display().to_string(),
        "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": format!("toolu_bench_pass_{n}"),
        "tool_input": {"command": CITED},
        "tool_response": {"stdout": "test result: ok. 12 passed; 0 failed\n", "stderr": "", "interrupted": false}});
    let mut child = Command::new(evidence_bin)
        .current_dir(root)
        .env("CLAUDE_PROJECT_DIR", root)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .at(evidence_bin)?;
    if let Some(mut s) = child.stdin.take() {
        let _ = s.write_all(payload.to_string().as_bytes());
    }
    child.wait().at(evidence_bin)?;
    let log = std::fs::read_to_string(root.join(".fable/evidence.jsonl")).unwrap_or_default();
    if !log.contains("\"tree\":") {
        return Err(Error::msg(
            "bench setup: the evidence hook logged no tree for the cited pass",
        ));
    }
    Ok(())
}

/// Waits (up to 10 s) until the watcher the cited pass started listens, so the bench
/// times the stop a user gets once the watcher is up; false when none came (not Linux,
/// watchers off, no user state named by `env`).
pub fn wait_for_watcher(env: &[(&str, &str)]) -> bool {
    let get = |k: &str| env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string());
    let Some(trees) = crate::session_state::user_state_dir(get).map(|d| d.join("trees")) else {
        return false;
    };
    let listening = || {
        std::fs::read_dir(&trees).into_iter().flatten().flatten().any(|d| {
            std::fs::read_dir(d.path())
                .into_iter()
                .flatten()
                .flatten()
                .any(|f| f.file_name().to_string_lossy().ends_with(".sock"))
        })
    };
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(10) {
        if listening() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}
