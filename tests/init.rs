//! `fable init` driven through the real binary in temporary project directories.

mod isolated;

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

fn project(with_git: bool) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    if with_git {
        fs::create_dir_all(t.path().join(".git")).unwrap();
    }
    t
}

/// `fable` with a private HOME of its own, outside the project (which tests list).
fn fable(args: &[&str], cwd: &Path) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    isolated::cmd("fable", home.path())
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn init(dir: &Path) -> std::process::Output {
    fable(&["init", "--project", dir.to_str().unwrap()], Path::new("/"))
}

fn template() -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/LEDGER.template.md")).unwrap()
}

fn out(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn creates_fable_dir_ledger_and_gitignore() {
    let p = project(true);
    let o = init(p.path());
    assert!(o.status.success(), "{}", err(&o));
    assert!(p.path().join(".fable").is_dir());
    assert_eq!(
        fs::read_to_string(p.path().join(".fable/LEDGER.md")).unwrap(),
        template()
    );
    let gi = fs::read_to_string(p.path().join(".fable/.gitignore")).unwrap();
    for pat in ["evidence.jsonl*", "*.lock", "state/"] {
        assert!(gi.lines().any(|l| l == pat), "{pat} missing from:\n{gi}");
    }
    assert!(
        !gi.lines().any(|l| l.trim() == "LEDGER.md"),
        "the ledger is meant to be committed"
    );
    let text = out(&o);
    assert!(text.contains("created"), "{text}");
    assert!(text.contains("LEDGER.md"), "{text}");
    assert!(!err(&o).contains("warning"), "{}", err(&o));
}

#[test]
fn hooks_discover_the_initialised_project() {
    let p = project(true);
    assert!(fable::project::find_from(p.path()).is_none());
    assert!(init(p.path()).status.success());
    let sub = p.path().join("src/deep");
    fs::create_dir_all(&sub).unwrap();
    let found = fable::project::find_from(&sub).expect("discovered after init");
    assert_eq!(found.fable_dir, p.path().join(".fable"));
}

#[test]
fn is_idempotent_and_never_overwrites_the_ledger() {
    let p = project(true);
    assert!(init(p.path()).status.success());
    let ledger = p.path().join(".fable/LEDGER.md");
    fs::write(
        &ledger,
        "# My ledger\n\n- [x] 1. done -- evidence: `cargo test` passed\n",
    )
    .unwrap();
    let gi_before = fs::read(p.path().join(".fable/.gitignore")).unwrap();
    let o = init(p.path());
    assert!(o.status.success());
    assert_eq!(
        fs::read_to_string(&ledger).unwrap(),
        "# My ledger\n\n- [x] 1. done -- evidence: `cargo test` passed\n"
    );
    assert_eq!(fs::read(p.path().join(".fable/.gitignore")).unwrap(), gi_before);
    let text = out(&o);
    assert!(text.contains("already"), "{text}");
    assert!(text.contains("nothing changed"), "{text}");
}

#[test]
fn existing_gitignore_gets_only_missing_patterns() {
    let p = project(true);
    fs::create_dir_all(p.path().join(".fable")).unwrap();
    fs::write(p.path().join(".fable/.gitignore"), "notes/\nstate/").unwrap();
    let o = init(p.path());
    assert!(o.status.success());
    let gi = fs::read_to_string(p.path().join(".fable/.gitignore")).unwrap();
    assert_eq!(gi, "notes/\nstate/\nevidence.jsonl*\n*.lock\n");
    assert!(out(&o).contains("missing"), "{}", out(&o));
    assert!(init(p.path()).status.success());
    assert_eq!(fs::read_to_string(p.path().join(".fable/.gitignore")).unwrap(), gi);
}

#[test]
fn warns_without_git_but_still_creates() {
    let p = project(false);
    let o = init(p.path());
    assert!(o.status.success());
    assert!(err(&o).contains("has no .git"), "{}", err(&o));
    assert!(p.path().join(".fable/LEDGER.md").is_file());
}

#[test]
fn a_git_file_counts_as_a_repository_root() {
    let p = project(false);
    fs::write(p.path().join(".git"), "gitdir: /elsewhere/.git/worktrees/x\n").unwrap();
    let o = init(p.path());
    assert!(o.status.success());
    assert!(!err(&o).contains("has no .git"), "{}", err(&o));
}

#[test]
fn defaults_to_the_current_directory() {
    let p = project(true);
    assert!(fable(&["init"], p.path()).status.success());
    assert!(p.path().join(".fable/LEDGER.md").is_file());
}

#[test]
fn refuses_a_missing_dir_or_a_fable_file() {
    let p = project(true);
    let missing: PathBuf = p.path().join("nope");
    let o = init(&missing);
    assert!(!o.status.success());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        err(&o).trim_end(),
        format!("fable: no such directory: {}", missing.display())
    );
    assert!(!missing.exists());

    fs::write(p.path().join(".fable"), "oops").unwrap();
    let o = init(p.path());
    assert!(!o.status.success());
    assert!(err(&o).contains(".fable"), "{}", err(&o));
    assert_eq!(fs::read_to_string(p.path().join(".fable")).unwrap(), "oops");
}

#[test]
fn json_report() {
    let p = project(true);
    let o = fable(
        &["init", "--json", "--project", p.path().to_str().unwrap()],
        Path::new("/"),
    );
    assert!(o.status.success());
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["ledger"]["action"], "created");
    assert_eq!(r["gitignore"]["action"], "created");
    assert_eq!(r["fable_dir"]["action"], "created");
    // `--dir`, the old spelling, still works (hidden, for one release).
    let o = fable(&["init", "--json", "--dir", p.path().to_str().unwrap()], Path::new("/"));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["ledger"]["action"], "existed");
}

/// The patterns really keep machine state out of git (needs a `git` on PATH).
#[test]
fn gitignore_keeps_machine_state_out_of_git() {
    let git_ok = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !git_ok {
        eprintln!("git not available; skipped");
        return;
    }
    let p = project(false);
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(p.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", p.path())
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    assert!(init(p.path()).status.success());
    for ignored in [
        ".fable/evidence.jsonl",
        ".fable/evidence.jsonl.1",
        ".fable/evidence.lock",
        ".fable/state/session-1.json",
    ] {
        assert!(
            git(&["check-ignore", "-q", ignored]).status.success(),
            "{ignored} should be ignored"
        );
    }
    for kept in [".fable/LEDGER.md", ".fable/.gitignore"] {
        assert!(
            !git(&["check-ignore", "-q", kept]).status.success(),
            "{kept} should be committed"
        );
    }
}
