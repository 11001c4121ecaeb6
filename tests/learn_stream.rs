//! The learner on a compact, streamed history gives the same outcome as on the records.
//!
//! `fable-learn` reads the log into a [`History`] one record at a time (commands and
//! sessions interned, outputs kept only for failures and untrusted records, everything
//! normalised as it arrives); `fable rules extract`, the field test and the tests run
//! [`run_pipeline`] on records in memory. Both must learn the same rules with the same
//! numbers: compared here as the serialised outcome, on every corpus in the repository,
//! all of them in one history, and a generated history with interleaved sessions.

use fable::evidence::journal::{Journal, Rotation};
use fable::evidence::Record;
use fable::learn::run_history;
use fable::learn::{load_compact, load_history};
use fable::learn::{run_pipeline, LearnConfig};
use fable::learn::{History, Records};
use std::path::{Path, PathBuf};

fn corpora(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut v: Vec<PathBuf> = rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    v.sort();
    for p in v {
        if p.join("corpus.json").exists() {
            out.push(p);
        } else {
            corpora(&p, out);
        }
    }
}

fn configs() -> [LearnConfig; 2] {
    [
        LearnConfig::default(),
        LearnConfig {
            packs: Vec::new(),
            ..LearnConfig::default()
        },
    ]
}

/// Both ways, serialised; panics with the history's name when they differ.
fn same_outcome(name: &str, h: &[Record], cfg: &LearnConfig) -> serde_json::Value {
    let old = serde_json::to_value(run_pipeline(h, cfg)).unwrap();
    let new = serde_json::to_value(run_history(&History::from_records(h), cfg, None)).unwrap();
    assert!(old == new, "{name}: the compact history learned something else");
    old
}

/// Sessions taken in turn, one record each: the log of agents working side by side.
fn interleave(h: &[Record]) -> Vec<Record> {
    let mut by_session: Vec<(String, std::collections::VecDeque<Record>)> = Vec::new();
    for r in h {
        match by_session.iter_mut().find(|(s, _)| *s == r.session) {
            Some((_, q)) => q.push_back(r.clone()),
            None => by_session.push((r.session.clone(), [r.clone()].into())),
        }
    }
    let mut out = Vec::with_capacity(h.len());
    while out.len() < h.len() {
        for (_, q) in &mut by_session {
            out.extend(q.pop_front());
        }
    }
    out
}

#[test]
fn every_corpus_learns_the_same_from_the_compact_history() {
    let mut dirs = Vec::new();
    for d in [
        "tests/corpora",
        "tests/corpora-classes",
        "tests/corpora-general",
        "tests/corpora-reference",
    ] {
        corpora(Path::new(d), &mut dirs);
    }
    assert!(dirs.len() >= 40, "corpora found: {}", dirs.len());
    let mut all = Vec::new();
    let mut accepted = 0;
    for d in &dirs {
        let c = fable::measure::corpus::load(d).unwrap();
        let h: Vec<Record> = c.trajectories.iter().flat_map(|t| t.records.clone()).collect();
        for cfg in configs() {
            let o = same_outcome(&d.display().to_string(), &h, &cfg);
            accepted += o["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|l| l["rule"]["accepted"] == true)
                .count();
        }
        all.extend(h);
    }
    // Not a vacuous comparison: the corpora do learn rules.
    assert!(accepted > 50, "accepted rules over all corpora: {accepted}");
    same_outcome("all corpora", &all, &LearnConfig::default());
    same_outcome("all corpora, interleaved", &interleave(&all), &LearnConfig::default());
}

#[test]
fn interleaved_generated_sessions_learn_the_same() {
    let mut h = Vec::new();
    fable::measure::bench_learn::synthetic_records(6000, |r| {
        h.push(r);
        Ok(())
    })
    .unwrap();
    let h = interleave(&h);
    assert_ne!(h[0].session, h[1].session);
    let o = same_outcome("generated, interleaved", &h, &LearnConfig::default());
    assert!(o["episodes"].as_u64().unwrap() > 100, "{}", o["episodes"]);
}

#[test]
fn the_compact_history_reads_as_the_records_do() {
    let mut h = Vec::new();
    fable::measure::bench_learn::synthetic_records(500, |r| {
        h.push(r);
        Ok(())
    })
    .unwrap();
    h[3].trust = Some("untrusted".into());
    h[3].ok = true;
    let c = History::from_records(&h);
    assert_eq!(Records::len(&c), h.len());
    for (i, r) in h.iter().enumerate() {
        assert_eq!(
            (c.cmd(i), c.ok(i), c.session(i), c.ts(i)),
            (r.cmd.as_str(), r.ok, r.session.as_str(), r.ts.as_str())
        );
        // Outputs are kept where a stage reads them after normalisation.
        let kept = !r.ok || c.prep.trust[i] == fable::learn::Trust::Untrusted;
        assert_eq!(c.tail(i), if kept { r.tail.as_str() } else { "" }, "record {i}");
    }
    assert_eq!(c.tail(3), h[3].tail);
    assert_eq!(c.last_ts(), Some(h[499].ts.as_str()));
}

#[test]
fn the_streamed_log_learns_what_the_loaded_log_does() {
    let dir = tempfile::tempdir().unwrap();
    let project = fable::project::Project::at(dir.path().join("p"));
    std::fs::create_dir_all(&project.fable_dir).unwrap();
    let journal = Journal::new(&project.fable_dir, Rotation::from_lookup(|_| None));
    fable::measure::bench_learn::synthetic_records(2000, |r| journal.append(&r).map(|_| ())).unwrap();
    // An edit record: the log holds it, learning skips it both ways.
    let edit = Record {
        file: Some("src/x.rs".into()),
        ..Record::new("2026-12-06T08:00:00.000Z", "bench-0", "/p", "", None, true, "")
    };
    journal.append(&edit).unwrap();
    let records = load_history(&project).unwrap();
    let compact = load_compact(&project).unwrap();
    // Rotation may have dropped the oldest generation; both read the same files.
    assert_eq!(records.len(), Records::len(&compact));
    assert!(records.len() > 1000, "{}", records.len());
    let cfg = LearnConfig::default();
    let old = serde_json::to_value(run_pipeline(&records, &cfg)).unwrap();
    let new = serde_json::to_value(run_history(&compact, &cfg, None)).unwrap();
    assert_eq!(old, new);
    assert!(old["episodes"].as_u64().unwrap() > 50);
}
