//! The hook recorder: a command hook registered in the session's user settings
//! (`home/.claude/settings.json`, which the CLI merges with the project's) for each event
//! asked, storing exactly what the hook read on stdin as `out/hooks/NNN-<Event>.json` with
//! `NNN-<Event>.meta.json` (`seq`, `event`), which [`summary`](super::summary) collects in
//! order. It answers nothing (exit 0, no output), so it never changes the session; it runs
//! beside the project's own hooks, which see the same payload.

use serde_json::{json, Value};
use std::path::Path;

/// The recorder itself: bash, so the harness needs nothing built for it. `flock` orders
/// hooks that the CLI runs in parallel.
const RECORDER: &str = r#"#!/usr/bin/env bash
# Stores this hook's stdin for the harness (src/harness/record.rs); answers nothing.
event="$1"; dir="$HARNESS_OUT/hooks"
payload="$(cat)"
exec 9>"$dir/.lock"; flock 9
n=$(( $(cat "$dir/.seq" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$dir/.seq"
exec 9>&-
f="$dir/$(printf '%03d' "$n")-$event"
printf '%s' "$payload" > "$f.json"
printf '{"seq": %d, "event": "%s"}' "$n" "$event" > "$f.meta.json"
exit 0
"#;

/// The user settings registering the recorder for `events` (every tool for tool events).
pub fn user_settings(recorder: &Path, events: &[String]) -> Value {
    let cmd = |e: &str| format!("bash {} {e}", shell_words::quote(&recorder.to_string_lossy()));
    let hooks: serde_json::Map<String, Value> = events
        .iter()
        .map(|e| {
            let entry = json!({"hooks": [{"type": "command", "command": cmd(e)}]});
            let entry = if e.contains("ToolUse") {
                json!({"matcher": "*", "hooks": entry["hooks"]})
            } else {
                entry
            };
            (e.clone(), json!([entry]))
        })
        .collect();
    json!({"hooks": hooks})
}

/// Writes the recorder to `out/record-hook.sh` and registers it in `home`'s user settings
/// (merged into any there).
pub fn install(out: &Path, home: &Path, events: &[String]) -> std::io::Result<()> {
    install_into(out, &home.join(".claude/settings.json"), events)
}

/// [`install`] into any file with a top-level `"hooks"` object of Claude Code's shape:
/// Codex's `$CODEX_HOME/hooks.json` is one (its `*` matcher fires for every tool too).
pub fn install_into(out: &Path, path: &Path, events: &[String]) -> std::io::Result<()> {
    let recorder = out.join("record-hook.sh");
    std::fs::write(&recorder, RECORDER)?;
    let mut settings: Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(json!({}));
    let ours = user_settings(&recorder, events);
    for (event, entries) in ours["hooks"].as_object().into_iter().flatten() {
        let list = &mut settings["hooks"][event];
        let mut all = list.as_array().cloned().unwrap_or_default();
        let fresh: Vec<Value> = entries
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| !all.contains(e))
            .cloned()
            .collect();
        all.extend(fresh);
        *list = Value::Array(all);
    }
    std::fs::write(path, serde_json::to_string_pretty(&settings).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorder_stores_payloads_in_order_and_installs_once() {
        let out = tempfile::tempdir().unwrap();
        let home = out.path().join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(out.path().join("hooks")).unwrap();
        let events = vec!["Stop".to_string(), "PostToolUse".to_string()];
        install(out.path(), &home, &events).unwrap();
        install(out.path(), &home, &events).unwrap();
        let s: Value =
            serde_json::from_str(&std::fs::read_to_string(home.join(".claude/settings.json")).unwrap()).unwrap();
        assert_eq!(s["hooks"]["Stop"].as_array().unwrap().len(), 1, "{s}");
        assert_eq!(s["hooks"]["PostToolUse"][0]["matcher"], "*");
        for payload in [r#"{"a":1}"#, r#"{"b":2}"#] {
            let mut c = std::process::Command::new("bash")
                .arg(out.path().join("record-hook.sh"))
                .arg("Stop")
                .env("HARNESS_OUT", out.path())
                .stdin(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            c.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
            assert!(c.wait().unwrap().success());
        }
        let second = std::fs::read_to_string(out.path().join("hooks/002-Stop.json")).unwrap();
        assert_eq!(second, r#"{"b":2}"#);
        let meta = std::fs::read_to_string(out.path().join("hooks/002-Stop.meta.json")).unwrap();
        assert!(meta.contains(r#""seq": 2"#), "{meta}");
    }
}
