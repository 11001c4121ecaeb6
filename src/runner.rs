//! The fail-open runner every hook binary goes through.
//!
//! A hook must never block an agent because of a bug of ours: a panic, an I/O error,
//! empty, binary or malformed stdin all end in exit 0 with one stderr line
//! `[fable] <hook>: <what> (ignored)`. Only a deliberate decision (an [`Answer`] with
//! exit 2) blocks.

use crate::hook::{ignored_note, Answer, HookInput};
use crate::project::{self, Project};
use std::collections::BTreeMap;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;

/// The environment a hook decision may depend on, captured once at the edge so the
/// decision functions stay pure and testable.
#[derive(Debug, Clone, Default)]
pub struct HookEnv {
    /// `CLAUDE_PROJECT_DIR`, when set and non-empty.
    pub project_dir: Option<String>,
    /// The process's own working directory.
    pub process_cwd: Option<PathBuf>,
    vars: BTreeMap<String, String>,
}

impl HookEnv {
    /// Captures the process environment (`CLAUDE_*` and `FABLE_*` variables, HOME, XDG paths).
    ///
    /// Filtered on the raw bytes before anything is copied: `std::env::vars` copies every
    /// variable of the host's environment into two `String`s first (49 K instructions on
    /// every hook start, measured with callgrind, for the few kept). A name or value that
    /// is not UTF-8 is skipped, as `vars` would have panicked on it.
    pub fn from_process() -> HookEnv {
        let vars = process_vars();
        HookEnv {
            project_dir: vars.get("CLAUDE_PROJECT_DIR").filter(|s| !s.is_empty()).cloned(),
            process_cwd: std::env::current_dir().ok(),
            vars,
        }
    }

    /// An environment for tests: only the given variables.
    pub fn with_vars<I, K, V>(vars: I) -> HookEnv
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let vars: BTreeMap<String, String> = vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        HookEnv {
            project_dir: vars.get("CLAUDE_PROJECT_DIR").filter(|s| !s.is_empty()).cloned(),
            process_cwd: std::env::current_dir().ok(),
            vars,
        }
    }

    pub fn var(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str).filter(|s| !s.is_empty())
    }

    /// An integer setting, falling back to `default` when unset or not a number.
    pub fn var_u64(&self, key: &str, default: u64) -> u64 {
        self.var(key).and_then(|s| s.trim().parse().ok()).unwrap_or(default)
    }

    /// Sets a variable unless the environment already has it (a host's default, such as
    /// a shorter learning budget where the host cuts hooks short).
    pub fn set_default(&mut self, key: &str, value: &str) {
        if self.var(key).is_none() {
            self.vars.insert(key.to_string(), value.to_string());
        }
    }

    /// The project this invocation belongs to, if it opted in.
    pub fn project(&self, input: &HookInput) -> Option<Project> {
        project::discover(self.project_dir.as_deref(), &input.cwd, self.process_cwd.as_deref())
    }
}

/// The variables a hook may read: fable's and the host's own, and where files live.
fn wanted(name: &[u8]) -> bool {
    name.starts_with(b"FABLE_")
        || name.starts_with(b"CLAUDE_")
        || matches!(
            name,
            b"HOME" | b"XDG_CONFIG_HOME" | b"XDG_STATE_HOME" | b"PATH" | b"TMPDIR"
        )
}

/// The wanted variables of the process environment, read from the C runtime's `environ`.
#[cfg(unix)]
fn process_vars() -> BTreeMap<String, String> {
    extern "C" {
        static environ: *const *const std::ffi::c_char;
    }
    let mut out = BTreeMap::new();
    // SAFETY: `environ` is the C runtime's NULL-terminated array of NUL-terminated
    // "NAME=value" strings. A hook reads it once, single-threaded, and never sets a
    // variable, so nothing changes it meanwhile.
    unsafe {
        let mut entry = environ;
        while !entry.is_null() && !(*entry).is_null() {
            let bytes = std::ffi::CStr::from_ptr(*entry).to_bytes();
            entry = entry.add(1);
            let Some(eq) = bytes.iter().position(|&b| b == b'=') else {
                continue;
            };
            let (name, value) = (&bytes[..eq], &bytes[eq + 1..]);
            if !wanted(name) {
                continue;
            }
            if let (Ok(n), Ok(v)) = (std::str::from_utf8(name), std::str::from_utf8(value)) {
                // The first of a name given twice wins, as `getenv` answers.
                out.entry(n.to_string()).or_insert_with(|| v.to_string());
            }
        }
    }
    out
}

#[cfg(not(unix))]
fn process_vars() -> BTreeMap<String, String> {
    std::env::vars().filter(|(k, _)| wanted(k.as_bytes())).collect()
}

/// What a hook's decision function returns: an answer, or an error we report and ignore.
pub type HookResult = crate::error::Result<Answer>;

/// Decides, catching panics and errors: the pure core of [`crate::host::run_hook`], testable in-process.
pub fn decide_fail_open(
    name: &str,
    stdin: &[u8],
    env: &HookEnv,
    decide: impl FnOnce(&HookInput, &HookEnv) -> HookResult,
) -> Answer {
    let input = match HookInput::parse(stdin) {
        Ok(i) => i,
        Err(e) => return Answer::allow().with_note(ignored_note(name, &e.to_string())),
    };
    decide_input(name, &input, env, decide)
}

/// Decides on an already-parsed input (a host adapter's), catching panics and errors.
pub fn decide_input(
    name: &str,
    input: &HookInput,
    env: &HookEnv,
    decide: impl FnOnce(&HookInput, &HookEnv) -> HookResult,
) -> Answer {
    match panic::catch_unwind(AssertUnwindSafe(|| decide(input, env))) {
        Ok(Ok(answer)) if answer.exit == 0 || answer.exit == 2 => answer,
        Ok(Ok(answer)) => Answer::allow().with_note(ignored_note(name, &format!("unexpected exit {}", answer.exit))),
        Ok(Err(e)) => Answer::allow().with_note(ignored_note(name, &e.to_string())),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Answer::allow().with_note(ignored_note(name, &format!("internal error: {msg}")))
        }
    }
}

/// Writes an answer and returns its exit code; a closed stdout or stderr is not our
/// failure to report. Flushes stdout itself: a hook's `main` skips std's exit-time flush
/// ([`crate::host::process_start`]).
pub fn emit(answer: &Answer) -> u8 {
    if !answer.stdout.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(answer.stdout.as_bytes());
        let _ = out.flush();
    }
    if !answer.stderr.is_empty() {
        let _ = std::io::stderr().lock().write_all(answer.stderr.as_bytes());
    }
    if answer.exit == 2 {
        2
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_and_errors_fail_open_with_one_line() {
        let env = HookEnv::with_vars(Vec::<(String, String)>::new());
        let a = decide_fail_open("h", b"{}", &env, |_, _| panic!("boom"));
        assert_eq!(
            (a.exit, a.stderr.as_str()),
            (0, "[fable] h: internal error: boom (ignored)\n")
        );
        let a = decide_fail_open("h", b"{}", &env, |_, _| Err(crate::error::Error::msg("disk full")));
        assert_eq!((a.exit, a.stderr.lines().count()), (0, 1));
        let a = decide_fail_open("h", b"\x00\x01garbage", &env, |_, _| Ok(Answer::block("x")));
        assert_eq!(a.exit, 0);
        let a = decide_fail_open("h", b"{}", &env, |_, _| Ok(Answer::block("x")));
        assert_eq!(a.exit, 2);
    }
}
