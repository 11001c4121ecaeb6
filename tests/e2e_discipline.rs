//! Discipline guards end to end under the real Claude Code CLI: the Stop gate re-invokes
//! the model with our reason, loop safety lets the second Stop through, and the fail
//! streak's demand reaches the model after the sixth consecutive failure.

mod support;
use support::e2e::*;
use support::harness::{available, Outcome, Session};

const LEDGER_CITING: &str = "# Ledger\n\n- [x] 1. checks pass -- evidence: `sh ./check.sh` -> 12 passed\n";

/// A Bash step that closes the card during the session (a card closed before the round
/// began is not re-checked: fable's round snapshot at SessionStart).
fn close_card() -> String {
    format!("printf '{}' > .fable/LEDGER.md", LEDGER_CITING.replace('\n', "\\n"))
}

fn transcript_lines(o: &Outcome, needle: &str) -> Vec<String> {
    o.transcript_lines(needle)
}

/// The card is closed during the session, citing a command that never ran: the Stop is
/// blocked, the model's next stop (with `stop_hook_active` set) is blocked again — fable
/// counts its own blocks — and after `FABLE_STOP_BLOCKS` blocks the stop goes through
/// with a `systemMessage` to the user naming the citation.
#[test]
fn stop_blocks_a_citation_that_never_ran_until_the_limit_then_tells_the_user() {
    let Some(claude) = available() else { return };
    let o = Session::new("close-block")
        .env("FABLE_STOP_BLOCKS", "2")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. checks pass\n")
        .file("check.sh", "echo 12 passed\n")
        .bash(&close_card())
        .text("All done.")
        .text("Continued after the Stop feedback.")
        .text("Still done.")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(
        sent.len(),
        4,
        "expected two re-invocations after two blocks: {sent:#?}\n{}",
        o.debug()
    );
    for s in &sent[2..4] {
        assert!(
            s.contains("sh ./check.sh") && s.contains("not backed by the evidence log"),
            "{s}"
        );
    }
    assert!(!sent[1].contains("not backed"), "blocked too early: {}", sent[1]);
    let result = std::fs::read_to_string(o.out.join("claude.stdout")).unwrap();
    assert!(
        result.contains("Still done."),
        "the third stop must be allowed: {result}"
    );
    let told = transcript_lines(&o, "after 2 blocks in a row");
    assert!(
        told.iter().any(|l| l.contains("sh ./check.sh")),
        "the user is told what stayed unresolved, in the transcript: {told:#?}"
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
    assert!(sent.len() >= 3, "the block was dropped: {sent:#?}\n{}", o.debug());
    assert!(sent[2].contains("No such file or directory"), "{}", sent[2]);
}

#[test]
fn stop_is_allowed_once_the_cited_command_ran_in_the_session() {
    let Some(claude) = available() else { return };
    let o = Session::new("close-allow")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. checks pass\n")
        .file("check.sh", "echo 12 passed\n")
        .bash("sh ./check.sh")
        .bash(&close_card())
        .text("All done.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 3, "Stop should not have blocked: {sent:#?}\n{}", o.debug());
    let told = transcript_lines(&o, "corroborated by sealed evidence records");
    assert!(!told.is_empty(), "an allowed stop with citations says so to the user");
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

/// A success that changes something resets the streak (a read-only look would not). The
/// failures after it are of another check: the same check failing again keeps its own
/// count since it last passed (docs/fail-streak.md).
#[test]
fn a_success_in_between_resets_the_streak() {
    let Some(claude) = available() else { return };
    let mut s = Session::new("streak-reset").file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. make it work\n");
    for i in 1..=4 {
        s = s.bash(&format!("false # before {i}"));
    }
    s = s.bash("touch fixed.txt");
    for i in 1..=4 {
        s = s.bash(&format!("sh -c 'exit 1' # after {i}"));
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

/// Issue 14, under the real CLI: every finding reaches the model in one block — the open
/// card and the never-run citation together, not one per stop.
#[test]
fn every_finding_reaches_the_model_in_one_block() {
    let Some(claude) = available() else { return };
    let o = Session::new("close-grouped")
        .env("FABLE_STOP_BLOCKS", "1")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 2. still open\n")
        .bash(&format!(
            "printf '{}' > .fable/LEDGER.md",
            "# Ledger\\n\\n- [x] 1. checks pass -- evidence: `sh ./check.sh` -> 12 passed\\n- [ ] 2. still open\\n"
        ))
        .text("All done.")
        .text("Stopping anyway.")
        .run(&claude);
    let sent = texts(&o);
    assert!(sent.len() >= 3, "{sent:#?}\n{}", o.debug());
    assert!(
        sent[2].contains("still open") && sent[2].contains("sh ./check.sh") && sent[2].contains("not backed"),
        "one block names both findings: {}",
        sent[2]
    );
}

/// Issue 14, under the real CLI: `MODE: light` written mid-session with open cards lets
/// the stop through, and the user is told (a `systemMessage` in the transcript).
#[test]
fn a_mode_written_mid_session_is_honoured_and_told_to_the_user() {
    let Some(claude) = available() else { return };
    let o = Session::new("close-downgrade")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. a\n- [ ] 2. b\n")
        .bash("printf 'MODE: light\\n- [ ] 1. a\\n- [ ] 2. b\\n' > .fable/LEDGER.md")
        .text("Stopping here.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 2, "the stop was allowed: {sent:#?}\n{}", o.debug());
    let told = transcript_lines(&o, "under MODE: light");
    assert!(told.iter().any(|l| l.contains("2 open card(s)")), "{told:#?}");
}

/// Issue 14, under the real CLI: a citation of a command that carried a secret matches
/// its redacted record, so the stop goes through.
#[test]
fn a_citation_carrying_a_secret_is_corroborated() {
    let Some(claude) = available() else { return };
    let cmd = "DB_PASSWORD=test123 sh ./check.sh";
    let o = Session::new("close-secret")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. checks pass\n")
        .file("check.sh", "echo 12 passed\n")
        .bash(cmd)
        .bash(&format!(
            "printf '%s\\n' '# Ledger' '' '- [x] 1. checks pass -- evidence: `{cmd}` -> 12 passed' > .fable/LEDGER.md"
        ))
        .text("All done.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 3, "the stop should be allowed: {sent:#?}\n{}", o.debug());
    let r = o.evidence();
    assert!(
        r.iter().any(|x| x["cmd"]
            .as_str()
            .is_some_and(|c| c.contains("sh ./check.sh") && !c.contains("test123"))),
        "{r:#?}"
    );
}

/// Issue 14, under the real CLI: the SessionStart context names only what exists — no
/// `docs/PROGRESS.md` to resume from in a project that has none.
#[test]
fn session_start_context_names_only_what_exists() {
    let Some(claude) = available() else { return };
    let o = Session::new("inject-exists")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. a card\n")
        .text("Nothing to do.")
        .text("Stopping anyway.")
        .run(&claude);
    let sent = texts(&o);
    assert!(!sent.is_empty(), "{}", o.debug());
    assert!(
        sent[0].contains("Context recovery"),
        "{}",
        &sent[0][..sent[0].len().min(2000)]
    );
    assert!(
        !sent[0].contains("docs/PROGRESS.md and") && !sent[0].contains("this project's docs/PROGRESS.md"),
        "{}",
        sent[0]
    );
}

/// Issue 14, under the real CLI: backticked words that are not commands (a file name,
/// an identifier, an output line) are prose, not citations: the stop goes through.
#[test]
fn backticked_prose_is_not_a_citation() {
    let Some(claude) = available() else { return };
    let o = Session::new("close-prose")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. config loader\n")
        .bash("printf '%s\\n' '# Ledger' '' '- [x] 1. config loader -- evidence: `src/config.rs` now rejects unknown keys in `parse_config`; the suite printed `3 passed`' > .fable/LEDGER.md")
        .text("All done.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 2, "prose spans must not block: {sent:#?}\n{}", o.debug());
}
