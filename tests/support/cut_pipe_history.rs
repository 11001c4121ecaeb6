//! A real history for the learning test of a pipeline's failing step: `printf … | cut -d
//! '::' -f1`, where `cut` (after the pipe) refuses a two-character delimiter and says so
//! (`cut: the delimiter must be a single character`), each session then giving it one
//! character. The line's first step, `printf`, never changed: read as the line's failure,
//! each retry was an unchanged one.

#![allow(dead_code)]

use std::path::Path;

/// The five sessions' failing and fixing lines (a text with no error code needs five).
pub const SESSIONS: [(&str, &str); 5] = [
    (
        "printf 'a::b\\n' | cut -d '::' -f1",
        "printf 'a::b\\n' | cut -d ':' -f1",
    ),
    (
        "printf 'k::v\\n' | cut -d '::' -f2",
        "printf 'k::v\\n' | cut -d ':' -f2",
    ),
    (
        "printf 'x::y::z\\n' | cut -d '::' -f1,3",
        "printf 'x::y::z\\n' | cut -d ':' -f1,3",
    ),
    (
        "printf 'p::q\\n' | cut -d '::' -f2",
        "printf 'p::q\\n' | cut -d ':' -f2",
    ),
    (
        "printf 'm::n\\n' | cut -d '::' -f1",
        "printf 'm::n\\n' | cut -d ':' -f1",
    ),
];

/// Runs the sessions for real under `root` and returns their evidence records.
pub fn cut_pipe_history(root: &Path) -> String {
    let dir = root.join("work");
    std::fs::create_dir_all(&dir).unwrap();
    super::real_runs::history(&dir, &SESSIONS)
}
