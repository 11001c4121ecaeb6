//! What the installer may write, decided before it writes anything.
//!
//! Project and local scope write inside a repository, and a repository may come from a
//! stranger: a committed `.claude/settings.json.fable-backup -> ~/.bashrc` would get the
//! settings bytes, `.claude/skills/fable/SKILL.md -> …` the skill text. So in those scopes
//! every file fable writes (settings, backup, skill) and every folder on the way from the
//! project root must be a real file or folder, or absent; a link is refused by name and
//! nothing is written. In user scope the links are the user's own (dotfile managers): the
//! settings file is written through its link, and the backup of a linked file goes to
//! fable's user state instead of beside the link. A dangling link stays a link: the
//! installer writes the file it points to only when told to (`--follow-link`), because a
//! link to a missing file is as often a dotfile repository not checked out yet as a file
//! the user wants created, and replacing the link with a regular file (what a plain
//! rename does) silently cuts it off from the dotfiles. A read-only settings file is
//! refused with what to do.

use crate::error::{Error, Result};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn is_link(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

fn link_error(p: &Path) -> Error {
    Error::msg(format!(
        "{}: is a symbolic link; fable never writes through a link inside a project (a cloned \
         repository may have committed it). Remove it (or replace it with a real file) and run again; \
         nothing was written",
        p.display()
    ))
}

/// The backup beside `settings` (`settings.json.fable-backup`).
pub fn beside(settings: &Path) -> PathBuf {
    let mut name = settings.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(BACKUP_SUFFIX);
    settings.with_file_name(name)
}

/// Where the backup of `settings` goes: beside it, unless the file or the place beside it
/// is a link (then into `${XDG_STATE_HOME:-~/.local/state}/fable/backups/`, named after
/// the settings path).
pub fn backup_path(settings: &Path) -> PathBuf {
    let b = beside(settings);
    if !is_link(settings) && !is_link(&b) {
        return b;
    }
    state_backup_path(settings)
}

/// The backup of `settings` in fable's user state, named after the settings path: where
/// backups go that must not stay in a project (or beside a link).
pub fn state_backup_path(settings: &Path) -> PathBuf {
    let flat: String = settings
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    crate::session_state::user_state_dir(|k| std::env::var(k).ok())
        .unwrap_or_else(std::env::temp_dir)
        .join("backups")
        .join(format!("{flat}{BACKUP_SUFFIX}"))
}

/// What a backup's name ends with, beside its original.
pub const BACKUP_SUFFIX: &str = ".fable-backup";

/// The file a dangling link at `p` points to, following a chain of links to its missing
/// end; `None` when `p` is not a dangling link, or is a loop of links.
pub fn dangling_target(p: &Path) -> Option<PathBuf> {
    if !is_link(p) || fs::metadata(p).is_ok() {
        return None;
    }
    let mut cur = p.to_path_buf();
    for _ in 0..40 {
        match fs::read_link(&cur) {
            Ok(t) if t.is_absolute() => cur = t,
            Ok(t) => cur = cur.parent().unwrap_or(Path::new(".")).join(t),
            Err(_) => return Some(cur),
        }
    }
    None
}

/// What to do with a dangling user-scope settings link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dangling {
    /// Refuse, naming the link, its target and `--follow-link` (install without the flag).
    Refuse,
    /// Write the file it points to (install with `--follow-link`).
    WriteTarget,
    /// Nothing will be created, so nothing to refuse (uninstall: no file, no hooks).
    NotWriting,
}

/// Refuses, before anything is written, a target the installer must not write:
/// `in_repo` for project and local scope, `settings` and `skill` the files it writes.
pub fn check(in_repo: bool, settings: &Path, skill: &Path, dangling: Dangling) -> Result<()> {
    let settings = &settings.to_path_buf();
    if in_repo {
        // From the `.claude` folder down: the folders, then every file fable writes.
        let claude_dir = settings.parent().unwrap_or(Path::new("."));
        let mut paths: Vec<PathBuf> = vec![claude_dir.to_path_buf()];
        let mut d = skill.parent();
        let mut skill_dirs = Vec::new();
        while let Some(p) = d {
            if p == claude_dir || !p.starts_with(claude_dir) {
                break;
            }
            skill_dirs.push(p.to_path_buf());
            d = p.parent();
        }
        skill_dirs.reverse();
        paths.extend(skill_dirs);
        paths.extend([settings.clone(), beside(settings), skill.to_path_buf()]);
        if let Some(p) = paths.iter().find(|p| is_link(p)) {
            return Err(link_error(p));
        }
    } else if is_link(settings) && fs::metadata(settings).is_err() && dangling != Dangling::NotWriting {
        let Some(target) = dangling_target(settings) else {
            return Err(Error::msg(format!(
                "{}: is a loop of symbolic links; fix or remove it and run again; nothing was written",
                settings.display()
            )));
        };
        if dangling == Dangling::Refuse {
            return Err(Error::msg(format!(
                "{}: is a link to a missing file ({}); fable keeps the link and wrote nothing. Create that \
                 file, or run again with --follow-link to write the settings there",
                settings.display(),
                target.display()
            )));
        }
    }
    if let Ok(m) = fs::metadata(settings) {
        if m.permissions().mode() & 0o200 == 0 {
            return Err(Error::msg(format!(
                "{}: is read-only; fable does not override that. Make it writable (chmod u+w) and run \
                 again, or leave it as it is; nothing was written",
                settings.display()
            )));
        }
    }
    Ok(())
}
