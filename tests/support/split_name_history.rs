//! A real history for the learning test of a name split at a blank: `python3 My Notes.py`
//! runs `My` (python3: can't open file '…/My': [Errno 2] No such file or directory), and
//! each session then gives the name whole, quoted or escaped.

#![allow(dead_code)]

use std::path::Path;

/// The five sessions' failing and fixing lines (quoted, double-quoted, escaped).
pub const SESSIONS: [(&str, &str); 5] = [
    ("python3 My Notes.py", "python3 'My Notes.py'"),
    ("python3 My Notes.py", "python3 \"My Notes.py\""),
    ("python3 My Notes.py", "python3 My\\ Notes.py"),
    ("python3 My Notes.py", "python3 'My Notes.py'"),
    ("python3 My Notes.py", "python3 \"My Notes.py\""),
];

/// Runs the sessions for real under `root` and returns their evidence records.
pub fn split_name_history(root: &Path) -> String {
    let dir = root.join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("My Notes.py"), "print('notes: 3')\n").unwrap();
    super::real_runs::history(&dir, &SESSIONS)
}
