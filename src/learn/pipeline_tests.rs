//! The pipeline's judgement of small histories end to end, where the reason a rule gets
//! depends on stages no single stage's tests see together (its own file: the pipeline's is
//! at its size limit).

use crate::learn::judge::config::LearnConfig;
use crate::learn::pipeline::run_pipeline;

/// Three `git add -f` cures, one `git add --force` (blocked), one plain retry: the safe fix is
/// not coincidence, the forced one stays blocked.
#[test]
fn a_cure_done_unsafely_weighs_against_coincidence() {
    let h = crate::learn::propose::fair_contest_tests::forced_add_history();
    let out = run_pipeline(&h, &LearnConfig::default());
    let rule = |says: &str| {
        &out.candidates
            .iter()
            .find(|l| l.rule.directive.contains(says))
            .unwrap()
            .rule
    };
    assert_ne!(rule("`-f`").reason, "coincidental", "{:#?}", rule("`-f`"));
    assert_eq!(rule("--force").reason, "blocked_by_safety");
}

/// One session each of `cat`, `rm` and `wc` meeting a file name that starts with `-`,
/// kept a name by `--` or `./`; and `jq`, `python` and `node` each missing a config,
/// each copying it from its example first. No program has the recurrence alone.
fn across_programs() -> Vec<crate::evidence::Record> {
    use crate::learn::history::episodes::tests::rec;
    vec![
        rec(
            "a",
            "cat -notes.txt",
            false,
            "cat: invalid option -- 'o'\nTry 'cat --help' for more information.",
        ),
        rec("a", "cat -- -notes.txt", true, "content"),
        rec(
            "b",
            "rm -v2.log",
            false,
            "rm: invalid option -- '2'\nTry 'rm --help' for more information.",
        ),
        rec("b", "rm ./-v2.log", true, ""),
        rec(
            "c",
            "wc -l -x.csv",
            false,
            "wc: invalid option -- 'x'\nTry 'wc --help' for more information.",
        ),
        rec("c", "wc -l ./-x.csv", true, "1 ./-x.csv"),
    ]
}

/// The one accepted rule of an outcome (the test fails when there is not exactly one).
pub(super) fn only_accepted(out: &crate::learn::LearnOutcome) -> &crate::learn::Rule {
    let accepted: Vec<_> = out
        .candidates
        .iter()
        .filter(|l| l.rule.accepted == Some(true))
        .collect();
    assert_eq!(accepted.len(), 1, "{:#?}", out.candidates);
    &accepted[0].rule
}

pub(super) fn learned(h: &[crate::evidence::Record]) -> crate::learn::LearnOutcome {
    let cfg = LearnConfig {
        packs: Vec::new(),
        ..LearnConfig::default()
    };
    run_pipeline(h, &cfg)
}

/// The three sessions are one lesson across programs: one accepted rule, shown for
/// those three programs only, standing on all three; each program's own share is not
/// accepted (it has one session).
#[test]
fn one_cause_through_several_programs_is_one_rule_for_those_programs() {
    let out = learned(&across_programs());
    let r = only_accepted(&out);
    assert_eq!(r.domain, "");
    assert_eq!(r.domains, vec!["cat", "rm", "wc"]);
    assert_eq!(r.support.len(), 3, "{r:#?}");
    assert!(
        r.directive.contains("`--`") && r.directive.contains("./"),
        "{}",
        r.directive
    );
    // Reassessed from the store (support found again through its programs), it holds.
    let again = crate::learn::reassess(std::slice::from_ref(r), &across_programs(), &LearnConfig::default());
    assert_eq!(again[0].support.len(), 3, "{:#?}", again[0]);
    assert_eq!(again[0].prevented, 3);
}

/// Honest counterparts: the same text through three programs fixed three different ways
/// is nobody's lesson; and a program whose own rule stands (three `rm` sessions) joins the
/// class with the program that does not (one `cat` session): one rule, for both, its own
/// rule folded into it as one lesson (`same_lesson`), never shown twice.
#[test]
fn programs_that_fixed_it_differently_are_not_merged_one_that_stands_alone_joins() {
    use crate::learn::history::episodes::tests::rec;
    let mut h = across_programs();
    // c fixes wc another way (the file renamed first): the text is shared, the fix is not.
    h.truncate(4);
    h.push(rec(
        "c",
        "wc -l -x.csv",
        false,
        "wc: invalid option -- 'x'\nTry 'wc --help' for more information.",
    ));
    h.push(rec("c", "mv -- -x.csv x.csv", true, ""));
    h.push(rec("c", "wc -l x.csv", true, "1 x.csv"));
    let out = learned(&h);
    assert!(
        out.candidates.iter().all(|l| l.rule.accepted != Some(true)),
        "{:#?}",
        out.candidates
    );
    assert!(out.candidates.iter().all(|l| l.rule.domains.len() != 3));
    // Three sessions of `rm` with the fix, one of `cat`: the class across both programs,
    // rm's own rule folded into it.
    let mut h = across_programs();
    h.truncate(4);
    h.push(rec(
        "d",
        "rm -v3.log",
        false,
        "rm: invalid option -- '3'\nTry 'rm --help' for more information.",
    ));
    h.push(rec("d", "rm ./-v3.log", true, ""));
    h.push(rec(
        "e",
        "rm -v4.log",
        false,
        "rm: invalid option -- '4'\nTry 'rm --help' for more information.",
    ));
    h.push(rec("e", "rm -- -v4.log", true, ""));
    let out = learned(&h);
    let r = only_accepted(&out);
    assert_eq!(r.domains, vec!["cat".to_string(), "rm".to_string()], "{r:#?}");
    assert!(
        out.candidates
            .iter()
            .any(|l| l.rule.domain == "rm" && l.rule.reason == crate::learn::judge::same_lesson::SAME_LESSON),
        "{:#?}",
        out.candidates
            .iter()
            .map(|l| (&l.rule.key, &l.rule.reason))
            .collect::<Vec<_>>()
    );
}

/// At a failure, the rule across programs is shown for its programs (a new name under
/// `rm`), not for another program saying the same words (`ls`).
#[test]
fn a_rule_across_programs_is_shown_for_its_programs_only() {
    use crate::learn::history::episodes::tests::rec;
    let out = learned(&across_programs());
    let r = out
        .candidates
        .iter()
        .find(|l| l.rule.accepted == Some(true))
        .map(|l| l.rule.clone())
        .expect("the rule across programs");
    // The dash name is a file where it failed: the rule's fix is about such a name.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("-old.txt"), "x").unwrap();
    let mut rm = rec(
        "z",
        "rm -old.txt",
        false,
        "rm: invalid option -- 'o'\nTry 'rm --help' for more information.",
    );
    rm.cwd = dir.path().to_string_lossy().into_owned();
    let ls = rec(
        "z",
        "ls -z",
        false,
        "ls: invalid option -- 'z'\nTry 'ls --help' for more information.",
    );
    let threshold = crate::learn::matching::matcher::DEFAULT_THRESHOLD;
    let rules = [r];
    assert!(crate::learn::rules_inject::matching_rule(&rules, &rm, threshold).is_some());
    assert!(crate::learn::rules_inject::matching_rule(&rules, &ls, threshold).is_none());
}

/// An anchorless rule's trigger quotes its failure text, and quotes are masked: the hook
/// read no failure term from it and capped its score below any threshold, so a learned
/// anchorless rule was never shown at a failure. Its signature's terms are failure terms.
#[test]
fn an_anchorless_rule_is_shown_at_its_failure() {
    use crate::learn::history::episodes::tests::rec;
    let mut h = across_programs();
    for s in ["d", "e"] {
        h.push(rec(
            s,
            "rm -v3.log",
            false,
            "rm: invalid option -- '3'\nTry 'rm --help' for more information.",
        ));
        h.push(rec(s, "rm -- -v3.log", true, ""));
    }
    let out = learned(&h);
    // rm's own rule stands, and is one lesson with the class across programs it joins:
    // the rule shown for `rm` is that class's.
    let r = only_accepted(&out).clone();
    assert!(r.domains.contains(&"rm".to_string()), "{r:#?}");
    assert!(r.anchors.is_empty(), "{r:#?}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("-old.txt"), "x").unwrap();
    let mut again = rec(
        "z",
        "rm -old.txt",
        false,
        "rm: invalid option -- 'o'\nTry 'rm --help' for more information.",
    );
    again.cwd = dir.path().to_string_lossy().into_owned();
    let other = rec(
        "z",
        "rm old.txt",
        false,
        "rm: cannot remove 'old.txt': No such file or directory",
    );
    let threshold = crate::learn::matching::matcher::DEFAULT_THRESHOLD;
    assert!(crate::learn::rules_inject::matching_rule(std::slice::from_ref(&r), &again, threshold).is_some());
    assert!(crate::learn::rules_inject::matching_rule(std::slice::from_ref(&r), &other, threshold).is_none());
}

/// Three tools not found on `PATH`, each run from the project's own copy (a venv's `bin/`,
/// npm's `node_modules/.bin/`): one lesson whichever tool, said as the project's copy of
/// the failing program, never as one tool's path.
#[test]
fn each_tool_run_from_the_projects_own_copy_is_one_lesson() {
    use crate::learn::history::episodes::tests::rec;
    let h = vec![
        rec("a", "lintkit src", false, "bash: lintkit: command not found"),
        rec("a", ".venv/bin/lintkit src", true, "ok"),
        rec("b", "docgen --strict docs", false, "bash: docgen: command not found"),
        rec("b", "./.venv/bin/docgen --strict docs", true, "ok"),
        rec("c", "mdcheck README.md", false, "bash: mdcheck: command not found"),
        rec("c", "node_modules/.bin/mdcheck README.md", true, "ok"),
    ];
    let out = learned(&h);
    let r = only_accepted(&out);
    assert_eq!(r.domains, vec!["docgen", "lintkit", "mdcheck"]);
    assert!(r.directive.contains("`<env>/bin/<program>`"), "{}", r.directive);
    assert!(r.directive.contains("node_modules/.bin/mdcheck"), "{}", r.directive);
}

/// `git switch` of a branch that does not exist, cured three times by `-c`; one session
/// looked (`git branch -a`) and the unchanged command then passed. The changed command is
/// the mechanism, one plain retry does not make it chance. Its honest counterpart: when
/// plain retries outnumber the cures, the class clears by itself and `-c` is coincidence.
#[test]
fn a_changed_command_is_no_coincidence_unless_plain_retries_outnumber_it() {
    use crate::learn::history::episodes::tests::rec;
    let fails = |s: &str, b: &str| {
        rec(
            s,
            &format!("git switch {b}"),
            false,
            &format!("fatal: invalid reference: {b}"),
        )
    };
    let mut h = Vec::new();
    for (s, b) in [("a", "feat/csv"), ("b", "topic/logs"), ("c", "fix/amount")] {
        h.push(fails(s, b));
        h.push(rec(
            s,
            &format!("git switch -c {b}"),
            true,
            &format!("Switched to a new branch '{b}'"),
        ));
    }
    let plain = |h: &mut Vec<crate::evidence::Record>, s: &str, b: &str| {
        h.push(fails(s, b));
        h.push(rec(s, "git branch -a", true, "* main"));
        h.push(rec(
            s,
            &format!("git switch {b}"),
            true,
            &format!("Switched to branch '{b}'"),
        ));
    };
    plain(&mut h, "d", "feat/csv");
    let out = run_pipeline(&h, &LearnConfig::default());
    let rule = only_accepted(&out);
    // (`git switch -c` is said in its canonical spelling, `git checkout -b`.)
    assert!(rule.directive.contains("`-b`"), "{rule:#?}");
    for (s, b) in [("e", "topic/logs"), ("f", "fix/amount"), ("g", "docs/readme")] {
        plain(&mut h, s, b);
    }
    let out = run_pipeline(&h, &LearnConfig::default());
    let c = out
        .candidates
        .iter()
        .find(|l| l.rule.directive.contains("`-b`"))
        .unwrap();
    assert_eq!(c.rule.reason, "coincidental", "{:#?}", c.rule);
}

/// `comm` on unsorted input, sorted on the way (`<(sort a)`) by two sessions, rewritten
/// in place (`sort -o a a`) by a third, sorted into new files by a fourth: one lesson,
/// said in its most common shape with the others named, never one session's files.
#[test]
fn an_input_sorted_on_the_way_or_in_place_is_one_lesson() {
    use crate::learn::history::episodes::tests::rec;
    let bad = "comm: file 1 is not in sorted order\ncomm: input is not in sorted order";
    let h = vec![
        rec("a", "comm -12 old.txt new.txt", false, bad),
        rec("a", "comm -12 <(sort old.txt) <(sort new.txt)", true, "ann"),
        rec("b", "comm -23 hosts.txt allow.txt", false, bad),
        rec("b", "comm -23 <(sort hosts.txt) <(sort allow.txt)", true, "zoe"),
        rec("c", "comm -13 a.txt b.txt", false, bad),
        rec("c", "sort -o a.txt a.txt", true, ""),
        rec("c", "sort -o b.txt b.txt", true, ""),
        rec("c", "comm -13 a.txt b.txt", true, "carl"),
        rec("d", "comm -3 x.txt y.txt", false, bad),
        rec("d", "sort x.txt > x.txt.s && sort y.txt > y.txt.s", true, ""),
        rec("d", "comm -3 x.txt.s y.txt.s", true, "zoe"),
    ];
    let out = run_pipeline(&h, &LearnConfig::default());
    let rule = only_accepted(&out);
    assert!(
        rule.directive
            .contains("with its input converted on the way: `comm -12 <(sort <file>) <(sort <file>)`"),
        "{rule:#?}"
    );
    assert!(rule.directive.contains("converted by a step first"), "{rule:#?}");
    assert!(!rule.directive.contains("hosts.txt"), "{rule:#?}");
}

/// `cargo new` refusing a name two ways (a Rust keyword; a leading digit), fixed by
/// `--name` in every session: one rule for both texts, its trigger their shared words,
/// reaching both. Its honest counterparts: the second text fixed with another flag, or
/// a text that shares too few words, merges nothing.
#[test]
fn one_program_saying_one_cause_two_ways_is_one_rule() {
    use crate::learn::history::episodes::tests::rec;
    let keyword = |n: &str| {
        format!(
            "    Creating binary (application) `{n}` package\nerror: invalid package name `{n}`: it is a Rust keyword"
        )
    };
    let digit = |n: &str| {
        format!(
            "error: invalid character `{}` in package name: `{n}`, the name cannot start with a digit",
            &n[..1]
        )
    };
    let mut h = vec![
        rec("a", "cargo new --vcs none match", false, &keyword("match")),
        rec("a", "cargo new --vcs none match --name match-engine", true, "Created"),
        rec("b", "cargo new --vcs none async", false, &keyword("async")),
        rec("b", "cargo new --vcs none --name async-jobs async", true, "Created"),
    ];
    let digit_fixed = |h: &mut Vec<crate::evidence::Record>, fix: &str| {
        h.push(rec("c", "cargo new --vcs none 3d-viewer", false, &digit("3d-viewer")));
        h.push(rec(
            "c",
            &format!("cargo new --vcs none 3d-viewer {fix}"),
            true,
            "Created",
        ));
    };
    let mut same = h.clone();
    digit_fixed(&mut same, "--name viewer3d");
    let out = run_pipeline(&same, &LearnConfig::default());
    let rule = only_accepted(&out);
    assert_eq!(
        rule.trigger, "`cargo new` fails with \"invalid package name\"",
        "{rule:#?}"
    );
    assert_eq!(rule.domains, vec!["cargo".to_string()], "{rule:#?}");
    assert_eq!(rule.prevented, 3, "both texts: {rule:#?}");
    // At the hook: a new failure in either text gets it, another `cargo new` failure not.
    let threshold = crate::learn::matching::matcher::DEFAULT_THRESHOLD;
    let shown = |cmd: &str, tail: &str| {
        crate::learn::rules_inject::matching_rule(std::slice::from_ref(rule), &rec("z", cmd, false, tail), threshold)
            .is_some()
    };
    assert!(shown("cargo new type", &keyword("type")));
    assert!(shown("cargo new 9lives", &digit("9lives")));
    assert!(!shown(
        "cargo new app",
        "error: destination `/w/app` already exists\n\nUse `cargo init` to initialize the directory"
    ));
    // Another flag for the second text: not one fix, nothing merged.
    digit_fixed(&mut h, "--lib");
    let out = run_pipeline(&h, &LearnConfig::default());
    assert!(
        !out.candidates.iter().any(|l| l.rule.accepted == Some(true)),
        "{:#?}",
        out.candidates
            .iter()
            .map(|l| (&l.rule.trigger, &l.rule.reason))
            .collect::<Vec<_>>()
    );
}

/// Three sessions "fix" `git clean`'s refusal by switching off the very setting its
/// error named (`clean.requireForce`): the failure is gone because the check is. Blocked
/// as a safeguard switched off, however it was spelt.
#[test]
fn switching_off_the_setting_the_error_named_is_no_fix() {
    use crate::learn::history::episodes::tests::rec;
    let refused = "fatal: clean.requireForce is true and -f not given: refusing to clean";
    let mut h = Vec::new();
    for (s, fix) in [
        ("a", "git config clean.requireForce false"),
        ("b", "git config --local clean.requireForce false"),
        ("c", "git config clean.requireForce false"),
    ] {
        h.push(rec(s, "git clean -d", false, refused));
        h.push(rec(s, fix, true, ""));
        h.push(rec(s, "git clean -d", true, "Removing build/"));
    }
    let out = learned(&h);
    assert!(
        !out.candidates.iter().any(|l| l.rule.accepted == Some(true)),
        "{out:#?}"
    );
    let c = out
        .candidates
        .iter()
        .find(|l| l.rule.directive.contains("requireForce"))
        .unwrap();
    assert_eq!(c.rule.reason, "blocked_by_safety", "{:#?}", c.rule);
}

/// The release binary run before it was built, three times fixed by building it; once it
/// appeared after a look (built out of band). The build made the missing program: one
/// plain retry does not make it chance. When plain retries outnumber the builds, it is.
#[test]
fn building_the_missing_program_is_no_coincidence_unless_plain_retries_outnumber_it() {
    use crate::learn::history::episodes::tests::rec;
    let gone = |p: &str| format!("bash: line 1: ./target/release/{p}: No such file or directory");
    let mut h = Vec::new();
    for (s, p, b) in [
        ("a", "notify", "cargo build --release"),
        ("b", "cfg", "cargo build -r"),
        ("c", "mathx", "cargo build --release"),
    ] {
        h.push(rec(s, &format!("./target/release/{p}"), false, &gone(p)));
        h.push(rec(s, b, true, "Finished `release` profile [optimized] target(s)"));
        h.push(rec(s, &format!("./target/release/{p}"), true, "ok"));
    }
    let looked = |h: &mut Vec<crate::evidence::Record>, s: &str, p: &str| {
        h.push(rec(s, &format!("./target/release/{p}"), false, &gone(p)));
        h.push(rec(s, "ls target", true, "CACHEDIR.TAG\ndebug"));
        h.push(rec(s, &format!("./target/release/{p}"), true, "ok"));
    };
    looked(&mut h, "d", "notify");
    let builds = |h: &[crate::evidence::Record]| -> Vec<crate::learn::Rule> {
        learned(h)
            .candidates
            .iter()
            .filter(|l| l.rule.directive.contains("cargo build"))
            .map(|l| l.rule.clone())
            .collect()
    };
    // `--release` and `-r` are one fix spelt two ways: each candidate stands on all three,
    // and the one ranked second is the same lesson, not a second standing rule.
    let once = builds(&h);
    let accepted: Vec<&crate::learn::Rule> = once.iter().filter(|r| r.accepted == Some(true)).collect();
    assert_eq!(accepted.len(), 1, "{once:#?}");
    assert!(
        once.iter()
            .all(|r| r.accepted == Some(true) || r.reason == crate::learn::judge::same_lesson::SAME_LESSON),
        "{once:#?}"
    );
    // Said as the folder's programs, not the first session's (`notify`), and shown for
    // another program of that folder.
    let rule = accepted[0];
    assert!(rule.trigger.starts_with("`./target/release/<name>` fails"), "{rule:#?}");
    assert!(
        rule.directive.ends_with("then retry `./target/release/<name>`"),
        "{rule:#?}"
    );
    let other = rec("z", "./target/release/tiler --once", false, &gone("tiler"));
    let threshold = crate::learn::matching::matcher::DEFAULT_THRESHOLD;
    assert!(crate::learn::rules_inject::matching_rule(std::slice::from_ref(rule), &other, threshold).is_some());
    for (s, p) in [("e", "cfg"), ("f", "mathx"), ("g", "slug")] {
        looked(&mut h, s, p);
    }
    let many = builds(&h);
    assert!(
        !many.is_empty() && many.iter().all(|r| r.reason == "coincidental"),
        "{many:#?}"
    );
}

/// `git clone` refused because the folder exists; three sessions updated that folder
/// instead (`git -C x pull`, `cd x && git pull`) and moved on, one looked and cloned
/// again after the folder was gone (a plain retry): one accepted rule, said without any
/// session's folder. Its honest counterparts: a pull in a folder the failure did not name
/// is no such fix, and removing the folder to clone again stays blocked.
#[test]
fn the_action_run_in_the_folder_the_failure_named_is_a_fix() {
    use crate::learn::history::episodes::tests::rec;
    let exists = |d: &str| format!("fatal: destination path '{d}' already exists and is not an empty directory.");
    let mut h = Vec::new();
    for (s, d, then) in [
        ("a", "infra", "git -C infra pull"),
        ("b", "ledger", "cd ledger && git pull"),
        ("c", "notifier", "git -C notifier pull --ff-only"),
    ] {
        h.push(rec(s, &format!("git clone ~/remotes/{d}.git"), false, &exists(d)));
        h.push(rec(s, then, true, "Already up to date."));
    }
    h.push(rec("d", "git clone ~/remotes/flags.git", false, &exists("flags")));
    h.push(rec("d", "ls flags", true, "README.md"));
    h.push(rec(
        "d",
        "git clone ~/remotes/flags.git",
        true,
        "Cloning into 'flags'...",
    ));
    let out = learned(&h);
    let rule = only_accepted(&out);
    assert_eq!(
        rule.directive,
        "the folder the failure names is already there: use `git pull` in it instead of `git clone` \
         (`cd <dir> && git pull` or `git -C <dir> pull --ff-only` or `git -C <dir> pull`)"
    );
    assert_eq!(rule.support.len(), 3, "{rule:#?}");
    // The folder pulled in is not the one the failure named: another piece of work.
    let mut elsewhere = Vec::new();
    for (s, d) in [("a", "infra"), ("b", "ledger"), ("c", "notifier")] {
        elsewhere.push(rec(s, &format!("git clone ~/remotes/{d}.git"), false, &exists(d)));
        elsewhere.push(rec(s, "git -C ../work pull", true, "Already up to date."));
    }
    let out = learned(&elsewhere);
    assert!(
        out.candidates.iter().all(|l| l.rule.accepted != Some(true)),
        "{:#?}",
        out.candidates
    );
    assert!(
        out.candidates.iter().all(|l| !l.rule.directive.contains("git pull")),
        "{:#?}",
        out.candidates
    );
    // Removing the folder and cloning again: the unsafe fix stays blocked.
    let mut removed = Vec::new();
    for (s, d) in [("a", "infra"), ("b", "ledger"), ("c", "notifier")] {
        removed.push(rec(s, &format!("git clone ~/remotes/{d}.git"), false, &exists(d)));
        removed.push(rec(s, &format!("rm -rf {d}"), true, ""));
        removed.push(rec(s, &format!("git clone ~/remotes/{d}.git"), true, "Cloning into..."));
    }
    let out = learned(&removed);
    assert!(
        out.candidates.iter().all(|l| l.rule.accepted != Some(true)),
        "{:#?}",
        out.candidates
    );
}

/// A step after a pipe that failed: `jq` in `cat users.json | jq '.name'`, fixed by
/// editing `jq`'s filter (`curl … | jq` is left out: a line that fetched is untrusted). The main segment of a pipeline is its first, so the failure was
/// `cat`'s and its retry (`cat` unchanged) an unchanged one: nothing was learned. Read as
/// the step the error names, it is one rule for `jq`, and at the hook it reaches the next
/// such failure piped or not; a `cat` failure in the same line gets none.
#[test]
fn the_step_a_pipeline_failed_in_is_the_failure() {
    use crate::learn::history::episodes::tests::rec;
    let index = "jq: error (at <stdin>:7): Cannot index array with \"name\"";
    let mut h = Vec::new();
    for (s, source, fix) in [
        ("a", "cat users.json", ".[].name"),
        ("b", "cat api/users.json", "map(.name)"),
        ("c", "cat data/people.json", ".[] | .name"),
    ] {
        h.push(rec(s, &format!("{source} | jq '.name'"), false, index));
        h.push(rec(s, &format!("{source} | jq '{fix}'"), true, "\"ann\""));
    }
    let out = learned(&h);
    let rule = only_accepted(&out);
    assert_eq!(rule.domain, "jq", "{rule:#?}");
    assert!(rule.trigger.starts_with("`jq` fails"), "{rule:#?}");
    assert!(
        !rule.directive.contains("cat") && rule.directive.contains("jq"),
        "{rule:#?}"
    );
    let threshold = crate::learn::matching::matcher::DEFAULT_THRESHOLD;
    let shown = |cmd: &str, tail: &str| {
        crate::learn::rules_inject::matching_rule(std::slice::from_ref(rule), &rec("z", cmd, false, tail), threshold)
            .is_some()
    };
    assert!(shown(
        "cat orders.json | jq '.id'",
        "jq: error (at <stdin>:3): Cannot index array with \"id\""
    ));
    assert!(shown(
        "jq '.id' orders.json",
        "jq: error (at orders.json:3): Cannot index array with \"id\""
    ));
    assert!(!shown(
        "cat orders.json | jq '.id'",
        "cat: orders.json: No such file or directory"
    ));
}

/// One config missing through three programs, each created from its example: the rule
/// across programs says the step as all three spelt it, never one session's files (it was
/// the reference's own `cp settings.example.json settings.json`, shown for a missing
/// `config.json`).
#[test]
fn a_step_across_programs_is_said_without_any_sessions_files() {
    use crate::learn::history::episodes::tests::rec;
    let mut h = Vec::new();
    for (s, cmd, f, tail) in [
        (
            "a",
            "python3 app.py",
            "config.json",
            "FileNotFoundError: [Errno 2] No such file or directory: 'config.json'",
        ),
        (
            "b",
            "node server.js",
            "settings.json",
            "Error: ENOENT: no such file or directory, open 'settings.json'",
        ),
        (
            "c",
            "jq .port local.json",
            "local.json",
            "jq: error: Could not open local.json: No such file or directory",
        ),
    ] {
        h.push(rec(s, cmd, false, tail));
        h.push(rec(
            s,
            &format!("cp {}.example.json {f}", f.trim_end_matches(".json")),
            true,
            "",
        ));
        h.push(rec(s, cmd, true, "8080"));
    }
    let out = learned(&h);
    let rule = only_accepted(&out);
    assert_eq!(rule.domains.len(), 3, "{rule:#?}");
    assert!(rule.directive.starts_with("run `cp "), "{}", rule.directive);
    for f in ["config", "settings", "local"] {
        assert!(!rule.directive.contains(&format!("{f}.")), "{}", rule.directive);
    }
}
