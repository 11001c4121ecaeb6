//! The Codex harness itself (src/harness/codex_*.rs), under the real Codex CLI with only
//! the recorder hook: what every Codex e2e test trusts — the session sees only loopback,
//! shell calls run for real, each hook payload is stored with the shape
//! the captured Codex protocol shows (docs/codex.md), sub-agents take their own script steps, and
//! auto-compaction is answered from the side queue.

mod support;
use serde_json::{json, Value};
use support::codex::{available, CodexSession};

const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];

/// The exit code the rollout holds for `call` (`item_completed` of the
/// `CommandExecution`): where a Codex hook must read it.
fn rollout_exit(transcript: &str, call: &str) -> Option<Value> {
    std::fs::read_to_string(transcript)
        .ok()?
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| {
            l["payload"]["type"] == "item_completed"
                && l["payload"]["item"]["type"] == "CommandExecution"
                && l["payload"]["item"]["id"] == call
        })
        .map(|l| l["payload"]["item"]["exit_code"].clone())
}

#[test]
fn codex_session_sees_only_loopback_and_every_hook_payload_is_recorded() {
    let Some(codex) = available() else { return };
    let o = CodexSession::new("harness")
        .without_fable()
        .record(EVENTS)
        .shell("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' > nets.txt")
        .shell("ls /nonexistent")
        .spawn_and_wait("SUBTASK: write sub.txt")
        .sub_step(json!({"shell": "echo sub > sub.txt"}))
        .sub_step(json!({"text": "sub done"}))
        .text("All done.")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    assert_eq!(o.rc, 0, "{}", o.debug());
    assert_eq!(o.last_message(), "All done.", "{}", o.debug());
    let isolation = std::fs::read_to_string(o.out.join("isolation")).unwrap();
    if isolation.starts_with("network namespace") {
        let nets = std::fs::read_to_string(o.proj().join("nets.txt")).unwrap();
        assert_eq!(nets.trim(), "lo", "a private namespace holds only loopback");
    }
    assert_eq!(std::fs::read_to_string(o.proj().join("sub.txt")).unwrap().trim(), "sub");

    // The shell call as the hooks see it: tool Bash, {command} only, output as a string.
    let post: Vec<Value> = o
        .hook_payloads("PostToolUse")
        .into_iter()
        .filter(|p| p["tool_name"] == "Bash")
        .collect();
    let ls = post
        .iter()
        .find(|p| p["tool_input"] == json!({"command": "ls /nonexistent"}))
        .unwrap_or_else(|| panic!("no PostToolUse for ls: {post:#?}\n{}", o.debug()));
    assert!(ls["tool_response"].as_str().unwrap().contains("No such file"), "{ls}");
    let transcript = ls["transcript_path"].as_str().unwrap();
    assert_eq!(
        rollout_exit(transcript, ls["tool_use_id"].as_str().unwrap()),
        Some(json!(2)),
        "the rollout holds the failing call's exit code"
    );
    for p in o.hook_payloads("PreToolUse").iter().chain(&post) {
        for k in [
            "session_id",
            "turn_id",
            "transcript_path",
            "cwd",
            "model",
            "tool_use_id",
        ] {
            assert!(p.get(k).is_some(), "{k} missing: {p}");
        }
    }
    let start = o.hook_payloads("SessionStart");
    assert_eq!(start.len(), 1, "{start:?}");
    assert_eq!(start[0]["source"], "startup");
    let stop = o.hook_payloads("Stop");
    assert_eq!(stop.len(), 1, "the sub-agent's end is no Stop: {stop:?}");
    assert_eq!(stop[0]["last_assistant_message"], "All done.");
    let sub_stop = o.hook_payloads("SubagentStop");
    assert_eq!(sub_stop.len(), 1, "{sub_stop:?}\n{}", o.debug());
    assert_eq!(sub_stop[0]["last_assistant_message"], "sub done");
    assert!(sub_stop[0]["agent_id"].is_string());
    assert!(post
        .iter()
        .any(|p| p["tool_input"]["command"] == "echo sub > sub.txt" && p["agent_id"].is_string()));

    // The script's queues: the main thread took its steps, the sub-agent its own.
    let steps: Vec<Value> = o.summary["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["step"].clone())
        .collect();
    for want in [
        json!(0),
        json!(1),
        json!(2),
        json!(3),
        json!(4),
        json!("sub0"),
        json!("sub1"),
    ] {
        assert!(steps.contains(&want), "step {want} was answered: {steps:?}");
    }
    let ls_out = &o.requests("main")[2]["new_input"];
    assert!(ls_out.to_string().contains("Process exited with code 2"), "{ls_out}");
}

#[test]
fn codex_auto_compaction_is_answered_from_the_side_queue_and_starts_a_compact_session() {
    let Some(codex) = available() else { return };
    let o = CodexSession::new("harness-compact")
        .without_fable()
        .record(EVENTS)
        .arg("-c")
        .arg("model_auto_compact_token_limit=50")
        .side_text("SUMMARY OF THE WORK SO FAR")
        .shell("echo one")
        .shell("echo two")
        .text("All done.")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    assert_eq!(o.rc, 0, "{}", o.debug());
    let sources: Vec<Value> = o
        .hook_payloads("SessionStart")
        .iter()
        .map(|p| p["source"].clone())
        .collect();
    assert!(sources.contains(&json!("compact")), "{sources:?}\n{}", o.debug());
    assert!(!o.requests("side").is_empty(), "the summary request is a side request");
    assert!(!o.hook_payloads("PreCompact").is_empty());
}

/// A host fact fable's edit log depends on (Codex 0.171): a patch the model runs through
/// the shell (`apply_patch <<'EOF' …`) is intercepted and applied by Codex, and fires
/// PreToolUse as `Bash` but **no PostToolUse**, so no PostToolUse hook can log that edit;
/// the `apply_patch` tool fires PostToolUse as `apply_patch` with `{"command": patch}`.
/// If the first half starts failing, Codex reports shell-run patches now.
#[test]
fn codex_a_shell_run_patch_fires_no_post_tool_use_and_the_patch_tool_does() {
    let Some(codex) = available() else { return };
    let patch = |f: &str| format!("*** Begin Patch\n*** Add File: {f}\n+hi\n*** End Patch\n");
    let o = CodexSession::new("harness-patch")
        .without_fable()
        .known_model()
        .record(&["PreToolUse", "PostToolUse"])
        .shell(&format!("apply_patch <<'EOF'\n{}EOF\n", patch("by-shell.txt")))
        .patch(&patch("by-tool.txt"))
        .text("All done.")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    assert_eq!(o.rc, 0, "{}", o.debug());
    assert!(o.proj().join("by-shell.txt").exists() && o.proj().join("by-tool.txt").exists());
    let pre = o.hook_payloads("PreToolUse");
    let post = o.hook_payloads("PostToolUse");
    assert!(
        pre.iter().any(|p| p["tool_name"] == "Bash"
            && p["tool_input"]["command"]
                .as_str()
                .unwrap_or("")
                .contains("by-shell.txt")),
        "{pre:#?}"
    );
    assert!(
        !post.iter().any(|p| p.to_string().contains("by-shell.txt")),
        "Codex now fires PostToolUse for a shell-run patch: {post:#?}"
    );
    assert!(
        post.iter().any(|p| p["tool_name"] == "apply_patch"
            && p["tool_input"]["command"]
                .as_str()
                .unwrap_or("")
                .contains("by-tool.txt")),
        "{post:#?}"
    );
}
