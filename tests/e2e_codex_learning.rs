//! A learned rule under the real Codex CLI: the history is real `git` runs (a push
//! rejected because the remote moved on, fixed by `git pull --rebase`, as in
//! tests/e2e_learning.rs), the rule is learned and promoted by `fable rules extract` in
//! the session's own environment, and the Codex session then (a) gets it in its
//! SessionStart context (a developer message before the prompt) and (b) gets it again as
//! context the moment the same push really fails.

mod support;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use support::codex::{available, CodexSession};
use support::harness::{bin_dir, sh_quote};

fn git(dir: &Path, args: &[&str]) -> (i32, String) {
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

fn ok(dir: &Path, args: &[&str]) {
    let (code, out) = git(dir, args);
    assert_eq!(code, 0, "git {args:?}: {out}");
}

/// A bare remote, a clone `mine` that has a local commit, and a colleague's push that put
/// the remote ahead: `git push` from `mine` is now really rejected.
fn diverged(root: &Path, tag: &str) -> std::path::PathBuf {
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

fn record(session: &str, i: usize, cwd: &Path, cmd: &str, code: i32, out: &str) -> Value {
    json!({"v": 1, "ts": format!("2026-11-0{}T10:00:{:02}.000Z", 1 + i / 10, i % 60), "session": session,
        "cwd": cwd, "cmd": cmd, "exit": code, "ok": code == 0, "tail": out,
        "event": if code == 0 { "PostToolUse" } else { "PostToolUseFailure" }})
}

#[test]
fn codex_a_promoted_rule_reaches_session_start_and_the_matching_failure() {
    let Some(codex) = available() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    let mut i = 0;
    for s in 0..5 {
        let mine = diverged(scratch.path(), &format!("h{s}"));
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
    let proj = diverged(scratch.path(), "live");
    std::fs::create_dir_all(proj.join(".fable")).unwrap();
    std::fs::write(proj.join(".fable/LEDGER.md"), "# Ledger\n").unwrap();
    let log: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(proj.join("history.jsonl"), log).unwrap();
    let fable = bin_dir().join("fable");
    let s = CodexSession::new("learning");
    assert!(Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", proj.display()))
        .arg(s.project_path())
        .status()
        .unwrap()
        .success());
    let o = s
        .pre(&format!(
            "printf 'seal\\n' | script -qec '{f} evidence import --seal history.jsonl' /dev/null > /dev/null && {f} rules extract --json > .fable/extract.json",
            f = sh_quote(&fable)
        ))
        .shell("git push origin main")
        .text("Pushed? Stopping here.")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    let rules: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(o.proj().join(".fable/rules.json")).unwrap()).unwrap();
    let rule = rules
        .iter()
        .find(|r| r["status"] == "promoted" && r["directive"].as_str().unwrap_or("").contains("git pull --rebase"))
        .unwrap_or_else(|| panic!("no promoted pull --rebase rule: {rules:#?}\n{}", o.debug()));
    let id = rule["id"].as_str().unwrap().to_string();
    let sent = o.texts();
    assert!(sent.len() >= 2, "{sent:#?}\n{}", o.debug());
    // The first request's new input runs from the prompt on; SessionStart's context is a
    // developer message before it.
    let developer = o.message_texts("developer");
    assert!(
        developer
            .iter()
            .any(|t| t.contains(&id) && t.contains("git pull --rebase")),
        "SessionStart context lacks the rule {id}: {developer:#?}"
    );
    let push = o
        .evidence()
        .into_iter()
        .find(|r| r["cmd"] == "git push origin main")
        .expect("the push was logged");
    assert_eq!(push["ok"], false, "the live push must have been rejected: {push}");
    assert!(
        sent[1].contains(&format!("Standing rule {id}")) && sent[1].contains("git pull --rebase"),
        "the failure's context lacks the rule: {}",
        sent[1]
    );
}
