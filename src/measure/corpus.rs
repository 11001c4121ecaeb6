//! Corpus folders (pinned format, `formats.md` §2): `corpus.json` plus `trajectories.jsonl`.
//!
//! Readers are lenient as the format demands: unknown fields are ignored, a missing
//! optional field is accepted, and a malformed line is skipped and counted, never fatal.

use crate::error::{Error, IoContext, Result};
use crate::evidence::Record;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How a corpus is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Rules should be learned from it.
    Promotion,
    /// No rule may be accepted from it.
    Rejection,
    /// History only, not scored.
    Pool,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Promotion => "promotion",
            Kind::Rejection => "rejection",
            Kind::Pool => "pool",
        }
    }
}

/// The rule a careful engineer would write from a trajectory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedRule {
    #[serde(default)]
    pub trigger: String,
    #[serde(default)]
    pub directive: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Trajectory {
    pub id: String,
    #[serde(default)]
    pub records: Vec<Record>,
    #[serde(default)]
    pub expected_rule: Option<ExpectedRule>,
    #[serde(default)]
    pub label: Value,
    /// Optional: the failure class this trajectory belongs to (e.g. `git-push-nonff`),
    /// for per-class reports. Absent (or blank) = none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Corpus {
    pub name: String,
    pub kind: Kind,
    pub description: String,
    pub path: PathBuf,
    pub trajectories: Vec<Trajectory>,
    /// Lines of `trajectories.jsonl` skipped as malformed.
    pub malformed: usize,
}

#[derive(Deserialize)]
struct Meta {
    name: Option<String>,
    kind: Kind,
    #[serde(default)]
    description: String,
}

/// Loads one corpus folder. A record without `session` belongs to its trajectory's id.
pub fn load(dir: &Path) -> Result<Corpus> {
    let meta_path = dir.join("corpus.json");
    let meta_text = std::fs::read_to_string(&meta_path).at(&meta_path)?;
    let meta: Meta = serde_json::from_str(&meta_text).map_err(|e| {
        Error::msg(format!(
            "{}: not a corpus description ({e}); expected {{\"name\", \"kind\": promotion|rejection|pool, \"description\"}}",
            meta_path.display()
        ))
    })?;
    let traj_path = dir.join("trajectories.jsonl");
    let text = std::fs::read_to_string(&traj_path).at(&traj_path)?;
    let mut trajectories = Vec::new();
    let mut malformed = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Value>(line)
            .ok()
            .and_then(|v| parse_trajectory(v, &mut malformed))
        {
            Some(t) => trajectories.push(t),
            None => malformed += 1,
        }
    }
    let fallback = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Corpus {
        name: meta.name.filter(|n| !n.is_empty()).unwrap_or(fallback),
        kind: meta.kind,
        description: meta.description,
        path: dir.to_path_buf(),
        trajectories,
        malformed,
    })
}

/// Parses one trajectory, skipping (and counting into `malformed`) records that do not
/// parse, so one bad record does not drop the whole trajectory.
fn parse_trajectory(v: Value, malformed: &mut usize) -> Option<Trajectory> {
    let id = v.get("id")?.as_str()?.to_string();
    let mut records = Vec::new();
    for r in v.get("records").and_then(Value::as_array).into_iter().flatten() {
        match serde_json::from_value::<Record>(r.clone()) {
            Ok(mut rec) => {
                if rec.session.is_empty() {
                    rec.session = id.clone();
                }
                records.push(rec);
            }
            Err(_) => *malformed += 1,
        }
    }
    let expected_rule = v
        .get("expected_rule")
        .filter(|e| !e.is_null())
        .and_then(|e| serde_json::from_value::<ExpectedRule>(e.clone()).ok())
        .filter(|e| !e.trigger.trim().is_empty() || !e.directive.trim().is_empty());
    Some(Trajectory {
        id,
        records,
        expected_rule,
        label: v.get("label").cloned().unwrap_or(Value::Null),
        class: v
            .get("class")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_leniently() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(
            t.path().join("corpus.json"),
            r#"{"name":"g","kind":"promotion","extra":1}"#,
        )
        .unwrap();
        let rec = r#"{"v":1,"ts":"2026-01-01T00:00:00.000Z","cwd":"/w","cmd":"git push","exit":1,"ok":false,"tail":"rejected"}"#;
        let lines = [
            format!(r#"{{"id":"a","records":[{rec}],"expected_rule":{{"trigger":"t","directive":"d"}},"label":"x"}}"#),
            "not json".to_string(),
            format!(r#"{{"id":"b","records":[{rec},{{"bad":true}}],"expected_rule":null,"class":"git-push-nonff"}}"#),
            r#"{"records":[]}"#.to_string(),
        ];
        std::fs::write(t.path().join("trajectories.jsonl"), lines.join("\n")).unwrap();
        let c = load(t.path()).unwrap();
        assert_eq!(
            (c.name.as_str(), c.kind, c.trajectories.len(), c.malformed),
            ("g", Kind::Promotion, 2, 3)
        );
        assert_eq!(c.trajectories[0].records[0].session, "a");
        assert!(c.trajectories[1].expected_rule.is_none());
        assert_eq!(c.trajectories[1].records.len(), 1);
        assert_eq!(c.trajectories[0].class, None);
        assert_eq!(c.trajectories[1].class.as_deref(), Some("git-push-nonff"));
    }

    #[test]
    fn bad_meta_is_a_clear_error() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("corpus.json"), r#"{"name":"g","kind":"weird"}"#).unwrap();
        let e = load(t.path()).unwrap_err().to_string();
        assert!(e.contains("promotion|rejection|pool"), "{e}");
        let e = load(&t.path().join("missing")).unwrap_err().to_string();
        assert!(e.contains("corpus.json"), "{e}");
    }
}
