//! `fable status [--project DIR] [--json]`: the project's discipline state on one screen —
//! mode, pause, cards, uncorroborated citations, the current fail streak, the last evidence.
//! Outside a project it fails like every project command ([`crate::error::Error::NotAProject`]).

use crate::discipline::close_guard::{all_citations, uncorroborated};
use crate::discipline::corroborate::Index;
use crate::discipline::ledger::{self, CardState, Mode};
use crate::error::Result;
use crate::evidence::journal::Journal;
use crate::project_arg::ProjectArg;
use serde_json::json;
use std::path::PathBuf;

/// Evidence records shown.
const LAST: usize = 5;

/// `fable status [--project DIR] [--json]`
#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    /// The old positional spelling of `--project` (hidden; kept for one release).
    #[arg(hide = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: &StatusArgs) -> Result<i32> {
    let p = a.project.or_legacy(a.dir.as_deref()).resolve()?;
    let ledger_exists = p.ledger_path().is_file();
    let l = ledger::load(&p.ledger_path()).unwrap_or_default();
    let journal = Journal::for_reading(&p.fable_dir, |k| std::env::var(k).ok());
    let all = journal.read_all().unwrap_or_default();
    let cites = all_citations(&l);
    // Before the read below, which rebuilds a stale index: what the hooks left.
    let outcome_index = crate::evidence::outcome_reader::state(&journal).as_str();
    // The same view as the close guard: only sealed records corroborate.
    let index = Index::from_relevant(crate::discipline::corroborate::read_relevant(&journal, &cites)).placed(&p.root);
    let has_log = journal.exists();
    let bad: Vec<(usize, String)> = if has_log {
        uncorroborated(&l, &index)
            .into_iter()
            .map(|(c, m)| (c.line, m))
            .collect()
    } else {
        Vec::new()
    };
    let count = |s: CardState| l.cards.iter().filter(|c| c.state == s).count();
    let (open, done, deferred) = (
        count(CardState::Open),
        count(CardState::Done),
        count(CardState::Deferred),
    );
    let streak = crate::session_state::latest_streak(&p.fable_dir);
    let trusted = crate::setup::trust_store::is_trusted(|k| std::env::var(k).ok(), &p.root);
    let last: Vec<_> = all.records.iter().rev().take(LAST).collect();
    let mode = if l.mode == Mode::Light { "light" } else { "full" };
    let stops = crate::discipline::round::notable_stops(|k| std::env::var(k).ok(), &p.fable_dir);
    let watched = watched_tree(&p);
    if a.json {
        println!(
            "{}",
            json!({
                "project": p.root,
                "ledger": ledger_exists,
                "mode": mode,
                "paused": l.paused,
                "replay": l.replay,
                "trusted": trusted,
                "cards": {"open": open, "closed": done, "deferred": deferred},
                "citations": cites.len(),
                "uncorroborated": bad.iter().map(|(line, m)| json!({"line": line, "message": m})).collect::<Vec<_>>(),
                "evidence_log": has_log,
                "evidence_records": all.records.len(),
                "malformed": all.malformed,
                "outcome_index": outcome_index,
                "streak": streak.as_ref().map(|(sid, s)| json!({"session": sid, "count": s.streak, "since": s.since})),
                "last": last,
                "notable_stops": stops.iter().map(|(ts, t)| json!({"ts": ts, "text": t})).collect::<Vec<_>>(),
                "watched_tree": watched,
            })
        );
        return Ok(0);
    }
    crate::say!("project   {}", p.root.display());
    if !ledger_exists {
        crate::say!("ledger    missing (.fable/LEDGER.md)");
    }
    crate::say!(
        "mode      {mode}{}{}",
        l.paused.as_ref().map_or(String::new(), |r| format!(" — PAUSED: {r}")),
        if l.replay {
            if trusted {
                " — replay on"
            } else {
                " — replay on (project not trusted: `fable trust`)"
            }
        } else {
            ""
        }
    );
    crate::say!("cards     {open} open, {done} closed, {deferred} deferred");
    if has_log {
        crate::say!(
            "evidence  {} records ({} malformed lines)",
            all.records.len(),
            all.malformed
        );
        crate::say!("index     {outcome_index}");
        crate::say!("citations {} cited, {} uncorroborated", cites.len(), bad.len());
        for (line, m) in &bad {
            crate::say!("  line {line}: {m}");
        }
    } else {
        crate::say!("evidence  no log yet (citations unchecked)");
    }
    // Said only when it holds (a project below the watcher's size never has one).
    if let Some(t) = &watched {
        crate::say!(
            "freshness watched: the files are as the newest pass (tree {}) left them",
            &t[..8]
        );
    }
    match &streak {
        Some((sid, s)) if s.streak > 0 => crate::say!("streak    {} consecutive failure(s) (session {sid})", s.streak),
        _ => crate::say!("streak    0"),
    }
    // Stops let through after the block limit, or under a mode written mid-session.
    for (ts, t) in stops.iter().rev().take(3) {
        crate::say!(
            "stop      {ts}: {}",
            crate::evidence::head_chars(t.lines().next().unwrap_or(""), 120)
        );
    }
    for r in &last {
        let exit = r.exit.map_or("-".into(), |e| e.to_string());
        let mark = crate::evidence::verdict::Verdict::of(r).label();
        crate::say!(
            "  {mark} {} exit {exit:>3}  {}",
            r.ts,
            crate::evidence::head_chars(
                &r.file
                    .as_ref()
                    .map_or_else(|| ledger::normalize(&r.cmd), |f| format!("(edit) {f}")),
                70
            )
        );
    }
    Ok(0)
}

/// The newest pass's tree when its watcher vouches for it now
/// ([`crate::evidence::tree_watch`]): the next stop will not compare the files itself.
fn watched_tree(p: &crate::project::Project) -> Option<String> {
    let get = |k: &str| std::env::var(k).ok();
    let store = crate::evidence::tree_store::dir(get, &p.fable_dir)?;
    let last = crate::evidence::tree_store::load_last(&store)?;
    crate::evidence::tree_watch::vouches(&store, &p.root, &last.tree).then_some(last.tree)
}
