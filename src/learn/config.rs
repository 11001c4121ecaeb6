//! The pipeline's settings: every knob, with its default, and `.fable/learn.json`.

use crate::error::Result;
use crate::learn::episodes::{self};
use crate::learn::matcher::{DEFAULT_MARGIN, DEFAULT_THRESHOLD};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Every knob of the pipeline. Read from `.fable/learn.json` when present (any subset of
/// fields; the rest default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LearnConfig {
    /// Match threshold ([`crate::learn::matcher`] documents the calibration).
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
    /// many distinct terms.
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
        }
    }
}

/// The learning config of a project: `.fable/learn.json` if present, else defaults.
pub fn load_config(fable_dir: &Path) -> Result<LearnConfig> {
    let path = fable_dir.join("learn.json");
    match crate::fable_dir::read_string(&path, crate::fable_dir::Kind::Document) {
        Ok(Some(s)) => serde_json::from_str(&s).map_err(|source| crate::error::Error::BadJson { path, source }),
        Ok(None) => Ok(LearnConfig::default()),
        Err(e) => Err(crate::error::Error::io(&path, e)),
    }
}
