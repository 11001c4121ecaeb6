//! End to end under the real Claude Code CLI: hooks registered by `fable install`, a
//! scripted session, and the evidence log it leaves.

mod support;
use support::harness::{available, Session};

#[test]
fn real_cli_session_leaves_three_true_records() {
    let Some(claude) = available() else { return };
    let o = Session::new("evidence")
        .bash("ls /nonexistent")
        .bash("false")
        .bash("echo ok")
        .text("All done.")
        .run(&claude);
    assert_eq!(o.rc, 0, "{}", o.debug());
    let settings = std::fs::read_to_string(o.proj().join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("fable-evidence") && settings.contains("PostToolUseFailure"),
        "{settings}"
    );
    // Project settings are shared: the hooks are named by bare name (found on PATH), and
    // the real CLI runs them so (the records below prove it).
    assert!(settings.contains("\"fable-evidence # fable\""), "{settings}");
    let r = o.evidence();
    assert_eq!(r.len(), 3, "{r:#?}\n{}", o.debug());
    assert_eq!(
        (r[0]["cmd"].as_str(), r[0]["exit"].as_i64(), r[0]["ok"].as_bool()),
        (Some("ls /nonexistent"), Some(2), Some(false))
    );
    assert!(
        r[0]["tail"].as_str().unwrap().contains("No such file or directory"),
        "{}",
        r[0]
    );
    assert_eq!(
        (r[1]["cmd"].as_str(), r[1]["exit"].as_i64(), r[1]["ok"].as_bool()),
        (Some("false"), Some(1), Some(false))
    );
    assert_eq!(
        (r[2]["cmd"].as_str(), r[2]["exit"].as_i64(), r[2]["ok"].as_bool()),
        (Some("echo ok"), Some(0), Some(true))
    );
    assert_eq!(r[2]["tail"], "ok");
    assert_eq!(r[0]["event"], "PostToolUseFailure");
    assert_eq!(r[2]["event"], "PostToolUse");
    let session = r[0]["session"].as_str().unwrap();
    assert!(!session.is_empty() && r.iter().all(|x| x["session"] == session));
    println!("e2e executed against the real Claude Code CLI: {}", claude.display());
}

/// Claude Code reports the shell's cwd *after* the command: `cd sub && pwd` is logged
/// with cwd …/sub. Replay relies on this (see `replay.rs`).
#[test]
fn real_cli_reports_cwd_after_the_command() {
    let Some(claude) = available() else { return };
    let o = Session::new("cwd")
        .file("sub/.keep", "")
        .bash("cd sub && pwd")
        .bash("pwd")
        .text("done")
        .run(&claude);
    let r = o.evidence();
    assert_eq!(r.len(), 2, "{r:#?}\n{}", o.debug());
    for rec in &r {
        assert!(rec["cwd"].as_str().unwrap().ends_with("/proj/sub"), "{rec}");
    }
}

/// An output longer than the tail keeps (4,000 characters) keeps its start too: a tool
/// that prints its error first and then pages of text (npm's usage after "Missing: …")
/// lost the decisive line to the tail's cut. An output the tail holds whole has no head.
#[test]
fn real_cli_long_output_keeps_its_head() {
    let Some(claude) = available() else { return };
    let o = Session::new("head")
        .bash("echo 'error: the decisive line'; seq 1 1500; exit 3")
        .bash("seq 1 10")
        .text("done")
        .run(&claude);
    let r = o.evidence();
    assert_eq!(r.len(), 2, "{r:#?}\n{}", o.debug());
    let head = r[0]["head"].as_str().unwrap_or_else(|| panic!("no head: {}", r[0]));
    assert!(head.starts_with("error: the decisive line\n1\n2\n"), "{head}");
    assert_eq!(head.chars().count(), 1000, "{head}");
    let tail = r[0]["tail"].as_str().unwrap();
    assert!(
        tail.trim_end().ends_with("1500") && !tail.contains("decisive"),
        "{tail}"
    );
    assert_eq!(r[0]["exit"].as_i64(), Some(3));
    assert!(r[1].get("head").is_none(), "{}", r[1]);
}
