//! Pure merge of fable's hook entries into a Claude Code settings document.
//!
//! A document goes in as a `serde_json::Value`, a new document and a [`Summary`] of what
//! changed come out; reading, backing up and writing files is `install.rs`'s job. Which
//! entries are ours is decided by an [`Ownership`] (the `# fable` marker fable writes, or a
//! folder fable installed to: see [`crate::setup::registrations`]), so everything else —
//! other events, foreign groups, a foreign hook sharing a group with ours, a third party's
//! binary that happens to share a fable name, other top-level keys and their order —
//! passes through untouched.
//!
//! Install is *prune, then add*: our entries are removed **once per event, across every
//! event** (also events fable no longer registers), and only then are our groups appended.
//! Pruning inside the add loop was the ancestor's PR #1 bug: the second PostToolUse/Bash
//! group removed the first one just added. Because each event keeps its place in the
//! object and our groups always go last, installing again yields the same bytes.

use crate::setup::registrations::{mark, Ownership};
use serde_json::{Map, Value};

/// One hook entry as fable writes it: only keys every Claude Code version knows
/// (`matcher` on the group; `type`, `command`, numeric `timeout` on the entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OurEntry {
    pub event: String,
    pub matcher: Option<String>,
    /// The full command line, already shell-quoted; written with the ownership marker
    /// appended ([`crate::setup::registrations::mark`]) when it lacks it.
    pub command: String,
    pub timeout: u64,
}

/// An entry of ours found in the document and removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    pub event: String,
    pub command: String,
}

/// What a merge changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Our entries removed (on install, before the current ones were added back).
    pub removed: Vec<Removed>,
    /// Entries added, in order, as written (marked).
    pub added: Vec<OurEntry>,
    /// Fable-named entries that are not fable's (no marker, not in a folder of fable's),
    /// left in place: reported so the user knows why they survived.
    pub left: Vec<Removed>,
    /// Events whose arrays our pruning emptied and that were dropped.
    pub dropped_events: Vec<String>,
    /// Whether the `hooks` key itself was dropped because we emptied it.
    pub dropped_hooks_key: bool,
}

/// Why a document cannot be merged safely; the caller adds the file name and advice.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

/// Parses a settings file's text. A file holding only whitespace counts as `{}`: it has no
/// content to lose, and Claude Code treats it as no settings.
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(text)
}

/// Checks the parts of the document the merge must walk: an object at the top, `hooks` an
/// object, each event an array. Anything deeper that looks odd is foreign and left alone.
pub fn check_shape(doc: &Value) -> Result<(), ShapeError> {
    let top = doc
        .as_object()
        .ok_or_else(|| ShapeError(format!("the top level is {}, not a JSON object", kind(doc))))?;
    let Some(hooks) = top.get("hooks") else {
        return Ok(());
    };
    let hooks = hooks
        .as_object()
        .ok_or_else(|| ShapeError(format!("\"hooks\" is {}, not an object of events", kind(hooks))))?;
    for (event, groups) in hooks {
        if !groups.is_array() {
            return Err(ShapeError(format!(
                "\"hooks.{event}\" is {}, not an array of hook groups",
                kind(groups)
            )));
        }
    }
    Ok(())
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// [`install_as`] knowing only the marker.
pub fn install(doc: Value, entries: &[OurEntry]) -> Result<(Value, Summary), ShapeError> {
    install_as(doc, entries, &Ownership::default())
}

/// [`uninstall_as`] knowing only the marker.
pub fn uninstall(doc: Value) -> Result<(Value, Summary), ShapeError> {
    uninstall_as(doc, &Ownership::default())
}

/// Replaces all of our entries with `entries`: prune everywhere once, then append.
pub fn install_as(mut doc: Value, entries: &[OurEntry], own: &Ownership) -> Result<(Value, Summary), ShapeError> {
    check_shape(&doc)?;
    let mut summary = Summary::default();
    let top = doc.as_object_mut().expect("checked: object");
    let had_hooks = top.contains_key("hooks");
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .expect("checked: hooks is an object");

    let emptied = prune(hooks, own, &mut summary);
    for e in entries {
        let e = &OurEntry {
            command: mark(&e.command),
            ..e.clone()
        };
        let groups = hooks
            .entry(e.event.clone())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("checked: events are arrays");
        groups.push(group_for(e));
        summary.added.push(e.clone());
    }
    // Drop only after adding, so an event we refill keeps its place (byte-identical re-install).
    drop_empty(hooks, &emptied, &mut summary);
    if hooks.is_empty() && (!had_hooks || !summary.removed.is_empty()) {
        top.shift_remove("hooks");
        summary.dropped_hooks_key = had_hooks;
    }
    Ok((doc, summary))
}

/// Removes all of our entries, then the groups, events and `hooks` key that this emptied.
pub fn uninstall_as(mut doc: Value, own: &Ownership) -> Result<(Value, Summary), ShapeError> {
    check_shape(&doc)?;
    let mut summary = Summary::default();
    let top = doc.as_object_mut().expect("checked: object");
    let Some(hooks) = top.get_mut("hooks").and_then(Value::as_object_mut) else {
        return Ok((doc, summary));
    };
    let emptied = prune(hooks, own, &mut summary);
    drop_empty(hooks, &emptied, &mut summary);
    if hooks.is_empty() && !summary.removed.is_empty() {
        top.shift_remove("hooks");
        summary.dropped_hooks_key = true;
    }
    Ok((doc, summary))
}

/// Whether the document has a `hooks.<event>` key (ours or not).
pub fn has_event(doc: &Value, event: &str) -> bool {
    doc.get("hooks").and_then(|h| h.get(event)).is_some()
}

/// Every hook command in the document for which `pred` holds, in document order.
pub fn commands_where(doc: &Value, pred: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let Some(events) = doc.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for groups in events.values().filter_map(Value::as_array) {
        for group in groups {
            for entry in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                if let Some(cmd) = entry.get("command").and_then(Value::as_str) {
                    if pred(cmd) {
                        out.push(cmd.to_string());
                    }
                }
            }
        }
    }
    out
}

/// The document as fable writes it: 2-space indent, key order kept, a final newline.
pub fn render(doc: &Value) -> String {
    let mut s = serde_json::to_string_pretty(doc).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}

/// Removes our entries from every event; drops groups that this emptied (a group that was
/// already empty is the user's business). Returns the events whose arrays it emptied.
fn prune(hooks: &mut Map<String, Value>, own: &Ownership, summary: &mut Summary) -> Vec<String> {
    let mut emptied = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else { continue };
        let before = groups.len();
        groups.retain_mut(|group| {
            let Some(entries) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let had = entries.len();
            entries.retain(|entry| match entry.get("command").and_then(Value::as_str) {
                Some(cmd) if own.owns(cmd) => {
                    summary.removed.push(Removed {
                        event: event.clone(),
                        command: cmd.to_string(),
                    });
                    false
                }
                Some(cmd) if own.is_namesake(cmd) => {
                    summary.left.push(Removed {
                        event: event.clone(),
                        command: cmd.to_string(),
                    });
                    true
                }
                _ => true,
            });
            !(had > 0 && entries.is_empty())
        });
        if before > 0 && groups.is_empty() {
            emptied.push(event.clone());
        }
    }
    emptied
}

fn drop_empty(hooks: &mut Map<String, Value>, emptied: &[String], summary: &mut Summary) {
    for event in emptied {
        if hooks.get(event).and_then(Value::as_array).is_some_and(Vec::is_empty) {
            hooks.shift_remove(event);
            summary.dropped_events.push(event.clone());
        }
    }
}

fn group_for(e: &OurEntry) -> Value {
    let mut entry = Map::new();
    entry.insert("type".into(), "command".into());
    entry.insert("command".into(), e.command.clone().into());
    entry.insert("timeout".into(), e.timeout.into());
    let mut group = Map::new();
    if let Some(m) = &e.matcher {
        group.insert("matcher".into(), m.clone().into());
    }
    group.insert("hooks".into(), Value::Array(vec![Value::Object(entry)]));
    Value::Object(group)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(event: &str, matcher: Option<&str>, bin: &str) -> OurEntry {
        OurEntry {
            event: event.into(),
            matcher: matcher.map(Into::into),
            command: format!("/opt/fable/{bin}"),
            timeout: 10,
        }
    }

    fn ours() -> Vec<OurEntry> {
        vec![
            entry("SessionStart", None, "fable-inject"),
            entry("PreToolUse", Some("Agent|Task|Workflow"), "fable-spawn-guard"),
            entry("PostToolUse", Some("Bash"), "fable-evidence"),
            entry("PostToolUse", Some("Bash"), "fable-fail-streak"),
            entry("Stop", None, "fable-close-guard"),
        ]
    }

    fn foreign() -> Value {
        json!({
            "permissions": {"allow": ["Bash(ls:*)"]},
            "hooks": {
                "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/bin/lint-hook"}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}]
            },
            "env": {"A": "1"}
        })
    }

    fn count_groups(doc: &Value, event: &str) -> usize {
        doc["hooks"][event].as_array().map_or(0, Vec::len)
    }

    #[test]
    fn install_adds_both_post_tool_use_groups() {
        let (doc, s) = install(json!({}), &ours()).unwrap();
        assert_eq!(count_groups(&doc, "PostToolUse"), 2);
        assert_eq!(
            doc["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
            "/opt/fable/fable-evidence # fable"
        );
        assert_eq!(
            doc["hooks"]["PostToolUse"][1]["hooks"][0]["command"],
            "/opt/fable/fable-fail-streak # fable"
        );
        assert_eq!(doc["hooks"]["PreToolUse"][0]["matcher"], "Agent|Task|Workflow");
        assert!(doc["hooks"]["Stop"][0].get("matcher").is_none());
        assert_eq!(s.added.len(), 5);
        assert!(s.removed.is_empty());
    }

    #[test]
    fn reinstall_is_identical_and_keeps_both_groups() {
        let (once, _) = install(foreign(), &ours()).unwrap();
        let (twice, s2) = install(once.clone(), &ours()).unwrap();
        let (thrice, _) = install(twice.clone(), &ours()).unwrap();
        assert_eq!(render(&once), render(&twice));
        assert_eq!(render(&once), render(&thrice));
        assert_eq!(s2.removed.len(), 5);
        // PR #1: foreign group + evidence + fail-streak.
        assert_eq!(count_groups(&thrice, "PostToolUse"), 3);
    }

    #[test]
    fn reinstall_keeps_our_events_in_place_before_later_foreign_ones() {
        let (mut doc, _) = install(json!({}), &ours()).unwrap();
        doc["hooks"]["UserPromptSubmit"] = json!([{"hooks": [{"type": "command", "command": "x"}]}]);
        let (again, _) = install(doc.clone(), &ours()).unwrap();
        assert_eq!(render(&again), render(&doc));
    }

    #[test]
    fn foreign_content_keeps_place_and_order() {
        let (doc, _) = install(foreign(), &ours()).unwrap();
        let keys: Vec<_> = doc.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["permissions", "hooks", "env"]);
        let events: Vec<_> = doc["hooks"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(events, ["PostToolUse", "Stop", "SessionStart", "PreToolUse"]);
        assert_eq!(
            doc["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
            "/usr/bin/lint-hook"
        );
        assert_eq!(doc["hooks"]["Stop"][0]["hooks"][0]["command"], "notify-send done");
        assert_eq!(
            doc["hooks"]["Stop"][1]["hooks"][0]["command"],
            "/opt/fable/fable-close-guard # fable"
        );
    }

    #[test]
    fn uninstall_restores_foreign_document() {
        let (installed, _) = install(foreign(), &ours()).unwrap();
        let (back, s) = uninstall(installed).unwrap();
        assert_eq!(render(&back), render(&foreign()));
        assert_eq!(s.removed.len(), 5);
        assert_eq!(s.dropped_events, ["SessionStart", "PreToolUse"]);
        assert!(!s.dropped_hooks_key);
    }

    #[test]
    fn uninstall_drops_hooks_key_it_emptied_only() {
        let (installed, _) = install(json!({"model": "x"}), &ours()).unwrap();
        let (back, s) = uninstall(installed).unwrap();
        assert_eq!(back, json!({"model": "x"}));
        assert!(s.dropped_hooks_key);
        // An empty hooks object the user wrote is not ours to remove.
        let (kept, s) = uninstall(json!({"hooks": {}})).unwrap();
        assert_eq!(kept, json!({"hooks": {}}));
        assert!(!s.dropped_hooks_key);
        let (kept, _) = uninstall(json!({"hooks": {"Stop": []}})).unwrap();
        assert_eq!(kept, json!({"hooks": {"Stop": []}}));
    }

    #[test]
    fn mixed_group_keeps_foreign_hook_in_place() {
        let doc = json!({"hooks": {"PostToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "/old/fable-evidence # fable"},
                {"type": "command", "command": "my-logger"}
            ]},
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}
        ]}});
        let (after, s) = install(doc, &ours()).unwrap();
        let post = after["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(
            post[0],
            json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "my-logger"}]})
        );
        assert_eq!(post[1]["matcher"], "Edit");
        assert_eq!(post.len(), 4);
        assert_eq!(
            s.removed,
            [Removed {
                event: "PostToolUse".into(),
                command: "/old/fable-evidence # fable".into()
            }]
        );
    }

    #[test]
    fn stale_entries_under_unregistered_events_are_pruned() {
        let doc = json!({"hooks": {
            "PreCompact": [{"hooks": [{"type": "command", "command": "'/old dir/fable-close-guard' # fable"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo fable-inject"}]}]
        }});
        let (after, s) = install(doc, &ours()).unwrap();
        assert!(!has_event(&after, "PreCompact"));
        assert_eq!(s.dropped_events, ["PreCompact"]);
        assert!(has_event(&after, "UserPromptSubmit"), "a mention is not ours");
    }

    #[test]
    fn a_namesake_outside_our_folders_is_left_and_reported() {
        let third = json!({"type": "command", "command": "/opt/other/fable-close-guard"});
        let doc = json!({"hooks": {"Stop": [{"hooks": [third.clone()]}]}});
        let (after, s) = install(doc.clone(), &ours()).unwrap();
        assert_eq!(after["hooks"]["Stop"][0]["hooks"][0], third);
        assert_eq!(s.left.len(), 1);
        assert!(s.removed.is_empty());
        let (back, s) = uninstall(after).unwrap();
        assert_eq!(render(&back), render(&doc));
        assert_eq!(s.left[0].command, "/opt/other/fable-close-guard");
        // The same entry in a folder fable installed to is fable's (written before the marker).
        let own = Ownership::with_dirs([std::path::PathBuf::from("/opt/other")]);
        let (gone, s) = uninstall_as(doc, &own).unwrap();
        assert!(!has_event(&gone, "Stop"));
        assert_eq!(s.removed.len(), 1);
    }

    #[test]
    fn install_with_no_entries_on_empty_doc_adds_no_hooks_key() {
        let (doc, _) = install(json!({"a": 1}), &[]).unwrap();
        assert_eq!(doc, json!({"a": 1}));
    }

    #[test]
    fn shape_errors_are_refused() {
        assert!(install(json!([1, 2]), &ours()).is_err());
        assert!(install(json!({"hooks": []}), &ours())
            .unwrap_err()
            .0
            .contains("\"hooks\""));
        assert!(uninstall(json!({"hooks": {"Stop": {}}}))
            .unwrap_err()
            .0
            .contains("hooks.Stop"));
        assert!(uninstall(json!("x")).is_err());
    }

    #[test]
    fn odd_foreign_groups_pass_through() {
        let doc = json!({"hooks": {"Stop": ["weird", {"no_hooks": true}, {"hooks": "x"}, {"hooks": []}]}});
        let (after, _) = install(doc.clone(), &[]).unwrap();
        assert_eq!(after, doc);
        let (after, _) = uninstall(doc.clone()).unwrap();
        assert_eq!(after, doc);
    }

    #[test]
    fn commands_where_walks_every_event() {
        let (doc, _) = install(foreign(), &ours()).unwrap();
        let all = commands_where(&doc, |_| true);
        assert_eq!(all.len(), 7);
        assert_eq!(commands_where(&doc, crate::setup::registrations::is_ours).len(), 5);
        assert!(commands_where(&json!({"hooks": {"Stop": [1, {"hooks": 2}]}}), |_| true).is_empty());
    }

    #[test]
    fn render_is_pretty_with_newline() {
        let text = render(&json!({"a": {"b": 1}, "ü": "ß"}));
        assert_eq!(text, "{\n  \"a\": {\n    \"b\": 1\n  },\n  \"ü\": \"ß\"\n}\n");
    }

    #[test]
    fn whitespace_only_file_is_an_empty_object() {
        assert_eq!(parse("  \n").unwrap(), json!({}));
        assert!(parse("{").is_err());
    }
}
