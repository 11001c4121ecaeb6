//! A real history for the learning tests (both hosts) of one cause met through several
//! programs: `cat`, `rm` and `wc` really reading a file name that starts with `-` as an
//! option, each session then keeping it a name with `--` or `./`. No program has the
//! recurrence alone; the class across them does.

#![allow(dead_code)]

use std::path::Path;

/// The five sessions' failing and fixing commands.
pub const SESSIONS: [(&str, &str); 5] = [
    ("cat -notes.txt", "cat -- -notes.txt"),
    ("rm -v2.log", "rm ./-v2.log"),
    ("wc -l -x.csv", "wc -l ./-x.csv"),
    ("cat -draft.md", "cat ./-draft.md"),
    ("rm -v5.log", "rm -- -v5.log"),
];

/// Runs the sessions for real under `root` and returns their evidence records, one JSON
/// value per line.
pub fn dash_history(root: &Path) -> String {
    let dir = root.join("work");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["-notes.txt", "-v2.log", "-x.csv", "-draft.md", "-v5.log"] {
        std::fs::write(dir.join(f), "a line\n").unwrap();
    }
    super::real_runs::history(&dir, &SESSIONS)
}
