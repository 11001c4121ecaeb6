//! Recurrence after promotion, end to end through the `fable` binary: hand-computable
//! before/after rates on tiny generated histories (time split over a corpus and over a
//! project log, live mode over a project's stored rules, `--apply`), and the structure of
//! the section on the committed corpora.

mod isolated;

use serde_json::{json, Value};
use std::path::Path;

const REJECTED: &str = " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'origin'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally.";

/// One record (formats.md §1); `minute` orders sessions in time.
fn rec(session: &str, day: &str, minute: usize, sec: usize, cmd: &str, ok: bool, tail: &str) -> Value {
    json!({"v":1,"ts":format!("{day}T{:02}:{:02}:{:02}.000Z", minute / 60, minute % 60, sec),"session":session,"cwd":"/w","cmd":cmd,
        "exit": if ok {0} else {1},"ok":ok,"tail":tail})
}

/// A session whose push is rejected and fixed with `git pull --rebase`.
fn failing(session: &str, day: &str, minute: usize) -> Vec<Value> {
    vec![
        rec(
            session,
            day,
            minute,
            0,
            "git status",
            true,
            "On branch main\nnothing to commit, working tree clean",
        ),
        rec(session, day, minute, 1, "git push origin main", false, REJECTED),
        rec(
            session,
            day,
            minute,
            2,
            "git pull --rebase origin main",
            true,
            "Successfully rebased and updated refs/heads/main.",
        ),
        rec(
            session,
            day,
            minute,
            3,
            "git push origin main",
            true,
            "   1a2b3c4..5d6e7f8  main -> main",
        ),
    ]
}

/// A session with no failure.
fn quiet(session: &str, day: &str, minute: usize) -> Vec<Value> {
    vec![
        rec(
            session,
            day,
            minute,
            0,
            "git status",
            true,
            "On branch main\nnothing to commit, working tree clean",
        ),
        rec(session, day, minute, 1, "ls", true, "README.md\nsrc"),
    ]
}

/// Four early sessions that all fail, then four late ones of which `late_failing` fail.
fn history(late_failing: usize, late_day: &str) -> Vec<(String, Vec<Value>)> {
    let mut h = Vec::new();
    for i in 0..4 {
        let s = format!("early{i}");
        h.push((s.clone(), failing(&s, "2026-01-05", 10 + i)));
    }
    for i in 0..4 {
        let s = format!("late{i}");
        let recs = if i < late_failing {
            failing(&s, late_day, 100 + i)
        } else {
            quiet(&s, late_day, 100 + i)
        };
        h.push((s, recs));
    }
    h
}

fn write_corpus(dir: &Path, h: &[(String, Vec<Value>)]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("corpus.json"),
        json!({"name":"tiny","kind":"promotion","description":"generated"}).to_string(),
    )
    .unwrap();
    let lines: Vec<String> = h
        .iter()
        .map(|(id, recs)| json!({"id": id, "records": recs, "expected_rule": null, "label": ""}).to_string())
        .collect();
    std::fs::write(dir.join("trajectories.jsonl"), lines.join("\n") + "\n").unwrap();
}

/// A project whose log holds `h`, sealed on this machine as a user vouching for it would
/// (`fable evidence import --seal`): unsealed records never stand behind a promoted rule.
fn write_project(h: &[(String, Vec<Value>)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join(".fable")).unwrap();
    append_sealed(d.path(), h);
    d
}

fn append_sealed(dir: &Path, h: &[(String, Vec<Value>)]) {
    let lines: Vec<String> = h.iter().flat_map(|(_, r)| r.iter().map(|v| v.to_string())).collect();
    let file = dir.join("history.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    isolated::seal_import(&dir.join(".home"), dir, "history.jsonl");
}

use isolated::fable_json as fable;

/// The measured git rules (every rule learned from the rejected push), checked alike.
fn git_rules(rep: &Value) -> Vec<&Value> {
    let v: Vec<&Value> = rep["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["domain"] == "git")
        .collect();
    assert!(!v.is_empty(), "no git rule measured: {rep:#}");
    v
}

fn check(rep: &Value, after_hit: u64, flagged: bool) {
    assert_eq!(rep["sessions_before"], 4, "{rep:#}");
    assert_eq!(rep["sessions_after"], 4, "{rep:#}");
    for r in git_rules(rep) {
        assert_eq!(r["before"]["sessions"], 4, "{r:#}");
        assert_eq!(r["before"]["hit"], 4, "{r:#}");
        assert_eq!(r["before"]["rate"], 1.0, "{r:#}");
        assert_eq!(r["after"]["sessions"], 4, "{r:#}");
        assert_eq!(r["after"]["hit"], after_hit, "{r:#}");
        assert_eq!(r["after"]["rate"].as_f64().unwrap(), after_hit as f64 / 4.0, "{r:#}");
        // Wilson of 4/4: [0.510, 1.000].
        assert_eq!(r["before"]["wilson"], json!([0.51, 1.0]), "{r:#}");
        assert!(r["after"]["wilson"].is_array());
        assert_eq!(r["retire_suggested"], flagged, "{r:#}");
    }
    assert_eq!(rep["overall_before"]["hit"], 4);
    assert_eq!(rep["overall_after"]["hit"], after_hit);
}

#[test]
fn time_split_over_a_corpus_matches_hand_computed_rates() {
    for (late, flagged) in [(1usize, false), (4, true)] {
        let d = tempfile::tempdir().unwrap();
        let c = d.path().join("tiny");
        write_corpus(&c, &history(late, "2026-01-06"));
        let out = d.path().join("out");
        let v = fable(
            d.path(),
            &[
                "fieldtest",
                c.to_str().unwrap(),
                "--time-split",
                "0.5",
                "--json",
                "--out",
                out.to_str().unwrap(),
            ],
        );
        let rep = &v["recurrence"];
        assert_eq!(rep["mode"], "time_split");
        assert_eq!(rep["measured"], "promotable", "{rep:#}");
        check(rep, late as u64, flagged);
        let md = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(md.contains("## Recurrence after promotion"), "{md}");
        assert!(md.contains("4/4 = 1.000"), "{md}");
    }
}

#[test]
fn time_split_over_a_project_log() {
    let p = write_project(&history(1, "2026-01-06"));
    let rep = fable(p.path(), &["rules", "recurrence", "--time-split", "0.5", "--json"]);
    check(&rep, 1, false);
    // No rule in effect in either part: the protocol says so, and `--apply` is refused.
    assert!(rep["note"].as_str().unwrap().contains("baseline"));
    let out = isolated::cmd("fable", &p.path().join(".home"))
        .current_dir(p.path())
        .args(["rules", "recurrence", "--time-split", "0.5", "--apply"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("live mode"));
}

#[test]
fn an_empty_part_is_null_not_zero() {
    let p = write_project(&history(1, "2026-01-06"));
    let rep = fable(p.path(), &["rules", "recurrence", "--time-split", "1.0", "--json"]);
    assert_eq!(rep["sessions_after"], 0);
    assert!(rep["overall_after"]["rate"].is_null(), "{rep:#}");
    assert!(rep["overall_after"]["wilson"].is_null(), "{rep:#}");
    for r in git_rules(&rep) {
        assert!(r["after"]["rate"].is_null() && r["change"].is_null(), "{r:#}");
        assert_eq!(r["retire_suggested"], false);
    }
}

#[test]
fn live_mode_splits_at_promotion_and_apply_retires() {
    // Early sessions learned and auto-promoted now; late sessions lie after "now".
    for (late, flagged) in [(1usize, false), (4, true)] {
        let h = history(late, "2099-01-06");
        let early: Vec<(String, Vec<Value>)> = h.iter().take(4).cloned().collect();
        let p = write_project(&early);
        let rules = fable(p.path(), &["rules", "extract", "--json"]);
        assert!(
            rules.as_array().unwrap().iter().any(|r| r["status"] == "promoted"),
            "{rules:#}"
        );
        // Then the late sessions happen, with the rule in effect.
        let late_sessions: Vec<(String, Vec<Value>)> = h.iter().skip(4).cloned().collect();
        append_sealed(p.path(), &late_sessions);
        let rep = fable(p.path(), &["rules", "recurrence", "--json"]);
        assert_eq!(rep["mode"], "live");
        for r in git_rules(&rep) {
            assert_eq!(r["label"], "promoted");
            assert_eq!(r["promoted_at_source"], "created", "{r:#}");
            assert_eq!(
                (r["before"]["hit"].as_u64(), r["before"]["sessions"].as_u64()),
                (Some(4), Some(4))
            );
            assert_eq!(
                (r["after"]["hit"].as_u64(), r["after"]["sessions"].as_u64()),
                (Some(late as u64), Some(4))
            );
            assert_eq!(r["retire_suggested"], flagged);
        }
        let applied = fable(p.path(), &["rules", "recurrence", "--apply", "--json"]);
        let retired = applied["retired"].as_array().unwrap().len();
        assert_eq!(retired > 0, flagged, "{applied:#}");
        let listed = fable(p.path(), &["rules", "list", "--status", "retired", "--json"]);
        assert_eq!(listed.as_array().unwrap().len(), retired);
    }
}

#[test]
fn live_mode_replays_the_promotion_moment() {
    // Without a `created` time the promotion moment is replayed: the end of the fourth
    // early session, the first at which the rule clears the promotion bound.
    let h = history(1, "2026-01-06");
    let p = write_project(&h);
    fable(p.path(), &["rules", "extract", "--json"]);
    let path = p.path().join(".fable/rules.json");
    let mut rules: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for r in rules.as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("created");
    }
    std::fs::write(&path, rules.to_string()).unwrap();
    let rep = fable(p.path(), &["rules", "recurrence", "--json"]);
    let rs = git_rules(&rep);
    assert!(rs.iter().any(|r| r["promoted_at_source"] == "replay"), "{rep:#}");
    for r in rs.iter().filter(|r| r["promoted_at_source"] == "replay") {
        assert_eq!(r["promoted_at"], "2026-01-05T00:13:03.000Z", "{r:#}");
        assert_eq!(r["before"]["hit"], 4);
        assert_eq!(r["after"]["hit"], 1);
        assert_eq!(r["retire_suggested"], false);
    }
}

#[test]
fn committed_corpora_give_the_section_structure() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
    let dirs: Vec<String> = ["golden", "nearmiss", "positive", "pool"]
        .iter()
        .map(|c| root.join(c).to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["fieldtest"];
    args.extend(dirs.iter().map(String::as_str));
    args.extend(["--time-split", "0.5", "--json"]);
    let v = fable(&root, &args);
    let rep = &v["recurrence"];
    assert_eq!(rep["fraction"], 0.5);
    let (b, a) = (
        rep["sessions_before"].as_u64().unwrap(),
        rep["sessions_after"].as_u64().unwrap(),
    );
    assert!(b > 0 && a > 0 && b.abs_diff(a) <= 1, "{b} / {a}");
    assert!(["promotable", "accepted", "none"].contains(&rep["measured"].as_str().unwrap()));
    for r in rep["rules"].as_array().unwrap() {
        for part in ["before", "after"] {
            let p = &r[part];
            assert!(p["hit"].as_u64().unwrap() <= p["sessions"].as_u64().unwrap());
            let w = p["wilson"].as_array().unwrap();
            let rate = p["rate"].as_f64().unwrap();
            assert!(w[0].as_f64().unwrap() <= rate && rate <= w[1].as_f64().unwrap());
        }
        assert_eq!(
            r["retire_suggested"].as_bool().unwrap(),
            rep["retire_suggested"].as_array().unwrap().contains(&r["id"])
        );
    }
    // The other sections are unchanged and the pinned fields still there.
    for f in ["version", "corpora", "generic_trigger_rate"] {
        assert!(v.get(f).is_some(), "{f}");
    }
    assert!(v.get("sweep").is_none());
}
