//! A lost record is named: when the evidence hook could not write a record (disk full, a
//! read-only or broken `.fable/`, the log lock held past its wait) **after** the newest
//! pass of a cited command — or of the run that backs a success claim in the final message
//! — and the lost record could be a later run of it (the same command, a runner of the
//! claimed kind, or an edit that may make the pass stale), the stop is blocked with the
//! cause. The lost record may be the run that failed; the older pass must not stand in
//! for it. A lost `ls` changes nothing a card cites, and blocks nothing.
//!
//! "After" is decided from the log's own order where it can be: the failure note
//! ([`log_marker::Failure`]) keeps the MAC of the newest sealed record when the write
//! failed, and a backing pass at or before that record in the log came before the loss.
//! Only when the note has no head, or the head is not in the log, do the wall-clock times
//! decide. A loss is forgotten only when a later write of the same command succeeds
//! ([`log_marker::clear_failure`]), so a rerun that is logged lifts the block.
//!
//! Runs only when a failure is noted: the common stop pays one `stat`.

use crate::discipline::claims;
use crate::discipline::corroborate::Index;
use crate::evidence::journal::Journal;
use crate::evidence::log_marker::{self, Failure};
use crate::evidence::Record;
use std::collections::HashMap;
use std::path::Path;

/// The sealed records of the log in order, with their MACs, and each MAC's position.
struct Ordered {
    records: Vec<Record>,
    pos: HashMap<String, usize>,
}

fn read_ordered(journal: &Journal) -> Ordered {
    let mut out = Ordered {
        records: Vec::new(),
        pos: HashMap::new(),
    };
    let Some(sealer) = journal.sealer() else { return out };
    let scope = journal.scope();
    let _ = journal.each_line(|_, _, line| {
        let Some(mac) = sealer.key.verify(&scope, line) else {
            return;
        };
        let Ok(rec) = serde_json::from_slice::<Record>(line) else {
            return;
        };
        out.pos.insert(mac.clone(), out.records.len());
        out.records.push(Record { mac: Some(mac), ..rec });
    });
    out
}

/// The block message when a noted loss came after a pass that backs this stop and could
/// be a later run of it: the same command (or, for a claim, a runner of the claimed kind),
/// or a lost edit (it may make the pass stale). `cites` are the commands cited on the
/// cards in scope; `message` is the final message (its success claim is backed by this
/// session's newest passing run of its kind).
pub fn finding(
    get: impl Fn(&str) -> Option<String>,
    fable_dir: &Path,
    journal: &Journal,
    cites: &[String],
    session: &str,
    message: Option<&str>,
) -> Option<String> {
    let lost = log_marker::failures(get, fable_dir);
    if lost.is_empty() {
        return None;
    }
    let log = read_ordered(journal);
    // (what the pass backs, the pass, whether a lost command is a rerun of it)
    type Rerun<'a> = Box<dyn Fn(&str) -> bool + 'a>;
    let mut backers: Vec<(String, &Record, Rerun)> = Vec::new();
    let index = Index::build(log.records.iter().cloned());
    for c in cites {
        if let Some(rec) = index.newest(c).filter(|r| r.passed()) {
            if let Some(r) = rec.mac.as_ref().and_then(|m| log.pos.get(m)).map(|&i| &log.records[i]) {
                let cited = c.clone();
                let rerun: Rerun = Box::new(move |cmd| {
                    Index::build([Record::new("", "", "", cmd, None, false, "")])
                        .newest(&cited)
                        .is_some()
                });
                backers.push((c.clone(), r, rerun));
            }
        }
    }
    let claimed = message.and_then(crate::discipline::claim_phrases::find).map(|c| c.kind);
    if let Some(kind) = claimed.filter(|_| !session.is_empty()) {
        let newest = log
            .records
            .iter()
            .rev()
            .find(|r| r.session == session && r.agent.is_none() && r.passed() && claims::backs(&r.cmd, kind));
        if let Some(r) = newest {
            backers.push((r.cmd.clone(), r, Box::new(move |cmd| claims::backs(cmd, kind))));
        }
    }
    // The newest loss that came after a pass it could have overturned, and those passes.
    for f in lost.iter().rev() {
        let head = f.head.as_ref().and_then(|h| log.pos.get(h)).copied();
        let hit: Vec<&str> = backers
            .iter()
            .filter(|(_, r, rerun)| (f.cmd.is_empty() || rerun(&f.cmd)) && lost_after(f, head, r, &log.pos))
            .map(|(c, _, _)| c.as_str())
            .collect();
        if !hit.is_empty() {
            return Some(say(f, &hit));
        }
    }
    None
}

/// True when the failure came after `rec`: by log order when the failure's head is in the
/// log (the lost record would have followed it), else by the lost run's time.
fn lost_after(failure: &Failure, head: Option<usize>, rec: &Record, pos: &HashMap<String, usize>) -> bool {
    let at = rec.mac.as_ref().and_then(|m| pos.get(m));
    match (head, at) {
        (Some(h), Some(&p)) => p <= h,
        _ => {
            let lost = if failure.run.is_empty() {
                &failure.at
            } else {
                &failure.run
            };
            lost.as_str() >= rec.ts.as_str()
        }
    }
}

fn say(failure: &Failure, cited: &[&str]) -> String {
    let what = if failure.cmd.is_empty() {
        " (an edit)".to_string()
    } else {
        format!(" (`{}`)", crate::evidence::head_chars(&failure.cmd, 200))
    };
    let passes: Vec<String> = cited.iter().take(4).map(|c| format!("`{c}`")).collect();
    format!(
        "fable: the run at {}{what} could not be logged: {} — fix it and run the command again.\n  It came after the newest pass of {}: that older pass cannot stand in for a run the log lost.",
        failure.run_clock(),
        failure.cause,
        passes.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(ts: &str, mac: &str) -> Record {
        Record {
            mac: Some(mac.into()),
            ..Record::new(ts, "s", "/p", "pytest -q", Some(0), true, "")
        }
    }

    #[test]
    fn after_is_decided_by_log_order_before_clocks() {
        let pos: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
        let f = Failure {
            run: "2026-12-06T10:00:00.000Z".into(),
            ..Failure::default()
        };
        // The pass is the head itself, or before it: the loss came after it, whatever
        // the clocks say.
        assert!(lost_after(&f, Some(1), &rec("2026-12-06T11:00:00.000Z", "b"), &pos));
        assert!(lost_after(&f, Some(1), &rec("2026-12-06T11:00:00.000Z", "a"), &pos));
        // A pass logged after the head came after the loss.
        assert!(!lost_after(&f, Some(0), &rec("2026-12-06T09:00:00.000Z", "b"), &pos));
        // No head in the log: the clocks decide.
        assert!(lost_after(&f, None, &rec("2026-12-06T09:00:00.000Z", "a"), &pos));
        assert!(!lost_after(&f, None, &rec("2026-12-06T11:00:00.000Z", "a"), &pos));
    }
}
