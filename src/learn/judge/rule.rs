//! The rule (formats.md §3, pinned) as the gates make it, and what the field test keeps
//! beside it ([`Learned`]).
//!
//! It lives with the stage that makes it: [`crate::learn::judge::assess`] turns a
//! candidate into a `Rule`; the store ([`crate::learn::store::rules`]) only keeps it, and
//! what is shown reads it. Pinned fields keep their names and types; everything fable adds
//! is optional and skipped when absent, so outside readers see exactly the §3 shape.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Directive evidence: after failures this rule matches, was the directive's action taken,
/// and did the retry then succeed? `null` (None) when the directive names no command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct DirectiveEvidence {
    /// Matching failures after which the directive's action was taken.
    pub taken: u64,
    /// … and the failing action then succeeded.
    pub worked: u64,
    /// … and the failing action failed again.
    pub failed: u64,
}

impl DirectiveEvidence {
    /// History shows the directive not working: it failed more often than it worked.
    pub fn negative(&self) -> bool {
        self.failed > 0 && self.failed > self.worked
    }
}

/// One rule, as `fable rules list --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    pub id: String,
    pub domain: String,
    /// A rule learned across programs (its `domain` empty): the domains it was seen in,
    /// the only ones it is shown for. Optional, absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<String>,
    pub trigger: String,
    pub directive: String,
    pub status: String,
    pub verdict: String,
    pub reason: String,
    pub prevented: u64,
    pub broken: u64,
    pub near_misses: u64,
    pub precision: Option<f64>,
    pub wilson: Option<(f64, f64)>,
    #[serde(default)]
    pub support: Vec<String>,
    // ---- optional (fable additions) ----
    /// The subcommand the trigger is about (`push`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Anchors that must agree for the trigger to match (primary first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<String>,
    /// The masked failure signature the rule was learned from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Dedup key: identical candidates (several sessions, passes, imports) share it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Verdict pass and no gate blocked it: what the field test counts as accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<bool>,
    /// Accepted, trusted, directive evidence not negative, and the Wilson lower bound of
    /// precision clears the promotion bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotable: Option<bool>,
    /// Lowest trust of the rule's evidence: `trusted` or `untrusted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<String>,
    /// The safety pattern the directive hit, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directive_evidence: Option<DirectiveEvidence>,
    /// Where the directive came from: `fix`, `variant`, `proposed`, `template`, `extractor`, `pack`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directive_source: Option<String>,
    /// The commands the directive recommends (checked by the safety and trust gates).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directive_cmds: Vec<String>,
    /// Distinct sessions among the support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions: Option<u64>,
    /// Clean prevented failures the promotion bound needs (k/k with Wilson lower ≥ bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_sample: Option<u64>,
    /// Recall-weighted ranking score (F2 of precision and domain recall).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<f64>,
    /// `learned`, `extractor`, or `pack:<name>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Pack provenance (source project, export time, original id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Set only where this machine promoted the rule (see `rule_seal`): a promoted status
    /// without a seal made here is never shown to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<String>,
    /// The trigger compiled when the rule was sealed (covered by the seal), so a failure
    /// matches it without re-deriving it: see `compiled_trigger`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiled: Option<crate::learn::matching::compiled_trigger::CompiledTrigger>,
}

impl Rule {
    /// Where the rule applies, as a reader is told: its domain, or for a rule learned
    /// across programs the programs (`cat, rm, wc`).
    pub fn scope(&self) -> String {
        if self.domain.is_empty() && !self.domains.is_empty() {
            self.domains.join(", ")
        } else {
            self.domain.clone()
        }
    }

    /// When the rule applies, in words: its trigger, which for a rule learned across
    /// programs names no program (its words are the failure's alone, as the matcher reads
    /// them) and is said of "a command" for a reader.
    pub fn when(&self) -> String {
        if self.domain.is_empty() && !self.domains.is_empty() {
            format!("a command {}", self.trigger)
        } else {
            self.trigger.clone()
        }
    }

    /// A stored rule's own fields over a spec compiled from its trigger text: the anchors
    /// it was learned with, its domain and action when it stored one, its programs when
    /// learned across them. Replay and the hooks read a stored rule alike.
    pub fn onto_spec(&self, spec: &mut crate::learn::matching::matcher::TriggerSpec) {
        if !self.anchors.is_empty() {
            spec.anchors = self.anchors.clone();
        }
        if let Some(a) = &self.action {
            spec.domain = self.domain.clone();
            spec.action = a.clone();
        }
        spec.domains = self.domains.clone();
        for a in &mut spec.alternatives {
            self.onto_spec(a);
        }
    }
}

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
    /// Recoveries that spelt its fix exactly so (`Candidate::spelt_so`): between two
    /// spellings of one lesson, the more common is ranked, and so said, first.
    pub spelt_so: usize,
}
