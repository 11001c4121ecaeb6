//! `fable-evidence`: appends one evidence record per Bash call (PostToolUse and
//! PostToolUseFailure). Never blocks, never prints to stdout; records while PAUSED too,
//! because evidence is not discipline — it is the ground truth the guards read.

use crate::evidence::{now_ts, record_from};
use crate::hook::{Answer, HookInput};
use crate::journal::{Journal, Rotation};
use crate::runner::{HookEnv, HookResult};

pub const HOOK_NAME: &str = "fable-evidence";

/// The log of the project this payload belongs to, if it opted in.
pub fn journal_for(input: &HookInput, env: &HookEnv) -> Option<Journal> {
    let project = env.project(input)?;
    Some(Journal::new(
        project.fable_dir,
        Rotation::from_lookup(|k| env.var(k).map(str::to_string)),
    ))
}

/// Appends the record for this tool call; allow in every case.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let Some(journal) = journal_for(input, env) else {
        return Ok(Answer::allow());
    };
    let Some(record) = record_from(input, env.var("CLAUDE_CODE_SESSION_ID"), now_ts()) else {
        return Ok(Answer::allow());
    };
    journal.append(&record)?;
    Ok(Answer::allow())
}
