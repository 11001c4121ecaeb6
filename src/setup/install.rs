//! `fable install`: register fable's hooks in a Claude Code settings file and install the
//! fable skill; also the scope, reading and writing helpers `fable uninstall`
//! ([`crate::setup::uninstall`]) shares.
//!
//! This module is the I/O edge: it finds the settings file for the chosen scope, reads it,
//! asks [`crate::setup::settings`] for the merged document (a pure function), and writes the result
//! atomically (temp file in the same directory, fsync, rename) after keeping the previous
//! file as `<name>.fable-backup`. A file that is not valid JSON, or not shaped like settings,
//! is refused and left byte-for-byte as it was. Entries fable writes carry the `# fable`
//! marker and are recognised by it (or by a folder fable installed to, see
//! [`crate::setup::registrations`]), so foreign hooks, even same-named ones, are never
//! touched. What the install created is recorded in user state
//! ([`crate::setup::install_state`]) so that uninstall can remove exactly that.
//!
//! Improvements over the ancestor's installer (ancestor.md §6.5): three scopes instead of
//! user-only, shell-quoted absolute paths (spaces work) and portable commands in the shared
//! project scope ([`crate::setup::portable`]), ownership by a marker rather
//! than a substring, backup plus atomic write, cleanup of events fable no longer registers,
//! no `{}` created by an uninstall that found no file, and events limited to what the
//! installed Claude Code version understands.

use crate::atomic_file::Perms;
use crate::error::{Error, Result};
use crate::setup::claude_version::{self, Detected, Version};
use crate::setup::doubles;
use crate::setup::install_state;
use crate::setup::portable::{self, Style};
use crate::setup::registrations::{self, Ownership, Registration};
use crate::setup::settings::{self, OurEntry, Summary};
use crate::setup::settings_diff::print_diff;
use crate::setup::skill::{install_skill, SkillAction};
use crate::setup::write_guard::{self, Dangling};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

pub use crate::setup::scope::{Scope, ScopeArgs, ScopeName};
pub use crate::setup::write_guard::BACKUP_SUFFIX;

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub scope: ScopeArgs,
    #[command(flatten)]
    pub codex: crate::setup::codex_hooks::InstallHostArgs,
    /// Directory holding the fable-* hook binaries (default: the directory of this `fable`).
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// The Claude Code program to ask for its version (default: $FABLE_CLAUDE_BIN, else `claude`).
    #[arg(long, value_name = "PATH")]
    pub claude: Option<PathBuf>,
    /// State the Claude Code version instead of running `claude --version`.
    #[arg(long, value_name = "X.Y.Z", value_parser = parse_version_arg)]
    pub claude_version: Option<Version>,
    /// Show what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print a machine-readable summary on stdout.
    #[arg(long)]
    pub json: bool,
    /// Do not install the fable skill.
    #[arg(long)]
    pub no_skill: bool,
    /// When the user settings file is a link to a missing file, create the file it points
    /// to (the link stays a link); without this such a link is refused.
    #[arg(long)]
    pub follow_link: bool,
    /// Move fable's hooks here from another scope that registers them (user, project or
    /// local): without it, a second registration is refused (every hook would run twice).
    #[arg(long)]
    pub replace: bool,
    /// A fable plugin folder Claude Code loads (`claude --plugin-dir DIR`): checked for a
    /// second registration like the plugins Claude Code records.
    #[arg(long, value_name = "DIR")]
    pub plugin_dir: Vec<PathBuf>,
}

fn parse_version_arg(s: &str) -> std::result::Result<Version, String> {
    Version::parse(s).ok_or_else(|| format!("{s:?} is not a version like 2.1.332"))
}

/// The files one scope edits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub scope: Scope,
    pub settings: PathBuf,
    pub skill: PathBuf,
}

/// `${CLAUDE_CONFIG_DIR:-$HOME/.claude}`; an empty variable counts as unset.
pub fn claude_config_dir(config_dir: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    if let Some(c) = config_dir.filter(|c| !c.is_empty()) {
        return Some(PathBuf::from(c));
    }
    home.filter(|h| !h.is_empty()).map(|h| PathBuf::from(h).join(".claude"))
}

/// Resolves the scope flags to the settings file and skill path they mean.
pub fn target_for(scope: &ScopeArgs, config_dir: Option<PathBuf>, cwd: Option<PathBuf>) -> Result<Target> {
    if let Some(d) = scope.folder() {
        crate::project_arg::existing_dir(d)?;
    }
    let chosen = scope.chosen();
    if chosen == Scope::User {
        let dir = config_dir.ok_or_else(|| {
            Error::msg("cannot find Claude Code's config directory: set HOME or CLAUDE_CONFIG_DIR, or use --project")
        })?;
        let dir = absolute(&dir);
        return Ok(Target {
            scope: chosen,
            settings: dir.join("settings.json"),
            skill: dir.join("skills").join("fable").join("SKILL.md"),
        });
    }
    let dir = match (scope.folder(), cwd) {
        (Some(d), _) => absolute(d),
        (None, Some(c)) => c,
        (None, None) => return Err(Error::msg("cannot read the current directory; pass --project DIR")),
    };
    let claude = dir.join(".claude");
    let file = if chosen == Scope::Project {
        "settings.json"
    } else {
        "settings.local.json"
    };
    Ok(Target {
        scope: chosen,
        settings: claude.join(file),
        skill: claude.join("skills").join("fable").join("SKILL.md"),
    })
}

pub(crate) fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

pub(crate) fn target_from_env(scope: &ScopeArgs, warnings: &mut Vec<String>) -> Result<Target> {
    let config = claude_config_dir(std::env::var_os("CLAUDE_CONFIG_DIR"), std::env::var_os("HOME"));
    let t = target_for(scope, config, std::env::current_dir().ok())?;
    if t.scope == Scope::User && scope.folder().is_some() {
        warnings.push("a project folder is used only with --scope project or local; editing user settings".to_string());
    }
    Ok(t)
}

/// The registrations this version can take, and the events left out for it.
pub fn select_for_version(regs: &[Registration], version: Option<Version>) -> (Vec<Registration>, Vec<String>) {
    let mut skipped: Vec<String> = Vec::new();
    let kept = regs
        .iter()
        .filter(|r| {
            let ok = claude_version::knows_event(version, &r.event);
            if !ok && !skipped.contains(&r.event) {
                skipped.push(r.event.clone());
            }
            ok
        })
        .cloned()
        .collect();
    (kept, skipped)
}

/// Rewrites registrations into entries that run `<bin_dir>/<binary>`, shell-quoted.
pub fn entries_for(regs: &[Registration], bin_dir: &Path) -> Result<Vec<OurEntry>> {
    entries_in(regs, bin_dir, &Style::Absolute)
}

/// Rewrites registrations into entries that run each binary in the given [`Style`].
pub fn entries_in(regs: &[Registration], bin_dir: &Path, style: &Style) -> Result<Vec<OurEntry>> {
    regs.iter()
        .map(|r| {
            let command = portable::command(style, bin_dir, &r.binary).ok_or_else(|| {
                Error::msg(format!(
                    "{}: path is not valid UTF-8 and cannot be written to settings; install the binaries elsewhere (--bin-dir)",
                    bin_dir.join(&r.binary).display()
                ))
            })?;
            Ok(OurEntry {
                event: r.event.clone(),
                matcher: r.matcher.clone(),
                command,
                timeout: r.timeout,
            })
        })
        .collect()
}

/// How this install names the binaries: absolute paths for user and local scope, a form
/// that works on a teammate's machine for the shared project scope ([`portable`]).
fn style_for(target: &Target, regs: &[Registration], bin_dir: &Path) -> Result<Style> {
    if target.scope != Scope::Project {
        return Ok(Style::Absolute);
    }
    let project = target
        .settings
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    let mut names: Vec<&str> = regs.iter().map(|r| r.binary.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    portable::choose_for_project(project, bin_dir, &names, std::env::var_os("PATH").as_deref()).map_err(Error::msg)
}

/// Who owns which entries: the marker, plus every folder fable installed binaries to
/// (recorded in user state), the folders of this run (`extra`) and the running `fable`'s
/// own folder (an install made before the marker and the record existed, by install.sh,
/// put the hooks beside `fable`).
pub(crate) fn ownership(state: &install_state::Installs, extra: &[PathBuf]) -> Ownership {
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf));
    Ownership::with_dirs(
        state
            .all_bin_dirs()
            .into_iter()
            .chain(extra.iter().cloned())
            .chain(exe_dir),
    )
}

/// `fable: left …` lines for fable-named entries that are not fable's; `uninstalling`
/// picks the way out to offer (uninstall can be told a folder is fable's).
pub(crate) fn print_left(left: &[settings::Removed], uninstalling: bool) {
    for l in left {
        let program = registrations::program_word(&l.command).unwrap_or_default();
        let dir = Path::new(&program)
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let hint = if uninstalling {
            format!("if it is fable's, run again with --bin-dir {dir}")
        } else {
            "if it is an old copy of fable's, remove it by hand or with `fable uninstall --bin-dir DIR`".to_string()
        };
        crate::say!("fable: left {program}: not registered by fable ({hint})");
    }
}

fn resolve_bin_dir(flag: Option<&Path>) -> Result<PathBuf> {
    if let Some(d) = flag {
        return Ok(absolute(d));
    }
    let exe = std::env::current_exe().map_err(|e| {
        Error::msg(format!(
            "cannot locate the running fable executable ({e}); pass --bin-dir DIR"
        ))
    })?;
    exe.parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| Error::msg("cannot locate the directory of the fable executable; pass --bin-dir DIR"))
}

fn detect_version(a: &InstallArgs) -> Detected {
    if let Some(v) = a.claude_version {
        return Detected::Stated(v);
    }
    let program = claude_version::claude_program(
        a.claude.as_deref().map(Path::as_os_str),
        std::env::var_os("FABLE_CLAUDE_BIN"),
    );
    claude_version::read_version(&program, claude_version::VERSION_TIMEOUT)
}

/// Reads a settings file: `None` when it does not exist; refuses what it cannot safely edit.
pub(crate) fn read_settings(path: &Path) -> Result<Option<(Vec<u8>, Value)>> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    let text = std::str::from_utf8(&bytes).map_err(|_| {
        Error::msg(format!(
            "{}: not UTF-8 text; fix or remove the file, nothing was changed",
            path.display()
        ))
    })?;
    let doc = settings::parse(text).map_err(|source| Error::BadJson {
        path: path.to_path_buf(),
        source,
    })?;
    settings::check_shape(&doc).map_err(|e| shape_error(path, &e))?;
    Ok(Some((bytes, doc)))
}

pub(crate) fn shape_error(path: &Path, e: &settings::ShapeError) -> Error {
    Error::msg(format!(
        "{}: {e}; Claude Code settings are a JSON object whose \"hooks\" maps event names to arrays. \
         Fix the file or move it aside; nothing was changed",
        path.display()
    ))
}

/// Writes `bytes` to `path` atomically with fsync (see [`crate::atomic_file`]). The file
/// keeps the permissions of `like` (or of the file it replaces): settings may hold tokens in
/// `env`, so a private file must not come back, or be backed up, world-readable.
pub fn write_atomic(path: &Path, bytes: &[u8], like: Option<&Path>) -> Result<()> {
    let perms = like.map_or(Perms::Keep, Perms::Like);
    crate::atomic_file::write(path, bytes, perms, true)
}

/// Writes the new settings text if it differs, keeping the old file as a backup.
/// Returns the backup path when one was made.
pub(crate) fn commit(path: &Path, old: Option<&[u8]>, new: &str) -> Result<Option<PathBuf>> {
    let backup = match old {
        Some(old_bytes) => {
            let b = crate::setup::write_guard::backup_path(path);
            write_atomic(&b, old_bytes, Some(path))?;
            Some(b)
        }
        None => None,
    };
    write_atomic(path, new.as_bytes(), None)?;
    Ok(backup)
}

/// Warnings for events left out for an old Claude Code, and a note when the version is unknown.
pub fn version_advice(detected: &Detected, skipped: &[String]) -> (Vec<String>, Vec<String>) {
    let mut warnings = Vec::new();
    let v = detected.version().map(|v| v.to_string()).unwrap_or_default();
    for event in skipped {
        let since = claude_version::event_since(event)
            .map(|s| s.to_string())
            .unwrap_or_default();
        if event == "PostToolUseFailure" {
            warnings.push(format!(
                "Claude Code {v} has no PostToolUseFailure event (added in {since}), so failed Bash commands \
                 cannot be logged as evidence or counted by the fail-streak guard. Upgrade Claude Code \
                 (`claude update`), then run `fable install` again"
            ));
        } else {
            warnings.push(format!(
                "Claude Code {v} predates the {event} event (added in {since}); its fable hook is not registered. \
                 Upgrade Claude Code, then run `fable install` again"
            ));
        }
    }
    let mut notes = Vec::new();
    if let Detected::Unknown(why) = detected {
        notes.push(format!(
            "could not read the Claude Code version ({why}); registered every event, PostToolUseFailure included. \
             Claude Code older than 2.0.56 ignores a whole settings file that names that event: if yours is that \
             old, run again with --claude-version X.Y.Z"
        ));
    }
    (warnings, notes)
}

/// Hook binaries the registrations need that are not files in `bin_dir`.
fn missing_binaries(regs: &[Registration], bin_dir: &Path) -> Vec<String> {
    let mut missing: Vec<String> = Vec::new();
    for r in regs {
        if !missing.contains(&r.binary) && !bin_dir.join(&r.binary).is_file() {
            missing.push(r.binary.clone());
        }
    }
    missing
}

/// `fable install`.
pub fn run_install(a: &InstallArgs) -> Result<i32> {
    let mut warnings: Vec<String> = Vec::new();
    let target = target_from_env(&a.scope, &mut warnings)?;
    let bin_dir = resolve_bin_dir(a.bin_dir.as_deref())?;
    let regs = registrations::builtin().map_err(|e| Error::msg(format!("{e} (this fable build is broken)")))?;

    let detected = detect_version(a);
    let version = detected.version();
    let (regs, skipped) = select_for_version(&regs, version);
    let (version_warnings, notes) = version_advice(&detected, &skipped);
    warnings.extend(version_warnings);

    let missing = missing_binaries(&regs, &bin_dir);
    if !missing.is_empty() {
        warnings.push(format!(
            "not found in {}: {}; those hooks will fail harmlessly until they exist. Build with \
             `cargo build --release` or point --bin-dir at the installed binaries",
            bin_dir.display(),
            missing.join(", ")
        ));
    }

    let style = style_for(&target, &regs, &bin_dir)?;
    let entries = entries_in(&regs, &bin_dir, &style)?;
    let dangling = if a.follow_link {
        Dangling::WriteTarget
    } else {
        Dangling::Refuse
    };
    write_guard::check(
        matches!(target.scope, Scope::Project | Scope::Local),
        &target.settings,
        &target.skill,
        dangling,
    )?;
    // A dangling link (allowed by --follow-link) is kept: the file it points to is written.
    let write_path = write_guard::dangling_target(&target.settings).unwrap_or_else(|| target.settings.clone());
    let mut fresh = install_state::fresh_before_install(&target.settings, (!a.no_skill).then_some(&*target.skill));
    fresh.file = write_path.symlink_metadata().is_err();
    let state_path = install_state::path_from_env();
    let mut state = state_path.as_deref().map(install_state::load).unwrap_or_default();
    let own = ownership(&state, std::slice::from_ref(&bin_dir));
    let existing = read_settings(&target.settings)?;
    let (old_bytes, doc) = match existing {
        Some((b, d)) => (Some(b), d),
        None => (None, Value::Object(serde_json::Map::new())),
    };
    // One registration per hook (see `doubles`): refuse a second one, or move it (--replace).
    let others = doubles::others_for(target.scope.name(), &target.settings, &own, &a.plugin_dir);
    let doubled: Vec<&doubles::Registered> = others.iter().filter(|r| doubles::would_double(&entries, r)).collect();
    if !doubled.is_empty() && (!a.replace || doubled.iter().any(|r| r.scope == "plugin")) {
        let flags = doubles::flags_for(target.scope.name(), &target.settings);
        return Err(Error::msg(doubles::refusal(
            target.scope.name(),
            &target.settings,
            &flags,
            &doubled,
        )));
    }
    let (new_doc, summary) =
        settings::install_as(doc, &entries, &own).map_err(|e| shape_error(&target.settings, &e))?;
    if let Some(v) = version {
        for event in &skipped {
            if settings::has_event(&new_doc, event) {
                warnings.push(format!(
                    "{} still has a \"{event}\" entry that is not fable's; Claude Code {v} may ignore the whole \
                     file because of it. Remove that entry or upgrade Claude Code",
                    target.settings.display()
                ));
            }
        }
    }
    let ancestor = settings::commands_where(&new_doc, registrations::is_ancestor);
    if !ancestor.is_empty() {
        warnings.push(format!(
            "{} still registers {} hook(s) of the Python fable-mode ({}); with both installed every command is \
             logged and gated twice. Remove them with fable-mode's `install.sh --uninstall`",
            target.settings.display(),
            ancestor.len(),
            ancestor.join(", ")
        ));
    }
    let new_text = settings::render(&new_doc);
    let changed = old_bytes.as_deref() != Some(new_text.as_bytes());

    let backup = if changed && !a.dry_run {
        commit(&write_path, old_bytes.as_deref(), &new_text)?
    } else {
        None
    };
    for r in &doubled {
        if !a.dry_run {
            remove_ours(&r.file, &own)?;
        }
        let verb = if a.dry_run { "would remove" } else { "removed" };
        println!("fable: {verb} fable's hooks from {} (--replace)", doubles::place(r));
    }
    let skill = if a.no_skill {
        SkillAction::Skipped
    } else {
        install_skill(&target.skill, a.dry_run)?
    };
    if !a.dry_run {
        // Remembered for uninstall; the hooks work without it, so a failure only warns.
        state.note_install(
            &target.settings,
            target.scope.name(),
            &bin_dir,
            &fresh,
            backup.as_deref(),
        );
        let mut bins: Vec<PathBuf> = regs
            .iter()
            .map(|r| bin_dir.join(&r.binary))
            .filter(|p| p.is_file())
            .collect();
        bins.dedup();
        state.note_binaries(&target.settings, &bins);
        let saved = match &state_path {
            Some(p) => install_state::save(p, &state).map_err(|e| e.to_string()),
            None => Err("no state folder: set HOME or XDG_STATE_HOME".to_string()),
        };
        if let Err(e) = saved {
            warnings.push(format!(
                "could not record this install in fable's user state ({e}); `fable uninstall` will remove \
                 fable's hooks but leave files and folders fable created"
            ));
        }
    }

    for w in &warnings {
        eprintln!("fable: warning: {w}");
    }
    for n in &notes {
        eprintln!("fable: note: {n}");
    }
    if a.json {
        let report = json!({
            "action": "install",
            "scope": target.scope.name(),
            "settings": target.settings,
            "dry_run": a.dry_run,
            "changed": changed,
            "backup": backup,
            "bin_dir": bin_dir,
            "command_style": style.name(),
            "claude_version": version.map(|v| v.to_string()),
            "claude_version_source": detected.source(),
            "hooks": summary.added.iter().map(entry_json).collect::<Vec<_>>(),
            "removed": summary.removed.len(),
            "left": summary.left.iter().map(|l| json!({"event": l.event, "command": l.command})).collect::<Vec<_>>(),
            "written": write_path,
            "skipped_events": skipped,
            "missing_binaries": missing,
            "skill": {"path": target.skill, "action": skill.name()},
            "warnings": warnings,
            "notes": notes,
        });
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
        return Ok(0);
    }
    print_install(&target, &summary, changed, a.dry_run, backup.as_deref(), skill);
    if write_path != target.settings && changed {
        println!(
            "fable: {} is a link; {} the file it points to: {}",
            target.settings.display(),
            if a.dry_run { "would write" } else { "wrote" },
            write_path.display()
        );
    }
    print_style(&style, &bin_dir);
    print_left(&summary.left, false);
    if a.dry_run && changed {
        print_diff(old_bytes.as_deref(), &new_text);
    }
    Ok(0)
}

/// `--replace`: takes fable's entries out of another scope's file (kept as a backup).
fn remove_ours(file: &Path, own: &Ownership) -> Result<()> {
    let Some((old, doc)) = read_settings(file)? else {
        return Ok(());
    };
    let (doc, _) = settings::uninstall_as(doc, own).map_err(|e| shape_error(file, &e))?;
    commit(file, Some(&old), &settings::render(&doc)).map(|_| ())
}

/// For the shared project scope: how a teammate's machine will find the hooks.
fn print_style(style: &Style, bin_dir: &Path) {
    match style {
        Style::Absolute => {}
        Style::OnPath => println!(
            "fable: the project settings name the hooks by bare name (found on PATH in {}); teammates need \
             them on their PATH too (./install.sh puts them there)",
            bin_dir.display()
        ),
        Style::ProjectRelative(rel) => println!(
            "fable: the project settings run the hooks from $CLAUDE_PROJECT_DIR/{rel}; teammates need to build \
             them there too"
        ),
    }
}

fn entry_json(e: &OurEntry) -> Value {
    json!({"event": e.event, "matcher": e.matcher, "command": e.command, "timeout": e.timeout})
}

fn print_install(t: &Target, s: &Summary, changed: bool, dry_run: bool, backup: Option<&Path>, skill: SkillAction) {
    let file = t.settings.display();
    let n = s.added.len();
    let hooks = if n == 1 { "hook" } else { "hooks" };
    if dry_run {
        if changed {
            println!("fable: dry run: would register {n} {hooks} in {file}; nothing was written");
        } else {
            println!("fable: dry run: {n} {hooks} already registered in {file}; nothing would change");
        }
    } else if changed {
        println!("fable: {n} {hooks} registered in {file}");
    } else {
        println!("fable: {n} {hooks} already registered in {file} (unchanged)");
    }
    for e in &s.added {
        let m = e.matcher.as_deref().map(|m| format!("  [{m}]")).unwrap_or_default();
        let bin = registrations::our_binary(&e.command).unwrap_or("?");
        let line = format!("  {:<20} {:<18}{m}", e.event, bin);
        println!("{}", line.trim_end());
    }
    if let Some(b) = backup {
        println!("fable: previous settings kept as {}", b.display());
    }
    let verb = if dry_run { "would be " } else { "" };
    match skill {
        SkillAction::Installed | SkillAction::Updated => {
            println!("fable: skill {verb}{}: {}", skill.name(), t.skill.display())
        }
        SkillAction::Unchanged => println!("fable: skill up to date: {}", t.skill.display()),
        _ => {}
    }
    if !dry_run {
        println!(
            "Hooks apply from the next Claude Code session. They stay inert in projects without .fable/: \
             run `fable init` in a project to opt it in."
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_dir_prefers_claude_config_dir() {
        assert_eq!(
            claude_config_dir(Some("/c".into()), Some("/h".into())),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(
            claude_config_dir(Some("".into()), Some("/h".into())),
            Some(PathBuf::from("/h/.claude"))
        );
        assert_eq!(claude_config_dir(None, None), None);
    }

    #[test]
    fn scopes_map_to_files() {
        let tmp = std::env::temp_dir();
        let scope = |project: bool, local| ScopeArgs {
            project: project.then_some(None),
            local,
            dir: Some(tmp.clone()),
            ..ScopeArgs::default()
        };
        let u = target_for(&scope(false, false), Some("/cfg".into()), None).unwrap();
        assert_eq!(u.settings, PathBuf::from("/cfg/settings.json"));
        assert_eq!(u.skill, PathBuf::from("/cfg/skills/fable/SKILL.md"));
        let p = target_for(&scope(true, false), None, None).unwrap();
        assert_eq!(p.settings, absolute(&tmp).join(".claude/settings.json"));
        let l = target_for(&scope(false, true), None, None).unwrap();
        assert_eq!(l.settings, absolute(&tmp).join(".claude/settings.local.json"));
        assert_eq!(l.skill, absolute(&tmp).join(".claude/skills/fable/SKILL.md"));
        let missing = ScopeArgs {
            dir: Some("/nonexistent/fable-dir".into()),
            ..scope(true, false)
        };
        assert!(target_for(&missing, None, None).is_err());
        // --project DIR names the folder and, alone, the project scope.
        let named = ScopeArgs {
            project: Some(Some(tmp.clone())),
            ..ScopeArgs::default()
        };
        let n = target_for(&named, None, None).unwrap();
        assert_eq!(n.settings, absolute(&tmp).join(".claude/settings.json"));
        let local_named = ScopeArgs {
            local: true,
            ..named.clone()
        };
        let ln = target_for(&local_named, None, None).unwrap();
        assert_eq!(ln.settings, absolute(&tmp).join(".claude/settings.local.json"));
        let by_scope = ScopeArgs {
            scope: Some(ScopeName::Local),
            ..named
        };
        assert_eq!(target_for(&by_scope, None, None).unwrap().scope, Scope::Local);
    }

    #[test]
    fn entries_are_quoted_absolute_paths() {
        let regs = registrations::builtin().unwrap();
        let entries = entries_for(&regs, Path::new("/opt/my tools")).unwrap();
        assert!(entries.iter().all(|e| e.command.starts_with("'/opt/my tools/fable-")));
        assert!(
            entries.iter().all(|e| !registrations::is_ours(&e.command)),
            "marked when written"
        );
        assert!(entries
            .iter()
            .all(|e| registrations::is_ours(&registrations::mark(&e.command))));
        let plain = entries_for(&regs, Path::new("/opt/bin")).unwrap();
        assert!(plain.iter().any(|e| e.command == "/opt/bin/fable-evidence"));
    }

    #[test]
    fn old_version_skips_post_tool_use_failure() {
        let regs = registrations::builtin().unwrap();
        let (kept, skipped) = select_for_version(&regs, Some(Version::new(2, 0, 55)));
        assert_eq!(skipped, ["PostToolUseFailure"]);
        assert!(kept.iter().all(|r| r.event != "PostToolUseFailure"));
        let (kept, skipped) = select_for_version(&regs, None);
        assert!(skipped.is_empty());
        assert_eq!(kept.len(), regs.len());
    }
}
