//! The round the agent cannot rewrite: at Stop the ledger is judged against the round's
//! baseline, taken at SessionStart and kept outside the repository. Every way of lowering
//! the bar found under the real CLI — delete the ledger, rewrite it without its open
//! cards, fence them, misspell their boxes, `rm -rf .fable`, pad it past its cap, pause in
//! the same edit that closes a card on a command that never ran — blocks with a message
//! that names what happened; every legitimate exit still goes through at once.

mod common_discipline;
use common_discipline::*;
use serde_json::json;

const START: &str = "# Ledger\n\n- [ ] 1. parser\n- [ ] 2. docs\n";

fn started() -> Proj {
    let p = Proj::new();
    p.ledger(START);
    p.session_start("r1");
    p
}

fn stop(p: &Proj) -> std::process::Output {
    p.stop_in("r1", json!({}), &[("FABLE_STOP_BLOCKS", "50")])
}

#[test]
fn a_deleted_ledger_blocks_naming_its_cards() {
    let p = started();
    std::fs::remove_file(p.root.join(".fable/LEDGER.md")).unwrap();
    let o = stop(&p);
    assert_eq!(stop_code(&o), 2);
    let e = said(&o);
    assert!(
        e.contains("was deleted during this session") && e.contains("1. parser") && e.contains("2. docs"),
        "{e}"
    );
}

#[test]
fn a_deleted_fable_folder_blocks_and_an_unbacked_claim_is_still_checked() {
    let p = started();
    std::fs::remove_dir_all(p.root.join(".fable")).unwrap();
    let o = p.stop_in("r1", json!({"last_assistant_message": "All tests pass."}), &[]);
    assert_eq!(stop_code(&o), 2);
    let e = said(&o);
    assert!(e.contains(".fable/ was deleted during this session"), "{e}");
    assert!(e.contains("\"All tests pass\""), "the claim check still runs: {e}");
}

#[test]
fn a_ledger_padded_past_its_cap_blocks() {
    let p = started();
    let mut text = String::from(START);
    text.push_str(&"x".repeat(1 << 21));
    std::fs::write(p.root.join(".fable/LEDGER.md"), text).unwrap();
    let o = stop(&p);
    assert_eq!(stop_code(&o), 2);
    assert!(said(&o).contains("can no longer be read"), "{}", said(&o));
}

#[test]
fn open_cards_removed_fenced_or_misspelled_block() {
    let p = started();
    for rewrite in [
        "# Ledger\n",
        "# Ledger\n\n- [ ] 1. parser\n",
        "# Ledger\n```\n- [ ] 1. parser\n- [ ] 2. docs\n```\n",
        "# Ledger\n* [x] 1. parser\n- [✓] 2. docs\n",
    ] {
        p.ledger(rewrite);
        let o = stop(&p);
        assert_eq!(stop_code(&o), 2, "{rewrite:?}");
        assert!(
            said(&o).contains("gone from .fable/LEDGER.md"),
            "{rewrite:?}: {}",
            said(&o)
        );
    }
}

#[test]
fn pausing_in_the_edit_that_closes_a_card_on_a_never_run_command_blocks() {
    let p = started();
    p.ledger(
        "PAUSED: the user asked for a hotfix\n- [x] 1. parser -- evidence: `cargo test` -> 12 passed\n- [ ] 2. docs\n",
    );
    let o = stop(&p);
    assert_eq!(stop_code(&o), 2);
    assert!(said(&o).contains("`cargo test` has no run"), "{}", said(&o));
}

#[test]
fn legitimate_exits_go_through_at_once() {
    // Close with a real run, defer with a reason.
    let p = started();
    p.ran(
        "cargo test",
        "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s\n",
    );
    p.ledger(
        "- [x] 1. parser -- evidence: `cargo test` -> 12 passed\n- [~] 2. docs -- deferred: waits for the API freeze\n",
    );
    let o = p.stop_in("r1", json!({}), &[]);
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    // PAUSED for real other work, every card still there.
    let q = started();
    q.ledger("PAUSED: the user moved me to a production hotfix\n- [ ] 1. parser\n- [ ] 2. docs\n");
    let o = q.stop_in("r1", json!({}), &[]);
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert!(system_message(&o).unwrap_or_default().contains("under PAUSED"));
    // A card renamed but numbered the same is the same card.
    let r = started();
    r.ledger("- [~] 1. the parser -- deferred: needs the new grammar first\n- [~] 2. docs and README -- deferred: after the parser\n");
    assert_eq!(stop_code(&r.stop_in("r1", json!({}), &[])), 0);
}

#[test]
fn replay_switched_off_and_a_mass_deferral_are_told() {
    let p = Proj::new();
    p.ledger("REPLAY: on\n- [ ] 1. a\n- [ ] 2. b\n- [ ] 3. c\n");
    p.session_start("r2");
    p.ledger("- [~] 1. a -- deferred: later today\n- [~] 2. b -- deferred: later today\n- [~] 3. c -- deferred: later today\n");
    let o = p.stop_in("r2", json!({}), &[]);
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    let m = system_message(&o).unwrap_or_default();
    assert!(
        m.contains("REPLAY: on` was switched off") && m.contains("3 card(s) were deferred"),
        "{m}"
    );
}

#[test]
fn without_a_baseline_a_missing_ledger_is_no_opt_in() {
    // Hooks installed mid-session in a project that never had a ledger: nothing to hold.
    let p = Proj::new();
    std::fs::remove_file(p.root.join(".fable/LEDGER.md")).ok();
    assert_eq!(stop_code(&p.stop_in("none", json!({}), &[])), 0);
}
