//! What fable registers with the OpenAI Codex CLI: the one table both
//! `fable install --host codex` and the Codex end-to-end harness use ([`codex_hooks`]).
//!
//! The same binaries as for Claude Code, each told its host on the command line
//! (`--host codex`, read by [`crate::host`]), with these differences (docs codex.md):
//! no PostToolUseFailure (Codex fires PostToolUse for failed commands too, so the fail
//! streak listens there); edits arrive as `apply_patch`; no spawn guard (Codex's
//! `spawn_agent` input was not observed); the log guard also judges `apply_patch` (each
//! file of the patch as a write); SessionEnd hooks are cut at 3 s by Codex, so
//! learning is registered with a 3 s timeout and runs on a 2 s budget (resumable: the
//! next SessionEnd or `fable learn` picks up from its cursor).
//!
//! Commands are absolute paths (Codex has no project-directory variable to build a
//! portable one from), shell-quoted, followed by the ownership marker `# fable`.

use crate::setup::registrations::{mark, Registration};
use serde_json::{json, Map, Value};
use std::path::Path;

/// The hosts `fable install|uninstall|doctor --host` know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum HostName {
    /// Claude Code (the default).
    #[default]
    Claude,
    /// OpenAI Codex CLI.
    Codex,
}

/// `--host` for `fable uninstall` and `fable doctor`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HostArg {
    /// The agent CLI: claude (Claude Code, the default) or codex (OpenAI Codex CLI).
    #[arg(long, value_enum, default_value_t)]
    pub host: HostName,
}

/// `--host` and `--trust` for `fable install`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InstallHostArgs {
    /// The agent CLI: claude (Claude Code, the default) or codex (OpenAI Codex CLI:
    /// `$CODEX_HOME/hooks.json`, or `<DIR>/.codex/hooks.json` with --project).
    #[arg(long, value_enum, default_value_t)]
    pub host: HostName,
    /// With --host codex: also trust the hooks (and, with --project, the project) in
    /// `$CODEX_HOME/config.toml`, as Codex's `/hooks` review would. Your explicit choice.
    #[arg(long)]
    pub trust: bool,
}

/// The registrations for Codex: (event, matcher, binary, timeout seconds), in file order.
pub const TABLE: [(&str, Option<&str>, &str, u64); 8] = [
    ("SessionStart", None, "fable-inject", 10),
    ("PreToolUse", Some("Bash|apply_patch"), "fable-log-guard", 10),
    ("PostToolUse", Some("Bash"), "fable-evidence", 10),
    ("PostToolUse", Some("apply_patch"), "fable-evidence", 10),
    ("PostToolUse", Some("Bash"), "fable-fail-streak", 10),
    ("Stop", None, "fable-close-guard", 180),
    ("SubagentStop", None, "fable-close-guard", 30),
    ("SessionEnd", None, "fable-learn", 3),
];

/// The table as [`Registration`]s.
pub fn registrations() -> Vec<Registration> {
    TABLE
        .iter()
        .map(|(event, matcher, binary, timeout)| Registration {
            event: event.to_string(),
            matcher: matcher.map(str::to_string),
            binary: binary.to_string(),
            timeout: *timeout,
        })
        .collect()
}

/// The command Codex runs for `binary` installed in `bin_dir`.
pub fn command_for(bin_dir: &Path, binary: &str) -> String {
    let path = bin_dir.join(binary);
    mark(&format!("{} --host codex", shell_words::quote(&path.to_string_lossy())))
}

/// The `hooks` object of a Codex `hooks.json` for binaries in `bin_dir`: one group per
/// registration, one command handler per group (so each handler's trust key,
/// `<file>:<event>:<group>:0`, is stable).
pub fn hooks_object(bin_dir: &Path) -> Map<String, Value> {
    let mut hooks = Map::new();
    for r in registrations() {
        let mut group = Map::new();
        if let Some(m) = &r.matcher {
            group.insert("matcher".into(), json!(m));
        }
        group.insert(
            "hooks".into(),
            json!([{"type": "command", "command": command_for(bin_dir, &r.binary), "timeout": r.timeout}]),
        );
        let list = hooks.entry(r.event.clone()).or_insert_with(|| json!([]));
        if let Some(a) = list.as_array_mut() {
            a.push(Value::Object(group));
        }
    }
    hooks
}

/// The whole Codex `hooks.json` value fable writes for binaries in `bin_dir`: what
/// `fable install --host codex` registers, for the harness to register the same.
pub fn codex_hooks(bin_dir: &Path) -> Value {
    json!({
        "description": "fable: evidence log, discipline guards and learned standing rules (Codex).",
        "hooks": Value::Object(hooks_object(bin_dir)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::registrations::{has_marker, our_binary};

    #[test]
    fn every_command_runs_our_binary_with_the_host_and_the_marker() {
        let v = codex_hooks(Path::new("/opt/my bin"));
        let post = v["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(post.len(), 3);
        assert_eq!(post[1]["matcher"], "apply_patch");
        let cmd = post[0]["hooks"][0]["command"].as_str().unwrap();
        assert_eq!(cmd, "'/opt/my bin/fable-evidence' --host codex # fable");
        assert_eq!(our_binary(cmd), Some("fable-evidence"));
        assert!(has_marker(cmd));
        assert!(v["hooks"]["Stop"][0].get("matcher").is_none());
        assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 3);
        assert!(v["hooks"].get("PostToolUseFailure").is_none());
    }
}
