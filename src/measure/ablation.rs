//! `fable fieldtest … --tables`: which of the learner's hand-written tables still decides
//! something (issue 34: "for each table that still decides something, how many accepted
//! rules depend on it").
//!
//! The corpora are learned from once with every table on, then once per table with that
//! table off ([`crate::learn::tables`]: the lookup answers as if the table were empty), on
//! the same history and settings. Per table: the accepted rules with it and without it,
//! the rules accepted with it that are not accepted without it (`depend`: the rules that
//! depend on it), the ones only accepted without it (`gained`), promotion trajectories
//! passed (an accepted rule drew support from them) and rejection trajectories that
//! accepted a rule, with and without. A rule is the same rule when its dedup key is (else
//! its trigger and directive): a table that changes a rule's wording shows as one rule
//! lost and one gained.

use crate::learn::tables::{switch_off, Table};
use serde::Serialize;
use std::collections::BTreeSet;

/// The `tables` section of the field-test report (optional, formats.md §4).
#[derive(Debug, Clone, Serialize)]
pub struct Tables {
    /// Trajectories of the promotion corpora (the denominator of `promoted_*`).
    pub promotion_n: usize,
    /// Trajectories of the rejection corpora (the denominator of `false_accepts_*`).
    pub rejection_n: usize,
    /// With every table on.
    pub accepted: usize,
    pub promoted: usize,
    pub false_accepts: usize,
    /// One line per table, in [`Table::ALL`] order.
    pub tables: Vec<TableLine>,
}

/// What turning one table off changed.
#[derive(Debug, Clone, Serialize)]
pub struct TableLine {
    pub table: &'static str,
    pub accepted_with: usize,
    pub accepted_without: usize,
    /// Accepted with the table, not without it: the rules that depend on it.
    pub depend: usize,
    /// Accepted only without it.
    pub gained: usize,
    pub promoted_with: usize,
    pub promoted_without: usize,
    pub false_accepts_with: usize,
    pub false_accepts_without: usize,
}

/// One run's figures ([`crate::measure::fieldtest`] counts them): accepted rules (by
/// identity), promotion trajectories passed, rejection trajectories that accepted a rule,
/// and the two denominators.
pub struct Counts {
    pub accepted: BTreeSet<String>,
    pub promoted: usize,
    pub false_accepts: usize,
    pub promotion_n: usize,
    pub rejection_n: usize,
}

/// Runs `measure` (one learning run on fixed corpora and settings) with every table on,
/// then once per table with that table off.
pub fn ablate(mut measure: impl FnMut() -> Counts) -> Tables {
    let all = measure();
    let tables = Table::ALL
        .iter()
        .map(|&t| {
            let off = {
                let _off = switch_off(t);
                measure()
            };
            TableLine {
                table: t.name(),
                accepted_with: all.accepted.len(),
                accepted_without: off.accepted.len(),
                depend: all.accepted.difference(&off.accepted).count(),
                gained: off.accepted.difference(&all.accepted).count(),
                promoted_with: all.promoted,
                promoted_without: off.promoted,
                false_accepts_with: all.false_accepts,
                false_accepts_without: off.false_accepts,
            }
        })
        .collect();
    Tables {
        promotion_n: all.promotion_n,
        rejection_n: all.rejection_n,
        accepted: all.accepted.len(),
        promoted: all.promoted,
        false_accepts: all.false_accepts,
        tables,
    }
}

/// The per-table lines a person reads.
pub fn render_markdown(t: &Tables) -> String {
    let mut s = format!(
        "## What each table decides\n\nAll tables on: {} accepted rules, {}/{} promotion trajectories passed, {}/{} rejection trajectories accepted a rule.\n\n",
        t.accepted, t.promoted, t.promotion_n, t.false_accepts, t.rejection_n
    );
    s.push_str("| table | accepted with / without | depend on it | gained without | promoted with / without | false accepts with / without |\n");
    s.push_str("|---|---|---|---|---|---|\n");
    for l in &t.tables {
        s.push_str(&format!(
            "| {} | {} / {} | {} | {} | {}/{n} / {}/{n} | {}/{r} / {}/{r} |\n",
            l.table,
            l.accepted_with,
            l.accepted_without,
            l.depend,
            l.gained,
            l.promoted_with,
            l.promoted_without,
            l.false_accepts_with,
            l.false_accepts_without,
            n = t.promotion_n,
            r = t.rejection_n,
        ));
    }
    s
}
