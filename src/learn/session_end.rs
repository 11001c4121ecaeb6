//! The SessionEnd hook (`fable-learn`) and the pipeline's I/O edges: loading history,
//! merging an outcome into the store, the cursor that makes re-runs cheap.

use crate::error::Result;
use crate::evidence::journal::{Journal, Rotation};
use crate::evidence::Record;
use crate::hook::{Answer, HookInput};
use crate::learn::history::records::{History, HistoryBuilder, Records};
use crate::learn::judge::config::*;
use crate::learn::judge::rule::Rule;
use crate::learn::outcome::*;
use crate::learn::pipeline::run_history;
use crate::learn::store::rule_seal;
use crate::learn::store::rules::{self, Store};
use crate::project::Project;
use crate::runner::{HookEnv, HookResult};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

/// The project's whole evidence history (every generation, oldest first).
///
/// A record this user's hook did not seal for this project (hand-written, committed by a
/// stranger's clone, copied from another machine, imported without `--seal`) is marked
/// `trust: untrusted`: the learner still sees it, but a rule standing on it is blocked by
/// the trust gate, so a repository cannot write a standing rule — an instruction the
/// agent will be shown — with records it made up. Without a key on this machine nothing
/// verifies, and nothing is shown anyway (promotions are sealed with that key).
pub fn load_history(project: &Project) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    each_record(project, |r| out.push(r))?;
    Ok(out)
}

/// [`load_history`] as a compact [`History`], built as the log is read: one record is
/// resident at a time, never the whole log (a million records held as `Record`s were
/// 1.5 GB). What `fable-learn` runs the pipeline on.
pub fn load_compact(project: &Project) -> Result<History> {
    let mut b = HistoryBuilder::default();
    each_record(project, |r| b.push(&r))?;
    Ok(b.finish())
}

/// Each record of every generation, oldest first, slimmed and its trust marked as
/// [`load_history`] says.
pub fn each_record(project: &Project, mut sink: impl FnMut(Record)) -> Result<()> {
    let get = |k: &str| std::env::var(k).ok();
    let j = Journal::new(&project.fable_dir, Rotation::from_lookup(get));
    let sealer = crate::evidence::seal::Sealer::existing(get, &project.fable_dir);
    let scope = j.scope();
    j.each_line(|_, _, line| {
        let Ok(mut r) = serde_json::from_slice::<Record>(line) else {
            return;
        };
        // Edit records say when a file changed; learning reads commands and their outcomes.
        if r.file.is_some() {
            return;
        }
        if sealer.as_ref().is_none_or(|s| s.key.verify(&scope, line).is_none()) {
            r.trust = Some("untrusted".into());
        }
        sink(slim(r));
    })
}

/// A record with only what learning reads (session, command, outcome, tail, time, trust).
/// The seal, chain, tool id, cwd, agent and summary are verified or shown elsewhere; kept,
/// they were ~15 MB of a 100k-record history held for the whole pipeline. A run whose
/// own summary shows failures (`cargo test | tail` exits 0 through the pipe) is read as
/// the failure it was, as the close guard reads it.
fn slim(r: Record) -> Record {
    Record {
        ok: r.ok && !r.summary.is_some_and(|s| s.shows_failure()),
        cwd: String::new(),
        event: None,
        tool_use_id: None,
        agent: None,
        summary: None,
        chain: None,
        mac: None,
        ..r
    }
}

/// Merges a pipeline outcome into the store. Returns (new ids, promoted ids).
pub fn store_outcome(store: &Store, outcome: &LearnOutcome) -> Result<(Vec<String>, Vec<String>)> {
    let now = crate::evidence::now_ts();
    // The learner's own promotions are sealed with this user's key; without a key they
    // are stored but shown to no one (`rule_seal`).
    let key = crate::evidence::seal::user_key(|k| std::env::var(k).ok())
        .map_err(|why| eprintln!("[fable] fable-learn: {why}; promoted rules are not sealed and so not shown"))
        .ok();
    let scope = rule_seal::scope(store.dir());
    store.update(|rules| {
        let before: HashSet<String> = rules
            .iter()
            .filter(|r| rule_seal::promoted_here(r, key.as_ref(), &scope))
            .map(|r| r.id.clone())
            .collect();
        let was_local = rule_seal::local_keys(rules, key.as_ref(), &scope);
        let fresh: Vec<Rule> = outcome.candidates.iter().map(|l| l.rule.clone()).collect();
        let fresh_promoted: HashSet<String> = fresh
            .iter()
            .filter(|r| r.status == "promoted")
            .filter_map(|r| r.key.clone())
            .collect();
        let added = rules::merge(rules, fresh, &now);
        // One promoted rule per failure class, and only rules that still pass.
        crate::learn::store::standing::settle(rules, &|r| rule_seal::promoted_here(r, key.as_ref(), &scope));
        if let Some(key) = &key {
            rule_seal::reseal(rules, &fresh_promoted, &was_local, key, &scope);
        }
        let promoted: Vec<String> = rules
            .iter()
            .filter(|r| rule_seal::promoted_here(r, key.as_ref(), &scope) && !before.contains(&r.id))
            .map(|r| r.id.clone())
            .collect();
        Ok((added, promoted))
    })
}

/// The SessionEnd cursor: how many records the last run had seen.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Cursor {
    pub records: usize,
    pub last_ts: Option<String>,
    pub ran_at: Option<String>,
    pub ms: Option<u64>,
    pub note: Option<String>,
    /// Name and size of every log file at the last run: when they are unchanged there is
    /// nothing new, and the hook answers without reading the log at all.
    #[serde(default)]
    pub files: Vec<(String, u64)>,
}

/// Name and size of each evidence file, oldest generation first: a cheap "anything new?"
/// (an append grows the live file; a rotation renames and starts a new one).
pub fn log_fingerprint(project: &Project) -> Vec<(String, u64)> {
    let j = Journal::new(&project.fable_dir, Rotation::from_lookup(|k| std::env::var(k).ok()));
    j.files()
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((name, std::fs::metadata(p).ok()?.len()))
        })
        .collect()
}

fn cursor_path(fable_dir: &Path) -> std::path::PathBuf {
    fable_dir.join("state").join("learn.json")
}

pub fn load_cursor(fable_dir: &Path) -> Cursor {
    crate::fable_dir::read_string(&cursor_path(fable_dir), crate::fable_dir::Kind::State)
        .ok()
        .flatten()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

fn save_cursor(fable_dir: &Path, c: &Cursor) -> Result<()> {
    let p = cursor_path(fable_dir);
    let s = serde_json::to_string_pretty(c).map_err(|e| crate::error::Error::msg(e.to_string()))?;
    crate::fable_dir::replace_atomically(&p, s.as_bytes(), false)
}

/// Default time budget of the SessionEnd run (`FABLE_LEARN_BUDGET_MS`).
pub const DEFAULT_BUDGET_MS: u64 = 3000;

/// The SessionEnd hook: when records arrived since the last run, run the pipeline over
/// the whole history (replay needs all of it), merge candidates into the store and apply
/// the promotion policy. Bounded in time: a run that exceeds the budget writes nothing
/// but the cursor note. Never blocks: always exit 0.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    let budget = Duration::from_millis(env.var_u64("FABLE_LEARN_BUDGET_MS", DEFAULT_BUDGET_MS));
    let note = learn_project(&project, budget)?;
    Ok(Answer::allow().with_note(format!("[fable] fable-learn: {note}")))
}

/// One bounded learning run for a project; returns a one-line summary.
pub fn learn_project(project: &Project, budget: Duration) -> Result<String> {
    let start = Instant::now();
    let mut cursor = load_cursor(&project.fable_dir);
    let files = log_fingerprint(project);
    if !files.is_empty() && files == cursor.files {
        return Ok("no new evidence".into());
    }
    let cfg = load_config(project)?;
    let history = load_compact(project)?;
    // A rotation can shrink the history below the cursor: then everything is new again.
    if history.len() == cursor.records && cursor.last_ts.as_deref() == history.last_ts() {
        cursor.files = files;
        save_cursor(&project.fable_dir, &cursor)?;
        return Ok("no new evidence".into());
    }
    let outcome = run_history(&history, &cfg, None);
    let elapsed = start.elapsed();
    cursor.ran_at = Some(crate::evidence::now_ts());
    cursor.ms = Some(elapsed.as_millis() as u64);
    if elapsed > budget {
        cursor.note = Some(format!(
            "over budget ({} ms > {} ms): nothing written",
            elapsed.as_millis(),
            budget.as_millis()
        ));
        save_cursor(&project.fable_dir, &cursor)?;
        return Ok(cursor.note.clone().unwrap_or_default());
    }
    let (added, promoted) = store_outcome(&Store::new(&project.fable_dir), &outcome)?;
    cursor.records = history.len();
    cursor.last_ts = history.last_ts().map(str::to_string);
    cursor.files = files;
    cursor.note = None;
    save_cursor(&project.fable_dir, &cursor)?;
    Ok(format!(
        "{} records, {} candidates ({} new), {} newly promoted",
        history.len(),
        outcome.candidates.len(),
        added.len(),
        promoted.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::summary::Summary;

    fn run(ok: bool, failed: Option<u64>) -> Record {
        Record {
            summary: failed.map(|f| Summary {
                passed: Some(3),
                failed: Some(f),
                ..Summary::default()
            }),
            mac: Some("m".into()),
            agent: Some("a".into()),
            ..Record::new(
                "2026-12-04T10:00:00.000Z",
                "s",
                "/p",
                "cargo test | tail",
                Some(0),
                ok,
                "x",
            )
        }
    }

    #[test]
    fn slim_reads_a_failing_summary_as_a_failure() {
        assert!(!slim(run(true, Some(1))).ok);
        assert!(slim(run(true, Some(0))).ok);
        assert!(slim(run(true, None)).ok);
        assert!(!slim(run(false, None)).ok);
    }

    #[test]
    fn slim_keeps_what_learning_reads_and_drops_the_rest() {
        let r = slim(run(true, None));
        assert_eq!(
            (r.session.as_str(), r.cmd.as_str(), r.tail.as_str()),
            ("s", "cargo test | tail", "x")
        );
        assert_eq!(r.ts, "2026-12-04T10:00:00.000Z");
        assert!(r.cwd.is_empty() && r.mac.is_none() && r.agent.is_none() && r.summary.is_none());
    }
}
