//! `fable-fail-streak` (PostToolUse + PostToolUseFailure, Bash): stop the grind.
//!
//! Claude Code reports a failed Bash call only as PostToolUseFailure and a successful one
//! as PostToolUse without an exit code, so the event decides (other hosts' explicit exit
//! codes are read through [`crate::evidence::outcome`]). Read-only looks (`cat`, `ls`,
//! `git status`, …: [`crate::discipline::read_only`]) neither count nor reset; any other
//! failure counts, and any other success (a build, an edit, the failing command passing)
//! resets the streak. At 3
//! consecutive failures the model gets the attribution ladder as advisory context; from 6
//! on, every further failure answers exit 2 with the reset demand. A new substantive
//! `-- tried:` note on a card resets the streak — the distilled lesson is the way out.
//! PAUSED disarms the guard; `MODE: light` keeps it.

use crate::discipline::ledger::{self, Ledger};
use crate::evidence::{now_ts, outcome, record_from};
use crate::hook::{Answer, HookInput};
use crate::runner::{HookEnv, HookResult};
use crate::session_state::{sanitize_sid, update_streak};

pub const HOOK_NAME: &str = "fable-fail-streak";
pub const ADVISE_AT: u32 = 3;
pub const HARD_AT: u32 = 6;

pub const LADDER: &str = "fable: 3 commands in a row have failed. Before the next attempt, attribute the failure — walk the ladder from the bottom:\n  1. HARNESS: is the check itself right? (wrong command, wrong folder, stale fixture, flaky test, a timeout too short)\n  2. DEPLOYMENT: is the code you changed the code that ran? (rebuild, reinstall, restart, bust caches, print a version marker)\n  3. PRODUCT: only then suspect the logic — and fix the class of bug with an invariant, not this one instance.";

pub const RESET_DEMAND: &str = "fable: 6+ consecutive failures — stop retrying. Insight has not worked in this context.\n  1. Write into the current card: `-- tried: <hypotheses ruled out, dead ends, the one thing still unknown>`.\n  2. Restart the card from a fresh context that reads only docs/SPEC.md and .fable/LEDGER.md.\nA new `-- tried:` note (or a passing command) resets this guard.";

/// A stable 64-bit fingerprint (FNV-1a) of a note, independent of the Rust version.
fn fingerprint(s: &str) -> u64 {
    crate::fingerprint::fnv1a(crate::discipline::ledger::normalize(s).as_bytes())
}

/// Fingerprints of the ledger's substantive `tried:` notes, sorted.
pub fn tried_set(ledger: &Ledger) -> Vec<u64> {
    let mut v: Vec<u64> = ledger.tried_notes().map(|n| fingerprint(&n.body)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// What one Bash result means for the streak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Success,
    Failure,
    /// Interrupted by the user, or not a Bash result: neither counts nor resets.
    Neutral,
}

pub fn classify(input: &HookInput) -> Event {
    if !input.tool_name.is_empty() && input.tool_name != "Bash" {
        return Event::Neutral;
    }
    if input.is_interrupt {
        return Event::Neutral;
    }
    match input.hook_event_name.as_str() {
        "PostToolUseFailure" => Event::Failure,
        _ => {
            let (_, ok, _) = outcome(input);
            if ok {
                Event::Success
            } else {
                Event::Failure
            }
        }
    }
}

/// The level reached after a failure: the streak count decides the answer.
pub fn level(streak: u32) -> Option<&'static str> {
    if streak >= HARD_AT {
        Some(RESET_DEMAND)
    } else if streak == ADVISE_AT {
        Some(LADDER)
    } else {
        None
    }
}

/// Applies one event to the state; returns the new streak.
pub fn step(state: &mut crate::session_state::StreakState, ev: Event, tried_now: Vec<u64>) -> u32 {
    match ev {
        Event::Success => {
            state.streak = 0;
            state.since.clear();
        }
        Event::Failure => {
            if tried_now.iter().any(|t| !state.tried.contains(t)) {
                state.streak = 0;
            }
            if state.streak == 0 {
                state.since = now_ts();
            }
            state.streak = state.streak.saturating_add(1);
        }
        Event::Neutral => {}
    }
    state.tried = tried_now;
    state.streak
}

pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let sid_raw = if input.session_id.is_empty() {
        env.var("CLAUDE_CODE_SESSION_ID").unwrap_or("")
    } else {
        &input.session_id
    };
    let Some(sid) = sanitize_sid(sid_raw) else {
        return Ok(Answer::allow());
    };
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    // A call delivered twice (the hook registered in two scopes) counts once.
    if !crate::evidence::dedupe::first_call(&project.fable_dir, HOOK_NAME, &input.tool_use_id, &input.raw) {
        return Ok(Answer::allow());
    }
    let ledger = ledger::load(&project.ledger_path()).unwrap_or_default();
    if ledger.is_paused() {
        return Ok(Answer::allow());
    }
    let ev = classify(input);
    if ev == Event::Neutral {
        return Ok(Answer::allow());
    }
    // A look (`cat`, `ls`, `git status`, …) neither counts nor resets: only what changes
    // something moves the streak, so "fail, cat, fail, cat …" still reaches the demand.
    let looks = input.command().is_some_and(crate::discipline::read_only::is_read_only);
    let counted = if looks { Event::Neutral } else { ev };
    let tried = tried_set(&ledger);
    let streak = update_streak(&project.fable_dir, &sid, |s| step(s, counted, tried))?;
    if ev != Event::Failure {
        return Ok(Answer::allow());
    }
    if looks {
        // A failed look still shows a matching standing rule, but carries no streak text.
        let rule = record_from(input, Some(sid_raw), now_ts()).and_then(|rec| {
            crate::learn::rules_inject::failure_context(&project, &rec, |k| env.var(k).map(str::to_string))
        });
        let event = if input.hook_event_name.is_empty() {
            "PostToolUseFailure"
        } else {
            &input.hook_event_name
        };
        return Ok(rule.map_or_else(Answer::allow, |r| Answer::context(event, r)));
    }
    // The same record the logger writes (redaction is needle-gated, so it costs nothing here).
    let rule = record_from(input, Some(sid_raw), now_ts()).and_then(|rec| {
        crate::learn::rules_inject::failure_context(&project, &rec, |k| env.var(k).map(str::to_string))
    });
    let event = if input.hook_event_name.is_empty() {
        "PostToolUseFailure"
    } else {
        &input.hook_event_name
    };
    match (level(streak), rule) {
        (Some(text), rule) if streak >= HARD_AT => {
            let mut s = format!("{text}\n(consecutive failures: {streak})");
            if let Some(r) = rule {
                s.push_str("\n\n");
                s.push_str(&r);
            }
            Ok(Answer::block(s))
        }
        (Some(text), Some(r)) => Ok(Answer::context(event, format!("{text}\n\n{r}"))),
        (Some(text), None) => Ok(Answer::context(event, text)),
        (None, Some(r)) => Ok(Answer::context(event, r)),
        (None, None) => Ok(Answer::allow()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session_state::StreakState;

    #[test]
    fn streak_steps() {
        let mut s = StreakState::default();
        for i in 1..=7 {
            assert_eq!(step(&mut s, Event::Failure, vec![]), i);
        }
        assert_eq!(step(&mut s, Event::Failure, vec![9]), 1);
        assert_eq!(step(&mut s, Event::Failure, vec![9]), 2);
        assert_eq!(step(&mut s, Event::Success, vec![9]), 0);
        assert_eq!(level(3), Some(LADDER));
        assert_eq!(level(4), None);
        assert_eq!(level(6), Some(RESET_DEMAND));
        assert_eq!(level(9), Some(RESET_DEMAND));
    }
}
