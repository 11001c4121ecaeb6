//! Set-up rough edges a new user met: `fable init` in a subfolder of an opted-in
//! repository, and `fable lint` on a ledger fable refuses to read.

mod common_discipline;
use common_discipline::*;
use std::fs;

#[test]
fn init_in_a_subfolder_of_an_opted_in_repository_says_so() {
    let p = Proj::new();
    let sub = p.root.join("pkg");
    fs::create_dir_all(&sub).unwrap();
    let o = p.cli(&["init", "--project", sub.to_str().unwrap()]);
    assert_ne!(code(&o), 0);
    let e = stderr(&o);
    assert!(
        e.contains("already opted in") && e.contains(p.root.to_str().unwrap()),
        "{e}"
    );
    assert!(
        !sub.join(".fable").exists() && !sub.join("docs").exists(),
        "nothing created in the subfolder"
    );
    // A nested repository of its own is its own project.
    fs::create_dir_all(sub.join(".git")).unwrap();
    assert_eq!(code(&p.cli(&["init", "--project", sub.to_str().unwrap()])), 0);
}

#[test]
fn lint_says_why_a_ledger_was_refused() {
    let p = Proj::new();
    let ledger = p.fable().join("LEDGER.md");
    fs::remove_file(&ledger).ok();
    fs::create_dir(&ledger).unwrap();
    let out = stdout(&p.cli(&["lint"]));
    assert!(out.contains("refused") && out.contains("not a regular file"), "{out}");
    assert!(!out.contains("missing: create it"), "{out}");
    fs::remove_dir(&ledger).unwrap();
    fs::write(&ledger, "x".repeat(2 << 20)).unwrap();
    let out = stdout(&p.cli(&["lint"]));
    assert!(out.contains("refused") && out.contains("larger than"), "{out}");
}
