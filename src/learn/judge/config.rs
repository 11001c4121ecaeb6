//! The pipeline's settings: every knob, with its default, and `.fable/learn.json`.

use crate::error::Result;
use crate::learn::history::episodes::{self};
use crate::learn::matching::matcher::{DEFAULT_MARGIN, DEFAULT_THRESHOLD};
use serde::{Deserialize, Serialize};

/// Every knob of the pipeline. Read from `.fable/learn.json` when present (any subset of
/// fields; the rest default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LearnConfig {
    /// Match threshold ([`crate::learn::matching::matcher`] documents the calibration).
    pub threshold: f64,
    /// A same-domain success counts as broken only at ≥ threshold + margin.
    pub margin: f64,
    /// More near-misses than this → inconclusive.
    pub near_miss_limit: u64,
    /// Promotion needs the Wilson lower bound of precision ≥ this.
    pub promote_lower_bound: f64,
    /// Sessions a self-resolved failure must recur in (with the same fix) before it is a
    /// lesson.
    pub min_sessions_self_resolved: u64,
    /// Sessions a *variant* retry (the failing command again with added flags or other
    /// arguments) must recur in before it is a lesson rather than a flaky-style retry.
    pub min_sessions_variant: u64,
    /// A directive must agree with at least this share of its failure cluster's recovered
    /// episodes, else it is `contested` (rebase vs merge vs force).
    pub contested_share: f64,
    /// A trigger matching more than this share of its domain's failure clusters …
    pub generic_share: f64,
    /// … and at least this many of them, is generic.
    pub generic_min_clusters: u64,
    /// A trigger without an anchor is generic unless its failure text has at least this
    /// many distinct terms, or, thinner, fires on its own class only
    /// (`learn::matching::specificity`, `docs/generalisation.md` §12). A minimum of 3
    /// (§13) gained nothing more once that test was in (every set identical, §14) and let a
    /// three-word text that also fires on another class through; it stays 4.
    pub generic_min_terms: usize,
    /// Sessions a self-resolved lesson on an anchorless failure (a masked error line)
    /// must recur in.
    pub min_sessions_unanchored: u64,
    /// Look-ahead (records of the same session) for outcomes and directive evidence.
    pub window: usize,
    /// Apply the promotion policy automatically (promotable → promoted).
    pub auto_promote: bool,
    /// Most candidates kept (best ranked first).
    pub max_candidates: usize,
    /// Curated packs applied alongside what is learned (`["core"]`: the core pack,
    /// [`crate::learn::propose::core_pack`]; `[]`: learned rules only). On by default: a failure
    /// seen once, with a well-known remedy, is where a standing rule pays — and every
    /// result says `directive_source: "pack"`, so it is never mistaken for a lesson.
    pub packs: Vec<String>,
}

impl Default for LearnConfig {
    fn default() -> Self {
        LearnConfig {
            threshold: DEFAULT_THRESHOLD,
            margin: DEFAULT_MARGIN,
            near_miss_limit: 2,
            promote_lower_bound: 0.5,
            min_sessions_self_resolved: 2,
            min_sessions_variant: 3,
            contested_share: 0.75,
            generic_share: 0.5,
            generic_min_clusters: 3,
            generic_min_terms: 4,
            min_sessions_unanchored: 3,
            window: episodes::WINDOW,
            auto_promote: true,
            max_candidates: 500,
            packs: vec![crate::learn::propose::core_pack::CORE.to_string()],
        }
    }
}

/// The learning config of a project: `.fable/learn.json` if present, else defaults.
///
/// `learn.json` arrives with the repository, so it may only make learning stricter: a
/// setting looser than its default (a lower threshold, margin, promotion bound or contest
/// share, fewer sessions or terms, more near-misses) is raised back to the default with a
/// note — unless the user trusts the project on this machine (`fable trust`, stored in the
/// user's config, never in the repository).
pub fn load_config(project: &crate::project::Project) -> Result<LearnConfig> {
    let path = project.fable_dir.join("learn.json");
    let cfg: LearnConfig = match crate::fable_dir::read_string(&path, crate::fable_dir::Kind::Document) {
        Ok(Some(s)) => serde_json::from_str(&s).map_err(|source| crate::error::Error::BadJson { path, source })?,
        Ok(None) => return Ok(LearnConfig::default()),
        Err(e) => return Err(crate::error::Error::io(&path, e)),
    };
    if crate::setup::trust_store::is_trusted(|k| std::env::var(k).ok(), &project.root) {
        return Ok(cfg);
    }
    let (cfg, raised) = floor_at_defaults(cfg);
    if !raised.is_empty() {
        eprintln!(
            "[fable] .fable/learn.json: {} looser than the default, raised to it (the project is not trusted on this machine: `fable trust` to allow)",
            raised.join(", ")
        );
    }
    Ok(cfg)
}

/// Raises every setting of `cfg` that is looser than the default back to the default.
/// Returns the names raised. Pure.
pub fn floor_at_defaults(mut cfg: LearnConfig) -> (LearnConfig, Vec<&'static str>) {
    let d = LearnConfig::default();
    let mut raised = Vec::new();
    macro_rules! at_least {
        ($($f:ident),*) => {$(
            if cfg.$f < d.$f || !at_least_ok(&cfg.$f) {
                cfg.$f = d.$f;
                raised.push(stringify!($f));
            }
        )*};
    }
    at_least!(threshold, margin, promote_lower_bound, contested_share);
    at_least!(
        min_sessions_self_resolved,
        min_sessions_variant,
        min_sessions_unanchored,
        generic_min_terms
    );
    if cfg.near_miss_limit > d.near_miss_limit {
        cfg.near_miss_limit = d.near_miss_limit;
        raised.push("near_miss_limit");
    }
    (cfg, raised)
}

impl LearnConfig {
    /// True when the core pack is applied.
    pub fn core_pack(&self) -> bool {
        self.packs.iter().any(|p| p == crate::learn::propose::core_pack::CORE)
    }
}

/// A float setting must be a number (`NaN` compares false both ways and would slip past).
fn at_least_ok<T: PartialOrd + Copy>(v: &T) -> bool {
    v.partial_cmp(v).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looser_settings_are_raised_stricter_kept() {
        let d = LearnConfig::default();
        let loose = LearnConfig {
            threshold: 0.0,
            margin: f64::NAN,
            min_sessions_variant: 1,
            near_miss_limit: d.near_miss_limit + 100,
            ..d.clone()
        };
        let (cfg, raised) = floor_at_defaults(loose);
        assert_eq!(
            raised,
            ["threshold", "margin", "min_sessions_variant", "near_miss_limit"]
        );
        assert_eq!(cfg, d);
        let strict = LearnConfig {
            threshold: 0.7,
            min_sessions_variant: 5,
            ..d.clone()
        };
        let (cfg, raised) = floor_at_defaults(strict.clone());
        assert!(raised.is_empty());
        assert_eq!(cfg, strict);
    }
}
