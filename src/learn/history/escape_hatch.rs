//! The switch a failure offers to suppress itself, taken: "if you'd like to suppress this
//! error pass `--allow-dirty`" (`cargo fix`), "You can override this, at the risk of
//! breaking your Python installation or OS, by passing --break-system-packages" (pip),
//! "to accept an incorrect (and potentially broken) dependency resolution" (npm).
//!
//! Why: a tool that refuses says why, and often names the way past its own check in the
//! same breath as the fix (commit the changes, or pass `--allow-dirty`). An agent in a
//! hurry takes the switch: the failure is gone because the check is, and the switch then
//! contested the real fix (issue 34: dev9's `cargo-fix-dirty-working-tree`). The tool
//! itself says which switch that is, so no list of such flags: the failure's clause that
//! offers it says it suppresses the error or risks harm. The few phrases are English, not
//! any tool's (the safety table, [`crate::learn::text::tables::Table::Safety`]).
//!
//! Not an escape: a flag a failure suggests without such words (`use 'git push
//! --set-upstream origin x'`, `Add --force to overwrite`: said as the way, not as a risk),
//! nor one it prescribes for what the user means (`Use -f if you really want to add them`:
//! a file the project ignores, added on purpose).

use crate::learn::text::command_norm::Segment;

/// The safety name of a retry that took the escape its failure offered.
pub const ESCAPE_TAKEN: &str = "safeguard_off";

/// Phrases that say a switch suppresses the error or risks harm, lower-case.
const RISK: &[&str] = &[
    "suppress this",
    "suppress the",
    "at the risk",
    "potentially broken",
    "bypass",
    "skip this check",
];

/// The flags the failure's text offers in a clause that says taking them suppresses the
/// error or risks harm (a clause ends at `.`+blank, `;` or a line's end), as written.
pub fn offered(fail_tail: &str) -> Vec<String> {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Safety) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for line in fail_tail.lines() {
        for clause in line.split("; ").flat_map(|c| c.split(". ")) {
            let lower = clause.to_ascii_lowercase();
            if !RISK.iter().any(|p| lower.contains(p)) {
                continue;
            }
            for w in clause
                .split_whitespace()
                .filter_map(crate::learn::text::named_options::option_name)
            {
                if !out.contains(&w) {
                    out.push(w);
                }
            }
        }
    }
    out
}

/// Did the retry add a flag the failure offered as its escape ([`offered`]), or one of its
/// family (a long flag with the offered one's first word: `--allow-staged` beside
/// `--allow-dirty`, the switch's sibling for the staged half of the same check)?
pub fn takes_escape(fail_tail: &str, failing: &Segment, retry: &Segment) -> bool {
    let bare = |f: &str| f.split('=').next().unwrap_or(f).to_string();
    let before: Vec<String> = failing.flags().into_iter().map(bare).collect();
    let added: Vec<String> = retry
        .flags()
        .into_iter()
        .map(bare)
        .filter(|f| !before.contains(f))
        .collect();
    // The failure's text is read only for a retry that added a flag (most add none).
    if added.is_empty() {
        return false;
    }
    let offered = offered(fail_tail);
    let family = |f: &str| -> Option<String> {
        let name = f.strip_prefix("--")?;
        let (first, _) = name.split_once('-')?;
        Some(format!("--{first}-"))
    };
    let families: Vec<String> = offered.iter().filter_map(|o| family(o)).collect();
    added
        .iter()
        .any(|f| offered.contains(f) || families.iter().any(|p| f.starts_with(p.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    const CARGO: &str = "error: the working directory of this package has uncommitted changes, and `cargo fix` can potentially perform destructive changes; if you'd like to suppress this error pass `--allow-dirty`, or commit the changes to these files:\n\n  * src/main.rs (dirty)\n";
    const PIP: &str = "note: If you believe this is a mistake, please contact your Python installation or OS distribution provider. You can override this, at the risk of breaking your Python installation or OS, by passing --break-system-packages.\nhint: See PEP 668 for the detailed specification.";

    fn takes(tail: &str, fail: &str, retry: &str) -> bool {
        let (f, r) = (normalize(fail), normalize(retry));
        takes_escape(tail, f.primary().unwrap(), r.primary().unwrap())
    }

    #[test]
    fn the_switch_a_failure_offers_to_suppress_itself_is_read_from_its_clause() {
        assert_eq!(offered(CARGO), vec!["--allow-dirty"]);
        assert_eq!(offered(PIP), vec!["--break-system-packages"]);
        // A switch the tool prescribes as the way (`git add -f` for a file the project
        // ignores, "if you really want to add them") is left to the safety table.
        assert!(offered("app.log\nhint: Use -f if you really want to add them.").is_empty());
        // Suggested as the way, not as a risk: nothing offered.
        assert!(offered("fatal: The current branch x has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin x\n").is_empty());
        assert!(offered("error: binary `rg` already exists in destination\nAdd --force to overwrite").is_empty());
    }

    #[test]
    fn a_retry_that_took_the_offered_switch_or_its_sibling_takes_the_escape() {
        assert!(takes(CARGO, "cargo fix", "cargo fix --allow-dirty"));
        assert!(takes(
            CARGO,
            "cargo clippy --fix",
            "cargo clippy --fix --allow-dirty --allow-staged"
        ));
        assert!(takes(CARGO, "cargo fix --bins", "cargo fix --bins --allow-staged"));
        assert!(takes(
            PIP,
            "pip install requests",
            "pip install --break-system-packages requests"
        ));
        // The fix the failure also named (commit, then the same command): no switch taken.
        assert!(!takes(CARGO, "cargo fix", "cargo fix"));
        assert!(!takes(CARGO, "cargo fix", "cargo fix --bins"));
        // A switch the failing command already gave is not the retry's doing.
        assert!(!takes(
            CARGO,
            "cargo fix --allow-dirty --bins",
            "cargo fix --allow-dirty"
        ));
    }
}
