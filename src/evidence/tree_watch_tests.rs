//! The watcher judges a change as the full listing would: each case changes a project the
//! way an agent or a test run does and compares the watcher's verdict with a full listing's.

use super::*;
use crate::evidence::tree::{diff, git_for_test, take, Snapshot};
use std::path::PathBuf;

/// A git project of a few folders with a `.gitignore`, its snapshot as a pass takes it.
fn project(git: bool) -> (tempfile::TempDir, PathBuf, Snapshot) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("p");
    for d in ["src/a", "src/b", "docs", "out"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
        for f in 0..3 {
            std::fs::write(root.join(format!("{d}/f{f}.txt")), "x").unwrap();
        }
    }
    std::fs::write(root.join(".gitignore"), "*.log\nout/\n").unwrap();
    if git {
        git_for_test(&root, &["init", "-q"]);
        git_for_test(&root, &["add", "-A"]);
    }
    let s = take(&root).unwrap();
    (t, root, s)
}

/// A watcher of `s`'s folders, judging against `files` (`s`'s files, borrowed).
fn watching<'a>(root: &'a Path, s: &Snapshot, files: &'a [(&'a str, Stat)]) -> Watcher<'a> {
    let mut w = Watcher::new(root, files).unwrap();
    for (d, _) in &s.dirs {
        w.add(d).unwrap();
    }
    w
}

fn borrowed(s: &Snapshot) -> Vec<(&str, Stat)> {
    s.files.iter().map(|(p, st)| (p.as_str(), *st)).collect()
}

/// The watcher's verdict after `change`: true when it still vouches.
fn vouches_after(git: bool, change: impl Fn(&Path)) -> (bool, bool) {
    let (_t, root, s) = project(git);
    let files = borrowed(&s);
    let mut w = watching(&root, &s, &files);
    std::thread::sleep(Duration::from_millis(20)); // a new mtime is a new tick
    change(&root);
    let watcher = w.drain().is_ok();
    // And again, when nothing more happened: the same answer, from the cache of names.
    let again = watcher && w.drain().is_ok();
    let full = diff(&s.files, &take(&root).unwrap().files).is_empty();
    assert_eq!(watcher, again);
    (watcher, full)
}

#[test]
fn the_watcher_agrees_with_a_full_listing() {
    type Case = (&'static str, bool, fn(&Path));
    let cases: Vec<Case> = vec![
        ("nothing", true, |_| {}),
        ("a log git ignores", true, |r| {
            std::fs::write(r.join("test.log"), "l").unwrap()
        }),
        ("in an ignored folder", true, |r| {
            std::fs::write(r.join("out/new.txt"), "n").unwrap()
        }),
        ("a cache folder", true, |r| {
            std::fs::create_dir_all(r.join("src/a/__pycache__")).unwrap();
            std::fs::write(r.join("src/a/__pycache__/m.pyc"), "c").unwrap();
        }),
        ("an editor's swap file", true, |r| {
            std::fs::write(r.join("src/a/.f0.txt.swp"), "s").unwrap()
        }),
        ("a temp file that came and went", true, |r| {
            std::fs::write(r.join("src/b/tmp123"), "t").unwrap();
            std::fs::remove_file(r.join("src/b/tmp123")).unwrap();
        }),
        ("opened for writing, closed unchanged", true, |r| {
            drop(
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(r.join("src/a/f0.txt"))
                    .unwrap(),
            );
        }),
        ("a new empty folder", true, |r| {
            std::fs::create_dir(r.join("src/c")).unwrap()
        }),
        ("read", true, |r| {
            std::fs::read(r.join("src/a/f1.txt")).unwrap();
        }),
        ("an edit in place", false, |r| {
            std::fs::write(r.join("src/a/f0.txt"), "y").unwrap()
        }),
        ("sed -i (a new file renamed over)", false, |r| {
            std::fs::write(r.join("src/b/.sedXYZ"), "x").unwrap();
            std::fs::rename(r.join("src/b/.sedXYZ"), r.join("src/b/f1.txt")).unwrap();
        }),
        ("touch", false, |r| {
            let f = std::fs::File::options()
                .write(true)
                .open(r.join("docs/f2.txt"))
                .unwrap();
            f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
        }),
        ("chmod", false, |r| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(r.join("docs/f0.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
        }),
        ("a removed file", false, |r| {
            std::fs::remove_file(r.join("src/a/f2.txt")).unwrap()
        }),
        ("a new file", false, |r| {
            std::fs::write(r.join("src/new.rs"), "n").unwrap()
        }),
        ("a new folder with a file", false, |r| {
            std::fs::create_dir_all(r.join("src/c/d")).unwrap();
            std::fs::write(r.join("src/c/d/x.rs"), "n").unwrap();
        }),
        ("a folder moved away", false, |r| {
            std::fs::rename(r.join("src/b"), r.join("moved")).unwrap()
        }),
        ("the .gitignore edited", false, |r| {
            std::fs::write(r.join(".gitignore"), "*.log\n").unwrap()
        }),
    ];
    for (what, want, change) in cases {
        let (watcher, full) = vouches_after(true, change);
        assert_eq!(full, want, "{what}: the full listing");
        assert_eq!(watcher, want, "{what}: the watcher");
    }
}

#[test]
fn outside_git_every_new_name_counts() {
    let (watcher, full) = vouches_after(false, |r| std::fs::write(r.join("test.log"), "l").unwrap());
    assert!(!full && !watcher);
    let (watcher, full) = vouches_after(false, |r| std::fs::write(r.join("src/a/x.pyc"), "c").unwrap());
    assert!(full && watcher, "excluded names never count");
}

#[test]
fn a_file_in_a_new_folder_after_it_is_watched() {
    let (_t, root, s) = project(true);
    let files = borrowed(&s);
    let mut w = watching(&root, &s, &files);
    std::fs::create_dir(root.join("pkg")).unwrap();
    assert!(w.drain().is_ok(), "an empty folder is no change");
    std::fs::write(root.join("pkg/mod.py"), "x").unwrap();
    assert!(w.drain().is_err(), "its first file is");
}
