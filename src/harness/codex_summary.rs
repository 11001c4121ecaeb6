//! What a Codex run left, as one JSON (`out/summary.json`), for the tests' assertions:
//! `codex_rc`, `thread_id`, `last_message` (what `codex exec -o` wrote), `items` (the
//! `--json` stream's completed items: `command_execution` with its `exit_code`,
//! `agent_message`, `error` notices), `hooks` (as [`summary`] collects
//! them), and `requests` (every API request: `n`, `kind`, `step`, `thread_id`, `answer`,
//! `n_input`, `new_input` — what Codex added since the model's last item — `expect`).

use super::summary::{self, load, numbered};
use serde_json::{json, Value};
use std::path::Path;

/// The `--json` event stream's lines, parsed (a line that is not JSON is skipped).
fn events(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("codex.stdout"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Builds the summary of `out` and writes it to `out/summary.json`.
pub fn write(out: &Path) -> Value {
    let rc = std::fs::read_to_string(out.join("codex.rc"))
        .ok()
        .map(|s| s.trim().to_string());
    let last_message = std::fs::read_to_string(out.join("last-message.txt")).ok();
    let evs = events(out);
    let thread_id = evs
        .iter()
        .find(|e| e["type"] == "thread.started")
        .map(|e| e["thread_id"].clone());
    let items: Vec<Value> = evs
        .iter()
        .filter(|e| e["type"] == "item.completed")
        .map(|e| e["item"].clone())
        .collect();
    let requests: Vec<Value> = numbered(&out.join("mock"))
        .iter()
        .filter_map(|p| load(p))
        .map(|r| {
            json!({"n": r["n"], "kind": r["kind"], "path": r["path"], "step": r["step"],
                   "thread_id": r["thread_id"], "answer": r["answer"], "n_input": r["n_input"],
                   "new_input": r["new_input"], "expect": r["expect"]})
        })
        .collect();
    let s = json!({"codex_rc": rc, "thread_id": thread_id, "last_message": last_message,
                   "items": items, "hooks": summary::hooks(out), "requests": requests});
    let _ = std::fs::write(
        out.join("summary.json"),
        serde_json::to_string_pretty(&s).unwrap_or_default(),
    );
    s
}
