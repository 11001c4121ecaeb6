//! `fable rules …` and `fable-learn` end to end through the binaries: extract/list --json
//! print formats.md §3 rules, promote/retire, packs with provenance, the managed
//! CLAUDE.md section (idempotent), and the SessionEnd hook (exit 0, cursor, store).

mod isolated;

use serde_json::{json, Value};
use std::path::Path;

fn rec(session: &str, i: usize, cmd: &str, ok: bool, tail: &str) -> String {
    json!({"v":1,"ts":format!("2026-12-02T12:00:{:02}.000Z", i % 60),"session":session,"cwd":"/w","cmd":cmd,
        "exit": if ok {0} else {1},"ok":ok,"tail":tail})
    .to_string()
}

/// Five sessions of a rejected push fixed by `git pull --rebase`, one with an unrelated
/// `git status`, plus a malformed line (skipped, never fatal). The records are brought in
/// the way a user vouches for a log: `fable evidence import --seal` (only records this
/// machine sealed may stand behind a promoted rule).
fn project(poisoned: bool) -> tempfile::TempDir {
    let d = hand_written(poisoned);
    let fable_dir = d.path().join(".fable");
    std::fs::rename(fable_dir.join("evidence.jsonl"), d.path().join("history.jsonl")).unwrap();
    isolated::seal_import(&d.path().join(".home"), d.path(), "history.jsonl");
    d
}

/// The same history written straight into `.fable/evidence.jsonl`, as a cloned repository
/// could commit it: no record is sealed by this machine.
fn hand_written(poisoned: bool) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let fable = d.path().join(".fable");
    std::fs::create_dir_all(&fable).unwrap();
    let mut lines = Vec::new();
    let mut i = 0;
    for s in 0..5 {
        let sess = format!("s{s}");
        let mut push = |cmd: &str, ok: bool, tail: &str| {
            i += 1;
            lines.push(rec(&sess, i, cmd, ok, tail));
        };
        push(
            "git status",
            true,
            "On branch main\nnothing to commit, working tree clean",
        );
        push("git push origin main", false, " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'origin'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally.");
        if poisoned {
            push(
                "git push --force origin main",
                true,
                " + 1a2b3c4...5d6e7f8 main -> main (forced update)",
            );
        } else {
            push(
                "git pull --rebase origin main",
                true,
                "Successfully rebased and updated refs/heads/main.",
            );
            push("git push origin main", true, "   1a2b3c4..5d6e7f8  main -> main");
        }
    }
    lines.push("{not json".to_string());
    std::fs::write(fable.join("evidence.jsonl"), lines.join("\n") + "\n").unwrap();
    d
}

use isolated::fable_json as fable;

const PINNED: &[&str] = &[
    "id",
    "domain",
    "trigger",
    "directive",
    "status",
    "verdict",
    "reason",
    "prevented",
    "broken",
    "near_misses",
    "precision",
    "wilson",
    "support",
];

fn assert_pinned(rules: &Value) {
    let arr = rules.as_array().expect("an array of rules");
    for r in arr {
        for f in PINNED {
            assert!(r.get(*f).is_some(), "missing {f} in {r}");
        }
        assert!(["candidate", "promoted", "retired", "blocked"].contains(&r["status"].as_str().unwrap()));
        assert!(["pass", "fail", "inconclusive"].contains(&r["verdict"].as_str().unwrap()));
        assert!(r["precision"].is_null() || r["precision"].is_number());
        assert!(r["wilson"].is_null() || r["wilson"].as_array().map(|a| a.len()) == Some(2));
    }
}

/// A committed, hand-written history teaches the learner nothing it may show: the same
/// sessions that promote `git pull --rebase` once sealed here promote nothing unsealed,
/// and the rule says why (its evidence is untrusted).
#[test]
fn unsealed_history_never_promotes_a_rule() {
    let d = hand_written(false);
    let extracted = fable(d.path(), &["rules", "extract", "--json"]);
    let rules = extracted.as_array().unwrap();
    let rebase: Vec<&Value> = rules
        .iter()
        .filter(|r| r["directive"].as_str().unwrap_or("").contains("pull --rebase"))
        .collect();
    assert!(!rebase.is_empty(), "the learner still sees the history: {extracted:#}");
    for r in &rebase {
        assert_ne!(r["status"], "promoted", "{r}");
        assert_eq!(r["trust"], "untrusted", "{r}");
    }
    assert!(rules.iter().all(|r| r["status"] != "promoted"), "{extracted:#}");
    // The same records, vouched for with --seal: promoted.
    let d = project(false);
    let extracted = fable(d.path(), &["rules", "extract", "--json"]);
    assert!(
        extracted
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["status"] == "promoted" && r["directive"].as_str().unwrap_or("").contains("pull --rebase")),
        "{extracted:#}"
    );
}

#[test]
fn extract_list_promote_retire() {
    let d = project(false);
    let extracted = fable(d.path(), &["rules", "extract", "--json"]);
    assert_pinned(&extracted);
    let listed = fable(d.path(), &["rules", "list", "--json"]);
    assert_pinned(&listed);
    let promoted: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "promoted")
        .collect();
    assert_eq!(promoted.len(), 1, "{listed:#}");
    let r = promoted[0];
    assert_eq!(r["id"], "R-1");
    assert!(r["directive"].as_str().unwrap().contains("git pull --rebase"));
    assert_eq!(r["prevented"], 5);
    assert!(d.path().join(".fable/RULES.md").exists());

    // Extracting again merges by key: same ids, no duplicates.
    let again = fable(d.path(), &["rules", "list", "--json"]);
    fable(d.path(), &["rules", "extract", "--json"]);
    let after = fable(d.path(), &["rules", "list", "--json"]);
    assert_eq!(again.as_array().unwrap().len(), after.as_array().unwrap().len());

    let retired = fable(d.path(), &["rules", "retire", "R-1", "--json"]);
    assert_eq!(retired["status"], "retired");
    let shown = fable(d.path(), &["rules", "show", "R-1", "--json"]);
    assert_eq!(shown["status"], "retired");
    // A later extract keeps the human's decision.
    fable(d.path(), &["rules", "extract", "--json"]);
    assert_eq!(
        fable(d.path(), &["rules", "show", "R-1", "--json"])["status"],
        "retired"
    );
    let back = fable(d.path(), &["rules", "promote", "R-1", "--json"]);
    assert_eq!(back["status"], "promoted");
    let only = fable(d.path(), &["rules", "list", "--json", "--status", "promoted"]);
    assert_eq!(only.as_array().unwrap().len(), 1);

    let replayed = fable(d.path(), &["rules", "replay", "--json"]);
    assert_pinned(&replayed);

    isolated::cmd("fable", &d.path().join(".home"))
        .current_dir(d.path())
        .args(["rules", "show", "R-99"])
        .assert()
        .failure();
}

#[test]
fn poisoned_log_promotes_nothing_and_blocked_cannot_be_promoted() {
    let d = project(true);
    let rules = fable(d.path(), &["rules", "extract", "--json"]);
    let arr = rules.as_array().unwrap();
    assert!(arr.iter().all(|r| r["status"] != "promoted"), "{rules:#}");
    let blocked = arr
        .iter()
        .find(|r| r["reason"] == "blocked_by_safety")
        .expect("a safety-blocked rule");
    let id = blocked["id"].as_str().unwrap();
    isolated::cmd("fable", &d.path().join(".home"))
        .current_dir(d.path())
        .args(["rules", "promote", id])
        .assert()
        .failure()
        .stderr(predicates::str::contains("never promoted"));
}

#[test]
fn pack_export_import_and_claude_md() {
    let src = project(false);
    fable(src.path(), &["rules", "extract", "--json"]);
    let pack = src.path().join("pack.json");
    let rep = fable(
        src.path(),
        &["rules", "export", "--pack", pack.to_str().unwrap(), "--json"],
    );
    assert_eq!(rep["pack"]["rules"], 1);
    let pk: Value = serde_json::from_str(&std::fs::read_to_string(&pack).unwrap()).unwrap();
    assert_eq!(pk["version"], 1);
    assert!(pk["source"].is_string() && pk["exported_at"].is_string());

    // Import into a project with its own matching history: candidate, replayed locally.
    let dst = project(false);
    let imported = fable(dst.path(), &["rules", "import", pack.to_str().unwrap(), "--json"]);
    assert_pinned(&imported);
    let r = &imported.as_array().unwrap()[0];
    assert_eq!(r["status"], "candidate");
    assert_eq!(r["verdict"], "pass");
    assert_eq!(r["prevented"], 5);
    assert!(r["origin"].as_str().unwrap().starts_with("pack:"));
    assert!(r["provenance"]["original_id"].is_string());

    // Import into an empty project: no local signal, stays a candidate.
    let empty = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(empty.path().join(".fable")).unwrap();
    let imported = fable(empty.path(), &["rules", "import", pack.to_str().unwrap(), "--json"]);
    let r = &imported.as_array().unwrap()[0];
    assert_eq!(
        (r["status"].as_str(), r["reason"].as_str()),
        (Some("candidate"), Some("no_signal"))
    );

    // CLAUDE.md managed section: idempotent, user text kept.
    let md = src.path().join("CLAUDE.md");
    std::fs::write(&md, "# My project\n\nKeep this.\n").unwrap();
    let first = fable(
        src.path(),
        &["rules", "export", "--claude-md", md.to_str().unwrap(), "--json"],
    );
    assert_eq!(first["claude_md"]["changed"], true);
    let text1 = std::fs::read_to_string(&md).unwrap();
    let second = fable(
        src.path(),
        &["rules", "export", "--claude-md", md.to_str().unwrap(), "--json"],
    );
    assert_eq!(second["claude_md"]["changed"], false);
    assert_eq!(text1, std::fs::read_to_string(&md).unwrap());
    assert!(text1.starts_with("# My project\n\nKeep this.\n"));
    assert!(text1.contains("R-1") && text1.contains("git pull --rebase"));
    let agents = src.path().join("AGENTS.md");
    let rep = fable(
        src.path(),
        &["rules", "export", "--agents-md", agents.to_str().unwrap(), "--json"],
    );
    assert_eq!(rep["agents_md"]["changed"], true);
}

/// A repository's CLAUDE.md is untrusted: a committed link to the user's shell start-up
/// is refused by name and the target keeps every byte; a link to /dev/zero is refused, not
/// read; nothing is created in their place.
#[test]
fn claude_md_export_never_writes_through_a_committed_link() {
    let d = project(false);
    fable(d.path(), &["rules", "extract", "--json"]);
    let outside = tempfile::tempdir().unwrap();
    let bashrc = outside.path().join(".bashrc");
    std::fs::write(&bashrc, "export PATH=$PATH\n").unwrap();
    for target in [bashrc.as_path(), Path::new("/dev/zero")] {
        let md = d.path().join("CLAUDE.md");
        let _ = std::fs::remove_file(&md);
        std::os::unix::fs::symlink(target, &md).unwrap();
        let out = isolated::cmd("fable", &d.path().join(".home"))
            .current_dir(d.path())
            .args(["rules", "export", "--claude-md", "CLAUDE.md"])
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "export through a link to {target:?} succeeded");
        assert!(err.contains("symbolic link") && err.contains("CLAUDE.md"), "{err}");
        assert!(std::fs::symlink_metadata(&md).unwrap().file_type().is_symlink());
    }
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "export PATH=$PATH\n");
}

#[test]
fn extract_with_fake_extractor_and_corpus() {
    let d = project(false);
    let script = d.path().join("fake.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat >/dev/null\necho '{\"trigger\":\"git push is rejected as non-fast-forward\",\"directive\":\"run `git fetch` and `git rebase origin/main`, then push\"}'\n",
    )
    .unwrap();
    let cmd = format!("sh {}", script.display());
    let rules = fable(
        d.path(),
        &["rules", "extract", "--json", "--extractor-cmd", &cmd, "--dry-run"],
    );
    let arr = rules.as_array().unwrap();
    assert!(
        arr.iter().any(|r| r["origin"] == "extractor" && r["verdict"] == "pass"),
        "{rules:#}"
    );
    assert!(!d.path().join(".fable/rules.json").exists(), "dry run writes nothing");
}

#[test]
fn session_end_hook_learns_and_never_blocks() {
    let d = project(false);
    let input = json!({"session_id":"s9","cwd":d.path(),"hook_event_name":"SessionEnd","reason":"exit"});
    let out = isolated::cmd("fable-learn", &d.path().join(".home"))
        .env("CLAUDE_PROJECT_DIR", d.path())
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let cursor: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join(".fable/state/learn.json")).unwrap()).unwrap();
    assert_eq!(cursor["records"], 20);
    let rules: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join(".fable/rules.json")).unwrap()).unwrap();
    assert!(rules.as_array().unwrap().iter().any(|r| r["status"] == "promoted"));
    // Second run: nothing new.
    let out = isolated::cmd("fable-learn", &d.path().join(".home"))
        .env("CLAUDE_PROJECT_DIR", d.path())
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no new evidence"));
    // Garbage on stdin, a broken store: still exit 0.
    std::fs::write(d.path().join(".fable/rules.json"), "{broken").unwrap();
    std::fs::remove_file(d.path().join(".fable/state/learn.json")).unwrap();
    for stdin in ["", "not json", &input.to_string()] {
        let out = isolated::cmd("fable-learn", &d.path().join(".home"))
            .env("CLAUDE_PROJECT_DIR", d.path())
            .write_stdin(stdin.to_string())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
    }
}

/// The failure hook's answer to a rejected push in `dir`: its stdout and stderr.
fn failure_feedback(dir: &Path) -> String {
    isolated::failure_hook(dir, "git push origin main", " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'origin'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally.")
}

/// A rule promoted here carries its trigger compiled under the seal: the failure hook
/// matches with the stored form, and a compiled form edited in the store (widened,
/// stripped) voids the seal, so the rule is no longer shown.
#[test]
fn a_promoted_rule_carries_its_compiled_trigger_under_the_seal() {
    let d = project(false);
    fable(d.path(), &["rules", "extract", "--json"]);
    let store = d.path().join(".fable/rules.json");
    let rules: Value = serde_json::from_str(&std::fs::read_to_string(&store).unwrap()).unwrap();
    let promoted = rules
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["status"] == "promoted")
        .expect("R-1 promoted");
    let compiled = &promoted["compiled"];
    assert_eq!(compiled["domain"], "git", "{promoted:#}");
    assert!(
        compiled["masked"].as_str().is_some_and(|m| !m.is_empty()),
        "{promoted:#}"
    );
    let said = failure_feedback(d.path());
    assert!(said.contains("Standing rule R-1 applies"), "{said}");

    for (what, edit) in [
        (
            "widened",
            json!({"masked": "fails", "label": "", "domain": "git", "action": "", "anchors": []}),
        ),
        ("stripped", Value::Null),
    ] {
        let mut tampered = rules.clone();
        for r in tampered.as_array_mut().unwrap() {
            if r["status"] == "promoted" {
                match &edit {
                    Value::Null => drop(r.as_object_mut().unwrap().remove("compiled")),
                    e => r["compiled"] = e.clone(),
                }
            }
        }
        std::fs::write(&store, serde_json::to_string_pretty(&tampered).unwrap()).unwrap();
        let said = failure_feedback(d.path());
        assert!(!said.contains("Standing rule"), "{what}: {said}");
    }
}

/// The rule store's index (`.fable/state/rules.index`): `fable rules` writes it with the
/// store, the failure hook shows through it what the full parse shows, and an index saved
/// from an earlier store (a rule since retired) shows nothing.
#[test]
fn the_save_writes_the_index_and_an_old_one_shows_nothing() {
    let d = project(false);
    let index = d.path().join(".fable/state/rules.index");
    fable(d.path(), &["rules", "extract", "--json"]);
    let promoted_index = std::fs::read(&index).expect("the save wrote the index");
    let inode = || std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&index).unwrap());
    let written = inode();
    let said = failure_feedback(d.path());
    assert!(said.contains("Standing rule R-1 applies"), "{said}");
    assert_eq!(inode(), written, "the hook used the index, it did not replace it");

    // Without the index: the same answer (the full parse), and the hook writes it again.
    std::fs::remove_file(&index).unwrap();
    assert_eq!(failure_feedback(d.path()), said);
    assert_eq!(std::fs::read(&index).unwrap(), promoted_index);

    // Retired: the save rewrites the index, and the rule is no longer shown.
    fable(d.path(), &["rules", "retire", "R-1", "--json"]);
    assert_ne!(std::fs::read(&index).unwrap(), promoted_index);
    assert!(!failure_feedback(d.path()).contains("Standing rule"));
    // The index from when R-1 was promoted, put back: stale for this store, ignored.
    std::fs::write(&index, &promoted_index).unwrap();
    assert!(!failure_feedback(d.path()).contains("Standing rule"));
}
