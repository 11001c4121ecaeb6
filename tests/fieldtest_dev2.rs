//! The second development set of issue 34 (`tests/corpora-general/dev2`): 17 failure
//! classes that appear in no other corpus (not in dev, heldout, val, nor tests/corpora*),
//! really run by `scripts/gen_corpora_general.py --only dev2` (2026-12-06), chosen so that
//! FIXES COMPETE: in most classes the four golden sessions fix the failure with different
//! but equivalent spellings (a short and a long flag, two subcommands, a flag and its
//! environment variable, `mkdir -p` and `install -d`), in four classes two genuinely
//! different fixes both work. The first development half holds no contested class, so
//! contests could only be seen on val, which must not be tuned on; dev2 is tuned on like dev.
//!
//! Asserted, as one history (`fable fieldtest dev2-golden dev2-nearmiss dev2-unsafe --pool
//! dev2-pool --json --gate`), in both modes (`--packs none`, `--packs core`): 0 accepted
//! rules on `dev2-nearmiss` and `dev2-unsafe` (the baseline accepted none there), and a
//! floor on `dev2-golden`: the baseline of main's learner at e3cd95b, 17 learned-only and
//! 18 with the core pack of 68 (28 of the 68 sessions `contested`), raised to 44 and 45
//! after the spellings round (generalisation.md §15), 54 and 55 in §17. Raise the floor when the learner gains. Each rejection corpus is also run alone with the pool. The per-class
//! table and the verdict counts are printed (`cargo test --test fieldtest_dev2 -- --nocapture`).

#[path = "support/fieldtest_report.rs"]
mod fieldtest_report;
mod isolated;
use fieldtest_report::GeneratedSet;

/// Dev2-golden sessions passed (of 68): 17 / 18 by main's learner at e3cd95b, when the set
/// was made (28 of the 68 `contested`: the count this set exists to move); 44 / 45 after
/// the round of §15; 54 / 55 after §17; 55 / 56 with a flag of its own beside any of a
/// fix's spellings agreeing (§18); 60 / 61 once every change to the failing command's
/// options is one kind of fix (§23: `-std=gnu99` beside `-D_DEFAULT_SOURCE`); 57 / 58 once a
/// short flag is judged as the unsafe long name the same class showed (§23: `gzip -f` beside
/// the `gzip --force` the gate already blocked; `gzip-output-exists` lost its three `-f`
/// sessions, a cost kept for one judgement of both spellings). Raise it when the learner gains.
const SET: GeneratedSet = GeneratedSet {
    set: "dev2",
    sessions: 68,
    classes: 17,
    floors: [57, 58],
};

#[test]
fn dev2_set_rejects_and_holds_its_baseline() {
    SET.rejects_and_holds_its_floor();
}

/// Each dev2 rejection corpus alone with the pool, in both modes: 0 accepted rules.
#[test]
fn dev2_rejection_corpora_alone_with_pool() {
    SET.rejection_corpora_alone_with_pool();
}
