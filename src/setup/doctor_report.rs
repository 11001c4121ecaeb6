//! What `fable doctor` found, and how it is shown: the scopes, hooks and problems
//! ([`crate::setup::doctor`] finds them), as text or JSON.
//!
//! Every line of text goes through the one sanitiser (`say!`, [`crate::hook::visible`]):
//! paths, commands and matchers come from settings files a repository may have written,
//! and a hook's own output from a program the doctor ran, so an escape sequence, a BEL or
//! a bidi override in them is shown, never acted on by the terminal. The JSON report
//! escapes control characters as JSON does.

use crate::setup::claude_version::Detected;
use serde_json::{json, Value};
use std::path::PathBuf;

/// One fable hook found in a scope, and what the doctor found about it.
#[derive(Debug, Clone)]
pub struct Hook {
    pub event: String,
    pub matcher: Option<String>,
    pub binary: &'static str,
    pub command: String,
    pub resolved: Option<PathBuf>,
    /// `answers`, `fails`, `missing`, `not_executable`, `changed`, `not_run` (a program fable
    /// did not install), or `resolves` when it could not be probed.
    pub status: &'static str,
    pub detail: String,
    pub millis: Option<u128>,
}

impl Hook {
    pub fn ok(&self) -> bool {
        matches!(self.status, "answers" | "resolves" | "not_run")
    }
}

/// One settings (or plugin hooks) file.
pub struct Scope {
    pub name: &'static str,
    pub file: PathBuf,
    pub exists: bool,
    pub error: Option<String>,
    /// Every event the file names, fable's or not (an old Claude Code may drop the file over one).
    pub events: Vec<String>,
    pub hooks: Vec<Hook>,
    /// The `fable install` / `fable uninstall` flags that address this scope.
    pub flags: String,
}

pub struct Problem {
    pub kind: &'static str,
    pub message: String,
}

/// One note naming every hook program the doctor did not run, and how to run them.
pub fn not_run_note(scopes: &[Scope], notes: &mut Vec<String>) {
    let mut programs: Vec<String> = Vec::new();
    for h in scopes.iter().flat_map(|s| &s.hooks).filter(|h| h.status == "not_run") {
        let p = h.resolved.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        if !programs.contains(&p) {
            programs.push(p);
        }
    }
    if !programs.is_empty() {
        let them = if programs.len() == 1 { "it" } else { "them" };
        notes.push(format!(
            "not run: {} (fable did not install {them}; the doctor runs only what fable installed on this \
             machine). Read {them} first; `fable doctor --run-project-hooks` probes {them} in a throwaway \
             project and HOME",
            programs.join(", "),
        ));
    }
}

pub fn matcher_text(m: &Option<String>) -> String {
    m.as_deref().map(|m| format!(" [{m}]")).unwrap_or_default()
}

pub fn scope_json(s: &Scope) -> Value {
    json!({
        "scope": s.name,
        "settings": s.file,
        "exists": s.exists,
        "error": s.error,
        "hooks": s.hooks.iter().map(|h| json!({
            "event": h.event,
            "matcher": h.matcher,
            "binary": h.binary,
            "command": h.command,
            "resolved": h.resolved,
            "status": h.status,
            "ok": h.ok(),
            "detail": h.detail,
            "millis": h.millis,
        })).collect::<Vec<_>>(),
    })
}

pub fn print_report(detected: &Detected, scopes: &[Scope], problems: &[Problem], notes: &[String]) {
    match detected.version() {
        Some(v) => crate::say!("Claude Code {v} ({})", detected.source()),
        None => crate::say!("Claude Code: version unknown"),
    }
    for s in scopes {
        let state = if s.error.is_some() {
            "unreadable".to_string()
        } else if !s.exists {
            "no file".to_string()
        } else if s.hooks.is_empty() {
            "no fable hooks".to_string()
        } else {
            let n = s.hooks.len();
            format!("{n} fable hook{}", if n == 1 { "" } else { "s" })
        };
        crate::say!("{}: {}: {state}", s.name, s.file.display());
        for h in &s.hooks {
            let mark = match h.status {
                "not_run" => "skip",
                _ if h.ok() => "ok  ",
                _ => "FAIL",
            };
            let event = format!("{}{}", h.event, matcher_text(&h.matcher));
            let at = h
                .resolved
                .as_ref()
                .map(|p| format!("{}: ", p.display()))
                .unwrap_or_default();
            let ms = h.millis.map(|m| format!(" ({m} ms)")).unwrap_or_default();
            crate::say!("  {mark} {event:<40} {:<18} {at}{}{ms}", h.binary, h.detail);
        }
    }
    for n in notes {
        crate::say!("fable: note: {n}");
    }
    for p in problems {
        crate::say!("fable: problem: {}", p.message);
    }
    match problems.len() {
        0 => crate::say!("fable doctor: no problems found"),
        1 => crate::say!("fable doctor: 1 problem found"),
        n => crate::say!("fable doctor: {n} problems found"),
    }
}
