//! A real `git` history for the learning tests (both hosts): sessions where a push was
//! really rejected because the remote moved on, and `git pull --rebase` fixed it.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

pub fn git(dir: &Path, args: &[&str]) -> (i32, String) {
    let o = Command::new("git")
        .args([
            "-c",
            "user.name=Dev",
            "-c",
            "user.email=dev@example.com",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("git runs");
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    (o.status.code().unwrap_or(-1), text.trim_end().to_string())
}

pub fn ok(dir: &Path, args: &[&str]) {
    let (code, out) = git(dir, args);
    assert_eq!(code, 0, "git {args:?}: {out}");
}

/// A bare remote, a clone `mine` that has a local commit, and a colleague's push that put
/// the remote ahead: `git push` from `mine` is now really rejected.
pub fn diverged(root: &Path, tag: &str) -> std::path::PathBuf {
    let remote = root.join(format!("remote-{tag}.git"));
    ok(root, &["init", "-q", "--bare", remote.to_str().unwrap()]);
    let seed = root.join(format!("seed-{tag}"));
    ok(root, &["clone", "-q", remote.to_str().unwrap(), seed.to_str().unwrap()]);
    std::fs::write(seed.join("README"), "seed\n").unwrap();
    ok(&seed, &["add", "README"]);
    ok(&seed, &["commit", "-q", "-m", "seed"]);
    ok(&seed, &["push", "-q", "origin", "main"]);
    let mine = root.join(format!("mine-{tag}"));
    ok(root, &["clone", "-q", remote.to_str().unwrap(), mine.to_str().unwrap()]);
    std::fs::write(seed.join("theirs.txt"), "theirs\n").unwrap();
    ok(&seed, &["add", "theirs.txt"]);
    ok(&seed, &["commit", "-q", "-m", "theirs"]);
    ok(&seed, &["push", "-q", "origin", "main"]);
    std::fs::write(mine.join("mine.txt"), "mine\n").unwrap();
    ok(&mine, &["add", "mine.txt"]);
    ok(&mine, &["commit", "-q", "-m", "mine"]);
    mine
}

pub fn record(session: &str, i: usize, cwd: &Path, cmd: &str, code: i32, out: &str) -> Value {
    json!({"v": 1, "ts": format!("2026-11-0{}T10:00:{:02}.000Z", 1 + i / 10, i % 60), "session": session,
        "cwd": cwd, "cmd": cmd, "exit": code, "ok": code == 0, "tail": out,
        "event": if code == 0 { "PostToolUse" } else { "PostToolUseFailure" }})
}

/// Five earlier sessions, each a real rejected push fixed by a real rebase, as evidence
/// records (one JSON value per line), built under `root`.
pub fn rebase_history(root: &Path) -> Vec<Value> {
    let mut lines = Vec::new();
    let mut i = 0;
    for s in 0..5 {
        let mine = diverged(root, &format!("h{s}"));
        let session = format!("earlier-{s}");
        let (c, out) = git(&mine, &["push", "origin", "main"]);
        assert_ne!(c, 0, "the push must really be rejected: {out}");
        lines.push(record(&session, i, &mine, "git push origin main", c, &out));
        let (c, out) = git(&mine, &["pull", "--rebase"]);
        assert_eq!(c, 0, "{out}");
        lines.push(record(&session, i + 1, &mine, "git pull --rebase", c, &out));
        let (c, out) = git(&mine, &["push", "origin", "main"]);
        assert_eq!(c, 0, "{out}");
        lines.push(record(&session, i + 2, &mine, "git push origin main", c, &out));
        let (c, out) = git(&mine, &["status"]);
        lines.push(record(&session, i + 3, &mine, "git status", c, &out));
        i += 4;
    }
    lines
}

/// The shell line a learning test runs before its session: import `history.jsonl` sealed
/// (as a user vouches for a log: only records sealed on this machine may stand behind a
/// promoted rule), then learn and promote with `fable rules extract`.
pub fn import_and_extract(fable: &Path) -> String {
    format!(
        "printf 'seal\\n' | script -qec '{f} evidence import --seal history.jsonl' /dev/null > /dev/null && {f} rules extract --json > .fable/extract.json",
        f = super::harness::sh_quote(fable)
    )
}
