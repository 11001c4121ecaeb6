//! Where a run ran: a record backs a citation only when it ran in the project the card
//! belongs to, in the folder the citation implies.
//!
//! `cd /elsewhere && python3 -m unittest` passing on a trivial suite must not back a bare
//! `python3 -m unittest` in a project whose suite fails, while `cd pkg && cmd`,
//! `cd /abs/pkg && cmd` and `cmd` run with the shell already in `pkg/` are one citation.
//! So each record has an **effective folder** (its `cwd`, moved by a leading `cd <dir> &&`)
//! and each citation a **place**: a `cd <dir> &&` citation names one folder (relative to
//! the project root), a bare one accepts any folder inside the project. Paths are compared
//! lexically (`..` and `.` folded), never through the file system: the folder may be gone.

use crate::evidence::command_key::strip_cd;
use std::path::{Component, Path, PathBuf};

/// `path` with `.` and `..` folded, without touching the file system.
pub fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A `cd` operand as the shell reads it: quotes removed, `~` left as written.
fn unquote(dir: &str) -> &str {
    dir.strip_prefix('"')
        .and_then(|d| d.strip_suffix('"'))
        .or_else(|| dir.strip_prefix('\'').and_then(|d| d.strip_suffix('\'')))
        .unwrap_or(dir)
}

/// `dir` resolved against `base` (an absolute `dir` stands alone).
fn resolve(base: &Path, dir: &str) -> PathBuf {
    fold(&base.join(unquote(dir)))
}

/// The folder a logged command ran in, and the command without its leading `cd`.
pub fn effective<'a>(cwd: &str, cmd: &'a str) -> (PathBuf, &'a str) {
    match strip_cd(cmd) {
        Some((dir, rest)) => (resolve(Path::new(cwd), dir), rest),
        None => (fold(Path::new(cwd)), cmd),
    }
}

/// Where a citation says its command ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A bare command: any folder inside the project.
    Project(PathBuf),
    /// `cd <dir> && …`: that folder.
    Folder(PathBuf),
}

impl Place {
    /// The place of `cited` in the project at `root`.
    pub fn of(root: &Path, cited: &str) -> Place {
        match strip_cd(cited) {
            Some((dir, _)) => Place::Folder(resolve(root, dir)),
            None => Place::Project(fold(root)),
        }
    }

    /// True when a run in `dir` is a run of this place.
    pub fn holds(&self, dir: &Path) -> bool {
        match self {
            Place::Project(root) => dir.starts_with(root),
            Place::Folder(f) => dir == f,
        }
    }
}

/// True when a record (`cwd`, `cmd`) ran where `cited` says, in the project at `root`.
pub fn ran_at(root: &Path, cited: &str, cwd: &str, cmd: &str) -> bool {
    // A record without a folder (hand-made, or an old format) cannot be placed: it keeps
    // counting, as before places were checked.
    if cwd.is_empty() {
        return true;
    }
    Place::of(root, cited).holds(&effective(cwd, cmd).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_citation_three_spellings() {
        let root = Path::new("/p");
        let cited = "cd pkg && python3 -m unittest";
        assert!(ran_at(root, cited, "/p", "cd pkg && python3 -m unittest"));
        assert!(ran_at(root, cited, "/p", "cd /p/pkg && python3 -m unittest"));
        assert!(ran_at(root, cited, "/p/pkg", "python3 -m unittest"));
        assert!(ran_at(root, cited, "/p/sub", "cd ../pkg && python3 -m unittest"));
        assert!(!ran_at(root, cited, "/p", "python3 -m unittest"));
    }

    #[test]
    fn a_run_in_another_tree_backs_nothing() {
        let root = Path::new("/p");
        assert!(!ran_at(
            root,
            "python3 -m unittest",
            "/p",
            "cd /elsewhere && python3 -m unittest"
        ));
        assert!(!ran_at(root, "python3 -m unittest", "/q", "python3 -m unittest"));
        assert!(!ran_at(
            root,
            "python3 -m unittest",
            "/p",
            "cd .. && python3 -m unittest"
        ));
        assert!(ran_at(root, "python3 -m unittest", "/p/pkg", "python3 -m unittest"));
        assert!(ran_at(
            root,
            "python3 -m unittest",
            "/p",
            "cd 'pkg' && python3 -m unittest"
        ));
        assert!(
            !ran_at(root, "python3 -m unittest", "/pq", "python3 -m unittest"),
            "a sibling with a shared prefix"
        );
    }
}
