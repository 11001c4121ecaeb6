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
    assert_eq!(
        (
            f.covered,
            f.recovered_in_cluster,
            f.fix_keys_in_cluster,
            f.cleared_plainly
        ),
        (Some(3), 3, 1, 1)
    );
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
    assert_eq!(
        (
            f.covered,
            f.recovered_in_cluster,
            f.fix_keys_in_cluster,
            f.cleared_plainly
        ),
        (Some(3), 3, 1, 0),
        "{c:#?}"
    );
}
