//! Running `fable fieldtest --json --gate` on corpora and reading its report, for the
//! generalisation tests (`fieldtest_general`, `fieldtest_val`). Included by path beside
//! `isolated` (`#[path = "support/fieldtest_report.rs"] mod fieldtest_report;`).

#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;

/// `fable fieldtest <corpora…> [--pool POOL] --json --gate --packs <packs>` in a fresh
/// home: (exit code, report, stderr).
pub fn fieldtest(corpora: &[PathBuf], pool: Option<&PathBuf>, packs: &str) -> (Option<i32>, Value, String) {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = crate::isolated::std_cmd("fable", home.path());
    cmd.arg("fieldtest").args(corpora);
    if let Some(pool) = pool {
        cmd.arg("--pool").arg(pool);
    }
    let out = cmd
        .args(["--json", "--gate", "--packs", packs])
        .output()
        .expect("run fable fieldtest");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("fieldtest JSON: {e}\nstderr: {}", String::from_utf8_lossy(&out.stderr)));
    (
        out.status.code(),
        report,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The report's corpus `name`.
pub fn corpus<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["corpora"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no corpus {name} in the report"))
}

/// Prints every scored corpus of a report, and the per-class table of each promotion
/// corpus; returns the rejection corpora that accepted a rule.
pub fn print_report(set: &str, packs: &str, report: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    for c in report["corpora"].as_array().expect("corpora") {
        let (name, kind) = (c["name"].as_str().unwrap_or("?"), c["kind"].as_str().unwrap_or("?"));
        if kind == "pool" {
            continue;
        }
        println!(
            "{set:7} {packs:4} {name:20} {kind:9} n={:<3} passed={:<3} rate={:<6} wilson={} accepted={} by_source={} token_f1={} directive_f1={}",
            c["n"], c["passed"], c["pass_rate"], c["wilson"], c["accepted_rules"], c["accepted_by_source"],
            c["extraction"]["token_f1"], c["extraction"]["directive_f1"]
        );
        if kind == "promotion" {
            for cl in c["classes"].as_array().into_iter().flatten() {
                println!(
                    "          {:32} {}/{}",
                    cl["class"].as_str().unwrap_or("?"),
                    cl["passed"],
                    cl["n"]
                );
            }
        }
        if kind == "rejection" && c["accepted_rules"].as_u64() != Some(0) {
            bad.push(format!("{name} ({packs}): {} accepted rules", c["accepted_rules"]));
        }
    }
    bad
}
