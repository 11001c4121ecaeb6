//! The core pack: fable's curated remedies for well-known failure anchors
//! (`packs/core.json`, embedded at build time).
//!
//! Why a pack and not a table in the code: these directives are *curated* — written by
//! hand, not learned from anyone's history — and every result built on one must say so
//! (`directive_source: "pack"`, `origin: "pack:core"`). As a versioned data file in the
//! pack format ([`crate::learn::store::rule_export`]) it can be read, diffed, switched off
//! (`"packs": []` in `learn.json`, `fable fieldtest --packs none`) and measured apart from
//! what the learner finds on its own.
//!
//! How it is applied ([`crate::learn::propose::candidates`]): each rule lists the anchors it is for;
//! a local failure cluster whose primary anchor is one of them gets a candidate with the
//! pack's directive and the cluster's own trigger, supported by the cluster's unresolved
//! failures. Replay against the local history and every gate then judge it like any other
//! rule. It never decides whether a *learned* rule is accepted.

use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

/// What this module reads of `packs/core.json`, a file in the pack format
/// ([`crate::learn::store::rule_export`]): its own small struct, because the pack format
/// is the store's (it holds whole rules) and proposing comes before storing.
#[derive(Debug, Deserialize)]
pub struct CorePack {
    pub rules: Vec<CoreRule>,
}

/// One curated remedy: the anchors it is for and its directive.
#[derive(Debug, Deserialize)]
pub struct CoreRule {
    pub directive: String,
    #[serde(default)]
    pub anchors: Vec<String>,
}

/// The pack's text, as shipped.
pub const CORE_JSON: &str = include_str!("../../../packs/core.json");

/// The pack's name in `learn.json` (`"packs": ["core"]`) and in `origin` (`pack:core`).
pub const CORE: &str = "core";

/// The parsed core pack. The file is part of the build and a unit test parses it, so a
/// parse failure here is a build defect, not a user error.
pub fn core_pack() -> &'static CorePack {
    static PACK: OnceLock<CorePack> = OnceLock::new();
    PACK.get_or_init(|| serde_json::from_str(CORE_JSON).expect("packs/core.json is a valid pack"))
}

/// The core pack's directive for an anchor, if it has one.
pub fn remedy(anchor: &str) -> Option<&'static str> {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::CorePack) {
        return None;
    }
    static BY_ANCHOR: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    BY_ANCHOR
        .get_or_init(|| {
            let mut m = HashMap::new();
            for r in &core_pack().rules {
                for a in &r.anchors {
                    m.entry(a.as_str()).or_insert(r.directive.as_str());
                }
            }
            m
        })
        .get(anchor)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_pack_parses_and_says_it_is_curated() {
        let p = core_pack();
        // The fields this module does not read, from the file as shipped.
        let raw: serde_json::Value = serde_json::from_str(CORE_JSON).unwrap();
        assert_eq!(raw["source"], CORE);
        assert_eq!(raw["curated"], true);
        assert!(raw["pack_version"].is_string());
        assert_eq!(p.rules.len(), 45);
        let anchors: usize = p.rules.iter().map(|r| r.anchors.len()).sum();
        assert_eq!(anchors, 64);
        assert!(raw["rules"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["origin"] == "pack:core" && r["directive_source"] == "pack"));
        assert!(remedy("non-fast-forward").unwrap().contains("git pull --rebase"));
        assert_eq!(remedy("no-such-anchor"), None);
    }

    #[test]
    fn every_anchor_once() {
        let mut seen = std::collections::HashSet::new();
        for r in &core_pack().rules {
            for a in &r.anchors {
                assert!(seen.insert(a.clone()), "{a} listed twice");
            }
        }
    }
}
