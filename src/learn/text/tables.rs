//! The learner's hand-written tables, by name, and a switch that turns one off for a
//! measurement (`fable fieldtest … --tables`, [`crate::measure`]).
//!
//! Why: the learner should decide from what a project shows, and every table written by
//! hand is a place where it does not. To know which tables still decide something, the
//! field test runs a corpus with all tables on, then with each one off, and counts the
//! accepted rules that depend on it. The switch is checked at each table's lookup site
//! ([`on`]); off, the lookup answers as if the table were empty.
//!
//! Hidden on purpose: no `learn.json` field, no environment variable. It is per thread and
//! on by default, and only [`switch_off`] (called by the measurement around one pipeline
//! run) changes it, so a hook never runs with a table off.

use std::cell::Cell;

/// One hand-written table, named where it is looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// Command spellings the shape of a change cannot see (`git switch -c` = `git checkout
    /// -b`), `text/spelling.rs`.
    Spellings,
    /// Listings and inspections (`make help`, `git fsck`, `--version`), `text/inspection.rs`;
    /// a later run that asks the tool about itself is no retry, `history/recovery_form.rs`.
    Listings,
    /// Read-only programs and verbs (`cat`, `git status`), `text/read_only.rs`.
    ReadOnly,
    /// Directory wrapper flags (`-C`, `--prefix`), `text/inspection.rs`.
    DirFlags,
    /// Programs whose first word is a subcommand (`git push`), and make's default goal
    /// (`all`), `text/command_norm.rs`.
    SubcommandPrograms,
    /// Words that make a line an error line (`error`, `denied`), `text/signature.rs`; the
    /// level words a warning set aside beside an error says it warns by, `text/warning_line.rs`.
    ErrorWords,
    /// Phrases that name an anchor (`address already in use` → `EADDRINUSE`), `text/signature.rs`.
    AnchorPhrases,
    /// Unsafe directive patterns (`rm -rf`, `--no-verify`), `text/safety.rs`; the words a
    /// guard's setting is named by (`deny…`, `require…`), `text/check_off.rs`; the phrases a
    /// failure offers the switch that suppresses it in, `history/escape_hatch.rs`.
    Safety,
    /// Stop-words dropped from triggers (`the`, `a`), `matching/terms.rs`.
    StopWords,
    /// Anchors scoped by program or by environment in a failure class, `propose/failure_class.rs`.
    ClassAnchors,
    /// The core pack's remedies by anchor (`packs/core.json`), `propose/core_pack.rs`.
    CorePack,
    /// Program families (`pip`, `uv` → `python`; `yarn` → `npm`), `text/command_norm.rs`.
    Domains,
    /// Wrappers skipped before a program (`sudo`, `env`, `time`), `text/intent.rs`; the
    /// project runners among them (`npx`, `uv run`), `text/command_norm.rs`.
    Wrappers,
    /// Programs that fetch outside content (`curl`, `wget`), `history/origin_trust.rs`.
    Fetchers,
}

impl Table {
    /// Every table, in the order the report lists them.
    pub const ALL: &'static [Table] = &[
        Table::Spellings,
        Table::Listings,
        Table::ReadOnly,
        Table::DirFlags,
        Table::SubcommandPrograms,
        Table::ErrorWords,
        Table::AnchorPhrases,
        Table::Safety,
        Table::StopWords,
        Table::ClassAnchors,
        Table::CorePack,
        Table::Domains,
        Table::Wrappers,
        Table::Fetchers,
    ];

    /// The table's name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Table::Spellings => "spellings",
            Table::Listings => "listings",
            Table::ReadOnly => "read_only",
            Table::DirFlags => "dir_flags",
            Table::SubcommandPrograms => "subcommand_programs",
            Table::ErrorWords => "error_words",
            Table::AnchorPhrases => "anchor_phrases",
            Table::Safety => "safety",
            Table::StopWords => "stop_words",
            Table::ClassAnchors => "class_anchors",
            Table::CorePack => "core_pack",
            Table::Domains => "domains",
            Table::Wrappers => "wrappers",
            Table::Fetchers => "fetchers",
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

thread_local! {
    /// Tables switched off on this thread (one bit per [`Table`]); 0 = all on.
    static OFF: Cell<u32> = const { Cell::new(0) };
}

/// Is this table on (the default)? Checked at the table's lookup site.
pub fn on(t: Table) -> bool {
    OFF.with(|o| o.get() & t.bit() == 0)
}

/// Turns one table off on this thread until the guard is dropped.
#[must_use = "the table is on again when the guard is dropped"]
pub fn switch_off(t: Table) -> Off {
    let prev = OFF.with(|o| o.replace(o.get() | t.bit()));
    Off(prev)
}

/// The guard of [`switch_off`]: restores the tables as they were.
pub struct Off(u32);

impl Drop for Off {
    fn drop(&mut self) {
        OFF.with(|o| o.set(self.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_only_inside_the_guard_and_only_that_table() {
        assert!(Table::ALL.iter().all(|t| on(*t)));
        {
            let _g = switch_off(Table::Spellings);
            assert!(!on(Table::Spellings));
            assert!(on(Table::Listings));
        }
        assert!(on(Table::Spellings));
        let names: std::collections::HashSet<_> = Table::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(names.len(), Table::ALL.len());
    }
}
