//! `fable-spawn-guard` (PreToolUse: Agent | Task | Workflow): no fan-out without a design,
//! and no sub-agent on a stronger model than the session's.
//!
//! The model ceiling comes first and holds everywhere in an opted-in project (also while
//! PAUSED and in `MODE: light`), unless `FABLE_ESCALATION=on`. Tiers are ranked by keyword
//! (haiku < sonnet < opus < fable); an unknown model on either side is allowed. Then the
//! design gate, with the ancestor's exemptions in order: fork agents, light mode, small
//! spawns (under `FABLE_SPAWN_MIN_CHARS`, default 1500), PAUSED, open cards. Without any
//! of those, a big spawn is blocked — also when the ledger is missing or holds only closed
//! cards (stale closed cards must not unlock new fan-out).

use crate::discipline::ledger;
use crate::hook::{Answer, HookInput};
use crate::runner::{HookEnv, HookResult};
use crate::session_state::{load_model, model_dir, sanitize_sid};
use regex::Regex;
use serde_json::Value;
use std::sync::OnceLock;

pub const HOOK_NAME: &str = "fable-spawn-guard";
pub const DEFAULT_MIN_CHARS: u64 = 1500;

/// A model's rank by keyword: the highest keyword in the name wins; `None` when unknown.
pub fn tier(model: &str) -> Option<u8> {
    let m = model.to_ascii_lowercase();
    [("fable", 4), ("opus", 3), ("sonnet", 2), ("haiku", 1)]
        .iter()
        .find(|(k, _)| m.contains(k))
        .map(|(_, t)| *t)
}

/// Models a Workflow script asks for: every `model: '…'` / `model = "…"` literal.
pub fn script_models(script: &str) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r#"model\s*[:=]\s*['"]([^'"\n]+)['"]"#).expect("model pattern compiles"));
    re.captures_iter(script).map(|c| c[1].to_string()).collect()
}

/// The highest tier the call requests, and the model name that asks for it.
pub fn requested(input: &HookInput) -> Option<(u8, String)> {
    let mut names: Vec<String> = input.tool_input_str("model").map(str::to_string).into_iter().collect();
    if input.tool_name == "Workflow" {
        if let Some(s) = input.tool_input_str("script") {
            names.extend(script_models(s));
        }
    }
    names
        .into_iter()
        .filter_map(|n| tier(&n).map(|t| (t, n)))
        .max_by_key(|(t, _)| *t)
}

/// The ceiling decision: a block message when the call asks for more than the session has.
pub fn ceiling(session_model: Option<&str>, input: &HookInput) -> Option<String> {
    let have = tier(session_model?)?;
    let (want, name) = requested(input)?;
    (want > have).then(|| {
        format!(
            "fable: model ceiling — this spawn asks for `{name}`, above the session's model `{}`. Omit the model parameter (sub-agents inherit the session model) or do this card inline. Set FABLE_ESCALATION=on only if the user allows escalation.",
            session_model.unwrap_or_default()
        )
    })
}

/// True for fork agents: the agent type names a `fork` token (not any substring).
pub fn is_fork(tool_input: &Value) -> bool {
    ["subagent_type", "agentType", "agent_type"]
        .iter()
        .filter_map(|k| tool_input.get(*k).and_then(Value::as_str))
        .any(|t| {
            t.split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w.eq_ignore_ascii_case("fork"))
        })
}

/// Size of the spawn's instructions: prompt, script and description joined.
pub fn payload_chars(tool_input: &Value) -> usize {
    let parts: Vec<&str> = ["prompt", "script", "description"]
        .iter()
        .filter_map(|k| tool_input.get(*k).and_then(Value::as_str))
        .collect();
    parts.join("\n").chars().count()
}

pub const DESIGN_GATE: &str = "fable: design gate — a detailed sub-agent spawn needs a plan first.\n  1. Write docs/SPEC.md (goal, approach, decisions tagged [measured]/[inferred]/[design-gap]); probe load-bearing unknowns before designing on them.\n  2. Put open cards in .fable/LEDGER.md, each `- [ ] n. <card> — acceptance: `<command>`` with a machine-checkable test.\n`fable init` writes both from its templates when they are missing. Exempt: fork agents, short spawns, `MODE: light`, `PAUSED: <reason>`. Closed cards alone do not unlock new fan-out.";

pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    let ledger = ledger::load(&project.ledger_path());
    // A spawn that names no model inherits the session's: nothing to compare, nothing to read.
    let escalation = env.var("FABLE_ESCALATION").map(|v| v.trim().eq_ignore_ascii_case("on")) == Some(true);
    if !escalation && requested(input).is_some() {
        let sid = if input.session_id.is_empty() {
            env.var("CLAUDE_CODE_SESSION_ID").unwrap_or("")
        } else {
            &input.session_id
        };
        let get = |k: &str| env.var(k).map(str::to_string);
        let sid = sanitize_sid(sid);
        let dir = model_dir(get);
        let cached = sid.as_ref().zip(dir.as_ref()).and_then(|(s, d)| load_model(d, s));
        // No SessionStart model (Claude Code 2.1.x sends none at startup): the transcript's.
        let model = cached.or_else(|| {
            let m = crate::discipline::session_model::from_transcript_settled(
                std::path::Path::new(&input.transcript_path),
                crate::discipline::session_model::SETTLE,
            )?;
            if let (Some(s), Some(d)) = (&sid, &dir) {
                let _ = crate::session_state::save_model(d, s, &m);
            }
            Some(m)
        });
        if let Some(msg) = ceiling(model.as_deref(), input) {
            return Ok(Answer::block(msg));
        }
    }
    if is_fork(&input.tool_input) {
        return Ok(Answer::allow());
    }
    if ledger.as_ref().is_some_and(|l| l.is_light()) {
        return Ok(Answer::allow());
    }
    let min = env.var_u64("FABLE_SPAWN_MIN_CHARS", DEFAULT_MIN_CHARS);
    if (payload_chars(&input.tool_input) as u64) < min {
        return Ok(Answer::allow());
    }
    if let Some(l) = &ledger {
        if l.is_paused() || l.open_cards().next().is_some() {
            return Ok(Answer::allow());
        }
    }
    Ok(Answer::block(DESIGN_GATE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers() {
        assert_eq!(tier("claude-3-5-haiku"), Some(1));
        assert_eq!(tier("claude-opus-4-1"), Some(3));
        assert_eq!(tier("fable-5-opus"), Some(4));
        assert_eq!(tier("inherit"), None);
        assert_eq!(
            script_models("agent({model: 'fable'}); x = {model = \"haiku\"}"),
            vec!["fable", "haiku"]
        );
        assert!(is_fork(&serde_json::json!({"subagent_type": "fork"})));
        assert!(!is_fork(&serde_json::json!({"subagent_type": "forklift-expert"})));
    }
}
