//! `fable-log-guard` (PreToolUse: Write | Edit | MultiEdit | NotebookEdit | Bash): the
//! agent may read fable's records, never forge, hide or switch them off.
//!
//! The seal on every record (`evidence::seal`) and the transcript check on every payload
//! (`evidence::transcript_check`) are the real defences: a line the hook did not write,
//! or a payload Claude Code did not send, corroborates nothing. This guard makes the
//! plain attempts visible and cheap to refuse. Denied, with a short reason naming what is
//! protected:
//!
//! - writing the evidence log or `.fable/state/` (file tools, redirections, `tee`,
//!   `sed -i`, `cp`/`mv`/`rm`/`truncate`/`ln`/`dd of=`/… naming such a path), and taking
//!   the log's lock (`flock … .fable/evidence.lock`: the hook would wait, give up and
//!   drop the record of the run that failed);
//! - anything that names fable's user state (`${XDG_STATE_HOME:-~/.local/state}/fable`:
//!   the sealing key, the chain heads, the attempt notes), read or write, by path, glob,
//!   `cd` or an interpreter's script;
//! - running a hook binary (`fable-evidence`, … by any path, through `env`, `xargs`,
//!   `bash -c`, `find -exec`), or changing one (`chmod`, `cp` onto, `mv`, `rm`, `ln`,
//!   `install`, `tee`, a redirection);
//! - `fable uninstall`, `fable trust`, `fable evidence import`, `fable install --bin-dir`;
//! - editing a Claude Code settings file that registers fable (user, project, local; by
//!   Bash or a file tool), writing `disableAllHooks` anywhere, and writing Claude Code's
//!   transcripts (what payloads are checked against).
//!
//! Reading the log is allowed (`cat`, `tail`, `jq`, `grep`, `cp .fable/evidence.jsonl
//! /tmp/x`), and so is every command that merely mentions fable: a commit message, a
//! search of the source. Each denial is noted for the session (`evidence::tamper_log`)
//! and named to the user at Stop. It is a tripwire, not a sandbox: a command built to
//! hide its target gets through, and what it forges still carries no seal.

mod rules;
mod shell;

pub use rules::bash_verdict;

use crate::hook::{Answer, HookInput};
use crate::runner::{HookEnv, HookResult};
use std::path::{Path, PathBuf};

pub const HOOK_NAME: &str = "fable-log-guard";

/// What is protected, as absolute paths.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    pub fable_dir: PathBuf,
    /// fable's user-private state folder (key, heads, markers), when it can be named.
    pub user_state: Option<PathBuf>,
    /// Claude Code settings files that may register fable's hooks.
    pub settings: Vec<PathBuf>,
    /// Where Claude Code keeps transcripts (`~/.claude/projects`).
    pub transcripts: Option<PathBuf>,
    /// `~`, `$HOME`, `$XDG_STATE_HOME` as the hook sees them.
    pub vars: shell::Vars,
}

impl Protected {
    /// What a hook run with `env` for `project` protects.
    pub fn for_project(project: &crate::project::Project, env: &HookEnv) -> Protected {
        let abs = |p: &Path| resolve(&p.to_string_lossy(), Path::new("/"));
        let get = |k: &str| env.var(k).map(str::to_string);
        let claude_dir = env
            .var("CLAUDE_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| env.var("HOME").map(|h| Path::new(h).join(".claude")));
        let mut settings = Vec::new();
        if let Some(c) = &claude_dir {
            settings.push(abs(&c.join("settings.json")));
            settings.push(abs(&c.join("settings.local.json")));
        }
        let mut roots = vec![project.root.clone()];
        roots.extend(env.project_dir.as_deref().map(PathBuf::from));
        for r in roots {
            settings.push(abs(&r.join(".claude/settings.json")));
            settings.push(abs(&r.join(".claude/settings.local.json")));
        }
        let state = crate::session_state::user_state_dir(get).map(|p| abs(&p));
        Protected {
            fable_dir: abs(&project.fable_dir),
            vars: shell::Vars {
                home: env.var("HOME").map(str::to_string),
                state_home: state
                    .as_ref()
                    .and_then(|s| s.parent())
                    .map(|p| p.to_string_lossy().into_owned()),
            },
            user_state: state,
            settings,
            transcripts: claude_dir.map(|c| abs(&c.join("projects"))),
        }
    }

    /// The reason to deny a write to `path` (absolute, lexically normal), if any.
    fn covers(&self, path: &Path) -> Option<String> {
        if let Ok(rest) = path.strip_prefix(&self.fable_dir) {
            let first = rest
                .components()
                .next()
                .and_then(|c| c.as_os_str().to_str())
                .unwrap_or("");
            if first.starts_with("evidence") {
                return Some("the evidence log is written only by fable's evidence hook".into());
            }
            if first == "state" {
                return Some("`.fable/state/` is fable's own bookkeeping".into());
            }
        }
        if let Some(why) = self.state_reason(path) {
            return Some(why.into());
        }
        if let Some(why) = self.settings_reason(path, None) {
            return Some(why);
        }
        if self.transcripts.as_ref().is_some_and(|t| path.starts_with(t)) {
            return Some("Claude Code's transcripts are what fable checks hook payloads against".into());
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if crate::setup::registrations::HOOK_BINARIES.contains(&name) {
            return Some(
                "fable's hook binaries are what Claude Code runs on every call; changing one switches a guard off"
                    .into(),
            );
        }
        None
    }

    /// Why `path` (absolute) is fable's user state, if it is.
    fn state_reason(&self, path: &Path) -> Option<&'static str> {
        let state = self.user_state.as_ref()?;
        path.starts_with(state).then_some(
            "fable's user state (its sealing key, chain heads and attempt notes) is not the agent's to read or change",
        )
    }

    /// Why a write to `path` is denied as a settings edit: the file registers fable's
    /// hooks, or the new content (when known) turns hooks off.
    fn settings_reason(&self, path: &Path, content: Option<&str>) -> Option<String> {
        if !self.settings.iter().any(|s| s == path) {
            return None;
        }
        let registers = std::fs::read_to_string(path)
            .is_ok_and(|t| crate::setup::registrations::HOOK_BINARIES.iter().any(|h| t.contains(h)));
        let disables = content.is_some_and(|c| c.contains("disableAllHooks"));
        (registers || disables).then(|| {
            format!(
                "{} registers fable's hooks; edit Claude Code's settings yourself (or ask the user), not through the agent",
                path.display()
            )
        })
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
    let abs = resolve(&prot.vars.expand(path), cwd);
    let content = ["content", "new_string", "new_source"]
        .iter()
        .find_map(|k| input.tool_input_str(k))
        .map(str::to_string)
        .or_else(|| input.tool_input.get("edits").map(|e| e.to_string()));
    let why = prot
        .settings_reason(&abs, content.as_deref())
        .or_else(|| prot.covers(&abs))?;
    Some(format!(
        "fable: {} is protected — {why}. Records written by anything else back no ledger card; run the command you want to cite instead.",
        path
    ))
}

/// The hook: deny a protected write with a short reason, noted for the Stop; allow
/// everything else.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    let prot = Protected::for_project(&project, env);
    let (verdict, what) = match input.tool_name.as_str() {
        "Bash" => {
            let cmd = input.command().unwrap_or("");
            (bash_verdict(cmd, Path::new(&input.cwd), &prot), cmd.to_string())
        }
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => (
            file_tool_verdict(input, &prot),
            format!(
                "{} {}",
                input.tool_name,
                input
                    .tool_input_str("file_path")
                    .or_else(|| input.tool_input_str("notebook_path"))
                    .unwrap_or("")
            ),
        ),
        _ => (None, String::new()),
    };
    let Some(reason) = verdict else {
        return Ok(Answer::allow());
    };
    let session = if input.session_id.is_empty() {
        env.var("CLAUDE_CODE_SESSION_ID").unwrap_or("")
    } else {
        &input.session_id
    };
    // "fable: this command runs a fable hook binary — why. …" → "runs a fable hook binary".
    let head = reason.split(" — ").next().unwrap_or(&reason);
    let short = head.trim_start_matches("fable: ").trim_start_matches("this command ");
    crate::evidence::tamper_log::note(
        |k| env.var(k).map(str::to_string),
        session,
        HOOK_NAME,
        &format!("denied `{}` ({short})", crate::hook::printable(&what, 160)),
    );
    Ok(Answer::deny_tool(reason))
}

#[cfg(test)]
mod tests;
