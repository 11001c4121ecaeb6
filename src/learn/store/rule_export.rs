//! Sharing rules: packs (`fable rules export --pack FILE` / `import FILE`) and the managed
//! section of CLAUDE.md / AGENTS.md.
//!
//! A pack carries provenance (source project, export time, fable version, each rule's
//! original id). Imported rules always start as **candidates** and are replayed against
//! the *local* history before anything else happens: another project's evidence says
//! nothing about this one's successes, so a pack can never promote a rule by itself.
//!
//! The managed section sits between two HTML-comment markers; writing it again replaces
//! exactly that span (idempotent), and text outside the markers is never touched.

use crate::error::{Error, Result};
use crate::learn::judge::rule::Rule;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const BEGIN: &str = "<!-- fable:rules:begin (managed by `fable rules export`; edits inside are replaced) -->";
pub const END: &str = "<!-- fable:rules:end -->";
const BEGIN_PREFIX: &str = "<!-- fable:rules:begin";

/// A rule pack file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pack {
    pub version: u32,
    /// The pack's own version (a curated pack bumps it on every change); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack_version: Option<String>,
    /// True for a hand-written pack (its directives are curated, not learned); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curated: Option<bool>,
    /// What the pack is, for a person reading the file; optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub exported_at: String,
    /// The exporting project (its folder name).
    pub source: String,
    pub fable_version: String,
    pub rules: Vec<Rule>,
}

/// Builds a pack from the rules to share (promoted ones unless `all`).
pub fn export_pack(rules: &[Rule], source: &str, now: &str, all: bool) -> Pack {
    let rules = rules
        .iter()
        .filter(|r| all || r.status == "promoted")
        .map(|r| {
            let mut r = r.clone();
            // Support references point into the exporter's log, and a seal is the
            // exporter's machine's: both are meaningless elsewhere. The concrete fix
            // commands carry one session's values (its branch, its files): the rendered
            // directive, placeholders and all, is what travels; the importer's gates read
            // the commands back from it.
            r.support.clear();
            r.seal = None;
            r.directive_cmds.clear();
            r
        })
        .collect();
    Pack {
        version: 1,
        pack_version: None,
        curated: None,
        description: None,
        exported_at: now.to_string(),
        source: source.to_string(),
        fable_version: env!("CARGO_PKG_VERSION").to_string(),
        rules,
    }
}

/// Reads a pack file; a bare array of §3 rules is accepted too.
pub fn read_pack(path: &Path) -> Result<Pack> {
    let s = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    if let Ok(p) = serde_json::from_str::<Pack>(&s) {
        return Ok(p);
    }
    let rules: Vec<Rule> = serde_json::from_str(&s).map_err(|source| Error::BadJson {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Pack {
        version: 1,
        pack_version: None,
        curated: None,
        description: None,
        exported_at: String::new(),
        source: path.file_name().and_then(|n| n.to_str()).unwrap_or("pack").to_string(),
        fable_version: String::new(),
        rules,
    })
}

/// The pack's rules as local candidates with provenance (ids are assigned on merge).
pub fn imported_candidates(pack: &Pack) -> Vec<Rule> {
    pack.rules
        .iter()
        .map(|r| {
            let mut n = r.clone();
            n.provenance = Some(serde_json::json!({
                "source": pack.source, "exported_at": pack.exported_at,
                "fable_version": pack.fable_version, "original_id": r.id,
                "original_status": r.status,
            }));
            n.origin = Some(format!("pack:{}", pack.source));
            n.status = "candidate".into();
            n.support.clear();
            n.key = Some(
                r.key
                    .clone()
                    .unwrap_or_else(|| format!("pack:{}:{}", pack.source, r.id)),
            );
            n
        })
        .collect()
}

/// The managed section listing promoted rules.
pub fn managed_section(rules: &[Rule]) -> String {
    let mut s = format!("{BEGIN}\n## Standing rules (learned by fable from this project's failures)\n\n");
    let promoted: Vec<&Rule> = rules.iter().filter(|r| r.status == "promoted").collect();
    if promoted.is_empty() {
        s.push_str("_No promoted rules yet._\n");
    }
    for r in promoted {
        s.push_str(&format!(
            "- **{}** ({}): when {}, {}.\n",
            r.id,
            r.scope(),
            r.when(),
            r.directive
        ));
    }
    s.push_str(END);
    s.push('\n');
    s
}

/// Replaces the managed span of `existing` with `section`, or appends it.
pub fn upsert_section(existing: &str, section: &str) -> String {
    if let Some(b) = existing.find(BEGIN_PREFIX) {
        if let Some(e_rel) = existing[b..].find(END) {
            let mut end = b + e_rel + END.len();
            if existing[end..].starts_with('\n') {
                end += 1;
            }
            return format!("{}{}{}", &existing[..b], section, &existing[end..]);
        }
    }
    let mut out = existing.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(section);
    out
}

/// Writes the managed section into a Markdown file. Returns true when the file changed.
///
/// The file usually sits in a repository, so it is untrusted like `.fable/`: a committed
/// `CLAUDE.md -> ~/.bashrc` must not get rule text appended to the user's shell start-up,
/// and a `CLAUDE.md -> /dev/zero` must not hang the export. So it goes through the one
/// door: a link or non-regular file is refused by name, the read is capped at 1 MiB, and
/// the write replaces the file (never writes through a link).
pub fn write_managed(path: &Path, rules: &[Rule]) -> Result<bool> {
    let existing = crate::fable_dir::read_string(path, crate::fable_dir::Kind::Document)
        .map_err(|e| Error::io(path, e))?
        .unwrap_or_default();
    let next = upsert_section(&existing, &managed_section(rules));
    if next == existing {
        return Ok(false);
    }
    crate::fable_dir::replace_atomically(path, next.as_bytes(), true)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::store::rules::tests::rule;

    #[test]
    fn managed_section_is_idempotent_and_keeps_user_text() {
        let mut r = rule("k", "promoted");
        r.id = "R-1".into();
        let sec = managed_section(&[r.clone()]);
        let once = upsert_section("# Project\n\nMy notes.\n", &sec);
        let twice = upsert_section(&once, &sec);
        assert_eq!(once, twice);
        assert!(once.starts_with("# Project\n\nMy notes.\n"));
        assert_eq!(once.matches(BEGIN_PREFIX).count(), 1);
        let none = upsert_section(&once, &managed_section(&[]));
        assert!(none.contains("No promoted rules") && !none.contains("R-1"));
        assert!(none.starts_with("# Project"));
    }

    #[test]
    fn pack_round_trip_with_provenance() {
        let mut r = rule("k", "promoted");
        r.id = "R-4".into();
        let p = export_pack(&[r, rule("k2", "candidate")], "app", "t", false);
        assert_eq!(p.rules.len(), 1);
        let c = imported_candidates(&p);
        assert_eq!(c[0].status, "candidate");
        assert_eq!(c[0].origin.as_deref(), Some("pack:app"));
        assert_eq!(c[0].provenance.as_ref().unwrap()["original_id"], "R-4");
    }
}
