//! Earlier sessions run for real: each a failing command and the command that fixed it,
//! logged as the evidence hook logs them (one JSON value per line). The learning tests of
//! both hosts build their histories with it.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Runs `cmd` with `sh -c` in `dir`: its exit code and its output (stdout, then stderr),
/// as the evidence hook would log them.
pub fn sh(dir: &Path, cmd: &str) -> (i32, String) {
    let o = Command::new("sh").arg("-c").arg(cmd).current_dir(dir).output().unwrap();
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    (o.status.code().unwrap_or(-1), text.trim_end().to_string())
}

/// Runs each session's failing command (it must really fail) and then its fix (it must
/// really pass) in `dir`, and returns their evidence records, one JSON value per line.
pub fn history(dir: &Path, sessions: &[(&str, &str)]) -> String {
    let sh = |cmd: &str| sh(dir, cmd);
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

/// Every rule of `proj`'s rule store (`.fable/rules.json`).
pub fn stored_rules(proj: &Path) -> Vec<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(proj.join(".fable/rules.json")).unwrap()).unwrap()
}

/// The promoted rule of `proj`'s rule store for the program `domain`, and its id (the test
/// fails, showing the store and `debug`, when there is none).
pub fn promoted_rule_of(proj: &Path, domain: &str, debug: &str) -> (serde_json::Value, String) {
    let rules = stored_rules(proj);
    let rule = rules
        .iter()
        .find(|r| r["status"] == "promoted" && r["domain"] == domain)
        .unwrap_or_else(|| panic!("no promoted rule for `{domain}`: {rules:#?}\n{debug}"))
        .clone();
    let id = rule["id"].as_str().unwrap().to_string();
    (rule, id)
}

/// The promoted rule of `proj`'s rule store whose `domains` are `domains`, and its id
/// (the test fails, showing the store and `debug`, when there is none).
pub fn promoted_rule(proj: &Path, domains: &serde_json::Value, debug: &str) -> (serde_json::Value, String) {
    let rules = stored_rules(proj);
    let rule = rules
        .iter()
        .find(|r| r["status"] == "promoted" && r["domains"] == *domains)
        .unwrap_or_else(|| panic!("no promoted rule for {domains}: {rules:#?}\n{debug}"))
        .clone();
    let id = rule["id"].as_str().unwrap().to_string();
    (rule, id)
}

/// The session's evidence record of `cmd`, which must have really failed saying `says`.
pub fn really_failed(evidence: Vec<serde_json::Value>, cmd: &str, says: &str) -> serde_json::Value {
    let r = evidence
        .into_iter()
        .find(|r| r["cmd"] == cmd)
        .unwrap_or_else(|| panic!("`{cmd}` was not logged"));
    assert_eq!(r["ok"], false, "`{cmd}` must really fail: {r}");
    assert!(
        r["tail"].as_str().unwrap_or("").contains(says),
        "`{cmd}` said otherwise: {r}"
    );
    r
}

/// The text sent after a failure carries the standing rule `id` and its fix `says`.
pub fn assert_rule_given(sent: &str, id: &str, says: &str) {
    assert!(
        sent.contains(&format!("Standing rule {id}")) && sent.contains(says),
        "the failure's feedback lacks the rule {id}: {sent}"
    );
}
