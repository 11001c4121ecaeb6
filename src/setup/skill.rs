//! The skill fable installs beside the hooks (`templates/SKILL.md`): writing it, and
//! removing it only when it is still fable's own text.

use crate::atomic_file::Perms;
use crate::error::{Error, IoContext, Result};
use std::fs;
use std::path::Path;

/// The skill Claude Code loads from `skills/fable/SKILL.md`.
pub const SKILL_MD: &str = include_str!("../../templates/SKILL.md");

/// What happened to the skill file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillAction {
    Skipped,
    Installed,
    Updated,
    Unchanged,
    Removed,
    Absent,
}

impl SkillAction {
    pub fn name(self) -> &'static str {
        match self {
            SkillAction::Skipped => "skipped",
            SkillAction::Installed => "installed",
            SkillAction::Updated => "updated",
            SkillAction::Unchanged => "unchanged",
            SkillAction::Removed => "removed",
            SkillAction::Absent => "absent",
        }
    }
}

pub fn install_skill(path: &Path, dry_run: bool) -> Result<SkillAction> {
    let action = match fs::read(path) {
        Ok(b) if b == SKILL_MD.as_bytes() => return Ok(SkillAction::Unchanged),
        Ok(_) => SkillAction::Updated,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => SkillAction::Installed,
        Err(e) => return Err(Error::io(path, e)),
    };
    if !dry_run {
        crate::atomic_file::write(path, SKILL_MD.as_bytes(), Perms::Keep, true)?;
    }
    Ok(action)
}

pub fn remove_skill(path: &Path, dry_run: bool) -> Result<SkillAction> {
    if path.symlink_metadata().is_err() {
        return Ok(SkillAction::Absent);
    }
    if !dry_run {
        fs::remove_file(path).at(path)?;
        if let Some(folder) = path.parent() {
            // Only succeeds when empty: files the user put there stay, and so does the folder.
            let _ = fs::remove_dir(folder);
        }
    }
    Ok(SkillAction::Removed)
}
