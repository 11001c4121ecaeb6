//! `fable-fail-streak` (PostToolUse + PostToolUseFailure, Bash): stop the grind.
//!
//! Claude Code reports a failed Bash call only as PostToolUseFailure and a successful one
//! as PostToolUse without an exit code, so the event decides (other hosts' explicit exit
//! codes are read through [`crate::evidence::outcome`]). Read-only looks (`cat`, `ls`,
//! `git status`, …: [`crate::discipline::read_only`]) neither count nor reset; any other
//! failure counts, and any other success (a build, an edit, the failing command passing)
//! resets the streak. Two counts, the larger decides (docs/fail-streak.md):
//! - the streak: failing attempts in a row; the calls of one turn (one assistant message,
//!   [`crate::discipline::turn`]) are one attempt;
//! - the check's count: failures of the same check (the normalised command) since it last
//!   passed, so a grind of one check is seen whatever trivial commands pass between.
//!
//! At 3 the model gets the attribution ladder as advisory context; from 6 on, every
//! further failure answers exit 2 with the reset demand, and the demand is remembered
//! (with the `tried:` notes that existed then) so the Stop hook can let the restart it
//! asks for through ([`crate::discipline::restart`]). A new substantive `-- tried:` note
//! on a card resets both counts — the distilled lesson is the way out. A sub-agent keeps
//! a streak of its own (`<session>.agent.<id>`): its failures are not the parent's.
//! PAUSED disarms the guard; `MODE: light` keeps it.

use crate::discipline::ledger::{self, Ledger};
use crate::evidence::{now_ts, outcome, record_from};
use crate::hook::{Answer, HookInput};
use crate::runner::{HookEnv, HookResult};
use crate::session_state::{sanitize_sid, update_streak, CheckFails, Demand, StreakState};

pub const HOOK_NAME: &str = "fable-fail-streak";
pub const ADVISE_AT: u32 = 3;
pub const HARD_AT: u32 = 6;

pub const LADDER: &str = "fable: 3 failed attempts (in a row, or of this check since it last passed). Before the next attempt, attribute the failure — walk the ladder from the bottom:\n  1. HARNESS: is the check itself right? (wrong command, wrong folder, stale fixture, flaky test, a timeout too short)\n  2. DEPLOYMENT: is the code you changed the code that ran? (rebuild, reinstall, restart, bust caches, print a version marker)\n  3. PRODUCT: only then suspect the logic — and fix the class of bug with an invariant, not this one instance.";

pub const RESET_DEMAND: &str = "fable: 6+ failed attempts (in a row, or of this check since it last passed) — stop retrying. Insight has not worked in this context.\n  1. Write into the current card: `-- tried: <hypotheses ruled out, dead ends, the one thing still unknown>`.\n  2. Then end your turn, leaving the card open: the stop is let through, and the card restarts from a fresh context that reads only docs/SPEC.md and .fable/LEDGER.md.\nA new `-- tried:` note (or a passing command) resets this guard.";

/// A stable 64-bit fingerprint (FNV-1a) of a note, independent of the Rust version.
pub fn fingerprint(s: &str) -> u64 {
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
        _ => match outcome(input) {
            (_, true, _) => Event::Success,
            // A status the host could not tell (`exit_code: null`): no pass, no failure.
            (None, false, _) => Event::Neutral,
            _ => Event::Failure,
        },
    }
}

/// The level reached after a failure: the count decides the answer; the ladder only
/// when the count has just reached 3 (`advanced`), not again for a call of the same turn.
pub fn level(count: u32, advanced: bool) -> Option<&'static str> {
    if count >= HARD_AT {
        Some(RESET_DEMAND)
    } else if count == ADVISE_AT && advanced {
        Some(LADDER)
    } else {
        None
    }
}

/// Checks remembered per session (the oldest is forgotten first).
pub const CHECKS_KEPT: usize = 16;

/// One Bash result as the streak sees it.
#[derive(Debug, Clone, Copy)]
pub struct Attempt<'a> {
    pub ev: Event,
    /// The check: the normalised command ([`check_key`]).
    pub key: &'a str,
    /// The turn that made the call ([`crate::discipline::turn`]); `None`: a turn of its own.
    pub turn: Option<&'a str>,
}

/// The check a command runs: its main segment's words (`cargo test parser 2>&1 | tail`
/// → `cargo test parser`), or the trimmed command when it has none.
pub fn check_key(cmd: &str) -> String {
    let n = crate::learn::command_norm::normalize(cmd);
    n.primary()
        .map(|s| s.text())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| cmd.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Applies one result to the state; returns the count that decides (the larger of the
/// streak and this check's failures since its last pass) and whether it just grew.
pub fn step(state: &mut StreakState, at: Attempt, tried_now: Vec<u64>) -> (u32, bool) {
    // A new note resets both counts, whatever the event (a note written, then a look).
    if tried_now.iter().any(|t| !state.tried.contains(t)) {
        state.streak = 0;
        state.since.clear();
        state.turn.clear();
        state.checks.clear();
    }
    state.tried = tried_now;
    match at.ev {
        Event::Success => {
            state.streak = 0;
            state.since.clear();
            state.turn.clear();
            state.checks.retain(|c| c.key != at.key);
            // The check that brought the demand passes: the grind is over, no restart owed.
            if state.demand.as_ref().is_some_and(|d| d.key == at.key) {
                state.demand = None;
            }
            (0, false)
        }
        Event::Failure => {
            let same = |last: &str| at.turn.is_some_and(|t| t == last);
            let mut advanced = false;
            if !same(&state.turn) {
                if state.streak == 0 {
                    state.since = now_ts();
                }
                state.streak = state.streak.saturating_add(1);
                state.turn = at.turn.unwrap_or("").to_string();
                advanced = true;
            }
            let n = match state.checks.iter_mut().find(|c| c.key == at.key) {
                Some(c) => {
                    if !same(&c.turn) {
                        c.n = c.n.saturating_add(1);
                        c.turn = at.turn.unwrap_or("").to_string();
                        advanced = true;
                    }
                    c.n
                }
                None => {
                    if state.checks.len() >= CHECKS_KEPT {
                        state.checks.remove(0);
                    }
                    state.checks.push(CheckFails {
                        key: at.key.to_string(),
                        n: 1,
                        turn: at.turn.unwrap_or("").to_string(),
                    });
                    advanced = true;
                    1
                }
            };
            let count = state.streak.max(n);
            if count >= HARD_AT {
                // Each demand is remembered with the notes that exist now: only a note
                // written after it is the restart it asks for.
                state.demand = Some(Demand {
                    tried: state.tried.clone(),
                    key: at.key.to_string(),
                });
            }
            (count, advanced)
        }
        Event::Neutral => (state.streak, false),
    }
}

/// The streak file's name: the session's, or a sub-agent's own (`<session>.agent.<id>`).
pub fn streak_id(sid: &str, agent: Option<&str>) -> Option<String> {
    match agent.map(str::trim).filter(|a| !a.is_empty()) {
        Some(a) => sanitize_sid(&format!("{sid}.agent.{a}")),
        None => Some(sid.to_string()),
    }
}

/// False for the second delivery of an identical payload (the hook registered in two
/// scopes). Claimed in the session's claim table (`first_record`, one read and one small
/// write), under this hook's own name for the call; the project's once-file only when
/// there is no session or state folder. A different payload under the same id acts.
fn first_delivery(input: &HookInput, env: &HookEnv, session: &str, fable_dir: &std::path::Path) -> bool {
    use crate::evidence::first_record::{try_claim, Claim};
    if input.tool_use_id.is_empty() {
        return true;
    }
    let fp = crate::fingerprint::fnv1a(&serde_json::to_vec(&input.raw).unwrap_or_default());
    let call = format!("{HOOK_NAME}.{}", input.tool_use_id);
    match try_claim(|k| env.var(k).map(str::to_string), session, &call, fp) {
        Some(c) => c != Claim::Same,
        None => crate::evidence::dedupe::first_call(fable_dir, HOOK_NAME, &input.tool_use_id, &input.raw),
    }
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
    if !first_delivery(input, env, sid_raw, &project.fable_dir) {
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
    let key = input.command().map(check_key).unwrap_or_default();
    // Only a counted failure needs its turn (the transcript is read then, not on success).
    // A sub-agent's calls are not in the transcript the payload names: not waited for.
    let turn = if counted == Event::Failure {
        let patience = if input.agent_id.is_some() {
            std::time::Duration::ZERO
        } else {
            crate::discipline::turn::PATIENCE
        };
        crate::discipline::turn::of(&input.transcript_path, &input.tool_use_id, patience)
    } else {
        None
    };
    let Some(file) = streak_id(&sid, input.agent_id.as_deref()) else {
        return Ok(Answer::allow());
    };
    let at = Attempt {
        ev: counted,
        key: &key,
        turn: turn.as_deref(),
    };
    let (streak, advanced) = update_streak(&project.fable_dir, &file, |s| step(s, at, tried))?;
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
    match (level(streak, advanced), rule) {
        (Some(text), rule) if streak >= HARD_AT => {
            let mut s = format!("{text}\n(failures in a row, or of this check since it last passed: {streak})");
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

    fn at<'a>(ev: Event, key: &'a str, turn: Option<&'a str>) -> Attempt<'a> {
        Attempt { ev, key, turn }
    }

    #[test]
    fn streak_steps() {
        let mut s = StreakState::default();
        for i in 1..=7 {
            assert_eq!(step(&mut s, at(Event::Failure, "make", None), vec![]), (i, true));
        }
        assert!(s.demand.is_some());
        assert_eq!(step(&mut s, at(Event::Failure, "make", None), vec![9]).0, 1);
        assert_eq!(step(&mut s, at(Event::Failure, "make", None), vec![9]).0, 2);
        assert_eq!(step(&mut s, at(Event::Success, "make", None), vec![9]).0, 0);
        assert!(s.demand.is_none(), "the demanding check passed");
        assert_eq!(level(3, true), Some(LADDER));
        assert_eq!(level(3, false), None);
        assert_eq!(level(4, true), None);
        assert_eq!(level(6, false), Some(RESET_DEMAND));
        assert_eq!(level(9, true), Some(RESET_DEMAND));
    }

    #[test]
    fn one_turn_is_one_attempt_and_a_check_counts_across_passes_of_others() {
        let mut s = StreakState::default();
        for _ in 0..6 {
            step(&mut s, at(Event::Failure, "pytest -q", Some("msg_1")), vec![]);
        }
        assert_eq!(s.streak, 1);
        assert_eq!(
            step(&mut s, at(Event::Failure, "pytest -q", Some("msg_2")), vec![]),
            (2, true)
        );
        let mut s = StreakState::default();
        let mut last = (0, false);
        for i in 0..11 {
            if i % 5 == 4 {
                step(&mut s, at(Event::Success, "touch x", None), vec![]);
            }
            last = step(&mut s, at(Event::Failure, "cargo test", None), vec![]);
        }
        assert_eq!(last.0, 11, "the check's own count ignores other passes");
        assert!(s.streak < HARD_AT);
        step(&mut s, at(Event::Success, "cargo test", None), vec![]);
        assert_eq!(step(&mut s, at(Event::Failure, "cargo test", None), vec![]).0, 1);
    }

    #[test]
    fn sub_agents_keep_their_own_file() {
        assert_eq!(streak_id("s1", None).as_deref(), Some("s1"));
        assert_eq!(streak_id("s1", Some("")).as_deref(), Some("s1"));
        assert_eq!(streak_id("s1", Some("a/b")).as_deref(), Some("s1.agent.ab"));
        assert_eq!(
            check_key("cargo test parser 2>&1 | tail -5"),
            check_key("cargo test parser")
        );
    }
}
