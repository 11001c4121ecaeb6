//! How failures become classes (issue 34, item 1), through the production pipeline: a
//! short error text fixed one way across sessions is a rule (not `generic` by its length);
//! a short text that also fires on another class stays generic; texts that differ only in
//! the symbols they echo are one class; one compiler met through two spellings (`gcc`,
//! `cc`) is one class; a folder's name is no anchor. And the honest side: sessions that
//! met the same short failure and never fixed it learn nothing.

use fable::evidence::Record;
use fable::learn::{run_pipeline, LearnConfig, Learned};

#[path = "support/records.rs"]
mod records;
use records::rec;

const PAREN: &str = "grep: Unmatched ( or \\(\n";
const BRACKET: &str = "grep: Unmatched [, [^, [:, [., or [=\n";

/// A session: `fail` fails with `tail`, `fix` passes.
fn fixed(id: &str, fail: &str, tail: &str, fix: &str) -> Vec<Record> {
    vec![rec(id, fail, false, tail), rec(id, fix, true, "src/app.py:1:x\n")]
}

fn accepted(out: &[Learned]) -> Vec<&Learned> {
    out.iter().filter(|l| l.rule.accepted == Some(true)).collect()
}

fn sessions(l: &Learned) -> Vec<&str> {
    let mut s: Vec<&str> = l.support_refs.iter().map(|r| r.session.as_str()).collect();
    s.sort_unstable();
    s.dedup();
    s
}

fn grep_history() -> Vec<Record> {
    let mut h = Vec::new();
    for (i, pat) in ["init(", "print(", "max("].iter().enumerate() {
        h.extend(fixed(
            &format!("p{i}"),
            &format!("grep -rnE '{pat}' src/"),
            PAREN,
            &format!("grep -rnF '{pat}' src/"),
        ));
    }
    h.extend(fixed(
        "b0",
        "grep -rn 'items[0' src/",
        BRACKET,
        "grep -rnF 'items[0' src/",
    ));
    h
}

#[test]
fn a_short_error_fixed_one_way_in_several_sessions_is_a_rule_and_its_symbols_are_one_class() {
    let out = run_pipeline(&grep_history(), &LearnConfig::default()).candidates;
    let acc = accepted(&out);
    assert_eq!(acc.len(), 1, "{out:#?}");
    assert!(acc[0].rule.directive.contains("-rnF"), "{:#?}", acc[0].rule);
    // The bracket's session, its text differing only in the symbols echoed, is the same class.
    assert_eq!(sessions(acc[0]), ["b0", "p0", "p1", "p2"], "{:#?}", acc[0]);
}

#[test]
fn a_short_error_met_and_never_fixed_learns_nothing() {
    // The near-miss: the same failure, then the agent looked around and moved on.
    let mut h = Vec::new();
    for i in 0..4 {
        h.push(rec(&format!("n{i}"), "grep -rnE 'init(' src/", false, PAREN));
        h.push(rec(&format!("n{i}"), "ls", true, "src\n"));
    }
    let out = run_pipeline(&h, &LearnConfig::default()).candidates;
    assert!(accepted(&out).is_empty(), "{out:#?}");
}

#[test]
fn a_short_error_that_also_fires_on_another_class_stays_generic() {
    // `frob: unmatched thing` fixed with `--loose` in three sessions; a longer failure of
    // another class says its words too and is matched by it: the thin text is not specific.
    let thin = "frob: unmatched thing\n";
    let mut h = Vec::new();
    for i in 0..3 {
        h.extend(fixed(
            &format!("t{i}"),
            "frob run a.cfg",
            thin,
            "frob run --loose a.cfg",
        ));
    }
    for i in 0..3 {
        h.push(rec(
            &format!("o{i}"),
            "frob run b.cfg",
            false,
            "frob: unmatched thing in section header, closing bracket expected before end of line\n",
        ));
        h.push(rec(&format!("o{i}"), "frob fmt b.cfg", true, ""));
        h.push(rec(&format!("o{i}"), "frob run b.cfg", true, ""));
    }
    let out = run_pipeline(&h, &LearnConfig::default()).candidates;
    let loose: Vec<&Learned> = out.iter().filter(|l| l.rule.directive.contains("--loose")).collect();
    assert!(!loose.is_empty(), "{out:#?}");
    for l in loose {
        assert!(l.prevented_refs.iter().any(|r| r.session.starts_with('o')), "{l:#?}");
        assert_eq!(l.rule.reason, "generic", "{:#?}", l.rule);
    }
}

#[test]
fn one_compiler_met_through_two_spellings_is_one_class() {
    let libm = |f: &str| {
        format!("/usr/bin/ld: /tmp/ccStliE3.o: in function `main':\n{f}.c:(.text+0x50): undefined reference to `pow'\ncollect2: error: ld returned 1 exit status\n")
    };
    let mut h = Vec::new();
    for (i, cc) in ["gcc", "cc", "gcc-12", "cc"].iter().enumerate() {
        let f = format!("f{i}");
        h.push(rec(&format!("s{i}"), &format!("{cc} -o {f} {f}.c"), false, &libm(&f)));
        h.push(rec(&format!("s{i}"), &format!("{cc} -o {f} {f}.c -lm"), true, ""));
    }
    let out = run_pipeline(&h, &LearnConfig::default()).candidates;
    let acc = accepted(&out);
    assert_eq!(acc.len(), 1, "{out:#?}");
    assert!(acc[0].rule.directive.contains("-lm"), "{:#?}", acc[0].rule);
    assert_eq!(sessions(acc[0]).len(), 4, "{:#?}", acc[0]);
}

#[test]
fn a_folder_named_like_a_failure_is_no_anchor() {
    // `fixtures` and `timeout` are the session's folders, not a missing pytest fixture or
    // a timeout: the four failures are one class, fixed with `-r` (or `-R`).
    let mut h = Vec::new();
    for (i, (dir, flag)) in [
        ("config", "-r"),
        ("fixtures", "-R"),
        ("timeout", "-r"),
        ("assets/icons", "-r"),
    ]
    .iter()
    .enumerate()
    {
        let tail = format!("cp: -r not specified; omitting directory '{dir}'\n");
        h.extend(fixed(
            &format!("c{i}"),
            &format!("cp {dir} out/"),
            &tail,
            &format!("cp {flag} {dir} out/"),
        ));
    }
    let out = run_pipeline(&h, &LearnConfig::default()).candidates;
    let acc = accepted(&out);
    assert_eq!(acc.len(), 1, "{out:#?}");
    assert!(acc[0].rule.anchors.is_empty(), "{:#?}", acc[0].rule);
    assert_eq!(sessions(acc[0]).len(), 4, "{:#?}", acc[0]);
}

#[test]
fn a_step_the_error_names_is_the_class_whatever_followed_it() {
    // `cd` with an unquoted space fails before `cat` in three sessions and before `ls` in
    // one: the error names `cd`, so the four are one class and the quoting one rule.
    let cd = "bash: line 1: cd: too many arguments\n";
    let mut h = Vec::new();
    for (i, (dir, then)) in [
        ("test data", "cat x.txt"),
        ("My Project", "cat x.txt"),
        ("Q1 reports", "cat x.txt"),
        ("old backups", "ls"),
    ]
    .iter()
    .enumerate()
    {
        let s = format!("d{i}");
        h.push(rec(&s, &format!("cd {dir} && {then}"), false, cd));
        h.push(rec(&s, &format!("cd \"{dir}\" && {then}"), true, "x\n"));
    }
    let out = run_pipeline(&h, &LearnConfig::default()).candidates;
    let acc = accepted(&out);
    assert_eq!(acc.len(), 1, "{out:#?}");
    assert_eq!(sessions(acc[0]), ["d0", "d1", "d2", "d3"], "{:#?}", acc[0]);
}
