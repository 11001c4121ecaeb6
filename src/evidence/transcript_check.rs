//! Was this payload sent by Claude Code? The evidence hook's check before it logs.
//!
//! The evidence hook reads a payload on stdin, and anything can write a stdin: an agent
//! that pipes `{"hook_event_name":"PostToolUse",…"tool_input":{"command":"pytest"}…}`
//! into `fable-evidence` got a sealed record of a run that never happened. What the agent
//! cannot easily fake is Claude Code's own transcript of the session: before a tool runs,
//! Claude Code writes the model's `tool_use` block (id, name, input) to the JSONL file the
//! payload names in `transcript_path` (observed with 2.1.332: at PostToolUse time the
//! `tool_use` line is there and its `tool_result` is not yet; a sub-agent's calls are in
//! `<transcript without .jsonl>/subagents/agent-<agent_id>.jsonl`, while the payload's
//! `transcript_path` names the main one). So, under Claude Code, a payload is logged
//! only when that transcript holds a `tool_use` with the payload's `tool_use_id`, the same
//! tool and the same command (or file); otherwise it is refused and the attempt noted.
//!
//! When the check applies: only when the hook runs under Claude Code, which puts
//! `CLAUDE_CODE_SESSION_ID` in the environment of its hooks *and* of the agent's Bash
//! commands (so a payload piped from the agent's shell is checked too). Hand-made
//! payloads in tests and other hosts (Codex writes a transcript of another shape) run
//! without it and are not checked: a payload with no Claude Code around cannot be
//! compared with anything. Under Claude Code a payload without `transcript_path` is
//! refused: every real one carries it. The transcript must also look like Claude Code's:
//! `<session_id>.jsonl` under `${CLAUDE_CONFIG_DIR:-~/.claude}/projects/`, so a
//! forger cannot name a transcript it wrote in `/tmp` (writing into that folder is one of
//! the Bash commands the log guard denies).
//!
//! `FABLE_TRANSCRIPT_CHECK=id` matches the id and tool only (for setups where another
//! PreToolUse hook rewrites commands through `updatedInput`, so the command run differs
//! from the one the model wrote); `off` turns the check off. What it cannot see: a
//! same-user process may append a fake `tool_use` line to the real transcript first, or
//! reuse the id of the call that is running (then the record it forges carries that
//! call's whole command, the forging pipeline included). SECURITY.md has the rest.
//!
//! Cost: the transcript is read from its end in windows that grow fourfold from 16 KiB (the
//! `tool_use` line is normally within the last few KiB); only a miss reads far back, at
//! most 64 MiB, and then waits for the transcript writer (up to 3 s,
//! `FABLE_TRANSCRIPT_WAIT_MS`) before it refuses: a miss is a refusal, not the hot path.

use crate::hook::{Answer, HookInput};

/// The hook that runs this check, as attempts are noted.
const HOOK: &str = "fable-evidence";
use crate::runner::HookEnv;
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

/// First window read from the end of the transcript.
const FIRST_WINDOW: u64 = 16 * 1024;
/// The furthest back a miss reads.
const MAX_WINDOW: u64 = 64 * 1024 * 1024;
/// How far back a second look reads (the line it waits for is a new one).
const RETRY_WINDOW: u64 = 1024 * 1024;
/// How long a miss waits for Claude Code's transcript writer (`FABLE_TRANSCRIPT_WAIT_MS`).
const DEFAULT_WAIT_MS: u64 = 3000;

/// How strictly payloads are compared with the transcript (`FABLE_TRANSCRIPT_CHECK`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Off,
    /// The id and the tool must match.
    Id,
    /// The id, the tool and the command (or file) must match: the default.
    Command,
}

impl Mode {
    pub fn from_env(env: &HookEnv) -> Mode {
        match env.var("FABLE_TRANSCRIPT_CHECK").map(str::trim) {
            Some("off" | "0" | "false") => Mode::Off,
            Some("id") => Mode::Id,
            _ => Mode::Command,
        }
    }
}

/// The check's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing to check against (not under Claude Code) or the check is off.
    Unchecked,
    /// The transcript holds this call.
    Seen,
    /// Refused: why, in one line.
    Refused(String),
}

/// Whether this hook runs under Claude Code (see the module docs).
pub fn under_claude_code(env: &HookEnv) -> bool {
    env.var("CLAUDE_CODE_SESSION_ID").is_some()
}

/// Checks a PostToolUse(Failure) payload against the session's transcript.
pub fn check(input: &HookInput, env: &HookEnv) -> Verdict {
    let mode = Mode::from_env(env);
    if mode == Mode::Off || !under_claude_code(env) {
        return Verdict::Unchecked;
    }
    let id = input.tool_use_id.as_str();
    if id.is_empty() || id.len() > 200 || !id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-')) {
        return Verdict::Refused(format!(
            "its tool_use_id {:?} is not one Claude Code makes",
            crate::hook::printable(id, 60)
        ));
    }
    if input.transcript_path.is_empty() {
        return Verdict::Refused("it names no transcript, and Claude Code names one in every payload".into());
    }
    let main = match transcript_location(input, env) {
        Ok(p) => p,
        Err(why) => return Verdict::Refused(why),
    };
    let mut files = Vec::new();
    if let Some(agent) = input.agent_id.as_deref().filter(|a| !a.is_empty()) {
        if agent
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        {
            let stem = main.with_extension("");
            files.push(stem.join("subagents").join(format!("agent-{agent}.jsonl")));
        }
    }
    files.push(main);
    // Claude Code writes its transcript through a queue flushed every ~100 ms, so a fast
    // command's hook can run before the call's line is on disk (seen under load: `false`
    // refused once in ten runs). A miss waits and looks again, nearer the end, until the
    // deadline; only a miss pays for it, and a forged payload is refused late, not wrongly.
    let wait = std::time::Duration::from_millis(env.var_u64("FABLE_TRANSCRIPT_WAIT_MS", DEFAULT_WAIT_MS));
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(10);
    let mut window = MAX_WINDOW;
    loop {
        for f in &files {
            if let Some(block) = find_tool_use(f, id, window) {
                return compare(input, &block, mode);
            }
        }
        let left = wait.saturating_sub(start.elapsed());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(pause.min(left));
        pause = (pause * 2).min(std::time::Duration::from_millis(250));
        window = RETRY_WINDOW;
    }
    Verdict::Refused(format!(
        "tool_use_id {id} is not a tool call in the session's transcript"
    ))
}

/// The evidence hook's gate: `None` to log this payload, else the answer to give
/// instead of a record. A refused payload and a second, different payload for a call
/// already logged are noted in user state ([`crate::evidence::tamper_log`]) and told to
/// the user; an identical second payload (one hook registered in two scopes) is dropped
/// without a word.
pub fn admit(input: &HookInput, env: &HookEnv) -> Option<Answer> {
    use crate::evidence::first_record::{self, Claim};
    let session = if input.session_id.is_empty() {
        env.var("CLAUDE_CODE_SESSION_ID").unwrap_or("")
    } else {
        &input.session_id
    };
    let get = |k: &str| env.var(k).map(str::to_string);
    let what = || {
        let call = input
            .command()
            .or_else(|| input.tool_input_str("file_path"))
            .unwrap_or(&input.tool_name);
        format!(
            "a {} payload for `{}`",
            crate::hook::printable(&input.hook_event_name, 40),
            crate::hook::printable(call, 120)
        )
    };
    let refuse = |why: String| {
        let text = format!("refused {} ({why}); it is not logged", what());
        crate::evidence::tamper_log::note(get, session, HOOK, &text);
        Some(
            Answer::allow()
                .with_note(format!("[fable] {HOOK}: {text}"))
                .with_system_message(format!("fable: {text}.")),
        )
    };
    let seen = match check(input, env) {
        Verdict::Unchecked => false,
        Verdict::Refused(why) => return refuse(why),
        Verdict::Seen => true,
    };
    // One claim per call, also the guard against a hook registered twice (one symlink).
    match first_record::try_claim(get, session, &input.tool_use_id, first_record::fingerprint(input)) {
        Some(Claim::First) => None,
        Some(Claim::Same) => Some(Answer::allow()),
        Some(Claim::Different) if seen => refuse(format!(
            "tool_use_id {} was already logged with other content; the first record stands",
            input.tool_use_id
        )),
        // Not under Claude Code, or nowhere to claim: the project's claim file keeps one
        // record per identical payload and never drops a different one.
        _ => {
            let fable_dir = env.project(input)?.fable_dir;
            let first = crate::evidence::dedupe::first_call(&fable_dir, HOOK, &input.tool_use_id, &input.raw);
            (!first).then(Answer::allow)
        }
    }
}

/// The transcript the payload names, if it is where Claude Code keeps transcripts.
fn transcript_location(input: &HookInput, env: &HookEnv) -> Result<PathBuf, String> {
    let p = Path::new(&input.transcript_path);
    let shown = crate::hook::printable(&input.transcript_path, 200);
    if !p.is_absolute() || p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!("its transcript {shown} is not an absolute, plain path"));
    }
    let stem_ok = input.session_id.is_empty()
        || p.file_name().and_then(|n| n.to_str()) == Some(format!("{}.jsonl", input.session_id).as_str());
    if !stem_ok {
        return Err(format!(
            "its transcript {shown} is not the session's ({}.jsonl)",
            input.session_id
        ));
    }
    let base = env
        .var("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| env.var("HOME").map(|h| Path::new(h).join(".claude")))
        .map(|d| d.join("projects"));
    let Some(base) = base else { return Ok(p.to_path_buf()) };
    let inside = p.starts_with(&base)
        || match (p.canonicalize(), base.canonicalize()) {
            (Ok(cp), Ok(cb)) => cp.starts_with(cb),
            _ => false,
        };
    if inside {
        Ok(p.to_path_buf())
    } else {
        Err(format!("its transcript {shown} is not under {}", base.display()))
    }
}

/// The `tool_use` block with `id` in the JSONL file at `path`, searched from the end.
pub fn find_tool_use(path: &Path, id: &str, max_window: u64) -> Option<Value> {
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let needle = format!("\"{id}\"");
    let needle = needle.as_bytes();
    let mut window = FIRST_WINDOW;
    let mut buf = Vec::new();
    loop {
        let start = len.saturating_sub(window);
        f.seek(SeekFrom::Start(start)).ok()?;
        buf.clear();
        // Room for the whole window first: one read, not a dozen growing ones.
        buf.reserve(usize::try_from(len - start).ok()? + 1);
        (&mut f).take(len - start).read_to_end(&mut buf).ok()?;
        // Newest first: the call is normally in the last few lines.
        let hits = (0..buf.len().saturating_sub(needle.len() - 1))
            .rev()
            .filter(|&i| buf[i] == b'"' && buf[i..].starts_with(needle));
        for at in hits {
            let line_start = buf[..at].iter().rposition(|b| *b == b'\n').map(|i| i + 1);
            // A line cut by the window's start is read whole by the next, wider window.
            let Some(line_start) = line_start.or((start == 0).then_some(0)) else {
                continue;
            };
            let line_end = buf[at..].iter().position(|b| *b == b'\n').map_or(buf.len(), |i| at + i);
            if let Some(block) = tool_use_in_line(&buf[line_start..line_end], id) {
                return Some(block);
            }
        }
        if start == 0 || window >= max_window {
            return None;
        }
        window = (window * 4).min(max_window);
    }
}

/// The `tool_use` block with `id` in one transcript line (`message.content[]`).
fn tool_use_in_line(line: &[u8], id: &str) -> Option<Value> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let content = v.get("message")?.get("content")?.as_array()?;
    content
        .iter()
        .find(|b| {
            b.get("type").and_then(Value::as_str) == Some("tool_use") && b.get("id").and_then(Value::as_str) == Some(id)
        })
        .cloned()
}

/// Whether the transcript's block is the call the payload describes.
fn compare(input: &HookInput, block: &Value, mode: Mode) -> Verdict {
    let name = block.get("name").and_then(Value::as_str).unwrap_or("");
    if name != input.tool_name {
        return Verdict::Refused(format!(
            "tool_use_id {} is a {name} call in the transcript, not {}",
            input.tool_use_id,
            crate::hook::printable(&input.tool_name, 40)
        ));
    }
    if mode == Mode::Id {
        return Verdict::Seen;
    }
    let key = ["command", "file_path", "notebook_path"]
        .into_iter()
        .find(|k| input.tool_input.get(*k).is_some());
    let Some(key) = key else { return Verdict::Seen };
    let theirs = block.get("input").and_then(|i| i.get(key));
    if theirs == input.tool_input.get(key) {
        Verdict::Seen
    } else {
        Verdict::Refused(format!(
            "tool_use_id {} ran another {key} in the transcript than the payload says (a PreToolUse hook rewriting commands? then set FABLE_TRANSCRIPT_CHECK=id)",
            input.tool_use_id
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Fixture {
        _t: tempfile::TempDir,
        home: PathBuf,
        transcript: PathBuf,
    }

    fn fixture(lines: &[Value]) -> Fixture {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let dir = home.join(".claude/projects/-p");
        std::fs::create_dir_all(&dir).unwrap();
        let transcript = dir.join("sid.jsonl");
        let mut text = String::new();
        // Bulk before, as real transcripts have (prompt snapshots of ~56 KB).
        text.push_str(&format!("{}\n", json!({"type":"attachment","x":"y".repeat(300_000)})));
        for l in lines {
            text.push_str(&format!("{l}\n"));
        }
        std::fs::write(&transcript, text).unwrap();
        Fixture {
            _t: t,
            home,
            transcript,
        }
    }

    fn tool_use(id: &str, name: &str, cmd: &str) -> Value {
        json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":id,"name":name,"input":{"command":cmd,"description":"x"}}]}})
    }

    fn payload(fx: &Fixture, id: &str, cmd: &str) -> HookInput {
        HookInput::from_value(
            json!({"session_id":"sid","transcript_path":fx.transcript,"hook_event_name":"PostToolUse",
            "tool_name":"Bash","tool_input":{"command":cmd},"tool_use_id":id,"tool_response":{"stdout":""}}),
        )
        .unwrap()
    }

    fn env(fx: &Fixture, extra: &[(&str, &str)]) -> HookEnv {
        let mut v = vec![
            ("HOME".to_string(), fx.home.to_string_lossy().into_owned()),
            ("CLAUDE_CODE_SESSION_ID".into(), "sid".into()),
            ("FABLE_TRANSCRIPT_WAIT_MS".into(), "0".into()),
        ];
        v.extend(extra.iter().map(|(k, x)| (k.to_string(), x.to_string())));
        HookEnv::with_vars(v)
    }

    #[test]
    fn a_real_call_is_seen_and_forgeries_are_refused() {
        let fx = fixture(&[
            tool_use("toolu_a", "Bash", "pytest -q"),
            json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_b"}]}}),
        ]);
        let e = env(&fx, &[]);
        assert_eq!(check(&payload(&fx, "toolu_a", "pytest -q"), &e), Verdict::Seen);
        // An id not in the transcript (a tool_result mention is not a call), another
        // command under a real id, a missing transcript, a fake one elsewhere.
        for (p, why) in [
            (payload(&fx, "toolu_zzz", "pytest -q"), "not a tool call"),
            (payload(&fx, "toolu_b", "pytest -q"), "not a tool call"),
            (payload(&fx, "toolu_a", "pytest -q; echo 5 passed"), "another command"),
        ] {
            match check(&p, &e) {
                Verdict::Refused(w) => assert!(w.contains(why), "{w}"),
                v => panic!("{v:?}"),
            }
        }
        let mut p = payload(&fx, "toolu_a", "pytest -q");
        p.transcript_path.clear();
        assert!(matches!(check(&p, &e), Verdict::Refused(w) if w.contains("names no transcript")));
        let fake = fx.home.join("fake/sid.jsonl");
        std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
        std::fs::copy(&fx.transcript, &fake).unwrap();
        p.transcript_path = fake.to_string_lossy().into_owned();
        assert!(matches!(check(&p, &e), Verdict::Refused(w) if w.contains("is not under")));
        // `id` mode accepts another command under a real id; `off` and no Claude Code check nothing.
        assert_eq!(
            check(
                &payload(&fx, "toolu_a", "other"),
                &env(&fx, &[("FABLE_TRANSCRIPT_CHECK", "id")])
            ),
            Verdict::Seen
        );
        assert_eq!(
            check(
                &payload(&fx, "toolu_zzz", "x"),
                &env(&fx, &[("FABLE_TRANSCRIPT_CHECK", "off")])
            ),
            Verdict::Unchecked
        );
        let no_cc = HookEnv::with_vars([("HOME", fx.home.to_string_lossy().into_owned())]);
        assert_eq!(check(&payload(&fx, "toolu_zzz", "x"), &no_cc), Verdict::Unchecked);
    }

    #[test]
    fn a_call_far_back_is_still_found_and_a_subagent_call_in_its_own_file() {
        let mut lines = vec![tool_use("toolu_old", "Bash", "make")];
        lines.extend((0..40).map(|i| json!({"type":"attachment","n":i,"pad":"z".repeat(20_000)})));
        let fx = fixture(&lines);
        assert_eq!(check(&payload(&fx, "toolu_old", "make"), &env(&fx, &[])), Verdict::Seen);
        let sub = fx.transcript.with_extension("").join("subagents/agent-a1.jsonl");
        std::fs::create_dir_all(sub.parent().unwrap()).unwrap();
        std::fs::write(&sub, format!("{}\n", tool_use("toolu_sub", "Bash", "ls"))).unwrap();
        let mut p = payload(&fx, "toolu_sub", "ls");
        p.agent_id = Some("a1".into());
        assert_eq!(check(&p, &env(&fx, &[])), Verdict::Seen);
    }
}
