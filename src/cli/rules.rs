//! `fable rules …`: extract, replay, list, show, promote, retire, export, import, recurrence.
//!
//! Every subcommand works on the project found from the current directory (or
//! `--project DIR`), reads `.fable/rules.json` and, where it learns or replays, the whole
//! evidence history. `--json` prints machine-readable output: `list --json` and
//! `extract --json` print an array of formats.md §3 rules.

use crate::error::{Error, Result};
use crate::learn::rule_export;
use crate::learn::rules::{self, Store};
use crate::learn::{self, LearnConfig, Rule};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Prints a line; a closed pipe (`fable rules list | head`) ends output quietly.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    #[command(flatten)]
    pub project: crate::project_arg::ProjectArg,
    #[command(subcommand)]
    pub cmd: RulesCmd,
}

#[derive(Debug, clap::Subcommand)]
pub enum RulesCmd {
    /// Learn candidate rules from the evidence history and store them.
    Extract {
        #[arg(long)]
        json: bool,
        /// Extra evidence logs (JSONL of evidence records) to learn from.
        #[arg(long = "log")]
        logs: Vec<PathBuf>,
        /// Extra corpora (folders with trajectories.jsonl) to learn from.
        #[arg(long = "corpus")]
        corpora: Vec<PathBuf>,
        /// External proposer: gets an episode as JSON on stdin, prints {trigger, directive}.
        #[arg(long)]
        extractor_cmd: Option<String>,
        /// Print what would be stored without writing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Replay every stored rule against the current history and update its verdict.
    Replay {
        #[arg(long)]
        json: bool,
    },
    /// List stored rules.
    List {
        #[arg(long)]
        json: bool,
        /// Only rules with this status (candidate, promoted, retired, blocked).
        #[arg(long)]
        status: Option<String>,
    },
    /// Show one rule.
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Promote a rule by hand (refused for blocked rules).
    Promote {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Retire a rule: it stays in the store but is no longer injected.
    Retire {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Export rules: a pack file, or a managed section in CLAUDE.md / AGENTS.md.
    Export {
        /// Write a rule pack (promoted rules; `--all` for every rule).
        #[arg(long)]
        pack: Option<PathBuf>,
        #[arg(long)]
        all: bool,
        /// Write the promoted rules into a managed section of this CLAUDE.md.
        #[arg(long = "claude-md")]
        claude_md: Option<PathBuf>,
        /// Same, for AGENTS.md.
        #[arg(long = "agents-md")]
        agents_md: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Import a rule pack: its rules become candidates, replayed against local history.
    Import {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Recurrence after promotion: does each promoted rule's failure class come back less
    /// often once the rule is in effect? Live mode (default) splits each promoted rule at
    /// the moment it took effect; `--time-split F` learns on the first F of sessions instead.
    Recurrence {
        /// Time-split mode: learn on the first F of sessions (by first timestamp).
        #[arg(long = "time-split", value_name = "F")]
        time_split: Option<f64>,
        #[arg(long)]
        json: bool,
        /// Live mode only: retire (status `retired`, kept in the store, no longer injected)
        /// the promoted rules flagged `retire_suggested`. Refused with `--time-split`: no
        /// rule was in effect there, so its flag says the class recurs, not that the rule failed.
        #[arg(long)]
        apply: bool,
    },
}

impl RulesCmd {
    /// Whether the subcommand was asked for `--json`: its errors are then JSON too.
    pub fn json(&self) -> bool {
        match self {
            RulesCmd::Extract { json, .. }
            | RulesCmd::Replay { json }
            | RulesCmd::List { json, .. }
            | RulesCmd::Show { json, .. }
            | RulesCmd::Promote { json, .. }
            | RulesCmd::Retire { json, .. }
            | RulesCmd::Export { json, .. }
            | RulesCmd::Import { json, .. }
            | RulesCmd::Recurrence { json, .. } => *json,
        }
    }
}

fn print_json<T: serde::Serialize>(v: &T) -> Result<()> {
    say!(
        "{}",
        serde_json::to_string_pretty(v).map_err(|e| Error::msg(e.to_string()))?
    );
    Ok(())
}

fn line(r: &Rule) -> String {
    // A rule learned across programs has no one domain: its programs are shown instead.
    let domain = r.scope();
    format!(
        "{:6} {:9} {:12} {:8} p={} b={} nm={}  when {}, {}",
        r.id,
        r.status,
        r.reason,
        domain,
        r.prevented,
        r.broken,
        r.near_misses,
        r.when(),
        r.directive
    )
}

/// Records of a corpus folder (formats.md §2), sessions defaulted to the trajectory id.
pub fn read_corpus(dir: &Path) -> Result<Vec<crate::evidence::Record>> {
    let path = dir.join("trajectories.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let mut out = Vec::new();
    for l in text.lines() {
        let Ok(t) = serde_json::from_str::<serde_json::Value>(l) else {
            continue;
        };
        let id = t.get("id").and_then(|v| v.as_str()).unwrap_or("").to_string();
        for r in t.get("records").and_then(|v| v.as_array()).cloned().unwrap_or_default() {
            if let Ok(mut rec) = serde_json::from_value::<crate::evidence::Record>(r) {
                if rec.session.is_empty() {
                    rec.session = id.clone();
                }
                out.push(rec);
            }
        }
    }
    Ok(out)
}

fn find<'a>(rules: &'a mut [Rule], id: &str) -> Result<&'a mut Rule> {
    rules
        .iter_mut()
        .find(|r| r.id == id)
        .ok_or_else(|| Error::msg(format!("no rule {id}; see `fable rules list`")))
}

pub fn run(a: &RulesArgs) -> Result<i32> {
    let p = a.project.resolve()?;
    let store = Store::new(&p.fable_dir);
    let cfg: LearnConfig = learn::load_config(&p)?;
    match &a.cmd {
        RulesCmd::Extract {
            json,
            logs,
            corpora,
            extractor_cmd,
            dry_run,
        } => {
            let mut history = learn::load_history(&p)?;
            for l in logs {
                history.extend(crate::evidence::journal::read_file(l)?.records);
            }
            for c in corpora {
                history.extend(read_corpus(c)?);
            }
            let outcome = match extractor_cmd {
                Some(cmd) => {
                    let proposer = learn::command_proposer(cmd, Duration::from_secs(30));
                    learn::run_pipeline_with(&history, &cfg, Some(&proposer))
                }
                None => learn::run_pipeline(&history, &cfg),
            };
            let rules: Vec<Rule> = if *dry_run {
                outcome.candidates.iter().map(|l| l.rule.clone()).collect()
            } else {
                let (added, promoted) = learn::store_outcome(&store, &outcome)?;
                if !json {
                    say!(
                        "{} records, {} episodes ({} flaky), {} candidates ({} new, {} newly promoted); promotion needs {} clean prevented failures (Wilson lower bound ≥ {})",
                        outcome.records,
                        outcome.episodes,
                        outcome.flaky,
                        outcome.candidates.len(),
                        added.len(),
                        promoted.len(),
                        outcome.min_sample.map(|n| n.to_string()).unwrap_or_else(|| "null".into()),
                        cfg.promote_lower_bound
                    );
                }
                let keys: Vec<Option<String>> = outcome.candidates.iter().map(|l| l.rule.key.clone()).collect();
                store.load()?.into_iter().filter(|r| keys.contains(&r.key)).collect()
            };
            if *json {
                print_json(&rules)?;
            } else {
                for r in &rules {
                    say!("{}", line(r));
                }
            }
            Ok(0)
        }
        RulesCmd::Replay { json } => {
            let history = learn::load_history(&p)?;
            let now = crate::evidence::now_ts();
            let updated = store.update(|rules| {
                let fresh = learn::reassess(rules, &history, &cfg);
                for (r, f) in rules.iter_mut().zip(fresh) {
                    let status = if f.status == "blocked" {
                        "blocked".to_string()
                    } else {
                        r.status.clone()
                    };
                    *r = Rule {
                        status,
                        updated: Some(now.clone()),
                        ..f
                    };
                }
                Ok(rules.clone())
            })?;
            if *json {
                print_json(&updated)?;
            } else {
                for r in &updated {
                    say!("{}", line(r));
                }
            }
            Ok(0)
        }
        RulesCmd::List { json, status } => {
            if let Some(s) = status {
                if !rules::STATUSES.contains(&s.as_str()) {
                    return Err(Error::msg(format!(
                        "unknown status {s}; use one of {}",
                        rules::STATUSES.join(", ")
                    )));
                }
            }
            let rules: Vec<Rule> = store
                .load()?
                .into_iter()
                .filter(|r| status.as_ref().is_none_or(|s| &r.status == s))
                .collect();
            if *json {
                print_json(&rules)?;
            } else if rules.is_empty() {
                say!("no rules (run `fable rules extract`)");
            } else {
                for r in &rules {
                    say!("{}", line(r));
                }
            }
            Ok(0)
        }
        RulesCmd::Show { id, json } => {
            let mut rules = store.load()?;
            let r = find(&mut rules, id)?.clone();
            if *json {
                print_json(&r)?;
            } else {
                say!(
                    "{}",
                    serde_json::to_string_pretty(&r).map_err(|e| Error::msg(e.to_string()))?
                );
            }
            Ok(0)
        }
        RulesCmd::Promote { id, json } | RulesCmd::Retire { id, json } => {
            let to = if matches!(a.cmd, RulesCmd::Promote { .. }) {
                "promoted"
            } else {
                "retired"
            };
            let now = crate::evidence::now_ts();
            let key = if to == "promoted" {
                Some(crate::evidence::seal::user_key(|k| std::env::var(k).ok()).map_err(Error::msg)?)
            } else {
                None
            };
            let scope = crate::learn::rule_seal::scope(store.dir());
            let r = store.update(|rules| {
                let r = find(rules, id)?;
                if to == "promoted" && r.status == "blocked" {
                    return Err(Error::msg(format!(
                        "{id} is blocked ({}): a blocked rule is never promoted",
                        r.reason
                    )));
                }
                r.status = to.to_string();
                r.updated = Some(now.clone());
                // The user's own promotion is this machine's decision: seal it, so the
                // rule is shown; a retired rule loses its seal.
                match (&key, to) {
                    (Some(k), "promoted") => crate::learn::rule_seal::seal(r, k, &scope),
                    _ => r.seal = None,
                }
                Ok(r.clone())
            })?;
            if *json {
                print_json(&r)?;
            } else {
                say!("{} is now {}", r.id, r.status);
            }
            Ok(0)
        }
        RulesCmd::Export {
            pack,
            all,
            claude_md,
            agents_md,
            json,
        } => {
            if pack.is_none() && claude_md.is_none() && agents_md.is_none() {
                return Err(Error::msg(
                    "say what to export: --pack FILE, --claude-md PATH or --agents-md PATH",
                ));
            }
            // Only rules promoted on this machine are exported as promoted; a promoted
            // status that came with the repository is a candidate's.
            let key = crate::evidence::seal::existing_key(|k| std::env::var(k).ok());
            let scope = crate::learn::rule_seal::scope(store.dir());
            let rules: Vec<Rule> = store
                .load()?
                .into_iter()
                .map(|mut r| {
                    if r.status == "promoted" && !crate::learn::rule_seal::promoted_here(&r, key.as_ref(), &scope) {
                        r.status = "candidate".into();
                    }
                    r.seal = None;
                    r
                })
                .collect();
            let mut report = serde_json::Map::new();
            if let Some(f) = pack {
                let source = p.root.file_name().and_then(|n| n.to_str()).unwrap_or("project");
                let pk = rule_export::export_pack(&rules, source, &crate::evidence::now_ts(), *all);
                let s = serde_json::to_string_pretty(&pk).map_err(|e| Error::msg(e.to_string()))?;
                rules::write_atomic(f, format!("{s}\n").as_bytes())?;
                report.insert("pack".into(), serde_json::json!({"path": f, "rules": pk.rules.len()}));
            }
            for (key, path) in [("claude_md", claude_md), ("agents_md", agents_md)] {
                if let Some(path) = path {
                    let changed = rule_export::write_managed(path, &rules)?;
                    report.insert(key.into(), serde_json::json!({"path": path, "changed": changed}));
                }
            }
            if *json {
                print_json(&report)?;
            } else {
                for (k, v) in &report {
                    say!("{k}: {v}");
                }
            }
            Ok(0)
        }
        RulesCmd::Recurrence {
            time_split,
            json,
            apply,
        } => {
            if *apply && time_split.is_some() {
                return Err(Error::msg(
                    "--apply needs live mode: a time split has no rule in effect, so its flag says the class recurs, not that a rule failed; run `fable rules recurrence --apply` without --time-split",
                ));
            }
            let history = learn::load_history(&p)?;
            let mut rep = match time_split {
                Some(f) if !(0.0..=1.0).contains(f) => {
                    return Err(Error::msg(format!("--time-split {f}: give a fraction between 0 and 1")))
                }
                Some(f) => crate::measure::recurrence::time_split(&history, *f, &cfg),
                None => crate::measure::recurrence::live(&store.load()?, &history, &cfg),
            };
            let mut retired: Vec<String> = Vec::new();
            if *apply {
                let flagged: Vec<(String, Option<String>)> = rep
                    .rules
                    .iter()
                    .filter(|r| r.retire_suggested)
                    .map(|r| (r.id.clone(), r.key.clone()))
                    .collect();
                let now = crate::evidence::now_ts();
                retired = store.update(|rules| {
                    let mut done = Vec::new();
                    for r in rules.iter_mut().filter(|r| r.status == "promoted") {
                        // Live ids are store ids (the key guards against a renumbered store).
                        if flagged.iter().any(|(id, key)| *id == r.id && *key == r.key) {
                            r.status = "retired".into();
                            r.updated = Some(now.clone());
                            done.push(r.id.clone());
                        }
                    }
                    Ok(done)
                })?;
                rep.note.push_str(&format!(" Applied: retired {:?}.", retired));
            }
            if *json {
                let mut v = serde_json::to_value(&rep).map_err(|e| Error::msg(e.to_string()))?;
                if *apply {
                    v["retired"] = serde_json::json!(retired);
                }
                print_json(&v)?;
            } else {
                say!("{}", crate::measure::recurrence::render_markdown(&rep));
                if *apply {
                    say!(
                        "retired: {}",
                        if retired.is_empty() {
                            "none".to_string()
                        } else {
                            retired.join(", ")
                        }
                    );
                }
            }
            Ok(0)
        }
        RulesCmd::Import { file, json } => {
            let pack = rule_export::read_pack(file)?;
            let history = learn::load_history(&p)?;
            let cands = rule_export::imported_candidates(&pack);
            let assessed: Vec<Rule> = learn::reassess(&cands, &history, &cfg)
                .into_iter()
                .map(|mut r| {
                    if r.status != "blocked" {
                        r.status = "candidate".into();
                    }
                    r
                })
                .collect();
            let now = crate::evidence::now_ts();
            let keys: Vec<Option<String>> = assessed.iter().map(|r| r.key.clone()).collect();
            let stored = store.update(|rules| {
                rules::merge(rules, assessed, &now);
                Ok(rules
                    .iter()
                    .filter(|r| keys.contains(&r.key))
                    .cloned()
                    .collect::<Vec<_>>())
            })?;
            if *json {
                print_json(&stored)?;
            } else {
                say!(
                    "imported {} rules from {} as candidates (replayed against local history):",
                    stored.len(),
                    pack.source
                );
                for r in &stored {
                    say!("{}", line(r));
                }
            }
            Ok(0)
        }
    }
}
