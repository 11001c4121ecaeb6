//! Discipline guards end to end under the real Claude Code CLI: the Stop gate re-invokes
//! the model with our reason, loop safety lets the second Stop through, and the fail
//! streak's demand reaches the model after the sixth consecutive failure.

mod support;
use support::harness::{available, Outcome, Session};

const LEDGER_CITING: &str = "# Ledger\n\n- [x] 1. checks pass -- evidence: `sh ./check.sh` -> 12 passed\n";

fn texts(o: &Outcome) -> Vec<String> {
    o.main_requests().iter().map(Outcome::sent_text).collect()
}

#[test]
fn stop_blocks_on_a_citation_that_never_ran_then_loop_safety_allows() {
    let Some(claude) = available() else { return };
    let o = Session::new("close-block")
        .file(".fable/LEDGER.md", LEDGER_CITING)
        .file("check.sh", "echo 12 passed\n")
        .bash("echo warm-up")
        .text("All done.")
        .text("Continued after the Stop feedback.")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(
        sent.len(),
        3,
        "expected a re-invocation after the block: {sent:#?}\n{}",
        o.debug()
    );
    assert!(
        sent[2].contains("sh ./check.sh") && sent[2].contains("not backed by the evidence log"),
        "{}",
        sent[2]
    );
    assert!(!sent[1].contains("not backed"), "blocked too early: {}", sent[1]);
    let result = std::fs::read_to_string(o.out.join("claude.stdout")).unwrap();
    assert!(
        result.contains("Continued after the Stop feedback."),
        "second Stop must be allowed: {result}"
    );
}

/// Claude Code drops an exit-2 Stop block whose stderr says "no such file"; fable blocks
/// through `{"decision":"block"}` instead, so such a reason still reaches the model.
#[test]
fn a_block_whose_reason_says_no_such_file_still_reaches_the_model() {
    let Some(claude) = available() else { return };
    let o = Session::new("close-enoent")
        .file(
            ".fable/LEDGER.md",
            "# Ledger\n\n- [ ] 1. fix `cat: data.txt: No such file or directory` in the loader\n",
        )
        .bash("echo warm-up")
        .text("All done.")
        .text("Continued after the Stop feedback.")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 3, "the block was dropped: {sent:#?}\n{}", o.debug());
    assert!(sent[2].contains("No such file or directory"), "{}", sent[2]);
}

#[test]
fn stop_is_allowed_once_the_cited_command_ran_in_the_session() {
    let Some(claude) = available() else { return };
    let o = Session::new("close-allow")
        .file(".fable/LEDGER.md", LEDGER_CITING)
        .file("check.sh", "echo 12 passed\n")
        .bash("sh ./check.sh")
        .text("All done.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 2, "Stop should not have blocked: {sent:#?}\n{}", o.debug());
    let result = std::fs::read_to_string(o.out.join("claude.stdout")).unwrap();
    assert!(
        result.contains("All done.") && !result.contains("SHOULD NOT"),
        "{result}"
    );
    let r = o.evidence();
    assert!(
        r.iter()
            .any(|x| x["cmd"] == "sh ./check.sh" && x["exit"] == 0 && x["ok"] == true),
        "{r:#?}"
    );
}

#[test]
fn sixth_consecutive_failure_carries_the_tried_demand() {
    let Some(claude) = available() else { return };
    let mut s = Session::new("streak-hard").file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. make it work\n");
    for i in 1..=6 {
        s = s.bash(&format!("false # attempt {i}"));
    }
    let o = s.text("Giving up for now.").text("Stopped.").run(&claude);
    let sent = texts(&o);
    // Request k (0-based) carries the result of attempt k; attempt 6's result is sent[6].
    assert!(sent.len() >= 7, "{sent:#?}\n{}", o.debug());
    for (k, text) in sent.iter().enumerate().take(6).skip(1) {
        assert!(
            !text.contains("stop retrying"),
            "demand came early, after attempt {k}: {text}"
        );
    }
    assert!(
        sent[3].contains("HARNESS") && sent[3].contains("DEPLOYMENT"),
        "ladder missing at 3: {}",
        sent[3]
    );
    assert!(
        sent[6].contains("-- tried:") && sent[6].contains("stop retrying"),
        "{}",
        sent[6]
    );
    let r = o.evidence();
    assert_eq!(r.iter().filter(|x| x["ok"] == false).count(), 6, "{r:#?}");
}

#[test]
fn a_success_in_between_resets_the_streak() {
    let Some(claude) = available() else { return };
    let mut s = Session::new("streak-reset").file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. make it work\n");
    for i in 1..=4 {
        s = s.bash(&format!("false # before {i}"));
    }
    s = s.bash("true");
    for i in 1..=4 {
        s = s.bash(&format!("false # after {i}"));
    }
    let o = s.text("Paused here.").text("Stopped.").run(&claude);
    let sent = texts(&o);
    assert!(sent.len() >= 10, "{sent:#?}\n{}", o.debug());
    // sent[0] is the prompt with the SessionStart context, which describes the guard.
    assert!(
        sent.iter().all(|t| !t.contains("stop retrying")),
        "demand despite the reset: {sent:#?}"
    );
    assert!(sent[3].contains("HARNESS"), "ladder at the third failure: {}", sent[3]);
    assert_eq!(o.evidence().len(), 9);
}
