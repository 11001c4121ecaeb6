//! `fable-close-guard` (Stop): the round may not end on unfinished or unproven work.
//!
//! In order: loop safety (`stop_hook_active`), opt-in (no `.fable/` or no ledger), PAUSED,
//! open cards (full mode only), substantive evidence on every `- [x]` card, corroboration
//! of every cited command against the evidence log, then acceptance replay when the
//! ledger says `REPLAY: on` and the user trusts the project. The decision over ledger and
//! records is pure ([`check`]); reading files and running replay happen in [`decide`].

use crate::discipline::corroborate::{self, Index};
use crate::discipline::ledger::{self, Card, CardState, Ledger, NoteKind};
use crate::discipline::replay;
use crate::hook::{Answer, HookInput};
use crate::runner::{HookEnv, HookResult};

pub const HOOK_NAME: &str = "fable-close-guard";
/// How many open cards a block lists.
pub const LIST_MAX: usize = 12;

/// Lists open cards with the three legitimate exits.
pub fn open_cards_message(ledger: &Ledger) -> Option<String> {
    let open: Vec<&Card> = ledger.open_cards().collect();
    if open.is_empty() {
        return None;
    }
    let mut s = format!("fable: {} open card(s) in .fable/LEDGER.md:\n", open.len());
    for c in open.iter().take(LIST_MAX) {
        s.push_str(&format!("  - [ ] {}\n", c.label()));
    }
    if open.len() > LIST_MAX {
        s.push_str(&format!("  … and {} more\n", open.len() - LIST_MAX));
    }
    s.push_str(
        "Three legitimate exits:\n  1. finish it, verify it, and mark it `- [x] … -- evidence: <command you ran and its result>`\n  2. defer it: `- [~] … -- deferred: <reason>`\n  3. if the user moved you to unrelated work, add a line `PAUSED: <reason>`\nDo not invent completion.",
    );
    Some(s)
}

/// True when a `- [~]` card says why (at least 3 non-space characters).
pub fn has_deferral_reason(c: &Card) -> bool {
    c.notes_of(NoteKind::Deferred)
        .any(|n| n.body.chars().filter(|ch| !ch.is_whitespace()).count() >= 3)
}

/// Closed cards without a substantive evidence note.
pub fn missing_evidence(ledger: &Ledger) -> Vec<&Card> {
    ledger.done_cards().filter(|c| !c.has_substantive_evidence()).collect()
}

/// Every citation on closed cards that the log does not corroborate, with its message.
pub fn uncorroborated<'a>(ledger: &'a Ledger, index: &Index) -> Vec<(&'a Card, String)> {
    let mut out = Vec::new();
    for card in ledger.done_cards() {
        for cited in card.citations() {
            if let Some(msg) = corroborate::explain(&cited, &index.verdict(&cited)) {
                out.push((card, msg));
            }
        }
    }
    out
}

/// All commands cited on closed cards.
pub fn all_citations(ledger: &Ledger) -> Vec<String> {
    let mut v: Vec<String> = ledger.done_cards().flat_map(|c| c.citations()).collect();
    v.sort();
    v.dedup();
    v
}

/// The pure part of the guard after opt-in, PAUSED and loop checks: open cards, evidence,
/// corroboration. `index` is `None` when the project has no evidence log yet.
pub fn check(ledger: &Ledger, index: Option<&Index>) -> Option<String> {
    if !ledger.is_light() {
        if let Some(m) = open_cards_message(ledger) {
            return Some(m);
        }
        // A deferral is an exit from the open-cards rule only when it says why.
        let bare: Vec<&Card> = ledger
            .cards
            .iter()
            .filter(|c| c.state == CardState::Deferred && !has_deferral_reason(c))
            .collect();
        if !bare.is_empty() {
            let mut s = String::from("fable: deferred card(s) without a reason:\n");
            for c in bare.iter().take(LIST_MAX) {
                s.push_str(&format!("  - [~] {}\n", c.label()));
            }
            s.push_str("Add `-- deferred: <why, and what it waits for>` to each, or reopen it as `- [ ]`.");
            return Some(s);
        }
    }
    let missing = missing_evidence(ledger);
    if !missing.is_empty() {
        let mut s = String::from("fable: closed card(s) without evidence:\n");
        for c in missing.iter().take(LIST_MAX) {
            s.push_str(&format!("  - [x] {}\n", c.label()));
        }
        s.push_str(
            "Add `-- evidence: <what you ran and what it showed>` to each (e.g. `-- evidence: \\`cargo test\\` -> 42 passed`), or reopen it as `- [ ]`. Adjectives (\"done\", \"works\") are not evidence.",
        );
        return Some(s);
    }
    let index = index?;
    let bad = uncorroborated(ledger, index);
    if bad.is_empty() {
        return None;
    }
    let mut s = String::from("fable: cited evidence is not backed by the evidence log:\n");
    for (card, msg) in bad.iter().take(LIST_MAX) {
        s.push_str(&format!("  {}\n    {msg}\n", card.label()));
    }
    s.push_str("A citation must match a logged command exactly, and its newest run must have passed.");
    Some(s)
}

/// The hook: allow, block with a short actionable reason, or allow with a note.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    if input.stop_hook_active {
        return Ok(Answer::allow());
    }
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    let Some(ledger) = ledger::load(&project.ledger_path()) else {
        return Ok(Answer::allow());
    };
    if ledger.is_paused() {
        return Ok(Answer::allow());
    }
    let get = |k: &str| env.var(k).map(str::to_string);
    let journal = crate::evidence::logger::journal_of(&project, env);
    let cites = all_citations(&ledger);
    // This hook runs because fable's hooks are registered, the evidence hook with it: a
    // missing log is an empty log (a first session, or one deleted), never "no checks".
    let log_present = journal.exists();
    let deleted = !log_present && crate::evidence::log_marker::existed(get, &project.fable_dir);
    // Only the cited commands' records are read, and only sealed ones count.
    let index = Index::from_relevant(corroborate::read_relevant(&journal, &cites));
    if let Some(mut reason) = check(&ledger, Some(&index)) {
        if deleted {
            reason.push_str(
                "\nThe evidence log of this project was deleted: run the cited commands again (they are logged anew).",
            );
        }
        if let Some(failure) = crate::evidence::log_marker::last_failure(get, &project.fable_dir) {
            reason.push_str(&format!(
                "\nNote: the evidence hook could not write the log ({failure}); a command that ran then is not recorded — fix the cause and run it again."
            ));
        }
        return Ok(Answer::block_stop(reason));
    }
    let answer = Answer::allow();
    if !ledger.replay || cites.is_empty() {
        return Ok(answer);
    }
    if !crate::setup::trust_store::is_trusted(get, &project.root) {
        return Ok(answer.with_note(format!(
            "[fable] fable-close-guard: REPLAY: on ignored — {} is not trusted on this machine (`fable trust` to allow)",
            project.root.display()
        )));
    }
    let session = if input.session_id.is_empty() {
        env.var("CLAUDE_CODE_SESSION_ID").unwrap_or("")
    } else {
        &input.session_id
    };
    let results = replay::replay_project(&project, &ledger, &journal, replay::Settings::from_lookup(get), session);
    let failed: Vec<String> = results.iter().filter(|r| !r.passed()).map(|r| r.describe()).collect();
    if failed.is_empty() {
        return Ok(answer);
    }
    let mut s = String::from("fable: acceptance replay failed (REPLAY: on):\n");
    for f in &failed {
        s.push_str(&format!("  {f}\n"));
    }
    s.push_str("A cited command no longer passes: fix what broke it, rerun it, then stop again.");
    Ok(Answer::block_stop(s))
}
