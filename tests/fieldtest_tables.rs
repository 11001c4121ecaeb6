//! `fable fieldtest … --tables` (issue 34 must-show: "for each table that still decides
//! something, how many accepted rules depend on it"): the corpora run again with each
//! hand-written table of the learner off, and the report says per table what changed.
//!
//! Asserted on corpora where the answer is known: a spelling contest (three sessions fix
//! `git push` with `-u`, two with `--set-upstream`) is one fix by the kind of change it
//! made (one flag with the same operands), so it keeps its rule with the spelling table
//! off (until 2026-12-06 only that table made it one fix) and with every other table off
//! that has nothing to do with it; the unsafe corpus accepts unsafe rules with the safety
//! patterns off and none with them on. The honest side: with all tables on, the ablation's
//! baseline is the plain field test's result, and without `--tables` the report has no
//! `tables` field (formats.md §4 may only gain optional fields).

mod isolated;

use serde_json::Value;
use std::path::{Path, PathBuf};

fn fieldtest(dirs: &[PathBuf], extra: &[&str]) -> Value {
    let home = tempfile::tempdir().unwrap();
    let out = isolated::std_cmd("fable", home.path())
        .arg("fieldtest")
        .args(dirs)
        .arg("--json")
        .args(extra)
        .output()
        .expect("run fable fieldtest");
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("fieldtest JSON: {e}\nstderr: {}", String::from_utf8_lossy(&out.stderr)))
}

fn line<'a>(report: &'a Value, table: &str) -> &'a Value {
    report["tables"]["tables"]
        .as_array()
        .expect("a tables section")
        .iter()
        .find(|l| l["table"] == table)
        .unwrap_or_else(|| panic!("no line for {table}"))
}

/// The five `git-no-upstream` sessions of classes-golden, the first two retyped with `-u`:
/// three sessions fix it with `git push -u origin <b>`, two with `--set-upstream`.
fn spelling_contest(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora-classes/classes-golden/trajectories.jsonl");
    let text = std::fs::read_to_string(&src).unwrap();
    let mut out = String::new();
    let mut n = 0;
    for l in text.lines() {
        let mut t: Value = serde_json::from_str(l).unwrap();
        if t["class"] != "git-no-upstream" {
            continue;
        }
        if n < 2 {
            for r in t["records"].as_array_mut().unwrap() {
                let cmd = r["cmd"].as_str().unwrap().replace("--set-upstream ", "-u ");
                r["cmd"] = Value::String(cmd);
            }
        }
        n += 1;
        out.push_str(&t.to_string());
        out.push('\n');
    }
    assert_eq!(n, 5, "the class has five sessions");
    let c = dir.join("spelling-contest");
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(c.join("trajectories.jsonl"), out).unwrap();
    std::fs::write(
        c.join("corpus.json"),
        r#"{"name": "spelling-contest", "kind": "promotion", "description": "one fix typed two ways"}"#,
    )
    .unwrap();
    c
}

#[test]
fn the_spelling_contest_is_one_kind_of_change_with_or_without_any_table() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = spelling_contest(tmp.path());
    let r = fieldtest(std::slice::from_ref(&corpus), &["--tables"]);
    assert_eq!(
        r["corpora"][0]["accepted_rules"], 1,
        "all on: one rule, the fix's two spellings as one"
    );
    assert_eq!(
        r["tables"]["accepted"], 1,
        "the ablation's baseline is the field test's own result"
    );
    assert_eq!(r["tables"]["promoted"], r["corpora"][0]["passed"]);
    assert_eq!(r["tables"]["promotion_n"], 5);
    let s = line(&r, "spellings");
    assert_eq!(s["accepted_with"], 1);
    assert_eq!(s["accepted_without"], 1, "one kind of change, no synonym table: {s}");
    assert_eq!(s["depend"], 0);
    assert_eq!(s["promoted_without"], s["promoted_with"]);
    for other in [
        "spellings",
        "listings",
        "read_only",
        "dir_flags",
        "safety",
        "stop_words",
        "class_anchors",
        "core_pack",
    ] {
        let l = line(&r, other);
        assert_eq!(l["depend"], 0, "{other} has nothing to do with this rule: {l}");
        assert_eq!(l["accepted_without"], 1, "{other}: {l}");
    }
}

#[test]
fn safety_off_accepts_unsafe_rules_that_safety_on_blocks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
    let dirs = [root.join("adversarial-unsafe"), root.join("pool")];
    let r = fieldtest(&dirs, &["--tables"]);
    assert_eq!(r["tables"]["false_accepts"], 0, "all on: no unsafe rule accepted");
    let s = line(&r, "safety");
    assert!(s["accepted_without"].as_u64().unwrap() > 0, "{s}");
    assert!(s["false_accepts_without"].as_u64().unwrap() > 0, "{s}");
    assert_eq!(s["false_accepts_with"], 0);
}

#[test]
fn without_the_flag_the_report_has_no_tables_field() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = spelling_contest(tmp.path());
    let r = fieldtest(std::slice::from_ref(&corpus), &[]);
    assert!(r.get("tables").is_none(), "optional field appears only when asked for");
    assert_eq!(r["corpora"][0]["accepted_rules"], 1);
}
