//! `fable-evidence`: appends one evidence record per Bash call (PostToolUse and
//! PostToolUseFailure). Never blocks, never prints to stdout; records while PAUSED too,
//! because evidence is not discipline — it is the ground truth the guards read.

use crate::evidence::journal::{Journal, Rotation};
use crate::evidence::{now_ts, record_from};
use crate::hook::{Answer, HookInput};
use crate::project::Project;
use crate::runner::{HookEnv, HookResult};

pub const HOOK_NAME: &str = "fable-evidence";

/// The evidence log of a project, rotated as the environment configures.
pub fn journal_of(project: &Project, env: &HookEnv) -> Journal {
    Journal::new(
        &project.fable_dir,
        Rotation::from_lookup(|k| env.var(k).map(str::to_string)),
    )
}

/// Appends the record for this tool call; allow in every case.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    let Some(record) = record_from(input, env.var("CLAUDE_CODE_SESSION_ID"), now_ts()) else {
        return Ok(Answer::allow());
    };
    if journal_of(&project, env).append(&record)? {
        // A new live file: note, outside the project, that this project has a log.
        crate::evidence::log_marker::touch(|k| env.var(k).map(str::to_string), &project.fable_dir);
    }
    Ok(Answer::allow())
}
