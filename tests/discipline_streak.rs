//! fable-fail-streak (PostToolUse + PostToolUseFailure, Bash), fed the real Claude Code
//! shapes: failures as PostToolUseFailure with `error: "Exit code N\n…"`, successes as
//! PostToolUse with `tool_response.stdout` and no exit code. Ports test_guards (Streak)
//! and test_discipline (fail-streak) from the ancestor.

mod common_discipline;
use common_discipline::*;
use serde_json::json;

const SID: &str = "sess-1";

fn fail(p: &Proj) -> std::process::Output {
    p.hook("fable-fail-streak", failure(SID, "cargo test", 101))
}

/// A passing command that changes something (a build): it resets the streak.
fn ok(p: &Proj) -> std::process::Output {
    p.hook("fable-fail-streak", success(SID, "cargo build"))
}

/// A passing look: it neither counts nor resets.
fn look(p: &Proj, cmd: &str) -> std::process::Output {
    p.hook("fable-fail-streak", success(SID, cmd))
}

/// Issue 11 item 7: the real grind — a failing check with read-only looks between —
/// reaches the demand at the sixth failure; a failed look does not count either.
#[test]
fn looks_between_failures_neither_count_nor_reset() {
    let p = armed();
    for (i, cmd) in [
        "cat build.log",
        "ls -la",
        "git status",
        "grep -rn parse src",
        "sed -n 1,20p src/parse.rs",
    ]
    .iter()
    .enumerate()
    {
        assert_eq!(code(&fail(&p)), 0, "failure {}", i + 1);
        assert_eq!(code(&look(&p, cmd)), 0);
        let failed_look = p.hook("fable-fail-streak", failure(SID, "cat missing.txt", 1));
        assert_eq!(code(&failed_look), 0);
    }
    assert_eq!(code(&fail(&p)), 2, "the sixth failure of the check carries the demand");
}

#[test]
fn fail_edit_passing_build_fail_does_not_reach_the_demand() {
    let p = armed();
    for _ in 0..5 {
        fail(&p);
    }
    assert_eq!(code(&look(&p, "sed -i 's/a/b/' src/parse.rs")), 0);
    assert_eq!(code(&ok(&p)), 0);
    assert_eq!(code(&fail(&p)), 0, "the build reset the streak");
}

fn armed() -> Proj {
    let p = Proj::new();
    p.ledger("- [ ] 1. fix the parser — acceptance: `cargo test parser`\n");
    p
}

// ---- ancestor test_guards: Streak (6) ----

#[test]
fn advisory_stage_always_exits_zero() {
    let p = armed();
    for _ in 0..5 {
        assert_eq!(code(&fail(&p)), 0);
    }
}

#[test]
fn quiet_before_three() {
    let p = armed();
    for _ in 0..2 {
        let o = fail(&p);
        assert!(o.stdout.is_empty() && o.stderr.is_empty());
    }
}

#[test]
fn reminds_at_three_with_the_ladder() {
    let p = armed();
    fail(&p);
    fail(&p);
    let o = fail(&p);
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUseFailure");
    let c = context(&o).unwrap();
    assert!(
        c.contains("HARNESS") && c.contains("DEPLOYMENT") && c.contains("PRODUCT"),
        "{c}"
    );
    let (h, d, pr) = (
        c.find("HARNESS").unwrap(),
        c.find("DEPLOYMENT").unwrap(),
        c.find("PRODUCT").unwrap(),
    );
    assert!(h < d && d < pr);
    // 4 and 5 are quiet again.
    assert!(fail(&p).stdout.is_empty());
    assert!(fail(&p).stdout.is_empty());
}

#[test]
fn success_resets() {
    let p = armed();
    fail(&p);
    fail(&p);
    assert_eq!(code(&ok(&p)), 0);
    assert!(context(&fail(&p)).is_none(), "1 after reset");
    fail(&p);
    assert!(context(&fail(&p)).is_some(), "3 after reset");
}

#[test]
fn inert_without_fable_dir() {
    let p = Proj::bare();
    for _ in 0..7 {
        let o = fail(&p);
        assert_eq!(code(&o), 0);
        assert!(o.stdout.is_empty());
    }
    assert!(!p.root.join(".fable").exists());
}

#[test]
fn paused_turns_it_off() {
    let p = armed();
    p.ledger("PAUSED: user moved me to the docs\n- [ ] 1. open\n");
    for _ in 0..7 {
        let o = fail(&p);
        assert_eq!(code(&o), 0);
        assert!(o.stdout.is_empty());
    }
}

// ---- ancestor test_discipline: structural fail-streak (7) ----

#[test]
fn hard_at_six_and_still_at_seven_demanding_tried() {
    let p = armed();
    for i in 1..=5 {
        assert_eq!(code(&fail(&p)), 0, "failure {i}");
    }
    let o = fail(&p);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(
        e.contains("-- tried:") && e.contains("stop retrying") && e.contains("fresh context"),
        "{e}"
    );
    assert!(e.contains("SPEC") && e.contains("LEDGER"), "{e}");
    assert_eq!(code(&fail(&p)), 2);
    assert_eq!(code(&fail(&p)), 2);
}

#[test]
fn a_new_tried_note_resets() {
    let p = armed();
    for _ in 0..6 {
        fail(&p);
    }
    p.ledger("- [ ] 1. fix the parser — acceptance: `cargo test parser`\n  -- tried: lexer rewrite (same error), pinned serde; unknown: the fixture encoding\n");
    assert_eq!(code(&fail(&p)), 0, "the distillation is the exit");
    assert_eq!(code(&fail(&p)), 0);
}

#[test]
fn success_resets_the_hard_stage() {
    let p = armed();
    for _ in 0..6 {
        fail(&p);
    }
    ok(&p);
    assert_eq!(code(&fail(&p)), 0);
}

#[test]
fn light_mode_keeps_the_streak() {
    let p = armed();
    p.ledger("MODE: light\n");
    for _ in 0..5 {
        fail(&p);
    }
    assert_eq!(code(&fail(&p)), 2);
}

// ---- stricter resets (weakness §6.4) ----

#[test]
fn old_tried_notes_titles_and_hollow_notes_do_not_reset() {
    let p = Proj::new();
    p.ledger("- [ ] 1. a\n  -- tried: an older note about the cache layer\n");
    for _ in 0..6 {
        fail(&p);
    }
    assert_eq!(code(&fail(&p)), 2, "an existing note is not new");
    p.ledger("- [ ] 1. a\n  -- tried: an older note about the cache layer\n- [ ] 2. tried: in a title\n");
    assert_eq!(code(&fail(&p)), 2, "a marker in a title is not a note");
    p.ledger("- [ ] 1. a\n  -- tried: an older note about the cache layer\n  -- tried: x\n");
    assert_eq!(code(&fail(&p)), 2, "a hollow note is not a distillation");
    p.ledger("tried: loose prose line outside any card\n- [ ] 1. a\n  -- tried: an older note about the cache layer\n");
    assert_eq!(code(&fail(&p)), 2, "a line outside a card is not a card note");
}

#[test]
fn missing_ledger_does_not_disarm() {
    let p = Proj::new();
    for _ in 0..5 {
        fail(&p);
    }
    assert_eq!(code(&fail(&p)), 2);
}

#[test]
fn sessions_are_separate_and_ids_sanitised() {
    let p = armed();
    for _ in 0..5 {
        fail(&p);
    }
    let o = p.hook("fable-fail-streak", failure("../../escape", "x", 1));
    assert_eq!(code(&o), 0, "another session starts at 1");
    assert_eq!(code(&fail(&p)), 2);
    let state = p.fable().join("state");
    let names: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(
        names.iter().all(|n| !n.contains('/') && !n.starts_with('.')),
        "{names:?}"
    );
    assert!(!p.root.parent().unwrap().join("escape.streak.json").exists());
    use std::os::unix::fs::PermissionsExt;
    for n in &names {
        let m = std::fs::metadata(state.join(n)).unwrap().permissions().mode();
        assert_eq!(m & 0o777, 0o600, "{n}");
    }
}

#[test]
fn no_session_id_is_inert() {
    let p = armed();
    for _ in 0..7 {
        let o = p.hook("fable-fail-streak", failure("", "x", 1));
        assert_eq!(code(&o), 0);
    }
}

#[test]
fn interrupts_and_other_tools_are_neutral() {
    let p = armed();
    for _ in 0..5 {
        fail(&p);
    }
    let interrupt = json!({"session_id": SID, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
        "tool_input": {"command": "sleep 99"}, "error": "Interrupted by user", "is_interrupt": true});
    assert_eq!(code(&p.hook("fable-fail-streak", interrupt)), 0);
    let other = json!({"session_id": SID, "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": "x"}, "tool_response": {}});
    assert_eq!(code(&p.hook("fable-fail-streak", other)), 0);
    assert_eq!(code(&fail(&p)), 2, "neither counted nor reset");
}

#[test]
fn timeout_failure_shape_counts_and_grep_no_match_resets() {
    let p = armed();
    let timeout = json!({"session_id": SID, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
        "tool_input": {"command": "sleep 5"}, "error": "Exit code 143\nCommand timed out after 1s", "is_interrupt": false});
    for _ in 0..3 {
        p.hook("fable-fail-streak", timeout.clone());
    }
    let grep = json!({"session_id": SID, "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "grep x f"}, "tool_response": {"stdout": "", "stderr": "", "interrupted": false,
        "isImage": false, "noOutputExpected": false, "returnCodeInterpretation": "No matches found"}});
    p.hook("fable-fail-streak", grep);
    assert!(context(&fail(&p)).is_none(), "the host's success resets");
}

#[test]
fn parallel_failures_are_all_counted() {
    let p = armed();
    let hs: Vec<_> = (0..6)
        .map(|_| {
            let mut c = p.cmd("fable-fail-streak");
            let payload = {
                let mut v = failure(SID, "make", 2);
                v["cwd"] = json!(p.root.to_string_lossy());
                v.to_string()
            };
            std::thread::spawn(move || c.write_stdin(payload).output().unwrap())
        })
        .collect();
    let codes: Vec<i32> = hs.into_iter().map(|h| code(&h.join().unwrap())).collect();
    assert_eq!(codes.iter().filter(|c| **c == 2).count(), 1, "{codes:?}");
    assert_eq!(code(&fail(&p)), 2, "7th");
}

#[test]
fn malformed_input_fails_open() {
    let p = armed();
    let o = p.hook_raw("fable-fail-streak", b"{oops", &[]);
    assert_eq!(code(&o), 0);
    assert!(stderr(&o).contains("(ignored)"));
}
