//! **Hosts**: the agent CLIs fable runs under, and the one place that tells them apart.
//!
//! Every hook binary starts here ([`run_hook`]): stdin becomes a [`HookInput`] in fable's
//! own terms (Claude Code's shapes, which the guards were written for), the pure decision
//! function runs through the fail-open [`runner`](crate::runner), and its [`Answer`] is
//! turned into what the host understands. The guards (`discipline/`) and the learner
//! (`learn/`) never name a host; a record names it only as data (`host`).
//!
//! How a binary knows its host: the registered command line says so
//! (`<dir>/fable-evidence --host codex`, what `fable install --host codex` writes), else
//! `FABLE_HOST=codex`; anything else is Claude Code, whose payloads and answers pass
//! through unchanged. Adapters: [`claude`] (identity), [`codex`] (OpenAI Codex CLI), with
//! the exit code of a Codex shell call read from its rollout ([`rollout`]).
//!
//! May use: the crate root (protocol, runner, discovery, state files).

pub mod claude;
pub mod codex;
pub mod process_start;
pub mod rollout;

use crate::hook::{ignored_note, Answer, HookInput};
use crate::runner::{HookEnv, HookResult};
use std::panic::{self, AssertUnwindSafe};

/// The agent CLI a hook runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Host {
    /// Claude Code: the protocol fable's guards speak natively.
    #[default]
    Claude,
    /// OpenAI Codex CLI (observed protocol: docs codex-hooks.md).
    Codex,
}

impl Host {
    /// The host's name as registered (`--host <name>`) and recorded (`host` field).
    pub fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
        }
    }

    /// Parses a host name; unknown names are `None`.
    pub fn parse(s: &str) -> Option<Host> {
        match s.trim().to_ascii_lowercase().as_str() {
            "claude" | "claude-code" | "claude_code" => Some(Host::Claude),
            "codex" => Some(Host::Codex),
            _ => None,
        }
    }

    /// The host named by the arguments (`--host codex`, `--host=codex`), else by
    /// `FABLE_HOST`, else Claude Code. The arguments win: they are what was registered.
    pub fn detect<I: IntoIterator<Item = String>>(args: I, env_host: Option<&str>) -> Host {
        let mut args = args.into_iter();
        while let Some(a) = args.next() {
            let named = match a.strip_prefix("--host") {
                Some("") => args.next(),
                Some(rest) => rest.strip_prefix('=').map(str::to_string),
                None => None,
            };
            if let Some(h) = named.as_deref().and_then(Host::parse) {
                return h;
            }
        }
        env_host.and_then(Host::parse).unwrap_or_default()
    }
}

/// Runs a hook binary under its host: reads stdin, adapts, decides fail-open, answers.
/// Returns the exit code (2 blocks, 0 otherwise); a binary's `main` comes from
/// [`hook_main!`](crate::hook_main).
pub fn run_hook(name: &str, decide: impl Fn(&HookInput, &HookEnv) -> HookResult) -> u8 {
    panic::set_hook(Box::new(|_| {}));
    let buf = match crate::payload_read::read_bounded(std::io::stdin().lock()) {
        Ok(b) => b,
        Err(e) => {
            eprint!("{}", ignored_note(name, &format!("cannot read stdin: {e}")));
            return 0;
        }
    };
    let env = HookEnv::from_process();
    let host = Host::detect(std::env::args().skip(1), env.var("FABLE_HOST"));
    let answer = decide_on(host, name, &buf, env, decide);
    crate::runner::emit(&answer)
}

/// The pure core of [`run_hook`] for one host, testable in-process.
pub fn decide_on(
    host: Host,
    name: &str,
    stdin: &[u8],
    env: HookEnv,
    decide: impl Fn(&HookInput, &HookEnv) -> HookResult,
) -> Answer {
    match host {
        Host::Claude => claude::decide(name, stdin, &env, decide),
        Host::Codex => {
            let mut input = match HookInput::parse(stdin) {
                Ok(i) => i,
                Err(e) => return Answer::allow().with_note(ignored_note(name, &e.to_string())),
            };
            let env = codex::env_for(env);
            // The adapter reads files (the rollout): a bug there must not block either.
            if panic::catch_unwind(AssertUnwindSafe(|| codex::adapt_input(&mut input))).is_err() {
                return Answer::allow().with_note(ignored_note(name, "internal error in the Codex adapter"));
            }
            // One payload may be several calls to judge (a patch writes several files):
            // the first that is not simply allowed is the answer.
            let calls = codex::judged_calls(&input);
            let mut answer = Answer::allow();
            for call in &calls {
                answer = crate::runner::decide_input(name, call, &env, &decide);
                if answer != Answer::allow() {
                    break;
                }
            }
            match panic::catch_unwind(AssertUnwindSafe(|| codex::adapt_answer(&input, &env, answer))) {
                Ok(a) => a,
                Err(_) => Answer::allow().with_note(ignored_note(name, "internal error in the Codex adapter")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_registered_argument_names_the_host_else_the_environment() {
        assert_eq!(Host::detect(args(&["--host", "codex"]), None), Host::Codex);
        assert_eq!(Host::detect(args(&["--host=codex"]), Some("claude")), Host::Codex);
        assert_eq!(Host::detect(args(&[]), Some("codex")), Host::Codex);
        assert_eq!(Host::detect(args(&[]), None), Host::Claude);
        assert_eq!(Host::detect(args(&["--host", "gemini"]), None), Host::Claude);
        assert_eq!(Host::detect(args(&["--host"]), Some("CODEX")), Host::Codex);
        assert_eq!(Host::Codex.name(), "codex");
    }
}
