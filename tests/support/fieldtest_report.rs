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

/// One generated set of `tests/corpora-general` (`val`, `dev2`): its golden, near-miss,
/// unsafe and pool corpora, named `<set>-<kind>`.
pub struct GeneratedSet {
    pub set: &'static str,
    /// Golden sessions (classes × 4) and classes.
    pub sessions: u64,
    pub classes: usize,
    /// Floors on golden sessions passed: learned-only, with the core pack.
    pub floors: [u64; 2],
}

impl GeneratedSet {
    fn dir(&self, kind: &str) -> PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/corpora-general")
            .join(self.set)
            .join(format!("{}-{kind}", self.set))
    }

    fn run(&self, kinds: &[&str], packs: &str) -> (Option<i32>, Value, String) {
        let dirs: Vec<PathBuf> = kinds.iter().map(|k| self.dir(k)).collect();
        fieldtest(&dirs, Some(&self.dir("pool")), packs)
    }

    /// As one history, both modes: 0 accepted rules on the near-miss and unsafe corpora,
    /// golden at or above its floor, exit 0; prints the report and the golden verdicts.
    pub fn rejects_and_holds_its_floor(&self) {
        let set = self.set;
        assert!(
            self.dir("golden").join("corpus.json").is_file(),
            "tests/corpora-general/{set} must hold the generated corpora (python3 scripts/gen_corpora_general.py --only {set})"
        );
        for (packs, floor) in [("none", self.floors[0]), ("core", self.floors[1])] {
            let (code, report, stderr) = self.run(&["golden", "nearmiss", "unsafe"], packs);
            print_report(set, packs, &report);
            for kind in ["nearmiss", "unsafe"] {
                let c = corpus(&report, &format!("{set}-{kind}"));
                assert_eq!(
                    c["accepted_rules"].as_u64(),
                    Some(0),
                    "{set}-{kind} ({packs}): a rule was accepted on a rejection corpus"
                );
            }
            let golden = corpus(&report, &format!("{set}-golden"));
            println!("{set:7} {packs:4} {set}-golden verdicts {}", golden["verdicts"]);
            assert_eq!(golden["n"].as_u64(), Some(self.sessions), "{set}-golden sessions");
            assert_eq!(
                golden["classes"].as_array().map(Vec::len),
                Some(self.classes),
                "{set}-golden classes"
            );
            assert!(
                golden["passed"].as_u64().unwrap_or(0) >= floor,
                "{set}-golden ({packs}) passed {} < the floor {floor} of {}",
                golden["passed"],
                self.sessions
            );
            assert_eq!(
                code,
                Some(0),
                "fable fieldtest --gate --packs {packs} on {set}: {stderr}"
            );
        }
    }

    /// Each rejection corpus alone with the pool, both modes: 0 accepted rules (a rejection
    /// must not rely on contesting evidence from the positive sessions).
    pub fn rejection_corpora_alone_with_pool(&self) {
        self.rejection_corpora_alone_accepting(0);
    }

    /// As [`Self::rejection_corpora_alone_with_pool`], with `unsafe_accepted` rules on the
    /// unsafe corpus alone asserted as measured (a finding kept, not hidden: the gate then
    /// exits 3). The near-miss corpus alone still accepts 0.
    pub fn rejection_corpora_alone_accepting(&self, unsafe_accepted: u64) {
        for (kind, accepted) in [("nearmiss", 0), ("unsafe", unsafe_accepted)] {
            let name = format!("{}-{kind}", self.set);
            let exit = if accepted == 0 { 0 } else { 3 };
            for packs in ["none", "core"] {
                let (code, report, stderr) = self.run(&[kind], packs);
                let c = corpus(&report, &name);
                println!("{name} alone ({packs}): accepted_rules={}", c["accepted_rules"]);
                assert_eq!(c["accepted_rules"].as_u64(), Some(accepted), "{name} ({packs})");
                assert_eq!(code, Some(exit), "{name} ({packs}): {stderr}");
            }
        }
    }
}
