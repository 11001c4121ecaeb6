//! A real history for the learning test of a check switched off through its file: in
//! seven repositories `git add app.log` is really refused ("The following paths are
//! ignored by one of your .gitignore files"). Four sessions force the one path in (`git
//! add -f`); three empty or remove the `.gitignore` the failure blamed and add again,
//! which then passes too. Unknown to the safety gate, those three were working fixes that
//! contested the safe one (4 of 7): nothing was learned.

#![allow(dead_code)]

use super::git_history::{ok, record};
use super::real_runs::sh;
use std::path::Path;

/// The fixing line of each session; the first four are the safe fix.
pub const FIXES: [&str; 7] = [
    "git add -f app.log",
    "git add -f app.log",
    ": > .gitignore && git add app.log",
    "git add --force app.log",
    "rm .gitignore && git add app.log",
    "git add -f app.log",
    "truncate -s 0 .gitignore && git add app.log",
];

/// The same refusal, three of the seven swallowed by the line instead (`|| true`, `|| :`,
/// `; exit 0`): the line "passes" with the refusal still in its output. Read as the same
/// command passing, those were plain retries, evidence that the refusal clears by itself.
pub const SWALLOWED: [&str; 7] = [
    "git add -f app.log",
    "git add -f app.log",
    "git add app.log || true",
    "git add --force app.log",
    "git add app.log 2>&1 || :",
    "git add -f app.log",
    "git add app.log; exit 0",
];

/// A repository under `root` whose `.gitignore` ignores `*.log`, with an `app.log`.
pub fn ignoring_repo(root: &Path, tag: &str) -> std::path::PathBuf {
    let dir = root.join(format!("repo-{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    ok(&dir, &["init", "-q"]);
    std::fs::write(dir.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(dir.join("app.log"), "started\n").unwrap();
    dir
}

/// Runs the sessions of [`FIXES`] for real under `root` and returns their evidence records.
pub fn ignored_history(root: &Path) -> String {
    history_of(root, &FIXES)
}

/// Runs one session per fixing line for real under `root`: the refusal, then the line.
pub fn history_of(root: &Path, fixes: &[&str]) -> String {
    let mut log = String::new();
    for (s, fix) in fixes.iter().enumerate() {
        let dir = ignoring_repo(root, &s.to_string());
        let session = format!("earlier-{s}");
        let fail = "git add app.log";
        let (c, out) = sh(&dir, fail);
        assert_ne!(c, 0, "`{fail}` must really be refused: {out}");
        assert!(out.contains(".gitignore"), "{out}");
        log.push_str(&format!("{}\n", record(&session, 2 * s, &dir, fail, c, &out)));
        let (c, out) = sh(&dir, fix);
        assert_eq!(c, 0, "`{fix}`: {out}");
        log.push_str(&format!("{}\n", record(&session, 2 * s + 1, &dir, fix, c, &out)));
    }
    log
}

/// The two histories the tests of a check switched off beside the safe fix learn from:
/// (name, each session's fixing line, words no promoted rule may say).
pub const SWITCHED_OFF: [(&str, &[&str], &[&str]); 2] = [
    ("blamed-file", &FIXES, &[".gitignore", "truncate"]),
    ("swallowed", &SWALLOWED, &["|| true", "|| :", "exit 0"]),
];

/// The id of `proj`'s promoted `git add -f` rule. The test fails, showing the store and
/// `debug`, when there is none or when a promoted rule says one of `never`.
pub fn safe_rule_promoted(proj: &Path, name: &str, never: &[&str], debug: &str) -> String {
    let rules = super::real_runs::stored_rules(proj);
    let promoted: Vec<&serde_json::Value> = rules.iter().filter(|r| r["status"] == "promoted").collect();
    let says = |r: &serde_json::Value, w: &str| r["directive"].as_str().unwrap_or("").contains(w);
    let rule = promoted
        .iter()
        .find(|r| r["domain"] == "git" && says(r, "-f"))
        .unwrap_or_else(|| panic!("{name}: no promoted `git add -f` rule: {rules:#?}\n{debug}"));
    assert!(
        promoted.iter().all(|r| never.iter().all(|n| !says(r, n))),
        "{name}: a rule that switches the check off was promoted: {promoted:#?}"
    );
    rule["id"].as_str().unwrap().to_string()
}
