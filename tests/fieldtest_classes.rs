//! The per-class field-test report: trajectories carrying the optional `class` field are
//! counted per class (passed/n, Wilson interval, distinct accepted rules) in `--json` and
//! in the text report; a corpus without classes has no `classes` field (the pinned
//! report only gains an optional field). A tiny hand-made pair of corpora, the real
//! `fable` binary, HOME in a temp folder.
//!
//! What is asserted does not depend on what the learner accepts (another branch is
//! changing it): per-class n are the corpus's own; per-class passed equal the report's
//! own per-trajectory verdicts; the Wilson bounds follow from those counts; a rejection
//! corpus of successes only passes every class (no failure, no rule).

mod isolated;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

fn rec(session: &str, i: usize, cmd: &str, exit: i64, tail: &str) -> Value {
    json!({"v": 1, "ts": format!("2026-11-02T08:{:02}:{:02}.000Z", i / 60, i % 60), "session": session,
           "cwd": "/home/dev/app", "cmd": cmd, "exit": exit, "ok": exit == 0, "tail": tail})
}

const REJECTED: &str = "To /home/dev/remotes/app.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to '/home/dev/remotes/app.git'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally.\n";

fn corpus(dir: &Path, name: &str, kind: &str, trajectories: &[Value]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("corpus.json"),
        json!({"name": name, "kind": kind, "description": "hand-made"}).to_string(),
    )
    .unwrap();
    let lines: Vec<String> = trajectories.iter().map(Value::to_string).collect();
    std::fs::write(dir.join("trajectories.jsonl"), lines.join("\n") + "\n").unwrap();
}

fn traj(id: &str, class: Option<&str>, records: Vec<Value>) -> Value {
    let mut t = json!({"id": id, "records": records, "expected_rule": null, "label": id});
    if let Some(c) = class {
        t["class"] = json!(c);
    }
    t
}

fn push_session(id: &str, k: usize) -> Value {
    let b = k * 4;
    traj(
        id,
        Some("push-nonff"),
        vec![
            rec(id, b, "git push origin main", 1, REJECTED),
            rec(
                id,
                b + 1,
                "git pull --rebase origin main",
                0,
                "Successfully rebased and updated refs/heads/main.\n",
            ),
            rec(
                id,
                b + 2,
                "git push origin main",
                0,
                "To /home/dev/remotes/app.git\n   1a2b3c4..5d6e7f8  main -> main\n",
            ),
        ],
    )
}

fn wilson(k: f64, n: f64) -> (f64, f64) {
    let z = 1.959964_f64;
    let p = k / n;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    let r = |x: f64| (x * 1000.0).round() / 1000.0;
    (r((c - h).max(0.0)), r((c + h).min(1.0)))
}

#[test]
fn per_class_report_counts_each_class() {
    let t = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (promo, rej, plain) = (t.path().join("promo"), t.path().join("rej"), t.path().join("plain"));
    let mut p: Vec<Value> = (0..5).map(|k| push_session(&format!("P-{k}"), k)).collect();
    // Two different one-off failures, never fixed (each happens once).
    let one_offs = [
        (
            "P-5",
            "cat CONTRIBUTING.md",
            "cat: CONTRIBUTING.md: No such file or directory\n",
        ),
        (
            "P-6",
            "tar -xzf release.tar.gz",
            "tar: release.tar.gz: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n",
        ),
    ];
    for (i, (id, cmd, tail)) in one_offs.iter().enumerate() {
        p.push(traj(id, Some("one-off"), vec![rec(id, 40 + i, cmd, 2, tail)]));
    }
    p.push(traj("P-7", None, vec![rec("P-7", 50, "ls", 0, "README.md\n")]));
    corpus(&promo, "promo", "promotion", &p);
    let r: Vec<Value> = (0..3)
        .map(|k| {
            let id = format!("R-{k}");
            let class = if k < 2 { "everyday-git" } else { "everyday-ls" };
            traj(
                &id,
                Some(class),
                vec![rec(
                    &id,
                    60 + k,
                    "git status",
                    0,
                    "On branch main\nnothing to commit, working tree clean\n",
                )],
            )
        })
        .collect();
    corpus(&rej, "rej", "rejection", &r);
    corpus(
        &plain,
        "plain",
        "rejection",
        &[traj("N-0", None, vec![rec("N-0", 70, "ls", 0, "a\n")])],
    );

    let out = isolated::cmd("fable", home.path())
        .arg("fieldtest")
        .args([&promo, &rej, &plain])
        .args(["--json", "--packs", "none"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_name = |n: &str| {
        report["corpora"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == n)
            .unwrap()
            .clone()
    };

    // Per class n, and passed equal to the report's own per-trajectory verdicts.
    let promo_c = by_name("promo");
    let class_of: BTreeMap<String, String> = p
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_string(),
                t["class"].as_str().unwrap_or("(unclassified)").to_string(),
            )
        })
        .collect();
    let mut expect: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for tr in promo_c["trajectories"].as_array().unwrap() {
        let e = expect.entry(class_of[tr["id"].as_str().unwrap()].clone()).or_default();
        e.0 += 1;
        e.1 += u64::from(tr["passed"].as_bool().unwrap());
    }
    let classes = promo_c["classes"].as_array().expect("classes present");
    let got: BTreeMap<String, (u64, u64)> = classes
        .iter()
        .map(|c| {
            (
                c["class"].as_str().unwrap().to_string(),
                (c["n"].as_u64().unwrap(), c["passed"].as_u64().unwrap()),
            )
        })
        .collect();
    assert_eq!(got, expect);
    assert_eq!(
        got.iter().map(|(k, v)| (k.as_str(), v.0)).collect::<Vec<_>>(),
        [("(unclassified)", 1), ("one-off", 2), ("push-nonff", 5)]
    );
    // A single unresolved failure never makes an accepted rule (a learned rule needs
    // sessions whose fix agrees), so the one-off class passes nothing.
    assert_eq!(got["one-off"].1, 0);
    for c in classes {
        let (k, n) = (c["passed"].as_f64().unwrap(), c["n"].as_f64().unwrap());
        let (lo, hi) = wilson(k, n);
        assert_eq!(
            (c["wilson"][0].as_f64().unwrap(), c["wilson"][1].as_f64().unwrap()),
            (lo, hi),
            "{c}"
        );
        assert_eq!(c["pass_rate"].as_f64().unwrap(), (k / n * 1000.0).round() / 1000.0);
    }

    // Rejection corpus of successes only: every class passes, no rule.
    let rej_c = by_name("rej");
    let rc: Vec<(String, u64, u64, u64)> = rej_c["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["class"].as_str().unwrap().to_string(),
                c["n"].as_u64().unwrap(),
                c["passed"].as_u64().unwrap(),
                c["accepted_rules"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rc,
        [
            ("everyday-git".to_string(), 2, 2, 0),
            ("everyday-ls".to_string(), 1, 1, 0)
        ]
    );
    assert_eq!(rej_c["classes"][0]["wilson"], json!([wilson(2.0, 2.0).0, 1.0]));

    // No class anywhere: no `classes` field (the pinned report is unchanged).
    assert!(by_name("plain").get("classes").is_none());

    // The text report has the per-class table, with the same counts.
    let text = isolated::cmd("fable", home.path())
        .arg("fieldtest")
        .args([&promo, &rej])
        .args(["--packs", "none"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("### Per class"), "{text}");
    let (n, k) = (got["push-nonff"].0, got["push-nonff"].1);
    assert!(
        text.contains(&format!("| promo | promotion | push-nonff | {k}/{n} |")),
        "{text}"
    );
    assert!(
        text.contains("| rej | rejection | everyday-git | 2/2 | 1.000 |"),
        "{text}"
    );
}
