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
    let payload = json!({"session_id": "bench-session", "cwd": root.display().to_string(),
        "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": CITED},
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
    let ledger = format!("# Ledger\n\n- [x] 1. tests -- evidence: `{CITED}` -> 12 passed\n");
    std::fs::write(root.join(".fable/LEDGER.md"), ledger).at(root)?;
    Ok(())
}
