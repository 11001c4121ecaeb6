//! The evidence record (pinned format, `formats.md` §1) and how a hook payload becomes one.
//!
//! Real Claude Code shapes (`claude-code-hooks.md`): a failing Bash call fires
//! PostToolUseFailure with `error: "Exit code N\n<output>"`; a successful one fires
//! PostToolUse with `tool_response.stdout` and no exit code at all, except that the
//! "expected" exit 1 of grep/find/diff/test carries `returnCodeInterpretation`. Other hosts'
//! shapes (a plain string response, `exit_code`/`exitCode`/`returncode` keys) are a fallback.

use crate::evidence::redact::redact;
use crate::hook::HookInput;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Longest `cmd` and `tail`, in characters (pinned).
pub const MAX_CMD_CHARS: usize = 4000;
pub const MAX_TAIL_CHARS: usize = 4000;
/// Longest `head`, in characters: the output's start, kept only when the tail cut it.
pub const MAX_HEAD_CHARS: usize = 1000;
/// The line a reader puts between `head` and `tail` ([`Record::output`]): what the two
/// left out. Never written to the log.
pub const OUTPUT_CUT: &str = "[\u{2026} fable: output cut here \u{2026}]";

/// One evidence record: one line of `.fable/evidence.jsonl`.
///
/// Field names and types are a contract read by outside tools: only optional fields may
/// be added, and readers ignore unknown fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub v: u32,
    pub ts: String,
    #[serde(default)]
    pub session: String,
    #[serde(default)]
    pub cwd: String,
    pub cmd: String,
    pub exit: Option<i64>,
    pub ok: bool,
    #[serde(default)]
    pub tail: String,
    /// The output's first [`MAX_HEAD_CHARS`] characters, present only when the output was
    /// longer than the tail keeps: tools that print their error first and then a page of
    /// usage (`npm ci`'s "Missing: x from lock file"), or a cascade whose first error is
    /// the cause, lost the decisive line to the tail's cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<String>,
    /// The file a Write/Edit/MultiEdit/NotebookEdit call changed (an edit record: `cmd`
    /// is empty). The close guard wants a cited pass newer than the session's last edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The counts the tool printed in its closing summary (`summary`): a run whose
    /// summary shows failures is not a pass, whatever its exit status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<crate::evidence::summary::Summary>,
    /// The host's task id when the call was launched with `run_in_background`: the
    /// record is of the launch, `exit` stays null, and the command's real result never
    /// reaches a hook — so it backs nothing, and is not reported as a failure either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<String>,
    /// When `fable evidence import` appended this record (RFC 3339 UTC): `ts` is the
    /// source's claim, this is when it entered this log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<String>,
    /// The project's files as this passing run left them (`tree`: a hash of every
    /// counted file's path, size, mtime, ctime and inode). A cited pass is stale when the
    /// files differ now, whatever changed them; see `docs/freshness.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
    /// The agent CLI that ran the call when it is not Claude Code (`"codex"`); absent (or
    /// `"claude"`) for Claude Code. Data only: nothing decides by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The first 16 hex digits of the previous sealed record's MAC (see `seal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    /// HMAC-SHA256 of the line's bytes before it under the user's key (see `seal`);
    /// always the last field, so the verifier works on the bytes as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

impl Record {
    /// The output as a reader sees it: the tail, or, when the output was cut, its head,
    /// the [`OUTPUT_CUT`] line and the tail (whose first line the cut may have split).
    pub fn output(&self) -> std::borrow::Cow<'_, str> {
        match &self.head {
            Some(head) if !head.is_empty() => format!("{head}\n{OUTPUT_CUT}\n{}", self.tail).into(),
            _ => self.tail.as_str().into(),
        }
    }

    /// A record with the required fields set and every optional one absent; callers add
    /// optional fields with struct-update syntax (`Record { ms: Some(3), ..Record::new(…) }`).
    pub fn new(
        ts: impl Into<String>,
        session: impl Into<String>,
        cwd: impl Into<String>,
        cmd: impl Into<String>,
        exit: Option<i64>,
        ok: bool,
        tail: impl Into<String>,
    ) -> Record {
        Record {
            v: 1,
            ts: ts.into(),
            session: session.into(),
            cwd: cwd.into(),
            cmd: cmd.into(),
            exit,
            ok,
            tail: tail.into(),
            head: None,
            event: None,
            tool_use_id: None,
            agent: None,
            ms: None,
            trust: None,
            file: None,
            summary: None,
            background: None,
            imported: None,
            tree: None,
            host: None,
            chain: None,
            mac: None,
        }
    }

    /// True when the record proves a clean run: the host said success, the exit was 0,
    /// and the output's own summary (when one was recognised) shows no failure — so
    /// `cargo test 2>&1 | tail -5`, which exits 0 through the pipe, is no pass when its
    /// tail says `1 failed`.
    pub fn passed(&self) -> bool {
        self.ok && self.exit == Some(0) && !self.summary.is_some_and(|s| s.shows_failure())
    }

    /// True when the run backs a claim that it passed: [`Record::passed`], and it ran
    /// tests when it is a test runner (not `--help`, `--no-run`, a filter matching nothing,
    /// nor a summary lost to `| head` or `>/dev/null`). See `proof`.
    pub fn proves(&self) -> bool {
        crate::evidence::proof::shows(&self.cmd, self.exit, self.ok, self.summary).proves()
    }

    /// Serialises to one compact JSON line, newline included.
    pub fn to_line(&self) -> String {
        let mut s = serde_json::to_string(self).expect("a record always serialises");
        s.push('\n');
        s
    }
}

/// The current time as the pinned timestamp: RFC 3339 UTC with milliseconds.
///
/// `FABLE_TEST_CLOCK_OFFSET_MS` (read only when set) shifts it, so tests can show that a
/// clock that jumps neither hides an edit nor blocks an honest rerun.
pub fn now_ts() -> String {
    let mut now = chrono::Utc::now();
    if let Some(ms) = std::env::var("FABLE_TEST_CLOCK_OFFSET_MS")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
    {
        now += chrono::Duration::milliseconds(ms);
    }
    now.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// The first `max` characters of `s`.
pub fn head_chars(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The `head` a record keeps of an (already redacted) output: its first
/// [`MAX_HEAD_CHARS`] characters, only when the tail's cap cuts it. One rule for every
/// writer (the hook, `fable evidence import`, a replay's record).
pub fn head_if_cut(output: &str) -> Option<String> {
    (output.chars().nth(MAX_TAIL_CHARS).is_some()).then(|| head_chars(output, MAX_HEAD_CHARS).to_string())
}

/// The last `max` characters of `s`.
pub fn tail_chars(s: &str, max: usize) -> &str {
    let n = s.chars().count();
    if n <= max {
        return s;
    }
    match s.char_indices().nth(n - max) {
        Some((i, _)) => &s[i..],
        None => s,
    }
}

/// Parses `Exit code N` from the first line of a failure text. Returns the code and the
/// rest of the text (the combined output).
pub fn parse_exit_line(text: &str) -> Option<(i64, &str)> {
    let (first, rest) = match text.find('\n') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    };
    let n = first.trim().strip_prefix("Exit code")?.trim();
    let code = n.parse::<i64>().ok()?;
    Some((code, rest))
}

/// Finds `Exit code N` anywhere in a text (other hosts' string responses).
fn find_exit_code(text: &str) -> Option<i64> {
    let i = text.find("Exit code ")?;
    let digits: String = text[i + 10..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// An explicit exit status under one of the keys other hosts use.
fn explicit_exit(resp: &Value) -> Option<i64> {
    ["exit_code", "exitCode", "returncode", "return_code", "code", "status"]
        .iter()
        .find_map(|k| resp.get(*k).and_then(Value::as_i64))
}

fn joined_output(resp: &Value) -> String {
    if let Some(s) = resp.as_str() {
        return s.to_string();
    }
    let stdout = resp
        .get("stdout")
        .and_then(Value::as_str)
        .or_else(|| resp.get("output").and_then(Value::as_str));
    let stderr = resp.get("stderr").and_then(Value::as_str).unwrap_or("");
    match (stdout, stderr.is_empty()) {
        (Some(o), true) => o.to_string(),
        (Some(""), false) => stderr.to_string(),
        (Some(o), false) => format!("{o}\n{stderr}"),
        (None, _) => stderr.to_string(),
    }
}

/// Exit status, host verdict and combined output of a tool call, from its payload.
pub fn outcome(input: &HookInput) -> (Option<i64>, bool, String) {
    if input.hook_event_name == "PostToolUseFailure" || input.error.is_some() && input.tool_response.is_null() {
        let err = input.error.clone().unwrap_or_default();
        return match parse_exit_line(&err) {
            Some((code, rest)) => (Some(code), false, rest.to_string()),
            // Interrupted or a host error without an exit line: the status is unknown.
            None => (None, false, err),
        };
    }
    let resp = &input.tool_response;
    let output = joined_output(resp);
    if resp.get("backgroundTaskId").is_some() || resp.get("interrupted").and_then(Value::as_bool) == Some(true) {
        // A background launch or an interrupted call: the real exit status never reaches us.
        return (None, true, output);
    }
    if let Some(code) = explicit_exit(resp) {
        return (Some(code), code == 0, output);
    }
    if resp.get("exit_code").is_some_and(Value::is_null) {
        // A host that says it could not learn the status (a Codex call whose rollout
        // line was not found): unknown is no success.
        return (None, false, output);
    }
    if resp.get("returnCodeInterpretation").is_some() {
        // grep/find/diff/test "expected" exit 1: a success by the host, status 1.
        return (Some(1), true, output);
    }
    if resp.is_object()
        && (resp.get("is_error").and_then(Value::as_bool) == Some(true)
            || resp.get("isError").and_then(Value::as_bool) == Some(true))
    {
        return (find_exit_code(&output).or(Some(1)), false, output);
    }
    if let Some(s) = resp.as_str() {
        if let Some(code) = find_exit_code(s) {
            return (Some(code), code == 0, output);
        }
    }
    if input.hook_event_name == "PostToolUse" && resp.is_object() {
        // Claude Code's success shape: no exit code, and none needed.
        return (Some(0), true, output);
    }
    (None, true, output)
}

/// The task id of a `run_in_background` launch (PostToolUse carries `backgroundTaskId`).
fn background_task(input: &HookInput) -> Option<String> {
    let id = input.tool_response.get("backgroundTaskId")?;
    Some(id.as_str().map_or_else(|| id.to_string(), str::to_string))
}

/// The file tools whose calls are logged as edit records.
pub const EDIT_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// An edit record for a successful file-tool call: when and which file, no command. A
/// failed edit changed nothing and is not logged.
pub fn edit_record_from(input: &HookInput, env_session: Option<&str>, ts: String) -> Option<Record> {
    if !EDIT_TOOLS.contains(&input.tool_name.as_str()) || input.hook_event_name == "PostToolUseFailure" {
        return None;
    }
    let file = input
        .tool_input_str("file_path")
        .or_else(|| input.tool_input_str("notebook_path"))?;
    let session = if input.session_id.is_empty() {
        env_session.unwrap_or("").to_string()
    } else {
        input.session_id.clone()
    };
    Some(Record {
        file: Some(head_chars(file, MAX_CMD_CHARS).to_string()),
        event: Some(input.hook_event_name.clone()).filter(|e| !e.is_empty()),
        tool_use_id: (!input.tool_use_id.is_empty()).then(|| input.tool_use_id.clone()),
        agent: input.agent_id.clone(),
        host: input.host.clone(),
        ..Record::new(ts, session, input.cwd.clone(), "", None, true, "")
    })
}

/// Builds the record for a Bash tool call, or `None` when the payload carries no command.
pub fn record_from(input: &HookInput, env_session: Option<&str>, ts: String) -> Option<Record> {
    let cmd = input.command()?.trim();
    if cmd.is_empty() {
        return None;
    }
    let (exit, ok, output) = outcome(input);
    let cmd = redact(cmd);
    let tail = redact(&output);
    let session = if input.session_id.is_empty() {
        env_session.unwrap_or("").to_string()
    } else {
        input.session_id.clone()
    };
    Some(Record {
        v: 1,
        ts,
        session,
        cwd: input.cwd.clone(),
        cmd: head_chars(&cmd, MAX_CMD_CHARS).to_string(),
        exit,
        ok,
        tail: tail_chars(&tail, MAX_TAIL_CHARS).to_string(),
        head: head_if_cut(&tail),
        event: (!input.hook_event_name.is_empty()).then(|| input.hook_event_name.clone()),
        tool_use_id: (!input.tool_use_id.is_empty()).then(|| input.tool_use_id.clone()),
        agent: input.agent_id.clone(),
        ms: input.duration_ms,
        trust: None,
        file: None,
        summary: crate::evidence::summary::parse(&cmd, &output),
        background: background_task(input),
        imported: None,
        tree: None,
        host: input.host.clone(),
        chain: None,
        mac: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(json: &str) -> HookInput {
        HookInput::parse(json.as_bytes()).unwrap()
    }

    fn rec(json: &str) -> Record {
        record_from(&input(json), None, "2026-12-02T12:00:00.000Z".into()).unwrap()
    }

    #[test]
    fn failure_payload_gives_exit_and_tail() {
        let r = rec(
            r#"{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"ls /nonexistent"},"tool_use_id":"t1","error":"Exit code 2\nls: cannot access '/nonexistent': No such file or directory","duration_ms":21}"#,
        );
        assert_eq!((r.exit, r.ok), (Some(2), false));
        assert_eq!(r.tail, "ls: cannot access '/nonexistent': No such file or directory");
        assert_eq!(r.event.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(r.ms, Some(21));
        assert_eq!(r.tool_use_id.as_deref(), Some("t1"));
    }

    #[test]
    fn success_payload_is_exit_zero_and_merges_stderr() {
        let r = rec(
            r#"{"hook_event_name":"PostToolUse","tool_input":{"command":"echo out"},"tool_response":{"stdout":"out","stderr":"err","interrupted":false}}"#,
        );
        assert_eq!((r.exit, r.ok, r.tail.as_str()), (Some(0), true, "out\nerr"));
        let r = rec(
            r#"{"hook_event_name":"PostToolUse","tool_input":{"command":"grep x f"},"tool_response":{"stdout":"","stderr":"","returnCodeInterpretation":"No matches found"}}"#,
        );
        assert_eq!((r.exit, r.ok), (Some(1), true));
    }

    #[test]
    fn other_host_shapes_and_unknowns() {
        let r = rec(
            r#"{"hook_event_name":"PostToolUse","tool_input":{"command":"make"},"tool_response":{"output":"boom","exit_code":3}}"#,
        );
        assert_eq!((r.exit, r.ok, r.tail.as_str()), (Some(3), false, "boom"));
        let r = rec(
            r#"{"hook_event_name":"PostToolUse","tool_input":{"command":"make"},"tool_response":"Exit code 4\nno rule"}"#,
        );
        assert_eq!((r.exit, r.ok), (Some(4), false));
        let r = rec(r#"{"tool_input":{"command":"make"},"tool_response":"plain text"}"#);
        assert_eq!(r.exit, None);
        let r = rec(
            r#"{"hook_event_name":"PostToolUse","tool_input":{"command":"sleep 9","run_in_background":true},"tool_response":{"stdout":"","backgroundTaskId":"b1"}}"#,
        );
        assert_eq!(r.exit, None);
        let r = rec(
            r#"{"hook_event_name":"PostToolUseFailure","tool_input":{"command":"x"},"error":"Interrupted by user","is_interrupt":true}"#,
        );
        assert_eq!((r.exit, r.ok), (None, false));
        assert!(record_from(&input(r#"{"tool_input":{"command":"  "}}"#), None, String::new()).is_none());
        assert!(record_from(&input(r#"{"tool_input":{}}"#), None, String::new()).is_none());
    }

    #[test]
    fn caps_and_redacts() {
        let long = "x".repeat(5000);
        let j = serde_json::json!({"hook_event_name":"PostToolUse","tool_input":{"command": format!("echo {long} TOKEN=abc123")},"tool_response":{"stdout": format!("{long}é password=hunter2")}});
        let r = rec(&j.to_string());
        assert_eq!(r.cmd.chars().count(), 4000);
        assert_eq!(r.tail.chars().count(), 4000);
        assert!(r.tail.ends_with("password=[REDACTED]"));
        assert_eq!(tail_chars("héllo", 4), "éllo");
        // The output's start, kept because the tail cut it; redacted like the tail.
        let head = r.head.as_deref().unwrap();
        assert_eq!(head.chars().count(), MAX_HEAD_CHARS);
        assert!(r.output().starts_with(head) && r.output().contains(OUTPUT_CUT));
        assert_eq!(head_chars("héllo", 2), "hé");
    }

    #[test]
    fn record_line_round_trips_and_omits_absent_optionals() {
        let r = rec(
            r#"{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUse","tool_input":{"command":"true"},"tool_response":{"stdout":""}}"#,
        );
        let line = r.to_line();
        assert!(line.ends_with('\n') && !line.contains("\"agent\"") && !line.contains("\"trust\""));
        // An output the tail holds whole has no head.
        assert!(!line.contains("\"head\"") && r.output() == r.tail);
        let back: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(back, r);
        assert!(line.starts_with(r#"{"v":1,"ts":"2026-12-02T12:00:00.000Z","session":"s","cwd":"/p","cmd":"true","exit":0,"ok":true,"tail":"""#));
    }
}
