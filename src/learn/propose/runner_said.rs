//! How a fix is said when the sessions ran the failing command through a runner with
//! options of its own (`uv run --with httpx pytest`, `npx -p typescript tsc`): the runner
//! as the group's sessions share it, a placeholder where their values differ.
//!
//! Why apart from [`crate::learn::propose::fix_directive`]: which words a directive uses
//! is that file's; how one kind of fix is said across sessions is a concept of its own.

use crate::learn::history::episodes::Episode;
use crate::learn::propose::render;
use crate::learn::propose::render::quote_cmd;
use crate::learn::text::retry_context::VIA;

/// The directive of the group `eps` whose most recent recovered episode is `last`:
/// "run `pytest` through `uv run --with <value> pytest`" (`retry` is the failing command
/// quoted, `label` unquoted).
pub fn runner_said(episodes: &[Episode], eps: &[usize], last: &Episode, retry: &str, label: &str) -> String {
    let words = |e: &Episode| -> Option<Vec<String>> {
        let w = e.variant.iter().find_map(|w| w.strip_prefix(VIA))?;
        Some(w.split_whitespace().map(str::to_string).collect())
    };
    let ways: Vec<Vec<String>> = std::iter::once(last)
        .chain(eps.iter().map(|&ei| &episodes[ei]))
        .filter_map(words)
        .collect();
    let refs: Vec<&[String]> = ways.iter().map(Vec::as_slice).collect();
    let said = render::render(&render::anti_unify(&refs));
    format!("run {retry} through {}", quote_cmd(&format!("{said} {label}")))
}
