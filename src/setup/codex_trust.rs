//! Codex hook trust: the hashes Codex pins each hook to, and writing them into the
//! user's `config.toml` when the user asks (`fable install --host codex --trust`).
//!
//! Codex 0.171 runs a non-managed hook only when `$CODEX_HOME/config.toml` has
//! `[hooks.state."<key>"] trusted_hash = "<current hash>"`, and skips it **silently**
//! otherwise (docs codex-hooks.md §2). The key is `<real path of the hooks file>:
//! <event label>:<group index>:<handler index>` (`pre_tool_use`, `stop`, …) and the hash
//! is `sha256:` + hex sha256 of the key-sorted compact JSON
//! `{"event_name","matcher"?,"hooks":[{"type","command","timeout","async","statusMessage"?}]}`
//! (no matcher for Stop and UserPromptSubmit, whose matcher Codex ignores). A project's
//! `.codex/` loads only when the project is trusted too
//! (`[projects."<abs path>"] trust_level = "trusted"`).
//!
//! `config.toml` is the user's file: it is edited with `toml_edit`, which keeps every
//! other table, comment and layout as it was, after a backup beside it.

use crate::error::{Error, Result};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Codex's event labels (the snake_case names in trust keys and hashes).
pub const EVENT_LABELS: [(&str, &str); 11] = [
    ("PreToolUse", "pre_tool_use"),
    ("PermissionRequest", "permission_request"),
    ("PostToolUse", "post_tool_use"),
    ("PreCompact", "pre_compact"),
    ("PostCompact", "post_compact"),
    ("SessionStart", "session_start"),
    ("SessionEnd", "session_end"),
    ("UserPromptSubmit", "user_prompt_submit"),
    ("SubagentStart", "subagent_start"),
    ("SubagentStop", "subagent_stop"),
    ("Stop", "stop"),
];

/// Events whose matcher Codex ignores and does not hash.
const NO_MATCHER: [&str; 2] = ["UserPromptSubmit", "Stop"];

pub fn event_label(event: &str) -> Option<&'static str> {
    EVENT_LABELS.iter().find(|(e, _)| *e == event).map(|(_, l)| *l)
}

/// JSON with every object's keys sorted and no spaces (Python's
/// `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`).
pub fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let sorted: BTreeMap<&String, &Value> = m.iter().collect();
            let parts: Vec<String> = sorted
                .iter()
                .map(|(k, v)| format!("{}:{}", Value::String((*k).clone()), canonical(v)))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(canonical).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// The hash Codex pins one command handler of a group to.
pub fn handler_hash(event: &str, matcher: Option<&str>, handler: &Value) -> Option<String> {
    let label = event_label(event)?;
    let command = handler.get("command")?.as_str()?;
    let timeout = handler
        .get("timeout")
        .or_else(|| handler.get("timeoutSec"))
        .and_then(Value::as_u64)
        .filter(|t| *t > 0)
        .unwrap_or(600)
        .max(1);
    let mut h = serde_json::json!({"type": "command", "command": command, "timeout": timeout,
        "async": handler.get("async").and_then(Value::as_bool).unwrap_or(false)});
    if let Some(s) = handler.get("statusMessage").filter(|s| !s.is_null()) {
        h["statusMessage"] = s.clone();
    }
    let mut ident = serde_json::json!({"event_name": label, "hooks": [h]});
    if let Some(m) = matcher.filter(|_| !NO_MATCHER.contains(&event)) {
        ident["matcher"] = Value::String(m.to_string());
    }
    let digest = Sha256::digest(canonical(&ident).as_bytes());
    Some(format!(
        "sha256:{}",
        digest.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}

/// One command handler of a hooks file, as Codex's trust sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookTrust {
    pub key: String,
    pub hash: String,
    pub event: String,
    pub command: String,
}

/// Every command handler of a hooks document at `file` (its real path), with its key and
/// current hash, in file order; `keep` picks which commands (fable's own).
pub fn hooks_in(file: &Path, doc: &Value, keep: impl Fn(&str) -> bool) -> Vec<HookTrust> {
    let mut out = Vec::new();
    let Some(events) = doc.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in events {
        let Some(label) = event_label(event) else { continue };
        for (gi, g) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = g.get("matcher").and_then(Value::as_str);
            for (hi, h) in g
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if h.get("type").and_then(Value::as_str).unwrap_or("command") != "command" {
                    continue;
                }
                let Some(command) = h.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if !keep(command) {
                    continue;
                }
                if let Some(hash) = handler_hash(event, matcher, h) {
                    out.push(HookTrust {
                        key: format!("{}:{label}:{gi}:{hi}", file.display()),
                        hash,
                        event: event.clone(),
                        command: command.to_string(),
                    });
                }
            }
        }
    }
    out
}

/// `$CODEX_HOME`, else `~/.codex`.
pub fn codex_home(codex_home: Option<std::ffi::OsString>, home: Option<std::ffi::OsString>) -> Option<PathBuf> {
    match codex_home.filter(|s| !s.is_empty()) {
        Some(h) => Some(PathBuf::from(h)),
        None => home.filter(|s| !s.is_empty()).map(|h| PathBuf::from(h).join(".codex")),
    }
}

/// The key a hooks file's handlers are trusted under: its real path (Codex resolves it).
pub fn key_path(file: &Path) -> PathBuf {
    std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf())
}

fn parse_config(text: &str, path: &Path) -> Result<toml_edit::DocumentMut> {
    text.parse::<toml_edit::DocumentMut>().map_err(|e| {
        Error::msg(format!(
            "{}: not valid TOML ({}); fix it, then run again; nothing was changed",
            path.display(),
            e.to_string().lines().next().unwrap_or("")
        ))
    })
}

/// The trusted hashes recorded in a `config.toml` text, by key.
pub fn trusted_hashes(config_text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(doc) = config_text.parse::<toml_edit::DocumentMut>() else {
        return out;
    };
    let Some(state) = doc
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(|s| s.as_table_like())
    else {
        return out;
    };
    for (k, v) in state.iter() {
        if let Some(h) = v.get("trusted_hash").and_then(|h| h.as_str()) {
            out.insert(k.to_string(), h.to_string());
        }
    }
    out
}

/// Whether a `config.toml` text trusts the project at `root`.
pub fn project_trusted(config_text: &str, root: &Path) -> bool {
    let Ok(doc) = config_text.parse::<toml_edit::DocumentMut>() else {
        return false;
    };
    doc.get("projects")
        .and_then(|p| p.get(root.to_string_lossy().as_ref()))
        .and_then(|t| t.get("trust_level"))
        .and_then(|l| l.as_str())
        == Some("trusted")
}

/// The `config.toml` text with `hooks` trusted (each key's `trusted_hash` set) and, when
/// given, the project trusted; `remove` keys' state tables taken out. Every other line
/// stays as it was.
pub fn edit_config(
    text: &str,
    path: &Path,
    trust: &[HookTrust],
    remove: &[String],
    project: Option<&Path>,
) -> Result<String> {
    let mut doc = parse_config(text, path)?;
    let hooks = doc.entry("hooks").or_insert_with(implicit_table);
    let Some(hooks) = hooks.as_table_like_mut() else {
        return Err(Error::msg(format!(
            "{}: `hooks` is not a table; nothing was changed",
            path.display()
        )));
    };
    let state = hooks.entry("state").or_insert(implicit_table());
    let Some(state) = state.as_table_like_mut() else {
        return Err(Error::msg(format!(
            "{}: `hooks.state` is not a table; nothing was changed",
            path.display()
        )));
    };
    for k in remove {
        state.remove(k);
    }
    for t in trust {
        let mut table = toml_edit::Table::new();
        table.insert("trusted_hash", toml_edit::value(t.hash.clone()));
        state.insert(&t.key, toml_edit::Item::Table(table));
    }
    if let Some(root) = project {
        let projects = doc.entry("projects").or_insert_with(implicit_table);
        if let Some(projects) = projects.as_table_like_mut() {
            let entry = projects.entry(&root.to_string_lossy()).or_insert(toml_edit::table());
            if let Some(t) = entry.as_table_like_mut() {
                t.insert("trust_level", toml_edit::value("trusted"));
            }
        }
    }
    Ok(doc.to_string())
}

fn implicit_table() -> toml_edit::Item {
    let mut t = toml_edit::Table::new();
    t.set_implicit(true);
    toml_edit::Item::Table(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Pinned with `trust_hooks.py --method compute` (the harness's recomputation, which
    /// matched Codex's own `hooks/list` for 11 of 12 hooks): see tests/codex_install.rs.
    #[test]
    fn canonical_json_sorts_keys_without_spaces() {
        let v = json!({"hooks": [{"type": "command", "command": "a b", "timeout": 10, "async": false}], "event_name": "stop"});
        assert_eq!(
            canonical(&v),
            r#"{"event_name":"stop","hooks":[{"async":false,"command":"a b","timeout":10,"type":"command"}]}"#
        );
        // Stop's matcher is not hashed; PreToolUse's is.
        let h = json!({"type": "command", "command": "x", "timeout": 10});
        assert_eq!(handler_hash("Stop", Some("m"), &h), handler_hash("Stop", None, &h));
        assert_ne!(
            handler_hash("PreToolUse", Some("Bash"), &h),
            handler_hash("PreToolUse", None, &h)
        );
    }

    /// Vectors computed once with the harness's `trust_hooks.py --method compute` for a
    /// `hooks.json` holding these three handlers (its hashes matched Codex 0.171's own
    /// `hooks/list` for every hook without a SessionEnd matcher).
    #[test]
    fn hashes_match_the_pinned_vectors() {
        let doc = json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "'/opt/fable/bin/fable-log-guard' --host codex # fable", "timeout": 10}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "'/opt/fable/bin/fable-close-guard' --host codex # fable", "timeout": 180}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "'/opt/fable/bin/fable-learn' --host codex # fable", "timeout": 3}]}]}});
        let got: Vec<(String, String)> = hooks_in(Path::new("/tmp/cxh/home/.codex/hooks.json"), &doc, |_| true)
            .into_iter()
            .map(|t| (t.key, t.hash))
            .collect();
        let want = [
            (
                "/tmp/cxh/home/.codex/hooks.json:pre_tool_use:0:0",
                "sha256:3db241253a05609e6e8f6d7b06933d9d38042e46c9cc0a099f7c44ea79e1b943",
            ),
            (
                "/tmp/cxh/home/.codex/hooks.json:stop:0:0",
                "sha256:c0968510e3f63772a5775fb9bf18ec801151f856d8684eb6efe0652c0fd48539",
            ),
            (
                "/tmp/cxh/home/.codex/hooks.json:session_end:0:0",
                "sha256:a950e2cb483ec9b4ccfc855d75735dc281e06b92526c260d708256f850d8f803",
            ),
        ];
        assert_eq!(got, want.map(|(k, h)| (k.to_string(), h.to_string())));
    }

    #[test]
    fn config_edits_keep_the_users_content() {
        let text = "# my settings\nmodel = \"o3\"\n\n[projects.\"/p\"]\ntrust_level = \"untrusted\"\n";
        let t = HookTrust {
            key: "/h/.codex/hooks.json:stop:0:0".into(),
            hash: "sha256:ab".into(),
            event: "Stop".into(),
            command: "x".into(),
        };
        let out = edit_config(
            text,
            Path::new("c.toml"),
            std::slice::from_ref(&t),
            &[],
            Some(Path::new("/q")),
        )
        .unwrap();
        assert!(out.starts_with("# my settings\nmodel = \"o3\"\n"), "{out}");
        assert!(
            out.contains("[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:ab\""),
            "{out}"
        );
        assert_eq!(trusted_hashes(&out).get(&t.key).map(String::as_str), Some("sha256:ab"));
        assert!(project_trusted(&out, Path::new("/q")));
        assert!(!project_trusted(&out, Path::new("/p")));
        let back = edit_config(&out, Path::new("c.toml"), &[], std::slice::from_ref(&t.key), None).unwrap();
        assert!(trusted_hashes(&back).is_empty());
        assert!(back.contains("model = \"o3\""));
        assert!(edit_config("not = [toml", Path::new("c.toml"), &[], &[], None).is_err());
    }
}
