//! Which registered hook programs `fable doctor` may run.
//!
//! The doctor probes hooks to prove they answer, and a probe is a run. A cloned
//! repository's committed `.claude/settings.json` can register anything under fable's
//! name (`"$CLAUDE_PROJECT_DIR/tools/fable-evidence" # fable`), and a user checks a
//! strange repository with `fable doctor` precisely before trusting it: the doctor must
//! not be the way its code runs. So it runs only what fable put on this machine:
//!
//! - a binary whose SHA-256 `fable install` recorded (unchanged: a changed one is a
//!   problem of its own and is never run);
//! - outside the project, a binary in a folder an install recorded installing to (an
//!   install from before fable recorded hashes);
//! - a binary beside the running `fable` (the same build: `install.sh` puts them together,
//!   and whoever runs this `fable` already runs code from that folder);
//! - a plugin's binary, from a plugin Claude Code records or the user named
//!   (`--plugin-dir`, `$CLAUDE_PLUGIN_ROOT`): loaded by the user's choice, not by a
//!   repository's. A plugin folder may be a repository the user builds (`claude
//!   --plugin-dir` on a fable checkout): what lies under the plugin folder is run.
//!
//! Anything else inside the project is the repository's unless its exact bytes were
//! recorded by an install. The rest is listed as not run, with why, and `--run-project-hooks`
//! runs it anyway (in the doctor's throwaway project and HOME, as every probe).

use std::path::{Path, PathBuf};

/// Whether the doctor may run one program, and if not, why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum May {
    Run,
    /// It resolves inside the project: the repository provides it.
    Repository,
    /// Outside the project, but fable has no record of installing it.
    Unrecorded,
}

impl May {
    /// The words the report uses for a program not run.
    pub fn why(self) -> &'static str {
        match self {
            May::Run => "",
            May::Repository => "provided by the repository, not run",
            May::Unrecorded => "not installed by fable on this machine (no install record), not run",
        }
    }
}

/// What is known about one resolved program.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    pub program: &'a Path,
    /// The project root, when the doctor checks one.
    pub root: Option<&'a Path>,
    /// An install recorded this program's hash and the file still has it.
    pub recorded: bool,
    /// The plugin folder, when the hook comes from a plugin's hooks.json.
    pub plugin_root: Option<&'a Path>,
    /// Folders installs recorded installing binaries to.
    pub bin_dirs: &'a [PathBuf],
    /// The folder of the running `fable`.
    pub exe_dir: Option<&'a Path>,
}

/// The decision (canonical paths compared, so a link or `..` cannot move a program out
/// of the project).
pub fn decide(f: &Facts) -> May {
    let program = canonical(f.program);
    let in_plugin = f.plugin_root.is_some_and(|p| program.starts_with(canonical(p)));
    if f.recorded || in_plugin {
        return May::Run;
    }
    if f.root.is_some_and(|r| program.starts_with(canonical(r))) {
        return May::Repository;
    }
    let beside_fable = f
        .exe_dir
        .is_some_and(|d| program.parent() == Some(canonical(d).as_path()));
    let in_bin_dir = f
        .bin_dirs
        .iter()
        .any(|d| program.parent() == Some(canonical(d).as_path()));
    if beside_fable || in_bin_dir || f.plugin_root.is_some() {
        return May::Run;
    }
    May::Unrecorded
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_only_what_fable_installed() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("repo");
        let bin = t.path().join("bin");
        std::fs::create_dir_all(root.join("tools")).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        let evil = root.join("tools/fable-evidence");
        std::fs::write(&evil, "").unwrap();
        let mine = bin.join("fable-evidence");
        std::fs::write(&mine, "").unwrap();
        let dirs = [t.path().join("old install"), root.join("tools")];
        std::fs::create_dir_all(&dirs[0]).unwrap();
        let may = |program: &Path, recorded, plugin: Option<&Path>| {
            decide(&Facts {
                program,
                root: Some(&root),
                recorded,
                plugin_root: plugin,
                bin_dirs: &dirs,
                exe_dir: Some(&bin),
            })
        };
        assert_eq!(may(&evil, false, None), May::Repository);
        let elsewhere = t.path().join("plugin");
        assert_eq!(
            may(&evil, false, Some(&elsewhere)),
            May::Repository,
            "a plugin's hook pointing into the repository"
        );
        assert_eq!(
            may(&evil, false, Some(&root)),
            May::Run,
            "the repository is the plugin the user loads"
        );
        assert_eq!(may(&evil, true, None), May::Run, "bytes the user installed");
        assert_eq!(may(&mine, false, None), May::Run, "beside the running fable");
        // A link is judged by where it points: out of the project into it is the repository's.
        let link = t.path().join("elsewhere");
        std::os::unix::fs::symlink(&evil, &link).unwrap();
        assert_eq!(may(&link, false, None), May::Repository);
        let other = t.path().join("other/fable-evidence");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, "").unwrap();
        assert_eq!(may(&other, false, None), May::Unrecorded);
        assert_eq!(
            may(&other, false, Some(&elsewhere)),
            May::Run,
            "a plugin the user loads"
        );
        let old = dirs[0].join("fable-evidence");
        std::fs::write(&old, "").unwrap();
        assert_eq!(may(&old, false, None), May::Run, "a folder an install recorded");
        // A recorded folder inside the project does not vouch for what is there now.
        assert_eq!(may(&evil, false, None), May::Repository);
    }
}
