//! Learning from real command output: the real `git` (a bare remote and two clones, the
//! second pushing after the first → a real "fetch first" rejection) and the real
//! `python3` (a real ModuleNotFoundError), several sessions each, through the production
//! pipeline. Plus a poisoned history whose only "fix" is a force push.

use fable::evidence::Record;
use fable::learn::{run_pipeline, LearnConfig, Learned};
use std::path::Path;
use std::process::Command;

/// Runs a command line for real and turns it into an evidence record.
fn run(session: &str, cwd: &Path, home: &Path, cmd: &str, seq: &mut u32) -> Record {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{cmd} 2>&1"))
        .current_dir(cwd)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.org")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.org")
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("sh runs");
    *seq += 1;
    let code = out.status.code().unwrap_or(-1);
    Record {
        v: 1,
        ts: format!("2026-12-02T12:{:02}:{:02}.000Z", *seq / 60 % 60, *seq % 60),
        session: session.to_string(),
        cwd: cwd.display().to_string(),
        cmd: cmd.to_string(),
        exit: Some(code as i64),
        ok: code == 0,
        tail: String::from_utf8_lossy(&out.stdout).to_string(),
        head: None,
        event: Some(if code == 0 { "PostToolUse" } else { "PostToolUseFailure" }.to_string()),
        tool_use_id: None,
        agent: None,
        ms: None,
        trust: None,
        tree: None,
        file: None,
        summary: None,
        background: None,
        imported: None,
        host: None,
        chain: None,
        mac: None,
    }
}

fn must(r: &Record) {
    assert!(r.ok, "setup command failed: {} → {}", r.cmd, r.tail);
}

/// Builds `sessions` sessions of: A pushes, B's push is rejected, B runs `fix`, B pushes.
/// Also one unrelated successful `git status` per session. Returns the history and the
/// index of one `git status` record.
fn git_history(sessions: usize, fix: &str) -> (tempfile::TempDir, Vec<Record>, usize) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut seq = 0;
    let setup = [
        "git init -q --bare remote.git",
        "git clone -q remote.git a",
        "cd a && git checkout -q -b main && echo 0 > f0 && git add f0 && git commit -q -m init && git push -q -u origin main",
        "git clone -q -b main remote.git b",
    ];
    for c in setup {
        must(&run("setup", root, &home, c, &mut seq));
    }
    let (a, b) = (root.join("a"), root.join("b"));
    let mut h = Vec::new();
    let mut status_idx = 0;
    for i in 0..sessions {
        let s = format!("sess-{i}");
        must(&run(&s, &a, &home, &format!("git pull -q --rebase origin main && echo {i} > a{i} && git add a{i} && git commit -q -m a{i} && git push -q origin main"), &mut seq));
        let commit = run(
            &s,
            &b,
            &home,
            &format!("echo {i} > b{i} && git add b{i} && git commit -q -m b{i}"),
            &mut seq,
        );
        must(&commit);
        h.push(commit);
        let st = run(&s, &b, &home, "git status", &mut seq);
        must(&st);
        status_idx = h.len();
        h.push(st);
        let rejected = run(&s, &b, &home, "git push origin main", &mut seq);
        assert!(!rejected.ok, "second clone's push must be rejected: {}", rejected.tail);
        assert!(rejected.tail.contains("rejected"), "{}", rejected.tail);
        h.push(rejected);
        let f = run(&s, &b, &home, fix, &mut seq);
        must(&f);
        h.push(f);
        if !fix.contains("push") {
            let ok = run(&s, &b, &home, "git push origin main", &mut seq);
            must(&ok);
            h.push(ok);
        }
    }
    (d, h, status_idx)
}

fn promoted(out: &[Learned]) -> Vec<&Learned> {
    out.iter().filter(|l| l.rule.status == "promoted").collect()
}

#[test]
fn real_git_rejection_fixed_by_pull_rebase_is_promoted() {
    let (_d, h, status_idx) = git_history(5, "git pull --rebase origin main");
    let out = run_pipeline(&h, &LearnConfig::default());
    let p = promoted(&out.candidates);
    assert_eq!(
        p.len(),
        1,
        "{:#?}",
        out.candidates.iter().map(|l| &l.rule).collect::<Vec<_>>()
    );
    let r = &p[0].rule;
    assert_eq!(r.domain, "git");
    assert!(r.directive.contains("git pull --rebase"), "{}", r.directive);
    assert!(
        r.trigger.contains("git push") && r.trigger.contains("non-fast-forward"),
        "{}",
        r.trigger
    );
    assert_eq!((r.verdict.as_str(), r.reason.as_str()), ("pass", "pass"));
    assert_eq!(r.prevented, 5);
    assert_eq!(r.broken, 0);
    let ev = r.directive_evidence.unwrap();
    assert_eq!((ev.taken, ev.worked, ev.failed), (5, 5, 0));
    assert!(r.wilson.unwrap().0 >= 0.5);
    assert_eq!(r.support.len(), 5);
    // The unrelated successful `git status` is neither broken nor a near-miss.
    let l = p[0];
    assert!(!l.broken_refs.iter().any(|s| s.index == status_idx));
    assert!(!l.near_miss_refs.iter().any(|s| s.index == status_idx));
    assert!(l.near_miss_refs.is_empty() && l.broken_refs.is_empty());
}

#[test]
fn poisoned_force_push_history_promotes_nothing() {
    let (_d, h, _) = git_history(5, "git push --force origin main");
    let out = run_pipeline(&h, &LearnConfig::default());
    assert!(promoted(&out.candidates).is_empty());
    let nff = out
        .candidates
        .iter()
        .find(|l| l.rule.trigger.contains("non-fast-forward"))
        .unwrap();
    assert_eq!(nff.rule.reason, "blocked_by_safety");
    assert_eq!(nff.rule.status, "blocked");
    assert_eq!(nff.rule.safety.as_deref(), Some("force_push"));
}

#[test]
fn real_python_missing_module_fixed_by_install_step() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let home = root.join("home");
    std::fs::create_dir_all(root.join("vendor")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(root.join("vendor/fable_nosuchmod.py"), "VALUE = 1\n").unwrap();
    let mut seq = 0;
    let mut h = Vec::new();
    for i in 0..5 {
        let s = format!("py-{i}");
        let w = root.join(format!("w{i}"));
        std::fs::create_dir_all(&w).unwrap();
        h.push(run(&s, &w, &home, "python3 -c 'print(1)'", &mut seq));
        let fail = run(&s, &w, &home, "python3 -c 'import fable_nosuchmod'", &mut seq);
        assert!(!fail.ok && fail.tail.contains("ModuleNotFoundError"), "{}", fail.tail);
        h.push(fail);
        // The pip-like step: install the module where the interpreter finds it.
        h.push(run(
            &s,
            &w,
            &home,
            "install -m 644 ../vendor/fable_nosuchmod.py .",
            &mut seq,
        ));
        let ok = run(&s, &w, &home, "python3 -c 'import fable_nosuchmod'", &mut seq);
        assert!(ok.ok, "{}", ok.tail);
        h.push(ok);
    }
    let out = run_pipeline(&h, &LearnConfig::default());
    let p = promoted(&out.candidates);
    assert_eq!(
        p.len(),
        1,
        "{:#?}",
        out.candidates.iter().map(|l| &l.rule).collect::<Vec<_>>()
    );
    let r = &p[0].rule;
    assert_eq!(r.domain, "python");
    assert!(r.trigger.contains("ModuleNotFoundError"), "{}", r.trigger);
    assert!(r.directive.contains("install -m 644"), "{}", r.directive);
    assert_eq!(r.prevented, 5);
    // The plain successful `python3 -c 'print(1)'` runs are not broken by it.
    assert_eq!(r.broken, 0);
}

#[test]
fn git_and_python_histories_together_stay_separate() {
    let (_d, mut h, _) = git_history(4, "git pull --rebase origin main");
    let (_d2, h2, _) = git_history(1, "git push --force origin main");
    h.extend(h2);
    let out = run_pipeline(&h, &LearnConfig::default());
    let p = promoted(&out.candidates);
    assert_eq!(p.len(), 1);
    assert!(p[0].rule.directive.contains("pull --rebase"));
    // The force-push session is not support of the promoted rule.
    assert!(p[0].support_refs.iter().all(|s| s.session.starts_with("sess-")));
    assert_eq!(p[0].support_refs.len(), 4);
}
