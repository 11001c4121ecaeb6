//! `fable install --host codex` and `fable uninstall --host codex`: fable's hooks in a
//! Codex `hooks.json` (user: `$CODEX_HOME/hooks.json`, `CODEX_HOME` defaulting to
//! `~/.codex`; `--project [DIR]`: `<DIR>/.codex/hooks.json`), with the Claude Code
//! install's guarantees: idempotent (fable's entries, told apart by the `# fable` marker,
//! are replaced, everything else is kept), the previous file kept as
//! `hooks.json.fable-backup`, written atomically, never through a link, and what was
//! created recorded in fable's user state for the uninstall.
//!
//! Codex skips an untrusted hook **silently**, so the install ends by saying how to trust
//! them (`/hooks` in the Codex TUI), or does it when the user asks (`--trust`, which also
//! trusts the project for `--project`): [`crate::setup::codex_trust`].

use crate::error::{Error, IoContext, Result};
use crate::setup::codex_hooks;
use crate::setup::codex_trust::{self, HookTrust};
use crate::setup::install::{self, InstallArgs, Scope, ScopeArgs};
use crate::setup::install_state;
use crate::setup::registrations::{self, Ownership};
use crate::setup::settings::{self, OurEntry};
use crate::setup::uninstall::UninstallArgs;
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};

/// Where a Codex install goes.
#[derive(Debug, Clone)]
pub struct CodexTarget {
    /// `codex-user` or `codex-project` (the install record's scope).
    pub scope: &'static str,
    pub hooks_file: PathBuf,
    pub codex_home: PathBuf,
    /// The project root, for `--project`.
    pub project: Option<PathBuf>,
}

impl CodexTarget {
    pub fn config_toml(&self) -> PathBuf {
        self.codex_home.join("config.toml")
    }

    /// The flags that address this target again.
    pub fn flags(&self) -> String {
        match &self.project {
            Some(p) => format!("--host codex --project {}", shell_words::quote(&p.to_string_lossy())),
            None => "--host codex".to_string(),
        }
    }
}

/// The target the scope flags name, with `CODEX_HOME`/`HOME` and the current directory.
pub fn target_for(scope: &ScopeArgs) -> Result<CodexTarget> {
    let codex_home = codex_trust::codex_home(std::env::var_os("CODEX_HOME"), std::env::var_os("HOME"))
        .map(|p| install::absolute(&p))
        .ok_or_else(|| Error::msg("cannot find Codex's folder: set CODEX_HOME or HOME"))?;
    match scope.chosen() {
        Scope::User => Ok(CodexTarget {
            scope: "codex-user",
            hooks_file: codex_home.join("hooks.json"),
            codex_home,
            project: None,
        }),
        Scope::Project => {
            let dir = match scope.folder() {
                Some(d) => d.clone(),
                None => std::env::current_dir().map_err(|e| Error::msg(format!("no current directory: {e}")))?,
            };
            let root = fs::canonicalize(&dir).unwrap_or_else(|_| install::absolute(&dir));
            if !root.is_dir() {
                return Err(Error::msg(format!("{}: not a folder", root.display())));
            }
            Ok(CodexTarget {
                scope: "codex-project",
                hooks_file: root.join(".codex").join("hooks.json"),
                codex_home,
                project: Some(root),
            })
        }
        Scope::Local => Err(Error::msg(
            "Codex has no local scope: use the user scope (default) or --project [DIR]",
        )),
    }
}

fn is_link(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// Refuses to write through a link: the hooks file, its backup, and (in a project, which
/// may be a stranger's clone) the `.codex` folder.
fn refuse_links(t: &CodexTarget) -> Result<()> {
    let mut check = vec![t.hooks_file.clone(), crate::setup::write_guard::beside(&t.hooks_file)];
    if t.project.is_some() {
        if let Some(d) = t.hooks_file.parent() {
            check.push(d.to_path_buf());
        }
    }
    match check.iter().find(|p| is_link(p)) {
        Some(p) => Err(Error::msg(format!(
            "{}: is a symbolic link; fable never writes Codex hooks through a link. Replace it with a real \
             file or folder and run again; nothing was written",
            p.display()
        ))),
        None => Ok(()),
    }
}

fn bin_dir_of(flag: Option<&Path>) -> Result<PathBuf> {
    if let Some(d) = flag {
        return Ok(install::absolute(d));
    }
    std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
        .ok_or_else(|| Error::msg("cannot locate the directory of the fable executable; pass --bin-dir DIR"))
}

/// fable's entries for binaries in `bin_dir`.
pub fn entries(bin_dir: &Path) -> Vec<OurEntry> {
    codex_hooks::registrations()
        .into_iter()
        .map(|r| OurEntry {
            command: codex_hooks::command_for(bin_dir, &r.binary),
            event: r.event,
            matcher: r.matcher,
            timeout: r.timeout,
        })
        .collect()
}

/// fable's handlers in a hooks document at `file`, with their trust keys and hashes.
pub fn our_hooks(file: &Path, doc: &Value, own: &Ownership) -> Vec<HookTrust> {
    codex_trust::hooks_in(&codex_trust::key_path(file), doc, |c| own.owns(c))
}

/// How to trust the hooks in Codex, for the install's closing lines and the doctor.
pub fn trust_advice(t: &CodexTarget) -> String {
    let mut s = format!(
        "Codex runs a hook only after you trust it, and skips untrusted ones silently. Either start `codex` in \
         the project, type `/hooks`, review fable's hooks and trust them; or run `fable install {} --trust`, \
         which writes their hashes into {}",
        t.flags(),
        t.config_toml().display()
    );
    if let Some(root) = &t.project {
        s.push_str(&format!(
            ". Codex loads {} only for a trusted project ([projects.\"{}\"] trust_level = \"trusted\"; `--trust` \
             writes that too)",
            t.hooks_file.display(),
            root.display()
        ));
    }
    s
}

/// Writes the trusted hashes of `hooks` (and the project's trust) into config.toml, after
/// a backup beside it. Returns the backup, if one was made.
pub fn write_trust(t: &CodexTarget, hooks: &[HookTrust], remove: &[String], dry_run: bool) -> Result<Option<PathBuf>> {
    let config = t.config_toml();
    let old = match fs::read(&config) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(&config, e)),
    };
    let text = match &old {
        Some(b) => String::from_utf8(b.clone())
            .map_err(|_| Error::msg(format!("{}: not UTF-8 text; nothing was changed", config.display())))?,
        None => String::new(),
    };
    let new = codex_trust::edit_config(
        &text,
        &config,
        hooks,
        remove,
        t.project.as_deref().filter(|_| !hooks.is_empty()),
    )?;
    if new == text || dry_run {
        return Ok(None);
    }
    let real = fs::canonicalize(&config).unwrap_or_else(|_| config.clone());
    if let Some(dir) = real.parent() {
        fs::create_dir_all(dir).at(dir)?;
    }
    install::commit(&real, old.as_deref(), &new)
}

/// `fable install --host codex`.
pub fn run_install(a: &InstallArgs) -> Result<i32> {
    let t = target_for(&a.scope)?;
    let bin_dir = bin_dir_of(a.bin_dir.as_deref())?;
    refuse_links(&t)?;
    let mut warnings = Vec::new();
    let missing: Vec<&str> = codex_hooks::TABLE
        .iter()
        .map(|r| r.2)
        .filter(|b| !bin_dir.join(b).is_file())
        .collect();
    if !missing.is_empty() {
        warnings.push(format!(
            "not found in {}: {}; those hooks will fail harmlessly until they exist (point --bin-dir at the \
             installed binaries)",
            bin_dir.display(),
            missing.join(", ")
        ));
    }
    let fresh = install_state::fresh_before_install(&t.hooks_file, None);
    let state_path = install_state::path_from_env();
    let mut state = state_path.as_deref().map(install_state::load).unwrap_or_default();
    let own = install::ownership(&state, std::slice::from_ref(&bin_dir));
    let existing = install::read_settings(&t.hooks_file)?;
    let (old, doc) = match existing {
        Some((b, d)) => (Some(b), d),
        None => (
            None,
            json!({"description": "fable: evidence log, discipline guards and learned standing rules (Codex)."}),
        ),
    };
    let (new_doc, summary) =
        settings::install_as(doc, &entries(&bin_dir), &own).map_err(|e| install::shape_error(&t.hooks_file, &e))?;
    let text = settings::render(&new_doc);
    let changed = old.as_deref() != Some(text.as_bytes());
    let backup = if changed && !a.dry_run {
        if let Some(dir) = t.hooks_file.parent() {
            fs::create_dir_all(dir).at(dir)?;
        }
        install::commit(&t.hooks_file, old.as_deref(), &text)?
    } else {
        None
    };
    let hooks = our_hooks(&t.hooks_file, &new_doc, &own);
    let mut trust_backup = None;
    if a.codex.trust {
        trust_backup = write_trust(&t, &hooks, &[], a.dry_run)?;
    }
    if !a.dry_run {
        state.note_install(&t.hooks_file, t.scope, &bin_dir, &fresh, backup.as_deref());
        let mut bins: Vec<PathBuf> = codex_hooks::TABLE
            .iter()
            .map(|r| bin_dir.join(r.2))
            .filter(|p| p.is_file())
            .collect();
        bins.sort();
        bins.dedup();
        state.note_binaries(&t.hooks_file, &bins);
        let saved = match &state_path {
            Some(p) => install_state::save(p, &state).map_err(|e| e.to_string()),
            None => Err("no state folder: set HOME or XDG_STATE_HOME".to_string()),
        };
        if let Err(e) = saved {
            warnings.push(format!("could not record this install in fable's user state ({e})"));
        }
    }
    for w in &warnings {
        eprintln!("fable: warning: {w}");
    }
    if a.json {
        let report = json!({
            "action": "install", "host": "codex", "scope": t.scope, "hooks_file": t.hooks_file,
            "dry_run": a.dry_run, "changed": changed, "backup": backup, "bin_dir": bin_dir,
            "hooks": hooks.iter().map(|h| json!({"event": h.event, "command": h.command, "key": h.key, "hash": h.hash})).collect::<Vec<_>>(),
            "removed": summary.removed.len(), "trusted": a.codex.trust, "config_backup": trust_backup,
            "missing_binaries": missing, "warnings": warnings,
        });
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
        return Ok(0);
    }
    let verb = match (changed, a.dry_run) {
        (false, _) => "already up to date:",
        (true, true) => "would write",
        (true, false) => "wrote",
    };
    crate::say!("fable: {verb} {} ({} Codex hooks)", t.hooks_file.display(), hooks.len());
    if let Some(b) = &backup {
        crate::say!("fable: the previous file is kept as {}", b.display());
    }
    if a.codex.trust {
        let verb = if a.dry_run { "would trust" } else { "trusted" };
        crate::say!(
            "fable: {verb} {} hook(s) in {} (your explicit --trust){}",
            hooks.len(),
            t.config_toml().display(),
            if t.project.is_some() { ", and the project" } else { "" }
        );
    } else {
        let config = fs::read_to_string(t.config_toml()).unwrap_or_default();
        let trusted = codex_trust::trusted_hashes(&config);
        let pending = hooks.iter().filter(|h| trusted.get(&h.key) != Some(&h.hash)).count();
        let project_ok = t
            .project
            .as_deref()
            .is_none_or(|r| codex_trust::project_trusted(&config, r));
        if pending == 0 && project_ok && !a.dry_run {
            crate::say!(
                "fable: Codex already trusts these hooks ({})",
                t.config_toml().display()
            );
        } else {
            crate::say!("fable: next, trust them: {}", trust_advice(&t));
        }
    }
    crate::say!("fable: check with `fable doctor {}`", t.flags());
    Ok(0)
}

/// `fable uninstall --host codex`: fable's entries out of the hooks file (the file removed
/// when fable created it and nothing else is left), and their trust entries out of
/// config.toml.
pub fn run_uninstall(a: &UninstallArgs) -> Result<i32> {
    let t = target_for(&a.scope)?;
    refuse_links(&t)?;
    let state_path = install_state::path_from_env();
    let mut state = state_path.as_deref().map(install_state::load).unwrap_or_default();
    let record = state.get(&t.hooks_file).cloned().unwrap_or_default();
    let extra: Vec<PathBuf> = a.bin_dir.iter().map(|d| install::absolute(d)).collect();
    let own = install::ownership(&state, &extra);
    let mut removed = 0;
    let mut file_removed = false;
    let mut keys = Vec::new();
    if let Some((old, doc)) = install::read_settings(&t.hooks_file)? {
        keys = our_hooks(&t.hooks_file, &doc, &own)
            .into_iter()
            .map(|h| h.key)
            .collect();
        let (new_doc, summary) =
            settings::uninstall_as(doc, &own).map_err(|e| install::shape_error(&t.hooks_file, &e))?;
        removed = summary.removed.len();
        let only_description = new_doc
            .as_object()
            .is_some_and(|m| m.keys().all(|k| k == "description") && registrations_desc(m.get("description")));
        let text = settings::render(&new_doc);
        if record.created_file && only_description {
            file_removed = true;
            if !a.dry_run {
                fs::remove_file(&t.hooks_file).at(&t.hooks_file)?;
            }
        } else if removed > 0 && old != text.as_bytes() && !a.dry_run {
            install::commit(&t.hooks_file, Some(&old), &text)?;
        }
    }
    if !keys.is_empty() {
        write_trust(&t, &[], &keys, a.dry_run)?;
    }
    if !a.dry_run {
        if let (Some(p), Some(_)) = (&state_path, state.forget(&t.hooks_file)) {
            let _ = install_state::save(p, &state);
        }
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"action": "uninstall", "host": "codex", "hooks_file": t.hooks_file,
                "dry_run": a.dry_run, "removed": removed, "file_removed": file_removed, "untrusted": keys.len()})
            )
            .unwrap_or_default()
        );
        return Ok(0);
    }
    let verb = if a.dry_run { "would remove" } else { "removed" };
    crate::say!("fable: {verb} {removed} Codex hook(s) from {}", t.hooks_file.display());
    if file_removed {
        crate::say!("fable: {verb} {} (fable created it)", t.hooks_file.display());
    }
    if !keys.is_empty() {
        crate::say!("fable: {verb} their trust entries from {}", t.config_toml().display());
    }
    Ok(0)
}

/// Whether a `description` is the one fable wrote (or absent).
fn registrations_desc(d: Option<&Value>) -> bool {
    d.is_none_or(|d| d.as_str().is_some_and(|s| s.starts_with("fable:")))
}

/// Whether a hooks document has every registration fable makes for Codex, by
/// (event, matcher, binary); returns the missing ones as `event matcher → binary`.
pub fn missing_registrations(doc: &Value, own: &Ownership) -> Vec<String> {
    let mut missing = Vec::new();
    for (event, matcher, binary, _) in codex_hooks::TABLE {
        let found = doc["hooks"][event].as_array().into_iter().flatten().any(|g| {
            g.get("matcher").and_then(Value::as_str) == matcher
                && g["hooks"].as_array().into_iter().flatten().any(|h| {
                    h["command"]
                        .as_str()
                        .is_some_and(|c| own.owns(c) && registrations::our_binary(c) == Some(binary))
                })
        });
        if !found {
            missing.push(format!("{event} {} → {binary}", matcher.unwrap_or("(all)")));
        }
    }
    missing
}
