//! `fable uninstall --purge`: remove what fable keeps about this user outside projects.
//!
//! Two places: the user state folder `${XDG_STATE_HOME:-~/.local/state}/fable/` (session
//! model cache, log markers, chain heads, the sealing `key`, install records, backups),
//! removed whole — its name is fable's own; and the trust store in
//! `${FABLE_CONFIG_DIR:-${XDG_CONFIG_HOME:-~/.config}/fable}/` ([`crate::setup::trust_store`]),
//! where only `trusted.json` is removed and then the folder if that emptied it, because
//! `FABLE_CONFIG_DIR` may name a folder that holds other things.
//!
//! Above them, only folders fable's install record says fable created
//! ([`Installs::created_user_dirs`]: `~/.local/state`, `~/.local` when they did not exist
//! before) go, and only when the purge left them empty; `~/.config` and any folder fable
//! has no record of creating stay, empty or not.
//!
//! The plan is printed before anything is removed, and a dry run stops there. Removing the
//! key is not reversible: records sealed with it can no longer be verified, so the plan
//! says that, and a purge goes ahead only when the user says so: `y` at the terminal, or
//! `--yes` where there is none ([`ask`]).

use crate::error::{IoContext, Result};
use crate::setup::install_state::Installs;
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};

/// What a purge removes.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The user state folder, when it exists (removed with everything in it).
    pub state_dir: Option<PathBuf>,
    /// Its top-level entries, for the listing.
    pub state_entries: Vec<PathBuf>,
    /// The sealing key, when present.
    pub key: Option<PathBuf>,
    /// The trust store file, when present.
    pub trust_file: Option<PathBuf>,
    /// The config folder, removed after the trust file only if nothing else is in it.
    pub config_dir: Option<PathBuf>,
    /// Other settings files the install record says still have fable's hooks.
    pub still_installed: Vec<String>,
    /// Folders above the state folder that fable created (by its install record), innermost
    /// first: removed when the purge leaves them empty.
    pub created_parents: Vec<PathBuf>,
}

/// The user's answer to "remove these?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    /// `--yes`, or `y` typed at the terminal.
    Given,
    /// Anything else typed at the terminal (Enter included: the default is no).
    Declined,
    /// No terminal to ask on and no `--yes`.
    NoTerminal,
}

/// Asks on the terminal (stdin) unless `yes`; the question goes to stderr so stdout stays
/// the listing.
pub fn ask(yes: bool) -> Consent {
    use std::io::{BufRead, IsTerminal, Write};
    if yes {
        return Consent::Given;
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Consent::NoTerminal;
    }
    eprint!("fable: remove these? This cannot be undone. [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if stdin.lock().read_line(&mut line).is_err() {
        return Consent::Declined;
    }
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Consent::Given,
        _ => Consent::Declined,
    }
}

/// The refusal when there is no terminal to ask on: what to pass instead.
pub const NEEDS_YES: &str = "--purge deletes fable's user state, the sealing key included, and there is no terminal \
     to ask on: run again with --yes to confirm (or with --dry-run to see the list); nothing was changed";

/// Looks at what exists; removes nothing. `uninstalled` is the settings file this run just
/// cleaned (not reported as still installed).
pub fn plan(get: impl Fn(&str) -> Option<String> + Clone, state: &Installs, uninstalled: &Path) -> Plan {
    let mut p = Plan::default();
    if let Some(dir) = crate::session_state::user_state_dir(get.clone()) {
        if dir.symlink_metadata().is_ok() {
            let mut entries: Vec<PathBuf> = fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .collect();
            entries.sort();
            p.state_entries = entries;
            p.state_dir = Some(dir);
        }
    }
    // `crate::evidence::seal::key_path`'s place; named here so set-up keeps using only the root.
    p.key = crate::session_state::user_state_dir(get.clone())
        .map(|d| d.join("key"))
        .filter(|k| k.symlink_metadata().is_ok());
    p.trust_file = crate::setup::trust_store::store_path(get.clone()).filter(|t| t.symlink_metadata().is_ok());
    p.config_dir = crate::setup::trust_store::config_dir(get).filter(|d| d.is_dir());
    let done = Installs::key(uninstalled);
    p.still_installed = state.installs.keys().filter(|k| **k != done).cloned().collect();
    p.created_parents = state
        .created_user_dirs
        .iter()
        .rev()
        .filter(|d| Some(d.as_path()) != p.state_dir.as_deref() && d.is_dir())
        .filter(|d| p.state_dir.as_ref().is_some_and(|s| s.starts_with(d)))
        .cloned()
        .collect();
    p
}

impl Plan {
    /// Every path the purge removes, in the order it removes them.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.state_dir.iter().chain(self.trust_file.iter()).cloned().collect()
    }

    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if let Some(k) = &self.key {
            w.push(format!(
                "--purge removes the sealing key {}: every evidence record sealed with it becomes \
                 unverifiable (`fable evidence verify` cannot check it, and it no longer corroborates a \
                 citation or qualifies for replay). Copy the key elsewhere first if you may need them",
                k.display()
            ));
        }
        for s in &self.still_installed {
            w.push(format!(
                "fable's hooks are still registered in {s}; they keep running and start a new state (and \
                 key) on their next use. Run `fable uninstall` for that settings file to remove them too"
            ));
        }
        w
    }

    /// The listing printed before anything is removed (on stdout).
    pub fn print(&self, dry_run: bool) {
        for l in self.lines(dry_run) {
            crate::say!("{l}");
        }
    }

    /// The listing, line by line: every path the purge removes.
    pub fn lines(&self, dry_run: bool) -> Vec<String> {
        if self.paths().is_empty() {
            return vec!["fable: purge: no user state or trust store to remove".to_string()];
        }
        let verb = if dry_run { "would remove" } else { "removes" };
        let mut out = vec![format!("fable: purge {verb}:")];
        if let Some(d) = &self.state_dir {
            out.push(format!(
                "  {}/ (fable's user state, with everything in it:)",
                d.display()
            ));
            for e in &self.state_entries {
                out.push(format!("    {}", describe(e, self.key.as_deref() == Some(e.as_path()))));
            }
        }
        if let Some(t) = &self.trust_file {
            out.push(format!("  {} (trusted projects)", t.display()));
        }
        if let Some(c) = &self.config_dir {
            out.push(format!("  {}/ (only if nothing else is left in it)", c.display()));
        }
        for d in &self.created_parents {
            out.push(format!(
                "  {}/ (fable created it; only if nothing else is left in it)",
                d.display()
            ));
        }
        out
    }

    /// Removes the planned paths; returns what is gone.
    pub fn execute(&self) -> Result<Vec<PathBuf>> {
        let mut gone = Vec::new();
        if let Some(d) = &self.state_dir {
            let is_link = d.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink());
            if is_link {
                // Remove the link, not what it points to: that folder is not named fable's.
                fs::remove_file(d).at(d)?;
            } else {
                fs::remove_dir_all(d).at(d)?;
            }
            gone.push(d.clone());
        }
        if let Some(t) = &self.trust_file {
            if t.symlink_metadata().is_ok() {
                fs::remove_file(t).at(t)?;
                gone.push(t.clone());
            }
        }
        if let Some(c) = &self.config_dir {
            if fs::remove_dir(c).is_ok() {
                gone.push(c.clone());
            }
        }
        // Only succeeds when empty: anything else the user keeps there keeps the folder.
        for d in &self.created_parents {
            if fs::remove_dir(d).is_ok() {
                gone.push(d.clone());
            }
        }
        Ok(gone)
    }

    /// The `--json` form: what was planned, and what was removed (`None` in a dry run).
    pub fn to_json(&self, removed: Option<&[PathBuf]>) -> Value {
        json!({
            "paths": self.paths(),
            "state_dir": self.state_dir,
            "state_entries": self.state_entries,
            "key": self.key,
            "trust_file": self.trust_file,
            "config_dir": self.config_dir,
            "still_installed": self.still_installed,
            "created_parents": self.created_parents,
            "removed": removed,
        })
    }
}

/// One entry of the state folder as listed: a folder with how many files it holds, the
/// key with what losing it means.
fn describe(e: &Path, is_key: bool) -> String {
    if is_key {
        return format!(
            "{} (the sealing key: evidence sealed with it can no longer be verified)",
            e.display()
        );
    }
    if e.symlink_metadata().is_ok_and(|m| m.is_dir()) {
        let n = fs::read_dir(e).map(|d| d.count()).unwrap_or(0);
        return format!("{}/ ({n} entr{})", e.display(), if n == 1 { "y" } else { "ies" });
    }
    e.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_names_state_key_and_trust_file_and_execute_removes_only_those() {
        let t = tempfile::tempdir().unwrap();
        let state = t.path().join("state");
        let cfg = t.path().join("cfg");
        fs::create_dir_all(state.join("fable/sessions")).unwrap();
        fs::write(state.join("fable/key"), [0u8; 32]).unwrap();
        fs::create_dir_all(&cfg).unwrap();
        fs::write(cfg.join("trusted.json"), "{}").unwrap();
        fs::write(cfg.join("mine.txt"), "user's").unwrap();
        let (s, c) = (state.to_string_lossy().into_owned(), cfg.to_string_lossy().into_owned());
        let get = move |k: &str| match k {
            "XDG_STATE_HOME" => Some(s.clone()),
            "FABLE_CONFIG_DIR" => Some(c.clone()),
            _ => None,
        };
        let p = plan(get, &Installs::default(), Path::new("/x"));
        assert_eq!(p.paths(), [state.join("fable"), cfg.join("trusted.json")]);
        assert_eq!(p.key, Some(state.join("fable/key")));
        assert!(p.warnings()[0].contains("unverifiable"));
        p.execute().unwrap();
        assert!(!state.join("fable").exists());
        assert!(!cfg.join("trusted.json").exists());
        assert!(cfg.join("mine.txt").exists(), "a folder with other files stays");
    }

    #[test]
    fn only_recorded_parents_that_the_purge_emptied_go() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let state = home.join(".local/state/fable");
        fs::create_dir_all(&state).unwrap();
        fs::create_dir_all(home.join(".config")).unwrap();
        let h = home.to_string_lossy().into_owned();
        let get = move |k: &str| (k == "HOME").then(|| h.clone());
        let recorded = Installs {
            created_user_dirs: vec![home.join(".local/state"), state.clone()],
            ..Installs::default()
        };
        let p = plan(get.clone(), &recorded, Path::new("/x"));
        assert_eq!(p.created_parents, [home.join(".local/state")]);
        p.execute().unwrap();
        assert!(!home.join(".local/state").exists(), "fable created it and it is empty");
        assert!(home.join(".local").is_dir(), "not recorded: stays");
        assert!(home.join(".config").is_dir(), "never fable's");
        // Without a record nothing above the state folder goes.
        fs::create_dir_all(&state).unwrap();
        let p = plan(get, &Installs::default(), Path::new("/x"));
        assert!(p.created_parents.is_empty());
        p.execute().unwrap();
        assert!(home.join(".local/state").is_dir());
    }
}
