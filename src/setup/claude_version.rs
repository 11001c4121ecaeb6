//! Which Claude Code version the hooks are installed for, and which events it knows.
//!
//! Why it matters: Claude Code 2.0.55 silently ignored the **whole** settings file when one
//! event name was unknown to it (e.g. `PostToolUseFailure`), so writing an event an old
//! version does not know would switch off every hook in that file, fable's and the user's.
//! 2.1.x drops an unknown event on its own. The installer therefore reads `claude --version`
//! and leaves out events the version predates.

use std::fmt;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long `claude --version` may take before the version counts as unknown.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// A Claude Code version, compared numerically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl Version {
    pub const fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version { major, minor, patch }
    }

    /// Parses `2.1.332`, `v2.1.332`, `2.1.332 (Claude Code)` or `2.1.332-beta.1`.
    pub fn parse(text: &str) -> Option<Version> {
        let word = text.split_whitespace().next()?;
        let word = word.strip_prefix('v').unwrap_or(word);
        let core = word.split(['-', '+']).next()?;
        let mut parts = core.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = parts.next()?.parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        Some(Version { major, minor, patch })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The first Claude Code version that fires `PostToolUseFailure` (failed Bash commands).
pub const POST_TOOL_USE_FAILURE_SINCE: Version = Version::new(2, 0, 56);

/// The first version that knows each event fable may register, for events younger than hooks
/// themselves. `PostToolUseFailure` is established by real runs (claude-code-hooks.md);
/// `SessionStart` (1.0.62) and `SessionEnd` (1.0.85) follow Claude Code's changelog. An event
/// not listed is assumed known to every version with hooks.
const EVENT_SINCE: [(&str, Version); 3] = [
    ("SessionStart", Version::new(1, 0, 62)),
    ("SessionEnd", Version::new(1, 0, 85)),
    ("PostToolUseFailure", POST_TOOL_USE_FAILURE_SINCE),
];

/// The version an event first appeared in, when it is younger than hooks.
pub fn event_since(event: &str) -> Option<Version> {
    EVENT_SINCE.iter().find(|(e, _)| *e == event).map(|(_, v)| *v)
}

/// Whether `event` may be written for this version. An unknown version gets every event:
/// a modern Claude Code is far likelier than a 2.0.55, and the installer says so out loud.
pub fn knows_event(version: Option<Version>, event: &str) -> bool {
    match (version, event_since(event)) {
        (Some(v), Some(since)) => v >= since,
        _ => true,
    }
}

/// Where the version came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detected {
    /// Given with `--claude-version`.
    Stated(Version),
    /// Read from `claude --version`.
    Read(Version),
    /// Could not be read; the string says why.
    Unknown(String),
}

impl Detected {
    pub fn version(&self) -> Option<Version> {
        match self {
            Detected::Stated(v) | Detected::Read(v) => Some(*v),
            Detected::Unknown(_) => None,
        }
    }

    /// `stated`, `read` or `unknown`, for `--json`.
    pub fn source(&self) -> &'static str {
        match self {
            Detected::Stated(_) => "stated",
            Detected::Read(_) => "read",
            Detected::Unknown(_) => "unknown",
        }
    }
}

/// The program to ask: `--claude PATH`, else `$FABLE_CLAUDE_BIN`, else `claude` on PATH.
pub fn claude_program(flag: Option<&std::ffi::OsStr>, env: Option<std::ffi::OsString>) -> std::ffi::OsString {
    flag.map(|f| f.to_os_string())
        .or(env.filter(|e| !e.is_empty()))
        .unwrap_or_else(|| "claude".into())
}

/// Runs `<program> --version` with a time limit and parses its first line.
///
/// Never fails: whatever goes wrong (missing program, non-zero exit, odd output, a hang)
/// becomes [`Detected::Unknown`] with a reason the installer can print.
pub fn read_version(program: &std::ffi::OsStr, timeout: Duration) -> Detected {
    use wait_timeout::ChildExt;
    let shown = program.to_string_lossy().into_owned();
    let mut child = match Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Detected::Unknown(format!("could not run `{shown} --version`: {e}")),
    };
    // Read on a thread so a child (or a grandchild holding the pipe) cannot hang us.
    let mut stdout = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = String::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.take(64 * 1024).read_to_string(&mut out);
        }
        let _ = tx.send(out);
    });
    let start = Instant::now();
    let status = match child.wait_timeout(timeout) {
        Ok(Some(s)) => s,
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            return Detected::Unknown(format!(
                "`{shown} --version` did not answer within {}s",
                timeout.as_secs()
            ));
        }
        Err(e) => return Detected::Unknown(format!("`{shown} --version`: {e}")),
    };
    let left = timeout.saturating_sub(start.elapsed()).max(Duration::from_millis(200));
    let out = rx.recv_timeout(left).unwrap_or_default();
    if !status.success() {
        return Detected::Unknown(format!("`{shown} --version` exited with {status}"));
    }
    match out.lines().find_map(Version::parse) {
        Some(v) => Detected::Read(v),
        None => Detected::Unknown(format!(
            "`{shown} --version` printed no version ({:?})",
            out.trim().chars().take(80).collect::<String>()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_real_output_and_variants() {
        assert_eq!(Version::parse("2.1.332 (Claude Code)\n"), Some(Version::new(2, 1, 332)));
        assert_eq!(Version::parse("v2.0.55"), Some(Version::new(2, 0, 55)));
        assert_eq!(Version::parse("2.0.56-beta.1"), Some(Version::new(2, 0, 56)));
        assert_eq!(Version::parse("Claude Code"), None);
        assert_eq!(Version::parse("2.1"), None);
        assert_eq!(Version::parse("2.1.3.4"), None);
        assert_eq!(Version::parse(""), None);
    }

    #[test]
    fn orders_numerically() {
        assert!(Version::new(2, 0, 100) > Version::new(2, 0, 56));
        assert!(Version::new(2, 0, 55) < POST_TOOL_USE_FAILURE_SINCE);
        assert!(Version::new(10, 0, 0) > Version::new(9, 99, 99));
    }

    #[test]
    fn post_tool_use_failure_needs_2_0_56() {
        assert!(!knows_event(Some(Version::new(2, 0, 55)), "PostToolUseFailure"));
        assert!(knows_event(Some(Version::new(2, 0, 56)), "PostToolUseFailure"));
        assert!(knows_event(Some(Version::new(2, 1, 332)), "PostToolUseFailure"));
        assert!(knows_event(None, "PostToolUseFailure"));
        assert!(knows_event(Some(Version::new(2, 0, 55)), "PostToolUse"));
        assert!(knows_event(Some(Version::new(2, 0, 55)), "SessionEnd"));
    }

    #[test]
    fn program_choice_order() {
        assert_eq!(
            claude_program(Some("/x/claude".as_ref()), Some("/y".into())),
            "/x/claude"
        );
        assert_eq!(claude_program(None, Some("/y".into())), "/y");
        assert_eq!(claude_program(None, Some("".into())), "claude");
        assert_eq!(claude_program(None, None), "claude");
    }

    #[test]
    fn missing_program_is_unknown_not_an_error() {
        let d = read_version("/nonexistent/claude-xyz".as_ref(), Duration::from_secs(1));
        assert!(matches!(d, Detected::Unknown(_)), "{d:?}");
        assert_eq!(d.version(), None);
    }
}
