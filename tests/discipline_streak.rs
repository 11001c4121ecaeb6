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

/// A passing build ends the streak: another command failing after it starts again. The
/// same check failing a sixth time since it last passed is still a grind of that check
/// (issue 30: the count per check, docs/fail-streak.md).
#[test]
fn fail_edit_passing_build_fail_does_not_reach_the_demand() {
    let p = armed();
    for _ in 0..5 {
        fail(&p);
    }
    assert_eq!(code(&look(&p, "sed -i 's/a/b/' src/parse.rs")), 0);
    assert_eq!(code(&ok(&p)), 0);
    let other = p.hook("fable-fail-streak", failure(SID, "make lint", 2));
    assert_eq!(code(&other), 0, "the build reset the streak");
    assert!(context(&other).is_none());
    assert_eq!(code(&fail(&p)), 2, "the check's sixth failure since it last passed");
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
    assert_eq!(code(&p.hook("fable-fail-streak", success(SID, "cargo test"))), 0);
    assert!(context(&fail(&p)).is_none(), "1 after reset");
    fail(&p);
    assert!(context(&fail(&p)).is_some(), "3 after reset");
    // Another command passing resets the streak, not the check's own count.
    let p = armed();
    fail(&p);
    fail(&p);
    ok(&p);
    assert!(context(&fail(&p)).is_some(), "the third failure of the check");
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
    p.hook("fable-fail-streak", success(SID, "cargo test"));
    assert_eq!(code(&fail(&p)), 0);
    // After the demand, a passing build ends the streak but another command's failure
    // starts again at 1.
    let p = armed();
    for _ in 0..6 {
        fail(&p);
    }
    ok(&p);
    assert_eq!(code(&p.hook("fable-fail-streak", failure(SID, "make", 2))), 0);
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

// ---- issue 30 item 4: restart fresh, as one flow ----

/// A transcript whose assistant messages carry these tool calls: `turns[i]` lists the
/// `tool_use` ids of message `msg_i`, one line per message as Claude Code writes it.
fn transcript(p: &Proj, turns: &[&[&str]]) -> String {
    let mut text = String::new();
    for (i, ids) in turns.iter().enumerate() {
        let content: Vec<serde_json::Value> = ids
            .iter()
            .map(|id| json!({"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "make"}}))
            .collect();
        text.push_str(
            &json!({"type": "assistant", "message": {"id": format!("msg_{i}"), "content": content}}).to_string(),
        );
        text.push('\n');
    }
    p.write("transcript.jsonl", &text).to_string_lossy().into_owned()
}

fn fail_call(p: &Proj, sid: &str, cmd: &str, id: &str, t: &str) -> std::process::Output {
    let mut v = failure(sid, cmd, 1);
    v["tool_use_id"] = json!(id);
    v["transcript_path"] = json!(t);
    p.hook("fable-fail-streak", v)
}

/// Six probes sent in one message fail together: one attempt, not six in a row.
#[test]
fn parallel_calls_of_one_turn_are_one_attempt() {
    let p = armed();
    let ids: Vec<String> = (0..6).map(|i| format!("toolu_p{i}")).collect();
    let first: Vec<&str> = ids.iter().map(String::as_str).collect();
    let t = transcript(&p, &[&first, &["toolu_q"], &["toolu_r"]]);
    let hs: Vec<_> = ids
        .iter()
        .map(|id| {
            let mut c = p.cmd("fable-fail-streak");
            let mut v = failure(SID, &format!("probe {id}"), 1);
            v["tool_use_id"] = json!(id);
            v["transcript_path"] = json!(t);
            v["cwd"] = json!(p.root.to_string_lossy());
            std::thread::spawn(move || c.write_stdin(v.to_string()).output().unwrap())
        })
        .collect();
    for h in hs {
        let o = h.join().unwrap();
        assert_eq!(code(&o), 0);
        assert!(context(&o).is_none(), "one turn is one attempt: {}", stdout(&o));
    }
    assert!(
        context(&fail_call(&p, SID, "make a", "toolu_q", &t)).is_none(),
        "2nd turn"
    );
    let third = fail_call(&p, SID, "make b", "toolu_r", &t);
    assert!(
        context(&third).is_some_and(|c| c.contains("HARNESS")),
        "3rd turn reminds"
    );
}

/// Honest session: three failing turns, one call each, still remind at 3.
#[test]
fn three_separate_failing_turns_still_remind_at_three() {
    let p = armed();
    let t = transcript(&p, &[&["toolu_a"], &["toolu_b"], &["toolu_c"]]);
    assert!(context(&fail_call(&p, SID, "make", "toolu_a", &t)).is_none());
    assert!(context(&fail_call(&p, SID, "make", "toolu_b", &t)).is_none());
    let o = fail_call(&p, SID, "make", "toolu_c", &t);
    assert!(context(&o).is_some_and(|c| c.contains("HARNESS")), "{}", stdout(&o));
}

/// Eleven failures of one check with a `touch` passing after every five: the check's own
/// count (failures since it last passed) reaches the demand at its sixth failure.
#[test]
fn a_grind_of_one_check_is_seen_whatever_passes_between() {
    let p = armed();
    let mut codes = Vec::new();
    for i in 1..=11 {
        codes.push(code(&fail(&p)));
        if i % 5 == 0 {
            assert_eq!(
                code(&p.hook("fable-fail-streak", success(SID, "touch src/parse.rs"))),
                0
            );
        }
    }
    assert_eq!(codes[..5], [0; 5]);
    assert_eq!(
        codes[5], 2,
        "the sixth failure of `cargo test` since it last passed: {codes:?}"
    );
}

/// Honest session: the check passing ends its count; a new failure starts again at 1.
#[test]
fn the_check_passing_resets_its_count() {
    let p = armed();
    for _ in 0..5 {
        fail(&p);
    }
    assert_eq!(code(&p.hook("fable-fail-streak", success(SID, "cargo test"))), 0);
    for _ in 0..5 {
        assert_eq!(code(&fail(&p)), 0);
    }
}

fn sub_fail(p: &Proj, agent: &str) -> std::process::Output {
    let mut v = failure(SID, "npm test", 1);
    v["agent_id"] = json!(agent);
    v["agent_type"] = json!("general-purpose");
    p.hook("fable-fail-streak", v)
}

/// A sub-agent's failures are its own streak: the parent, at two of its own, reminds at
/// its third, not with the demand.
#[test]
fn a_sub_agents_failures_do_not_raise_the_parents_count() {
    let p = armed();
    fail(&p);
    fail(&p);
    for i in 1..=5 {
        assert_eq!(code(&sub_fail(&p, "a1b2")), 0, "sub-agent failure {i}");
    }
    assert_eq!(
        code(&sub_fail(&p, "a1b2")),
        2,
        "the sub-agent's own demand at its sixth"
    );
    let third = fail(&p);
    assert_eq!(code(&third), 0, "{}", stderr(&third));
    assert!(context(&third).is_some_and(|c| c.contains("HARNESS")));
    assert_eq!(code(&sub_fail(&p, "c3d4")), 0, "another sub-agent starts at 1");
}

const CARD: &str = "- [ ] 1. fix the parser — acceptance: `cargo test parser`\n";
const TRIED: &str = "  -- tried: lexer rewrite (same error), pinned serde; unknown: the fixture encoding\n";

fn stop_as(p: &Proj, sid: &str) -> std::process::Output {
    p.hook(
        "fable-close-guard",
        json!({"session_id": sid, "hook_event_name": "Stop", "stop_hook_active": false,
               "last_assistant_message": "Wrote the tried note; restart me fresh."}),
    )
}

/// The whole flow: six failures → the demand → the agent writes the note and stops with
/// the card open → allowed at once (full mode), with a message telling the user to start
/// a fresh session.
#[test]
fn the_demanded_restart_is_a_legitimate_stop() {
    let p = armed();
    assert_eq!(stop_code(&stop_as(&p, SID)), 2, "an open card blocks before anything");
    for _ in 0..6 {
        fail(&p);
    }
    assert_eq!(
        stop_code(&stop_as(&p, SID)),
        2,
        "the demand alone, without a note, is no exit"
    );
    p.ledger(&format!("{CARD}{TRIED}"));
    let o = stop_as(&p, SID);
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    let m = system_message(&o).unwrap_or_default();
    assert!(m.contains("fresh session") && m.contains("tried"), "{m}");
    // The exit is spent: a session that goes on (or is resumed) meets the rule again.
    assert_eq!(stop_code(&stop_as(&p, SID)), 2, "the restart is let through once");
}

/// Honest session: a `tried:` note without a demand opens nothing — the open card still
/// holds the stop (else every note would be a free pass).
#[test]
fn a_tried_note_without_a_demand_does_not_skip_the_open_card_rule() {
    let p = armed();
    fail(&p);
    fail(&p);
    p.ledger(&format!("{CARD}{TRIED}"));
    let o = stop_as(&p, SID);
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(said(&o).contains("open card"), "{}", said(&o));
}

/// A note that was already on the card when the demand came is not the restart; nor is
/// a demand given to a sub-agent the parent's exit.
#[test]
fn an_old_note_or_a_sub_agents_demand_is_no_exit() {
    let p = Proj::new();
    p.ledger(&format!("{CARD}{TRIED}"));
    for _ in 0..6 {
        fail(&p);
    }
    assert_eq!(stop_code(&stop_as(&p, SID)), 2, "the note predates the demand");
    let q = armed();
    for _ in 0..6 {
        sub_fail(&q, "a1b2");
    }
    q.ledger(&format!("{CARD}{TRIED}"));
    assert_eq!(stop_code(&stop_as(&q, SID)), 2, "the demand was the sub-agent's");
}

/// The restart exit lifts only the open-cards rule: a closed card citing a command that
/// never ran still blocks.
#[test]
fn the_restart_exit_does_not_excuse_other_findings() {
    let p = armed();
    for _ in 0..6 {
        fail(&p);
    }
    p.ledger(&format!(
        "{CARD}{TRIED}- [x] 2. lexer -- evidence: `cargo test lexer` -> 4 passed\n"
    ));
    let o = stop_as(&p, SID);
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(!said(&o).contains("open card"), "{}", said(&o));
}

/// One hook registered in two scopes: every failure arrives twice and counts once.
#[test]
fn a_failure_delivered_twice_counts_once() {
    let p = armed();
    // A transcript that names none of the calls: each failure is its own attempt.
    let t = transcript(&p, &[]);
    for id in ["toolu_d1", "toolu_d2"] {
        for copy in 0..2 {
            let o = fail_call(&p, SID, "make", id, &t);
            assert!(context(&o).is_none(), "{id} copy {copy}: {}", stdout(&o));
        }
    }
    let o = fail_call(&p, SID, "make", "toolu_d3", &t);
    assert!(
        context(&o).is_some_and(|c| c.contains("HARNESS")),
        "the third failure reminds: {}",
        stdout(&o)
    );
}
