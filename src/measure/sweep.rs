//! Threshold × margin sweep of the accept decision, per domain (`fable fieldtest --sweep`).
//!
//! The reference's open question: is the match threshold right, and is the +0.10 margin
//! right, or should they be per domain? For every grid point the *production* pipeline
//! ([`learn::run_pipeline`]) runs once on the combined history with that threshold and
//! margin (every other setting as configured), and the accept decision is scored per
//! domain — the domain of a trajectory's first failing record ([`command_norm`]; `none`
//! when it has no failure):
//! - TP: promotion-corpus trajectories an accepted rule draws support from (they pass);
//! - FN: promotion-corpus trajectories that do not pass;
//! - FP: rejection-corpus trajectories an accepted rule draws support from;
//! - TN: the other rejection-corpus trajectories. Pool corpora are history only.
//!
//! precision = TP/(TP+FP), null when TP+FP = 0 (nothing accepted: unmeasured, not 0);
//! recall = TP/(TP+FN), null without promotion trajectories; F1 null when either is null.
//! The best point (per domain and overall) has the highest F1; ties go to the higher
//! threshold, then the higher margin (the stricter setting).

use crate::evidence::Record;
use crate::learn::command_norm;
use crate::learn::wilson::round3;
use crate::learn::{self, LearnConfig, LearnOutcome};
use crate::measure::corpus::Kind;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

/// The default threshold grid: 0.25 ..= 0.75, step 0.05.
pub fn default_thresholds() -> Vec<f64> {
    (0..=10).map(|i| round2(0.25 + 0.05 * i as f64)).collect()
}

/// The default margin grid.
pub fn default_margins() -> Vec<f64> {
    vec![0.0, 0.05, 0.10, 0.15, 0.20]
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// A scored trajectory: its corpus kind, its records' span in the history, its domain.
#[derive(Debug, Clone)]
pub struct Labelled {
    pub kind: Kind,
    pub span: Range<usize>,
    pub domain: String,
}

/// The domain of a trajectory: that of its first failing record, `none` without one.
pub fn trajectory_domain(records: &[Record]) -> String {
    records
        .iter()
        .find(|r| !r.ok)
        .map(|r| command_norm::normalize(&r.cmd).domain().to_string())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "none".into())
}

/// Confusion counts and the figures derived from them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Cell {
    pub tp: usize,
    pub fp: usize,
    #[serde(rename = "fn")]
    pub fn_: usize,
    pub tn: usize,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
}

impl Cell {
    fn add(&mut self, kind: Kind, passed_accept: bool) {
        match (kind, passed_accept) {
            (Kind::Promotion, true) => self.tp += 1,
            (Kind::Promotion, false) => self.fn_ += 1,
            (Kind::Rejection, true) => self.fp += 1,
            (Kind::Rejection, false) => self.tn += 1,
            (Kind::Pool, _) => {}
        }
    }

    /// Fills precision, recall and F1 from the counts (null where undefined).
    pub fn finish(mut self) -> Cell {
        let p = (self.tp + self.fp > 0).then(|| self.tp as f64 / (self.tp + self.fp) as f64);
        let r = (self.tp + self.fn_ > 0).then(|| self.tp as f64 / (self.tp + self.fn_) as f64);
        self.f1 = p.zip(r).map(|(p, r)| {
            if p + r > 0.0 {
                round3(2.0 * p * r / (p + r))
            } else {
                0.0
            }
        });
        self.precision = p.map(round3);
        self.recall = r.map(round3);
        self
    }
}

/// One grid point.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    pub threshold: f64,
    pub margin: f64,
    pub accepted_rules: usize,
    pub overall: Cell,
    pub domains: BTreeMap<String, Cell>,
}

/// The best point for a domain (or overall).
#[derive(Debug, Clone, Serialize)]
pub struct Best {
    pub threshold: f64,
    pub margin: f64,
    pub cell: Cell,
}

#[derive(Debug, Clone, Serialize)]
pub struct Sweep {
    pub thresholds: Vec<f64>,
    pub margins: Vec<f64>,
    /// Domains with their promotion / rejection trajectory counts.
    pub domains: BTreeMap<String, (usize, usize)>,
    pub points: Vec<Point>,
    /// Where the configured threshold and margin sit (null when off the grid).
    pub defaults: Option<Point>,
    pub default_threshold: f64,
    pub default_margin: f64,
    /// Highest F1 (ties → higher threshold, then higher margin); null when no point has one.
    pub best_overall: Option<Best>,
    pub best: BTreeMap<String, Option<Best>>,
    /// Grid points that tie the best overall F1, and their threshold range: a wide
    /// plateau means the threshold is not what decides acceptance there.
    pub best_overall_ties: usize,
    pub best_overall_thresholds: Option<(f64, f64)>,
    /// Does the default point reach the best F1 (overall, and per domain)? Null when
    /// there is no best (no F1 anywhere) or the default is off the grid.
    pub default_at_best: Option<bool>,
    pub default_at_best_by_domain: BTreeMap<String, Option<bool>>,
    /// The chart file, when one was written.
    pub chart: Option<String>,
}

/// Scores one pipeline outcome: which labelled trajectories an accepted rule drew support from.
pub fn score_point(
    outcome: &LearnOutcome,
    labelled: &[Labelled],
    history_len: usize,
) -> (Cell, BTreeMap<String, Cell>) {
    let mut accepted_at = vec![false; history_len];
    for l in outcome.candidates.iter().filter(|l| l.rule.accepted == Some(true)) {
        for s in &l.support_refs {
            if let Some(v) = accepted_at.get_mut(s.index) {
                *v = true;
            }
        }
    }
    let mut overall = Cell::default();
    let mut domains: BTreeMap<String, Cell> = BTreeMap::new();
    for t in labelled.iter().filter(|t| t.kind != Kind::Pool) {
        let hit = t.span.clone().any(|i| accepted_at.get(i).copied().unwrap_or(false));
        overall.add(t.kind, hit);
        domains.entry(t.domain.clone()).or_default().add(t.kind, hit);
    }
    (
        overall.finish(),
        domains.into_iter().map(|(d, c)| (d, c.finish())).collect(),
    )
}

/// True when `a` beats `b` as the best point: higher F1, then higher threshold, then margin.
fn better(a: &Best, b: &Best) -> bool {
    let (fa, fb) = (a.cell.f1.unwrap_or(-1.0), b.cell.f1.unwrap_or(-1.0));
    if (fa - fb).abs() > 1e-9 {
        return fa > fb;
    }
    if (a.threshold - b.threshold).abs() > 1e-9 {
        return a.threshold > b.threshold;
    }
    a.margin > b.margin
}

/// Picks the best point from (threshold, margin, cell) triples; None when no cell has an F1.
pub fn best_of<'a>(cells: impl Iterator<Item = (f64, f64, &'a Cell)>) -> Option<Best> {
    let mut best: Option<Best> = None;
    for (t, m, c) in cells.filter(|(_, _, c)| c.f1.is_some()) {
        let cand = Best {
            threshold: t,
            margin: m,
            cell: c.clone(),
        };
        if best.as_ref().is_none_or(|b| better(&cand, b)) {
            best = Some(cand);
        }
    }
    best
}

/// Runs the sweep: the production pipeline once per grid point, on `history`.
pub fn run(
    history: &[Record],
    labelled: &[Labelled],
    base: &LearnConfig,
    thresholds: &[f64],
    margins: &[f64],
) -> Sweep {
    let grid: Vec<(f64, f64)> = thresholds
        .iter()
        .flat_map(|&t| margins.iter().map(move |&m| (t, m)))
        .collect();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 2);
    let chunk = grid.len().div_ceil(workers).max(1);
    let mut points: Vec<Point> = std::thread::scope(|s| {
        let handles: Vec<_> = grid
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|&(t, m)| {
                            let cfg = LearnConfig {
                                threshold: t,
                                margin: m,
                                ..base.clone()
                            };
                            let out = learn::run_pipeline(history, &cfg);
                            let (overall, domains) = score_point(&out, labelled, history.len());
                            Point {
                                threshold: t,
                                margin: m,
                                accepted_rules: out.candidates.iter().filter(|l| l.rule.accepted == Some(true)).count(),
                                overall,
                                domains,
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    points.sort_by(|a, b| a.threshold.total_cmp(&b.threshold).then(a.margin.total_cmp(&b.margin)));
    let mut domains: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for t in labelled {
        let e = domains.entry(t.domain.clone()).or_default();
        match t.kind {
            Kind::Promotion => e.0 += 1,
            Kind::Rejection => e.1 += 1,
            Kind::Pool => {}
        }
    }
    domains.retain(|_, (p, r)| *p + *r > 0);
    let best_overall = best_of(points.iter().map(|p| (p.threshold, p.margin, &p.overall)));
    let best: BTreeMap<String, Option<Best>> = domains
        .keys()
        .map(|d| {
            (
                d.clone(),
                best_of(
                    points
                        .iter()
                        .filter_map(|p| p.domains.get(d).map(|c| (p.threshold, p.margin, c))),
                ),
            )
        })
        .collect();
    let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let defaults = points
        .iter()
        .find(|p| near(p.threshold, base.threshold) && near(p.margin, base.margin))
        .cloned();
    let f1_eq = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-9,
        _ => false,
    };
    let best_f1 = best_overall.as_ref().and_then(|b| b.cell.f1);
    let ties: Vec<f64> = points
        .iter()
        .filter(|p| f1_eq(p.overall.f1, best_f1))
        .map(|p| p.threshold)
        .collect();
    let best_overall_thresholds = (!ties.is_empty()).then(|| {
        (
            ties.iter().copied().fold(f64::MAX, f64::min),
            ties.iter().copied().fold(f64::MIN, f64::max),
        )
    });
    let default_at_best = best_f1.and(defaults.as_ref()).map(|d| f1_eq(d.overall.f1, best_f1));
    let default_at_best_by_domain: BTreeMap<String, Option<bool>> = best
        .iter()
        .map(|(d, b)| {
            let v = b.as_ref().and_then(|b| {
                defaults
                    .as_ref()
                    .map(|p| f1_eq(p.domains.get(d).and_then(|c| c.f1), b.cell.f1))
            });
            (d.clone(), v)
        })
        .collect();
    Sweep {
        best_overall_ties: ties.len(),
        best_overall_thresholds,
        default_at_best,
        default_at_best_by_domain,
        thresholds: thresholds.to_vec(),
        margins: margins.to_vec(),
        domains,
        points,
        defaults,
        default_threshold: base.threshold,
        default_margin: base.margin,
        best_overall,
        best,
        chart: None,
    }
}

fn f(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "—".into())
}

fn yes_no(v: Option<bool>, yes: &'static str, no: &'static str) -> &'static str {
    match v {
        Some(true) => yes,
        Some(false) => no,
        None => "— (no F1 to compare)",
    }
}

fn cell_text(c: &Cell) -> String {
    format!("{}/{}/{}", f(c.precision), f(c.recall), f(c.f1))
}

fn best_text(b: &Option<Best>) -> String {
    match b {
        Some(b) => format!(
            "t {:.2}, m {:.2}: {} (TP {}, FP {}, FN {})",
            b.threshold,
            b.margin,
            cell_text(&b.cell),
            b.cell.tp,
            b.cell.fp,
            b.cell.fn_
        ),
        None => "—".into(),
    }
}

/// The Markdown section: overall P/R/F1 over the grid, then per domain.
pub fn render_markdown(s: &Sweep) -> String {
    let mut o = String::from("## Threshold × margin sweep\n\n");
    o.push_str(&format!(
        "The production pipeline, run once per grid point ({} thresholds × {} margins = {} runs) on the combined history; the accept decision scored per domain of each trajectory's first failure. Cells: precision/recall/F1 (— = null: nothing accepted, or no promotion trajectory). Defaults: threshold {:.2}, margin {:.2}{}.\n\n",
        s.thresholds.len(),
        s.margins.len(),
        s.points.len(),
        s.default_threshold,
        s.default_margin,
        if s.defaults.is_none() { " (off the grid)" } else { "" }
    ));
    o.push_str("### Overall\n\n| threshold |");
    for m in &s.margins {
        o.push_str(&format!(" margin {m:.2} |"));
    }
    o.push_str("\n|---|");
    for _ in &s.margins {
        o.push_str("---|");
    }
    o.push('\n');
    for t in &s.thresholds {
        o.push_str(&format!("| {t:.2} |"));
        for m in &s.margins {
            let p = s
                .points
                .iter()
                .find(|p| (p.threshold - t).abs() < 1e-9 && (p.margin - m).abs() < 1e-9);
            let mark = if (t - s.default_threshold).abs() < 1e-9 && (m - s.default_margin).abs() < 1e-9 {
                " **(default)**"
            } else {
                ""
            };
            o.push_str(&format!(
                " {}{} |",
                p.map(|p| format!("{} ({} acc.)", cell_text(&p.overall), p.accepted_rules))
                    .unwrap_or_else(|| "—".into()),
                mark
            ));
        }
        o.push('\n');
    }
    o.push_str(&format!(
        "\nBest overall: {} — reached at {} of {} grid points{}; the defaults {}.\n\n",
        best_text(&s.best_overall),
        s.best_overall_ties,
        s.points.len(),
        s.best_overall_thresholds
            .map(|(a, b)| format!(" (thresholds {a:.2}–{b:.2})"))
            .unwrap_or_default(),
        yes_no(s.default_at_best, "reach it", "do not reach it")
    ));
    o.push_str("### Per domain\n\n| domain | promotion n | rejection n | at defaults P/R/F1 | best (by F1; ties → higher threshold) | defaults at best |\n|---|---|---|---|---|---|\n");
    for (d, (np, nr)) in &s.domains {
        let at = s
            .defaults
            .as_ref()
            .and_then(|p| p.domains.get(d))
            .map(cell_text)
            .unwrap_or_else(|| "—".into());
        o.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            d,
            np,
            nr,
            at,
            best_text(s.best.get(d).unwrap_or(&None)),
            yes_no(s.default_at_best_by_domain.get(d).copied().flatten(), "yes", "no")
        ));
    }
    if let Some(c) = &s.chart {
        o.push_str(&format!("\nChart: `{c}` — left: overall precision (solid) and recall (dashed) against the threshold, one colour per margin; right: F1 per domain against the threshold at the default margin.\n"));
    }
    o
}

/// The domains in the chart's right panel (those with promotion trajectories), by size.
pub fn chart_domains(s: &Sweep, max: usize) -> Vec<String> {
    let mut v: Vec<(&String, &(usize, usize))> = s.domains.iter().filter(|(_, (p, _))| *p > 0).collect();
    v.sort_by(|a, b| (b.1 .0 + b.1 .1).cmp(&(a.1 .0 + a.1 .1)).then(a.0.cmp(b.0)));
    v.into_iter().take(max).map(|(d, _)| d.clone()).collect()
}

/// Distinct domains (for tests and readers).
pub fn domain_set(labelled: &[Labelled]) -> BTreeSet<String> {
    labelled.iter().map(|l| l.domain.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid() {
        let t = default_thresholds();
        assert_eq!(t.len(), 11);
        assert_eq!((t[0], t[4], t[10]), (0.25, 0.45, 0.75));
        assert_eq!(default_margins().len(), 5);
    }

    #[test]
    fn cell_nulls() {
        let c = Cell {
            fn_: 3,
            tn: 2,
            ..Cell::default()
        }
        .finish();
        assert_eq!((c.precision, c.recall, c.f1), (None, Some(0.0), None));
        let c = Cell {
            tp: 2,
            fp: 1,
            fn_: 2,
            tn: 5,
            ..Cell::default()
        }
        .finish();
        assert_eq!((c.precision, c.recall, c.f1), (Some(0.667), Some(0.5), Some(0.571)));
        let c = Cell {
            tn: 2,
            ..Cell::default()
        }
        .finish();
        assert_eq!((c.precision, c.recall, c.f1), (None, None, None));
    }

    #[test]
    fn best_ties_go_to_higher_threshold() {
        let good = Cell {
            tp: 1,
            ..Cell::default()
        }
        .finish();
        let bad = Cell {
            fn_: 1,
            fp: 1,
            ..Cell::default()
        }
        .finish();
        let b = best_of(
            [
                (0.3, 0.1, &good),
                (0.5, 0.0, &good),
                (0.5, 0.1, &good),
                (0.7, 0.2, &bad),
            ]
            .into_iter(),
        )
        .unwrap();
        assert_eq!((b.threshold, b.margin), (0.5, 0.1));
        let none = Cell::default().finish();
        assert!(best_of([(0.3, 0.1, &none)].into_iter()).is_none());
    }
}
