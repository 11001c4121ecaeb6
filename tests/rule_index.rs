//! The rule store's index (`.fable/state/rules.index`) through the binaries: `fable rules`
//! writes it with the store, the failure hook shows through it what the full parse shows,
//! and an index saved from an earlier store (a rule since retired) shows nothing.

mod isolated;

use serde_json::json;
use std::path::Path;

fn rec(session: &str, i: usize, cmd: &str, ok: bool, tail: &str) -> String {
    json!({"v":1,"ts":format!("2026-12-02T12:00:{:02}.000Z", i % 60),"session":session,"cwd":"/w","cmd":cmd,
        "exit": if ok {0} else {1},"ok":ok,"tail":tail})
    .to_string()
}

/// Five sessions of a rejected push fixed by `git pull --rebase`, sealed by this machine
/// (`fable evidence import --seal`), so `fable rules extract` promotes the rule here.
fn project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join(".fable")).unwrap();
    let mut lines = Vec::new();
    for s in 0..5 {
        let sess = format!("s{s}");
        lines.push(rec(
            &sess,
            3 * s,
            "git push origin main",
            false,
            " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'origin'",
        ));
        lines.push(rec(
            &sess,
            3 * s + 1,
            "git pull --rebase origin main",
            true,
            "Successfully rebased and updated refs/heads/main.",
        ));
        lines.push(rec(
            &sess,
            3 * s + 2,
            "git push origin main",
            true,
            "   1a2b3c4..5d6e7f8  main -> main",
        ));
    }
    std::fs::write(d.path().join("history.jsonl"), lines.join("\n") + "\n").unwrap();
    isolated::seal_import(&d.path().join(".home"), d.path(), "history.jsonl");
    d
}

fn fable(dir: &Path, args: &[&str]) {
    let out = isolated::cmd("fable", &dir.join(".home"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fable {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The failure hook's answer to a rejected push, each call with its own id.
fn failure_feedback(dir: &Path) -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let id = format!("toolu_{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let payload = json!({"session_id": "s-new", "transcript_path": "/tmp/t.jsonl", "cwd": dir.display().to_string(),
        "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": id,
        "tool_input": {"command": "git push origin main"},
        "error": "Exit code 1\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'origin'"});
    let out = isolated::cmd("fable-fail-streak", &dir.join(".home"))
        .current_dir(dir)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_save_writes_the_index_and_an_old_one_shows_nothing() {
    let d = project();
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
