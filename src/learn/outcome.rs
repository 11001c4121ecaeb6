//! What the pipeline returns: rules with their support, and the extractor's protocol.

use crate::learn::config::LearnConfig;
use crate::learn::rules::Rule;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A reference to one evidence record: its session, its index in the history given to
/// the pipeline, and its timestamp. Printed as `session#index@ts` in `support`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SupportRef {
    pub session: String,
    pub index: usize,
    pub ts: String,
}

impl SupportRef {
    pub fn to_support(&self) -> String {
        format!("{}#{}@{}", self.session, self.index, self.ts)
    }
}

/// One assessed candidate: the rule plus what the field test needs beyond §3.
#[derive(Debug, Clone, Serialize)]
pub struct Learned {
    pub rule: Rule,
    /// The failures it was learned from (one per episode: the first failing attempt).
    pub support_refs: Vec<SupportRef>,
    /// The failures replay says it prevents.
    pub prevented_refs: Vec<SupportRef>,
    /// Same-domain successes it would break (≥ threshold + margin).
    pub broken_refs: Vec<SupportRef>,
    /// Same-domain successes in the near-miss band.
    pub near_miss_refs: Vec<SupportRef>,
    /// Episode outcomes of its support (`recovered`, `moved_on`, `unresolved`).
    pub outcomes: BTreeMap<String, u64>,
}

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

/// A trigger/directive proposed by an external extractor for one cluster.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Proposal {
    pub trigger: String,
    pub directive: String,
}

/// What an external extractor sees of a cluster (JSON on its stdin).
#[derive(Debug, Clone, Serialize)]
pub struct EpisodeBrief {
    pub domain: String,
    pub action: String,
    pub command: String,
    pub output: String,
    pub signature: String,
    pub anchors: Vec<String>,
    pub followups: Vec<String>,
    pub outcome: String,
}

/// An external proposer of `{trigger, directive}` for a cluster (see [`crate::learn::command_proposer`]).
pub type Proposer<'a> = &'a dyn Fn(&EpisodeBrief) -> Option<Proposal>;
