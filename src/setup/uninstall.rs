//! `fable uninstall`: remove fable's hook entries, and leave the place as fable found it.
//!
//! Only fable's entries go (the `# fable` marker, or a folder fable installed to: see
//! [`crate::setup::registrations`]); a third party's binary that shares a fable name stays
//! and is named. What fable created, by its install record in user state
//! ([`crate::setup::install_state`]), goes too when nothing else is in it: a settings file
//! that did not exist before and is `{}` once fable's entries are out, and the folders on
//! the way (`.claude/skills/fable/`, `.claude/skills/`, `.claude/`) when empty.
//!
//! Backups: the copy of the file as it was before this uninstall goes to fable's user state
//! (never beside the file: `~/.claude` and a shared `.claude/` should keep no fable
//! litter), and the output says where. The `.fable-backup` files installs left beside the
//! file are judged by content ([`crate::setup::uninstall_backups`]): removed when they hold
//! nothing but what the file holds now and fable's hooks, kept and named otherwise (they
//! are the user's settings). `--keep-backup` keeps every backup beside the file as before.
//! `--purge` also removes fable's user state and trust store ([`crate::setup::purge`]),
//! after listing them and asking (`--yes` where there is no terminal), before anything
//! is changed.

use crate::error::{exit, IoContext, Result};
use crate::setup::install::{self, absolute, Scope, ScopeArgs};
use crate::setup::install_state::{self, Record};
use crate::setup::purge::{self, Consent};
use crate::setup::registrations::Ownership;
use crate::setup::settings::{self, Summary};
use crate::setup::settings_diff::print_diff;
use crate::setup::skill::{remove_skill, SkillAction};
use crate::setup::uninstall_backups::{judge, Verdict};
use crate::setup::write_guard::{self, Dangling};
use serde_json::json;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    #[command(flatten)]
    pub codex: crate::setup::codex_hooks::HostArg,
    /// Show what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print a machine-readable summary on stdout.
    #[arg(long)]
    pub json: bool,
    /// Leave the fable skill in place.
    #[arg(long)]
    pub no_skill: bool,
    /// Also treat fable-named hook binaries in DIR as fable's (an install made before fable
    /// marked its entries, from a folder it has no record of).
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Vec<PathBuf>,
    /// Keep every `.fable-backup` file beside the settings file, and put this uninstall's
    /// copy there too (default: the copy goes to fable's user state, and backups that hold
    /// only fable's hooks and what the file holds now are removed).
    #[arg(long)]
    pub keep_backup: bool,
    /// Also remove fable's user state (sessions cache, log markers, heads, the sealing key,
    /// install records) and its trust store, after listing them and asking. Existing
    /// evidence records become unverifiable.
    #[arg(long)]
    pub purge: bool,
    /// Answer yes to --purge's question (needed where there is no terminal to ask on).
    #[arg(long, requires = "purge")]
    pub yes: bool,
}

/// What the uninstall did (or, in a dry run, would do) beyond editing the file.
#[derive(Debug, Default)]
struct Cleanup {
    file_removed: bool,
    /// Backups beside the file removed, with why.
    backups_removed: Vec<(PathBuf, &'static str)>,
    /// Backups beside the file kept, with why.
    backups_kept: Vec<(PathBuf, &'static str)>,
    dirs_removed: Vec<PathBuf>,
    /// Every file removed (or that a dry run would remove): predicts empty folders.
    files_gone: Vec<PathBuf>,
}

/// `fable uninstall`.
pub fn run_uninstall(a: &UninstallArgs) -> Result<i32> {
    let mut warnings: Vec<String> = Vec::new();
    let target = install::target_from_env(&a.scope, &mut warnings)?;
    let in_repo = matches!(target.scope, Scope::Project | Scope::Local);
    write_guard::check(in_repo, &target.settings, &target.skill, Dangling::NotWriting)?;
    let state_path = install_state::path_from_env();
    let mut state = state_path.as_deref().map(install_state::load).unwrap_or_default();
    let record = state.get(&target.settings).cloned().unwrap_or_default();
    let extra: Vec<PathBuf> = a.bin_dir.iter().map(|d| absolute(d)).collect();
    let own = install::ownership(&state, &extra);
    let mut cleanup = Cleanup::default();
    // --purge cannot be undone: list and ask before anything changes.
    let purging = a.purge && !a.dry_run;
    let preview = purging.then(|| purge::plan(|k| std::env::var(k).ok(), &state, &target.settings));
    if let Some(preview) = preview.filter(|p| !p.paths().is_empty()) {
        // Under --json stdout is the report alone; the list then goes with the question.
        if !a.json {
            preview.print(false);
        } else if !a.yes {
            for l in preview.lines(false) {
                eprintln!("{}", crate::hook::visible(&l));
            }
        }
        match purge::ask(a.yes) {
            Consent::Given => {}
            Consent::Declined => {
                println!("fable: purge cancelled; nothing was changed");
                return Ok(exit::FAILURE);
            }
            Consent::NoTerminal => {
                if a.json {
                    println!("{}", json!({"error": "needs_yes", "message": purge::NEEDS_YES}));
                }
                eprintln!("fable: {}", purge::NEEDS_YES);
                return Ok(exit::USAGE);
            }
        }
    }

    let existing = install::read_settings(&target.settings)?;
    let (summary, changed, backup, new_text, old_bytes) = match existing {
        None => (Summary::default(), false, None, None, None),
        Some((old, doc)) => {
            let (new_doc, summary) =
                settings::uninstall_as(doc, &own).map_err(|e| install::shape_error(&target.settings, &e))?;
            let text = settings::render(&new_doc);
            let emptied_ours = record.created_file && new_doc.as_object().is_some_and(|m| m.is_empty());
            // Nothing of ours: leave the file exactly as it is, formatting included.
            let changed = emptied_ours || (!summary.removed.is_empty() && old != text.as_bytes());
            let mut backup = None;
            if emptied_ours {
                // fable's own file with nothing of the user's in it: no backup to keep.
                cleanup.file_removed = true;
                if !a.dry_run {
                    let real = fs::canonicalize(&target.settings).unwrap_or_else(|_| target.settings.clone());
                    fs::remove_file(&real).at(&real)?;
                }
            } else if changed && !a.dry_run {
                // The undo of this uninstall; a purge would delete it from user state at once.
                if a.keep_backup || !purging {
                    let b = if a.keep_backup {
                        write_guard::backup_path(&target.settings)
                    } else {
                        write_guard::state_backup_path(&target.settings)
                    };
                    if let Some(dir) = b.parent() {
                        crate::session_state::mkdir_private(dir)?;
                    }
                    install::write_atomic(&b, &old, Some(&target.settings))?;
                    backup = Some(b);
                }
                install::write_atomic(&target.settings, text.as_bytes(), None)?;
            }
            (summary, changed, backup, Some(text), Some(old))
        }
    };
    // Folders fable created that exist now: those gone at the end are reported as removed
    // (removing the skill already takes its own folder when empty).
    let existed: Vec<PathBuf> = record
        .created_dirs
        .iter()
        .filter(|d| d.symlink_metadata().is_ok())
        .cloned()
        .collect();
    let skill = if a.no_skill {
        SkillAction::Skipped
    } else {
        remove_skill(&target.skill, a.dry_run)?
    };
    if cleanup.file_removed {
        cleanup.files_gone.push(target.settings.clone());
    }
    if skill == SkillAction::Removed {
        cleanup.files_gone.push(target.skill.clone());
    }
    let now: Option<&[u8]> = match (&new_text, changed) {
        _ if cleanup.file_removed => None,
        (Some(t), true) => Some(t.as_bytes()),
        _ => old_bytes.as_deref(),
    };
    let left_beside = if a.keep_backup { backup.clone() } else { None };
    tidy_backups(
        &target.settings,
        &record,
        now,
        &own,
        a,
        left_beside.as_deref(),
        &mut cleanup,
    )?;
    remove_created_dirs(&existed, a.dry_run, &mut cleanup);
    // A skill left in place (--no-skill) keeps the record: a later uninstall can still
    // remove the folders fable created once the skill goes.
    let skill_kept = a.no_skill && target.skill.symlink_metadata().is_ok();
    if !a.dry_run && !skill_kept {
        if let (Some(p), Some(_)) = (&state_path, state.forget(&target.settings)) {
            if let Err(e) = install_state::save(p, &state) {
                warnings.push(format!("could not update fable's install record ({e})"));
            }
        }
    }
    let purge = a
        .purge
        .then(|| purge::plan(|k| std::env::var(k).ok(), &state, &target.settings));

    if let Some(plan) = &purge {
        warnings.extend(plan.warnings());
    }
    for w in &warnings {
        eprintln!("fable: warning: {w}");
    }
    if a.json {
        let purged = match &purge {
            Some(plan) if !a.dry_run => Some(plan.execute()?),
            _ => None,
        };
        let report = json!({
            "action": "uninstall",
            "scope": target.scope.name(),
            "settings": target.settings,
            "settings_exists": old_bytes.is_some(),
            "dry_run": a.dry_run,
            "changed": changed,
            "backup": backup,
            "removed": summary.removed.iter().map(|r| json!({"event": r.event, "command": r.command})).collect::<Vec<_>>(),
            "left": summary.left.iter().map(|r| json!({"event": r.event, "command": r.command})).collect::<Vec<_>>(),
            "dropped_events": summary.dropped_events,
            "file_removed": cleanup.file_removed,
            "backups_removed": cleanup.backups_removed.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            "backups_kept": cleanup.backups_kept.iter().map(|(p, why)| json!({"path": p, "why": why})).collect::<Vec<_>>(),
            "dirs_removed": cleanup.dirs_removed,
            "skill": {"path": target.skill, "action": skill.name()},
            "purge": purge.as_ref().map(|p| p.to_json(purged.as_deref())),
            "warnings": warnings,
        });
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
        return Ok(0);
    }
    print_summary(a, &target.settings, &summary, old_bytes.is_some(), backup.as_deref());
    if skill == SkillAction::Removed {
        let verb = if a.dry_run { "would be removed" } else { "removed" };
        println!("fable: skill {verb}: {}", target.skill.display());
    }
    print_cleanup(a.dry_run, &target.settings, &cleanup);
    if a.dry_run {
        if let (true, false, Some(text)) = (changed, cleanup.file_removed, &new_text) {
            print_diff(old_bytes.as_deref(), text);
        }
    }
    if let Some(plan) = &purge {
        if a.dry_run {
            plan.print(true);
        } else {
            let gone = plan.execute()?;
            crate::say!(
                "fable: purged fable's user state ({} removed)",
                gone.iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    if a.dry_run {
        println!("fable: dry run: nothing was written");
    }
    Ok(0)
}

fn print_summary(a: &UninstallArgs, settings: &Path, summary: &Summary, existed: bool, backup: Option<&Path>) {
    let file = settings.display();
    let n = summary.removed.len();
    let would = if a.dry_run { "would remove" } else { "removed" };
    if !existed {
        crate::say!("fable: no settings file at {file}; no hooks to remove");
    } else if n == 0 {
        crate::say!("fable: no fable hooks in {file}");
    } else if n > 0 {
        println!(
            "fable: {would} {n} fable hook{} from {file}",
            if n == 1 { "" } else { "s" }
        );
    }
    install::print_left(&summary.left, true);
    if let Some(b) = backup {
        crate::say!("fable: previous settings kept as {}", b.display());
    }
}

fn print_cleanup(dry_run: bool, settings: &Path, cleanup: &Cleanup) {
    let would = if dry_run { "would remove" } else { "removed" };
    if cleanup.file_removed {
        println!(
            "fable: {would} {}: fable created it and nothing else is in it",
            settings.display()
        );
    }
    for (b, why) in &cleanup.backups_removed {
        crate::say!("fable: {would} fable's backup {}: {why}", b.display());
    }
    for (b, why) in &cleanup.backups_kept {
        crate::say!("fable: backup kept: {}: {why}", b.display());
    }
    for d in &cleanup.dirs_removed {
        println!("fable: {would} the empty folder fable created: {}", d.display());
    }
}

/// The largest backup uninstall reads to judge it.
const MAX_BACKUP: u64 = 1 << 20;

/// The `.fable-backup` files beside `settings` (the one there now, and those the install
/// record names in that folder): each removed or kept by its content against `now`, the
/// file as this uninstall leaves it; all kept under `--keep-backup`. `just_written` is this
/// run's own copy (kept).
fn tidy_backups(
    settings: &Path,
    record: &Record,
    now: Option<&[u8]>,
    own: &Ownership,
    a: &UninstallArgs,
    just_written: Option<&Path>,
    c: &mut Cleanup,
) -> Result<()> {
    let beside = write_guard::beside(settings);
    let folder = settings.parent().unwrap_or(Path::new("."));
    for b in record.backups.iter().chain(std::iter::once(&beside)) {
        let present = b.symlink_metadata().is_ok_and(|m| m.is_file());
        let seen = c.backups_removed.iter().chain(&c.backups_kept).any(|(p, _)| p == b);
        if !present || !b.starts_with(folder) || seen || Some(b.as_path()) == just_written {
            continue;
        }
        if a.keep_backup {
            c.backups_kept.push((b.clone(), "--keep-backup"));
            continue;
        }
        // A settings file is kilobytes; a committed giant is not read to be compared.
        let big = b.symlink_metadata().is_ok_and(|m| m.len() > MAX_BACKUP);
        let verdict = if big {
            Verdict::Keep("too large to be a backup fable wrote; look at it")
        } else {
            judge(&fs::read(b).at(b)?, now, own)
        };
        match verdict {
            Verdict::Keep(why) => c.backups_kept.push((b.clone(), why)),
            Verdict::Remove(why) => {
                if !a.dry_run {
                    fs::remove_file(b).at(b)?;
                }
                c.backups_removed.push((b.clone(), why));
                c.files_gone.push(b.clone());
            }
        }
    }
    Ok(())
}

/// Folders fable created (`existed`: outermost first, as recorded), removed innermost
/// first when empty; a dry run names those that would be empty once fable's files are gone.
fn remove_created_dirs(existed: &[PathBuf], dry_run: bool, c: &mut Cleanup) {
    for d in existed.iter().rev() {
        if dry_run {
            let empty_after = fs::read_dir(d).is_ok_and(|entries| {
                entries.flatten().all(|e| {
                    let p = e.path();
                    c.dirs_removed.contains(&p) || c.files_gone.contains(&p)
                })
            });
            if empty_after {
                c.dirs_removed.push(d.clone());
            }
        } else {
            let _ = fs::remove_dir(d);
            if d.symlink_metadata().is_err() {
                c.dirs_removed.push(d.clone());
            }
        }
    }
}
