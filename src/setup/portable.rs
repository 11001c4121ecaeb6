//! How a settings file names fable's hook binaries: an absolute path, a bare name found on
//! `PATH`, or a path under `$CLAUDE_PROJECT_DIR`.
//!
//! Why: project scope (`<dir>/.claude/settings.json`) is committed and shared, so a
//! command naming `/home/me/.local/bin/fable-evidence` breaks for every teammate (their hook
//! fails, Claude Code shrugs, fable silently does nothing) and leaks this machine's layout
//! into the repository. Claude Code runs every command hook through the shell with
//! `CLAUDE_PROJECT_DIR` set to the project root (claude-code-hooks.md), so two forms travel:
//!
//! - `fable-evidence # fable` — the bare name, when the binaries are on `PATH` (a teammate
//!   who ran `install.sh` has them there too);
//! - `"$CLAUDE_PROJECT_DIR/target/release/fable-evidence" # fable` — a vendored build inside
//!   the project, quoted for the shell so a project path with spaces still works.
//!
//! Anything else is refused for project scope, with the two ways out. User and local scope
//! stay private to this machine and keep absolute paths. [`which`] is also the doctor's
//! `PATH` lookup, so the installer and `fable doctor` resolve a bare name the same way.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The form the commands of one install take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Style {
    /// `'/abs/bin dir/fable-x'`: this machine only (user and local scope).
    Absolute,
    /// `fable-x`: found on `PATH`.
    OnPath,
    /// `"$CLAUDE_PROJECT_DIR/<rel>/fable-x"`; `rel` is relative to the project root, `/`
    /// separated, empty when the binaries sit in the root itself.
    ProjectRelative(String),
}

impl Style {
    /// `absolute`, `path` or `project_relative`, for `--json`.
    pub fn name(&self) -> &'static str {
        match self {
            Style::Absolute => "absolute",
            Style::OnPath => "path",
            Style::ProjectRelative(_) => "project_relative",
        }
    }
}

/// The first executable file called `name` in the `PATH` directories, as the shell finds it.
/// Relative and empty `PATH` entries are skipped: they name a different file in every folder.
pub fn which(name: &str, path_env: Option<&OsStr>) -> Option<PathBuf> {
    let path = path_env?;
    std::env::split_paths(path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

/// A regular file (after links) with an execute bit.
pub fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Two names of one existing file (links, `..`).
pub fn same_file(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// Picks the portable form for a project-scope install of `binaries` from `bin_dir`, or
/// says why there is none and what to do instead.
///
/// Inside the project wins over `PATH`: a vendored build is what the repository itself
/// provides, while a `PATH` entry pointing into it (direnv, a shell rc) is this user's.
pub fn choose_for_project(
    project_dir: &Path,
    bin_dir: &Path,
    binaries: &[&str],
    path_env: Option<&OsStr>,
) -> Result<Style, String> {
    if let (Ok(root), Ok(bins)) = (project_dir.canonicalize(), bin_dir.canonicalize()) {
        if let Ok(rel) = bins.strip_prefix(&root) {
            let rel = rel.to_str().ok_or_else(|| {
                format!(
                    "{}: path is not valid UTF-8 and cannot be written to settings; build the hooks elsewhere",
                    bin_dir.display()
                )
            })?;
            return Ok(Style::ProjectRelative(rel.to_string()));
        }
    }
    let on_path = path_env.is_some_and(|p| {
        std::env::split_paths(p)
            .filter(|d| d.is_absolute())
            .any(|d| same_file(&d, bin_dir))
    });
    if !on_path {
        return Err(format!(
            "--project writes {}, which is shared with everyone who clones the project, so it cannot \
             name {} (a folder on this machine only). Put that folder on your PATH (export \
             PATH=\"{}:$PATH\") and run again, so the settings name the hooks by bare name; or build the \
             hooks inside the project and pass --bin-dir there (they are then run from $CLAUDE_PROJECT_DIR); \
             or use --local, whose settings.local.json is yours alone",
            project_dir.join(".claude").join("settings.json").display(),
            bin_dir.display(),
            bin_dir.display()
        ));
    }
    for b in binaries {
        if let Some(found) = which(b, path_env) {
            if !same_file(&found, &bin_dir.join(b)) {
                return Err(format!(
                    "{b} on your PATH is {}, not the one in {}: the project settings would name it by bare \
                     name and run that other copy. Remove or update the other copy, or put {} earlier on PATH, \
                     and run again",
                    found.display(),
                    bin_dir.display(),
                    bin_dir.display()
                ));
            }
        }
    }
    Ok(Style::OnPath)
}

/// The command line (unmarked) that runs `binary` from `bin_dir` in this style, or `None`
/// when an absolute path is not valid UTF-8.
pub fn command(style: &Style, bin_dir: &Path, binary: &str) -> Option<String> {
    match style {
        Style::Absolute => {
            let path = bin_dir.join(binary);
            Some(shell_words::quote(path.to_str()?).into_owned())
        }
        Style::OnPath => Some(binary.to_string()),
        Style::ProjectRelative(rel) => {
            let sub = if rel.is_empty() {
                binary.to_string()
            } else {
                format!("{rel}/{binary}")
            };
            Some(format!("\"$CLAUDE_PROJECT_DIR/{}\"", double_quoted(&sub)))
        }
    }
}

/// Escapes the characters that stay special inside shell double quotes.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn exe(p: &Path) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, "#!/bin/sh\n").unwrap();
        fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn inside_the_project_is_relative_on_path_is_bare_else_refused() {
        let t = std::env::temp_dir().join(format!("fable-portable-{}", std::process::id()));
        let proj = t.join("my proj");
        let vendored = proj.join("target/release");
        let elsewhere = t.join("bin");
        exe(&vendored.join("fable-evidence"));
        exe(&elsewhere.join("fable-evidence"));
        let none = OsStr::new("/usr/bin:/bin");
        let names = ["fable-evidence"];
        let style = choose_for_project(&proj, &vendored, &names, Some(none)).unwrap();
        assert_eq!(style, Style::ProjectRelative("target/release".into()));
        assert_eq!(
            command(&style, &vendored, "fable-evidence").unwrap(),
            "\"$CLAUDE_PROJECT_DIR/target/release/fable-evidence\""
        );
        let err = choose_for_project(&proj, &elsewhere, &names, Some(none)).unwrap_err();
        assert!(err.contains("--local") && err.contains("PATH"), "{err}");
        let path = std::env::join_paths([elsewhere.clone(), "/usr/bin".into()]).unwrap();
        assert_eq!(
            choose_for_project(&proj, &elsewhere, &names, Some(&path)).unwrap(),
            Style::OnPath
        );
        // A different copy earlier on PATH would be the one the bare name runs.
        let shadowed = std::env::join_paths([vendored.clone(), elsewhere.clone()]).unwrap();
        let err = choose_for_project(&proj, &elsewhere, &names, Some(&shadowed)).unwrap_err();
        assert!(err.contains("not the one in"), "{err}");
        fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn relative_commands_survive_the_shell_and_name_the_binary() {
        let style = Style::ProjectRelative("we \"x\" $y".into());
        let c = command(&style, Path::new("/unused"), "fable-learn").unwrap();
        let words = shell_words::split(&format!("{c} # fable")).unwrap();
        assert_eq!(words, ["$CLAUDE_PROJECT_DIR/we \"x\" $y/fable-learn"]);
        assert_eq!(crate::setup::registrations::our_binary(&c), Some("fable-learn"));
        assert_eq!(
            command(&Style::ProjectRelative(String::new()), Path::new("/"), "fable-inject").unwrap(),
            "\"$CLAUDE_PROJECT_DIR/fable-inject\""
        );
        assert_eq!(
            command(&Style::OnPath, Path::new("/x"), "fable-inject").unwrap(),
            "fable-inject"
        );
    }
}
