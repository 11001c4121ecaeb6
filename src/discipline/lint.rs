//! `fable lint [--project DIR]`: static discipline findings in the ledger and the SPEC.
//!
//! Checks (the ancestor's set): `.fable/LEDGER.md` exists; `docs/SPEC.md` exists and tags
//! at least one decision with its source (`[measured]`, `[inferred]`, `[not-shown]`,
//! `[design-gap]` or the Chinese tags); every open card says how it will be accepted (an
//! acceptance/test word or a backticked command — the ancestor's pattern had a trailing
//! `|` that matched everything); every `- [~]` card gives a deferral reason (at least 3 characters, as the close guard
//! requires); every `- [x]`
//! card has substantive evidence, by the close guard's rule. Exit 0 when clean, 1 with
//! findings; outside a project it fails like every project command
//! ([`crate::error::Error::NotAProject`]), so "clean" never means "nothing was checked".

use crate::discipline::ledger::{self, CardState};
use crate::error::Result;
use crate::project::Project;
use crate::project_arg::ProjectArg;
use regex::Regex;
use serde::Serialize;
use std::path::PathBuf;

pub const SOURCE_TAGS: &[&str] = &[
    "[measured]",
    "[inferred]",
    "[not-shown]",
    "[design-gap]",
    "[实测]",
    "[读数]",
    "[推断]",
    "[未展示]",
    "[设计补全]",
];

/// One finding: the file (relative to the project root), the line when known, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "FINDING  {}:{l}: {}", self.file, self.message),
            None => write!(f, "FINDING  {}: {}", self.file, self.message),
        }
    }
}

fn finding(file: &str, line: Option<usize>, message: impl Into<String>) -> Finding {
    Finding {
        file: file.into(),
        line,
        message: message.into(),
    }
}

/// Lints a project's ledger text and SPEC text (`None` when the file is missing).
pub fn check(ledger_text: Option<&str>, spec_text: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    const SPEC: &str = "docs/SPEC.md";
    const LEDGER: &str = ".fable/LEDGER.md";
    match spec_text {
        None => out.push(finding(
            SPEC,
            None,
            "missing: write the plan before the code (`fable init` writes a template there)",
        )),
        Some(s) if !SOURCE_TAGS.iter().any(|t| s.contains(t)) => out.push(finding(
            SPEC,
            None,
            "no source tags: tag decisions [measured], [inferred], [not-shown] or [design-gap]",
        )),
        Some(_) => {}
    }
    let Some(text) = ledger_text else {
        out.push(finding(
            LEDGER,
            None,
            "missing: create it with open cards (`fable init` writes a template there)",
        ));
        return out;
    };
    let accept = Regex::new(r"(?i)accept|验收|test|测试|verify|check").expect("acceptance pattern compiles");
    let l = ledger::parse(text);
    for c in &l.cards {
        match c.state {
            CardState::Open => {
                let all = std::iter::once(c.title.as_str())
                    .chain(c.notes.iter().map(|n| n.body.as_str()))
                    .collect::<Vec<_>>()
                    .join(" ");
                if !accept.is_match(&all) && ledger::backtick_spans(&all).is_empty() {
                    out.push(finding(
                        LEDGER,
                        Some(c.line),
                        format!(
                            "open card without acceptance: add `— acceptance: \\`<command>\\`` to \"{}\"",
                            c.title
                        ),
                    ));
                }
            }
            CardState::Deferred => {
                if !crate::discipline::close_guard::has_deferral_reason(c) {
                    out.push(finding(
                        LEDGER,
                        Some(c.line),
                        format!(
                            "deferred card without a reason: add `-- deferred: <reason>` to \"{}\"",
                            c.title
                        ),
                    ));
                }
            }
            CardState::Done => {
                if !c.has_substantive_evidence() {
                    out.push(finding(
                        LEDGER,
                        Some(c.line),
                        format!(
                            "closed card without evidence: add `-- evidence: <what ran, what it showed>` to \"{}\"",
                            c.title
                        ),
                    ));
                }
            }
        }
    }
    out
}

/// Lints a project on disk.
pub fn lint_project(p: &Project) -> Vec<Finding> {
    // Through the door: a linked, device or oversized file reads as missing.
    // A refused file (a link, a folder, over 1 MiB) is named with the reason, not called
    // missing: "create it" is wrong advice for a ledger that exists.
    let mut refused = Vec::new();
    let mut read = |path: &std::path::Path, name: &'static str| match crate::fable_dir::read_string(
        path,
        crate::fable_dir::Kind::Document,
    ) {
        Ok(text) => text,
        Err(e) => {
            refused.push(finding(
                name,
                None,
                format!("refused: {e} — fable reads it as absent until this is fixed"),
            ));
            Some(String::new())
        }
    };
    let ledger = read(&p.ledger_path(), ".fable/LEDGER.md");
    let spec = read(&p.root.join("docs").join("SPEC.md"), "docs/SPEC.md");
    let refused_ledger = refused.iter().any(|f| f.file == ".fable/LEDGER.md");
    let mut out = refused;
    out.extend(
        check(ledger.as_deref(), spec.as_deref())
            .into_iter()
            .filter(|f| !(refused_ledger && f.file == ".fable/LEDGER.md")),
    );
    out
}

/// `fable lint [--project DIR] [--json]`
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    /// The old positional spelling of `--project` (hidden; kept for one release).
    #[arg(hide = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: &LintArgs) -> Result<i32> {
    let p = a.project.or_legacy(a.dir.as_deref()).resolve()?;
    let findings = lint_project(&p);
    // Stops let through after the block limit or under a mode written mid-session: not
    // findings of the ledger as it is now, but a record the user should see.
    let stops = crate::discipline::round::notable_stops(|k| std::env::var(k).ok(), &p.fable_dir);
    if a.json {
        let stops: Vec<_> = stops
            .iter()
            .map(|(ts, t)| serde_json::json!({"ts": ts, "text": t}))
            .collect();
        println!(
            "{}",
            serde_json::json!({"project": p.root, "findings": findings, "notable_stops": stops})
        );
    } else {
        for f in &findings {
            crate::say!("{f}");
        }
        crate::say!("{} finding(s)", findings.len());
        for (ts, t) in stops.iter().rev().take(3) {
            crate::say!(
                "note: stop at {ts}: {}",
                crate::evidence::head_chars(t.lines().next().unwrap_or(""), 120)
            );
        }
    }
    Ok(if findings.is_empty() { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings() {
        let f = check(
            Some("- [ ] a\n- [ ] b — acceptance: `x`\n- [~] c\n- [~] d -- deferred: later\n- [x] e -- evidence: ok\n"),
            Some("# spec [measured]"),
        );
        assert_eq!(f.len(), 3, "{f:?}");
        assert_eq!(check(Some("- [x] e -- evidence: 12 passed"), Some("[推断]")).len(), 0);
        assert_eq!(check(None, None).len(), 2);
    }
}
