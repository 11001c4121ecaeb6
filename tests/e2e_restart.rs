//! Issue 30 item 4 under the real Claude Code CLI: restart fresh, as one flow.
//!
//! - Six failures bring the demand; the model writes its `-- tried:` note and stops with
//!   the card open: the stop goes through at once (full mode), the user is told to start a
//!   fresh session, and the next session in the same project is shown the note.
//! - A sub-agent's failures are its own streak: the parent's third failure reminds, it
//!   does not demand.
//! - Six probes sent in one message are one attempt.

mod support;
use serde_json::json;
use support::e2e::*;
use support::harness::{available, Session};

const CHECK: &str = "echo 'assertion failed: parse(\"x\") == 1'; exit 1\n";
const NOTE: &str = "rewrote the lexer (same error), pinned serde; unknown: the fixture encoding";

#[test]
fn the_demanded_restart_stops_at_once_and_the_next_session_reads_the_note() {
    let Some(claude) = available() else { return };
    let mut s = Session::new("restart-flow")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. make the check pass\n")
        .file("check.sh", CHECK);
    for _ in 0..6 {
        s = s.bash("sh ./check.sh");
    }
    let write_note =
        format!("printf '# Ledger\\n\\n- [ ] 1. make the check pass\\n  -- tried: {NOTE}\\n' > .fable/LEDGER.md");
    let o = s
        .bash(&write_note)
        .text("I wrote the tried note on the card; restart me from a fresh context.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert!(sent.len() >= 7, "{sent:#?}\n{}", o.debug());
    assert!(sent[6].contains("stop retrying"), "the demand at six: {}", sent[6]);
    let ledger = std::fs::read_to_string(o.proj().join(".fable/LEDGER.md")).unwrap();
    assert!(ledger.contains("-- tried:") && ledger.contains("- [ ] 1."), "{ledger}");
    // The stop after the note went through at once: no re-invocation with the open card.
    assert_eq!(sent.len(), 8, "the restart stop was blocked: {sent:#?}\n{}", o.debug());
    assert!(!sent.iter().any(|t| t.contains("legitimate exits")), "{sent:#?}");
    let result = std::fs::read_to_string(o.out.join("claude.stdout")).unwrap_or_default();
    assert!(result.contains("restart me from a fresh context"), "{result}");
    let told = o.transcript_lines("Start a fresh session");
    assert!(
        !told.is_empty(),
        "the user is told to start a fresh session\n{}",
        o.debug()
    );

    // The next session in the same project and HOME: its SessionStart shows the note.
    let o2 = Session::next_session(&o)
        .env("FABLE_STOP_BLOCKS", "1")
        .text("Resuming from the ledger.")
        .text("Stopping.")
        .run(&claude);
    let sent2 = texts(&o2);
    assert!(!sent2.is_empty(), "{}", o2.debug());
    assert!(
        sent2[0].contains("Context recovery") && sent2[0].contains("fixture encoding"),
        "the tried note reaches the next session: {}",
        &sent2[0]
    );
    assert!(sent2[0].contains("text from the ledger"), "{}", sent2[0]);
}

/// Honest session under the real CLI: without a demand, the open card still holds the stop.
#[test]
fn a_tried_note_without_a_demand_still_meets_the_open_card_rule() {
    let Some(claude) = available() else { return };
    let o = Session::new("restart-honest")
        .env("FABLE_STOP_BLOCKS", "1")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. make the check pass\n")
        .file("check.sh", CHECK)
        .bash("sh ./check.sh")
        .bash(&format!(
            "printf '# Ledger\\n\\n- [ ] 1. make the check pass\\n  -- tried: {NOTE}\\n' > .fable/LEDGER.md"
        ))
        .text("Wrote a note; stopping.")
        .text("Stopped after the block.")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 4, "{sent:#?}\n{}", o.debug());
    assert!(sent[3].contains("legitimate exits"), "{}", sent[3]);
}

#[test]
fn a_sub_agents_failures_stay_out_of_the_parents_streak() {
    let Some(claude) = available() else { return };
    let mut s = Session::new("restart-sub")
        .file(
            ".fable/LEDGER.md",
            "MODE: light\n# Ledger\n\n- [ ] 1. make the check pass\n",
        )
        .file("check.sh", CHECK)
        .file("probe.sh", "echo probe failed; exit 3\n")
        .bash("sh ./check.sh")
        .bash("sh ./check.sh")
        .agent(json!({"prompt": "Probe the check.", "subagent_type": "general-purpose"}));
    for _ in 0..6 {
        s = s.bash("sh ./probe.sh");
    }
    let o = s
        .text("Probed six times; giving up.")
        .bash("sh ./check.sh")
        .text("Done for now.")
        .run(&claude);
    let sent = texts(&o);
    assert!(sent.len() >= 12, "{sent:#?}\n{}", o.debug());
    // The sub-agent got its own demand at its sixth failure …
    let demanded: Vec<&String> = sent.iter().filter(|t| t.contains("stop retrying")).collect();
    assert_eq!(demanded.len(), 1, "{sent:#?}");
    assert!(demanded[0].contains("probe failed"), "{}", demanded[0]);
    // … and the parent's third failure reminds (ladder), it does not demand.
    let last = sent.last().unwrap();
    assert!(last.contains("assertion failed"), "the parent's third run: {last}");
    assert!(last.contains("HARNESS") && !last.contains("stop retrying"), "{last}");
    let files: Vec<String> = std::fs::read_dir(o.proj().join(".fable/state"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        files
            .iter()
            .any(|f| f.contains(".agent.") && f.ends_with(".streak.json")),
        "{files:?}"
    );
}

/// Six probes in one message fail together: one attempt. Two more failing turns make
/// three, and only then the ladder comes.
#[test]
fn six_parallel_probes_in_one_turn_are_one_attempt() {
    let Some(claude) = available() else { return };
    let probes: Vec<serde_json::Value> = (1..=6)
        .map(|i| json!({"name": "Bash", "input": {"command": format!("sh ./probe.sh {i}"), "description": "probe"}}))
        .collect();
    let o = Session::new("restart-parallel")
        .file(
            ".fable/LEDGER.md",
            "MODE: light\n# Ledger\n\n- [ ] 1. make the check pass\n",
        )
        .file("probe.sh", "echo probe $1 failed; exit 3\n")
        .file("check.sh", CHECK)
        .step(json!({"tool_uses": probes}))
        .bash("sh ./check.sh")
        .bash("sh ./check.sh")
        .text("Done for now.")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 4, "{sent:#?}\n{}", o.debug());
    assert!(sent[1].contains("probe 6 failed"), "{}", sent[1]);
    assert!(
        !sent[1].contains("stop retrying") && !sent[1].contains("HARNESS"),
        "one turn is one attempt: {}",
        sent[1]
    );
    assert!(!sent[2].contains("HARNESS"), "second attempt: {}", sent[2]);
    assert!(sent[3].contains("HARNESS"), "third attempt reminds: {}", sent[3]);
}

/// A grind of one check with a trivial command passing after every five failures: the
/// check's sixth failure since it last passed brings the demand.
#[test]
fn a_grind_of_one_check_is_seen_through_trivial_passes() {
    let Some(claude) = available() else { return };
    let mut s = Session::new("restart-grind")
        .file(
            ".fable/LEDGER.md",
            "MODE: light\n# Ledger\n\n- [ ] 1. make the check pass\n",
        )
        .file("check.sh", CHECK);
    for i in 1..=6 {
        s = s.bash("sh ./check.sh");
        if i == 5 {
            s = s.bash("touch src.txt");
        }
    }
    let o = s.text("Stopping.").run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 8, "{sent:#?}\n{}", o.debug());
    assert!(sent[..7].iter().all(|t| !t.contains("stop retrying")), "{sent:#?}");
    assert!(
        sent[7].contains("stop retrying"),
        "the sixth failure of the check: {}",
        sent[7]
    );
}
