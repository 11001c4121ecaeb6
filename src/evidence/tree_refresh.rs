//! Today's snapshot from an earlier one, reading only the folders that moved.
//!
//! A full listing ([`take`](crate::evidence::tree::take)) walks every folder and asks git
//! for its files: a process and 10-40 ms on 10,000 files, paid by every passing run and
//! by a stop after any new file (a log, a cache). Most of it repeats the previous answer:
//! a folder's mtime changes whenever an entry is added, removed or renamed in it, so the
//! files of a folder whose stats did not move are the files it had. [`refresh`] therefore
//! `stat`s the stored folders, reads again only those that moved (their own entries; a
//! new sub-folder is walked whole), asks git about the new names only (`git check-ignore
//! --stdin`, the same ignore rules as `git ls-files --exclude-standard`: tracked files are
//! never ignored), and `stat`s every counted file. The result is what a full listing
//! would give, as long as git's view of which files count did not change without a file
//! changing: callers that need that too compare git's index and ignore files
//! ([`crate::evidence::tree_store::Last`]).

use crate::evidence::tree::{excluded, stat_all, stat_dirs, walk_under, Snapshot, Stat, EXCLUDED_DIRS, MAX_FILES};
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

/// How the new names of a refresh are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// Ask git which are ignored; `None` from [`refresh`] when git cannot answer.
    Git,
    /// Every new name not excluded counts (the project is no git work tree).
    Walk,
}

/// The snapshot [`take`](crate::evidence::tree::take) would give now, built from
/// `stored`; `None` when it cannot tell (no stored folders, git cannot answer, too many
/// files): then take the full listing.
pub fn refresh(root: &Path, stored: &Snapshot, names: Names) -> Option<Snapshot> {
    refresh_from(root, &stored.files, &stored.dirs, names)
}

/// [`refresh`] from a snapshot's lists (sorted by path), owned or read in place.
pub fn refresh_from<P: AsRef<str> + Sync>(
    root: &Path,
    files: &[(P, Stat)],
    dirs: &[(P, Stat)],
    names: Names,
) -> Option<Snapshot> {
    let r = relist(root, files, dirs, names)?;
    let mut listing: Vec<&str> = files.iter().map(|(p, _)| p.as_ref()).collect();
    listing.extend(r.added.iter().map(String::as_str));
    Some(Snapshot {
        files: stat_all(root, &listing),
        dirs: r.dirs,
    })
}

/// What a listing now has that a stored one did not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relisted {
    /// Every folder the listing looks in, with its stats now (sorted).
    pub dirs: Vec<(String, Stat)>,
    /// Counted names that are not among the stored files (sorted), not yet `stat`ed.
    pub added: Vec<String>,
    /// The names in the folders read again that git ignores (sorted).
    pub ignored: Vec<String>,
}

/// The part of [`refresh`] that lists: the stored folders `stat`ed, those that moved
/// read again, their new names judged. The listing now is `files`' names plus `added`
/// (each still to be `stat`ed; a stored name may be gone). `files` and `dirs` are sorted
/// by path, as a snapshot stores them. `None` as for [`refresh`].
pub fn relist<P: AsRef<str> + Sync>(
    root: &Path,
    files: &[(P, Stat)],
    dirs: &[(P, Stat)],
    names: Names,
) -> Option<Relisted> {
    relist_while(root, files, dirs, names, &HashSet::new(), || ()).map(|(r, ())| r)
}

/// [`relist`], running `meanwhile` while git judges the new names (or at the end when
/// git is not asked): the close guard `stat`s the stored files then, so git's start and
/// index read (≈2.5 ms of CPU on 10,000 files) overlap them instead of adding to them.
/// `meanwhile` runs after every folder is `stat`ed, as a full listing `stat`s folders
/// before files. Names in `ignored` are taken as git's earlier answer, not asked again
/// ([`crate::evidence::tree_moved`] says when that holds). `None` as for [`relist`]
/// (whether or not `meanwhile` ran).
pub fn relist_while<P: AsRef<str> + Sync, R>(
    root: &Path,
    files: &[(P, Stat)],
    dirs: &[(P, Stat)],
    names: Names,
    ignored: &HashSet<&str>,
    meanwhile: impl FnOnce() -> R,
) -> Option<(Relisted, R)> {
    if dirs.is_empty() {
        return None;
    }
    let dir_names: Vec<&str> = dirs.iter().map(|(p, _)| p.as_ref()).collect();
    let now_dirs = stat_dirs(root, &dir_names);
    let same = |(a, x): &(String, Stat), (b, y): &(P, Stat)| a == b.as_ref() && x == y;
    if now_dirs.len() == dirs.len() && now_dirs.iter().zip(dirs).all(|(a, b)| same(a, b)) {
        // No entry added, removed or renamed anywhere the listing looks.
        let r = Relisted {
            dirs: now_dirs,
            added: Vec::new(),
            ignored: Vec::new(),
        };
        return Some((r, meanwhile()));
    }
    // Both lists are sorted by path: a lookup is a binary search, no set to build.
    let known_dir = |p: &str| dirs.binary_search_by(|(q, _)| q.as_ref().cmp(p)).is_ok();
    let known_file = |p: &str| files.binary_search_by(|(q, _)| q.as_ref().cmp(p)).is_ok();
    let mut new_dirs: Vec<String> = Vec::new();
    let mut candidates: Vec<String> = Vec::new();
    // Folders that still exist and moved: read their entries again.
    let mut i = 0;
    for now in &now_dirs {
        while i < dirs.len() && dirs[i].0.as_ref() < now.0.as_str() {
            i += 1;
        }
        if dirs.get(i).is_some_and(|d| same(now, d)) {
            continue;
        }
        let p = &now.0;
        let rel = if p == "./" { "" } else { p.trim_end_matches('/') };
        let dir = if rel.is_empty() {
            root.to_path_buf()
        } else {
            root.join(rel)
        };
        let rd = std::fs::read_dir(&dir).ok()?;
        for e in rd.flatten() {
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if EXCLUDED_DIRS.contains(&name.as_str()) || name.ends_with(".egg-info") {
                    continue;
                }
                if !known_dir(&format!("{path}/")) {
                    // A new folder: everything in it is new.
                    let (files, dirs) = walk_under(root, &path)?;
                    candidates.extend(files);
                    new_dirs.extend(dirs);
                }
            } else if !known_file(&path) && !excluded(&path) {
                candidates.push(path);
            }
            if candidates.len() > MAX_FILES {
                return None;
            }
        }
    }
    let mut dirs = now_dirs;
    dirs.extend(stat_dirs(root, &new_dirs));
    dirs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    dirs.dedup_by(|a, b| a.0 == b.0);
    let (mut added, mut now_ignored, r) = match names {
        Names::Git if !candidates.is_empty() => {
            // git lists a nested repository as one entry, never its files.
            let (known, ask): (Vec<String>, Vec<String>) = candidates
                .into_iter()
                .filter(|c| !in_nested_repo(root, c))
                .partition(|c| ignored.contains(c.as_str()));
            let (by_git, r) = if ask.is_empty() {
                (HashSet::new(), meanwhile())
            } else {
                git_ignored(root, &ask, meanwhile)?
            };
            let (now_ignored, added): (Vec<String>, Vec<String>) = ask.into_iter().partition(|c| by_git.contains(c));
            (added, [known, now_ignored].concat(), r)
        }
        _ => (candidates, Vec::new(), meanwhile()),
    };
    if files.len() + added.len() > MAX_FILES {
        return None;
    }
    added.sort_unstable();
    added.dedup();
    now_ignored.sort_unstable();
    now_ignored.dedup();
    let r2 = Relisted {
        dirs,
        added,
        ignored: now_ignored,
    };
    Some((r2, r))
}

/// True when a folder above `file` (below the project root) holds a `.git`.
fn in_nested_repo(root: &Path, file: &str) -> bool {
    let mut p = Path::new(file).parent();
    while let Some(d) = p.filter(|d| !d.as_os_str().is_empty()) {
        if root.join(d).join(".git").exists() {
            return true;
        }
        p = d.parent();
    }
    false
}

/// Which of `paths` git ignores in `root` (`git check-ignore -z --stdin`), and what
/// `meanwhile` gave while git worked; `None` when git cannot answer (not a work tree,
/// git missing).
pub(crate) fn git_ignored<R>(
    root: &Path,
    paths: &[String],
    meanwhile: impl FnOnce() -> R,
) -> Option<(HashSet<String>, R)> {
    let mut child = crate::evidence::tree::git_in(root)
        .args(["check-ignore", "-z", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut input = Vec::with_capacity(paths.iter().map(|p| p.len() + 1).sum());
    for p in paths {
        input.extend_from_slice(p.as_bytes());
        input.push(0);
    }
    // git answers while it reads, and a full pipe both ways would stall both processes:
    // more than a pipe surely holds is written from a thread. A page always fits (the
    // kernel's smallest pipe), and a stop usually asks about a few names.
    let mut stdin = child.stdin.take()?;
    if input.len() <= 4096 {
        let wrote = stdin.write_all(&input);
        drop(stdin);
        let r = meanwhile();
        let out = child.wait_with_output().ok()?;
        wrote.ok()?;
        return Some((ignored_from(&out)?, r));
    }
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let r = meanwhile();
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    Some((ignored_from(&out)?, r))
}

/// The ignored paths `git check-ignore -z` printed; `None` when it failed.
fn ignored_from(out: &std::process::Output) -> Option<HashSet<String>> {
    // 0: some are ignored, 1: none is; anything else is an error.
    if !matches!(out.status.code(), Some(0 | 1)) {
        return None;
    }
    Some(
        out.stdout
            .split(|b| *b == 0)
            .filter(|s| !s.is_empty())
            .filter_map(|s| std::str::from_utf8(s).ok())
            .map(str::to_string)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_configured_fsmonitor_command_never_runs() {
        // `.git/config` travels with a copied or unpacked repository, and the agent can write
        // it: the listing and the ignore check must not start what it names.
        let t = tempfile::tempdir().unwrap();
        let (root, marker) = (t.path().join("p"), t.path().join("ran"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.py"), "x").unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        crate::evidence::tree::git_for_test(&root, &["init", "-q"]);
        crate::evidence::tree::git_for_test(&root, &["add", "-A"]);
        let cmd = format!("touch {}; echo", marker.display());
        crate::evidence::tree::git_for_test(&root, &["config", "core.fsmonitor", &cmd]);
        let s = crate::evidence::tree::take(&root).unwrap();
        assert_eq!(s.files.len(), 2);
        std::fs::write(root.join("b.log"), "x").unwrap();
        let asked = git_ignored(&root, &["b.log".to_string()], || ());
        assert!(asked.is_some_and(|(i, ())| i.contains("b.log")));
        assert!(!marker.exists(), "the repository's fsmonitor command ran");
        // (The same listing without the override does run it: the test can fail.)
        crate::evidence::tree::git_for_test(&root, &["ls-files", "-co", "--exclude-standard"]);
        assert!(marker.exists());
    }

    use crate::evidence::tree::take;

    use crate::evidence::tree::git_for_test as git;

    /// Waits past the folder timestamps' granularity so a change is a change.
    fn tick() {
        std::thread::sleep(std::time::Duration::from_millis(15));
    }

    #[test]
    fn a_refresh_equals_a_full_listing_after_every_kind_of_change() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        std::fs::write(root.join("src/deep/b.rs"), "b").unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\nout/\n").unwrap();
        git(root, &["init", "-q"]);
        git(root, &["add", "-A"]);
        let mut prev = take(root).unwrap();
        type Step<'a> = (&'a str, Box<dyn Fn() + 'a>);
        let steps: Vec<Step> = vec![
            ("nothing", Box::new(|| {})),
            (
                "ignored file",
                Box::new(|| std::fs::write(root.join("run.log"), "x").unwrap()),
            ),
            (
                "in-place edit",
                Box::new(|| std::fs::write(root.join("src/a.rs"), "a2").unwrap()),
            ),
            (
                "new file",
                Box::new(|| std::fs::write(root.join("src/deep/c.rs"), "c").unwrap()),
            ),
            (
                "removed file",
                Box::new(|| std::fs::remove_file(root.join("src/deep/b.rs")).unwrap()),
            ),
            (
                "new folder",
                Box::new(|| {
                    std::fs::create_dir_all(root.join("lib/x")).unwrap();
                    std::fs::write(root.join("lib/x/d.py"), "d").unwrap();
                    std::fs::write(root.join("lib/e.log"), "e").unwrap();
                }),
            ),
            (
                "ignored folder",
                Box::new(|| {
                    std::fs::create_dir_all(root.join("out")).unwrap();
                    std::fs::write(root.join("out/f.txt"), "f").unwrap();
                }),
            ),
            (
                "nested repository",
                Box::new(|| {
                    std::fs::create_dir_all(root.join("vendor/dep")).unwrap();
                    git(&root.join("vendor/dep"), &["init", "-q"]);
                    std::fs::write(root.join("vendor/dep/g.rs"), "g").unwrap();
                }),
            ),
            (
                "excluded folder",
                Box::new(|| {
                    std::fs::create_dir_all(root.join("src/__pycache__")).unwrap();
                    std::fs::write(root.join("src/__pycache__/a.pyc"), "p").unwrap();
                }),
            ),
            (
                "removed folder",
                Box::new(|| std::fs::remove_dir_all(root.join("lib/x")).unwrap()),
            ),
            (
                "renamed file",
                Box::new(|| std::fs::rename(root.join("src/a.rs"), root.join("src/deep/a.rs")).unwrap()),
            ),
        ];
        for (what, change) in steps {
            tick();
            change();
            let full = take(root).unwrap();
            assert_eq!(refresh(root, &prev, Names::Git).as_ref(), Some(&full), "{what}");
            prev = full;
        }
    }

    #[test]
    fn outside_git_every_new_name_counts_and_git_mode_declines() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::write(root.join("calc.py"), "x").unwrap();
        let prev = take(root).unwrap();
        tick();
        std::fs::write(root.join("run.log"), "x").unwrap();
        let full = take(root).unwrap();
        assert_eq!(refresh(root, &prev, Names::Walk), Some(full));
        if !std::process::Command::new("git")
            .args(["rev-parse"])
            .current_dir(root)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
        {
            assert_eq!(refresh(root, &prev, Names::Git), None, "git cannot answer: list again");
        }
        assert_eq!(refresh(root, &Snapshot::default(), Names::Walk), None);
    }
}
