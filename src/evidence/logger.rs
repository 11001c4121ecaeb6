//! `fable-evidence`: appends one evidence record per Bash call (PostToolUse and
//! PostToolUseFailure), and one edit record per successful Write/Edit/MultiEdit/
//! NotebookEdit call (the file and the time: what makes an earlier pass stale); a passing
//! test/build/check run also carries the hash of the project's files (`tree`). Never
//! blocks, never prints to stdout; records while PAUSED too, because evidence is not
//! discipline — it is the ground truth the guards read.

use crate::evidence::journal::{Journal, Rotation};
use crate::evidence::log_marker;
use crate::evidence::seal::Sealer;
use crate::evidence::{now_ts, record_from};
use crate::hook::{Answer, HookInput};
use crate::project::Project;
use crate::runner::{HookEnv, HookResult};

pub const HOOK_NAME: &str = "fable-evidence";

/// The evidence log of a project, rotated as the environment configures, for reading:
/// verified with this user's key when there is one (none is created by a reader).
pub fn journal_of(project: &Project, env: &HookEnv) -> Journal {
    Journal::for_reading(&project.fable_dir, |k| env.var(k).map(str::to_string))
}

/// Appends the sealed record for this tool call; allow in every case. What goes wrong
/// is told to the user (`systemMessage`), never to the model as a block: the command
/// already ran, and the close guard will ask for a fresh run of anything it needs.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    let session = env.var("CLAUDE_CODE_SESSION_ID");
    let Some(mut record) =
        record_from(input, session, now_ts()).or_else(|| crate::evidence::edit_record_from(input, session, now_ts()))
    else {
        return Ok(Answer::allow());
    };
    // Only what Claude Code sent, once per call: also drops the same call delivered twice
    // (the hook registered in two scopes; see `transcript_check::admit`).
    if let Some(answer) = crate::evidence::transcript_check::admit(input, env) {
        return Ok(answer);
    }
    let get = |k: &str| env.var(k).map(str::to_string);
    // A passing runner: seal what the project's files look like now (see `tree`).
    if record.passed()
        && record.file.is_none()
        && env
            .var("FABLE_FRESHNESS")
            .is_none_or(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "0" | "no"))
        && crate::evidence::tree::worth_a_snapshot(&record.cmd, record.summary.is_some())
    {
        let store = crate::evidence::tree_store::dir(get, &project.fable_dir);
        let counted = crate::evidence::tree_store::pass_tree_counted(&project.root, store.as_deref(), get);
        // Watched from now on, so the stop need not look at every file again.
        if let (Some((tree, files)), Some(store)) = (&counted, &store) {
            crate::evidence::tree_watch::spawn(&project.root, store, tree, *files, get);
        }
        record.tree = counted.map(|(tree, _)| tree);
    }
    let (sealer, unsealed) = match Sealer::for_user(get, &project.fable_dir) {
        Ok(s) => (Some(s), None),
        Err(why) => (None, Some(why)),
    };
    let journal = Journal::new(&project.fable_dir, Rotation::from_lookup(get)).with_sealer(sealer);
    let mut answer = Answer::allow();
    match journal.append(&record) {
        Ok(fresh) => {
            if fresh {
                // A new live file: note, outside the project, that this project has a log.
                log_marker::touch(get, &project.fable_dir);
            }
            log_marker::clear_failure(get, &project.fable_dir, &record.ts, &record.cmd);
        }
        Err(e) => {
            let what = format!("could not write the evidence log: {e}");
            log_marker::note_failure(get, &project.fable_dir, &lost(&journal, &record, &e));
            answer = answer.with_note(format!("[fable] {HOOK_NAME}: {what}")).with_system_message(format!(
                "fable: {what}. The command ran but is not recorded, so it cannot back a ledger card; fix the cause (disk space, permissions) and run it again."
            ));
        }
    }
    if let Some(why) = unsealed {
        answer = answer.with_system_message(format!(
            "fable: the evidence record was written unsealed ({why}); unsealed records back no ledger card."
        ));
    }
    Ok(answer)
}

/// What the close guard needs to name a lost record: its run time and command, the cause
/// (`No space left on device`, without the OS error number), and where the log stood (the
/// sealed head it would have chained to, the live file's size).
fn lost(journal: &Journal, record: &crate::evidence::Record, e: &crate::error::Error) -> log_marker::Failure {
    let cause = match e {
        crate::error::Error::Io { path, source } => {
            let text = source.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text).to_string();
            let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
            format!("{text} (.fable/{name})")
        }
        other => other
            .to_string()
            .replace(&format!("{}/", journal.dir().display()), ".fable/"),
    };
    log_marker::Failure {
        at: now_ts(),
        run: record.ts.clone(),
        cmd: record.cmd.clone(),
        cause,
        head: journal.sealer().and_then(|s| s.read_head()),
        size: std::fs::metadata(journal.live_path()).map(|m| m.len()).unwrap_or(0),
    }
}
