//! A run must show tests passing to back a card or a claim: the real hook binaries
//! (`fable-evidence` logs a payload carrying a captured real tool output from
//! tests/data/summaries/, `fable-close-guard` decides at Stop), for the runs that test
//! nothing and for the honest runs next to them.

mod common_discipline;
use common_discipline::*;
use serde_json::json;

fn fixture(stem: &str) -> String {
    let path =
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/summaries")).join(format!("{stem}.txt"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Logs one Bash call of session `s` with its output, as Claude Code reports it: a
/// success carries stdout (stderr merged in), a failure an `Exit code N` error.
fn ran(p: &Proj, cmd: &str, exit: i64, output: &str) {
    let root = p.root.to_string_lossy().into_owned();
    let payload = if exit == 0 {
        json!({"session_id":"s","cwd":root,"hook_event_name":"PostToolUse","tool_name":"Bash",
               "tool_input":{"command":cmd},"tool_response":{"stdout":output,"stderr":"","interrupted":false}})
    } else {
        json!({"session_id":"s","cwd":root,"hook_event_name":"PostToolUseFailure","tool_name":"Bash",
               "tool_input":{"command":cmd},"error":format!("Exit code {exit}\n{output}")})
    };
    let o = p.hook_raw(
        "fable-evidence",
        payload.to_string().as_bytes(),
        &[("CLAUDE_PROJECT_DIR", &root)],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A project with one closed card citing `cmd`, after `cmd` ran with `output`.
fn card_citing(cmd: &str, exit: i64, output: &str) -> Proj {
    let p = Proj::new();
    p.ledger(&format!("- [x] 1. the parser -- evidence: `{cmd}` -> all green\n"));
    ran(&p, cmd, exit, output);
    p
}

fn claim_stop(p: &Proj, message: &str) -> std::process::Output {
    p.hook(
        "fable-close-guard",
        json!({"session_id":"s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":message}),
    )
}

#[test]
fn a_filter_that_matched_nothing_backs_no_card() {
    let cmd = "python3 -m unittest -k nomatch";
    let p = card_citing(cmd, 0, &fixture("unittest-nomatch"));
    let o = p.stop();
    assert_eq!(stop_code(&o), 2);
    let e = said(&o);
    assert!(
        e.contains("`python3 -m unittest -k nomatch` ran 0 tests: the filter matched nothing"),
        "{e}"
    );
    // The same suite run for real: allowed.
    ran(&p, cmd, 0, &fixture("unittest-pass"));
    assert_eq!(stop_code(&p.stop()), 0, "{}", said(&p.stop()));
}

#[test]
fn help_and_build_only_runs_back_no_card() {
    for (cmd, stem, says) in [
        ("cargo test --help", "cargo-test-help", "only prints help"),
        ("cargo test --no-run", "cargo-test-no-run", "only builds the tests"),
        ("python3 -m unittest --help", "unittest-help", "only prints help"),
        ("make -n test", "make-n-test", "dry run"),
        (
            "python3 -m pytest --collect-only",
            "pytest-collect-only",
            "only collects",
        ),
    ] {
        let p = card_citing(cmd, 0, &fixture(stem));
        let o = p.stop();
        assert_eq!(stop_code(&o), 2, "{cmd}");
        let e = said(&o);
        assert!(e.contains(says) && e.contains(&format!("`{cmd}`")), "{cmd}: {e}");
    }
}

#[test]
fn honest_runs_back_their_cards() {
    for (cmd, stem) in [
        ("cargo test", "cargo-test-doctest-pass"),
        ("python3 -m unittest -v", "unittest-pass"),
        ("python3 -m pytest", "pytest-pass"),
        ("node --test", "node-test-pass"),
        ("make test", "make-test-pass"),
        ("cargo test 2>&1 | tail -5", "cargo-test-pass"),
    ] {
        let p = card_citing(cmd, 0, &fixture(stem));
        let o = p.stop();
        assert_eq!(stop_code(&o), 0, "{cmd}: {}", said(&o));
    }
}

#[test]
fn wrappers_and_unknown_tools_keep_the_exit_rule() {
    // `make test` prints whatever its recipe prints: exit 0 and no summary stays a pass.
    for cmd in [
        "make test",
        "npm test",
        "./run-checks.sh",
        "./deploy.sh || true",
        "cargo build",
    ] {
        let p = card_citing(cmd, 0, "done\n");
        let o = p.stop();
        assert_eq!(stop_code(&o), 0, "{cmd}: {}", said(&o));
    }
    // Its status hidden and no summary in sight: it shows nothing.
    for cmd in [
        "make test || true",
        "make test 2>&1 | tail -3",
        "npm test >/dev/null 2>&1",
    ] {
        let p = card_citing(cmd, 0, "");
        let o = p.stop();
        assert_eq!(stop_code(&o), 2, "{cmd}");
        assert!(said(&o).contains("run it without"), "{cmd}: {}", said(&o));
    }
}

#[test]
fn cut_and_hidden_test_output_backs_no_card() {
    let p = card_citing("cargo test 2>&1 | head -5", 0, &fixture("cargo-test-head5"));
    let e = said(&p.stop());
    assert!(
        e.contains(
            "the output was cut before the summary and the pipe hides the exit status — run it without `| head`"
        ),
        "{e}"
    );
    let p = card_citing("python3 -m unittest 2>&1 | head -3", 0, &fixture("unittest-head3"));
    assert_eq!(stop_code(&p.stop()), 2);
    let p = card_citing("cargo test >/dev/null 2>&1 || true", 0, "");
    let o = p.stop();
    assert_eq!(stop_code(&o), 2);
    assert!(said(&o).contains("/dev/null"), "{}", said(&o));
}

#[test]
fn a_no_fail_fast_tail_that_ends_in_ok_is_a_failure() {
    let cmd = "cargo test --no-fail-fast 2>&1 | tail -5";
    let p = card_citing(cmd, 0, &fixture("cargo-test-nofailfast-tail5-fail"));
    let o = p.stop();
    assert_eq!(stop_code(&o), 2);
    assert!(said(&o).contains("output reports failures"), "{}", said(&o));
}

#[test]
fn a_claim_needs_a_run_that_ran_tests() {
    let p = Proj::new();
    p.ledger("# no cards\n");
    ran(&p, "python3 -m unittest -k nomatch", 0, &fixture("unittest-nomatch"));
    ran(&p, "cargo test --no-run", 0, &fixture("cargo-test-no-run"));
    let o = claim_stop(&p, "Fixed the parser. All tests pass now.");
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(
        said(&o).contains("`cargo test --no-run` only builds the tests"),
        "the newest run that tested nothing says what to run: {}",
        said(&o)
    );
    ran(&p, "cd sub && python3 -m unittest", 0, &fixture("unittest-pass"));
    let o = claim_stop(&p, "Fixed the parser. All tests pass now.");
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
}
