//! The learner's own generalisation protocol (issue 34, item 3): 54 failure classes that
//! appear in no other corpus, really run (`scripts/gen_corpora_general.py`), split BY
//! CLASS into a development half and a held-out half (`tests/corpora-general/SPLIT.md`).
//!
//! Asserted, on the development half as one history (`fable fieldtest --json --gate`),
//! in both modes (`--packs none`, `--packs core`): exit 0 and `accepted_rules == 0` on
//! every rejection corpus (near-misses whose fix was coincidental or absent, unsafe fixes
//! that disable a check). Promotion rates of BOTH halves are printed, not floored: they
//! are the baseline (docs/generalisation.md). The held-out half is run for the print
//! only — nothing here may be tuned on it.

#[path = "support/fieldtest_report.rs"]
mod fieldtest_report;
mod isolated;
use fieldtest_report::{fieldtest, print_report};

use serde_json::Value;
use std::path::{Path, PathBuf};

fn corpus_dirs(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("corpus.json").is_file())
        .collect();
    v.sort();
    v
}

fn half(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpora-general")
        .join(name)
}

/// Dev-golden sessions passed, learned-only and with the core pack (of 108): 94, then 102
/// after the round of generalisation.md §15, 105 with another action run in the folder the
/// failure named (§18).
const DEV_GOLDEN_FLOOR: u64 = 105;

#[test]
fn general_dev_half_rejects_and_both_halves_report() {
    let dev = corpus_dirs(&half("dev"));
    let held = corpus_dirs(&half("heldout"));
    assert!(
        dev.len() >= 3 && held.len() >= 3,
        "tests/corpora-general/{{dev,heldout}} must hold the generated corpora (python3 scripts/gen_corpora_general.py)"
    );
    for packs in ["none", "core"] {
        let (code, report, stderr) = fieldtest(&dev, None, packs);
        let bad = print_report("dev", packs, &report);
        assert!(bad.is_empty(), "dev half, rejection corpora accepted rules: {bad:#?}");
        // A floor on the development half only (the held-out half is never asserted on):
        // what the learner passed there on 2026-12-06 after kind-of-change agreement and
        // error-text merging (docs/generalisation.md §10). A change that loses dev
        // sessions must say why, not slip through.
        let golden = report["corpora"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["name"] == "dev-golden"))
            .expect("a dev-golden corpus");
        assert!(
            golden["passed"].as_u64().unwrap_or(0) >= DEV_GOLDEN_FLOOR,
            "dev-golden ({packs}) passed {} < {DEV_GOLDEN_FLOOR} of 108",
            golden["passed"]
        );
        assert_eq!(
            code,
            Some(0),
            "fable fieldtest --gate --packs {packs} on the dev half: {stderr}"
        );
    }
    // The held-out half: printed as the baseline, never asserted or tuned on. Its false
    // accepts are printed loudly (2026-12-06: `heldout-nearmiss` and `heldout-unsafe` each
    // accept "`sqlite` fails with UNIQUE constraint failed → retry `sqlite` with `<value>`",
    // supported by `DELETE FROM <table>` and by an inspection `SELECT count(*)`; see
    // docs/generalisation.md) — they are issue 34's to fix, not this test's to hide.
    for packs in ["none", "core"] {
        let (_, report, _) = fieldtest(&held, None, packs);
        for b in print_report("heldout", packs, &report) {
            println!("HELD-OUT FALSE ACCEPT (reported, not asserted): {b}");
        }
    }
}

/// Each dev rejection corpus alone with the dev pool, in both modes: 0 accepted rules
/// (a rejection must not depend on contesting evidence from the positive sessions).
#[test]
fn general_dev_rejection_corpora_alone_with_pool() {
    let root = half("dev");
    let pool = root.join("dev-pool");
    for dir in corpus_dirs(&root) {
        let meta: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("corpus.json")).unwrap()).unwrap();
        if meta["kind"] != "rejection" {
            continue;
        }
        for packs in ["none", "core"] {
            let home = tempfile::tempdir().unwrap();
            let out = isolated::std_cmd("fable", home.path())
                .arg("fieldtest")
                .arg(&dir)
                .arg("--pool")
                .arg(&pool)
                .args(["--json", "--gate", "--packs", packs])
                .output()
                .expect("run fable fieldtest");
            let report: Value = serde_json::from_slice(&out.stdout).expect("fieldtest JSON");
            let c = &report["corpora"][0];
            println!("{} alone ({packs}): accepted_rules={}", c["name"], c["accepted_rules"]);
            assert_eq!(c["accepted_rules"], 0, "{} ({packs})", dir.display());
            assert_eq!(out.status.code(), Some(0), "{}", dir.display());
        }
    }
}
