//! `fable init`: opt a project in by creating `.fable/` with a ledger.
//!
//! Every hook is inert until a `.fable/` folder exists, so this is the one step a project
//! needs. It never overwrites: an existing `LEDGER.md` is the user's work, and an existing
//! `.fable/.gitignore` only gets the patterns it lacks appended. Running it twice changes
//! nothing and says so.
//!
//! `.fable/.gitignore` keeps machine state out of git — the evidence log and its rotations
//! (`evidence.jsonl*`), lock files (`*.lock`) and per-session state (`state/`) — while the
//! ledger itself is meant to be committed.

use crate::error::{Error, IoContext, Result};
use crate::project::Project;
use serde_json::json;
use std::fs;
use std::io::Write;
use std::path::Path;

/// The ledger a new project starts with.
pub const LEDGER_TEMPLATE: &str = include_str!("../../templates/LEDGER.template.md");
/// The plan `fable lint` and the design gate look for, written when the project has none.
pub const SPEC_TEMPLATE: &str = include_str!("../../templates/SPEC.template.md");

/// Patterns `.fable/.gitignore` must hold, one per line.
pub const GITIGNORE_PATTERNS: [&str; 3] = ["evidence.jsonl*", "*.lock", "state/"];

const GITIGNORE_HEADER: &str = "# fable machine state: local to this checkout (LEDGER.md is meant to be committed)\n";

/// `fable init [--project DIR] [--json]`: `--project` names the folder to opt in,
/// normally the repository root; init never walks up to a parent's `.fable/`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    #[command(flatten)]
    pub project: crate::project_arg::ProjectArg,
    /// Print a machine-readable summary on stdout.
    #[arg(long)]
    pub json: bool,
}

/// What init did to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Created,
    Existed,
    /// `.gitignore` existed and missing patterns were appended.
    Updated,
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Outcome::Created => "created",
            Outcome::Existed => "existed",
            Outcome::Updated => "updated",
        }
    }
}

/// The patterns of [`GITIGNORE_PATTERNS`] that `existing` lacks (exact lines, trimmed).
pub fn missing_patterns(existing: &str) -> Vec<&'static str> {
    GITIGNORE_PATTERNS
        .iter()
        .copied()
        .filter(|p| !existing.lines().any(|l| l.trim() == *p))
        .collect()
}

/// The text to append to an existing `.gitignore` so it holds every pattern.
pub fn gitignore_addition(existing: &str) -> Option<String> {
    let missing = missing_patterns(existing);
    if missing.is_empty() {
        return None;
    }
    let mut add = String::new();
    if !existing.is_empty() && !existing.ends_with('\n') {
        add.push('\n');
    }
    for p in missing {
        add.push_str(p);
        add.push('\n');
    }
    Some(add)
}

fn fresh_gitignore() -> String {
    let mut s = GITIGNORE_HEADER.to_string();
    for p in GITIGNORE_PATTERNS {
        s.push_str(p);
        s.push('\n');
    }
    s
}

/// Creates `path` with `content` unless it exists; never truncates an existing file.
fn create_new(path: &Path, content: &str) -> Result<Outcome> {
    match fs::OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut f) => {
            f.write_all(content.as_bytes()).at(path)?;
            f.sync_all().at(path)?;
            Ok(Outcome::Created)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(Outcome::Existed),
        Err(e) => Err(Error::io(path, e)),
    }
}

fn ensure_gitignore(path: &Path) -> Result<Outcome> {
    if create_new(path, &fresh_gitignore())? == Outcome::Created {
        return Ok(Outcome::Created);
    }
    // Through the `.fable/` door: a committed `.gitignore` link is refused, never appended
    // to (it could point at a shell rc).
    let existing = crate::fable_dir::read_string(path, crate::fable_dir::Kind::Document)
        .at(path)?
        .unwrap_or_default();
    match gitignore_addition(&existing) {
        None => Ok(Outcome::Existed),
        Some(add) => {
            crate::fable_dir::replace_atomically(path, format!("{existing}{add}").as_bytes(), true)?;
            Ok(Outcome::Updated)
        }
    }
}

/// Refuses a committed link where init would write: it may point anywhere.
fn refuse_link(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(Error::msg(format!(
            "{}: is a symbolic link; fable never writes through a link a repository may have committed. \
             Replace it with a real file or folder (or remove it) and run `fable init` again",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// `fable init`.
pub fn run(a: &InitArgs) -> Result<i32> {
    // The folder itself, not the project above it: init is how a folder becomes one.
    let root = a.project.dir()?;
    let project = Project::at(&root);
    let fable_dir = &project.fable_dir;
    refuse_link(fable_dir)?;
    // A folder inside an opted-in repository is already covered: a second `.fable/` there
    // would split its ledger and log in two.
    if fable_dir.symlink_metadata().is_err() && root.join(".git").symlink_metadata().is_err() {
        if let Some(above) = root.parent().and_then(crate::project::find_from) {
            return Err(Error::msg(format!(
                "{} is inside {}, which is already opted in (its .fable/ covers this folder): run fable commands there, or `git init` here first if this folder is a project of its own",
                root.display(),
                above.root.display()
            )));
        }
    }
    let dir_outcome = match fs::symlink_metadata(fable_dir) {
        Ok(m) if m.is_dir() => Outcome::Existed,
        Ok(_) => {
            return Err(Error::msg(format!(
                "{}: exists but is not a directory; move it aside and run `fable init` again",
                fable_dir.display()
            )))
        }
        Err(_) => {
            fs::create_dir_all(fable_dir).at(fable_dir)?;
            Outcome::Created
        }
    };
    let ledger_path = project.ledger_path();
    let gitignore_path = fable_dir.join(".gitignore");
    let log_path = project.evidence_path();
    for p in [&ledger_path, &gitignore_path, &log_path] {
        refuse_link(p)?;
    }
    let spec_path = root.join("docs").join("SPEC.md");
    refuse_link(&root.join("docs"))?;
    refuse_link(&spec_path)?;
    let ledger = create_new(&ledger_path, LEDGER_TEMPLATE)?;
    let gitignore = ensure_gitignore(&gitignore_path)?;
    // What `fable lint` and the design gate expect: a plan, from the template, unless the
    // project has one.
    if let Some(d) = spec_path.parent() {
        fs::create_dir_all(d).at(d)?;
    }
    let spec = create_new(&spec_path, SPEC_TEMPLATE)?;
    // An empty log from the start: "no log" then means logging broke, not "never ran", so
    // a card citing a command that never ran blocks from the first session on.
    crate::fable_dir::append_line(&log_path, b"").at(&log_path)?;

    let mut warnings = Vec::new();
    if root.join(".git").symlink_metadata().is_err() {
        warnings.push(format!(
            "{} has no .git. Hooks look for .fable/ from Claude Code's project directory upward and stop at a \
             git root, so this one is found only by sessions started here or below; if this is a subfolder of a \
             repository, run `fable init` at the repository root instead",
            root.display()
        ));
    }
    for w in &warnings {
        eprintln!("fable: warning: {w}");
    }
    if a.json {
        let report = json!({
            "action": "init",
            "root": root,
            "fable_dir": {"path": fable_dir, "action": dir_outcome.name()},
            "ledger": {"path": ledger_path, "action": ledger.name()},
            "gitignore": {"path": gitignore_path, "action": gitignore.name()},
            "spec": {"path": spec_path, "action": spec.name()},
            "warnings": warnings,
        });
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
        return Ok(0);
    }
    let say = |what: &str, path: &Path, o: Outcome| {
        let verb = match o {
            Outcome::Created => "created",
            Outcome::Existed => "already there, kept",
            Outcome::Updated => "already there, added the missing machine-state patterns",
        };
        println!("fable: {what} {verb}: {}", path.display());
    };
    say(".fable/", fable_dir, dir_outcome);
    say("ledger", &ledger_path, ledger);
    say(".gitignore", &gitignore_path, gitignore);
    say("plan", &spec_path, spec);
    if [dir_outcome, ledger, gitignore, spec]
        .iter()
        .all(|o| *o == Outcome::Existed)
    {
        println!("fable: project already opted in; nothing changed");
    } else {
        println!(
            "fable: project opted in. fable's hooks act here from the next Claude Code session \
             (register them once with `fable install`); commit .fable/LEDGER.md, .fable/.gitignore and docs/SPEC.md."
        );
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignore_addition_appends_only_missing_lines() {
        assert_eq!(gitignore_addition(&fresh_gitignore()), None);
        assert_eq!(gitignore_addition("state/\n").unwrap(), "evidence.jsonl*\n*.lock\n");
        assert_eq!(
            gitignore_addition("notes.txt").unwrap(),
            "\nevidence.jsonl*\n*.lock\nstate/\n"
        );
        assert_eq!(gitignore_addition("").unwrap(), "evidence.jsonl*\n*.lock\nstate/\n");
    }

    #[test]
    fn fresh_gitignore_holds_every_pattern() {
        assert!(missing_patterns(&fresh_gitignore()).is_empty());
    }
}
