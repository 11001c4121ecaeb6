//! The project's files as a passing run left them: what a cited pass is fresh against.
//!
//! A pass proves the code it ran on. Write/Edit records only see the file tools, and their
//! timestamps only order them by a clock that can jump; an agent told to make small
//! changes with `sed -i`, a heredoc or a script walks around both. So when the evidence
//! hook logs a passing run of a test/build/check command, it takes a snapshot of the
//! project's files — tracked plus untracked-not-ignored (`git ls-files -co
//! --exclude-standard`, or a plain walk outside git), never `.fable/`, `.git/` or the
//! well-known build and cache folders ([`EXCLUDED_DIRS`]) — and seals a hash of it into
//! the record (`tree`). Per file it keeps path, size, mtime, ctime and inode, and the
//! comparison is **equality**: no clock is compared, and ctime cannot be set back with
//! `touch -d`. The per-file snapshot itself goes to user state ([`tree_store`]) so the
//! close guard can name what changed.
//!
//! At Stop, [`Now`](crate::evidence::tree_check::Now) answers "are the files still as
//! tree `h` saw them?" once per tree: the stored folders' stats tell whether any file
//! was added or removed; when none was, only the stored files are `stat`ed; otherwise the
//! full listing is taken again and compared.
//!
//! [`tree_store`]: crate::evidence::tree_store

pub use crate::evidence::tree_stat::{compare, stat_all, stat_dirs, stat_record, Change, Stat};
use sha2::{Digest, Sha256};
use std::path::Path;

/// Folders whose files never count: fable's own, git's, editors', and what builds, test
/// runs, coverage tools and package managers write. A run's output is not a change to the
/// code it ran on — and outside git (no ignore rules) or in a repository that does not
/// ignore them, a test run's `htmlcov/` would otherwise make the lint pass before it stale.
pub const EXCLUDED_DIRS: &[&str] = &[
    ".fable",
    ".git",
    "target",
    "node_modules",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "dist",
    "build",
    "htmlcov",
    "coverage",
    ".nyc_output",
    ".gradle",
    ".next",
    ".nuxt",
    ".turbo",
    ".parcel-cache",
    ".cache",
    ".idea",
    ".vscode",
];

/// Files (by name) that never count: coverage data, editor swap files, OS litter.
fn excluded_file(name: &str) -> bool {
    matches!(name, ".coverage" | "coverage.xml" | ".DS_Store")
        || name.starts_with(".coverage.")
        || [".pyc", ".pyo", ".swp", ".swo", "~"].iter().any(|s| name.ends_with(s))
}

/// More files than this and no snapshot is taken (the time-based edit rule applies).
pub const MAX_FILES: usize = 200_000;

/// True when a project-relative path never counts.
pub fn excluded(rel: &str) -> bool {
    // Claude Code writes it when the user allows a command for good: not the code.
    if rel == ".claude/settings.local.json" {
        return true;
    }
    let mut parts = rel.split('/').peekable();
    while let Some(p) = parts.next() {
        if parts.peek().is_none() {
            return excluded_file(p);
        }
        if EXCLUDED_DIRS.contains(&p) || p.ends_with(".egg-info") {
            return true;
        }
    }
    false
}

/// The counted files (sorted by path) and every folder the walk entered (`./` for the
/// root, others ending in `/`): a folder's mtime changes whenever an entry is added,
/// removed or renamed in it, so equal folder stats mean no file was added or removed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    pub files: Vec<(String, Stat)>,
    pub dirs: Vec<(String, Stat)>,
}

impl Snapshot {
    /// The `tree` a record carries: the files only (the shape is a shortcut, not content).
    pub fn hash(&self) -> String {
        hash_files(&self.files)
    }
}

/// SHA-256 over every file's path and stats, first 32 hex digits: per file the path, a
/// NUL, then `size mtime_ns ctime_ns ino` in decimal and a newline (sealed in records:
/// the bytes never change). Written without `fmt` and hashed in one pass over a buffer:
/// formatting was a quarter of the close guard's instructions on 10,000 files.
pub fn hash_files<P: AsRef<str>>(files: &[(P, Stat)]) -> String {
    let mut h = Sha256::new();
    let mut buf = Vec::with_capacity(64 << 10);
    for (p, s) in files {
        buf.extend_from_slice(p.as_ref().as_bytes());
        buf.push(0);
        push_int(&mut buf, false, s.size);
        buf.push(b' ');
        push_int(&mut buf, s.mtime_ns < 0, s.mtime_ns.unsigned_abs());
        buf.push(b' ');
        push_int(&mut buf, s.ctime_ns < 0, s.ctime_ns.unsigned_abs());
        buf.push(b' ');
        push_int(&mut buf, false, s.ino);
        buf.push(b'\n');
        if buf.len() >= 60 << 10 {
            h.update(&buf);
            buf.clear();
        }
    }
    h.update(&buf);
    tree_hex(h)
}

/// The `tree` string of a finished hash: its first 16 bytes in lower-case hex.
pub fn tree_hex(h: Sha256) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    h.finalize()
        .iter()
        .take(16)
        .flat_map(|b| [HEX[usize::from(b >> 4)] as char, HEX[usize::from(b & 15)] as char])
        .collect()
}

/// `-v` (when `neg`) or `v` in decimal, as `Display` writes it (64-bit arithmetic: a
/// 128-bit division per digit was most of the hash's time).
pub fn push_int(buf: &mut Vec<u8>, neg: bool, mut v: u64) {
    if neg {
        buf.push(b'-');
    }
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// The differences between two sorted file lists.
pub fn diff<P: AsRef<str>, Q: AsRef<str>>(old: &[(P, Stat)], new: &[(Q, Stat)]) -> Vec<Change> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < old.len() || j < new.len() {
        let a = old.get(i).map(|(p, s)| (p.as_ref(), s));
        let b = new.get(j).map(|(p, s)| (p.as_ref(), s));
        match (a, b) {
            (Some(a), Some(b)) if a.0 == b.0 => {
                if a.1 != b.1 {
                    out.push(Change::Changed(a.0.into()));
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.0 < b.0 => {
                out.push(Change::Removed(a.0.into()));
                i += 1;
            }
            (Some(a), None) => {
                out.push(Change::Removed(a.0.into()));
                i += 1;
            }
            (_, Some(b)) => {
                out.push(Change::Added(b.0.into()));
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

/// Walks the project (not following links, skipping excluded folders): every counted
/// file's relative path, and every folder entered (`./`, `src/`, …).
fn walk(root: &Path) -> Option<(Vec<String>, Vec<String>)> {
    walk_under(root, "")
}

/// `walk` of the folder `start` (relative, no trailing `/`; `""` is the root): its
/// files and every folder entered, `start` itself included.
pub fn walk_under(root: &Path, start: &str) -> Option<(Vec<String>, Vec<String>)> {
    let mut files = Vec::new();
    let mut dirs: Vec<String> = vec![if start.is_empty() {
        "./".into()
    } else {
        format!("{start}/")
    }];
    let mut stack = vec![start.to_string()];
    while let Some(rel) = stack.pop() {
        let dir = if rel.is_empty() {
            root.to_path_buf()
        } else {
            root.join(&rel)
        };
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
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
                if !EXCLUDED_DIRS.contains(&name.as_str()) && !name.ends_with(".egg-info") {
                    dirs.push(format!("{path}/"));
                    stack.push(path);
                }
            } else if !excluded(&path) {
                files.push(path);
            }
            if files.len() > MAX_FILES {
                return None;
            }
        }
    }
    Some((files, dirs))
}

/// git as a hook runs it in `root`: the repository named by `root` alone (no `GIT_DIR`,
/// `GIT_WORK_TREE` or `GIT_INDEX_FILE` of the session's), paths unquoted, and no
/// `core.fsmonitor` command — a repository's own configuration must not run a command of
/// its choosing in a hook (`ls-files` would start it). `-C`, not `current_dir`: with a
/// working folder to set, the static hook forked itself (strace: `clone(…SIGCHLD)`, its
/// page tables copied, faults after); without one std starts git with `posix_spawn`
/// (`clone3(CLONE_VM|CLONE_VFORK)`).
pub(crate) fn git_in(root: &Path) -> std::process::Command {
    let mut c = std::process::Command::new("git");
    c.arg("-C")
        .arg(root)
        .args(["-c", "core.fsmonitor=false", "-c", "core.quotepath=off"])
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    c
}

/// Tracked and untracked-not-ignored files by git's rules, relative to `root`; `None`
/// when `root` is not in a git work tree (or git is missing).
fn git_listing(root: &Path) -> Option<Vec<String>> {
    let out = git_in(root)
        .args(["ls-files", "-z", "-co", "--exclude-standard"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let mut v: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .filter_map(|s| std::str::from_utf8(s).ok())
        .filter(|p| !excluded(p))
        .map(str::to_string)
        .collect();
    // A file both tracked and modified is listed once per mode.
    v.dedup();
    Some(v)
}

/// The snapshot of `root` now: `None` when it cannot be taken (too many files).
pub fn take(root: &Path) -> Option<Snapshot> {
    take_listed(root).map(|(s, _)| s)
}

/// [`take`], and whether git listed the files (else the walk did).
pub fn take_listed(root: &Path) -> Option<(Snapshot, bool)> {
    let (walked, dirs) = walk(root)?;
    // Folders first: a file added while the files are listed then shows as a folder change.
    let dirs = stat_dirs(root, &dirs);
    let git = git_listing(root);
    let by_git = git.is_some();
    let listed = git.unwrap_or(walked);
    if listed.len() > MAX_FILES {
        return None;
    }
    let files = stat_all(root, &listed);
    Some((Snapshot { files, dirs }, by_git))
}

/// Whether a passing run is worth a snapshot: a test, build or check runner (or a run
/// whose output had a recognised summary). Ordinary commands (`ls`, `git status`) stay
/// as cheap as they were.
pub fn worth_a_snapshot(cmd: &str, has_summary: bool) -> bool {
    // The one place that knows runners (`cd pkg && make test`, `uv run pytest` included).
    has_summary || crate::evidence::runner::kind(cmd).is_some()
}

/// Runs git in a test's repository, quietly, and fails the test when git does.
#[cfg(test)]
pub(crate) fn git_for_test(root: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(args)
        .current_dir(root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git {args:?}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::tree_stat::{stat_at, BLOCK};

    fn st(n: u64) -> Stat {
        Stat {
            size: n,
            mtime_ns: 1,
            ctime_ns: 1,
            ino: 1,
        }
    }

    #[test]
    fn the_hash_bytes_are_the_formatted_ones() {
        let files = vec![
            (
                "a b".to_string(),
                Stat {
                    size: u64::MAX,
                    mtime_ns: i64::MIN,
                    ctime_ns: -1,
                    ino: 0,
                },
            ),
            ("z".to_string(), st(1_700_000_000_123_456_789)),
        ];
        let mut h = Sha256::new();
        for (p, s) in &files {
            h.update(format!("{p}\0{} {} {} {}\n", s.size, s.mtime_ns, s.ctime_ns, s.ino));
        }
        let want: String = h.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect();
        assert_eq!(hash_files(&files), want);
        let mut b = Vec::new();
        for n in [0i128, 7, -7, 10, i128::from(i64::MIN), i128::from(u64::MAX)] {
            b.clear();
            push_int(&mut b, n < 0, n.unsigned_abs() as u64);
            assert_eq!(String::from_utf8(b.clone()).unwrap(), n.to_string());
        }
    }

    #[test]
    fn exclusions() {
        for p in [
            ".fable/LEDGER.md",
            "target/debug/x",
            "a/__pycache__/m.pyc",
            "web/node_modules/x/y.js",
            "m.pyc",
            ".coverage",
            "htmlcov/index.html",
            "pkg.egg-info/PKG-INFO",
            ".claude/settings.local.json",
            "src/.calc.py.swp",
        ] {
            assert!(excluded(p), "{p}");
        }
        for p in ["src/lib.rs", "calc.py", "build.rs", "targets/x", "docs/dist.md"] {
            assert!(!excluded(p), "{p}");
        }
    }

    #[test]
    fn diff_names_changes_additions_and_removals() {
        let old = vec![
            ("a".to_string(), st(1)),
            ("b".to_string(), st(1)),
            ("c".to_string(), st(1)),
        ];
        let new = vec![
            ("a".to_string(), st(1)),
            ("b".to_string(), st(2)),
            ("d".to_string(), st(1)),
        ];
        assert_eq!(
            diff(&old, &new),
            vec![
                Change::Changed("b".into()),
                Change::Removed("c".into()),
                Change::Added("d".into())
            ]
        );
        assert!(diff(&old, &old).is_empty());
        assert_ne!(hash_files(&old), hash_files(&new));
    }

    #[test]
    fn a_snapshot_sees_in_place_writes_and_not_caches() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::write(root.join("calc.py"), "x = 1\n").unwrap();
        std::fs::create_dir_all(root.join(".fable")).unwrap();
        let a = take(root).unwrap();
        assert_eq!(a.files.len(), 1);
        std::fs::create_dir_all(root.join("__pycache__")).unwrap();
        std::fs::write(root.join("__pycache__/calc.pyc"), "x").unwrap();
        std::fs::write(root.join(".fable/LEDGER.md"), "x").unwrap();
        assert_eq!(take(root).unwrap().hash(), a.hash());
        std::fs::write(root.join("calc.py"), "x = 2\n").unwrap();
        assert_ne!(take(root).unwrap().hash(), a.hash());
    }

    #[test]
    fn threaded_stats_equal_serial_ones_and_see_a_change_in_any_block() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        let mut names = Vec::new();
        for d in 0..7 {
            std::fs::create_dir_all(root.join(format!("d{d}"))).unwrap();
            for f in 0..500 {
                let p = format!("d{d}/f{f}.rs");
                std::fs::write(root.join(&p), format!("{f}")).unwrap();
                names.push(p);
            }
        }
        names.push("d0".into()); // a folder is not a file
        names.push("gone.rs".into());
        assert!(names.len() > 3 * BLOCK, "above the threshold: several blocks");
        let serial: Vec<(String, Stat)> = {
            let mut at = None;
            let mut v: Vec<_> = names
                .iter()
                .filter_map(|p| stat_at(root, &mut at, p).filter(|s| !s.1).map(|s| (p.clone(), s.0)))
                .collect();
            v.sort_by(|a, b| a.0.cmp(&b.0));
            v
        };
        let all = stat_all(root, &names);
        assert_eq!(all.len(), 3500);
        assert_eq!(all, serial);
        assert!(compare(root, &all).is_empty());
        // A change in the last block and one in the first, a removal in between.
        std::fs::write(root.join("d6/f99.rs"), "changed").unwrap();
        std::fs::write(root.join("d0/f0.rs"), "changed").unwrap();
        std::fs::remove_file(root.join("d3/f7.rs")).unwrap();
        assert_eq!(
            compare(root, &all),
            vec![
                Change::Changed("d0/f0.rs".into()),
                Change::Removed("d3/f7.rs".into()),
                Change::Changed("d6/f99.rs".into()),
            ]
        );
        assert_eq!(compare(root, &all), diff(&all, &stat_all(root, &names)));
    }

    #[test]
    fn runners_are_worth_a_snapshot_and_ordinary_commands_are_not() {
        for c in [
            "python3 -m unittest",
            "cargo test -q",
            "CI=1 npm test",
            "pytest -x",
            "make check",
        ] {
            assert!(worth_a_snapshot(c, false), "{c}");
        }
        for c in ["ls -la", "git status", "echo hi", "cat x"] {
            assert!(!worth_a_snapshot(c, false), "{c}");
        }
        assert!(worth_a_snapshot("./run-tests.sh", true));
    }
}
