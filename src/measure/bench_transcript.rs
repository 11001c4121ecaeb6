//! The session transcript the bench's hooks read, shaped as Claude Code keeps it.
//!
//! A counted failure makes the fail streak look up its turn in the transcript's tail
//! (`discipline::turn`): the assistant message that carried the call. A bench whose
//! transcript does not exist times a hook that skips that read, so the bench writes one: a
//! mebibyte of earlier turns (assistant messages with Bash calls, tool results with output),
//! and, before each timed call, the assistant line that carries it — Claude Code writes that
//! line before it runs the tool and its hooks. Before each stop too: the close guard keys a
//! stop by the transcript's last assistant entry, and the same key twice is one stop
//! delivered twice, answered from the first decision without checking again.

use crate::error::{IoContext, Result};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Earlier turns written before the first timed call: more than the tail the hook reads.
const HISTORY_BYTES: usize = 1024 * 1024;

/// Where the bench project's transcript lives (beside the project, as under `~/.claude`).
pub fn path(root: &Path) -> PathBuf {
    root.parent().unwrap_or(root).join("transcript.jsonl")
}

/// Writes the earlier turns.
pub fn build(root: &Path) -> Result<()> {
    let p = path(root);
    let mut text = String::with_capacity(HISTORY_BYTES + 16 * 1024);
    let mut k = 0usize;
    while text.len() < HISTORY_BYTES {
        text.push_str(&assistant_line(&format!("toolu_hist_{k}"), &format!("msg_hist_{k}")));
        let output = format!("test module_{k}::case ... ok\n").repeat(1 + k % 120);
        let result = json!({"parentUuid": uuid(&format!("toolu_hist_{k}")), "isSidechain": false, "type": "user",
            "message": {"role": "user", "content": [
                {"tool_use_id": format!("toolu_hist_{k}"), "type": "tool_result", "content": output, "is_error": false}]},
            "uuid": uuid(&format!("u{k}")), "timestamp": "2026-12-06T09:47:42.221Z",
            "toolUseResult": {"stdout": "", "stderr": "", "interrupted": false}});
        text.push_str(&result.to_string());
        text.push('\n');
        k += 1;
    }
    std::fs::write(&p, text).at(&p)
}

/// Appends the assistant message that carries the bench's call `n` (`toolu_bench_{n}`).
pub fn turn(root: &Path, n: usize) -> Result<()> {
    let p = path(root);
    let mut f = std::fs::OpenOptions::new().append(true).create(true).open(&p).at(&p)?;
    f.write_all(assistant_line(&format!("toolu_bench_{n}"), &format!("msg_bench_{n}")).as_bytes())
        .at(&p)
}

/// An assistant entry in the CLI's key order (`type` and `uuid` after the message: the stop
/// key's search depends on it, docs claude-code-hooks.md).
fn assistant_line(call: &str, message: &str) -> String {
    let v = json!({"parentUuid": uuid(&format!("p{call}")), "isSidechain": false,
        "message": {"id": message, "type": "message", "role": "assistant", "content": [
            {"type": "text", "text": "Running the tests."},
            {"type": "tool_use", "id": call, "name": "Bash",
             "input": {"command": "cargo test --workspace", "description": "run the tests"}}],
            "stop_reason": "tool_use"},
        "type": "assistant", "uuid": uuid(call), "timestamp": "2026-12-06T09:47:41.118Z"});
    format!("{v}\n")
}

/// A UUID-shaped id (hex and dashes, as the CLI writes them) derived from `seed`.
fn uuid(seed: &str) -> String {
    let h = seed.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0xfff,
        (h >> 4) & 0xfff,
        h & 0xffff_ffff_ffff
    )
}
