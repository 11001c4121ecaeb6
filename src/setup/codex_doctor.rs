//! `fable doctor --host codex`: are fable's Codex hooks registered, runnable and
//! **trusted**? An untrusted or changed hook is skipped by Codex without a word (docs
//! codex-hooks.md §2), the worst failure a user can meet, so each one is named with its
//! fix. Checks the user's `$CODEX_HOME/hooks.json` and the project's `.codex/hooks.json`
//! (the `--project` folder, else the current directory), against the trusted hashes in
//! `$CODEX_HOME/config.toml`.

use crate::error::{exit, Result};
use crate::setup::codex_install::{self, CodexTarget};
use crate::setup::codex_trust;
use crate::setup::doctor::DoctorArgs;
use crate::setup::install::{self, ScopeArgs};
use crate::setup::install_state;
use crate::setup::registrations;
use serde_json::json;
use std::path::PathBuf;

/// One finding about one hook or file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `not_installed`, `missing`, `untrusted`, `changed`, `binary`, `project_untrusted`, `unreadable`.
    pub kind: &'static str,
    pub message: String,
}

/// Checks one hooks file; `None` when it holds no fable hook (and none is expected).
fn check_file(
    t: &CodexTarget,
    config_text: &str,
    own: &registrations::Ownership,
    out: &mut Vec<Finding>,
    lines: &mut Vec<String>,
) -> bool {
    let doc = match install::read_settings(&t.hooks_file) {
        Ok(Some((_, d))) => d,
        Ok(None) => return false,
        Err(e) => {
            out.push(Finding {
                kind: "unreadable",
                message: e.to_string(),
            });
            return true;
        }
    };
    let ours = codex_install::our_hooks(&t.hooks_file, &doc, own);
    if ours.is_empty() {
        return false;
    }
    lines.push(format!("{}: {} fable hook(s)", t.hooks_file.display(), ours.len()));
    let trusted = codex_trust::trusted_hashes(config_text);
    let fix = format!(
        "run `fable install {} --trust`, or trust them in Codex with `/hooks`",
        t.flags()
    );
    let (mut untrusted, mut changed) = (Vec::new(), Vec::new());
    for h in &ours {
        let bin = registrations::program_word(&h.command).map(PathBuf::from);
        let runnable = bin.as_deref().is_some_and(crate::setup::portable::is_executable);
        let status = match trusted.get(&h.key) {
            None => {
                untrusted.push(h.key.clone());
                "UNTRUSTED"
            }
            Some(x) if *x != h.hash => {
                changed.push(h.key.clone());
                "CHANGED"
            }
            Some(_) => "ok",
        };
        let binary = registrations::our_binary(&h.command).unwrap_or("?");
        lines.push(format!("  {status:<9} {:<13} {binary:<18} {}", h.event, h.key));
        if !runnable {
            out.push(Finding {
                kind: "binary",
                message: format!(
                    "{} ({}) is not an executable file: the hook fails; reinstall with --bin-dir DIR",
                    bin.map(|b| b.display().to_string()).unwrap_or_default(),
                    h.event
                ),
            });
        }
    }
    if !untrusted.is_empty() {
        out.push(Finding {
            kind: "untrusted",
            message: format!(
                "{} of fable's Codex hooks in {} are not trusted: Codex skips them silently (no evidence, no \
                 gate). Fix: {fix}",
                untrusted.len(),
                t.hooks_file.display()
            ),
        });
    }
    if !changed.is_empty() {
        out.push(Finding {
            kind: "changed",
            message: format!(
                "{} of fable's Codex hooks in {} changed since they were trusted (hash mismatch): Codex skips \
                 them silently. Fix: {fix}",
                changed.len(),
                t.hooks_file.display()
            ),
        });
    }
    let missing = codex_install::missing_registrations(&doc, own);
    if !missing.is_empty() {
        out.push(Finding {
            kind: "missing",
            message: format!(
                "{} lacks fable's hook(s): {}. Fix: run `fable install {}`",
                t.hooks_file.display(),
                missing.join(", "),
                t.flags()
            ),
        });
    }
    if let Some(root) = &t.project {
        if !codex_trust::project_trusted(config_text, root) {
            out.push(Finding {
                kind: "project_untrusted",
                message: format!(
                    "Codex loads {} only for a trusted project, and {} is not trusted in {}. Fix: run `fable \
                     install {} --trust`, or trust the project when Codex asks",
                    t.hooks_file.display(),
                    root.display(),
                    t.config_toml().display(),
                    t.flags()
                ),
            });
        }
    }
    true
}

/// `fable doctor --host codex`.
pub fn run(a: &DoctorArgs) -> Result<i32> {
    let user = codex_install::target_for(&ScopeArgs::default())?;
    let project_dir: Option<PathBuf> = match &a.project.project {
        Some(d) => Some(d.clone()),
        None => std::env::current_dir().ok(),
    };
    let project = project_dir
        .map(|d| ScopeArgs {
            project: Some(Some(d)),
            ..ScopeArgs::default()
        })
        .and_then(|s| codex_install::target_for(&s).ok());
    let config_text = std::fs::read_to_string(user.config_toml()).unwrap_or_default();
    let state = install_state::path_from_env()
        .map(|p| install_state::load(&p))
        .unwrap_or_default();
    let own = install::ownership(&state, &[]);
    let mut findings = Vec::new();
    let mut lines = Vec::new();
    let mut any = check_file(&user, &config_text, &own, &mut findings, &mut lines);
    if let Some(p) = project.as_ref().filter(|p| p.hooks_file != user.hooks_file) {
        any |= check_file(p, &config_text, &own, &mut findings, &mut lines);
    }
    if !any {
        findings.push(Finding {
            kind: "not_installed",
            message: format!(
                "no fable hooks for Codex in {}{}. Fix: run `fable install --host codex` (or with --project)",
                user.hooks_file.display(),
                project
                    .as_ref()
                    .map(|p| format!(" or {}", p.hooks_file.display()))
                    .unwrap_or_default()
            ),
        });
    }
    if a.json {
        let report = json!({
            "host": "codex",
            "healthy": findings.is_empty(),
            "config": user.config_toml(),
            "problems": findings.iter().map(|f| json!({"kind": f.kind, "message": f.message})).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        println!("Codex: {}", user.codex_home.display());
        for l in &lines {
            crate::say!("{l}");
        }
        for f in &findings {
            crate::say!("fable: problem: {}", f.message);
        }
        match findings.len() {
            0 => println!("fable doctor: no problems found"),
            1 => println!("fable doctor: 1 problem found"),
            n => println!("fable doctor: {n} problems found"),
        }
    }
    Ok(if findings.is_empty() { exit::OK } else { exit::FAILURE })
}
