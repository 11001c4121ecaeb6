//! Earlier sessions run for real: each a failing command and the command that fixed it,
//! logged as the evidence hook logs them (one JSON value per line). The learning tests of
//! both hosts build their histories with it.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Runs each session's failing command (it must really fail) and then its fix (it must
/// really pass) in `dir`, and returns their evidence records, one JSON value per line.
pub fn history(dir: &Path, sessions: &[(&str, &str)]) -> String {
    let sh = |cmd: &str| {
        let o = Command::new("sh").arg("-c").arg(cmd).current_dir(dir).output().unwrap();
        let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&o.stderr));
        (o.status.code().unwrap_or(-1), text.trim_end().to_string())
    };
    let mut log = String::new();
    for (s, (fail, fix)) in sessions.iter().enumerate() {
        let session = format!("earlier-{s}");
        let (c, out) = sh(fail);
        assert_ne!(c, 0, "`{fail}` must really fail: {out}");
        log.push_str(&format!(
            "{}\n",
            super::git_history::record(&session, 2 * s, dir, fail, c, &out)
        ));
        let (c, out) = sh(fix);
        assert_eq!(c, 0, "`{fix}`: {out}");
        log.push_str(&format!(
            "{}\n",
            super::git_history::record(&session, 2 * s + 1, dir, fix, c, &out)
        ));
    }
    log
}
