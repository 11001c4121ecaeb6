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
//! A hook entry in a settings file is fable's when its **program word** — the first word of
//! its `command` after shell-style splitting (`shell_words::split`, or a plain whitespace
//! split when the command is not valid shell) — has a base name that is one of
//! [`HOOK_BINARIES`], **and** fable can tell it wrote it:
//!
//! - the command ends with the marker [`MARKER`] (a shell comment, `# fable`). Claude Code
//!   runs command hooks through the shell, so the comment changes nothing when it runs,
//!   and unlike an extra JSON key it is safe on every version (2.0.55 dropped a whole file
//!   over one entry it did not understand, claude-code-hooks.md "Settings"). It travels
//!   with the file, so a teammate's clone of a project's settings, or a settings file whose
//!   user state was purged, is still recognised; or
//! - for entries written before the marker existed: the program lives in a directory fable
//!   itself installed to (recorded in user state, see [`crate::setup::install_state`]), the
//!   directory of the running `fable`, or the `--bin-dir` of this run ([`Ownership`]).
//!
//! A binary that merely shares a name (`/opt/other/fable-close-guard`, no marker, in no
//! directory of fable's) is somebody else's and is left alone, and said so: the base name
//! alone decided ownership before, and uninstall removed such a third-party hook. A foreign
//! command that merely *mentions* a fable binary (`echo fable-evidence`, `my-wrapper
//! /x/fable-learn`) is not ours either, unlike the ancestor's substring match.
//!
//! Re-pointing to a new install directory still replaces the old entries: they carry the
//! marker (or sit in a recorded directory). The name list covers every binary fable has
//! ever shipped, so entries of a hook or event a newer version stopped registering are
//! still cleaned up.

use std::path::{Path, PathBuf};

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

/// The shell comment fable appends to every command it writes: its ownership mark.
pub const MARKER: &str = "# fable";

/// Whether `command` ends with [`MARKER`] as a comment of its own (after whitespace).
pub fn has_marker(command: &str) -> bool {
    command
        .trim_end()
        .strip_suffix(MARKER)
        .is_some_and(|rest| rest.ends_with([' ', '\t']))
}

/// `command` with the marker appended (unchanged when it already has it).
pub fn mark(command: &str) -> String {
    if has_marker(command) {
        command.to_string()
    } else {
        format!("{command} {MARKER}")
    }
}

/// Whether a hook command is one of ours by its marker alone (no directory is known).
pub fn is_ours(command: &str) -> bool {
    Ownership::default().owns(command)
}

/// What, besides the marker, makes an entry fable's: the directories fable installed to.
#[derive(Debug, Clone, Default)]
pub struct Ownership {
    /// Directories whose fable-named binaries are fable's (recorded bin dirs, this run's
    /// `--bin-dir`, the running `fable`'s own directory).
    pub dirs: Vec<PathBuf>,
}

impl Ownership {
    pub fn with_dirs(dirs: impl IntoIterator<Item = PathBuf>) -> Ownership {
        let mut own = Ownership::default();
        for d in dirs {
            if !own.dirs.contains(&d) {
                own.dirs.push(d);
            }
        }
        own
    }

    /// Whether the entry running `command` is fable's (see the module docs).
    pub fn owns(&self, command: &str) -> bool {
        let Some(program) = program_word(command) else {
            return false;
        };
        if our_binary(command).is_none() {
            return false;
        }
        if has_marker(command) {
            return true;
        }
        let Some(parent) = Path::new(&program).parent() else {
            return false;
        };
        self.dirs.iter().any(|d| same_dir(d, parent))
    }

    /// A fable-named program that is not fable's: left alone, and pointed out.
    pub fn is_namesake(&self, command: &str) -> bool {
        our_binary(command).is_some() && !self.owns(command)
    }
}

/// Equal paths, or two names of one existing folder (a link, `..`).
fn same_dir(a: &Path, b: &Path) -> bool {
    if b.as_os_str().is_empty() {
        return false;
    }
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
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
        assert_eq!(post.len(), 3);
        let edits: Vec<_> = post.iter().filter(|r| r.matcher.as_deref() != Some("Bash")).collect();
        assert_eq!(edits.len(), 1, "only the evidence hook also takes file edits");
        assert_eq!(
            (edits[0].binary.as_str(), edits[0].matcher.as_deref()),
            ("fable-evidence", Some("Write|Edit|MultiEdit|NotebookEdit"))
        );
        let spawn = regs.iter().find(|r| r.binary == "fable-spawn-guard").unwrap();
        assert_eq!(spawn.matcher.as_deref(), Some("Agent|Task|Workflow"));
        let stop = regs.iter().find(|r| r.event == "Stop").unwrap();
        assert_eq!(stop.matcher, None);
        // Issue 11, item 4: a sub-agent's final message is checked too, whatever its type.
        let sub: Vec<_> = regs.iter().filter(|r| r.event == "SubagentStop").collect();
        assert_eq!(sub.len(), 1);
        assert_eq!(
            (sub[0].binary.as_str(), sub[0].matcher.as_deref()),
            ("fable-close-guard", None)
        );
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
    fn marker_or_recorded_folder_makes_an_entry_ours() {
        assert!(is_ours("'/a b/fable-close-guard' # fable"));
        assert!(is_ours(&mark("/x/fable-evidence")));
        assert_eq!(mark(&mark("/x/fable-evidence")), "/x/fable-evidence # fable");
        // The name alone is not enough, nor is a marker on a foreign program.
        assert!(!is_ours("/opt/other/fable-close-guard"));
        assert!(!is_ours("/usr/bin/lint # fable"));
        assert!(!is_ours("/x/fable-evidence #fable"));
        assert!(!is_ours("/x/fable-evidence '# fable'"));
        let own = Ownership::with_dirs([PathBuf::from("/opt/fable/bin")]);
        assert!(own.owns("/opt/fable/bin/fable-learn"));
        assert!(own.owns("'/opt/fable/bin/fable-learn' --x"));
        assert!(!own.owns("/opt/other/fable-learn"));
        assert!(own.is_namesake("/opt/other/fable-learn"));
        assert!(!own.is_namesake("echo fable-learn"));
        assert!(!own.owns("fable-learn"), "a bare name has no folder to match");
        // Marked commands still run as before: the comment is not an argument.
        assert_eq!(
            shell_words::split("'/a b/fable-inject' # fable").unwrap(),
            ["/a b/fable-inject"]
        );
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
