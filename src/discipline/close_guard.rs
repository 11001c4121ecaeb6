//! `fable-close-guard` (Stop, SubagentStop): the round may not end on unfinished or unproven
//! work, and no agent may end on a success claim nothing backs.
//!
//! Opt-in (no `.fable/` or no ledger), PAUSED, then every finding at once: open cards
//! (full mode only), deferrals without a reason, closed cards without substantive
//! evidence, citations the sealed evidence log does not corroborate, and a final message
//! claiming success that no passing run of this session backs; then acceptance replay
//! when the ledger says `REPLAY: on` and the user trusts the project. Closed cards are
//! checked when closed this round (`round`), or all of them when the round's start is
//! unknown. Blocks are counted in fable's own state, not Claude Code's `stop_hook_active`
//! (any Stop hook sets it): a stop whose reason stands is blocked again up to
//! `FABLE_STOP_BLOCKS` (3) times, then allowed with a `systemMessage` to the user that
//! names what stayed unresolved. What an allowed stop has to say goes to the user the
//! same way, never to stderr alone. The decisions over ledger and records are pure
//! ([`findings`], [`check`]); reading files and running replay happen in [`decide`].
//!
//! # SubagentStop
//!
//! The same binary is registered for SubagentStop, where it checks **only the claim**: a
//! sub-agent's final message is what the parent reads and relays, so "all tests pass" there
//! needs a sealed passing run of such a command, newer than the session's last edit (by
//! anyone: the code as it is now), run by this sub-agent (records carrying its `agent` id)
//! or by the main thread (records without one) — a sibling sub-agent's run does not back
//! it. Open cards, evidence notes and citations are the parent's ledger: the sub-agent was
//! handed one piece of the work and cannot legitimately close the rest, blocking it on them
//! would only burn its turns up to the block limit, and the parent's own Stop checks every
//! card closed this round anyway (a card a sub-agent closed included). No replay, no notes
//! on an allowed stop. Blocks are counted per sub-agent (`<session>.agent.<id>`), apart
//! from the parent's count.

use crate::discipline::corroborate::{self, Index};
use crate::discipline::ledger::{self, Card, CardState, Ledger, NoteKind};
use crate::discipline::replay;
use crate::discipline::{claims, freshness, prose_cite, round, stated_counts};
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
    uncorroborated_in(ledger, index, &|_| true)
}

/// [`uncorroborated`] over the closed cards `in_scope` keeps.
pub fn uncorroborated_in<'a>(
    ledger: &'a Ledger,
    index: &Index,
    in_scope: &dyn Fn(&Card) -> bool,
) -> Vec<(&'a Card, String)> {
    let mut out = Vec::new();
    for card in ledger.done_cards().filter(|c| in_scope(c)) {
        for cited in card.citations() {
            if let Some(msg) = corroborate::explain(&cited, &index.verdict(&cited)) {
                out.push((card, msg));
            }
        }
        // A runner named without backticks is checked too; naming one that never ran
        // asks for the command that did.
        for cited in prose_cite::prose_citations(card) {
            let msg = match index.verdict(&cited) {
                corroborate::Verdict::NeverRan => Some(format!(
                    "the note names `{cited}`, but no logged run matches it — cite the command you ran, in backticks, exactly as it ran"
                )),
                v => corroborate::explain(&cited, &v),
            };
            if let Some(msg) = msg {
                out.push((card, msg));
            }
        }
        // Counts a note states must agree with the run it cites (when the run's summary
        // carries them).
        for note in card.notes_of(NoteKind::Evidence) {
            let stated = stated_counts::stated(&note.body);
            if stated.is_empty() {
                continue;
            }
            for span in ledger::backtick_spans(&note.body) {
                let summary = index.newest(&span).filter(|r| r.passed()).and_then(|r| r.summary);
                if let Some(msg) = summary.and_then(|s| stated_counts::contradiction(&span, &stated, &s)) {
                    out.push((card, msg));
                }
            }
        }
    }
    out
}

/// All commands cited on closed cards.
pub fn all_citations(ledger: &Ledger) -> Vec<String> {
    citations_in(ledger, &|_| true)
}

/// The commands cited on the closed cards `in_scope` keeps.
pub fn citations_in(ledger: &Ledger, in_scope: &dyn Fn(&Card) -> bool) -> Vec<String> {
    let mut v: Vec<String> = ledger
        .done_cards()
        .filter(|c| in_scope(c))
        .flat_map(|c| c.citations().into_iter().chain(prose_cite::prose_citations(c)))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Every finding that stands in the way of this stop, one section per kind, all at once
/// (a block that names only the first kind sends the agent round the loop once per kind).
/// `in_scope` picks the closed cards to check: those closed this round, when the round's
/// start is known.
pub fn findings(ledger: &Ledger, index: &Index, in_scope: &dyn Fn(&Card) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    if !ledger.is_light() {
        if let Some(m) = open_cards_message(ledger) {
            out.push(m);
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
            out.push(s);
        }
    }
    let missing: Vec<&Card> = missing_evidence(ledger).into_iter().filter(|c| in_scope(c)).collect();
    if !missing.is_empty() {
        let mut s = String::from("fable: closed card(s) without evidence:\n");
        for c in missing.iter().take(LIST_MAX) {
            s.push_str(&format!("  - [x] {}\n", c.label()));
        }
        s.push_str(
            "Add `-- evidence: <what you ran and what it showed>` to each (e.g. `-- evidence: \\`cargo test\\` -> 42 passed`), or reopen it as `- [ ]`. Adjectives (\"done\", \"works\") are not evidence.",
        );
        out.push(s);
    }
    let bad = uncorroborated_in(ledger, index, in_scope);
    if !bad.is_empty() {
        let mut s = String::from("fable: cited evidence is not backed by the evidence log:\n");
        for (card, msg) in bad.iter().take(LIST_MAX) {
            s.push_str(&format!("  {}\n    {msg}\n", card.label()));
        }
        s.push_str("A citation must match a logged command exactly, and its newest run must have passed.");
        out.push(s);
    }
    out
}

/// The pure part of the guard over every closed card: all findings as one message.
/// `index` is `None` when there is nothing to corroborate against (an empty index).
pub fn check(ledger: &Ledger, index: Option<&Index>) -> Option<String> {
    let empty = Index::default();
    let f = findings(ledger, index.unwrap_or(&empty), &|_| true);
    (!f.is_empty()).then(|| f.join("\n\n"))
}

/// A claim of success in the final message that no sealed passing run of this session
/// backs, as a finding.
/// At SubagentStop (`agent` is the sub-agent's id) only its own runs and the main
/// thread's count.
fn unbacked_claim(
    input: &HookInput,
    journal: &crate::evidence::journal::Journal,
    session: &str,
    agent: Option<&str>,
    stale: &dyn Fn(&crate::evidence::Record) -> Option<String>,
) -> Option<String> {
    let message = input.last_assistant_message.as_deref()?;
    let (kind, phrase) = claims::claim(message)?;
    let mut runs = corroborate::session_runs(journal, session);
    if let Some(me) = agent {
        runs.retain(|r| r.agent.as_deref().is_none_or(|a| a == me));
    }
    let passes: Vec<&crate::evidence::Record> = runs
        .iter()
        .filter(|r| r.passed() && claims::backs(&r.cmd, kind))
        .collect();
    // Newest first: the first fresh pass backs the claim, else the newest stale one says why.
    let mut why_stale = None;
    for r in passes.iter().rev() {
        match stale(r) {
            None => return None,
            Some(m) => {
                why_stale.get_or_insert(m);
            }
        }
    }
    let failed: Vec<&str> = runs
        .iter()
        .filter(|r| !r.passed() && claims::runner_kind(&r.cmd).is_some())
        .map(|r| r.cmd.as_str())
        .collect();
    let whose = if agent.is_some() {
        "this sub-agent's (or the main thread's)"
    } else {
        "this session's"
    };
    let since = if why_stale.is_some() {
        " since the files last changed"
    } else {
        ""
    };
    let mut s = format!(
        "fable: your last message says \"{phrase}\", but no passing run of {}{since} is in {whose} evidence log.\n",
        kind.name()
    );
    if let Some(last) = failed.last() {
        s.push_str(&format!(
            "  The newest such run failed: `{}`\n",
            crate::evidence::head_chars(last, 200)
        ));
    }
    if let Some(m) = why_stale {
        s.push_str(&format!("  The newest passing one is stale: {m}\n"));
    }
    s.push_str("Run the command that shows it (it is logged as you run it), or say what is still unverified.");
    Some(s)
}

/// The hook: allow, block with every finding at once, or — after `FABLE_STOP_BLOCKS`
/// blocks in a row — allow and tell the user what stayed unresolved.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    let Some(ledger) = ledger::load(&project.ledger_path()) else {
        return Ok(Answer::allow());
    };
    let get = |k: &str| env.var(k).map(str::to_string);
    let session = if input.session_id.is_empty() {
        env.var("CLAUDE_CODE_SESSION_ID").unwrap_or("")
    } else {
        &input.session_id
    };
    let agent = subagent(input);
    let round_path = match agent {
        // A sub-agent's blocks are its own: they neither use up nor reset the parent's.
        Some(a) if !session.is_empty() => round::path(get, &format!("{session}.agent.{a}")),
        _ => round::path(get, session),
    };
    // Without a session to count blocks in, Claude Code's flag is the only loop guard.
    if round_path.is_none() && input.stop_hook_active {
        return Ok(Answer::allow());
    }
    let mut round = round_path.as_deref().map(round::load).unwrap_or_default();
    let mut notes: Vec<String> = Vec::new();
    if agent.is_none() {
        if let Some(n) = self_downgrade(&ledger, round.snapshot.as_ref(), &project.ledger_path()) {
            round::note_stop(get, &project.fable_dir, &n);
            notes.push(n);
        }
    }
    let found = if ledger.is_paused() {
        Vec::new()
    } else if let Some(a) = agent {
        subagent_findings(input, env, &project, session, a)
    } else {
        evaluate(
            input,
            env,
            &project,
            &ledger,
            round.snapshot.as_ref(),
            session,
            &mut notes,
        )
    };
    let limit = env.var_u64("FABLE_STOP_BLOCKS", round::DEFAULT_STOP_BLOCKS);
    Ok(finish(
        round_path.as_deref(),
        &mut round,
        get,
        &project,
        found,
        notes,
        limit,
    ))
}

/// The sub-agent's id when this is a SubagentStop (empty when the host sends none: then
/// only the main thread's runs, and runs logged without an id, back its claim).
fn subagent(input: &HookInput) -> Option<&str> {
    (input.hook_event_name == "SubagentStop").then(|| input.agent_id.as_deref().unwrap_or(""))
}

/// SubagentStop: only the final message's claim (see the module docs for why).
fn subagent_findings(
    input: &HookInput,
    env: &HookEnv,
    project: &crate::project::Project,
    session: &str,
    agent: &str,
) -> Vec<String> {
    // Nothing claimed: nothing to read.
    if input
        .last_assistant_message
        .as_deref()
        .and_then(claims::claim)
        .is_none()
    {
        return Vec::new();
    }
    let journal = crate::evidence::logger::journal_of(project, env);
    let scan = corroborate::EditScan {
        session,
        root: &project.root,
        scope: freshness::Scope::from_setting(env.var("FABLE_FRESHNESS")),
    };
    let last_edit = corroborate::read_relevant_with(&journal, &[], Some(scan)).last_edit;
    let (now, scope) = freshness_now(env, project);
    let stale =
        |r: &crate::evidence::Record| freshness::stale_pass(&r.cmd, r, last_edit.as_ref(), &now, scope, &project.root);
    unbacked_claim(input, &journal, session, Some(agent), &stale)
        .into_iter()
        .collect()
}

/// The files as they are now (read lazily, once per stop) and the freshness scope.
fn freshness_now(
    env: &HookEnv,
    project: &crate::project::Project,
) -> (crate::evidence::tree_check::Now, freshness::Scope) {
    let get = |k: &str| env.var(k).map(str::to_string);
    let store = crate::evidence::tree_store::dir(get, &project.fable_dir);
    (
        crate::evidence::tree_check::Now::new(&project.root, store),
        freshness::Scope::from_setting(env.var("FABLE_FRESHNESS")),
    )
}

/// Everything that stands in the way of this stop (empty: it may end), adding to `notes`
/// what an allowed stop should tell the user. Replay runs only when nothing else stands.
fn evaluate(
    input: &HookInput,
    env: &HookEnv,
    project: &crate::project::Project,
    ledger: &Ledger,
    snapshot: Option<&round::Snapshot>,
    session: &str,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let get = |k: &str| env.var(k).map(str::to_string);
    let in_scope = |c: &Card| snapshot.is_none_or(|s| s.is_new(c));
    let journal = crate::evidence::logger::journal_of(project, env);
    let cites = citations_in(ledger, &in_scope);
    // This hook runs because fable's hooks are registered, the evidence hook with it: a
    // missing log is an empty log (a first session, or one deleted), never "no checks".
    let deleted = !journal.exists() && crate::evidence::log_marker::existed(get, &project.fable_dir);
    // One pass over the log: the cited commands' records (only sealed ones count) and this
    // session's last edit.
    let scan = corroborate::EditScan {
        session,
        root: &project.root,
        scope: freshness::Scope::from_setting(env.var("FABLE_FRESHNESS")),
    };
    let mut relevant = corroborate::read_relevant_with(&journal, &cites, Some(scan));
    let last_edit = relevant.last_edit.take();
    let index = Index::from_relevant(relevant);
    let mut found = findings(ledger, &index, &in_scope);
    // A cited pass proves nothing about the code as it is now once a project file changed
    // after it (see `freshness`).
    let (now, scope) = freshness_now(env, project);
    let stale_of =
        |r: &crate::evidence::Record| freshness::stale_pass(&r.cmd, r, last_edit.as_ref(), &now, scope, &project.root);
    let stale: Vec<String> = cites
        .iter()
        .filter_map(|c| {
            let rec = index.newest(c).filter(|r| r.passed())?;
            freshness::stale_pass(c, rec, last_edit.as_ref(), &now, scope, &project.root)
        })
        .collect();
    if !stale.is_empty() {
        let mut s = String::from("fable: cited passes ran on files that have changed since:\n");
        for m in stale.iter().take(LIST_MAX) {
            s.push_str(&format!("  {m}\n"));
        }
        s.push_str("A pass proves the code it ran on: run the cited commands again after your last change.");
        found.push(s);
    }
    if let Some(c) = unbacked_claim(input, &journal, session, None, &stale_of) {
        found.push(c);
    }
    if !found.is_empty() {
        if deleted {
            found.push(
                "The evidence log of this project was deleted: run the cited commands again (they are logged anew)."
                    .into(),
            );
        }
        if let Some(failure) = crate::evidence::log_marker::last_failure(get, &project.fable_dir) {
            found.push(format!(
                "Note: the evidence hook could not write the log ({failure}); a command that ran then is not recorded — fix the cause and run it again."
            ));
        }
        return found;
    }
    if cites.is_empty() {
        return found;
    }
    notes.push(format!(
        "fable: {} cited command(s) corroborated by sealed evidence records",
        cites.len()
    ));
    if !ledger.replay {
        return found;
    }
    if !crate::setup::trust_store::is_trusted(get, &project.root) {
        notes.push(format!(
            "fable: REPLAY: on ignored — {} is not trusted on this machine (`fable trust` to allow)",
            project.root.display()
        ));
        return found;
    }
    let results = replay::replay_project(project, ledger, &journal, replay::Settings::from_lookup(get), session);
    let failed: Vec<String> = results.iter().filter(|r| !r.passed()).map(|r| r.describe()).collect();
    if failed.is_empty() {
        notes.push(format!(
            "fable: acceptance replay passed ({} command(s))",
            results.len()
        ));
        return found;
    }
    let mut s = String::from("fable: acceptance replay failed (REPLAY: on):\n");
    for f in &failed {
        s.push_str(&format!("  {f}\n"));
    }
    s.push_str("A cited command no longer passes: fix what broke it, rerun it, then stop again.");
    vec![s]
}

/// Blocks with the findings, or allows (saying `notes` to the user) — and keeps count:
/// after `limit` blocks in a row the stop is let through with a message naming what
/// stayed unresolved, recorded for `fable status`.
fn finish(
    round_path: Option<&std::path::Path>,
    round: &mut round::Round,
    get: impl Fn(&str) -> Option<String> + Copy,
    project: &crate::project::Project,
    found: Vec<String>,
    mut notes: Vec<String>,
    limit: u64,
) -> Answer {
    let before = round.blocks;
    let answer = if found.is_empty() {
        round.blocks = 0;
        None
    } else if round.blocks < limit || round_path.is_none() {
        round.blocks += 1;
        Some(Answer::block_stop(found.join("\n\n")))
    } else {
        round.blocks = 0;
        let text = format!(
            "fable: let this stop through after {limit} blocks in a row; still unresolved:\n{}",
            found.join("\n\n")
        );
        round::note_stop(get, &project.fable_dir, &text);
        notes.insert(0, text);
        None
    };
    if let Some(p) = round_path {
        if round.blocks != before || !p.exists() {
            round::save(p, round);
        }
    }
    answer.unwrap_or_else(|| notes.iter().fold(Answer::allow(), |a, n| a.with_system_message(n)))
}

/// A `MODE: light` or `PAUSED:` written during this session, with open cards: honoured,
/// but said to the user, and recorded.
fn self_downgrade(
    ledger: &Ledger,
    snapshot: Option<&round::Snapshot>,
    ledger_path: &std::path::Path,
) -> Option<String> {
    let snap = snapshot?;
    let open = ledger.open_cards().count();
    if open == 0 {
        return None;
    }
    let what = if ledger.is_paused() && !snap.paused {
        format!("PAUSED ({})", ledger.paused.as_deref().unwrap_or(""))
    } else if ledger.is_light() && !snap.light {
        "MODE: light".to_string()
    } else {
        return None;
    };
    let at = std::fs::metadata(ledger_path)
        .and_then(|m| m.modified())
        .ok()
        .map(|t| chrono::DateTime::<chrono::Utc>::from(t).format("%H:%M UTC").to_string())
        .unwrap_or_else(|| "during this session".into());
    Some(format!(
        "fable: stopped with {open} open card(s) under {what}, written to .fable/LEDGER.md this session (at {at})"
    ))
}
