//! The Stop gate's faults found under the real CLI (issue 14) and its reach (issue 11):
//! fable's own block count instead of `stop_hook_active`, a block that holds and then
//! lets go visibly, round-scoped cards, a mode written mid-session, claims in the final
//! message, citations of commands that carried a secret. Each case drives the real hooks.

mod common_discipline;
use common_discipline::*;
use serde_json::json;

fn stop_in(p: &Proj, sid: &str, extra: serde_json::Value, env: &[(&str, &str)]) -> std::process::Output {
    p.stop_in(sid, extra, env)
}

fn session_start(p: &Proj, sid: &str) {
    p.session_start(sid)
}

#[test]
fn another_hooks_stop_hook_active_does_not_switch_fable_off() {
    let p = Proj::new();
    p.ledger("- [x] 1. t -- evidence: `pytest -q` -> 12 passed\n");
    let o = stop_in(&p, "s1", json!({"stop_hook_active": true}), &[]);
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
}

#[test]
fn a_block_holds_up_to_the_limit_then_lets_go_and_says_what_stayed() {
    let p = Proj::new();
    p.ledger("- [x] 1. t -- evidence: `pytest -q` -> 12 passed\n");
    let env = [("FABLE_STOP_BLOCKS", "3")];
    for i in 1..=3 {
        let o = stop_in(&p, "s1", json!({"stop_hook_active": i > 1}), &env);
        assert_eq!(stop_code(&o), 2, "block {i}: {}", said(&o));
    }
    let o = stop_in(&p, "s1", json!({"stop_hook_active": true}), &env);
    assert_eq!(stop_code(&o), 0);
    let msg = system_message(&o).expect("the user is told");
    assert!(
        msg.contains("after 3 blocks") && msg.contains("`pytest -q` has no run"),
        "{msg}"
    );
    // The count starts again: the next stop of the same session is blocked again.
    assert_eq!(stop_code(&stop_in(&p, "s1", json!({}), &env)), 2);
    // And `fable status` shows the stop that was let through.
    let st = stdout(&p.cli(&["status"]));
    assert!(st.contains("after 3 blocks"), "{st}");
    let lint = stdout(&p.cli(&["lint"]));
    assert!(
        lint.contains("note: stop at") && lint.contains("after 3 blocks"),
        "{lint}"
    );
}

#[test]
fn a_fresh_clone_with_historical_cards_may_stop_but_a_card_closed_this_round_is_checked() {
    let p = Proj::new();
    // Closed on someone else's machine: its command never ran here.
    p.ledger("- [x] 1. old -- evidence: `make release` -> ok\n- [ ] 2. new\n");
    session_start(&p, "r1");
    p.ledger("- [x] 1. old -- evidence: `make release` -> ok\n- [x] 2. new -- evidence: `pytest -q` -> 3 passed\n");
    let o = stop_in(&p, "r1", json!({}), &[]);
    assert_eq!(stop_code(&o), 2);
    let e = said(&o);
    assert!(
        e.contains("`pytest -q` has no run") && !e.contains("make release"),
        "{e}"
    );
    p.log(&[("pytest -q", 0, true)]);
    let o = stop_in(&p, "r1", json!({}), &[]);
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert!(system_message(&o)
        .unwrap_or_default()
        .contains("1 cited command(s) corroborated"));
    // Without a round snapshot (hooks installed mid-session) every closed card counts.
    assert_eq!(stop_code(&stop_in(&p, "other", json!({}), &[])), 2);
}

#[test]
fn a_mode_written_this_session_is_honoured_and_said() {
    let p = Proj::new();
    p.ledger("- [ ] 1. a\n- [ ] 2. b\n");
    session_start(&p, "m1");
    p.ledger("MODE: light\n- [ ] 1. a\n- [ ] 2. b\n");
    let o = stop_in(&p, "m1", json!({}), &[]);
    assert_eq!(stop_code(&o), 0);
    let msg = system_message(&o).unwrap_or_default();
    assert!(
        msg.contains("2 open card(s) under MODE: light") && msg.contains("this session"),
        "{msg}"
    );
    p.ledger("PAUSED: the user asked for a hotfix\n- [ ] 1. a\n- [ ] 2. b\n");
    let o = stop_in(&p, "m1", json!({}), &[]);
    assert_eq!(stop_code(&o), 0);
    assert!(
        system_message(&o).unwrap_or_default().contains("under PAUSED"),
        "{}",
        said(&o)
    );
    let st = stdout(&p.cli(&["status"]));
    assert!(
        st.contains("under MODE: light") && st.contains("under PAUSED"),
        "status records both: {st}"
    );
    // A project that was light when the round began says nothing.
    let q = Proj::new();
    q.ledger("MODE: light\n- [ ] 1. a\n");
    session_start(&q, "m2");
    assert_eq!(system_message(&stop_in(&q, "m2", json!({}), &[])), None);
}

#[test]
fn a_final_message_claiming_success_needs_a_passing_run_in_this_session() {
    let p = Proj::new();
    p.ledger("# no cards\n");
    let claim = json!({"last_assistant_message": "Fixed the parser. All tests pass now."});
    let o = stop_in(&p, "s", claim.clone(), &[]);
    assert_eq!(stop_code(&o), 2);
    assert!(said(&o).contains("\"All tests pass now\""), "{}", said(&o));
    // A failing run does not back it.
    p.log(&[("cargo test", 101, false)]);
    let o = stop_in(&p, "s", claim.clone(), &[]);
    assert_eq!(stop_code(&o), 2);
    assert!(
        said(&o).contains("The newest such run failed: `cargo test`"),
        "{}",
        said(&o)
    );
    // A pass in another session does not either; one in this session does.
    let other = p.hook("fable-evidence", success("elsewhere", "cargo test"));
    assert_eq!(code(&other), 0);
    assert_eq!(stop_code(&stop_in(&p, "s", claim.clone(), &[])), 2);
    p.log(&[("cargo test", 0, true)]);
    assert_eq!(stop_code(&stop_in(&p, "s", claim, &[])), 0);
    // A plan is not a claim.
    let plan = json!({"last_assistant_message": "Next I will run the suite to make sure all tests pass."});
    let q = Proj::new();
    q.ledger("# no cards\n");
    assert_eq!(stop_code(&stop_in(&q, "s", plan, &[])), 0);
}

#[test]
fn a_citation_carrying_a_secret_matches_its_redacted_record() {
    let p = Proj::new();
    let cmd = "DB_PASSWORD=test123 make migrate";
    p.log(&[(cmd, 0, true)]);
    let logged = p.records().pop().unwrap()["cmd"].as_str().unwrap().to_string();
    assert!(!logged.contains("test123"), "{logged}");
    p.ledger(&format!(
        "- [x] 1. migrate -- evidence: `{cmd}` -> applied 3 migrations\n"
    ));
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
}

/// A real cargo-test tail, as `cargo test 2>&1 | tail -5` leaves it.
const CARGO_FAIL_TAIL: &str = "failures:\n    tests::parses_empty\n\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
const CARGO_PASS_TAIL: &str = "running 3 tests\ntest a ... ok\ntest b ... ok\ntest c ... ok\n\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";

fn logged_run(p: &Proj, cmd: &str, stdout: &str) {
    let mut v = success("s", cmd);
    v["tool_response"]["stdout"] = json!(stdout);
    let o = p.hook("fable-evidence", v);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn a_piped_run_whose_output_reports_failures_is_no_pass() {
    let p = Proj::new();
    let cmd = "cargo test 2>&1 | tail -5";
    logged_run(&p, cmd, CARGO_FAIL_TAIL);
    let rec = p.records().pop().unwrap();
    assert_eq!(
        (rec["exit"].as_i64(), rec["summary"]["failed"].as_u64()),
        (Some(0), Some(1)),
        "{rec}"
    );
    p.ledger(&format!("- [x] 1. parser -- evidence: `{cmd}` -> all green\n"));
    let o = p.stop();
    assert_eq!(stop_code(&o), 2);
    assert!(said(&o).contains("its output reports failures"), "{}", said(&o));
    logged_run(&p, cmd, CARGO_PASS_TAIL);
    assert_eq!(stop_code(&p.stop()), 0, "{}", said(&p.stop()));
}

#[test]
fn an_inflated_count_blocks_and_the_true_count_is_allowed() {
    let p = Proj::new();
    logged_run(&p, "cargo test", CARGO_PASS_TAIL);
    p.ledger("- [x] 1. parser -- evidence: `cargo test` -> 12 passed, 0 failed\n");
    let o = p.stop();
    assert_eq!(stop_code(&o), 2);
    assert!(
        said(&o).contains("the note says 12 passed, but the newest run of `cargo test` shows 3 passed"),
        "{}",
        said(&o)
    );
    p.ledger("- [x] 1. parser -- evidence: `cargo test` -> 3 passed, 0 failed\n");
    assert_eq!(stop_code(&p.stop()), 0, "{}", said(&p.stop()));
    // A format fable does not know changes nothing.
    let q = Proj::new();
    logged_run(&q, "./run-checks", "all 12 checks fine\n");
    q.ledger("- [x] 1. checks -- evidence: `./run-checks` -> 12 passed\n");
    assert_eq!(stop_code(&q.stop()), 0, "{}", said(&q.stop()));
}

fn edited(p: &Proj, sid: &str, file: &str) {
    let v = json!({"session_id": sid, "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": file, "content": "fn main() {}\n"},
        "tool_response": {"type": "update", "filePath": file}, "tool_use_id": "toolu_w"});
    let o = p.hook("fable-evidence", v);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// Issue 11 item 1: a pass logged before the agent's last edit of a project file no
/// longer corroborates; running it again does. Editing the ledger is not a code change.
#[test]
fn a_pass_older_than_the_last_edit_is_stale() {
    let p = Proj::new();
    p.ledger("- [x] 1. parser -- evidence: `pytest -q` -> 3 passed\n");
    p.log(&[("pytest -q", 0, true)]);
    std::thread::sleep(std::time::Duration::from_millis(5));
    edited(&p, "s", &p.root.join(".fable/LEDGER.md").to_string_lossy());
    let o = stop_in(&p, "s", json!({}), &[]);
    assert_eq!(stop_code(&o), 0, "a ledger edit is not a code change: {}", said(&o));
    edited(&p, "s", &p.root.join("src/parse.rs").to_string_lossy());
    let rec = p.records().pop().unwrap();
    assert_eq!(
        (rec["cmd"].as_str(), rec["file"].is_string()),
        (Some(""), true),
        "{rec}"
    );
    let o = stop_in(&p, "s", json!({}), &[]);
    assert_eq!(stop_code(&o), 2);
    let e = said(&o);
    assert!(
        e.contains("`pytest -q` passed at") && e.contains("before your edit of src/parse.rs"),
        "{e}"
    );
    // Another session's edit, or freshness switched off, does not count.
    assert_eq!(stop_code(&stop_in(&p, "other", json!({}), &[])), 0);
    assert_eq!(
        stop_code(&stop_in(&p, "s", json!({}), &[("FABLE_FRESHNESS", "off")])),
        0
    );
    std::thread::sleep(std::time::Duration::from_millis(5));
    p.log(&[("pytest -q", 0, true)]);
    assert_eq!(
        stop_code(&stop_in(&p, "s", json!({}), &[])),
        0,
        "run again after the edit"
    );
}

/// Issue 11 item 3: evidence written without backticks is still checked.
#[test]
fn a_runner_named_without_backticks_is_checked() {
    let p = Proj::new();
    p.ledger("- [x] 1. parser -- evidence: cargo test -> 12 passed\n");
    let o = p.stop();
    assert_eq!(stop_code(&o), 2);
    assert!(
        said(&o).contains("the note names `cargo test`, but no logged run matches it — cite the command you ran"),
        "{}",
        said(&o)
    );
    p.log(&[("cargo test", 1, false)]);
    assert!(
        said(&p.stop()).contains("`cargo test` failed on its latest run"),
        "{}",
        said(&p.stop())
    );
    p.log(&[("cargo test", 0, true)]);
    assert_eq!(stop_code(&p.stop()), 0, "{}", said(&p.stop()));
    // Prose that only sounds like a command stays prose.
    let q = Proj::new();
    q.ledger("- [x] 1. ui -- evidence: make sure-footed: screenshot shows both themes\n");
    assert_eq!(stop_code(&q.stop()), 0, "{}", said(&q.stop()));
}
