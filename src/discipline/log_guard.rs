//! `fable-log-guard` (PreToolUse: Write | Edit | MultiEdit | NotebookEdit | Bash): the
//! agent may read the evidence log, never write it.
//!
//! The seal on every record (`evidence::seal`) is the real defence: a line the hook did
//! not write corroborates nothing. This guard makes the attempt visible and cheap to
//! refuse: file tools aimed at `.fable/evidence*`, `.fable/state/` or fable's user state
//! (where the key lives) are denied, and so are Bash commands that plainly write there
//! (a redirection, `tee`, `sed -i`/`perl -i`, `cp`/`mv`/`rm`/`truncate`/`ln`/`dd of=`/…
//! naming such a path) or that touch the key at all (reading it is the first step of a
//! forgery). It is a tripwire, not a sandbox: a command built to hide its target gets
//! through, and its records still carry no seal.

use crate::hook::{Answer, HookInput};
use crate::runner::{HookEnv, HookResult};
use std::path::{Path, PathBuf};

pub const HOOK_NAME: &str = "fable-log-guard";

/// Programs whose path arguments they write (or delete).
const WRITERS: [&str; 11] = [
    "cp", "mv", "rm", "truncate", "ln", "install", "shred", "touch", "chmod", "tee", "rsync",
];

/// What is protected, as absolute paths.
#[derive(Debug, Clone)]
pub struct Protected {
    pub fable_dir: PathBuf,
    /// fable's user-private state folder (key, heads, markers), when it can be named.
    pub user_state: Option<PathBuf>,
}

impl Protected {
    /// The reason to deny when `path` (absolute, lexically normal) is protected.
    fn covers(&self, path: &Path) -> Option<&'static str> {
        if let Ok(rest) = path.strip_prefix(&self.fable_dir) {
            let first = rest
                .components()
                .next()
                .and_then(|c| c.as_os_str().to_str())
                .unwrap_or("");
            if first.starts_with("evidence") {
                return Some("the evidence log is written only by fable's evidence hook");
            }
            if first == "state" {
                return Some("`.fable/state/` is fable's own bookkeeping");
            }
        }
        if let Some(state) = &self.user_state {
            if path.starts_with(state) {
                return Some("fable's user state (its sealing key among it) is not the agent's to touch");
            }
        }
        None
    }

    /// The key, or anything in fable's user state, named anywhere in a command.
    fn key_named(&self, word: &str, cwd: &Path) -> bool {
        self.user_state
            .as_ref()
            .is_some_and(|s| resolve(word, cwd).starts_with(s))
            || word.contains(".local/state/fable/key")
            || word.ends_with("fable/key")
    }
}

/// `word` as an absolute, lexically normal path (`~` and `$HOME`-free: a literal only).
fn resolve(word: &str, cwd: &Path) -> PathBuf {
    crate::project::lexical_abs(Path::new(word), cwd)
}

/// Why a file tool's call is denied, if it is.
pub fn file_tool_verdict(input: &HookInput, prot: &Protected) -> Option<String> {
    let path = input
        .tool_input_str("file_path")
        .or_else(|| input.tool_input_str("notebook_path"))
        .or_else(|| input.tool_input_str("path"))?;
    let cwd = Path::new(&input.cwd);
    let why = prot.covers(&resolve(path, cwd))?;
    Some(format!(
        "fable: {} is protected — {why}. Records written by anything else back no ledger card; run the command you want to cite instead.",
        path
    ))
}

/// Splits a command into simple commands (at `;`, `&&`, `||`, `|`, `&`, newlines).
fn segments(command: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in command.lines() {
        let words = shell_words::split(line).unwrap_or_else(|_| line.split_whitespace().map(str::to_string).collect());
        let mut cur: Vec<String> = Vec::new();
        for w in words {
            if matches!(w.as_str(), ";" | "&&" | "||" | "|" | "&" | "|&") {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            match w.strip_suffix(';') {
                Some(head) if !head.is_empty() => {
                    cur.push(head.to_string());
                    out.push(std::mem::take(&mut cur));
                }
                _ => cur.push(w),
            }
        }
        out.push(cur);
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The targets a simple command plainly writes: redirections, and the path arguments of
/// writer programs (`sed`/`perl` only with `-i`, `dd` only `of=`).
fn written_targets(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        // `x>file` is a word `x` and a redirection to `file` (a quoted `>` is taken as
        // one too: a false alarm only when it names a protected path).
        let redir = match w.find('>') {
            Some(at) => &w[at..],
            None => "",
        };
        if let Some(rest) = redir.strip_prefix(">>").or_else(|| redir.strip_prefix('>')) {
            let rest = rest.trim_start_matches(['|', '&']);
            if rest.is_empty() {
                if let Some(next) = words.get(i + 1) {
                    out.push(next.clone());
                    i += 1;
                }
            } else {
                out.push(rest.to_string());
            }
        }
        i += 1;
    }
    // The program word, after `env`/`sudo`/assignments.
    let mut args = words
        .iter()
        .skip_while(|w| w.contains('=') && !w.starts_with('-') || matches!(w.as_str(), "sudo" | "env" | "command"));
    let Some(prog) = args.next() else { return out };
    let prog = Path::new(prog).file_name().and_then(|n| n.to_str()).unwrap_or("");
    let rest: Vec<&String> = args.filter(|a| !a.starts_with('>')).collect();
    let in_place = rest.iter().any(|a| a.starts_with("-i") || a.as_str() == "--in-place");
    if WRITERS.contains(&prog) || (matches!(prog, "sed" | "perl") && in_place) {
        out.extend(rest.iter().filter(|a| !a.starts_with('-')).map(|a| a.to_string()));
    }
    if prog == "dd" {
        out.extend(rest.iter().filter_map(|a| a.strip_prefix("of=")).map(str::to_string));
    }
    out
}

/// Why a Bash command is denied, if it is.
pub fn bash_verdict(command: &str, cwd: &Path, prot: &Protected) -> Option<String> {
    let mut cwd = cwd.to_path_buf();
    for words in segments(command) {
        // `cd X && …`: later parts run in X.
        if words.first().map(String::as_str) == Some("cd") {
            if let Some(dir) = words.get(1) {
                cwd = resolve(dir, &cwd);
            }
            continue;
        }
        let cwd = cwd.as_path();
        if words.iter().any(|w| prot.key_named(w, cwd)) {
            return Some(
                "fable: this command touches fable's user state, where the key that seals evidence records lives; that is not the agent's to read or change.".to_string(),
            );
        }
        for target in written_targets(&words) {
            if let Some(why) = prot.covers(&resolve(&target, cwd)) {
                return Some(format!(
                    "fable: this command writes {target} — {why}. Records written by anything else back no ledger card; run the command you want to cite instead."
                ));
            }
        }
    }
    None
}

/// The hook: deny a protected write with a short reason; allow everything else.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    let prot = Protected {
        fable_dir: resolve(&project.fable_dir.to_string_lossy(), Path::new("/")),
        user_state: crate::session_state::user_state_dir(|k| env.var(k).map(str::to_string))
            .map(|p| resolve(&p.to_string_lossy(), Path::new("/"))),
    };
    let verdict = match input.tool_name.as_str() {
        "Bash" => input
            .command()
            .and_then(|c| bash_verdict(c, Path::new(&input.cwd), &prot)),
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => file_tool_verdict(input, &prot),
        _ => None,
    };
    Ok(verdict.map(Answer::deny_tool).unwrap_or_else(Answer::allow))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prot() -> Protected {
        Protected {
            fable_dir: "/p/.fable".into(),
            user_state: Some("/home/u/.local/state/fable".into()),
        }
    }

    fn denied(cmd: &str) -> bool {
        bash_verdict(cmd, Path::new("/p"), &prot()).is_some()
    }

    #[test]
    fn plain_writes_to_the_log_are_denied() {
        for c in [
            "echo '{\"cmd\":\"pytest -q\"}' >> .fable/evidence.jsonl",
            "echo x>.fable/evidence.jsonl",
            "printf x 2> /p/.fable/evidence.jsonl.1",
            "cat fake | tee -a .fable/evidence.jsonl",
            "sed -i '$d' .fable/evidence.jsonl",
            "perl -i -ne 'print' .fable/evidence.jsonl",
            "cp /tmp/forged .fable/evidence.jsonl",
            "mv /tmp/x ./.fable/state/s.streak.json",
            "rm -f .fable/evidence.jsonl.2",
            "truncate -s0 .fable/evidence.jsonl",
            "dd if=/dev/zero of=.fable/evidence.jsonl",
            "cd sub && echo x >> ../.fable/evidence.jsonl",
            "ls; rm -rf .fable/state",
            "cat ~/.local/state/fable/key",
            "xxd /home/u/.local/state/fable/key",
        ] {
            assert!(denied(c), "{c}");
        }
    }

    #[test]
    fn reading_the_log_and_ordinary_work_are_allowed() {
        for c in [
            "cat .fable/evidence.jsonl",
            "tail -n 5 .fable/evidence.jsonl | jq .",
            "grep pytest .fable/evidence.jsonl > /tmp/found",
            "fable evidence show",
            "cargo test 2>&1 | tee test.log",
            "sed -n 1p .fable/evidence.jsonl",
            "echo done > .fable/notes/today.md",
            "cp README.md .fable/LEDGER.md.bak",
            "git status",
        ] {
            assert!(!denied(c), "{c}");
        }
    }

    #[test]
    fn file_tools_on_protected_paths_are_denied() {
        let mk = |tool: &str, path: &str| {
            HookInput::parse(
                serde_json::json!({"cwd":"/p","tool_name":tool,"tool_input":{"file_path":path}})
                    .to_string()
                    .as_bytes(),
            )
            .unwrap()
        };
        assert!(file_tool_verdict(&mk("Write", ".fable/evidence.jsonl"), &prot()).is_some());
        assert!(file_tool_verdict(&mk("Edit", "/p/.fable/state/x.json"), &prot()).is_some());
        assert!(file_tool_verdict(&mk("Write", "/p/src/../.fable/evidence.jsonl"), &prot()).is_some());
        assert!(file_tool_verdict(&mk("Write", "/home/u/.local/state/fable/key"), &prot()).is_some());
        assert!(file_tool_verdict(&mk("Write", ".fable/LEDGER.md"), &prot()).is_none());
        assert!(file_tool_verdict(&mk("Write", "src/evidence.rs"), &prot()).is_none());
    }
}
