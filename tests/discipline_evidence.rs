//! The ancestor's test_evidence "Logger" checks (4), run against `fable-evidence` with the
//! real Claude Code payload shapes, so the whole of test_evidence is ported with the
//! discipline tests (corroboration and replay live in discipline_close / discipline_replay).

mod common_discipline;
use common_discipline::*;

#[test]
fn logger_records_the_command() {
    let p = Proj::new();
    assert_eq!(stop_code(&p.hook("fable-evidence", success("s", "pytest -q"))), 0);
    assert_eq!(p.records()[0]["cmd"], "pytest -q");
}

#[test]
fn logger_records_the_exit_status() {
    let p = Proj::new();
    p.hook("fable-evidence", failure("s", "make", 2));
    p.hook("fable-evidence", success("s", "make"));
    let r = p.records();
    assert_eq!((r[0]["exit"].as_i64(), r[0]["ok"].as_bool()), (Some(2), Some(false)));
    assert_eq!((r[1]["exit"].as_i64(), r[1]["ok"].as_bool()), (Some(0), Some(true)));
}

#[test]
fn logger_is_inert_without_fable_dir() {
    let p = Proj::bare();
    let o = p.hook("fable-evidence", success("s", "ls"));
    assert_eq!(stop_code(&o), 0);
    assert!(o.stdout.is_empty() && !p.root.join(".fable").exists());
}

#[test]
fn logger_records_while_paused_and_the_log_then_corroborates() {
    let p = Proj::new();
    p.ledger("PAUSED: user wants a hotfix first\n- [x] 1. t -- evidence: `pytest -q` -> 12 passed\n");
    p.hook("fable-evidence", success("s", "pytest -q"));
    assert_eq!(p.records().len(), 1);
    // Unpaused, the machine-written record backs the citation end to end.
    p.ledger("- [x] 1. t -- evidence: `pytest -q` -> 12 passed\n");
    assert_eq!(stop_code(&p.stop()), 0);
    p.hook("fable-evidence", failure("s", "pytest -q", 1));
    assert_eq!(stop_code(&p.stop()), 2);
}
