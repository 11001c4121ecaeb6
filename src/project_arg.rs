//! `--project DIR`: the one way every project-scoped `fable` subcommand is told which
//! project to act on, flattened into each command's arguments (`#[command(flatten)]`).
//!
//! Issue 13 counted four spellings (`[DIR]`, `--dir`, `--project`, and `--project` as a
//! settings scope in `install`). This struct is the documented one; `--dir` stays a hidden
//! alias, and the old positional `[DIR]` a hidden argument of the commands that had it
//! ([`ProjectArg::or_legacy`]), for one release, so scripts keep working.
//!
//! Resolution is the hooks' own discovery ([`crate::project::find_from`]) started from the
//! given folder or the current directory, so `fable status` in `src/` finds the same
//! project the hooks would. The failures have one wording and one exit code each
//! ([`Error::NotAProject`], [`Error::NoSuchDir`], [`Error::NotADir`]).

use crate::error::{Error, Result};
use crate::project::{find_from, Project};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ProjectArg {
    /// The project: its folder or any folder inside it (default: the current directory).
    #[arg(long = "project", alias = "dir", value_name = "DIR", global = true)]
    pub project: Option<PathBuf>,
}

impl ProjectArg {
    /// This flag, or else the command's old hidden positional `[DIR]`.
    pub fn or_legacy(&self, positional: Option<&Path>) -> ProjectArg {
        ProjectArg {
            project: self.project.clone().or_else(|| positional.map(Path::to_path_buf)),
        }
    }

    /// The folder named on the command line (else the current directory), checked to be
    /// an existing directory, made absolute and canonical.
    pub fn dir(&self) -> Result<PathBuf> {
        let given = match &self.project {
            Some(d) => d.clone(),
            None => std::env::current_dir()
                .map_err(|e| Error::msg(format!("cannot read the current directory ({e}); pass --project DIR")))?,
        };
        existing_dir(&given)?;
        Ok(std::fs::canonicalize(&given).unwrap_or(given))
    }

    /// The project that folder belongs to, or [`Error::NotAProject`].
    pub fn resolve(&self) -> Result<Project> {
        let start = self.dir()?;
        find_from(&start).ok_or(Error::NotAProject(start))
    }
}

/// Checks that a folder named on the command line exists and is a directory: the one
/// wording and exit code (2) for every command that takes a project folder, `install` and
/// `uninstall` included. A folder that cannot be looked at (no permission) says so rather
/// than claiming it is missing.
pub fn existing_dir(given: &Path) -> Result<()> {
    match std::fs::metadata(given) {
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Err(Error::NoSuchDir(given.to_path_buf()))
        }
        Err(e) => Err(Error::io(given, e)),
        Ok(m) if !m.is_dir() => Err(Error::NotADir(given.to_path_buf())),
        Ok(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(p: &Path) -> ProjectArg {
        ProjectArg {
            project: Some(p.to_path_buf()),
        }
    }

    #[test]
    fn resolves_from_a_subfolder_and_names_each_failure() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap().join("p");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join(".fable")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("file"), "x").unwrap();
        assert_eq!(arg(&root.join("src")).resolve().unwrap().root, root);
        assert!(matches!(arg(&root.join("nope")).resolve(), Err(Error::NoSuchDir(_))));
        assert!(matches!(arg(&root.join("file")).resolve(), Err(Error::NotADir(_))));
        std::fs::remove_dir(root.join(".fable")).unwrap();
        let e = arg(&root.join("src")).resolve().unwrap_err();
        assert_eq!(e.exit_code(), crate::error::exit::NOT_A_PROJECT);
        assert_eq!(
            e.to_string(),
            format!(
                "not a fable project: no .fable/ folder at or above {} (run `fable init` there to opt in)",
                root.join("src").display()
            )
        );
    }

    #[test]
    fn the_flag_wins_over_the_legacy_positional() {
        let a = arg(Path::new("/a"));
        assert_eq!(a.or_legacy(Some(Path::new("/b"))).project, Some(PathBuf::from("/a")));
        let none = ProjectArg::default();
        assert_eq!(none.or_legacy(Some(Path::new("/b"))).project, Some(PathBuf::from("/b")));
    }
}
