//! `fable fieldtest`: the production learning pipeline on labelled corpora.
//!
//! Every trajectory given (each corpus named, plus `--pool` corpora) becomes one evidence
//! history, and [`crate::learn::run_pipeline`] — the very function `fable-learn` runs on a
//! real log, every gate included — learns from it. There is no test-only path: a gate
//! that lived only here would be a gate users never get (seed 000).
//!
//! Scoring (`formats.md` §4):
//! - promotion corpus: a trajectory passes when an *accepted* rule (verdict pass, no gate
//!   blocked it) draws support from it;
//! - rejection corpus: a trajectory passes when no accepted rule draws support from it;
//!   the corpus passes only with 0 accepted rules; its rate is `false_accept_rate`;
//! - pool: history only, not scored.
//!
//! Sources: `--packs none|core` chooses whether the curated core pack
//! (`learn::propose::core_pack`) is applied (default: the config's `packs`, i.e. on, as in
//! production), the report says which (`packs`), and each corpus counts its accepted
//! rules and passed trajectories by `directive_source` (`accepted_by_source`,
//! `passed_by_source`): `fix`/`variant` are learned, `pack` is curated, `template` is the
//! generic fallback.
//!
//! Per class: when trajectories carry the optional `class` field, each scored corpus adds
//! `classes` (passed/n and the Wilson interval per class, [`crate::measure::classes`]),
//! printed as a "Per class" table.
//!
//! Optional sections (fields absent unless asked for): `--time-split F` adds `recurrence`
//! ([`crate::measure::recurrence`], before/after recurrence of the learned classes) and `--sweep`
//! adds `sweep` ([`crate::measure::sweep`], threshold × margin per domain, `sweep.svg` in `--out`);
//! `--tables` adds `tables` ([`crate::measure::ablation`], each hand-written table off in turn).

use crate::error::{Error, IoContext, Result};
use crate::evidence::Record;
use crate::learn::wilson::{round3, wilson};
use crate::learn::{self, LearnConfig, LearnOutcome, Learned};
use crate::measure::corpus::{self, Corpus, Kind};
use crate::measure::extraction_metrics as xm;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct FieldtestArgs {
    /// Corpus folders to score (each holds corpus.json and trajectories.jsonl).
    #[arg(required = true, value_name = "CORPUS")]
    pub corpora: Vec<PathBuf>,
    /// Extra history, not scored (the everyday successes and failures a rule must not break).
    #[arg(long = "pool", value_name = "CORPUS")]
    pub pools: Vec<PathBuf>,
    /// Print the JSON report (formats.md §4) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also write report.json and report.md (a person's read) into this folder.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Learning settings (JSON, any subset of `.fable/learn.json` fields).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Exit 3 when any rejection corpus accepts a rule (for CI).
    #[arg(long)]
    pub gate: bool,
    /// Add a `recurrence` section: learn on the first F of sessions (by time), measure each
    /// rule's class before and after (see `recurrence`).
    #[arg(long = "time-split", value_name = "F")]
    pub time_split: Option<f64>,
    /// Add a `sweep` section: threshold × margin grid, precision/recall per domain, and
    /// `sweep.svg` in `--out`.
    #[arg(long)]
    pub sweep: bool,
    /// Curated packs applied with what is learned: `core` (the default, as in production)
    /// or `none` (learned rules only). Overrides `packs` of `--config`.
    #[arg(long, value_name = "none|core")]
    pub packs: Option<String>,
    /// Add a `tables` section: the corpora again with each hand-written table of the
    /// learner off in turn, and per table the accepted rules that depend on it.
    #[arg(long)]
    pub tables: bool,
}

/// The rule reported for a trajectory (the best one drawn from it).
#[derive(Debug, Clone, Serialize)]
pub struct TrajRule {
    pub id: String,
    pub trigger: String,
    pub directive: String,
    pub accepted: bool,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct TrajResult {
    pub id: String,
    pub passed: bool,
    pub rule: Option<TrajRule>,
}

/// Extraction figures; every field is null when no trajectory carries an expected rule.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Extraction {
    pub n: usize,
    pub token_f1: Option<f64>,
    pub directive_f1: Option<f64>,
    pub agreement: Option<f64>,
    /// CauterRule's set-based token F1 (a different metric), labelled for comparison.
    pub cauterule_token_f1: Option<f64>,
    /// Mean of the trigger comparator behind `agreement`.
    pub trigger_similarity: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CorpusReport {
    pub name: String,
    pub kind: &'static str,
    pub n: usize,
    pub passed: Option<usize>,
    pub pass_rate: Option<f64>,
    pub wilson: Option<(f64, f64)>,
    pub accepted_rules: usize,
    pub rate_label: Option<&'static str>,
    pub rate: Option<f64>,
    pub verdicts: BTreeMap<String, usize>,
    pub extraction: Extraction,
    pub trajectories: Vec<TrajResult>,
    /// Rejection corpora: true only with 0 accepted rules. Promotion: null.
    pub corpus_passed: Option<bool>,
    /// Lines skipped as malformed while loading.
    pub malformed: usize,
    /// Accepted rules drawn from this corpus, by `directive_source` (`fix`, `variant`,
    /// `pack`, `template`, `extractor`): which number is learning and which is the
    /// curated pack. Optional (formats.md §4 adds it).
    pub accepted_by_source: BTreeMap<String, usize>,
    /// Trajectories that pass through an accepted rule of that source (promotion: drawn
    /// support; a trajectory may count under several sources).
    pub passed_by_source: BTreeMap<String, usize>,
    /// Optional: per failure class (the trajectories' `class` field), passed/n with the
    /// Wilson interval. Absent when no trajectory of the corpus has a class, and for pools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classes: Option<Vec<crate::measure::classes::ClassReport>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub version: u32,
    /// The curated packs the pipeline applied (`[]`: learned rules only).
    pub packs: Vec<String>,
    pub corpora: Vec<CorpusReport>,
    pub generic_trigger_rate: Option<f64>,
    /// What the pipeline saw, for the reader.
    pub history: Value,
    /// Optional (`--time-split F`): recurrence before/after a time split.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recurrence: Option<crate::measure::recurrence::Recurrence>,
    /// Optional (`--sweep`): the threshold × margin sweep.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<crate::measure::sweep::Sweep>,
    /// Optional (`--tables`): what each hand-written table decides ([`crate::measure::ablation`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<crate::measure::ablation::Tables>,
}

/// One loaded corpus and the range of history indices its trajectories occupy.
struct Placed {
    corpus: Corpus,
    scored: bool,
    /// For each trajectory: its records' indices in the history.
    spans: Vec<std::ops::Range<usize>>,
}

/// Lays every trajectory end to end as one history (corpus order, then trajectory order),
/// remembering where each one sits.
fn assemble(corpora: Vec<(Corpus, bool)>) -> (Vec<Record>, Vec<Placed>) {
    let mut history = Vec::new();
    let mut placed = Vec::new();
    for (corpus, scored) in corpora {
        let mut spans = Vec::new();
        for t in &corpus.trajectories {
            let start = history.len();
            history.extend(t.records.iter().cloned());
            spans.push(start..history.len());
        }
        placed.push(Placed { corpus, scored, spans });
    }
    (history, placed)
}

fn is_accepted(l: &Learned) -> bool {
    l.rule.accepted == Some(true)
}

/// A rule's `directive_source` (`unknown` when it has none).
fn source_of(l: &Learned) -> String {
    l.rule.directive_source.clone().unwrap_or_else(|| "unknown".into())
}

/// Scores a learning outcome against the corpora it was learned from.
fn score(outcome: &LearnOutcome, placed: &[Placed], history_len: usize) -> Vec<CorpusReport> {
    // For every history index, which candidates drew support from it.
    let mut owner: Vec<Vec<usize>> = vec![Vec::new(); history_len];
    for (ci, l) in outcome.candidates.iter().enumerate() {
        for s in &l.support_refs {
            if let Some(v) = owner.get_mut(s.index) {
                v.push(ci);
            }
        }
    }
    let mut reports = Vec::new();
    for p in placed.iter().filter(|p| p.scored || p.corpus.kind == Kind::Pool) {
        let kind = p.corpus.kind;
        let mut trajectories = Vec::new();
        let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
        let mut accepted_here = std::collections::BTreeSet::new();
        let mut passed_by_source: BTreeMap<String, usize> = BTreeMap::new();
        let mut scores = Vec::new();
        let mut accepted_per_traj: Vec<Vec<usize>> = Vec::new();
        for (t, span) in p.corpus.trajectories.iter().zip(&p.spans) {
            let mut drawn: Vec<usize> = span.clone().flat_map(|i| owner[i].iter().copied()).collect();
            drawn.sort_unstable();
            drawn.dedup();
            // Best: accepted first, then the pipeline's own ranking (candidate order).
            let best = drawn
                .iter()
                .copied()
                .min_by_key(|ci| (!is_accepted(&outcome.candidates[*ci]), *ci));
            let any_accepted = drawn.iter().any(|ci| is_accepted(&outcome.candidates[*ci]));
            let mut sources = std::collections::BTreeSet::new();
            let mut accepted_t = Vec::new();
            for ci in drawn.iter().filter(|ci| is_accepted(&outcome.candidates[**ci])) {
                accepted_here.insert(*ci);
                accepted_t.push(*ci);
                sources.insert(source_of(&outcome.candidates[*ci]));
            }
            accepted_per_traj.push(accepted_t);
            if kind == Kind::Promotion {
                for src in sources {
                    *passed_by_source.entry(src).or_default() += 1;
                }
            }
            let reason = best
                .map(|ci| outcome.candidates[ci].rule.reason.clone())
                .unwrap_or_else(|| "no_candidate".into());
            *verdicts.entry(reason).or_default() += 1;
            let passed = match kind {
                Kind::Promotion => any_accepted,
                Kind::Rejection => !any_accepted,
                Kind::Pool => false,
            };
            let rule = best.map(|ci| {
                let r = &outcome.candidates[ci].rule;
                TrajRule {
                    id: r.id.clone(),
                    trigger: r.trigger.clone(),
                    directive: r.directive.clone(),
                    accepted: is_accepted(&outcome.candidates[ci]),
                    reason: r.reason.clone(),
                }
            });
            if let Some(exp) = &t.expected_rule {
                scores.push(match &rule {
                    Some(r) => xm::score(&r.trigger, &r.directive, &exp.trigger, &exp.directive),
                    None => xm::score("", "", &exp.trigger, &exp.directive),
                });
            }
            trajectories.push(TrajResult {
                id: t.id.clone(),
                passed,
                rule,
            });
        }
        let n = trajectories.len();
        let scored = kind != Kind::Pool;
        let classes = if scored {
            let items: Vec<crate::measure::classes::Scored> = p
                .corpus
                .trajectories
                .iter()
                .zip(&trajectories)
                .zip(&accepted_per_traj)
                .map(|((t, r), acc)| crate::measure::classes::Scored {
                    class: t.class.as_deref(),
                    passed: r.passed,
                    accepted: acc,
                })
                .collect();
            crate::measure::classes::per_class(&items)
        } else {
            None
        };
        let passed = trajectories.iter().filter(|t| t.passed).count();
        let pass_rate = (scored && n > 0).then(|| round3(passed as f64 / n as f64));
        let rate = pass_rate.map(|r| if kind == Kind::Rejection { round3(1.0 - r) } else { r });
        reports.push(CorpusReport {
            name: p.corpus.name.clone(),
            kind: kind.as_str(),
            n,
            passed: scored.then_some(passed),
            pass_rate,
            wilson: if scored {
                wilson(passed as u64, n as u64).map(|(a, b)| (round3(a), round3(b)))
            } else {
                None
            },
            accepted_rules: accepted_here.len(),
            rate_label: match kind {
                Kind::Promotion => Some("acceptance_rate"),
                Kind::Rejection => Some("false_accept_rate"),
                Kind::Pool => None,
            },
            rate,
            verdicts,
            extraction: extraction(&scores),
            trajectories,
            corpus_passed: (kind == Kind::Rejection).then_some(accepted_here.is_empty()),
            malformed: p.corpus.malformed,
            accepted_by_source: accepted_here.iter().fold(BTreeMap::new(), |mut m, &ci| {
                *m.entry(source_of(&outcome.candidates[ci])).or_default() += 1;
                m
            }),
            passed_by_source,
            classes,
        });
    }
    reports
}

fn extraction(scores: &[xm::Scores]) -> Extraction {
    if scores.is_empty() {
        return Extraction::default();
    }
    let n = scores.len() as f64;
    let mean = |f: &dyn Fn(&xm::Scores) -> f64| Some(round3(scores.iter().map(f).sum::<f64>() / n));
    Extraction {
        n: scores.len(),
        token_f1: mean(&|s| s.token_f1),
        directive_f1: mean(&|s| s.directive_f1),
        agreement: mean(&|s| if s.agreement { 1.0 } else { 0.0 }),
        cauterule_token_f1: mean(&|s| s.cauterule_token_f1),
        trigger_similarity: mean(&|s| s.trigger_similarity),
    }
}

/// Loads the corpora, runs the production pipeline once on all of them, scores each.
pub fn run_fieldtest(corpora: &[PathBuf], pools: &[PathBuf], cfg: &LearnConfig) -> Result<Report> {
    run_fieldtest_with(corpora, pools, cfg, None, false)
}

/// As [`run_fieldtest`], plus the optional recurrence (time split at `time_split`) and
/// sweep sections.
pub fn run_fieldtest_with(
    corpora: &[PathBuf],
    pools: &[PathBuf],
    cfg: &LearnConfig,
    time_split: Option<f64>,
    sweep: bool,
) -> Result<Report> {
    let (history, placed) = load_placed(corpora, pools)?;
    let outcome = learn::run_pipeline(&history, cfg);
    let recurrence = time_split.map(|f| crate::measure::recurrence::time_split(&history, f, cfg));
    let sweep = sweep.then(|| {
        let labelled: Vec<crate::measure::sweep::Labelled> = placed
            .iter()
            .filter(|p| p.scored)
            .flat_map(|p| {
                p.corpus
                    .trajectories
                    .iter()
                    .zip(&p.spans)
                    .map(|(t, span)| crate::measure::sweep::Labelled {
                        kind: p.corpus.kind,
                        span: span.clone(),
                        domain: crate::measure::sweep::trajectory_domain(&t.records),
                    })
            })
            .collect();
        crate::measure::sweep::run(
            &history,
            &labelled,
            cfg,
            &crate::measure::sweep::default_thresholds(),
            &crate::measure::sweep::default_margins(),
        )
    });
    let corpora = score(&outcome, &placed, history.len());
    let total = outcome.candidates.len();
    let generic = outcome.candidates.iter().filter(|l| l.rule.reason == "generic").count();
    Ok(Report {
        version: 1,
        packs: cfg.packs.clone(),
        corpora,
        generic_trigger_rate: (total > 0).then(|| round3(generic as f64 / total as f64)),
        history: json!({"records": outcome.records, "episodes": outcome.episodes, "flaky": outcome.flaky,
            "candidates": total, "accepted": outcome.candidates.iter().filter(|l| is_accepted(l)).count(),
            "min_sample": outcome.min_sample, "threshold": cfg.threshold, "margin": cfg.margin}),
        recurrence,
        sweep,
        tables: None,
    })
}

/// One learning run's figures for the table ablation: accepted rules by dedup key (else
/// trigger and directive), promotion trajectories passed, rejection trajectories that
/// accepted a rule.
fn counts(history: &[Record], placed: &[Placed], cfg: &LearnConfig) -> crate::measure::ablation::Counts {
    let outcome = learn::run_pipeline(history, cfg);
    let accepted = outcome
        .candidates
        .iter()
        .filter(|l| is_accepted(l))
        .map(|l| {
            l.rule
                .key
                .clone()
                .unwrap_or_else(|| format!("{}\u{1f}{}", l.rule.trigger, l.rule.directive))
        })
        .collect();
    let reports = score(&outcome, placed, history.len());
    let kind = |k: &'static str| reports.iter().filter(move |c| c.kind == k);
    crate::measure::ablation::Counts {
        accepted,
        promoted: kind("promotion").filter_map(|c| c.passed).sum(),
        false_accepts: kind("rejection").map(|c| c.n - c.passed.unwrap_or(c.n)).sum(),
        promotion_n: kind("promotion").map(|c| c.n).sum(),
        rejection_n: kind("rejection").map(|c| c.n).sum(),
    }
}

/// Loads the corpora (scored) and pools (history only) and lays them end to end.
fn load_placed(corpora: &[PathBuf], pools: &[PathBuf]) -> Result<(Vec<Record>, Vec<Placed>)> {
    let mut loaded = Vec::new();
    for (p, scored) in corpora
        .iter()
        .map(|p| (p, true))
        .chain(pools.iter().map(|p| (p, false)))
    {
        if !p.exists() {
            return Err(Error::msg(format!("{}: no such corpus folder", p.display())));
        }
        // A shell glob over a corpora folder also names its README, NOTICE and raw/:
        // skip what is not a corpus, say so, and go on.
        if !p.join("corpus.json").is_file() {
            eprintln!(
                "fable fieldtest: skipped {}: not a corpus folder (no corpus.json)",
                p.display()
            );
            continue;
        }
        loaded.push((corpus::load(p)?, scored));
    }
    if loaded.is_empty() {
        return Err(Error::msg(
            "no corpus folders given (each holds corpus.json and trajectories.jsonl)",
        ));
    }
    Ok(assemble(loaded))
}

fn fmt_wilson(w: Option<(f64, f64)>) -> String {
    w.map(|(a, b)| format!("[{a:.3}, {b:.3}]"))
        .unwrap_or_else(|| "null".into())
}

/// The Markdown report a person reads.
pub fn render_markdown(r: &Report) -> String {
    let mut s = String::from("# fable field test\n\n");
    s.push_str(&format!(
        "Packs: {} ({}).\n\n",
        if r.packs.is_empty() {
            "none".to_string()
        } else {
            r.packs.join(", ")
        },
        if r.packs.is_empty() {
            "learned rules only"
        } else {
            "learned rules plus the curated pack's; `by source` says which is which"
        }
    ));
    s.push_str(&format!(
        "History: {} records, {} episodes, {} candidates, {} accepted (threshold {}, margin {}). Generic-trigger rate: {}.\n\n",
        r.history["records"], r.history["episodes"], r.history["candidates"], r.history["accepted"],
        r.history["threshold"], r.history["margin"], crate::learn::wilson::fmt3(r.generic_trigger_rate)
    ));
    s.push_str("| corpus | kind | n | passed | rate | Wilson 95% | accepted rules | by source (rules / passed) | token F1 | directive F1 | agreement | CauterRule set-F1 |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for c in &r.corpora {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} {} | {} | {} | {} | {} | {} | {} | {} |\n",
            c.name,
            c.kind,
            c.n,
            c.passed.map(|p| p.to_string()).unwrap_or_else(|| "—".into()),
            c.rate_label.unwrap_or("—"),
            crate::learn::wilson::fmt3(c.rate),
            fmt_wilson(c.wilson),
            c.accepted_rules,
            by_source(c),
            crate::learn::wilson::fmt3(c.extraction.token_f1),
            crate::learn::wilson::fmt3(c.extraction.directive_f1),
            crate::learn::wilson::fmt3(c.extraction.agreement),
            crate::learn::wilson::fmt3(c.extraction.cauterule_token_f1),
        ));
    }
    s.push_str("\nRates: promotion corpora report the acceptance rate (share of trajectories an accepted rule drew support from); rejection corpora the false-accept rate, and pass only with 0 accepted rules. `null` means not measured (no expected rules), never 0.\n");
    let per_class: Vec<(&str, &str, &[crate::measure::classes::ClassReport])> = r
        .corpora
        .iter()
        .filter_map(|c| c.classes.as_deref().map(|v| (c.name.as_str(), c.kind, v)))
        .collect();
    if let Some(t) = crate::measure::classes::render_markdown(&per_class) {
        s.push('\n');
        s.push_str(&t);
    }
    for c in r.corpora.iter().filter(|c| c.kind != "pool") {
        s.push_str(&format!(
            "\n## {} ({})\n\nVerdicts of the best rule per trajectory: ",
            c.name, c.kind
        ));
        let v: Vec<String> = c.verdicts.iter().map(|(k, n)| format!("{k} {n}")).collect();
        s.push_str(&v.join(", "));
        s.push_str("\n\n| trajectory | passed | rule |\n|---|---|---|\n");
        for t in &c.trajectories {
            let rule = t
                .rule
                .as_ref()
                .map(|r| format!("{} ({}): when {} — {}", r.id, r.reason, r.trigger, r.directive).replace('|', "\\|"))
                .unwrap_or_else(|| "—".into());
            s.push_str(&format!(
                "| {} | {} | {} |\n",
                t.id,
                if t.passed { "yes" } else { "no" },
                rule
            ));
        }
    }
    if let Some(r) = &r.recurrence {
        s.push('\n');
        s.push_str(&crate::measure::recurrence::render_markdown(r));
    }
    if let Some(w) = &r.sweep {
        s.push('\n');
        s.push_str(&crate::measure::sweep::render_markdown(w));
    }
    if let Some(t) = &r.tables {
        s.push('\n');
        s.push_str(&crate::measure::ablation::render_markdown(t));
    }
    s
}

/// `fix 3/4, pack 40/41`: accepted rules and passed trajectories per source.
fn by_source(c: &CorpusReport) -> String {
    let v: Vec<String> = c
        .accepted_by_source
        .iter()
        .map(|(k, n)| format!("{k} {n}/{}", c.passed_by_source.get(k).copied().unwrap_or(0)))
        .collect();
    if v.is_empty() {
        "—".into()
    } else {
        v.join(", ")
    }
}

/// True when some rejection corpus accepted a rule.
pub fn any_false_accept(r: &Report) -> bool {
    r.corpora.iter().any(|c| c.corpus_passed == Some(false))
}

fn load_config(path: Option<&Path>) -> Result<LearnConfig> {
    let Some(p) = path else {
        return Ok(LearnConfig::default());
    };
    let text = std::fs::read_to_string(p).at(p)?;
    serde_json::from_str(&text).map_err(|source| Error::BadJson {
        path: p.to_path_buf(),
        source,
    })
}

pub fn run(a: &FieldtestArgs) -> Result<i32> {
    let mut cfg = load_config(a.config.as_deref())?;
    match a.packs.as_deref() {
        None => {}
        Some("none") => cfg.packs.clear(),
        Some(p @ "core") => cfg.packs = vec![p.to_string()],
        Some(other) => return Err(Error::msg(format!("--packs {other}: give `none` or `core`"))),
    }
    if let Some(f) = a.time_split {
        if !(0.0..=1.0).contains(&f) {
            return Err(Error::msg(format!("--time-split {f}: give a fraction between 0 and 1")));
        }
    }
    let mut report = run_fieldtest_with(&a.corpora, &a.pools, &cfg, a.time_split, a.sweep)?;
    if let (Some(w), Some(dir)) = (report.sweep.as_mut(), &a.out) {
        let svg = crate::measure::chart::render_svg(w).map_err(|e| Error::msg(format!("sweep chart: {e}")))?;
        std::fs::create_dir_all(dir).at(dir)?;
        let path = dir.join("sweep.svg");
        std::fs::write(&path, svg).at(&path)?;
        w.chart = Some("sweep.svg".into());
    }
    if a.tables {
        let (history, placed) = load_placed(&a.corpora, &a.pools)?;
        report.tables = Some(crate::measure::ablation::ablate(|| counts(&history, &placed, &cfg)));
    }
    let json_text = serde_json::to_string_pretty(&report).map_err(|e| Error::msg(e.to_string()))?;
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).at(dir)?;
        std::fs::write(dir.join("report.json"), format!("{json_text}\n")).at(dir.join("report.json"))?;
        std::fs::write(dir.join("report.md"), render_markdown(&report)).at(dir.join("report.md"))?;
    }
    if a.json {
        println!("{json_text}");
    } else {
        println!("{}", render_markdown(&report).split("\n## ").next().unwrap_or_default());
        if let Some(r) = &report.recurrence {
            println!("{}", crate::measure::recurrence::render_markdown(r));
        }
        if let Some(w) = &report.sweep {
            println!("{}", crate::measure::sweep::render_markdown(w));
        }
        if let Some(t) = &report.tables {
            println!("{}", crate::measure::ablation::render_markdown(t));
        }
    }
    if a.gate && any_false_accept(&report) {
        eprintln!("fable fieldtest: a rejection corpus accepted a rule (see `accepted_rules`)");
        return Ok(crate::error::exit::GATE);
    }
    Ok(0)
}
