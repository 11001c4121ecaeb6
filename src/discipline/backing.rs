//! Whether the runs of this round back a stated result.
//!
//! A claim ("all tests pass", "12 passed", "the build is clean") in the final message or
//! in an evidence note that cites no command stands only on a run of this round that shows
//! it: a sealed run of a command of the claimed kind, in this project, that **proves** its
//! result (not a help or dry run, tests really executed), on the code as it is now, whose
//! summary agrees with every count stated, and that is **not narrower** than a failure it
//! leaves unanswered — one passing test after the full suite failed backs nothing.
//!
//! Pure: the close guard reads the runs (log order) and decides proof and freshness; this
//! file only weighs them.

use crate::discipline::claim_phrases::Claim;
use crate::discipline::claims::{self, Kind};
use crate::discipline::{selection, stated_counts};
use crate::evidence::summary::Summary;
use std::path::Path;

/// One run of this round, as the decision needs it.
#[derive(Debug, Clone)]
pub struct Run<'a> {
    /// The command without its leading `cd`.
    pub cmd: &'a str,
    /// The folder it ran in.
    pub dir: &'a Path,
    /// Its output shows the result it claims (see `evidence::proof` and the record).
    pub proves: bool,
    /// It failed (exit status or the summary).
    pub failed: bool,
    /// It was launched with `run_in_background`: its result never reached a hook.
    pub background: bool,
    /// It passed but proves nothing: what it shows instead and what to run (`evidence::proof`).
    pub nothing: Option<String>,
    pub summary: Option<Summary>,
    /// Why it did not run on the code as it is now (`None`: it did).
    pub stale: Option<&'a str>,
}

/// Why a claim is not backed, as a message that says what to do.
pub fn unbacked(claim: &Claim, runs: &[Run]) -> Option<String> {
    let kind = claim.kind;
    let backing: Vec<&Run> = runs
        .iter()
        .filter(|r| r.proves && r.stale.is_none() && claims::backs(r.cmd, kind))
        .collect();
    if backing.is_empty() {
        let mut s = format!(
            "\"{}\" is a claim, but no run of {} in this round shows it.",
            claim.phrase,
            kind.name()
        );
        // The newest run that says why, whichever kind it is.
        let why = runs.iter().rev().find_map(|r| {
            let cmd = crate::evidence::head_chars(r.cmd, 200);
            if r.background && claims::backs(r.cmd, kind) {
                Some(format!(
                    " `{cmd}` was launched in the background; run it in the foreground to back the claim."
                ))
            } else if r.failed && claims::runner_kind(r.cmd).is_some() {
                Some(format!(" The newest such run failed: `{cmd}`."))
            } else if !claims::backs(r.cmd, kind) {
                None
            } else if let Some(why) = r.stale.filter(|_| r.proves) {
                Some(format!(" The newest passing one is stale: {why}."))
            } else if !r.proves && !r.failed {
                Some(match &r.nothing {
                    Some(why) => format!(" {why}"),
                    None => format!(
                        " `{cmd}` passed but shows no result (no tests ran, or its output was cut or sent away)."
                    ),
                })
            } else {
                None
            }
        });
        s.push_str(&why.unwrap_or_default());
        s.push_str(" Run the command that shows it (it is logged as you run it), or say what is still unverified.");
        return Some(s);
    }
    if !claim.counts.is_empty() {
        let carrying: Vec<&&Run> = backing
            .iter()
            .filter(|r| r.summary.is_some_and(|s| stated_counts::carries_any(&claim.counts, &s)))
            .collect();
        let agreed = carrying
            .iter()
            .any(|r| r.summary.is_some_and(|s| stated_counts::agrees(&claim.counts, &s)));
        if !carrying.is_empty() && !agreed {
            let newest = carrying.last().expect("not empty");
            let shown = newest
                .summary
                .map(crate::evidence::verdict::summary_text)
                .unwrap_or_default();
            return Some(format!(
                "\"{}\" states counts no run of this round shows: the newest, `{}`, shows {shown} — state what the run showed",
                claim.phrase,
                crate::evidence::head_chars(newest.cmd, 200)
            ));
        }
    }
    if kind == Kind::Tests {
        if let Some(msg) = unanswered_failure(runs) {
            return Some(format!("\"{}\" is not backed: {msg}", claim.phrase));
        }
    }
    None
}

/// A test run that failed and was never followed by a pass at least as broad, as a message.
pub fn unanswered_failure(runs: &[Run]) -> Option<String> {
    let shape: Vec<(String, std::collections::BTreeSet<String>)> =
        runs.iter().map(|r| selection::of(r.cmd, r.dir)).collect();
    for (i, f) in runs.iter().enumerate() {
        if !f.failed || f.background || claims::runner_kind(f.cmd) != Some(Kind::Tests) {
            continue;
        }
        let (family, failed_sel) = &shape[i];
        let later = || {
            runs.iter()
                .zip(&shape)
                .skip(i + 1)
                .filter(|(r, (fam, _))| r.proves && fam == family)
        };
        let answered = later().any(|(_, (_, sel))| selection::covers(sel, failed_sel));
        if answered {
            continue;
        }
        let narrower = later().map(|(r, _)| r.cmd).next_back();
        return Some(match narrower {
            Some(n) => format!(
                "`{}` failed, and the later pass `{}` ran a narrower selection — run `{}` again and let it pass",
                crate::evidence::head_chars(f.cmd, 200),
                crate::evidence::head_chars(n, 200),
                crate::evidence::head_chars(f.cmd, 200)
            ),
            None => format!(
                "`{}` failed and has not passed since — fix it and run it again",
                crate::evidence::head_chars(f.cmd, 200)
            ),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discipline::claim_phrases::find;

    fn run<'a>(cmd: &'a str, passed: Option<u64>, failed: u64) -> Run<'a> {
        Run {
            cmd,
            dir: Path::new("/p"),
            proves: failed == 0 && passed.is_none_or(|p| p > 0),
            failed: failed > 0,
            background: false,
            nothing: None,
            summary: passed.map(|p| Summary {
                passed: Some(p),
                failed: Some(failed),
                ..Summary::default()
            }),
            stale: None,
        }
    }

    #[test]
    fn a_claim_needs_a_run_that_shows_it() {
        let c = find("All tests pass.").unwrap();
        assert!(unbacked(&c, &[]).is_some());
        assert!(unbacked(&c, &[run("ls", None, 0)]).is_some());
        assert!(unbacked(&c, &[run("pytest", Some(3), 0)]).is_none());
        let m = unbacked(&c, &[run("pytest -k nomatch", Some(0), 0)]).unwrap();
        assert!(m.contains("shows no result"), "{m}");
    }

    #[test]
    fn counts_must_agree() {
        let c = find("Ran 12 tests, OK (12/12 green)").unwrap();
        let m = unbacked(&c, &[run("python3 -m unittest", Some(3), 0)]).unwrap();
        assert!(m.contains("3 passed"), "{m}");
        let c = find("all three tests pass").unwrap();
        assert!(unbacked(&c, &[run("python3 -m unittest", Some(3), 0)]).is_none());
    }

    #[test]
    fn one_test_after_a_failed_suite_backs_nothing() {
        let c = find("All tests pass.").unwrap();
        let runs = [
            run("pytest", Some(2), 1),
            run("pytest tests/test_a.py::test_x", Some(1), 0),
        ];
        let m = unbacked(&c, &runs).unwrap();
        assert!(m.contains("narrower"), "{m}");
        let runs = [run("pytest", Some(2), 1), run("pytest -q", Some(3), 0)];
        assert!(unbacked(&c, &runs).is_none());
    }
}
