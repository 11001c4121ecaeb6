//! The offline harness itself (src/harness/), under the real Claude Code CLI: what every
//! other e2e test trusts — the session is isolated, sub-agents take their own script
//! steps, the hook recorder stores each payload, and a kept session reuses the project.

mod support;
use fable::harness::run::{run, Spec};
use serde_json::{json, Value};
use support::harness::available;

fn spec(claude: &std::path::Path, script: Value, name: &str) -> (Spec, std::path::PathBuf) {
    let work = tempfile::Builder::new()
        .prefix(&format!("fable-e2e-{name}-"))
        .tempdir()
        .unwrap()
        .keep();
    let out = work.join("out");
    (Spec::new(claude, script, &out), out)
}

#[test]
fn the_session_sees_only_loopback_sub_agents_take_their_own_steps_and_hooks_are_recorded() {
    let Some(claude) = available() else { return };
    let script = json!({
        "steps": [
            {"tool_use": {"name": "Bash", "input": {"command": "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' > nets.txt", "description": "d"}}},
            {"tool_use": {"name": "Agent", "input": {"description": "sub", "prompt": "SUBTASK-7: write the file.",
                                                     "subagent_type": "general-purpose", "run_in_background": false}}},
            {"text": "All done."}],
        "default": {"text": "Nothing more to do."},
        "sub_marker": "SUBTASK-7",
        "sub_steps": [
            {"tool_use": {"name": "Bash", "input": {"command": "echo sub > sub.txt", "description": "d"}}},
            {"text": "sub done"}]
    });
    let (mut s, out) = spec(&claude, script, "harness");
    s.record_hooks = vec!["PostToolUse".into(), "Stop".into()];
    let ran = run(&s).expect("the harness runs");
    assert_eq!(
        ran.rc,
        0,
        "{}",
        std::fs::read_to_string(out.join("claude.stderr")).unwrap_or_default()
    );

    let isolation = std::fs::read_to_string(out.join("isolation")).unwrap();
    let nets = std::fs::read_to_string(out.join("proj/nets.txt")).unwrap();
    if isolation.starts_with("network namespace") {
        assert_eq!(nets.trim(), "lo", "a private namespace holds only loopback (/proc/net is the reader's namespace; /sys/class/net is the mounter's)");
    }
    assert_eq!(std::fs::read_to_string(out.join("proj/sub.txt")).unwrap().trim(), "sub");

    let steps: Vec<Value> = ran.summary["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "main")
        .map(|r| r["step"].clone())
        .collect();
    for want in [json!(0), json!(1), json!(2), json!("sub0"), json!("sub1")] {
        assert!(steps.contains(&want), "step {want} was answered: {steps:?}");
    }
    let hooks = ran.summary["hooks"].as_array().unwrap();
    let commands: Vec<&str> = hooks
        .iter()
        .filter(|h| h["event"] == "PostToolUse")
        .filter_map(|h| h["payload"]["tool_input"]["command"].as_str())
        .collect();
    assert!(
        commands.contains(&"echo sub > sub.txt"),
        "the sub-agent's tool call was recorded: {commands:?}"
    );
    assert!(
        hooks.iter().any(|h| h["event"] == "Stop"),
        "the Stop payload was recorded: {hooks:#?}"
    );
}

#[test]
fn a_kept_session_reuses_project_and_home() {
    let Some(claude) = available() else { return };
    let first = json!({"steps": [{"tool_use": {"name": "Bash", "input": {"command": "echo one > note.txt", "description": "d"}}}]});
    let (s, out) = spec(&claude, first, "harness-keep");
    assert_eq!(run(&s).expect("first session").rc, 0);
    let second = json!({"steps": [{"tool_use": {"name": "Bash", "input": {"command": "cat note.txt > seen.txt", "description": "d"}}}]});
    let mut s2 = Spec::new(&claude, second, &out);
    s2.keep = true;
    assert_eq!(run(&s2).expect("second session").rc, 0);
    assert_eq!(
        std::fs::read_to_string(out.join("proj/seen.txt")).unwrap().trim(),
        "one"
    );
    let transcripts = std::fs::read_dir(out.join("home/.claude/projects"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .filter(|f| f.path().extension().is_some_and(|x| x == "jsonl"))
        .count();
    assert!(
        transcripts >= 2,
        "both sessions' transcripts are in the kept HOME: {transcripts}"
    );
}
