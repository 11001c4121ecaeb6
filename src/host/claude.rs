//! Claude Code: fable's native protocol (docs claude-code-hooks.md). Payloads and answers
//! pass through unchanged; the record carries no `host` field (absent means Claude Code).

use crate::hook::{Answer, HookInput};
use crate::runner::{HookEnv, HookResult};

/// Decides as every hook always has under Claude Code.
pub fn decide(
    name: &str,
    stdin: &[u8],
    env: &HookEnv,
    decide: impl FnOnce(&HookInput, &HookEnv) -> HookResult,
) -> Answer {
    crate::runner::decide_fail_open(name, stdin, env, decide)
}
