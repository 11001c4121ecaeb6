//! Fair contests (issue 34, item 2): a session whose fix is not in the log — an edit
//! record ([`crate::learn::propose::failure_class`]'s tests), an unchanged retry, a
//! retyped typo — neither supports nor contests a logged fix. (Its own file: the
//! candidates' file is at its size limit.)

use crate::learn::history::episodes::tests::rec;
use crate::learn::history::episodes::{extract, Prepared, WINDOW};
use crate::learn::propose::candidates::{build, Candidate};

fn cands(h: &[crate::evidence::Record]) -> Vec<Candidate> {
    let p = Prepared::new(h);
    let e = extract(h, &p, WINDOW);
    build(&e, &p, false)
}

/// (sessions agreeing, recovered in the class, working fixes, plain retries) of a candidate.
fn counts(f: &Candidate) -> (Option<usize>, usize, usize, usize) {
    (
        f.covered,
        f.recovered_in_cluster,
        f.fix_keys_in_cluster,
        f.cleared_plainly,
    )
}

fn the_fix<'a>(c: &'a [Candidate], says: &str) -> &'a Candidate {
    c.iter()
        .find(|c| c.directive.contains(says))
        .unwrap_or_else(|| panic!("no candidate says {says}: {c:#?}"))
}

/// Three sessions that fix `ambiguous argument` by naming the remote's branch.
fn origin_sessions() -> Vec<crate::evidence::Record> {
    let mut h = Vec::new();
    for s in ["a", "b", "c"] {
        let b = format!("feat/{s}x");
        h.push(rec(
            s,
            &format!("git log --oneline {b}"),
            false,
            &format!("fatal: ambiguous argument '{b}': unknown revision or path not in the working tree."),
        ));
        h.push(rec(s, &format!("git log --oneline origin/{b}"), true, "abc123 x"));
    }
    h
}

#[test]
fn an_unchanged_retry_neither_supports_nor_contests() {
    // d only looked, then the unchanged command passed: evidence against the fix's
    // necessity (`cleared_plainly`), never a competing fix nor support.
    let mut h = origin_sessions();
    let msg = "fatal: ambiguous argument 'feat/dx': unknown revision or path not in the working tree.";
    h.push(rec("d", "git log --oneline feat/dx", false, msg));
    h.push(rec("d", "git branch -a", true, "main"));
    h.push(rec("d", "git log --oneline feat/dx", true, "abc123 x"));
    let c = cands(&h);
    let f = the_fix(&c, "origin/");
    assert_eq!(f.episodes.len(), 3, "{f:#?}");
    assert_eq!(counts(f), (Some(3), 3, 1, 1));
    assert!(c.iter().all(|c| !c.episodes.contains(&3)), "{c:#?}");
}

#[test]
fn a_retyped_typo_neither_supports_nor_contests() {
    // d and e mistyped the branch and retyped it: what they knew is not in the log. A
    // letter swapped, or one left out and put back (an insertion of a letter is no
    // `origin/` insertion): no competing fix, no support, no plain retry either.
    let mut h = origin_sessions();
    for (s, typed, meant) in [("d", "feat/xd", "feat/dx"), ("e", "fat/ex", "feat/ex")] {
        h.push(rec(
            s,
            &format!("git log --oneline {typed}"),
            false,
            &format!("fatal: ambiguous argument '{typed}': unknown revision or path not in the working tree."),
        ));
        h.push(rec(s, &format!("git log --oneline {meant}"), true, "abc123 x"));
    }
    let c = cands(&h);
    let f = the_fix(&c, "origin/");
    assert_eq!(f.episodes.len(), 3, "{f:#?}");
    assert_eq!(counts(f), (Some(3), 3, 1, 0), "{c:#?}");
}

/// Three sessions fix `git add` of an ignored path with `-f` (the tool's own hint: "Use -f
/// if you really want to add them"), a fourth with `--force` (blocked by safety), a
/// fifth's unchanged retry passed. The unsafe cure is no support and no contest, but it is
/// a cure: the safe fix is not coincidence (4 of 5, not 3 of 4). (Until 2026-12-07 this was
/// `gzip -f` beside `gzip --force`; with no hint of the tool's naming `-f`, a short flag
/// is now judged as its unsafe long name: `history/short_spelling.rs`.)
#[test]
fn the_same_change_done_unsafely_weighs_against_coincidence_only() {
    let h = forced_add_history();
    let c = cands(&h);
    let safe = the_fix(&c, "`-f`");
    assert_eq!(safe.cured_unsafely, 1, "{safe:#?}");
    assert_eq!(safe.cleared_plainly, 1);
    assert_eq!(safe.episodes.len(), 3, "the unsafe session is no support");
}

/// The history of [`the_same_change_done_unsafely_weighs_against_coincidence_only`]
/// (the pipeline's test judges it): the forced path in, `-f` and once `--force`.
pub(crate) fn forced_add_history() -> Vec<crate::evidence::Record> {
    let ignored = |f: &str| {
        format!("The following paths are ignored by one of your .gitignore files:\n{f}\nhint: Use -f if you really want to add them.")
    };
    let mut h = Vec::new();
    for (s, f) in [("a", "logs/a.log"), ("b", "logs/b.log"), ("c", "logs/c.log")] {
        h.push(rec(s, &format!("git add {f}"), false, &ignored(f)));
        h.push(rec(s, &format!("git add -f {f}"), true, ""));
    }
    h.push(rec("d", "git add logs/d.log", false, &ignored("logs/d.log")));
    h.push(rec("d", "git add --force logs/d.log", true, ""));
    h.push(rec("e", "git add logs/e.log", false, &ignored("logs/e.log")));
    h.push(rec("e", "ls -l logs", true, "e.log"));
    h.push(rec("e", "git add logs/e.log", true, ""));
    h
}
