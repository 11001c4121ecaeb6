//! OpenAI Codex CLI (0.171, docs codex-hooks.md): its payloads in fable's terms, and
//! fable's answers in Codex's.
//!
//! In: a shell call's PostToolUse carries the combined output as a string and no exit
//! code, failed or not; the exit code comes from the rollout ([`super::rollout`]) and the
//! response becomes `{"output", "exit_code"}` (`exit_code: null` when it was not found:
//! unknown, never a pass), which the evidence log and the fail streak already read. An
//! `apply_patch` call becomes an edit of the files its patch names (`*** Add File:`, …).
//! There is no `CLAUDE_PROJECT_DIR`: the project is the payload's `cwd` walked up to
//! `.fable/`.
//!
//! Out: exit 2 on PostToolUse would *replace* the tool's output for the model, so any
//! PostToolUse text goes as `additionalContext`; a Stop/SubagentStop block goes as
//! `{"decision":"block","reason"}`, a PreToolUse block as `permissionDecision: deny`.
//! Codex has no cap on Stop blocks (193 in 25 s observed), so fable keeps its own: after
//! `FABLE_STOP_BLOCK_LIMIT` (8) blocks in a row in one turn the stop is let through, with
//! a `systemMessage` telling the user the gate gave up and why.

use crate::hook::{Answer, HookInput};
use crate::runner::HookEnv;
use crate::session_state::sanitize_sid;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Consecutive Stop blocks in a turn before fable lets the stop through (Claude Code's cap).
pub const DEFAULT_STOP_BLOCK_LIMIT: u64 = 8;

/// The learning budget under Codex, which cuts SessionEnd hooks at 3 s.
pub const LEARN_BUDGET_MS: &str = "2000";

/// The environment as Codex hooks see it: no per-session variables, so a
/// `CLAUDE_PROJECT_DIR` inherited from an outer Claude Code session must not pick the
/// project. `CLAUDE_CODE_SESSION_ID` is kept: under Claude Code it is what makes the
/// evidence hook check a payload against the transcript, and `--host codex` must not be
/// a way around that check.
pub fn env_for(mut env: HookEnv) -> HookEnv {
    env.project_dir = None;
    env.set_default("FABLE_LEARN_BUDGET_MS", LEARN_BUDGET_MS);
    env
}

/// Turns a Codex payload into fable's event, in place.
pub fn adapt_input(input: &mut HookInput) {
    input.host = Some("codex".to_string());
    if input.hook_event_name != "PostToolUse" {
        return;
    }
    if input.tool_name == "Bash" {
        shell_result(input);
    } else if input.tool_name == "apply_patch" {
        let files = patch_paths(&input.tool_input);
        if let Some(first) = files.first() {
            // One edit record per call (the first file): the tree hash of the next passing
            // run covers every file the patch changed.
            input.tool_name = "Edit".to_string();
            input.tool_input = json!({"file_path": first, "file_paths": files});
        }
    }
}

/// The calls a guard judges for one payload: an `apply_patch` about to run is one file
/// write per file its patch names (each with the whole patch as its content), so the
/// log guard denies a patch that touches a protected file as it denies a `Write`;
/// every other payload is itself.
pub fn judged_calls(input: &HookInput) -> Vec<HookInput> {
    if input.hook_event_name != "PreToolUse" || input.tool_name != "apply_patch" {
        return vec![input.clone()];
    }
    let text = match &input.tool_input {
        Value::String(s) => s.clone(),
        Value::Object(m) => m.values().filter_map(Value::as_str).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    };
    let files = patch_paths(&input.tool_input);
    if files.is_empty() {
        return vec![input.clone()];
    }
    files
        .into_iter()
        .map(|f| HookInput {
            tool_name: "Write".to_string(),
            tool_input: json!({"file_path": f, "content": text}),
            ..input.clone()
        })
        .collect()
}

/// A shell call's result with the exit code Codex wrote to the rollout.
fn shell_result(input: &mut HookInput) {
    let resp = &input.tool_response;
    let known = ["exit_code", "exitCode"]
        .iter()
        .any(|k| resp.get(*k).is_some_and(|v| v.is_i64()));
    if known {
        return; // a newer Codex that says the exit code itself
    }
    let output = match resp {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Object(m) => ["output", "stdout", "aggregated_output"]
            .iter()
            .find_map(|k| m.get(*k).and_then(Value::as_str))
            .unwrap_or("")
            .to_string(),
        other => other.to_string(),
    };
    let code = super::rollout::exit_code(&input.transcript_path, &input.tool_use_id);
    input.tool_response = json!({"output": output, "exit_code": code});
}

/// The files an `apply_patch` call names, in order, each once: the `*** Add File:`,
/// `*** Update File:`, `*** Delete File:` and `*** Move to:` lines of any string in
/// `tool_input` (the patch's field name was not observed, so every string is scanned).
pub fn patch_paths(tool_input: &Value) -> Vec<String> {
    let mut texts: Vec<&str> = Vec::new();
    match tool_input {
        Value::String(s) => texts.push(s),
        Value::Object(m) => texts.extend(m.values().filter_map(Value::as_str)),
        Value::Array(a) => texts.extend(a.iter().filter_map(Value::as_str)),
        _ => {}
    }
    let mut out: Vec<String> = Vec::new();
    for line in texts.iter().flat_map(|t| t.lines()) {
        let line = line.trim();
        let path = ["*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"]
            .iter()
            .find_map(|p| line.strip_prefix(p))
            .map(str::trim)
            .filter(|p| !p.is_empty());
        if let Some(p) = path {
            if !out.iter().any(|o| o == p) {
                out.push(p.to_string());
            }
        }
    }
    out
}

/// Turns fable's answer into Codex's, and applies fable's Stop block limit.
pub fn adapt_answer(input: &HookInput, env: &HookEnv, answer: Answer) -> Answer {
    let event = input.hook_event_name.as_str();
    let answer = to_codex(event, answer);
    if matches!(event, "Stop" | "SubagentStop") {
        let limit = env.var_u64("FABLE_STOP_BLOCK_LIMIT", DEFAULT_STOP_BLOCK_LIMIT);
        let project = env.project(input);
        let file = project.as_ref().and_then(|p| block_count_path(&p.fable_dir, input));
        let was_block = answer.is_block();
        let out = limit_stop(answer, input.stop_hook_active, file.as_deref(), limit);
        // `codex exec` shows a hook's systemMessage nowhere (observed): the note is also
        // kept where `fable status` and `fable lint` show the stops a user should know of.
        if let (true, false, Some(p)) = (was_block, out.is_block(), &project) {
            if let Some(note) = serde_json::from_str::<Value>(&out.stdout)
                .ok()
                .and_then(|v| v["systemMessage"].as_str().map(str::to_string))
            {
                crate::discipline::round::note_stop(|k| env.var(k).map(str::to_string), &p.fable_dir, &note);
            }
        }
        return out;
    }
    answer
}

/// The answer's channels as Codex reads them (docs codex-hooks.md §4).
pub fn to_codex(event: &str, answer: Answer) -> Answer {
    let reason = || answer.stderr.trim_end().to_string();
    match event {
        "PostToolUse" => {
            if answer.exit == 2 {
                return Answer::context("PostToolUse", reason());
            }
            let Ok(mut v) = serde_json::from_str::<Value>(&answer.stdout) else {
                return answer;
            };
            let mut changed = false;
            if v["decision"] == "block" {
                // `decision: block` replaces the tool output under Codex: say it beside it.
                let text = v["reason"].as_str().unwrap_or("").to_string();
                if let Some(m) = v.as_object_mut() {
                    m.remove("decision");
                    m.remove("reason");
                }
                v["hookSpecificOutput"] = json!({"hookEventName": "PostToolUse", "additionalContext": text});
                changed = true;
            }
            if v["hookSpecificOutput"].is_object() && v["hookSpecificOutput"]["hookEventName"] != "PostToolUse" {
                v["hookSpecificOutput"]["hookEventName"] = json!("PostToolUse");
                changed = true;
            }
            if !changed {
                return answer;
            }
            Answer {
                stdout: format!("{v}\n"),
                ..answer
            }
        }
        "PreToolUse" if answer.exit == 2 => Answer::deny_tool(reason()),
        "Stop" | "SubagentStop" if answer.exit == 2 => Answer::block_stop(reason()),
        _ => answer,
    }
}

/// Where a session's (or sub-agent's) consecutive Stop blocks are counted.
pub fn block_count_path(fable_dir: &Path, input: &HookInput) -> Option<PathBuf> {
    let sid = sanitize_sid(&input.session_id)?;
    let name = match input.agent_id.as_deref().filter(|a| !a.is_empty()) {
        Some(a) => sanitize_sid(&format!("{sid}.agent.{a}"))?,
        None => sid,
    };
    Some(fable_dir.join("state").join(format!("{name}.stopblocks")))
}

fn read_count(file: &Path) -> u64 {
    crate::state_file::read(file)
        .ok()
        .flatten()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

fn write_count(file: &Path, n: u64) {
    if let Some(dir) = file.parent() {
        if crate::fable_dir::ensure_dir(dir).is_err() {
            return;
        }
    }
    let _ = crate::state_file::replace(file, n.to_string().as_bytes());
}

/// fable's own Stop block limit. `stop_hook_active` is false on a turn's first Stop and
/// true after a block, so the count restarts with each turn; a stop that is not blocked
/// ends the run of blocks. Past `limit` blocks in a row the stop is allowed, and the user
/// is told (`systemMessage`) what the gate still wanted. No state file (no project or
/// session id): the answer stands.
pub fn limit_stop(answer: Answer, stop_hook_active: bool, file: Option<&Path>, limit: u64) -> Answer {
    let Some(file) = file else {
        return answer;
    };
    let before = if stop_hook_active { read_count(file) } else { 0 };
    if !answer.is_block() {
        if read_count(file) != 0 {
            write_count(file, 0);
        }
        return answer;
    }
    let n = before + 1;
    if n <= limit {
        write_count(file, n);
        return answer;
    }
    write_count(file, 0);
    let why = serde_json::from_str::<Value>(&answer.stdout)
        .ok()
        .and_then(|v| v["reason"].as_str().map(str::to_string))
        .unwrap_or_else(|| answer.stderr.trim().to_string());
    let first = crate::hook::printable(why.trim(), 600);
    // The head says what happened and which limit did it: `fable status` shows a stop's
    // first 120 characters.
    Answer::allow().with_system_message(format!(
        "fable: let this stop through after {limit} blocks in a row (FABLE_STOP_BLOCK_LIMIT={limit}; \
         Codex has no limit of its own); the gate still wanted: {first}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> HookInput {
        HookInput::parse(s.as_bytes()).unwrap()
    }

    #[test]
    fn patch_paths_from_any_string_field() {
        let patch = "*** Begin Patch\n*** Add File: src/new.rs\n+x\n*** Update File: src/lib.rs\n*** Move to: src/lib2.rs\n@@\n-a\n+b\n*** Delete File: old.txt\n*** Update File: src/lib.rs\n*** End Patch\n";
        let want = ["src/new.rs", "src/lib.rs", "src/lib2.rs", "old.txt"];
        assert_eq!(patch_paths(&json!({"command": patch})), want);
        assert_eq!(patch_paths(&json!({"input": patch, "n": 3})), want);
        assert_eq!(patch_paths(&json!(patch)), want);
        assert!(patch_paths(&json!({"command": "echo hi"})).is_empty());
        assert!(patch_paths(&json!(null)).is_empty());
    }

    #[test]
    fn apply_patch_becomes_an_edit_and_shell_gets_an_unknown_exit_without_rollout() {
        let mut i = parse(
            r#"{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a.rs\n*** End Patch"},"tool_use_id":"c1"}"#,
        );
        adapt_input(&mut i);
        assert_eq!(
            (i.tool_name.as_str(), i.tool_input_str("file_path")),
            ("Edit", Some("a.rs"))
        );
        assert_eq!(i.host.as_deref(), Some("codex"));
        let mut i = parse(
            r#"{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls /x"},"tool_response":"ls: no\n","tool_use_id":"c2","transcript_path":"/nonexistent.jsonl"}"#,
        );
        adapt_input(&mut i);
        assert_eq!(i.tool_response, json!({"output": "ls: no\n", "exit_code": null}));
    }

    #[test]
    fn the_codex_environment_ignores_claudes_project_dir_and_fits_learning_in_three_seconds() {
        let env = env_for(HookEnv::with_vars([
            ("CLAUDE_PROJECT_DIR", "/elsewhere"),
            ("CLAUDE_CODE_SESSION_ID", "s"),
        ]));
        assert_eq!(env.project_dir, None);
        assert_eq!(env.var("FABLE_LEARN_BUDGET_MS"), Some(LEARN_BUDGET_MS));
        assert_eq!(
            env.var("CLAUDE_CODE_SESSION_ID"),
            Some("s"),
            "the transcript check stays armed"
        );
        let env = env_for(HookEnv::with_vars([("FABLE_LEARN_BUDGET_MS", "500")]));
        assert_eq!(env.var("FABLE_LEARN_BUDGET_MS"), Some("500"));
    }

    #[test]
    fn a_patch_about_to_run_is_judged_file_by_file() {
        let i = parse(
            r#"{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a.rs\n*** Delete File: b.rs\n*** End Patch"}}"#,
        );
        let calls = judged_calls(&i);
        let files: Vec<_> = calls.iter().map(|c| c.tool_input_str("file_path").unwrap()).collect();
        assert_eq!(files, ["a.rs", "b.rs"]);
        assert!(calls.iter().all(|c| c.tool_name == "Write"));
        let bash = parse(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#);
        assert_eq!(judged_calls(&bash).len(), 1);
    }

    #[test]
    fn answers_take_codex_channels() {
        let a = to_codex("PostToolUse", Answer::block("stop retrying"));
        let v: Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(a.exit, 0);
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "stop retrying");
        let a = to_codex("PostToolUse", Answer::context("PostToolUseFailure", "ladder"));
        let v: Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
        let a = to_codex("Stop", Answer::block("cite a run"));
        let v: Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(
            (a.exit, v["decision"].as_str(), v["reason"].as_str()),
            (0, Some("block"), Some("cite a run"))
        );
        let a = to_codex("PreToolUse", Answer::block("no"));
        let v: Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(to_codex("SessionStart", Answer::allow()), Answer::allow());
    }

    #[test]
    fn stop_limit_counts_blocks_in_a_turn_then_lets_the_stop_through() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("state").join("s.stopblocks");
        let block = || Answer::block_stop("cite a run");
        assert!(limit_stop(block(), false, Some(&f), 2).is_block());
        assert!(limit_stop(block(), true, Some(&f), 2).is_block());
        let a = limit_stop(block(), true, Some(&f), 2);
        assert!(!a.is_block());
        let v: Value = serde_json::from_str(&a.stdout).unwrap();
        assert!(v["systemMessage"].as_str().unwrap().contains("cite a run"));
        // The count restarted: a new run of blocks is blocked again.
        assert!(limit_stop(block(), true, Some(&f), 2).is_block());
        // A new turn (stop_hook_active false) starts from zero.
        assert!(limit_stop(block(), false, Some(&f), 1).is_block());
        assert!(!limit_stop(block(), true, Some(&f), 1).is_block());
        assert!(limit_stop(block(), true, None, 0).is_block());
    }
}
