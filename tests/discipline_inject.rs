//! fable-inject (SessionStart): state-sized context, tier and routing resolution, context
//! recovery, and the session-model cache. Ports the ancestor's test_inject.

mod common_discipline;
use common_discipline::*;
use serde_json::{json, Value};

fn start(p: &Proj, model: Option<&str>, env: &[(&str, &str)]) -> std::process::Output {
    let mut v =
        json!({"session_id": "inj-1", "transcript_path": "/t", "hook_event_name": "SessionStart", "source": "startup"});
    if let Some(m) = model {
        v["model"] = json!(m);
    }
    p.hook_env("fable-inject", v, env)
}

fn ctx(p: &Proj, model: Option<&str>, env: &[(&str, &str)]) -> String {
    let o = start(p, model, env);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    context(&o).unwrap_or_else(|| panic!("no context: {}", stdout(&o)))
}

fn active() -> Proj {
    let p = Proj::new();
    p.ledger(
        "- [ ] 1. parse the config — acceptance: `cargo test config`\n- [x] 2. scaffold -- evidence: 12 passed in CI\n",
    );
    p
}

#[test]
fn silent_without_fable_dir() {
    let p = Proj::bare();
    let o = start(&p, Some("opus"), &[]);
    assert_eq!(code(&o), 0);
    assert!(o.stdout.is_empty());
}

#[test]
fn fable_model_gets_throughput() {
    assert!(ctx(&active(), Some("fable-5"), &[]).contains("THROUGHPUT"));
}

#[test]
fn opus_gets_conservative() {
    let c = ctx(&active(), Some("claude-opus-4-1"), &[]);
    assert!(c.contains("CONSERVATIVE") && !c.contains("THROUGHPUT"));
}

#[test]
fn no_model_is_conservative_and_unknown() {
    let c = ctx(&active(), None, &[]);
    assert!(
        c.contains("CONSERVATIVE") && c.contains("not reported at session start"),
        "{c}"
    );
}

#[test]
fn env_profile_overrides_the_model_both_ways() {
    assert!(ctx(&active(), Some("opus"), &[("FABLE_MODE_PROFILE", "throughput")]).contains("THROUGHPUT"));
    assert!(ctx(&active(), Some("fable"), &[("FABLE_MODE_PROFILE", "conservative")]).contains("CONSERVATIVE"));
    assert!(
        ctx(&active(), Some("fable"), &[("FABLE_MODE_PROFILE", "auto")]).contains("THROUGHPUT"),
        "auto falls through"
    );
}

#[test]
fn context_recovery_lists_open_cards_with_a_count() {
    let p = Proj::new();
    let l: String = (1..=14).map(|i| format!("- [ ] {i}. open card {i}\n")).collect();
    p.ledger(&l);
    let c = ctx(&p, Some("opus"), &[]);
    assert!(c.contains("Context recovery") && c.contains("14 open card(s)"), "{c}");
    assert!(
        c.contains("open card 12") && !c.contains("open card 13") && c.contains("and 2 more"),
        "{c}"
    );
}

#[test]
fn answer_is_a_valid_session_start_envelope() {
    let o = start(&active(), Some("opus"), &[]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(v["hookSpecificOutput"]["additionalContext"].is_string());
}

#[test]
fn malformed_input_fails_open() {
    let p = active();
    let o = p.hook_raw("fable-inject", b"{\"session_id\": ", &[]);
    assert_eq!(code(&o), 0);
    assert!(o.stdout.is_empty() && stderr(&o).contains("(ignored)"));
}

#[test]
fn no_escalation_line_only_for_conservative_without_escalation() {
    assert!(ctx(&active(), Some("opus"), &[]).contains("do NOT defer hard steps"));
    assert!(!ctx(&active(), Some("fable"), &[]).contains("do NOT defer hard steps"));
    assert!(!ctx(&active(), Some("opus"), &[("FABLE_ESCALATION", "on")]).contains("do NOT defer hard steps"));
}

#[test]
fn habits_and_routing_in_both_tiers() {
    for m in ["opus", "fable"] {
        let c = ctx(&active(), Some(m), &[]);
        assert!(c.contains("Habits:") && c.contains("10. "), "{m}");
        assert!(c.contains("ROUTING") && c.contains("iron rules"), "{m}");
    }
}

#[test]
fn idle_is_one_minimal_line() {
    let p = Proj::new();
    p.ledger("- [x] 1. a -- evidence: 12 passed in CI\n");
    let c = ctx(&p, Some("opus"), &[]);
    assert_eq!(c.lines().count(), 1, "{c}");
    assert!(c.contains("idle") && c.contains("ceiling"));
}

#[test]
fn paused_is_a_one_liner() {
    let p = Proj::new();
    p.ledger("PAUSED: user moved me to the release notes\n- [ ] 1. open\n");
    let c = ctx(&p, Some("opus"), &[]);
    assert_eq!(c.lines().count(), 1, "{c}");
    assert!(c.contains("PAUSED") && c.contains("release notes") && c.contains("ceiling"));
}

#[test]
fn scope_and_act_habits_are_present() {
    let c = ctx(&active(), Some("opus"), &[]);
    assert!(c.contains("Triage multi-part requests"), "{c}");
    assert!(c.contains("when there is enough information, act"), "{c}");
}

#[test]
fn memory_is_project_scoped() {
    let c = ctx(&active(), Some("opus"), &[]);
    assert!(c.contains("Memory is project-scoped") && c.contains("do not carry assumptions across projects"));
}

#[test]
fn routing_by_env_and_ledger() {
    assert!(ctx(&active(), Some("opus"), &[("FABLE_ROUTING", "quality")]).contains("ROUTING quality"));
    assert!(ctx(&active(), Some("opus"), &[("FABLE_ROUTING", "frugal")]).contains("ROUTING frugal"));
    let p = Proj::new();
    p.ledger("ROUTING: frugal\n- [ ] 1. open\n");
    assert!(ctx(&p, Some("opus"), &[]).contains("ROUTING frugal"));
    assert!(
        ctx(&p, Some("opus"), &[("FABLE_ROUTING", "quality")]).contains("ROUTING quality"),
        "env beats ledger"
    );
}

#[test]
fn default_routing_is_balanced_with_the_invariant() {
    let c = ctx(&active(), Some("opus"), &[]);
    assert!(c.contains("ROUTING balanced"));
    assert!(c.contains("ALL verification stay on the session model"), "{c}");
    assert!(
        c.contains("only a card with machine-checkable acceptance may run cheaper"),
        "{c}"
    );
}

#[test]
fn ledger_tier_flips_to_throughput_and_env_beats_it() {
    let p = Proj::new();
    p.ledger("TIER: throughput\n- [ ] 1. open\n");
    assert!(ctx(&p, Some("opus"), &[]).contains("THROUGHPUT"));
    assert!(ctx(&p, Some("opus"), &[("FABLE_MODE_PROFILE", "conservative")]).contains("CONSERVATIVE"));
}

#[test]
fn conservative_multitasks_within_its_cap() {
    let c = ctx(&active(), Some("opus"), &[]);
    assert!(
        c.contains("at most 5 concurrent") && c.contains("multitask inside that cap"),
        "{c}"
    );
}

#[test]
fn starting_without_ledger_gets_the_full_text() {
    let p = Proj::new();
    let c = ctx(&p, Some("opus"), &[]);
    assert!(
        c.contains("Guards")
            && c.contains("MODE: light")
            && c.contains("REPLAY: on")
            && !c.contains("Context recovery"),
        "{c}"
    );
    assert!(c.contains("Verifiers get only the SPEC excerpt"));
}

#[test]
fn skill_pointer_is_absolute_when_found() {
    let p = active();
    let plugin = p.home.join("plugin root");
    std::fs::create_dir_all(plugin.join("templates")).unwrap();
    std::fs::write(plugin.join("templates/SKILL.md"), "---\nname: fable\n---\n").unwrap();
    let c = ctx(&p, Some("opus"), &[("CLAUDE_PLUGIN_ROOT", plugin.to_str().unwrap())]);
    assert!(c.contains(&format!("{}/templates/SKILL.md", plugin.display())), "{c}");
}

#[test]
fn caches_the_model_and_answers_fast() {
    let p = active();
    let t = std::time::Instant::now();
    start(&p, Some("claude-opus-4-1"), &[]);
    assert!(t.elapsed() < std::time::Duration::from_secs(2));
    let cached = std::fs::read_to_string(p.state_home().join("fable/sessions/inj-1")).unwrap();
    assert_eq!(cached, "claude-opus-4-1");
    // A resume without a model keeps the cached one.
    start(&p, None, &[]);
    assert_eq!(
        std::fs::read_to_string(p.state_home().join("fable/sessions/inj-1")).unwrap(),
        "claude-opus-4-1"
    );
}

#[test]
fn resume_without_a_model_uses_the_cached_one() {
    let p = active();
    start(&p, Some("fable-5"), &[]);
    let c = ctx(&p, None, &[]);
    assert!(c.contains("THROUGHPUT") && c.contains("Session model: fable-5"), "{c}");
}

/// Issue 14: the context names only what exists in this project and what holds for this
/// session (no `docs/SPEC.md` to resume from in a fresh project; "no stronger model" only
/// on a session that has none above it).
#[test]
fn context_says_only_what_holds_for_this_project_and_session() {
    let p = active();
    let fresh = ctx(&p, Some("claude-sonnet-4-5"), &[]);
    assert!(!fresh.contains("Resume from docs/"), "{fresh}");
    assert!(fresh.contains("Resume from the open cards above"), "{fresh}");
    assert!(fresh.contains("no docs/SPEC.md yet"), "{fresh}");
    assert!(!fresh.contains("this project's docs/PROGRESS.md"), "{fresh}");
    assert!(
        !fresh.contains("No stronger model is available"),
        "a sonnet session has one: {fresh}"
    );
    assert!(fresh.contains("Escalation to a bigger model is off"), "{fresh}");
    p.write("docs/SPEC.md", "# Spec\n");
    p.write("docs/PROGRESS.md", "# Progress\n");
    let full = ctx(&p, Some("claude-opus-4-1"), &[]);
    assert!(full.contains("Resume from docs/SPEC.md and docs/PROGRESS.md"), "{full}");
    assert!(
        full.contains("this project's docs/PROGRESS.md") && !full.contains("no docs/SPEC.md yet"),
        "{full}"
    );
    assert!(full.contains("No stronger model is available"), "{full}");
}

/// Card text comes from the repository: shown to the model without control characters.
#[test]
fn card_titles_reach_the_model_without_control_characters() {
    let p = Proj::new();
    p.ledger("- [ ] 1. fix \u{1b}[2Jthe parser\u{7}\n");
    let c = ctx(&p, Some("claude-opus-4-1"), &[]);
    assert!(c.contains("fix  [2Jthe parser"), "{c}");
    assert!(!c.contains('\u{1b}') && !c.contains('\u{7}'), "{c:?}");
}

/// Issue 30: the next session is shown each open card's newest `-- tried:` note — the
/// lesson a restart exists to carry — on one line, capped, marked as ledger text; a
/// hollow note, or one on a closed card, is not shown.
#[test]
fn open_cards_carry_their_newest_tried_note() {
    let p = Proj::new();
    let long = "y".repeat(900);
    p.ledger(&format!(
        "- [ ] 1. fix the parser\n  -- tried: an older note about the cache layer\n  -- tried: lexer rewrite (same error); unknown: the fixture encoding\n- [ ] 2. docs\n  -- tried: x\n- [ ] 3. long one\n  -- tried: {long}\n- [x] 4. lexer -- evidence: `cargo test lexer` -> 4 passed\n  -- tried: closed card note here\n"
    ));
    let c = ctx(&p, None, &[]);
    let lines: Vec<&str> = c.lines().collect();
    let at = lines.iter().position(|l| l.contains("fix the parser")).unwrap();
    let next = lines[at + 1];
    assert!(
        next.contains("tried") && next.contains("text from the ledger") && next.contains("fixture encoding"),
        "{next}"
    );
    assert!(!c.contains("older note about the cache"), "only the newest: {c}");
    let docs = lines.iter().position(|l| l.contains("2. docs")).unwrap();
    assert!(!lines[docs + 1].contains("tried"), "a hollow note is not shown: {c}");
    let long_line = lines.iter().find(|l| l.contains("yyyy")).unwrap();
    assert!(
        long_line.chars().count() < 400 && long_line.ends_with("…\""),
        "{long_line}"
    );
    assert!(!c.contains("closed card note"), "{c}");
}
