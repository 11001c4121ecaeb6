//! Where Claude Code loads fable as a plugin: the folders whose `hooks/hooks.json` runs
//! fable's hooks besides (or instead of) any settings file.
//!
//! Claude Code loads a plugin from `claude --plugin-dir DIR` (nothing on disk says so) or
//! from a marketplace install, recorded in `<config>/plugins/installed_plugins.json`
//! (`{"version":2,"plugins":{"fable@<marketplace>":[{"installPath":…}]}}`; version 1 kept
//! one object per plugin) and switched off by `"enabledPlugins": {"fable@…": false}` in
//! the settings. A fable plugin is a folder with `.claude-plugin/plugin.json` named
//! `fable`. Sources here, in order: the folders named on the command line (`--plugin-dir`,
//! the one way to tell the doctor and the installer about `claude --plugin-dir`),
//! `$CLAUDE_PLUGIN_ROOT` (set inside a plugin hook or a plugin's shell), the install
//! records, and a scan of `<config>/plugins/` (older layouts). A plugin folder is also
//! what `./install.sh` builds in, so [`exe_plugin_root`] tells the doctor when the running
//! `fable` itself sits in one (`<root>/target/release/fable`).

use serde_json::Value;
use std::path::{Path, PathBuf};

/// Whether `dir` holds a plugin named `fable`.
pub fn is_fable_plugin(dir: &Path) -> bool {
    std::fs::read(dir.join(".claude-plugin").join("plugin.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .is_some_and(|m| m["name"] == "fable")
}

/// fable plugin folders Claude Code loads here (see the module docs), each once.
pub fn roots(config: Option<&Path>, named: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let add = |p: PathBuf, out: &mut Vec<PathBuf>| {
        if is_fable_plugin(&p) && !out.iter().any(|o| crate::setup::portable::same_file(o, &p)) {
            out.push(p);
        }
    };
    for n in named {
        add(std::path::absolute(n).unwrap_or_else(|_| n.clone()), &mut out);
    }
    if let Some(r) = std::env::var_os("CLAUDE_PLUGIN_ROOT").filter(|r| !r.is_empty()) {
        add(PathBuf::from(r), &mut out);
    }
    let Some(config) = config else { return out };
    let disabled = disabled_plugins(&config.join("settings.json"));
    for p in installed(&config.join("plugins").join("installed_plugins.json"), &disabled) {
        add(p, &mut out);
    }
    for p in scan(&config.join("plugins")) {
        add(p, &mut out);
    }
    out
}

/// Plugin ids switched off in a settings file (`"enabledPlugins": {"id": false}`).
fn disabled_plugins(settings: &Path) -> Vec<String> {
    let doc = std::fs::read(settings)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .unwrap_or(Value::Null);
    doc["enabledPlugins"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(_, v)| **v == Value::Bool(false))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// `installPath`s of `installed_plugins.json` (version 1 or 2), minus disabled plugins.
fn installed(file: &Path, disabled: &[String]) -> Vec<PathBuf> {
    let doc = std::fs::read(file)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .unwrap_or(Value::Null);
    let mut out = Vec::new();
    for (id, v) in doc["plugins"].as_object().into_iter().flatten() {
        if disabled.contains(id) {
            continue;
        }
        let entries: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        for e in entries {
            if let Some(p) = e["installPath"].as_str().filter(|p| !p.is_empty()) {
                out.push(PathBuf::from(p));
            }
        }
    }
    out
}

/// fable plugin folders anywhere under `dir` (six levels deep at most).
fn scan(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo: Vec<(PathBuf, usize)> = vec![(dir.to_path_buf(), 0)];
    while let Some((dir, depth)) = todo.pop() {
        if is_fable_plugin(&dir) {
            out.push(dir);
            continue;
        }
        if depth >= 6 {
            continue;
        }
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && entry.file_name() != ".git" && entry.file_name() != "node_modules" {
                todo.push((entry.path(), depth + 1));
            }
        }
    }
    out
}

/// The fable plugin folder the running `fable` was built in, if any.
pub fn exe_plugin_root() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    let root = exe.parent()?.parent()?.parent()?;
    let built_there = exe.parent()?.ends_with("target/release") || exe.parent()?.ends_with("target/debug");
    (built_there && is_fable_plugin(root)).then(|| root.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin(dir: &Path) {
        std::fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
        std::fs::write(dir.join(".claude-plugin/plugin.json"), r#"{"name":"fable"}"#).unwrap();
    }

    #[test]
    fn marketplace_installs_are_found_unless_disabled() {
        let t = tempfile::tempdir().unwrap();
        let config = t.path().join("config");
        let src = t.path().join("src/fable");
        plugin(&src);
        std::fs::create_dir_all(config.join("plugins")).unwrap();
        let rec =
            serde_json::json!({"version": 2, "plugins": {"fable@local": [{"scope": "user", "installPath": src}]}});
        std::fs::write(config.join("plugins/installed_plugins.json"), rec.to_string()).unwrap();
        assert_eq!(roots(Some(&config), &[]), std::slice::from_ref(&src));
        std::fs::write(
            config.join("settings.json"),
            r#"{"enabledPlugins":{"fable@local":false}}"#,
        )
        .unwrap();
        assert!(roots(Some(&config), &[]).is_empty());
        // Named on the command line: found whatever the records say; a non-plugin is not.
        assert_eq!(
            roots(Some(&config), std::slice::from_ref(&src)),
            std::slice::from_ref(&src)
        );
        assert!(roots(None, &[t.path().to_path_buf()]).is_empty());
        // Version 1 records, and the cache layout found by the scan.
        let v1 = serde_json::json!({"plugins": {"fable@x": {"installPath": src}}});
        std::fs::write(config.join("plugins/installed_plugins.json"), v1.to_string()).unwrap();
        std::fs::remove_file(config.join("settings.json")).unwrap();
        assert_eq!(roots(Some(&config), &[]), [src]);
        let cached = config.join("plugins/cache/mkt/fable/0.1.0");
        plugin(&cached);
        assert_eq!(roots(Some(&config), &[]).len(), 2);
    }
}
