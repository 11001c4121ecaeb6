//! Issue 30 item 3 under the real Claude Code CLI: fable's hooks registered in both the
//! user and the project settings of the session (two command strings, so Claude Code
//! starts every hook twice) still act once per call and once per stop.

mod support;

use serde_json::Value;
use support::e2e::*;
use support::harness::{available, Outcome, Session};

/// fable's commands in a settings file of the run.
fn fable_commands(path: &std::path::Path) -> Vec<String> {
    let doc: Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let mut out = Vec::new();
    for groups in doc["hooks"].as_object().into_iter().flat_map(|m| m.values()) {
        for g in groups.as_array().into_iter().flatten() {
            for h in g["hooks"].as_array().into_iter().flatten() {
                if let Some(c) = h["command"].as_str().filter(|c| c.contains("fable-evidence")) {
                    out.push(c.to_string());
                }
            }
        }
    }
    out
}

/// Both registrations are really there, under different strings (else the test proves nothing).
fn assert_registered_twice(o: &Outcome) {
    let user = fable_commands(&o.out.join("home/.claude/settings.json"));
    let project = fable_commands(&o.proj().join(".claude/settings.json"));
    assert!(
        !user.is_empty() && !project.is_empty(),
        "user {user:?} project {project:?}"
    );
    assert!(
        user.iter().all(|u| !project.contains(u)),
        "identical strings run once: {user:?} {project:?}"
    );
}

#[test]
fn one_evidence_record_per_bash_call() {
    let Some(claude) = available() else { return };
    let o = Session::new("once-record")
        .registered_twice()
        .bash("echo first")
        .bash("echo second")
        .bash("false # third")
        .text("Done here.")
        .run(&claude);
    assert_registered_twice(&o);
    let cmds: Vec<String> = o
        .evidence()
        .iter()
        .filter_map(|r| r["cmd"].as_str().map(str::to_string))
        .collect();
    assert_eq!(cmds, ["echo first", "echo second", "false # third"], "{}", o.debug());
    // Each call was claimed once per hook (evidence and fail-streak), by one of the copies:
    // the session's claim table in user state (`calls/<session>.tab`, its header's count of
    // claims at bytes 12..16).
    let calls = o.out.join("home/.local/state/fable/calls");
    let claims: Vec<u32> = std::fs::read_dir(&calls)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "tab"))
        .filter_map(|e| std::fs::read(e.path()).ok())
        .filter_map(|b| Some(u32::from_le_bytes(b.get(12..16)?.try_into().ok()?)))
        .collect();
    assert_eq!(claims, [3 * 2], "in {}", calls.display());
}

#[test]
fn the_reminder_comes_at_the_third_failure() {
    let Some(claude) = available() else { return };
    let mut s = Session::new("once-streak")
        .registered_twice()
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. make it work\n");
    for i in 1..=4 {
        s = s.bash(&format!("false # attempt {i}"));
    }
    let o = s.text("Giving up for now.").text("Stopped.").run(&claude);
    assert_registered_twice(&o);
    let sent = texts(&o);
    assert!(sent.len() >= 5, "{sent:#?}\n{}", o.debug());
    for (k, t) in sent.iter().enumerate().take(3).skip(1) {
        assert!(!t.contains("HARNESS"), "reminder after failure {k}: {t}");
    }
    assert!(
        sent[3].contains("HARNESS"),
        "reminder at the third failure: {}",
        sent[3]
    );
    assert_eq!(sent[3].matches("3 failed attempts").count(), 1, "{}", sent[3]);
    assert!(
        !sent[4].contains("HARNESS") && !sent[4].contains("stop retrying"),
        "{}",
        sent[4]
    );
}

#[test]
fn an_unresolved_stop_is_blocked_at_most_three_times() {
    let Some(claude) = available() else { return };
    let o = Session::new("once-stop")
        .registered_twice()
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. never finished\n")
        .text("All done.")
        .text("Still done.")
        .text("Really done.")
        .text("Done, again.")
        .text("Done for the fifth time.")
        .text("Sixth.")
        .run(&claude);
    assert_registered_twice(&o);
    let sent = texts(&o);
    // The first request is the prompt; each block re-invokes the model once.
    let blocks = sent.iter().skip(1).filter(|t| t.contains("open card(s)")).count();
    assert_eq!(blocks, 3, "{sent:#?}\n{}", o.debug());
    assert_eq!(sent.len(), 4, "three blocks, then the stop went through: {sent:#?}");
    // Claude Code hands a block's reason over twice (a reminder and the blocking error);
    // a second copy of the hook blocking too would double both.
    for t in &sent[1..] {
        let errors = t.matches("Stop hook blocking error from command").count();
        assert_eq!(errors, 1, "one copy of the hook blocks each stop: {t}");
    }
}
