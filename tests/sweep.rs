//! `fable fieldtest --sweep` end to end: the grid's size, per-domain confusion counts on a
//! tiny generated pair of corpora (hand-computable at the defaults), precision null where
//! nothing is accepted, a well-formed `sweep.svg`, and the structure on the committed
//! corpora (not today's numbers: the learning internals are still moving).

mod isolated;

use serde_json::{json, Value};
use std::path::Path;

const REJECTED: &str = " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'origin'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally.";

fn rec(session: &str, minute: usize, sec: usize, cmd: &str, ok: bool, tail: &str) -> Value {
    json!({"v":1,"ts":format!("2026-01-05T{:02}:{:02}:{:02}.000Z", minute / 60, minute % 60, sec),"session":session,"cwd":"/w","cmd":cmd,
        "exit": if ok {0} else {1},"ok":ok,"tail":tail})
}

fn push_rejected(s: &str, minute: usize) -> Vec<Value> {
    vec![
        rec(
            s,
            minute,
            0,
            "git status",
            true,
            "On branch main\nnothing to commit, working tree clean",
        ),
        rec(s, minute, 1, "git push origin main", false, REJECTED),
        rec(
            s,
            minute,
            2,
            "git pull --rebase origin main",
            true,
            "Successfully rebased and updated refs/heads/main.",
        ),
        rec(
            s,
            minute,
            3,
            "git push origin main",
            true,
            "   1a2b3c4..5d6e7f8  main -> main",
        ),
    ]
}

/// A one-off failure the agent fixed itself: never a rule (self-resolved).
fn npm_one_off(s: &str, minute: usize) -> Vec<Value> {
    vec![
        rec(
            s,
            minute,
            0,
            "npm install",
            false,
            "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
        ),
        rec(
            s,
            minute,
            1,
            "npm install --legacy-peer-deps",
            true,
            "added 12 packages in 2s",
        ),
    ]
}

fn quiet(s: &str, minute: usize) -> Vec<Value> {
    vec![rec(s, minute, 0, "ls", true, "README.md\nsrc")]
}

fn write_corpus(dir: &Path, name: &str, kind: &str, trajs: &[(String, Vec<Value>)]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("corpus.json"),
        json!({"name": name, "kind": kind, "description": "generated"}).to_string(),
    )
    .unwrap();
    let lines: Vec<String> = trajs
        .iter()
        .map(|(id, r)| json!({"id": id, "records": r, "expected_rule": null, "label": ""}).to_string())
        .collect();
    std::fs::write(dir.join("trajectories.jsonl"), lines.join("\n") + "\n").unwrap();
}

fn fieldtest(cwd: &Path, corpora: &[&Path], out: &Path) -> Value {
    let mut cmd = isolated::cmd("fable", &cwd.join(".home"));
    cmd.current_dir(cwd).arg("fieldtest");
    for c in corpora {
        cmd.arg(c);
    }
    let o = cmd.args(["--sweep", "--json", "--out"]).arg(out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn check_grid(s: &Value) {
    assert_eq!(s["thresholds"].as_array().unwrap().len(), 11);
    assert_eq!(s["margins"].as_array().unwrap().len(), 5);
    let pts = s["points"].as_array().unwrap();
    assert_eq!(pts.len(), 55);
    assert_eq!(
        (s["default_threshold"].as_f64(), s["default_margin"].as_f64()),
        (Some(0.45), Some(0.1))
    );
    assert_eq!(s["defaults"]["threshold"], 0.45);
    assert_eq!(s["defaults"]["margin"], 0.1);
    for p in pts {
        // Per domain, the counts add up to the domain's trajectories.
        for (d, c) in p["domains"].as_object().unwrap() {
            let (np, nr) = (
                s["domains"][d][0].as_u64().unwrap(),
                s["domains"][d][1].as_u64().unwrap(),
            );
            assert_eq!(c["tp"].as_u64().unwrap() + c["fn"].as_u64().unwrap(), np, "{d}");
            assert_eq!(c["fp"].as_u64().unwrap() + c["tn"].as_u64().unwrap(), nr, "{d}");
            let accepted = c["tp"].as_u64().unwrap() + c["fp"].as_u64().unwrap();
            assert_eq!(c["precision"].is_null(), accepted == 0, "{d}: {c}");
            assert_eq!(c["recall"].is_null(), np == 0, "{d}: {c}");
        }
    }
}

fn check_svg(path: &Path) {
    let svg = std::fs::read_to_string(path).unwrap();
    let head = svg.trim_start();
    assert!(
        head.starts_with("<svg") || head.starts_with("<?xml"),
        "{}",
        &svg[..80.min(svg.len())]
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("<polyline") || svg.contains("<path"), "no line drawn");
    // Labels are plain SVG text: no font needed to draw them.
    assert!(svg.contains("<text") && svg.contains("threshold"));
}

#[test]
fn tiny_corpora_hand_computed_at_defaults() {
    let d = tempfile::tempdir().unwrap();
    let (good, bad) = (d.path().join("good"), d.path().join("bad"));
    let promo: Vec<(String, Vec<Value>)> = (0..4)
        .map(|i| (format!("g{i}"), push_rejected(&format!("g{i}"), 10 + i)))
        .collect();
    write_corpus(&good, "good", "promotion", &promo);
    write_corpus(&bad, "bad", "rejection", &[("n0".into(), npm_one_off("n0", 30))]);
    let out = d.path().join("out");
    let v = fieldtest(d.path(), &[&good, &bad], &out);
    let s = &v["sweep"];
    check_grid(s);
    assert_eq!(s["domains"], json!({"git": [4, 0], "npm": [0, 1]}));
    let at = &s["defaults"]["domains"];
    assert_eq!(
        (&at["git"]["tp"], &at["git"]["fn"], &at["git"]["fp"]),
        (&json!(4), &json!(0), &json!(0)),
        "{s:#}"
    );
    assert_eq!(
        (&at["git"]["precision"], &at["git"]["recall"]),
        (&json!(1.0), &json!(1.0))
    );
    // Nothing accepted in npm: precision null, not 0; no promotion trajectory: recall null.
    assert_eq!(at["npm"]["tn"], 1);
    assert!(at["npm"]["precision"].is_null() && at["npm"]["recall"].is_null() && at["npm"]["f1"].is_null());
    assert!(s["best"]["npm"].is_null());
    // Ties go to the higher threshold.
    let best = &s["best"]["git"];
    assert_eq!(best["cell"]["f1"], 1.0);
    let top = s["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["domains"]["git"]["f1"] == 1.0)
        .map(|p| p["threshold"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(best["threshold"].as_f64().unwrap(), top);
    assert_eq!(s["default_at_best_by_domain"]["git"], true);
    assert!(s["default_at_best_by_domain"]["npm"].is_null());
    let ties = s["best_overall_ties"].as_u64().unwrap();
    assert!((1..=55).contains(&ties));
    check_svg(&out.join("sweep.svg"));
    assert_eq!(s["chart"], "sweep.svg");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("## Threshold × margin sweep") && md.contains("**(default)**"),
        "{md}"
    );
}

#[test]
fn precision_is_null_where_nothing_is_accepted() {
    let d = tempfile::tempdir().unwrap();
    let (good, bad) = (d.path().join("good"), d.path().join("bad"));
    write_corpus(
        &good,
        "good",
        "promotion",
        &[("q0".into(), quiet("q0", 1)), ("q1".into(), quiet("q1", 2))],
    );
    write_corpus(&bad, "bad", "rejection", &[("n0".into(), npm_one_off("n0", 30))]);
    let out = d.path().join("out");
    let v = fieldtest(d.path(), &[&good, &bad], &out);
    let s = &v["sweep"];
    check_grid(s);
    for p in s["points"].as_array().unwrap() {
        assert_eq!(p["accepted_rules"], 0);
        assert!(p["overall"]["precision"].is_null(), "{p}");
        assert_eq!(p["overall"]["recall"], 0.0);
        assert!(p["overall"]["f1"].is_null());
    }
    assert!(s["best_overall"].is_null());
    check_svg(&out.join("sweep.svg"));
}

#[test]
fn committed_corpora_sweep_structure() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
    let names = ["golden", "nearmiss", "adversarial-poisoning", "pool"];
    let dirs: Vec<std::path::PathBuf> = names.iter().map(|n| root.join(n)).collect();
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let refs: Vec<&Path> = dirs.iter().map(|p| p.as_path()).collect();
    let v = fieldtest(&root, &refs, &out);
    let s = &v["sweep"];
    check_grid(s);
    // Every scored trajectory sits in exactly one domain.
    let scored: u64 = v["corpora"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] != "pool")
        .map(|c| c["n"].as_u64().unwrap())
        .sum();
    let counted: u64 = s["domains"]
        .as_object()
        .unwrap()
        .values()
        .map(|c| c[0].as_u64().unwrap() + c[1].as_u64().unwrap())
        .sum();
    assert_eq!(scored, counted);
    // The default point agrees with the main report's accepted count.
    assert_eq!(s["defaults"]["accepted_rules"], v["history"]["accepted"]);
    check_svg(&out.join("sweep.svg"));
}
