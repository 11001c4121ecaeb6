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
use crate::discipline::ledger::{self, Card, Ledger};
use crate::discipline::replay;
use crate::discipline::{claim_check, freshness, round};
use crate::hook::{Answer, HookInput};
use crate::runner::{HookEnv, HookResult};

pub const HOOK_NAME: &str = "fable-close-guard";

pub use crate::discipline::card_findings::{
    all_citations, check, citations_in, findings, has_deferral_reason, missing_evidence, open_cards_message,
    uncorroborated, uncorroborated_in, LIST_MAX,
};

/// A claim of success in the final message that no sealed passing run of this session
/// backs, as a finding.
/// At SubagentStop (`agent` is the sub-agent's id) only its own runs and the main
/// thread's count.
fn unbacked_claim(
    input: &HookInput,
    records: &[crate::evidence::Record],
    agent: Option<&str>,
    stale: &dyn Fn(&crate::evidence::Record) -> Option<String>,
) -> Option<String> {
    let message = input.last_assistant_message.as_deref()?;
    let whose = if agent.is_some() {
        "this sub-agent's (or the main thread's)"
    } else {
        "this session's"
    };
    claim_check::final_message(message, &claim_check::Runs::new(records, stale), whose)
}

/// The sealed runner records of this round (log order); at SubagentStop only the
/// sub-agent's own and the main thread's.
fn round_runs(
    journal: &crate::evidence::journal::Journal,
    session: &str,
    agent: Option<&str>,
) -> Vec<crate::evidence::Record> {
    let mut runs = corroborate::session_runs(journal, session);
    if let Some(me) = agent {
        runs.retain(|r| r.agent.as_deref().is_none_or(|a| a == me));
    }
    runs
}

/// The hook: allow, block with every finding at once, or — after `FABLE_STOP_BLOCKS`
/// blocks in a row — allow and tell the user what stayed unresolved.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let answer = decide_round(input, env)?;
    // Attempts against fable's records this round (denied commands, refused payloads)
    // are named at the stop: `evidence::tamper_log`.
    if env.project(input).is_none() {
        return Ok(answer);
    }
    let session = if input.session_id.is_empty() {
        env.var("CLAUDE_CODE_SESSION_ID").unwrap_or("")
    } else {
        &input.session_id
    };
    let get = |k: &str| env.var(k).map(str::to_string);
    Ok(crate::evidence::tamper_log::at_stop(
        get,
        session,
        subagent(input).is_some(),
        answer,
    ))
}

fn decide_round(input: &HookInput, env: &HookEnv) -> HookResult {
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
    // The round as it began, kept outside the repository (the parent's, for a sub-agent).
    let baseline = round::path(get, session)
        .map(|p| round::load(&p))
        .and_then(|r| r.snapshot);
    let project = env.project(input);
    let ledger = project.as_ref().and_then(|p| ledger::load(&p.ledger_path()));
    let (project, ledger) = match (project, ledger) {
        (Some(p), Some(l)) => (p, l),
        (project, _) => {
            // No ledger to read: allowed, unless the round began with one (deleted,
            // emptied into a folder, linked away, padded past its cap: never silent).
            let Some((project, why)) = gone(project, baseline.as_ref(), agent) else {
                return Ok(Answer::allow());
            };
            let snap = baseline.as_ref().expect("gone() needs a baseline");
            let mut found = vec![crate::discipline::baseline::missing_message(snap, &why)];
            let journal = crate::evidence::logger::journal_of(&project, env);
            let records = round_runs(&journal, session, None);
            found.extend(unbacked_claim(input, &records, None, &|_| None));
            let mut round = round_path.as_deref().map(round::load).unwrap_or_default();
            let limit = env.var_u64("FABLE_STOP_BLOCKS", round::DEFAULT_STOP_BLOCKS);
            return Ok(finish(
                round_path.as_deref(),
                &mut round,
                get,
                &project,
                found,
                Vec::new(),
                limit,
            ));
        }
    };
    // Without a session to count blocks in, Claude Code's flag is the only loop guard.
    if round_path.is_none() && input.stop_hook_active {
        return Ok(Answer::allow());
    }
    // Once per stop: a second copy of this hook (registered in two scopes) waits for the
    // first one's decision, which stands, and neither repeats nor counts it.
    let stop = round::stop_key(input);
    let _held = round_path
        .as_deref()
        .filter(|_| stop.is_some())
        .and_then(round::lock_stop);
    let mut round = round_path.as_deref().map(round::load).unwrap_or_default();
    if let Some(same) = round.answered(stop.as_deref()) {
        return Ok(same);
    }
    let mut notes: Vec<String> = Vec::new();
    let mut found = Vec::new();
    // What the round began with decides: a pause or light mode written this round is an
    // exit from the open-cards rule only, and the round's replay still runs.
    let mut judged = ledger.clone();
    if agent.is_none() {
        if let Some(n) = self_downgrade(&ledger, round.snapshot.as_ref(), &project.ledger_path()) {
            round::note_stop(get, &project.fable_dir, &n);
            notes.push(n);
        }
        if let Some(snap) = baseline.as_ref().filter(|s| same_root(s, &project)) {
            if !snap.light {
                let gone = crate::discipline::baseline::vanished(snap, &ledger);
                if !gone.is_empty() {
                    found.push(crate::discipline::baseline::vanished_message(&gone));
                }
            }
            notes.extend(crate::discipline::baseline::downgrade_notes(snap, &ledger));
            if ledger.is_paused() && !snap.paused {
                judged.paused = None;
                judged.mode = ledger::Mode::Light;
            }
            judged.replay |= snap.replay;
        }
    }
    if judged.is_paused() {
        // Paused when the round began: the user moved the agent to other work.
    } else if let Some(a) = agent {
        found.extend(subagent_findings(input, env, &project, session, a));
    } else {
        found.extend(evaluate(
            input,
            env,
            &project,
            &judged,
            round.snapshot.as_ref(),
            session,
            &mut notes,
        ));
    }
    // The restart the fail streak demanded: its open card does not hold the stop.
    if agent.is_none() && !judged.is_paused() {
        if let Some(n) = crate::discipline::restart::exit_for(&ledger, &project.fable_dir, session) {
            let open = open_cards_message(&judged);
            found.retain(|f| Some(f) != open.as_ref());
            if found.is_empty() {
                crate::discipline::restart::spend(&project.fable_dir, session);
            }
            notes.push(n);
        }
    }
    let limit = env.var_u64("FABLE_STOP_BLOCKS", round::DEFAULT_STOP_BLOCKS);
    let answer = finish(round_path.as_deref(), &mut round, get, &project, found, notes, limit);
    round.remember(round_path.as_deref(), stop.as_deref(), &answer);
    Ok(answer)
}

/// True when the baseline was taken in this project (or names none).
fn same_root(snap: &round::Snapshot, project: &crate::project::Project) -> bool {
    snap.root
        .as_deref()
        .is_none_or(|r| std::path::Path::new(r) == project.root)
}

/// The project and why its ledger is gone, when the round began with a readable one and
/// it cannot be read now (`None`: nothing to hold the stop to).
fn gone(
    project: Option<crate::project::Project>,
    snap: Option<&round::Snapshot>,
    agent: Option<&str>,
) -> Option<(crate::project::Project, String)> {
    let snap = snap.filter(|s| s.ledger && agent.is_none())?;
    let root = std::path::PathBuf::from(snap.root.as_deref()?);
    let project = project
        .filter(|p| p.root == root)
        .unwrap_or_else(|| crate::project::Project::at(&root));
    let ledger = project.ledger_path();
    let why = if !project.fable_dir.exists() {
        ".fable/ was deleted during this session".to_string()
    } else if std::fs::symlink_metadata(&ledger).is_err() {
        "the ledger .fable/LEDGER.md was deleted during this session".to_string()
    } else {
        match crate::fable_dir::read_string(&ledger, crate::fable_dir::Kind::Document) {
            Err(e) => format!("the ledger .fable/LEDGER.md can no longer be read ({e})"),
            Ok(_) => return None,
        }
    };
    Some((project, why))
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
        .and_then(crate::discipline::claim_phrases::find)
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
    let records = round_runs(&journal, session, Some(agent));
    unbacked_claim(input, &records, Some(agent), &stale)
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
        crate::evidence::tree_check::Now::new(&project.root, store).with_env(get),
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
    let index = Index::from_relevant(relevant).placed(&project.root);
    let is_program = |c: &str| crate::discipline::program::exists(c, &project.root);
    let mut found = findings(ledger, &index, &in_scope, &is_program);
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
    // The round's runs are read only when some text states a result.
    let message_claims = input
        .last_assistant_message
        .as_deref()
        .and_then(crate::discipline::claim_phrases::find)
        .is_some();
    let records = if message_claims || claim_check::any_note_claims(ledger, &in_scope) {
        round_runs(&journal, session, None)
    } else {
        Vec::new()
    };
    let note_claims = claim_check::notes(ledger, &in_scope, &claim_check::Runs::new(&records, &stale_of));
    if !note_claims.is_empty() {
        let mut s = String::from("fable: evidence notes state results no run of this round shows:\n");
        for (label, msg) in note_claims.iter().take(LIST_MAX) {
            s.push_str(&format!("  {label}\n    {msg}\n"));
        }
        found.push(s.trim_end().to_string());
    }
    if let Some(c) = unbacked_claim(input, &records, None, &stale_of) {
        found.push(c);
    }
    let message = input.last_assistant_message.as_deref();
    let lost = crate::discipline::lost_record::finding(get, &project.fable_dir, &journal, &cites, session, message);
    found.extend(lost.clone());
    if !found.is_empty() {
        if deleted {
            found.push(
                "The evidence log of this project was deleted: run the cited commands again (they are logged anew)."
                    .into(),
            );
        }
        let failure = crate::evidence::log_marker::last_failure(get, &project.fable_dir);
        if let Some(failure) = failure.filter(|_| lost.is_none()) {
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
    let replayed = replay::replay_project(project, ledger, &journal, replay::Settings::from_lookup(get), session);
    notes.extend(crate::discipline::replay_said::unsaid(
        get,
        &project.fable_dir,
        &replayed.skipped,
    ));
    let results = replayed.results;
    let failed: Vec<String> = results.iter().filter(|r| !r.passed()).map(|r| r.describe()).collect();
    if failed.is_empty() && !results.is_empty() {
        notes.push(format!(
            "fable: acceptance replay passed ({} command(s))",
            results.len()
        ));
    }
    if failed.is_empty() {
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
