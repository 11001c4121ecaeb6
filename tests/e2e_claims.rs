//! Issue 11's "Must show" under the real Claude Code CLI (2.1.332, scripted mock API):
//! corroboration that reaches every claim. A stale pass after a Write edit, a piped failing
//! run, an inflated count, an unbacked "all tests pass", the model ceiling on a `--model
//! sonnet` session, round-scoped cards on a fresh clone, and a sub-agent's claim at
//! SubagentStop. The runner is Python's unittest on a tiny real test file: its output is
//! real, and its summary (`Ran 3 tests` / `FAILED (failures=1)`) is what fable parses.

mod support;
use serde_json::{json, Value};
use support::e2e::*;
use support::harness::{available, Session};

const PASSING: &str = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(1, 1)\n\n    def test_b(self):\n        self.assertTrue(True)\n\n    def test_c(self):\n        self.assertIn(1, [1])\n\n\nif __name__ == '__main__':\n    unittest.main()\n";
const FAILING: &str = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(1, 1)\n\n    def test_b(self):\n        self.assertEqual(1, 2)\n\n    def test_c(self):\n        self.assertIn(1, [1])\n\n\nif __name__ == '__main__':\n    unittest.main()\n";
const RUN: &str = "python3 -m unittest";

/// Item 1: a pass logged before a Write edit of a project file no longer corroborates the
/// card; running the command again after the edit does.
#[test]
fn a_pass_before_a_write_edit_blocks_and_a_rerun_allows() {
    let Some(claude) = available() else { return };
    let card = format!("- [x] 1. parser -- evidence: `{RUN}` -> 3 passed");
    let o = Session::new("claims-stale")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. parser\n")
        .file("test_calc.py", PASSING);
    let o = o
        .bash(RUN)
        .write("parse.py", "def parse(s):\n    return s.split()\n")
        .bash(&ledger_step(&[&card]))
        .text("All done.")
        .bash(RUN)
        .text("Done after the rerun.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 6, "one block, then allowed: {sent:#?}\n{}", o.debug());
    assert!(
        sent[4].contains(&format!("`{RUN}` passed at")) && sent[4].contains("; parse.py (new) changed after it"),
        "{}",
        sent[4]
    );
    assert!(result(&o).contains("Done after the rerun."), "{}", result(&o));
    let r = o.evidence();
    assert!(
        r.iter()
            .any(|x| x["file"].as_str().is_some_and(|f| f.ends_with("/parse.py"))),
        "the Write edit is logged: {r:#?}"
    );
}

/// Item 2: `python3 -m unittest 2>&1 | tail -5` exits 0 through the pipe while its output
/// says a test failed; the card citing it is blocked.
#[test]
fn a_piped_failing_run_blocks() {
    let Some(claude) = available() else { return };
    let piped = format!("{RUN} 2>&1 | tail -5");
    let card = format!("- [x] 1. parser -- evidence: `{piped}` -> all green");
    let o = Session::new("claims-piped")
        .env("FABLE_STOP_BLOCKS", "1")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. parser\n")
        .file("test_calc.py", FAILING)
        .bash(&piped)
        .bash(&ledger_step(&[&card]))
        .text("All done.")
        .text("Stopping anyway.")
        .run(&claude);
    let sent = texts(&o);
    assert!(sent.len() >= 4, "{sent:#?}\n{}", o.debug());
    assert!(
        sent[3].contains("exited 0 on its latest run, but its output reports failures"),
        "{}",
        sent[3]
    );
    let r = o.evidence();
    let rec = r
        .iter()
        .find(|x| x["cmd"] == piped.as_str())
        .expect("the piped run is logged");
    assert_eq!(
        (
            rec["exit"].as_i64(),
            rec["ok"].as_bool(),
            rec["summary"]["failed"].as_u64()
        ),
        (Some(0), Some(true), Some(1)),
        "{rec}"
    );
}

/// Item 2: a card stating "12 passed" when the run shows 3 is blocked; the true count is
/// allowed.
#[test]
fn an_inflated_count_blocks_and_the_true_count_is_allowed() {
    let Some(claude) = available() else { return };
    let inflated = format!("- [x] 1. parser -- evidence: `{RUN}` -> 12 passed");
    let honest = format!("- [x] 1. parser -- evidence: `{RUN}` -> 3 passed");
    let o = Session::new("claims-count")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. parser\n")
        .file("test_calc.py", PASSING)
        .bash(RUN)
        .bash(&ledger_step(&[&inflated]))
        .text("All done.")
        .bash(&ledger_step(&[&honest]))
        .text("Done, with the true count.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 5, "one block, then allowed: {sent:#?}\n{}", o.debug());
    assert!(
        sent[3].contains(&format!(
            "the note says 12 passed, but the newest run of `{RUN}` shows 3 passed"
        )),
        "{}",
        sent[3]
    );
    assert!(result(&o).contains("Done, with the true count."), "{}", result(&o));
}

/// Item 4: with no cards at all, "All tests pass now." is blocked until a passing run of
/// a test command is in the session's log.
#[test]
fn an_unbacked_all_tests_pass_blocks_and_a_backed_one_is_allowed() {
    let Some(claude) = available() else { return };
    let o = Session::new("claims-final")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .file("test_calc.py", PASSING)
        .text("All tests pass now.")
        .bash(RUN)
        .text("All tests pass now.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 3, "one block, then allowed: {sent:#?}\n{}", o.debug());
    assert!(
        sent[1].contains("your last message says \\\"All tests pass now\\\"")
            && sent[1].contains("no run of tests in this round shows it"),
        "{}",
        sent[1]
    );
    assert!(!result(&o).contains("SHOULD NOT"), "{}", result(&o));
}

/// Item 8: Claude Code sends no model at startup; the spawn guard reads the session's
/// model from the transcript. A `--model sonnet` session may not spawn an `opus`
/// sub-agent, and may spawn a `haiku` one.
#[test]
fn a_sonnet_session_denies_an_opus_sub_agent_and_allows_haiku() {
    let Some(claude) = available() else { return };
    let o = Session::new("claims-ceiling")
        .arg("--model")
        .arg("sonnet")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .agent(json!({"prompt": "Say hi.", "subagent_type": "general-purpose", "model": "opus"}))
        .agent(json!({"prompt": "Say hi.", "subagent_type": "general-purpose", "model": "haiku"}))
        .text("hi from the sub-agent")
        .text("Both spawns answered.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let reqs = o.main_requests();
    let sent = texts(&o);
    assert_eq!(sent.len(), 4, "{sent:#?}\n{}", o.debug());
    let main_model = o.request_body(&reqs[0])["model"].as_str().unwrap_or("").to_string();
    assert!(
        main_model.contains("sonnet"),
        "the session runs on sonnet: {main_model}"
    );
    assert!(
        sent[1].contains("model ceiling") && sent[1].contains("`opus`"),
        "opus is denied: {}",
        sent[1]
    );
    // The haiku sub-agent ran: its own request went out on haiku, and its answer came back.
    let sub_model = o.request_body(&reqs[2])["model"].as_str().unwrap_or("").to_string();
    assert!(sub_model.contains("haiku"), "{sub_model}");
    assert!(
        !sent[3].contains("model ceiling") && sent[3].contains("hi from the sub-agent"),
        "{}",
        sent[3]
    );
}

/// Item 6: a fresh clone whose committed ledger holds cards closed elsewhere may stop;
/// a card closed this round citing a command that never ran may not.
#[test]
fn a_fresh_clone_with_historical_cards_may_stop_but_a_card_closed_this_round_is_checked() {
    let Some(claude) = available() else { return };
    let history = "- [x] 1. release -- evidence: `make release` -> ok";
    let committed =
        format!("# Ledger\n\n{history}\n- [ ] 2. deploy check\n- [~] 3. docs -- deferred: after the release\n");
    let clone = |name: &str| {
        Session::new(name)
            .file(".fable/LEDGER.md", &committed)
            .pre("git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm import")
    };
    // Only the historical card: nothing of this round to check.
    let o = clone("claims-clone-old")
        .file(".fable/LEDGER.md", &format!("# Ledger\n\n{history}\n"))
        .text("Nothing to do here.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(
        sent.len(),
        1,
        "the historical card must not block: {sent:#?}\n{}",
        o.debug()
    );
    assert!(result(&o).contains("Nothing to do here."), "{}", result(&o));
    assert!(o.proj().join(".git").is_dir(), "a committed ledger in a git clone");

    let o = clone("claims-clone-new")
        .env("FABLE_STOP_BLOCKS", "1")
        .bash(&ledger_step(&[
            history,
            "- [x] 2. deploy check -- evidence: `make deploy-check` -> ok",
            "- [~] 3. docs -- deferred: after the release",
        ]))
        .text("All done.")
        .text("Stopping anyway.")
        .run(&claude);
    let sent = texts(&o);
    assert!(sent.len() >= 3, "{sent:#?}\n{}", o.debug());
    assert!(
        sent[2].contains("make deploy-check") && sent[2].contains("not backed") && !sent[2].contains("make release"),
        "only this round's card is checked: {}",
        sent[2]
    );
}

/// Item 4 for sub-agents: a foreground sub-agent that says "All tests pass now." without
/// having run them is blocked at SubagentStop and re-invoked with the reason; it runs
/// the tests (the record carries its agent id), its stop goes through — the parent's open
/// card does not hold it — and the parent's Stop accepts the card citing that run.
#[test]
fn a_sub_agents_unbacked_claim_is_blocked_at_subagent_stop() {
    let Some(claude) = available() else { return };
    let card = format!("- [x] 1. tests green -- evidence: `{RUN}` -> 3 passed");
    let o = Session::new("claims-subagent")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. tests green\n")
        .file("test_calc.py", PASSING)
        .agent(json!({"prompt": "Run the tests.", "subagent_type": "general-purpose"}))
        .text("All tests pass now.")
        .bash(RUN)
        .text("All tests pass now.")
        .bash(&ledger_step(&[&card]))
        .text("All done.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 6, "{sent:#?}\n{}", o.debug());
    assert!(
        sent[2].contains("this sub-agent's (or the main thread's) evidence log"),
        "the sub-agent is re-invoked with the reason: {}",
        sent[2]
    );
    assert!(
        !sent[2].contains("open card"),
        "the parent's open card is not the sub-agent's: {}",
        sent[2]
    );
    let r = o.evidence();
    let run: Vec<&Value> = r.iter().filter(|x| x["cmd"] == RUN).collect();
    assert_eq!(run.len(), 1, "{r:#?}");
    let agent = run[0]["agent"].as_str().expect("the sub-agent's run carries its id");
    assert!(
        o.transcript_files()
            .iter()
            .any(|f| f.to_string_lossy().ends_with(&format!("subagents/agent-{agent}.jsonl"))),
        "the id is the sub-agent's: {agent}"
    );
    assert!(
        sent[4].contains("All tests pass now."),
        "the parent got the answer: {}",
        sent[4]
    );
    assert!(result(&o).contains("All done."), "{}", result(&o));
}
