//! The rule store: `.fable/rules.json` plus a readable `.fable/RULES.md`. The rule itself
//! (formats.md §3, pinned) is made by the gates and lives with them
//! ([`crate::learn::judge::rule::Rule`]). Lifecycle:
//! `candidate` → `promoted` → `retired`, or `blocked` (a safety/trust gate said never).
//! Writes are atomic (temp file + rename) and every read-modify-write of the store holds
//! an exclusive lock on `.fable/rules.lock`, so a SessionEnd hook and a `fable rules`
//! command cannot lose each other's updates.

use crate::error::{Error, IoContext, Result};
use crate::learn::judge::rule::Rule;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the hooks' index keeps of a rule.
impl Rule {
    /// What the hooks' index (`learn::store::rule_index`) keeps of the rule.
    pub fn head(&self) -> crate::learn::store::rule_index::Head<'_> {
        crate::learn::store::rule_index::Head {
            id: &self.id,
            domain: &self.domain,
            status: &self.status,
            seal: self.seal.as_deref(),
            prevented: self.prevented,
            rank: self.rank,
            match_anchors: crate::learn::store::rule_index::match_anchors(
                &self.anchors,
                self.compiled.as_ref().map(|c| c.anchors.as_slice()),
            ),
        }
    }
}

/// The store's text as rules (an empty or blank text is an empty store).
pub fn parse(s: &str) -> serde_json::Result<Vec<Rule>> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    serde_json::from_str(s)
}

pub const STATUSES: &[&str] = &["candidate", "promoted", "retired", "blocked"];

/// Paths of the store inside a `.fable/` folder.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

const LOCK_WAIT: Duration = Duration::from_secs(5);

/// An exclusive lock on the store, released on drop.
pub struct StoreLock {
    _file: File,
}

impl Store {
    pub fn new(fable_dir: impl Into<PathBuf>) -> Store {
        Store { dir: fable_dir.into() }
    }

    /// The `.fable/` folder the store lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn json_path(&self) -> PathBuf {
        self.dir.join("rules.json")
    }

    pub fn md_path(&self) -> PathBuf {
        self.dir.join("RULES.md")
    }

    /// Takes the store lock (waits up to 5 s).
    pub fn lock(&self) -> Result<StoreLock> {
        let path = self.dir.join("rules.lock");
        let f = crate::fable_dir::open_lock(&path).at(&path)?;
        let start = Instant::now();
        loop {
            match f.try_lock() {
                Ok(()) => return Ok(StoreLock { _file: f }),
                Err(fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(Error::msg(format!("{}: still locked after 5s", path.display())))
                }
                Err(fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
            }
        }
    }

    /// The rules on disk; an absent file is an empty store.
    pub fn load(&self) -> Result<Vec<Rule>> {
        let path = self.json_path();
        match crate::fable_dir::read_string(&path, crate::fable_dir::Kind::Document) {
            Ok(Some(s)) if s.trim().is_empty() => Ok(Vec::new()),
            Ok(Some(s)) => parse(&s).map_err(|source| Error::BadJson { path, source }),
            Ok(None) => Ok(Vec::new()),
            Err(e) => Err(Error::io(&path, e)),
        }
    }

    /// Writes rules.json and RULES.md atomically. Call with the lock held.
    pub fn save(&self, rules: &[Rule]) -> Result<()> {
        let json = serde_json::to_string_pretty(rules).map_err(|e| Error::msg(e.to_string()))?;
        let json = format!("{json}\n");
        crate::fable_dir::replace_atomically(&self.json_path(), json.as_bytes(), true)?;
        // The hooks' index of what they read (best effort: without it they parse it all).
        let heads: Vec<_> = rules.iter().map(Rule::head).collect();
        crate::learn::store::rule_index::after_save(&self.dir, json.as_bytes(), &heads);
        crate::fable_dir::replace_atomically(&self.md_path(), render_md(rules).as_bytes(), true)
    }

    /// Load, change, save under the lock.
    pub fn update<T>(&self, f: impl FnOnce(&mut Vec<Rule>) -> Result<T>) -> Result<T> {
        let _lock = self.lock()?;
        let mut rules = self.load()?;
        let out = f(&mut rules)?;
        self.save(&rules)?;
        Ok(out)
    }
}

/// Writes a file atomically and durably, keeping its permissions (see [`crate::atomic_file`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::atomic_file::write(path, bytes, crate::atomic_file::Perms::Keep, true)
}

/// The next free `R-n` id.
pub fn next_id(rules: &[Rule]) -> String {
    let max = rules
        .iter()
        .filter_map(|r| r.id.strip_prefix("R-").and_then(|n| n.parse::<u64>().ok()))
        .max()
        .unwrap_or(0);
    format!("R-{}", max + 1)
}

/// Merges freshly assessed rules into the store by `key`: counts, verdicts and support
/// are refreshed; a promoted or retired rule keeps its status unless a gate now blocks
/// it; new keys get the next `R-n` id. Returns the ids of new rules.
pub fn merge(store: &mut Vec<Rule>, fresh: Vec<Rule>, now: &str) -> Vec<String> {
    let mut added = Vec::new();
    for mut f in fresh {
        let pos = f
            .key
            .as_ref()
            .and_then(|k| store.iter().position(|r| r.key.as_ref() == Some(k)));
        match pos {
            Some(p) => {
                let old = &store[p];
                let status = match (old.status.as_str(), f.status.as_str()) {
                    (_, "blocked") => "blocked",
                    ("retired", _) => "retired",
                    ("promoted", _) => "promoted",
                    (_, s) => s,
                }
                .to_string();
                f.id = old.id.clone();
                f.created = old.created.clone();
                f.origin = old.origin.clone().or(f.origin);
                f.provenance = old.provenance.clone().or(f.provenance);
                f.status = status;
                f.updated = Some(now.to_string());
                store[p] = f;
            }
            None => {
                f.id = next_id(store);
                f.created = Some(now.to_string());
                f.updated = Some(now.to_string());
                added.push(f.id.clone());
                store.push(f);
            }
        }
    }
    added
}

/// The readable view: promoted rules first, then candidates, blocked, retired.
pub fn render_md(rules: &[Rule]) -> String {
    let mut s = String::from(
        "# Learned rules\n\nGenerated by `fable rules` from `.fable/rules.json`; edit the JSON through \
         `fable rules promote|retire`, not this file.\n",
    );
    for status in ["promoted", "candidate", "blocked", "retired"] {
        let group: Vec<&Rule> = rules.iter().filter(|r| r.status == status).collect();
        if group.is_empty() {
            continue;
        }
        s.push_str(&format!("\n## {} ({})\n\n", status, group.len()));
        for r in group {
            let w = r
                .wilson
                .map(|(a, b)| format!("[{a:.3}, {b:.3}]"))
                .unwrap_or_else(|| "null".into());
            s.push_str(&format!(
                "- **{}** ({}) — when {}, {}.\n  verdict {} ({}); prevented {}, broken {}, near-misses {}; precision {} {}; support {}; source {} ({})\n",
                r.id,
                r.scope(),
                r.when(),
                r.directive,
                r.verdict,
                r.reason,
                r.prevented,
                r.broken,
                r.near_misses,
                crate::learn::judge::wilson::fmt3(r.precision),
                w,
                r.support.len(),
                r.directive_source.as_deref().unwrap_or("unknown"),
                r.origin.as_deref().unwrap_or("unknown"),
            ));
        }
    }
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn rule(key: &str, status: &str) -> Rule {
        Rule {
            id: String::new(),
            domain: "git".into(),
            domains: Vec::new(),
            trigger: "`git push` is rejected as non-fast-forward".into(),
            directive: "run `git pull --rebase`, then retry `git push`".into(),
            status: status.into(),
            verdict: "pass".into(),
            reason: "pass".into(),
            prevented: 4,
            broken: 0,
            near_misses: 0,
            precision: Some(1.0),
            wilson: Some((0.51, 1.0)),
            support: vec!["s1#0@t".into()],
            action: Some("push".into()),
            anchors: vec!["non-fast-forward".into()],
            signature: None,
            key: Some(key.into()),
            accepted: Some(true),
            promotable: Some(true),
            trust: Some("trusted".into()),
            safety: None,
            directive_evidence: None,
            directive_source: None,
            directive_cmds: vec![],
            sessions: Some(4),
            min_sample: Some(4),
            rank: None,
            origin: Some("learned".into()),
            provenance: None,
            created: None,
            updated: None,
            seal: None,
            compiled: None,
        }
    }

    #[test]
    fn merge_keeps_ids_and_lifecycle() {
        let mut store = Vec::new();
        assert_eq!(
            merge(&mut store, vec![rule("k1", "candidate"), rule("k2", "candidate")], "t0"),
            vec!["R-1", "R-2"]
        );
        store[0].status = "promoted".into();
        store[1].status = "retired".into();
        let mut again = rule("k1", "candidate");
        again.prevented = 9;
        let added = merge(
            &mut store,
            vec![again, rule("k2", "candidate"), rule("k3", "blocked")],
            "t1",
        );
        assert_eq!(added, vec!["R-3"]);
        assert_eq!(store[0].id, "R-1");
        assert_eq!(store[0].status, "promoted");
        assert_eq!(store[0].prevented, 9);
        assert_eq!(store[1].status, "retired");
        assert_eq!(store[2].status, "blocked");
        // A gate that now blocks wins over promotion.
        merge(&mut store, vec![rule("k1", "blocked")], "t2");
        assert_eq!(store[0].status, "blocked");
    }

    #[test]
    fn pinned_shape_and_optional_fields() {
        let v = serde_json::to_value(rule("k", "candidate")).unwrap();
        for f in [
            "id",
            "domain",
            "trigger",
            "directive",
            "status",
            "verdict",
            "reason",
            "prevented",
            "broken",
            "near_misses",
            "precision",
            "wilson",
            "support",
        ] {
            assert!(v.get(f).is_some(), "{f}");
        }
        assert!(v["wilson"].is_array());
        let mut r = rule("k", "candidate");
        r.precision = None;
        r.wilson = None;
        let v = serde_json::to_value(&r).unwrap();
        assert!(v["precision"].is_null() && v["wilson"].is_null());
        // A minimal §3 rule from an outside tool reads.
        let min = r#"[{"id":"X","domain":"git","trigger":"t","directive":"d","status":"candidate","verdict":"pass","reason":"pass","prevented":1,"broken":0,"near_misses":0,"precision":1.0,"wilson":[0.2,1.0],"support":[],"unknown":5}]"#;
        let rs: Vec<Rule> = serde_json::from_str(min).unwrap();
        assert_eq!(rs[0].id, "X");
    }

    #[test]
    fn store_round_trip() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::new(d.path());
        assert!(s.load().unwrap().is_empty());
        s.update(|rs| {
            merge(rs, vec![rule("k", "candidate")], "t");
            Ok(())
        })
        .unwrap();
        let rs = s.load().unwrap();
        assert_eq!(rs.len(), 1);
        assert!(fs::read_to_string(s.md_path()).unwrap().contains("R-1"));
        fs::write(s.json_path(), "{broken").unwrap();
        assert!(s.load().is_err());
    }
}
