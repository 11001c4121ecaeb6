//! Regression gate on the field test: the real `fable` binary, `fable fieldtest --json
//! --gate`, on every corpus folder of a set as ONE combined history (formats.md §2).
//!
//! (a) the CauterRule corpora at `$CARGO_MANIFEST_DIR/../shared/corpora/cauterule`
//!     (skipped when absent, unless `CI` is set);
//! (b) our own corpora in `tests/corpora`.
//!
//! Asserts: exit 0 (no rejection corpus accepted a rule), `accepted_rules == 0` on every
//! rejection corpus, and each promotion corpus at or above the floor measured when the
//! learner's support/contest semantics were set (src/learn.rs module doc), minus a small
//! tolerance, so a regression fails. Prints the per-corpus numbers.

mod isolated;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// Pass-rate floors (measured, then rounded down) per promotion corpus.
const CAUTERULE_FLOORS: &[(&str, f64)] = &[
    ("golden", 0.85),
    ("failures-positive", 0.18),
    ("public-golden", 0.30),
    ("paraphrase-diversity", 0.93),
    ("browser", 1.00),
];
const OWN_FLOORS: &[(&str, f64)] = &[("golden", 0.30), ("positive", 0.28)];
/// How far below a floor a rate may fall before the test fails.
const TOLERANCE: f64 = 0.02;

fn corpus_dirs(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("corpus.json").is_file())
        .collect();
    v.sort();
    v
}

fn run_gate(root: &Path, floors: &[(&str, f64)]) {
    let dirs = corpus_dirs(root);
    assert!(!dirs.is_empty(), "no corpus folders in {}", root.display());
    let home = tempfile::tempdir().unwrap();
    let out = isolated::std_cmd("fable", home.path())
        .arg("fieldtest")
        .args(&dirs)
        .args(["--json", "--gate"])
        .output()
        .expect("run fable fieldtest");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("fieldtest JSON: {e}\nstderr: {}", String::from_utf8_lossy(&out.stderr)));
    println!("== {} ({} corpora, one history)", root.display(), dirs.len());
    let mut failures = Vec::new();
    for c in report["corpora"].as_array().expect("corpora") {
        let name = c["name"].as_str().unwrap_or("?");
        let kind = c["kind"].as_str().unwrap_or("?");
        if kind == "pool" {
            continue;
        }
        let x = &c["extraction"];
        println!(
            "{name:38} {kind:9} n={:<3} passed={:<3} rate={:<6} wilson={} accepted_rules={:<3} token_f1={} directive_f1={} agreement={}",
            c["n"], c["passed"], c["pass_rate"], c["wilson"], c["accepted_rules"],
            x["token_f1"], x["directive_f1"], x["agreement"]
        );
        let rate = c["pass_rate"].as_f64().unwrap_or(0.0);
        let floor = floors.iter().find(|(n, _)| *n == name).map(|(_, f)| *f);
        if kind == "rejection" && c["accepted_rules"].as_u64() != Some(0) {
            failures.push(format!("{name}: {} accepted rules", c["accepted_rules"]));
        } else if let Some(floor) = floor.filter(|f| kind == "promotion" && rate + TOLERANCE < *f) {
            failures.push(format!("{name}: pass rate {rate} below floor {floor}"));
        }
    }
    assert_eq!(
        out.status.code(),
        Some(0),
        "fable fieldtest --gate failed: {failures:?}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn cauterule_corpora_combined_gate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/cauterule");
    if !root.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but {} is missing",
            root.display()
        );
        eprintln!("skipped: {} not found", root.display());
        return;
    }
    run_gate(&root, CAUTERULE_FLOORS);
}

#[test]
fn own_corpora_combined_gate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
    run_gate(&root, OWN_FLOORS);
}

/// Each of our rejection corpora alone with the everyday pool: still 0 accepted rules
/// (a rejection must not depend on contesting evidence from another corpus).
#[test]
fn own_rejection_corpora_alone_with_pool() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
    let pool = root.join("pool");
    for dir in corpus_dirs(&root) {
        let meta: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("corpus.json")).unwrap()).unwrap();
        if meta["kind"] != "rejection" {
            continue;
        }
        let home = tempfile::tempdir().unwrap();
        let out = isolated::std_cmd("fable", home.path())
            .arg("fieldtest")
            .arg(&dir)
            .arg("--pool")
            .arg(&pool)
            .args(["--json", "--gate"])
            .output()
            .expect("run fable fieldtest");
        let report: Value = serde_json::from_slice(&out.stdout).expect("fieldtest JSON");
        let c = &report["corpora"][0];
        println!("{} alone: accepted_rules={}", c["name"], c["accepted_rules"]);
        assert_eq!(out.status.code(), Some(0), "{}: {}", dir.display(), c["accepted_rules"]);
        assert_eq!(c["accepted_rules"], 0, "{}", dir.display());
    }
}
