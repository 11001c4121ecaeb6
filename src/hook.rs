//! The Claude Code hook protocol: what a hook reads on stdin and how it answers.
//!
//! Payload shapes come from `docs/claude-code-hooks.md` (captured from the real CLI).
//! Parsing is deliberately lenient: unknown fields are ignored, missing optional fields
//! default, and a field of an unexpected type reads as absent — a new Claude Code version
//! must never turn one of our hooks into a crash.

use serde_json::{json, Map, Value};

/// One hook invocation's stdin, with the fields any fable hook reads.
///
/// Built from a JSON object by [`HookInput::from_value`]; the raw object is kept in
/// `raw` for fields only one hook cares about.
#[derive(Debug, Clone, Default)]
pub struct HookInput {
    pub session_id: String,
    pub transcript_path: String,
    pub cwd: String,
    pub hook_event_name: String,
    pub tool_name: String,
    pub tool_input: Value,
    pub tool_response: Value,
    pub tool_use_id: String,
    /// PostToolUseFailure: `"Exit code N\n<combined output>"`.
    pub error: Option<String>,
    pub is_interrupt: bool,
    pub duration_ms: Option<u64>,
    /// Stop / SubagentStop: true when the previous Stop was blocked (loop safety).
    pub stop_hook_active: bool,
    pub last_assistant_message: Option<String>,
    /// SessionStart: startup, resume, clear, compact, fork.
    pub source: Option<String>,
    /// SessionStart: the session's model, when the host says.
    pub model: Option<String>,
    /// SessionEnd: why the session ended.
    pub reason: Option<String>,
    pub prompt: Option<String>,
    /// Set inside a sub-agent.
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    /// The host that sent the payload when it is not Claude Code (`"codex"`), set by the
    /// host adapter (`crate::host`), never read from the payload; recorded as data only.
    pub host: Option<String>,
    pub raw: Value,
}

/// Why stdin could not be turned into a [`HookInput`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InputError {
    #[error("empty stdin")]
    Empty,
    #[error("malformed stdin: {0}")]
    Malformed(String),
    #[error("stdin is JSON but not an object")]
    NotObject,
}

fn str_field(m: &Map<String, Value>, k: &str) -> String {
    m.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn opt_str(m: &Map<String, Value>, k: &str) -> Option<String> {
    m.get(k).and_then(Value::as_str).map(str::to_string)
}

/// A boolean that some hosts send as a string or number.
fn truthy(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "1" | "yes"),
        _ => false,
    }
}

/// Replaces every `\uXXXX` escape of a lone UTF-16 surrogate with `\ufffd` (U+FFFD),
/// keeping well-formed pairs and every other escape as it is. `None` when there was none
/// to replace (the payload is malformed for another reason).
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    fn hex4(b: &[u8]) -> Option<u16> {
        let s = std::str::from_utf8(b.get(..4)?).ok()?;
        u16::from_str_radix(s, 16).ok()
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut last, mut changed) = (0, 0, false);
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) != Some(&b'u') {
            i += 2; // any other escape, `\\\\` included: skip both characters
            continue;
        }
        let Some(unit) = hex4(&b[i + 2..]) else {
            i += 2;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        let low = (0xDC00..0xE000).contains(&unit);
        let paired = high
            && b.get(i + 6) == Some(&b'\\')
            && b.get(i + 7) == Some(&b'u')
            && hex4(&b[(i + 8).min(b.len())..]).is_some_and(|n| (0xDC00..0xE000).contains(&n));
        if paired {
            i += 12;
        } else if high || low {
            out.push_str(&text[last..i]);
            out.push_str("\\ufffd");
            i += 6;
            last = i;
            changed = true;
        } else {
            i += 6;
        }
    }
    out.push_str(&text[last..]);
    changed.then_some(out)
}

impl HookInput {
    /// Parses raw stdin bytes. Errors name what was wrong, for the fail-open note.
    pub fn parse(bytes: &[u8]) -> Result<HookInput, InputError> {
        // Invalid UTF-8 (a tool printed raw bytes) is replaced, never a reason to drop the
        // payload: a failing run must still be logged.
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_start_matches('\u{feff}').trim();
        if text.is_empty() {
            return Err(InputError::Empty);
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            // Claude Code is JavaScript: output cut mid-emoji reaches us as a lone surrogate
            // escape (`"\ud83d"`), which serde rejects. Dropping the payload would lose a
            // failure after a pass; so repair and retry (only on this rare path).
            Err(e) => match repair_lone_surrogates(text) {
                Some(fixed) => serde_json::from_str(&fixed).map_err(|_| InputError::Malformed(e.to_string()))?,
                // serde's message names line and column, enough to debug a host change.
                None => return Err(InputError::Malformed(e.to_string())),
            },
        };
        HookInput::from_value(value)
    }

    /// Builds the input from an already-parsed JSON value.
    pub fn from_value(value: Value) -> Result<HookInput, InputError> {
        let m = match &value {
            Value::Object(m) => m,
            _ => return Err(InputError::NotObject),
        };
        Ok(HookInput {
            session_id: str_field(m, "session_id"),
            transcript_path: str_field(m, "transcript_path"),
            cwd: str_field(m, "cwd"),
            hook_event_name: str_field(m, "hook_event_name"),
            tool_name: str_field(m, "tool_name"),
            tool_input: m.get("tool_input").cloned().unwrap_or(Value::Null),
            tool_response: m.get("tool_response").cloned().unwrap_or(Value::Null),
            tool_use_id: str_field(m, "tool_use_id"),
            error: opt_str(m, "error"),
            is_interrupt: truthy(m.get("is_interrupt")),
            duration_ms: m.get("duration_ms").and_then(Value::as_u64),
            stop_hook_active: truthy(m.get("stop_hook_active")),
            last_assistant_message: opt_str(m, "last_assistant_message"),
            source: opt_str(m, "source"),
            model: opt_str(m, "model"),
            reason: opt_str(m, "reason"),
            prompt: opt_str(m, "prompt"),
            agent_id: opt_str(m, "agent_id"),
            agent_type: opt_str(m, "agent_type"),
            host: None,
            raw: value.clone(),
        })
    }

    /// `tool_input.<key>` as a string, when it is one.
    pub fn tool_input_str(&self, key: &str) -> Option<&str> {
        self.tool_input.get(key).and_then(Value::as_str)
    }

    /// The Bash command of a tool call, if this payload carries one.
    pub fn command(&self) -> Option<&str> {
        self.tool_input_str("command")
    }
}

/// What a hook tells the host: an exit code plus what goes to stdout and stderr.
///
/// Constructors cover the channels in `claude-code-hooks.md` ("Answering").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    pub exit: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Answer {
    /// Exit 0, nothing said: the action proceeds.
    pub fn allow() -> Answer {
        Answer::default()
    }

    /// Exit 2 with the reason on stderr: blocks a Stop or a PreToolUse, and feeds the
    /// reason to the model after a PostToolUse(Failure).
    pub fn block(reason: impl Into<String>) -> Answer {
        let mut stderr: String = reason.into();
        if !stderr.ends_with('\n') {
            stderr.push('\n');
        }
        Answer {
            exit: 2,
            stdout: String::new(),
            stderr,
        }
    }

    /// Stop / SubagentStop: block through `{"decision":"block","reason":…}` on stdout, exit 0.
    /// Not exit 2: Claude Code 2.1.x drops an exit-2 Stop block whose stderr contains "no
    /// such file" (any case) and ends the turn, so the commonest replay failure (`cat` of a
    /// deleted file) never reached the model. The JSON channel has no such filter.
    pub fn block_stop(reason: impl Into<String>) -> Answer {
        Answer::json(&json!({"decision": "block", "reason": reason.into()}))
    }

    /// Exit 0 with `hookSpecificOutput.additionalContext`: non-error feedback to the model.
    pub fn context(event: &str, text: impl Into<String>) -> Answer {
        let v = json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text.into()}});
        Answer::json(&v)
    }

    /// Exit 0 with a JSON object on stdout (`decision`/`reason`, `permissionDecision`, …).
    pub fn json(v: &Value) -> Answer {
        Answer {
            exit: 0,
            stdout: format!("{v}\n"),
            stderr: String::new(),
        }
    }

    /// PreToolUse: deny the call through `permissionDecision` (exit 0 + JSON).
    pub fn deny_tool(reason: impl Into<String>) -> Answer {
        let v = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": reason.into()}});
        Answer::json(&v)
    }

    /// Adds a one-line note on stderr without changing the decision.
    /// With exit 0 the host shows the model nothing, so a note is for the user's logs.
    pub fn with_note(mut self, note: impl AsRef<str>) -> Answer {
        self.stderr.push_str(note.as_ref());
        if !self.stderr.ends_with('\n') {
            self.stderr.push('\n');
        }
        self
    }

    /// Adds a `systemMessage` (shown to the user, not the model) to the JSON answer on
    /// stdout, making one when there is none. For what the user must know although the
    /// decision stands: a log that could not be written, a stop allowed under a mode the
    /// agent set. An exit-2 answer stays as it is (its stdout is not read).
    pub fn with_system_message(mut self, msg: impl AsRef<str>) -> Answer {
        if self.exit == 2 {
            return self;
        }
        let mut v = serde_json::from_str::<Value>(&self.stdout)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({}));
        let joined = match v.get("systemMessage").and_then(Value::as_str) {
            Some(old) => format!("{old}\n{}", msg.as_ref()),
            None => msg.as_ref().to_string(),
        };
        v["systemMessage"] = Value::String(joined);
        self.stdout = format!("{v}\n");
        self
    }

    /// Blocks through either channel: exit 2, or `decision: block` on stdout.
    pub fn is_block(&self) -> bool {
        self.exit == 2 || serde_json::from_str::<Value>(&self.stdout).is_ok_and(|v| v["decision"] == "block")
    }
}

/// Repository text fit to show the model or print: control characters (escape sequences,
/// carriage returns, NULs) become spaces and at most `max` characters are kept, with `…`
/// when cut. Ledger and rule text comes from the repository, which may be a stranger's.
pub fn printable(text: &str, max: usize) -> String {
    // Control characters (ESC, BEL, OSC…) and bidirectional overrides, which can make a
    // line read other than it is, become spaces.
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() || is_bidi(c) { ' ' } else { c })
        .collect();
    match clean.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &clean[..i]),
        None => clean,
    }
}

/// Bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069)
/// and the marks U+200E/U+200F.
pub fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// Terminal text with every control character, escape sequence and bidi control made
/// visible (`\x1b`, `\u{202e}`): what a file, a log or a path holds is shown, never acted
/// on by the terminal (an OSC 52 sequence in a card title could write the clipboard).
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() || is_bidi(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The one-line fail-open note: `[fable] <hook>: <what> (ignored)`.
pub fn ignored_note(hook: &str, what: &str) -> String {
    let what = what.replace(['\n', '\r'], " ");
    format!("[fable] {hook}: {what} (ignored)\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_message_joins_the_json_answer() {
        let a = Answer::allow().with_system_message("one").with_system_message("two");
        let v: Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(v["systemMessage"], "one\ntwo");
        let b = Answer::block_stop("why").with_system_message("note");
        let v: Value = serde_json::from_str(&b.stdout).unwrap();
        assert_eq!(
            (v["decision"].as_str(), v["systemMessage"].as_str()),
            (Some("block"), Some("note"))
        );
        assert!(b.is_block());
        assert_eq!(Answer::block("x").with_system_message("y"), Answer::block("x"));
    }

    #[test]
    fn lone_surrogate_escapes_are_repaired_pairs_and_other_escapes_kept() {
        let cut = r#"{"session_id":"s","tool_response":{"stdout":"ok \ud83d"}}"#;
        let input = HookInput::parse(cut.as_bytes()).expect("repaired, not dropped");
        assert_eq!(input.raw["tool_response"]["stdout"], "ok \u{fffd}");
        assert_eq!(repair_lone_surrogates(r#""\ude00 x""#).unwrap(), r#""\ufffd x""#);
        // A well-formed pair, an escaped backslash before `u`, and no surrogate: untouched.
        assert_eq!(repair_lone_surrogates(r#""\ud83d\ude00""#), None);
        assert_eq!(repair_lone_surrogates(r#""\\ud83d""#), None);
        assert_eq!(repair_lone_surrogates(r#""\u00e9""#), None);
        // High then a non-low escape: only the high one goes.
        assert_eq!(
            repair_lone_surrogates(r#""\ud83d\u0041""#).unwrap(),
            r#""\ufffd\u0041""#
        );
    }

    #[test]
    fn parses_captured_failure_payload() {
        let raw = br#"{"session_id":"309a","transcript_path":"/t.jsonl","cwd":"/tmp/x/proj","prompt_id":"c974","permission_mode":"bypassPermissions","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"ls /nonexistent","description":"run ls"},"tool_use_id":"toolu_4a0c","error":"Exit code 2\nls: cannot access '/nonexistent': No such file or directory","is_interrupt":false,"duration_ms":21}"#;
        let h = HookInput::parse(raw).unwrap();
        assert_eq!(h.hook_event_name, "PostToolUseFailure");
        assert_eq!(h.command(), Some("ls /nonexistent"));
        assert_eq!(h.duration_ms, Some(21));
        assert!(h.error.unwrap().starts_with("Exit code 2"));
    }

    #[test]
    fn wrong_types_read_as_absent() {
        let h = HookInput::parse(br#"{"session_id":5,"cwd":null,"stop_hook_active":"true","tool_input":"x"}"#).unwrap();
        assert_eq!(h.session_id, "");
        assert_eq!(h.cwd, "");
        assert!(h.stop_hook_active);
        assert_eq!(h.command(), None);
    }

    #[test]
    fn bad_inputs_are_named() {
        assert_eq!(HookInput::parse(b"").unwrap_err(), InputError::Empty);
        assert_eq!(HookInput::parse(b"  \n").unwrap_err(), InputError::Empty);
        assert!(matches!(
            HookInput::parse(&[0xff, 0xfe, 0x00]).unwrap_err(),
            InputError::Malformed(_)
        ));
        let lossy = HookInput::parse(b"{\"tool_name\":\"Bash\",\"error\":\"Exit code 1\\n\xff\xfeboom\"}").unwrap();
        assert_eq!(lossy.error.as_deref(), Some("Exit code 1\n\u{fffd}\u{fffd}boom"));
        assert_eq!(HookInput::parse(b"[1,2]").unwrap_err(), InputError::NotObject);
        assert!(matches!(
            HookInput::parse(b"{nope").unwrap_err(),
            InputError::Malformed(_)
        ));
    }

    #[test]
    fn answers_use_the_documented_channels() {
        let b = Answer::block("no");
        assert_eq!((b.exit, b.stderr.as_str(), b.stdout.as_str()), (2, "no\n", ""));
        let c = Answer::context("PostToolUse", "hi");
        let v: Value = serde_json::from_str(&c.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "hi");
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
        assert_eq!(c.exit, 0);
        assert_eq!(
            ignored_note("fable-evidence", "bad\nthing"),
            "[fable] fable-evidence: bad thing (ignored)\n"
        );
    }
}
