//! Project discovery: which `.fable/` folder (if any) a hook invocation belongs to.
//!
//! Start from `CLAUDE_PROJECT_DIR` (it does not follow the session's `cd`), else the
//! payload's `cwd`, else the process cwd. Walk up to the nearest `.fable/`, checking it
//! before `.git` at each level so a `.fable/` at the repository root counts; stop at a
//! directory holding `.git` — a folder **or a file** (worktrees, submodules) — or at `/`.
//! No `.fable/` found means every hook is inert: fable is opt-in per project.

use std::path::{Path, PathBuf};

/// A project that opted in: its root (parent of `.fable/`) and the `.fable/` folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub root: PathBuf,
    pub fable_dir: PathBuf,
}

impl Project {
    pub fn ledger_path(&self) -> PathBuf {
        self.fable_dir.join("LEDGER.md")
    }

    pub fn evidence_path(&self) -> PathBuf {
        self.fable_dir.join("evidence.jsonl")
    }

    /// A project rooted at `root`, whether or not `.fable/` exists yet (for `fable init`).
    pub fn at(root: impl Into<PathBuf>) -> Project {
        let root = root.into();
        Project {
            fable_dir: root.join(".fable"),
            root,
        }
    }
}

/// Picks the start directory: the first candidate that is an existing directory.
pub fn start_dir(project_dir_env: Option<&str>, payload_cwd: &str, process_cwd: Option<&Path>) -> Option<PathBuf> {
    let candidates = [
        project_dir_env.map(PathBuf::from),
        (!payload_cwd.is_empty()).then(|| PathBuf::from(payload_cwd)),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.is_absolute() && p.is_dir())
        .or_else(|| process_cwd.map(Path::to_path_buf))
}

/// Walks up from `start` to the nearest `.fable/` directory, bounded by the git root.
pub fn find_from(start: &Path) -> Option<Project> {
    find_within(start, None)
}

/// [`find_from`], never above `ceiling` (the host's project root): a `.fable/` in a parent
/// folder belongs to someone else's project. A `.fable/` that is not this user's own, or
/// is writable by every user, is refused by name (one stderr line), never used.
pub fn find_within(start: &Path, ceiling: Option<&Path>) -> Option<Project> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let fable = d.join(".fable");
        if fable.is_dir() {
            let own = fs_meta(&fable).map(|m| crate::fable_dir::check_owner(&fable, &m));
            if let Some(Err(e)) = own {
                eprintln!("[fable] {e}");
                return None;
            }
            return Some(Project {
                root: d.to_path_buf(),
                fable_dir: fable,
            });
        }
        if ceiling.is_some_and(|c| d == c) {
            return None;
        }
        // `.git` as a folder (normal clone) or a file (worktree, submodule) bounds the search.
        if d.join(".git").symlink_metadata().is_ok() {
            return None;
        }
        dir = d.parent();
    }
    None
}

/// Discovery as the hooks use it: never above the host's project root when it names one.
pub fn discover(project_dir_env: Option<&str>, payload_cwd: &str, process_cwd: Option<&Path>) -> Option<Project> {
    let start = start_dir(project_dir_env, payload_cwd, process_cwd)?;
    let ceiling = project_dir_env.map(Path::new).filter(|c| start.starts_with(c));
    find_within(&start, ceiling)
}

fn fs_meta(p: &Path) -> Option<std::fs::Metadata> {
    std::fs::metadata(p).ok()
}

/// `path` (relative to `cwd` when it is not absolute) made absolute and lexically normal:
/// `.` dropped, `..` applied, no file system access (a hook deciding about a path the agent
/// names must not follow links to decide).
pub fn lexical_abs(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn finds_fable_at_git_root_and_stops_at_git_file() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("repo");
        fs::create_dir_all(root.join(".fable")).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("a/b")).unwrap();
        assert_eq!(find_from(&root.join("a/b")).unwrap().root, root);

        // A worktree inside, whose .git is a file, is its own boundary.
        let wt = root.join("wt");
        fs::create_dir_all(wt.join("src")).unwrap();
        fs::write(wt.join(".git"), "gitdir: ../.git/worktrees/wt\n").unwrap();
        assert_eq!(find_from(&wt.join("src")), None);
    }

    #[test]
    fn fable_above_a_git_root_does_not_arm_the_inner_project() {
        let t = tempfile::tempdir().unwrap();
        fs::create_dir_all(t.path().join(".fable")).unwrap();
        let inner = t.path().join("inner");
        fs::create_dir_all(inner.join(".git")).unwrap();
        assert_eq!(find_from(&inner), None);
    }

    #[test]
    fn start_dir_prefers_project_env_then_payload_cwd() {
        let t = tempfile::tempdir().unwrap();
        let a = t.path().join("a");
        let b = t.path().join("b");
        fs::create_dir_all(&a).unwrap();
        fs::create_dir_all(&b).unwrap();
        let pc = t.path().to_path_buf();
        assert_eq!(
            start_dir(Some(a.to_str().unwrap()), b.to_str().unwrap(), Some(&pc)),
            Some(a.clone())
        );
        assert_eq!(
            start_dir(Some("/no/such/dir"), b.to_str().unwrap(), Some(&pc)),
            Some(b.clone())
        );
        assert_eq!(start_dir(None, "", Some(&pc)), Some(pc.clone()));
        assert_eq!(start_dir(None, "relative/x", Some(&pc)), Some(pc));
    }
}
