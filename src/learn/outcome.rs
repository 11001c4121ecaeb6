//! What the pipeline returns: every assessed candidate ([`Learned`], made by the gates in
//! [`crate::learn::judge::rule`]) and the counts around them.

use crate::learn::judge::config::LearnConfig;
use crate::learn::judge::rule::Learned;
use serde::Serialize;

/// Everything the pipeline found.
#[derive(Debug, Clone, Serialize)]
pub struct LearnOutcome {
    pub records: usize,
    pub episodes: usize,
    pub flaky: usize,
    /// Candidates, best ranked first (recall-weighted).
    pub candidates: Vec<Learned>,
    /// Clean prevented failures the promotion bound implies (null when unreachable).
    pub min_sample: Option<u64>,
    pub config: LearnConfig,
}
