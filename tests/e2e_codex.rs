//! fable under the real OpenAI Codex CLI (0.171.0, scripted Responses-API mock, issue 32
//! item 4): the hooks registered as fable registers them for Codex, and each guard
//! proven by what the model was sent next and what the project's log holds — real exit
//! codes from the rollout, the fail streak's ladder and demand as developer context, the
//! Stop gate re-invoking the model with `<hook_prompt>`, fable's own block limit (Codex
//! has none), the claim check, a sub-agent's end at SubagentStop only, and the SessionStart
//! context again after auto-compaction.

mod support;
use serde_json::{json, Value};
use support::codex::{available, CodexOutcome, CodexSession};

const LEDGER_CITING: &str = "# Ledger\n\n- [x] 1. checks pass -- evidence: `sh ./check.sh` -> 12 passed\n";

/// A shell step that closes the card during the session (a card closed before the round
/// began is not re-checked).
fn close_card() -> String {
    format!("printf '{}' > .fable/LEDGER.md", LEDGER_CITING.replace('\n', "\\n"))
}

/// The `<hook_prompt>` texts Codex sent on the main thread (a Stop block's reason).
fn hook_prompts(o: &CodexOutcome) -> Vec<String> {
    o.texts().into_iter().filter(|t| t.contains("<hook_prompt")).collect()
}

#[test]
fn codex_evidence_holds_real_exit_codes_for_a_failing_and_a_passing_command() {
    let Some(codex) = available() else { return };
    let o = CodexSession::new("evidence")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .shell("ls /nonexistent")
        .shell("echo ok")
        .text("Looked around.")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    assert_eq!(o.rc, 0, "{}", o.debug());
    let ev = o.evidence();
    let ls = ev
        .iter()
        .find(|r| r["cmd"] == "ls /nonexistent")
        .unwrap_or_else(|| panic!("no record of ls: {ev:#?}\n{}", o.debug()));
    assert_eq!((&ls["exit"], &ls["ok"]), (&json!(2), &json!(false)), "{ls}");
    let echo = ev.iter().find(|r| r["cmd"] == "echo ok").expect("echo logged");
    assert_eq!((&echo["exit"], &echo["ok"]), (&json!(0), &json!(true)), "{echo}");
    for r in [ls, echo] {
        assert_eq!(r["host"], "codex", "{r}");
    }
}

/// Codex hands the hook the combined output: one longer than the tail keeps has its start
/// kept too (`head`), as under Claude Code; one the tail holds whole has none.
#[test]
fn codex_a_long_output_keeps_its_head() {
    let Some(codex) = available() else { return };
    let o = CodexSession::new("head")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .shell("echo 'error: the decisive line'; seq 1 1500; exit 3")
        .shell("echo ok")
        .text("Looked around.")
        .run(&codex);
    assert_eq!(o.rc, 0, "{}", o.debug());
    let ev = o.evidence();
    let long = ev
        .iter()
        .find(|r| r["exit"] == json!(3))
        .unwrap_or_else(|| panic!("no record of the long run: {ev:#?}\n{}", o.debug()));
    let head = long["head"].as_str().unwrap_or_else(|| panic!("no head: {long}"));
    assert!(head.starts_with("error: the decisive line\n1\n2\n"), "{head}");
    assert!(!long["tail"].as_str().unwrap().contains("decisive"), "{long}");
    let echo = ev.iter().find(|r| r["cmd"] == "echo ok").expect("echo logged");
    assert!(echo.get("head").is_none(), "{echo}");
}

#[test]
fn codex_fail_streak_reminder_at_three_and_demand_at_six_reach_the_model() {
    let Some(codex) = available() else { return };
    let mut s = CodexSession::new("streak").file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. make it work\n");
    for i in 1..=6 {
        s = s.shell(&format!("false # attempt {i}"));
    }
    let o = s.text("Giving up for now.").text("Stopped.").run(&codex);
    eprintln!("took {:?}", o.took);
    let sent = o.texts();
    // Request k carries what followed attempt k (its output and fable's context).
    assert!(sent.len() >= 7, "{sent:#?}\n{}", o.debug());
    for (k, text) in sent.iter().enumerate().take(6).skip(1) {
        assert!(
            !text.contains("stop retrying"),
            "demand came early, after attempt {k}: {text}"
        );
        assert!(
            text.contains("Process exited with code 1"),
            "the model still sees the output: {text}"
        );
    }
    assert!(!sent[2].contains("HARNESS"), "ladder too early: {}", sent[2]);
    assert!(
        sent[3].contains("HARNESS") && sent[3].contains("DEPLOYMENT") && sent[3].contains("\"developer\""),
        "ladder at the third failure, as developer context: {}",
        sent[3]
    );
    assert!(
        sent[6].contains("-- tried:") && sent[6].contains("stop retrying"),
        "demand at the sixth: {}",
        sent[6]
    );
    let r = o.evidence();
    assert_eq!(r.iter().filter(|x| x["ok"] == false).count(), 6, "{r:#?}");
}

/// The card is closed citing a command that never ran: the Stop is blocked and Codex
/// re-invokes the model with fable's reason as `<hook_prompt>`; the model runs the
/// command, and its next stop is allowed (the honest path through the same gate).
#[test]
fn codex_stop_blocks_a_never_run_citation_and_the_model_is_reinvoked_with_the_reason() {
    let Some(codex) = available() else { return };
    let o = CodexSession::new("close-block")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. checks pass\n")
        .file("check.sh", "echo 12 passed\n")
        .shell(&close_card())
        .text("All done.")
        .shell("sh ./check.sh")
        .text("Done after running the check.")
        .text("SHOULD NOT BE REACHED")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    assert_eq!(o.rc, 0, "{}", o.debug());
    let sent = o.texts();
    assert_eq!(sent.len(), 4, "one block, then allowed: {sent:#?}\n{}", o.debug());
    assert!(
        sent[2].contains("<hook_prompt hook_run_id=\\\"stop:")
            && sent[2].contains("sh ./check.sh")
            && sent[2].contains("not backed by the evidence log"),
        "{}",
        sent[2]
    );
    assert!(!sent[1].contains("<hook_prompt"), "blocked too early: {}", sent[1]);
    assert_eq!(o.last_message(), "Done after running the check.", "{}", o.debug());
    let r = o.evidence();
    assert!(
        r.iter().any(|x| x["cmd"] == "sh ./check.sh" && x["exit"] == 0),
        "{r:#?}"
    );
}

/// What `fable status` shows in the session's project, with the session's HOME (where
/// fable keeps the notable stops).
fn status(o: &CodexOutcome) -> String {
    let out = std::process::Command::new(support::harness::bin_dir().join("fable"))
        .arg("status")
        .current_dir(o.proj())
        .env("HOME", o.out.join("home"))
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("FABLE_CONFIG_DIR")
        .output()
        .expect("fable status runs");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A model that answers "All done." to every block: the session ends after `blocks`
/// blocks, with exit 0, long before the harness timeout.
fn ignoring_session(codex: &std::path::Path, name: &str, env: &[(&str, &str)]) -> CodexOutcome {
    let mut s = CodexSession::new(name)
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. checks pass\n")
        .file("check.sh", "echo 12 passed\n")
        .shell(&close_card())
        .text("All done.");
    for (k, v) in env {
        s = s.env(k, v);
    }
    s.timeout = 90;
    s.run(codex)
}

/// Codex caps no Stop loop; fable's close guard does: after `FABLE_STOP_BLOCKS` blocks in
/// a row the stop goes through and the note lands where the user reads it. (`codex
/// exec` 0.171 shows no hook `systemMessage`, neither with `--json` nor without, so
/// the note is read back with `fable status`.)
#[test]
fn codex_an_always_ignoring_model_ends_at_fables_block_limit_with_a_note() {
    let Some(codex) = available() else { return };
    let o = ignoring_session(&codex, "close-limit", &[("FABLE_STOP_BLOCKS", "2")]);
    eprintln!("took {:?}", o.took);
    assert_eq!(o.rc, 0, "ended by fable, not the timeout: {}", o.debug());
    let blocks = hook_prompts(&o);
    assert_eq!(blocks.len(), 2, "{:#?}\n{}", o.texts(), o.debug());
    assert!(blocks.iter().all(|b| b.contains("sh ./check.sh")), "{blocks:#?}");
    assert_eq!(o.requests("main").len(), 4, "the third stop was let through");
    let told = status(&o);
    assert!(
        told.contains("after 2 blocks in a row") && told.contains("sh ./check.sh"),
        "the user is told what stayed unresolved: {told}"
    );
}

/// The Codex adapter's own backstop (`FABLE_STOP_BLOCK_LIMIT`), for a gate that would
/// block longer than it: it still ends the loop, and its note is kept for `fable status`
/// (Codex shows a hook's systemMessage nowhere).
#[test]
fn codex_the_adapters_block_limit_ends_a_loop_the_gate_would_continue() {
    let Some(codex) = available() else { return };
    let o = ignoring_session(
        &codex,
        "adapter-limit",
        &[("FABLE_STOP_BLOCKS", "50"), ("FABLE_STOP_BLOCK_LIMIT", "3")],
    );
    eprintln!("took {:?}", o.took);
    assert_eq!(o.rc, 0, "ended by fable, not the timeout: {}", o.debug());
    assert_eq!(hook_prompts(&o).len(), 3, "{:#?}\n{}", o.texts(), o.debug());
    assert_eq!(o.requests("main").len(), 5, "the fourth stop was let through");
    let told = status(&o);
    assert!(
        told.contains("let this stop through after 3 blocks in a row (FABLE_STOP_BLOCK_LIMIT=3"),
        "the user is told the gate gave up: {told}"
    );
}

/// The claim check on the final message: "All tests pass now." with no test run is
/// blocked; after a real run the same words are allowed.
#[test]
fn codex_an_unbacked_all_tests_pass_is_blocked_and_a_backed_one_allowed() {
    let Some(codex) = available() else { return };
    let o = CodexSession::new("claims")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .file("test_calc.py", PASSING)
        .text("All tests pass now.")
        .shell("python3 -m unittest")
        .text("All tests pass now.")
        .text("SHOULD NOT BE REACHED")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    let sent = o.texts();
    assert_eq!(sent.len(), 3, "one block, then allowed: {sent:#?}\n{}", o.debug());
    assert!(
        sent[1].contains("<hook_prompt") && sent[1].contains("no run of tests in this round shows it"),
        "{}",
        sent[1]
    );
    assert_eq!(o.last_message(), "All tests pass now.");
}

const PASSING: &str = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(1, 1)\n\n    def test_b(self):\n        self.assertTrue(True)\n\n\nif __name__ == '__main__':\n    unittest.main()\n";

/// A sub-agent's end fires SubagentStop only: its unbacked claim is sent back to the
/// sub-agent (`subagent-stop` hook prompt), its run is logged under its agent id, and the
/// main thread's stop is not blocked by it.
#[test]
fn codex_a_sub_agents_unbacked_claim_is_blocked_at_subagent_stop() {
    let Some(codex) = available() else { return };
    let o = CodexSession::new("subagent")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .file("test_calc.py", PASSING)
        .record(&["SubagentStop", "Stop"])
        .spawn_and_wait("Run the tests.")
        .sub_step(json!({"text": "All tests pass now."}))
        .sub_step(json!({"shell": "python3 -m unittest"}))
        .sub_step(json!({"text": "All tests pass now."}))
        .text("The sub-agent ran the tests.")
        .text("SHOULD NOT BE REACHED")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    assert_eq!(o.rc, 0, "{}", o.debug());
    let sub: Vec<String> = o.requests("sub").iter().map(|r| r["new_input"].to_string()).collect();
    assert!(sub.len() >= 3, "{sub:#?}\n{}", o.debug());
    assert!(
        sub[1].contains("<hook_prompt hook_run_id=\\\"subagent-stop:")
            && sub[1].contains("no run of tests in this round shows it"),
        "the sub-agent is re-invoked with the reason: {}",
        sub[1]
    );
    let sub_stops = o.hook_payloads("SubagentStop");
    let stops = o.hook_payloads("Stop");
    assert!(sub_stops.len() >= 2, "{sub_stops:?}");
    assert!(
        stops.iter().all(|p| p.get("agent_id").is_none()),
        "a sub-agent's end is no Stop: {stops:?}"
    );
    let run: Vec<Value> = o
        .evidence()
        .into_iter()
        .filter(|x| x["cmd"] == "python3 -m unittest")
        .collect();
    assert_eq!(run.len(), 1, "{run:#?}");
    assert_eq!(
        run[0]["agent"], sub_stops[0]["agent_id"],
        "the run carries the sub-agent's id: {run:?}"
    );
    assert_eq!(o.last_message(), "The sub-agent ran the tests.", "{}", o.debug());
}

/// Auto-compaction starts the context again (SessionStart `compact`): fable's context
/// reaches the model in the first request after the summary.
#[test]
fn codex_compaction_brings_fables_session_start_context_back() {
    let Some(codex) = available() else { return };
    let o = CodexSession::new("compact")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. a card\n")
        .record(&["SessionStart"])
        .arg("-c")
        .arg("model_auto_compact_token_limit=50")
        .side_text("SUMMARY OF THE WORK SO FAR")
        .shell("echo one")
        .shell("echo two")
        .text("All done.")
        .text("Stopping anyway.")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    let sources: Vec<Value> = o
        .hook_payloads("SessionStart")
        .iter()
        .map(|p| p["source"].clone())
        .collect();
    assert!(sources.contains(&json!("compact")), "{sources:?}\n{}", o.debug());
    let side_n = o.requests("side").first().map(|r| r["n"].as_u64().unwrap_or(0));
    let side_n = side_n.unwrap_or_else(|| panic!("no compaction request\n{}", o.debug()));
    let after = o
        .requests("main")
        .into_iter()
        .find(|r| r["n"].as_u64().unwrap_or(0) > side_n)
        .expect("a request after the compaction");
    let body = o.request_body(&after);
    let input: Vec<String> = body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .map(Value::to_string)
        .collect();
    let summary = input.iter().position(|i| i.contains("SUMMARY OF THE WORK SO FAR"));
    let summary = summary.unwrap_or_else(|| panic!("the history was not compacted: {input:#?}"));
    // The first context came before the prompt and went with the compacted history;
    // this one follows the summary: SessionStart `compact` ran fable-inject again.
    assert!(
        input[summary..]
            .iter()
            .any(|i| i.contains("\"developer\"") && i.contains("Context recovery")),
        "fable's context after the summary: {input:#?}"
    );
}

const RUN: &str = "python3 -m unittest";

/// Freshness under Codex: a pass logged before an `apply_patch` edit of a project file no
/// longer corroborates the card (the edit is logged from the patch's paths); running the
/// command again after the edit does.
#[test]
fn codex_a_pass_before_an_apply_patch_edit_blocks_and_a_rerun_allows() {
    let Some(codex) = available() else { return };
    let card = format!("- [x] 1. parser -- evidence: `{RUN}` -> 2 passed");
    let ledger = format!("printf '%s\\n' '# Ledger' '' '{card}' > .fable/LEDGER.md");
    let o = CodexSession::new("stale")
        .known_model()
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. parser\n")
        .file("test_calc.py", PASSING)
        .shell(RUN)
        .patch("*** Begin Patch\n*** Add File: parse.py\n+def parse(s):\n+    return s.split()\n*** End Patch\n")
        .shell(&ledger)
        .text("All done.")
        .shell(RUN)
        .text("Done after the rerun.")
        .text("SHOULD NOT BE REACHED")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    assert_eq!(o.rc, 0, "{}", o.debug());
    assert!(
        o.proj().join("parse.py").exists(),
        "the patch was applied: {}",
        o.debug()
    );
    let r = o.evidence();
    assert!(
        r.iter()
            .any(|x| x["file"].as_str().is_some_and(|f| f.ends_with("parse.py"))),
        "the apply_patch edit is logged: {r:#?}"
    );
    let sent = o.texts();
    assert_eq!(sent.len(), 6, "one block, then allowed: {sent:#?}\n{}", o.debug());
    assert!(
        sent[4].contains("<hook_prompt")
            && sent[4].contains(&format!("`{RUN}` passed at"))
            && sent[4].contains("parse.py"),
        "{}",
        sent[4]
    );
    assert_eq!(o.last_message(), "Done after the rerun.", "{}", o.debug());
}
/// The trust step, end to end: hooks installed without `--trust` are skipped by Codex
/// silently (no evidence, no gate), `fable doctor --host codex` reports them untrusted with
/// the fix; after `fable install --trust`, doctor is clean and the next session — without
/// `--dangerously-bypass-hook-trust` — is acted on at every step the script reaches.
#[test]
fn codex_untrusted_hooks_are_skipped_silently_until_install_trust_then_they_act() {
    let Some(codex) = available() else { return };
    let first = CodexSession::new("untrusted")
        .untrusted()
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. checks pass\n")
        .file("check.sh", "echo 12 passed\n")
        .shell("ls /nonexistent")
        .text("All done.")
        .text("SHOULD NOT BE REACHED")
        .run(&codex);
    eprintln!("took {:?}", first.took);
    assert_eq!(first.rc, 0, "{}", first.debug());
    assert!(
        first.evidence().is_empty(),
        "untrusted hooks ran: {:#?}",
        first.evidence()
    );
    // Card 1 is open: a running close guard would have blocked this stop.
    assert!(hook_prompts(&first).is_empty(), "an untrusted gate blocked");
    assert_eq!(first.last_message(), "All done.");
    let (doctor, _) = first.fable(&["doctor", "--host", "codex"]);
    assert!(
        doctor.contains("UNTRUSTED") && doctor.contains("skips them silently") && doctor.contains("--trust"),
        "{doctor}"
    );
    let bins = support::harness::bin_dir();
    let (trust, rc) = first.fable(&[
        "install",
        "--host",
        "codex",
        "--project",
        "--trust",
        "--bin-dir",
        bins.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{trust}");
    let (doctor, _) = first.fable(&["doctor", "--host", "codex"]);
    assert!(
        !doctor.contains("UNTRUSTED") && doctor.contains("no problems found"),
        "{doctor}"
    );

    let second = CodexSession::next_session(&first)
        .shell("ls /nonexistent")
        .shell(&close_card())
        .text("All done.")
        .shell("sh ./check.sh")
        .text("Done after running the check.")
        .run(&codex);
    eprintln!("took {:?}", second.took);
    assert_eq!(second.rc, 0, "{}", second.debug());
    let stream = std::fs::read_to_string(second.out.join("codex.stdout")).unwrap_or_default();
    assert!(!stream.contains("dangerously-bypass-hook-trust"), "no bypass: {stream}");
    let ev = second.evidence();
    assert!(
        ev.iter().any(|r| r["cmd"] == "ls /nonexistent" && r["exit"] == 2),
        "fable-evidence ran: {ev:#?}\n{}",
        second.debug()
    );
    assert_eq!(
        hook_prompts(&second).len(),
        1,
        "fable-close-guard ran: {:#?}",
        second.texts()
    );
    assert!(
        second
            .message_texts("developer")
            .iter()
            .any(|t| t.contains("Context recovery")),
        "fable-inject ran at SessionStart"
    );
    assert_eq!(second.last_message(), "Done after running the check.");
}
