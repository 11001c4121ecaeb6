//! Which projects this machine's user trusts to run acceptance replay.
//!
//! Replay executes commands named in `.fable/LEDGER.md`, a file that travels with the
//! repository. Opt-in by a directory's presence (the ancestor's rule) would let a cloned
//! repository's committed ledger make the Stop hook execute anything. So the decision is
//! the user's and lives outside the repository: a list of canonical project roots in
//! `${FABLE_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/fable}/trusted.json`, written by
//! `fable trust` (file 0600, folder 0700, replaced atomically).

use crate::error::{Error, IoContext, Result};
use serde::{Deserialize, Serialize};
use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

const FILE: &str = "trusted.json";

/// The trust file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustFile {
    #[serde(default = "one")]
    pub v: u32,
    /// Canonical project roots.
    #[serde(default)]
    pub trusted: Vec<String>,
}

fn one() -> u32 {
    1
}

/// fable's user configuration folder, from the given variable lookup.
pub fn config_dir(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let nonempty = |k: &str| get(k).filter(|v| !v.is_empty());
    if let Some(d) = nonempty("FABLE_CONFIG_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(x) = nonempty("XDG_CONFIG_HOME").filter(|x| Path::new(x).is_absolute()) {
        return Some(Path::new(&x).join("fable"));
    }
    nonempty("HOME").map(|h| Path::new(&h).join(".config").join("fable"))
}

/// The trust file's path.
pub fn store_path(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    config_dir(get).map(|d| d.join(FILE))
}

/// Reads the trust file; a missing or unreadable file trusts nothing.
pub fn load(path: &Path) -> TrustFile {
    fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// A root as stored: canonical when it exists, so symlinks and `..` cannot alias it.
pub fn canonical(root: &Path) -> String {
    fs::canonicalize(root)
        .unwrap_or_else(|_| root.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// True when the user trusts the project rooted at `root`.
pub fn is_trusted(get: impl Fn(&str) -> Option<String>, root: &Path) -> bool {
    let Some(path) = store_path(get) else { return false };
    let Ok(real) = fs::canonicalize(root) else { return false };
    let real = real.to_string_lossy();
    load(&path).trusted.iter().any(|t| *t == real)
}

/// Writes the trust file atomically (temp file in the same folder, then rename).
pub fn save(path: &Path, tf: &TrustFile) -> Result<()> {
    let dir = path.parent().ok_or_else(|| Error::msg("trust file has no folder"))?;
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).at(dir)?;
    let mut body = serde_json::to_string_pretty(tf).map_err(|e| Error::msg(e.to_string()))?;
    body.push('\n');
    crate::atomic_file::write(path, body.as_bytes(), crate::atomic_file::Perms::Private, true)
}

/// `fable trust [--project DIR] | --remove [--project DIR] | --list`
#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    #[command(flatten)]
    pub project: crate::project_arg::ProjectArg,
    /// The old positional spelling of `--project` (hidden; kept for one release).
    #[arg(hide = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Stop trusting the project instead.
    #[arg(long, conflicts_with = "list")]
    pub remove: bool,
    /// List trusted projects.
    #[arg(long)]
    pub list: bool,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

/// The root to trust or untrust. Trusting needs a project (the `.fable/` root at or above
/// the folder): trust is about what a ledger may run. Untrusting only takes away, so it
/// also accepts a folder whose `.fable/` is gone, or that is gone itself.
fn root_for(a: &TrustArgs) -> Result<String> {
    let arg = a.project.or_legacy(a.dir.as_deref());
    if a.remove {
        if let Some(given) = &arg.project {
            if !given.exists() {
                return Ok(canonical(&std::path::absolute(given).unwrap_or_else(|_| given.clone())));
            }
        }
        let dir = arg.dir()?;
        return Ok(canonical(
            &crate::project::find_from(&dir).map(|p| p.root).unwrap_or(dir),
        ));
    }
    Ok(canonical(&arg.resolve()?.root))
}

pub fn run(a: &TrustArgs) -> Result<i32> {
    let get = |k: &str| std::env::var(k).ok();
    let path =
        store_path(get).ok_or_else(|| Error::msg("cannot locate the config folder: set HOME or FABLE_CONFIG_DIR"))?;
    let mut tf = load(&path);
    if a.list {
        if a.json {
            println!("{}", serde_json::json!({"file": path, "trusted": tf.trusted}));
        } else if tf.trusted.is_empty() {
            println!("no trusted projects ({})", path.display());
        } else {
            tf.trusted.iter().for_each(|t| println!("{t}"));
        }
        return Ok(0);
    }
    let root = root_for(a)?;
    let before = tf.trusted.len();
    if a.remove {
        tf.trusted.retain(|t| *t != root);
    } else if !tf.trusted.contains(&root) {
        tf.trusted.push(root.clone());
        tf.trusted.sort();
    }
    let changed = tf.trusted.len() != before;
    if changed {
        save(&path, &tf)?;
    }
    let action = if a.remove { "untrusted" } else { "trusted" };
    if a.json {
        println!(
            "{}",
            serde_json::json!({"project": root, "action": action, "changed": changed, "file": path})
        );
    } else {
        let note = if changed { "" } else { " (no change)" };
        println!("{action}: {root}{note}");
        if !a.remove {
            println!("acceptance replay (REPLAY: on) may now run commands cited in this project's ledger");
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_dir_precedence() {
        let get = |m: &'static [(&'static str, &'static str)]| {
            move |k: &str| m.iter().find(|(a, _)| *a == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(
            config_dir(get(&[("FABLE_CONFIG_DIR", "/c"), ("HOME", "/h")])),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(
            config_dir(get(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/fable"))
        );
        assert_eq!(
            config_dir(get(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.config/fable"))
        );
        assert_eq!(config_dir(get(&[])), None);
    }

    #[test]
    fn trust_round_trip() {
        let t = tempfile::tempdir().unwrap();
        let cfg = t.path().join("cfg");
        let proj = t.path().join("p q");
        fs::create_dir_all(&proj).unwrap();
        let c = cfg.to_string_lossy().into_owned();
        let get = move |k: &str| (k == "FABLE_CONFIG_DIR").then(|| c.clone());
        assert!(!is_trusted(get.clone(), &proj));
        let tf = TrustFile {
            v: 1,
            trusted: vec![canonical(&proj)],
        };
        save(&store_path(get.clone()).unwrap(), &tf).unwrap();
        assert!(is_trusted(get, &proj.join("..").join("p q")));
    }
}
