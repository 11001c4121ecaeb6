//! A real history for the learning tests of one cause said two ways by one program:
//! `cargo new` refusing a package name because it is a Rust keyword, and because it starts
//! with a digit, each session then passing `--name`. Neither text has the recurrence
//! alone; the two together do.

#![allow(dead_code)]

use std::path::Path;

/// The four sessions' failing and fixing commands (two per text).
pub const SESSIONS: [(&str, &str); 4] = [
    (
        "cargo new --vcs none match",
        "cargo new --vcs none match --name match-engine",
    ),
    ("cargo new --vcs none 2fast", "cargo new --vcs none 2fast --name fast2"),
    (
        "cargo new --vcs none async",
        "cargo new --vcs none --name async-jobs async",
    ),
    ("cargo new --vcs none 3d", "cargo new --vcs none 3d --name d3"),
];

/// Runs the sessions for real under `root` (offline: `--vcs none`, nothing fetched) and
/// returns their evidence records, one JSON value per line.
pub fn cargo_name_history(root: &Path) -> String {
    let dir = root.join("work");
    std::fs::create_dir_all(&dir).unwrap();
    super::real_runs::history(&dir, &SESSIONS)
}
