//! What a run left, as one JSON (`out/summary.json`), for the tests' assertions:
//! `claude_rc`, `result` (the CLI's `--output-format json` object), `hooks` (payloads a
//! capture hook stored as `hooks/NNN-<Event>.json` with a `.meta.json`, in order), and
//! `requests` (every API request: `n`, `kind`, `step`, `stop_reason`, `answer`,
//! `n_messages`, `new_user_content` — what the CLI added since the model's last turn).

use super::script;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

pub(super) fn load(p: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()
}

/// The numbered JSON files of a folder (`NNN-…json`), sorted, without `.meta.json`.
pub(super) fn numbered(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with(|c: char| c.is_ascii_digit()) && name.ends_with(".json") && !name.ends_with(".meta.json")
        })
        .collect();
    files.sort();
    files
}

/// The payloads a capture hook stored in `out/hooks/`, in order (any host's).
pub(super) fn hooks(out: &Path) -> Vec<Value> {
    numbered(&out.join("hooks"))
        .iter()
        .map(|p| {
            let meta = load(&p.with_extension("meta.json")).unwrap_or(json!({}));
            json!({"seq": meta["seq"], "event": meta["event"], "label": meta["label"],
                   "file": p.strip_prefix(out).unwrap_or(p), "payload": load(p),
                   "action": meta["action"], "action_applied": meta["action_applied"]})
        })
        .collect()
}

/// Builds the summary of `out` and writes it to `out/summary.json`.
pub fn write(out: &Path) -> Value {
    let rc = std::fs::read_to_string(out.join("claude.rc"))
        .ok()
        .map(|s| s.trim().to_string());
    let result = std::fs::read_to_string(out.join("claude.stdout")).ok().and_then(|s| {
        s.trim()
            .lines()
            .last()
            .and_then(|l| serde_json::from_str::<Value>(l).ok())
    });
    let hooks = hooks(out);
    let requests: Vec<Value> = numbered(&out.join("mock"))
        .iter()
        .filter_map(|p| load(p))
        .map(|r| {
            let body = if r["body"].is_object() {
                r["body"].clone()
            } else {
                json!({})
            };
            json!({"n": r["n"], "kind": r["kind"], "path": r["path"], "step": r["step"],
                   "stop_reason": r["stop_reason"], "answer": r["answer"],
                   "n_messages": body["messages"].as_array().map_or(0, Vec::len),
                   "new_user_content": script::new_user_content(&body), "expect": r["expect"]})
        })
        .collect();
    let summary = json!({"claude_rc": rc, "result": result, "hooks": hooks, "requests": requests});
    let _ = std::fs::write(
        out.join("summary.json"),
        serde_json::to_string_pretty(&summary).unwrap_or_default(),
    );
    summary
}
