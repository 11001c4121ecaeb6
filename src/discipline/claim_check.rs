//! Every stated result is a claim: the final message's and each closed card's evidence
//! note's claims, weighed against the runs of this round (`backing`).
//!
//! A note that cites the command it ran is judged by that command's record (corroboration
//! and the counts it states, in `close_guard`); a note that only *says* a result — "all 21
//! tests pass (21/21)", "Ran 3 tests, all OK", a runner named in quotes — needs a run of
//! this round that shows it, as the final message does. Prose that states no result (a
//! link, a screenshot, "reviewed by hand") keeps the substantive-text rule.

use crate::discipline::backing::{self, Run};
use crate::discipline::claim_phrases::{self, Claim};
use crate::discipline::claims;
use crate::discipline::ledger::{self, Card, Ledger, NoteKind};
use crate::discipline::{prose_cite, run_place};
use crate::evidence::Record;
use std::path::PathBuf;

/// The round's runs in the shape [`backing`] weighs, with the folders they ran in.
pub struct Runs<'a> {
    records: &'a [Record],
    dirs: Vec<PathBuf>,
    stale: Vec<Option<String>>,
}

impl<'a> Runs<'a> {
    /// `records` in log order; `stale` says why a run did not see the code as it is now.
    pub fn new(records: &'a [Record], stale: &dyn Fn(&Record) -> Option<String>) -> Runs<'a> {
        Runs {
            records,
            dirs: records.iter().map(|r| run_place::effective(&r.cwd, &r.cmd).0).collect(),
            stale: records.iter().map(stale).collect(),
        }
    }

    fn view(&self) -> Vec<Run<'_>> {
        self.records
            .iter()
            .zip(&self.dirs)
            .zip(&self.stale)
            .map(|((r, dir), stale)| Run {
                cmd: run_place::effective(&r.cwd, &r.cmd).1,
                dir,
                proves: r.proves(),
                background: r.background.is_some(),
                nothing: (r.passed() && !r.proves())
                    .then(|| crate::evidence::proof::shows(&r.cmd, r.exit, r.ok, r.summary).describe(&r.cmd)),
                failed: !r.passed(),
                summary: r.summary,
                stale: stale.as_deref(),
            })
            .collect()
    }
}

/// The final message's first unbacked claim, as a finding. `whose` names the runs that
/// count ("this session's").
pub fn final_message(message: &str, runs: &Runs, whose: &str) -> Option<String> {
    let view = runs.view();
    claim_phrases::find_all(message).into_iter().find_map(|c| {
        backing::unbacked(&c, &view).map(|why| {
            format!(
                "fable: your last message says \"{}\", checked against {whose} evidence log:\n  {why}",
                c.phrase
            )
        })
    })
}

/// The claims in closed cards' evidence notes that no cited command carries and no run of
/// this round backs, with the card's label.
pub fn notes(ledger: &Ledger, in_scope: &dyn Fn(&Card) -> bool, runs: &Runs) -> Vec<(String, String)> {
    let view = runs.view();
    let mut out = Vec::new();
    for card in ledger.done_cards().filter(|c| in_scope(c)) {
        for note in card.notes_of(NoteKind::Evidence) {
            let Some(claim) = claim_phrases::find(&note.body) else {
                continue;
            };
            if let Some(why) = note_unbacked(&note.body, &claim, &view) {
                out.push((card.label(), why));
            }
        }
    }
    out
}

/// True when some closed card in scope has a note that states a result.
pub fn any_note_claims(ledger: &Ledger, in_scope: &dyn Fn(&Card) -> bool) -> bool {
    ledger.done_cards().filter(|c| in_scope(c)).any(|c| {
        c.notes_of(NoteKind::Evidence)
            .any(|n| claim_phrases::find(&n.body).is_some())
    })
}

fn note_unbacked(body: &str, claim: &Claim, view: &[Run]) -> Option<String> {
    // A cited runner of the claimed kind carries the claim: corroboration checks its run
    // and the counts stated against it. Only an unanswered failure still stands.
    let cited: Vec<String> = ledger::backtick_spans(body)
        .into_iter()
        .chain(prose_cite::prose_command(body))
        .collect();
    // Any cited command that does something carries it (`sh ./check.sh` -> 12 passed: a
    // script of the project's own keeps the exit-status rule); one that only looks (`ls`,
    // `cat`, `git status`) shows no test result, so the claim still needs a run.
    let carried = cited.iter().any(|c| {
        let rest = crate::evidence::command_key::strip_cd(c).map_or(c.as_str(), |(_, r)| r);
        claims::backs(rest, claim.kind)
            || (ledger::looks_like_command(c) && !crate::discipline::read_only::is_read_only(rest))
    });
    if carried {
        return (claim.kind == claims::Kind::Tests)
            .then(|| backing::unanswered_failure(view))
            .flatten()
            .map(|m| format!("the note says \"{}\", but {m}", claim.phrase));
    }
    backing::unbacked(claim, view).map(|why| {
        format!("the note states a result with no command cited: {why} Cite the command you ran, in backticks, exactly as it ran.")
    })
}
