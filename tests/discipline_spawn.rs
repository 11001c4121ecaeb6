//! fable-spawn-guard (PreToolUse: Agent | Task | Workflow): model ceiling, then the design
//! gate with its exemptions. Ports test_guards (Spawn, Ceiling, Paused, Floor) and
//! test_discipline (light mode) from the ancestor.

mod common_discipline;
use common_discipline::*;
use serde_json::{json, Value};

const SID: &str = "spawn-sess";

fn big() -> String {
    "Implement the card described in docs/SPEC.md section 3. ".repeat(40)
}

fn agent(input: Value) -> Value {
    json!({"session_id": SID, "hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_input": input, "tool_use_id": "t"})
}

fn workflow(script: &str) -> Value {
    json!({"session_id": SID, "hook_event_name": "PreToolUse", "tool_name": "Workflow", "tool_input": {"script": script}})
}

/// Caches the session model the way SessionStart does.
fn session(p: &Proj, model: &str) {
    let o = p.hook(
        "fable-inject",
        json!({"session_id": SID, "hook_event_name": "SessionStart", "source": "startup", "model": model}),
    );
    assert_eq!(code(&o), 0);
}

fn spawn(p: &Proj, payload: Value) -> std::process::Output {
    p.hook("fable-spawn-guard", payload)
}

// ---- ancestor test_guards: Spawn (7) ----

#[test]
fn no_fable_dir_allows() {
    let p = Proj::bare();
    assert_eq!(code(&spawn(&p, agent(json!({"prompt": big()})))), 0);
}

#[test]
fn opted_in_without_ledger_blocks_big_spawns() {
    let p = Proj::new();
    let o = spawn(&p, agent(json!({"prompt": big(), "description": "x"})));
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(
        e.contains("docs/SPEC.md") && e.contains(".fable/LEDGER.md") && e.contains("acceptance"),
        "{e}"
    );
}

#[test]
fn open_cards_allow_a_big_workflow() {
    let p = Proj::new();
    p.ledger("- [ ] 1. card — acceptance: `make test`\n");
    assert_eq!(code(&spawn(&p, workflow(&big()))), 0);
}

#[test]
fn small_spawns_are_exempt() {
    let p = Proj::new();
    assert_eq!(
        code(&spawn(
            &p,
            agent(json!({"prompt": "find the config loader", "description": "search"}))
        )),
        0
    );
    let o = p.hook_env(
        "fable-spawn-guard",
        agent(json!({"prompt": "x".repeat(200)})),
        &[("FABLE_SPAWN_MIN_CHARS", "100")],
    );
    assert_eq!(code(&o), 2, "threshold from env");
    let o = p.hook_env(
        "fable-spawn-guard",
        agent(json!({"prompt": "x".repeat(200)})),
        &[("FABLE_SPAWN_MIN_CHARS", "lots")],
    );
    assert_eq!(code(&o), 0, "a non-number falls back to 1500");
}

#[test]
fn fork_agents_are_exempt() {
    let p = Proj::new();
    for key in ["subagent_type", "agentType", "agent_type"] {
        assert_eq!(
            code(&spawn(&p, agent(json!({"prompt": big(), key: "fork"})))),
            0,
            "{key}"
        );
    }
    assert_eq!(
        code(&spawn(
            &p,
            agent(json!({"prompt": big(), "subagent_type": "forklift-planner"}))
        )),
        2
    );
}

#[test]
fn malformed_stdin_fails_open() {
    let p = Proj::new();
    let o = p.hook_raw("fable-spawn-guard", b"not json at all", &[]);
    assert_eq!(code(&o), 0);
    assert!(stderr(&o).contains("(ignored)"));
}

#[test]
fn fable_dir_above_a_git_root_does_not_arm_the_inner_project() {
    let p = Proj::new();
    let inner = p.root.join("vendor/lib");
    std::fs::create_dir_all(inner.join(".git")).unwrap();
    let mut payload = agent(json!({"prompt": big()}));
    payload["cwd"] = json!(inner.to_string_lossy());
    assert_eq!(code(&spawn(&p, payload)), 0);
}

// ---- ancestor test_guards: Ceiling (8) ----

#[test]
fn opus_session_spawning_fable_is_blocked() {
    let p = Proj::new();
    p.ledger("- [ ] 1. card — acceptance: `make`\n");
    session(&p, "claude-opus-4-1");
    let o = spawn(&p, agent(json!({"prompt": "small", "model": "fable"})));
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("model ceiling") && stderr(&o).contains("Omit the model"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn same_or_lower_tier_is_allowed() {
    let p = Proj::new();
    p.ledger("- [ ] 1. card\n");
    session(&p, "claude-opus-4-1");
    for m in ["sonnet", "claude-haiku-4-5", "opus"] {
        assert_eq!(
            code(&spawn(&p, agent(json!({"prompt": "small", "model": m})))),
            0,
            "{m}"
        );
    }
}

#[test]
fn inherit_is_allowed() {
    let p = Proj::new();
    session(&p, "claude-haiku-4-5");
    assert_eq!(
        code(&spawn(&p, agent(json!({"prompt": "small", "model": "inherit"})))),
        0
    );
}

#[test]
fn escalation_on_disables_the_ceiling() {
    let p = Proj::new();
    session(&p, "sonnet");
    let o = p.hook_env(
        "fable-spawn-guard",
        agent(json!({"prompt": "small", "model": "opus"})),
        &[("FABLE_ESCALATION", "on")],
    );
    assert_eq!(code(&o), 0);
}

#[test]
fn unknown_session_model_fails_open() {
    let p = Proj::new();
    assert_eq!(
        code(&spawn(&p, agent(json!({"prompt": "small", "model": "fable"})))),
        0,
        "nothing cached"
    );
    session(&p, "some-new-model-9");
    assert_eq!(
        code(&spawn(&p, agent(json!({"prompt": "small", "model": "fable"})))),
        0,
        "unranked session model"
    );
}

#[test]
fn workflow_model_literal_is_checked() {
    let p = Proj::new();
    session(&p, "claude-opus-4-1");
    let o = spawn(&p, workflow("const a = agent({ model: 'fable', prompt: 'x' })"));
    assert_eq!(code(&o), 2);
    let o = spawn(&p, workflow("run({model = \"haiku\"}); run({model: \"fable-5\"})"));
    assert_eq!(code(&o), 2, "the highest literal counts");
}

#[test]
fn prose_mentioning_fable_is_not_a_model() {
    let p = Proj::new();
    session(&p, "claude-opus-4-1");
    assert_eq!(
        code(&spawn(&p, workflow("// uses fable-mode discipline\nrun('check')"))),
        0
    );
}

#[test]
fn ceiling_is_inert_without_fable_dir() {
    let p = Proj::bare();
    session(&p, "haiku");
    assert_eq!(code(&spawn(&p, agent(json!({"prompt": "small", "model": "opus"})))), 0);
}

// ---- ancestor test_guards: Paused (2) and Floor (2) ----

#[test]
fn paused_turns_the_design_gate_off() {
    let p = Proj::new();
    p.ledger("PAUSED: user asked for an unrelated investigation\n");
    assert_eq!(code(&spawn(&p, agent(json!({"prompt": big()})))), 0);
}

#[test]
fn paused_keeps_the_ceiling() {
    let p = Proj::new();
    p.ledger("PAUSED: user asked for an unrelated investigation\n");
    session(&p, "sonnet");
    assert_eq!(code(&spawn(&p, agent(json!({"prompt": "small", "model": "opus"})))), 2);
}

#[test]
fn closed_cards_alone_do_not_unlock_fan_out() {
    let p = Proj::new();
    p.ledger("- [x] 1. a -- evidence: 12 passed in CI\n- [~] 2. b -- deferred: later\n");
    assert_eq!(code(&spawn(&p, agent(json!({"prompt": big()})))), 2);
}

#[test]
fn bare_paused_colon_is_ignored() {
    let p = Proj::new();
    p.ledger("PAUSED:\n");
    assert_eq!(code(&spawn(&p, agent(json!({"prompt": big()})))), 2);
}

// ---- ancestor test_discipline: light mode (2) ----

#[test]
fn light_mode_turns_the_design_gate_off() {
    let p = Proj::new();
    p.ledger("MODE: light\n");
    assert_eq!(code(&spawn(&p, agent(json!({"prompt": big()})))), 0);
}

#[test]
fn light_mode_keeps_the_ceiling() {
    let p = Proj::new();
    p.ledger("MODE: light\n");
    session(&p, "claude-sonnet-4-5");
    let o = spawn(&p, agent(json!({"prompt": "small", "model": "opus"})));
    assert_eq!(code(&o), 2);
}

// ---- the model cache (weakness §6.4 / ancestor §1.2 point 1) ----

#[test]
fn session_model_is_cached_privately_even_without_fable_dir() {
    let p = Proj::bare();
    session(&p, "claude-sonnet-4-5");
    let dir = p.state_home().join("fable/sessions");
    assert_eq!(std::fs::read_to_string(dir.join(SID)).unwrap(), "claude-sonnet-4-5");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    // The project opts in mid-session: the ceiling applies from the cache.
    std::fs::create_dir_all(p.root.join(".fable")).unwrap();
    assert_eq!(code(&spawn(&p, agent(json!({"prompt": "small", "model": "opus"})))), 2);
}

#[test]
fn hostile_session_ids_stay_inside_the_cache() {
    let p = Proj::bare();
    let o = p.hook("fable-inject", json!({"session_id": "../../../x", "model": "opus"}));
    assert_eq!(code(&o), 0);
    assert!(p.state_home().join("fable/sessions/x").exists());
}

/// Issue 11 item 8: Claude Code 2.1.x sends no model at startup; the ceiling then takes
/// the session's model from the transcript (the newest main-thread assistant entry).
#[test]
fn the_ceiling_reads_the_session_model_from_the_transcript() {
    let p = Proj::new();
    p.ledger("- [ ] 1. card — acceptance: `make`\n");
    let o = p.hook(
        "fable-inject",
        json!({"session_id": SID, "hook_event_name": "SessionStart", "source": "startup"}),
    );
    assert_eq!(code(&o), 0);
    let t = p.write(
        "transcript.jsonl",
        concat!(
            r#"{"type":"assistant","isSidechain":false,"message":{"model":"claude-sonnet-4-5","content":[]}}"#,
            "\n",
            r#"{"type":"assistant","isSidechain":true,"message":{"model":"claude-opus-4-1","content":[]}}"#,
            "\n"
        ),
    );
    let with_transcript = |model: &str| {
        let mut v = agent(json!({"prompt": "small", "model": model}));
        v["transcript_path"] = json!(t.to_string_lossy());
        spawn(&p, v)
    };
    let o = with_transcript("opus");
    assert_eq!(code(&o), 2, "a sonnet session may not spawn opus: {}", stderr(&o));
    assert!(stderr(&o).contains("claude-sonnet-4-5"), "{}", stderr(&o));
    assert_eq!(code(&with_transcript("haiku")), 0);
    // Cached: later spawns need no transcript.
    assert_eq!(code(&spawn(&p, agent(json!({"prompt": "small", "model": "opus"})))), 2);
}
