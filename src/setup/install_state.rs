//! What `fable install` did to each settings file, remembered in user state so that
//! `fable uninstall` can undo exactly that and no more.
//!
//! `${XDG_STATE_HOME:-~/.local/state}/fable/installs.json` (0600, folder 0700) maps each
//! settings path to a [`Record`]: the folders fable installed binaries to (entries written
//! before the `# fable` marker existed are recognised by those, see
//! [`crate::setup::registrations`]), whether the settings file and which folders did not
//! exist before fable's first install (so uninstall can remove a `{}` file and empty
//! folders it created, and nothing the user had), and the backups it left beside the file.
//!
//! The record lives outside every project on purpose: a repository must not be able to
//! tell `fable uninstall` that a file of the user's is fable's to delete. A missing or
//! unreadable record only makes uninstall more conservative (it removes fable's entries and
//! leaves files and folders in place).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const FILE: &str = "installs.json";

/// The whole state file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Installs {
    #[serde(default = "one")]
    pub v: u32,
    /// Settings path (as fable addressed it) → what fable did to it.
    #[serde(default)]
    pub installs: BTreeMap<String, Record>,
    /// Folders on the way to this state file that did not exist before fable first saved
    /// it (`~/.local`, `~/.local/state`, `~/.local/state/fable`), outermost first: `fable
    /// uninstall --purge` removes them when they are empty, and no folder fable did not
    /// create.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_user_dirs: Vec<PathBuf>,
}

fn one() -> u32 {
    1
}

/// What fable did to one settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    #[serde(default)]
    pub scope: String,
    /// Every folder fable registered binaries from for this file, oldest first.
    #[serde(default)]
    pub bin_dirs: Vec<PathBuf>,
    /// The settings file did not exist before fable wrote it.
    #[serde(default)]
    pub created_file: bool,
    /// Folders fable created on the way to the settings file and the skill, outermost first.
    #[serde(default)]
    pub created_dirs: Vec<PathBuf>,
    /// Backups fable wrote (beside the settings file, or in user state).
    #[serde(default)]
    pub backups: Vec<PathBuf>,
    /// SHA-256 (hex) of each hook binary as this install registered it, by path: `fable
    /// doctor` tells a binary overwritten since (a stop check silently switched off) from
    /// the one fable registered, and does not run it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub binaries: BTreeMap<PathBuf, String>,
}

/// SHA-256 of a file's bytes, in hex; `None` when it cannot be read.
pub fn sha256_file(p: &Path) -> Option<String> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut f = fs::File::open(p).ok()?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(_) => return None,
        }
    }
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// A recorded binary that is no longer the one recorded: why, in a few words.
pub fn binary_change(path: &Path, recorded: &str) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let m = match fs::metadata(path) {
        Ok(m) => m,
        Err(_) => return Some("missing (fable installed it)".to_string()),
    };
    if m.permissions().mode() & 0o111 == 0 {
        return Some("no longer executable (fable installed it executable)".to_string());
    }
    match sha256_file(path) {
        Some(h) if h == recorded => None,
        Some(_) => Some("changed since fable installed it (its SHA-256 differs from the recorded one)".to_string()),
        None => Some("unreadable".to_string()),
    }
}

/// The state file's path, when a state folder can be named.
pub fn path(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    crate::session_state::user_state_dir(get).map(|d| d.join(FILE))
}

/// The state file's path from this process's environment.
pub fn path_from_env() -> Option<PathBuf> {
    path(|k| std::env::var(k).ok())
}

/// Reads the state file; a missing or unreadable one records nothing.
pub fn load(path: &Path) -> Installs {
    fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Writes the state file atomically, private to the user. The folders this creates on the
/// way are added to [`Installs::created_user_dirs`] in the file written.
pub fn save(path: &Path, state: &Installs) -> Result<()> {
    let dir = path.parent().ok_or_else(|| Error::msg("state file has no folder"))?;
    let missing = missing_folders(dir);
    let mut state = std::borrow::Cow::Borrowed(state);
    if !missing.is_empty() {
        let st = state.to_mut();
        for d in &missing {
            push_unique(&mut st.created_user_dirs, d);
        }
        st.created_user_dirs.sort_by_key(|d| d.components().count());
    }
    crate::session_state::mkdir_private(dir)?;
    let mut body = serde_json::to_string_pretty(&*state).map_err(|e| Error::msg(e.to_string()))?;
    body.push('\n');
    crate::atomic_file::write(path, body.as_bytes(), crate::atomic_file::Perms::Private, true)
}

impl Installs {
    /// The record key of a settings path.
    pub fn key(settings: &Path) -> String {
        settings.to_string_lossy().into_owned()
    }

    pub fn get(&self, settings: &Path) -> Option<&Record> {
        self.installs.get(&Self::key(settings))
    }

    /// Every folder fable installed binaries to, for any settings file: a fable binary
    /// there is fable's wherever it is registered.
    pub fn all_bin_dirs(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for d in self.installs.values().flat_map(|r| r.bin_dirs.iter()) {
            if !out.contains(d) {
                out.push(d.clone());
            }
        }
        out
    }

    /// Folds one install into the record of `settings`: a file or folder counts as fable's
    /// when this install or an earlier recorded one created it.
    pub fn note_install(&mut self, settings: &Path, scope: &str, bin_dir: &Path, fresh: &Fresh, backup: Option<&Path>) {
        let r = self.installs.entry(Self::key(settings)).or_default();
        r.scope = scope.to_string();
        push_unique(&mut r.bin_dirs, bin_dir);
        r.created_file |= fresh.file;
        for d in &fresh.dirs {
            push_unique(&mut r.created_dirs, d);
        }
        r.created_dirs.sort_by_key(|d| d.components().count());
        if let Some(b) = backup {
            push_unique(&mut r.backups, b);
        }
    }

    /// Records the hash of each of `paths` (the hook binaries this install registered) for
    /// `settings`; a path that cannot be read is left out.
    pub fn note_binaries(&mut self, settings: &Path, paths: &[PathBuf]) {
        let r = self.installs.entry(Self::key(settings)).or_default();
        for p in paths {
            match sha256_file(p) {
                Some(h) => r.binaries.insert(p.clone(), h),
                None => r.binaries.remove(p),
            };
        }
    }

    /// The hash recorded for a hook binary by any install (the path as registered, or the
    /// same file under another name).
    pub fn recorded_hash(&self, path: &Path) -> Option<&str> {
        let all = || self.installs.values().flat_map(|r| r.binaries.iter());
        all()
            .find(|(p, _)| p.as_path() == path)
            .map(|(_, h)| h.as_str())
            .or_else(|| {
                let canon = path.canonicalize().ok()?;
                all()
                    .find(|(p, _)| p.canonicalize().ok().as_deref() == Some(canon.as_path()))
                    .map(|(_, h)| h.as_str())
            })
    }

    /// Forgets `settings` (after an uninstall); returns its record.
    pub fn forget(&mut self, settings: &Path) -> Option<Record> {
        self.installs.remove(&Self::key(settings))
    }
}

fn push_unique(v: &mut Vec<PathBuf>, p: &Path) {
    if !v.iter().any(|x| x == p) {
        v.push(p.to_path_buf());
    }
}

/// What did not exist before an install: the settings file, and the folders on the way
/// to it and to the skill.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fresh {
    pub file: bool,
    pub dirs: Vec<PathBuf>,
}

/// `dir` and the folders above it that do not exist, up to the first that does.
fn missing_folders(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut cur = Some(dir);
    while let Some(p) = cur {
        if p.as_os_str().is_empty() || p.symlink_metadata().is_ok() {
            break;
        }
        out.push(p.to_path_buf());
        cur = p.parent();
    }
    out
}

/// Looks, before anything is written, at what an install would create.
pub fn fresh_before_install(settings: &Path, skill: Option<&Path>) -> Fresh {
    let mut dirs: Vec<PathBuf> = Vec::new();
    // Up from the file while the folder is missing: those are the ones a write creates.
    let mut consider = |d: &Path| {
        for p in missing_folders(d) {
            push_unique(&mut dirs, &p);
        }
    };
    if let Some(p) = settings.parent() {
        consider(p);
    }
    if let Some(p) = skill.and_then(Path::parent) {
        consider(p);
    }
    dirs.sort_by_key(|d| d.components().count());
    Fresh {
        file: settings.symlink_metadata().is_err(),
        dirs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_lists_missing_folders_outermost_first() {
        let t = tempfile::tempdir().unwrap();
        let c = t.path().join(".claude");
        let f = fresh_before_install(&c.join("settings.json"), Some(&c.join("skills/fable/SKILL.md")));
        assert!(f.file);
        assert_eq!(f.dirs, [c.clone(), c.join("skills"), c.join("skills/fable")]);
        fs::create_dir_all(c.join("skills")).unwrap();
        fs::write(c.join("settings.json"), "{}").unwrap();
        let f = fresh_before_install(&c.join("settings.json"), Some(&c.join("skills/fable/SKILL.md")));
        assert!(!f.file);
        assert_eq!(f.dirs, [c.join("skills/fable")]);
    }

    #[test]
    fn records_accumulate_and_round_trip() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("state/installs.json");
        let s = Path::new("/p/.claude/settings.json");
        let mut st = load(&p);
        let fresh = Fresh {
            file: true,
            dirs: vec!["/p/.claude".into()],
        };
        st.note_install(s, "project", Path::new("/bin/a"), &fresh, None);
        st.note_install(
            s,
            "project",
            Path::new("/bin/b"),
            &Fresh::default(),
            Some(Path::new("/b")),
        );
        save(&p, &st).unwrap();
        let back = load(&p);
        let r = back.get(s).unwrap();
        assert!(
            r.created_file,
            "a later install does not forget that fable created the file"
        );
        assert_eq!(r.bin_dirs, [PathBuf::from("/bin/a"), PathBuf::from("/bin/b")]);
        assert_eq!(r.backups, [PathBuf::from("/b")]);
        assert_eq!(back.all_bin_dirs().len(), 2);
        assert_eq!(
            back.created_user_dirs,
            [t.path().join("state")],
            "the folder save created"
        );
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn binary_hashes_tell_a_changed_or_disabled_hook() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let bin = t.path().join("fable-close-guard");
        fs::write(&bin, b"real").unwrap();
        fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
        let mut st = Installs::default();
        st.note_binaries(Path::new("/s.json"), std::slice::from_ref(&bin));
        let h = st.recorded_hash(&bin).unwrap().to_string();
        assert_eq!(binary_change(&bin, &h), None);
        fs::set_permissions(&bin, fs::Permissions::from_mode(0o644)).unwrap();
        assert!(binary_change(&bin, &h).unwrap().contains("executable"));
        fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(&bin, b"#!/bin/sh\nexit 0\n").unwrap();
        assert!(binary_change(&bin, &h).unwrap().contains("changed"));
        fs::remove_file(&bin).unwrap();
        assert!(binary_change(&bin, &h).unwrap().contains("missing"));
        assert_eq!(st.recorded_hash(Path::new("/elsewhere")), None);
    }
}
