//! Hook registrations from `hooks/hooks.json`, and the marker that tells our entries apart.
//!
//! `hooks/hooks.json` is the single source of what fable registers: the Claude Code plugin
//! loads it as is, and `fable install` reads the same file (embedded at build time) and
//! rewrites each `${CLAUDE_PLUGIN_ROOT}/target/release/<binary>` command to the installed
//! binary's absolute path. Keeping one source means the plugin and the installer can never
//! drift apart (the ancestor's installer kept its own copy of the list, see ancestor.md §6.5).
//!
//! # Which entries are ours
//!
//! A hook entry in a settings file is fable's when the **program word** of its `command` —
//! the first word after shell-style splitting (`shell_words::split`, or a plain whitespace
//! split when the command is not valid shell) — has a base name that is one of
//! [`HOOK_BINARIES`]. The directory does not matter, so:
//!
//! - re-pointing to a new install directory replaces the old entries instead of adding a
//!   second copy, and a copy the user registered by hand (`/other/path/fable-evidence`) is
//!   replaced rather than duplicated;
//! - a foreign command that merely *mentions* a fable binary (`echo fable-evidence`,
//!   `my-wrapper /x/fable-learn`) is not ours and is never touched, unlike the ancestor's
//!   substring match on script names.
//!
//! The marker covers every binary fable has ever shipped, not only those in the current
//! `hooks.json`, so entries of a hook or event that a newer version stopped registering are
//! still cleaned up.

use std::path::Path;

/// `hooks/hooks.json`, embedded so an installed `fable` needs no source tree.
pub const HOOKS_JSON: &str = include_str!("../../hooks/hooks.json");

/// Every hook binary fable ships (or has shipped): the ownership marker.
pub const HOOK_BINARIES: [&str; 7] = [
    "fable-evidence",
    "fable-log-guard",
    "fable-fail-streak",
    "fable-close-guard",
    "fable-spawn-guard",
    "fable-inject",
    "fable-learn",
];

/// Hook scripts of the Python ancestor, fable-mode (ancestor.md §1.1). Its entries are not
/// ours to remove (they belong to another installer), but running both would log and gate
/// everything twice, so `fable install` points them out.
pub const ANCESTOR_SCRIPTS: [&str; 5] = [
    "fable_profile_inject.py",
    "fable_spawn_guard.py",
    "fable_fail_streak.py",
    "fable_evidence_log.py",
    "fable_close_guard.py",
];

/// Whether a command runs one of the ancestor's scripts (any word's base name is one).
pub fn is_ancestor(command: &str) -> bool {
    let words =
        shell_words::split(command).unwrap_or_else(|_| command.split_whitespace().map(str::to_string).collect());
    words.iter().any(|w| {
        Path::new(w)
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| ANCESTOR_SCRIPTS.contains(&n))
    })
}

/// One hook registration: run `binary` on `event` (for tools matching `matcher`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub event: String,
    /// `None` when the group has no matcher (Stop, SessionStart, SessionEnd).
    pub matcher: Option<String>,
    /// Base name of the hook binary, e.g. `fable-evidence`.
    pub binary: String,
    /// Seconds; always present so Claude Code's default (600 s, or 60 s on old versions) never applies.
    pub timeout: u64,
}

/// The registrations fable ships, parsed from the embedded `hooks/hooks.json`.
pub fn builtin() -> Result<Vec<Registration>, String> {
    parse(HOOKS_JSON)
}

/// Parses a plugin-format hooks file into registrations, in file order.
///
/// Strict on purpose: the file is ours, and a mistake in it should fail the build's tests,
/// not produce a half-registered install. Every entry must be a `command` hook whose program
/// is one of [`HOOK_BINARIES`] and that carries a positive integer `timeout`.
pub fn parse(json: &str) -> Result<Vec<Registration>, String> {
    let doc: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("hooks.json: invalid JSON: {e}"))?;
    let events = doc
        .get("hooks")
        .and_then(|h| h.as_object())
        .ok_or("hooks.json: no \"hooks\" object")?;
    let mut out = Vec::new();
    for (event, groups) in events {
        let groups = groups
            .as_array()
            .ok_or_else(|| format!("hooks.json: {event} is not an array"))?;
        for group in groups {
            let matcher = match group.get("matcher") {
                None => None,
                Some(m) => Some(
                    m.as_str()
                        .ok_or_else(|| format!("hooks.json: {event}: matcher is not a string"))?
                        .to_string(),
                ),
            };
            let hooks = group
                .get("hooks")
                .and_then(|h| h.as_array())
                .ok_or_else(|| format!("hooks.json: {event}: group without a \"hooks\" array"))?;
            for hook in hooks {
                if hook.get("type").and_then(|t| t.as_str()) != Some("command") {
                    return Err(format!("hooks.json: {event}: only \"command\" hooks are supported"));
                }
                let command = hook
                    .get("command")
                    .and_then(|c| c.as_str())
                    .ok_or_else(|| format!("hooks.json: {event}: hook without a command"))?;
                let binary = our_binary(command)
                    .ok_or_else(|| format!("hooks.json: {event}: {command:?} does not run a fable hook binary"))?;
                let timeout = hook
                    .get("timeout")
                    .and_then(|t| t.as_u64())
                    .filter(|t| *t > 0)
                    .ok_or_else(|| format!("hooks.json: {event}: {binary} needs a positive integer timeout"))?;
                out.push(Registration {
                    event: event.clone(),
                    matcher: matcher.clone(),
                    binary: binary.to_string(),
                    timeout,
                });
            }
        }
    }
    Ok(out)
}

/// The first word of a shell command line: the program it runs.
///
/// Falls back to a whitespace split when the line is not valid shell (an unbalanced quote),
/// so a damaged entry can still be recognised and replaced.
pub fn program_word(command: &str) -> Option<String> {
    match shell_words::split(command) {
        Ok(words) => words.into_iter().next(),
        Err(_) => command.split_whitespace().next().map(str::to_string),
    }
}

/// The fable hook binary a command runs, if it runs one (see the module docs for the rule).
pub fn our_binary(command: &str) -> Option<&'static str> {
    let program = program_word(command)?;
    let base = Path::new(&program).file_name()?.to_str()?;
    HOOK_BINARIES.iter().copied().find(|b| *b == base)
}

/// Whether a hook command is one of ours.
pub fn is_ours(command: &str) -> bool {
    our_binary(command).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_registrations_parse_and_cover_every_hook() {
        let regs = builtin().expect("hooks.json parses");
        for b in HOOK_BINARIES {
            assert!(
                regs.iter().any(|r| r.binary == b),
                "{b} is not registered in hooks.json"
            );
        }
        let post: Vec<_> = regs.iter().filter(|r| r.event == "PostToolUse").collect();
        assert_eq!(post.len(), 2);
        assert!(post.iter().all(|r| r.matcher.as_deref() == Some("Bash")));
        let spawn = regs.iter().find(|r| r.binary == "fable-spawn-guard").unwrap();
        assert_eq!(spawn.matcher.as_deref(), Some("Agent|Task|Workflow"));
        let stop = regs.iter().find(|r| r.event == "Stop").unwrap();
        assert_eq!(stop.matcher, None);
        assert!(regs.iter().all(|r| r.timeout > 0));
    }

    #[test]
    fn marker_matches_program_basename_only() {
        assert_eq!(our_binary("/usr/local/bin/fable-evidence"), Some("fable-evidence"));
        assert_eq!(our_binary("'/a dir/with space/fable-learn'"), Some("fable-learn"));
        assert_eq!(
            our_binary("\"${CLAUDE_PLUGIN_ROOT}/target/release/fable-inject\""),
            Some("fable-inject")
        );
        assert_eq!(our_binary("fable-close-guard --verbose"), Some("fable-close-guard"));
        assert_eq!(our_binary("echo fable-evidence"), None);
        assert_eq!(our_binary("/x/fable-evidence-wrapper"), None);
        assert_eq!(our_binary("/x/fable"), None);
        assert_eq!(our_binary("python3 /x/fable_evidence_log.py"), None);
        assert_eq!(our_binary(""), None);
        // Not valid shell: still recognised through the whitespace fallback.
        assert_eq!(
            our_binary("/x/fable-spawn-guard 'unterminated"),
            Some("fable-spawn-guard")
        );
    }

    #[test]
    fn ancestor_entries_are_recognised_but_not_ours() {
        let cmd = "python3 '/home/u/.claude/skills/fable mode/hooks/fable_evidence_log.py'";
        assert!(is_ancestor(cmd));
        assert!(!is_ours(cmd));
        assert!(!is_ancestor("/x/fable-evidence"));
        assert!(!is_ancestor("echo fable_evidence_log.pyc"));
    }

    #[test]
    fn parse_rejects_foreign_or_untimed_entries() {
        let foreign = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/bin/true","timeout":5}]}]}}"#;
        assert!(parse(foreign).is_err());
        let untimed = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/fable-close-guard"}]}]}}"#;
        assert!(parse(untimed).unwrap_err().contains("timeout"));
        let string_timeout =
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/fable-close-guard","timeout":"5"}]}]}}"#;
        assert!(parse(string_timeout).is_err());
        assert!(parse("not json").is_err());
    }
}
