//! The safety gate's judgement of fixes through the whole pipeline: an unsafe fix the gate
//! knows is its own blocked candidate and no competitor of the safe one. (Its own file:
//! the pipeline's tests are at their size limit.)

use crate::learn::history::episodes::tests::rec;
use crate::learn::judge::config::LearnConfig;
use crate::learn::pipeline::run_pipeline;

/// Learns from `h`; the rule whose directive says `safe` must be accepted, and every
/// candidate whose directive says `shortcut` (at least one) blocked by the safety gate.
fn safe_accepted_shortcut_blocked(h: &[crate::evidence::Record], safe: &str, shortcut: &str) {
    let out = run_pipeline(h, &LearnConfig::default());
    let rule = out
        .candidates
        .iter()
        .find(|l| l.rule.directive.contains(safe))
        .unwrap_or_else(|| panic!("no `{safe}` candidate: {:#?}", out.candidates));
    assert_eq!(rule.rule.accepted, Some(true), "{:#?}", rule.rule);
    let blocked: Vec<_> = out
        .candidates
        .iter()
        .filter(|l| l.rule.directive.contains(shortcut))
        .collect();
    assert!(
        !blocked.is_empty() && blocked.iter().all(|l| l.rule.reason == "blocked_by_safety"),
        "{:#?}",
        out.candidates
    );
}

/// Four sessions force one ignored path in (`git add -f`); three empty or remove the
/// `.gitignore` the failure blamed and run the same `git add` again. Before, those three
/// were working fixes the safety gate did not know: the safe one was contested (4 of 7).
/// The file the failure named as the reason, emptied or taken away, is a check switched
/// off ([`crate::learn::history::blamed_file`]): its own blocked candidate, no competitor.
#[test]
fn the_file_the_failure_blamed_emptied_is_blocked_and_contests_nothing() {
    let ignored = "The following paths are ignored by one of your .gitignore files:\nbuild/app.log\nhint: Use -f if you really want to add them.\nhint: Disable this message with \"git config advice.addIgnoredFile false\"";
    let mut h = Vec::new();
    for s in ["a", "b", "c", "d"] {
        h.push(rec(s, "git add build/app.log", false, ignored));
        h.push(rec(s, "git add -f build/app.log", true, ""));
    }
    for (s, off) in [
        ("e", ": > .gitignore"),
        ("f", "rm .gitignore"),
        ("g", "truncate -s 0 .gitignore"),
    ] {
        h.push(rec(s, "git add build/app.log", false, ignored));
        h.push(rec(s, off, true, ""));
        h.push(rec(s, "git add build/app.log", true, ""));
    }
    safe_accepted_shortcut_blocked(&h, "`-f`", ".gitignore");
}

/// Four sessions fix a lint failure with `--fix`; three swallow it instead (`|| true`,
/// `|| :`, `; exit 0`) and the line "passes". Read as the same command passing, those
/// three were plain retries, evidence that the failure clears by itself, and the safe fix
/// lost to coincidence. A pass its own line swallowed is no pass
/// ([`crate::learn::history::swallowed`]): a blocked candidate of its own.
#[test]
fn a_failure_swallowed_by_its_line_is_blocked_and_no_plain_retry() {
    let lint =
        "src/app.py:3:1: F401 [*] `os` imported but unused\nFound 1 error.\n[*] 1 fixable with the `--fix` option.";
    let mut h = Vec::new();
    for s in ["a", "b", "c", "d"] {
        h.push(rec(s, "ruff check src/app.py", false, lint));
        h.push(rec(s, "ruff check --fix src/app.py", true, ""));
    }
    for (s, swallowed) in [
        ("e", "ruff check src/app.py || true"),
        ("f", "ruff check src/app.py 2>/dev/null || :"),
        ("g", "ruff check src/app.py; exit 0"),
    ] {
        h.push(rec(s, "ruff check src/app.py", false, lint));
        h.push(rec(s, swallowed, true, lint));
    }
    safe_accepted_shortcut_blocked(&h, "`--fix`", "|| true");
}

/// Four sessions fix an unused import with `--fix`; three hand the finding the failure
/// named to a switch that silences it (`--ignore F401`, `--extend-ignore=F401`,
/// `--per-file-ignores=…:F401`). Before, those were a working fix the gate did not know,
/// and the safe one was contested (4 of 7). The finding named and silenced is a check
/// switched off ([`crate::learn::history::named_ignore`]): its own blocked candidate.
#[test]
fn the_finding_the_failure_named_silenced_is_blocked_and_contests_nothing() {
    let lint =
        "src/app.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\n[*] 1 fixable with the `--fix` option.";
    let mut h = Vec::new();
    for s in ["a", "b", "c", "d"] {
        h.push(rec(s, "ruff check src/app.py", false, lint));
        h.push(rec(s, "ruff check --fix src/app.py", true, ""));
    }
    for (s, silenced) in [
        ("e", "ruff check --ignore F401 src/app.py"),
        ("f", "ruff check --extend-ignore=F401 src/app.py"),
        ("g", "ruff check --per-file-ignores=src/app.py:F401 src/app.py"),
    ] {
        h.push(rec(s, "ruff check src/app.py", false, lint));
        h.push(rec(s, silenced, true, ""));
    }
    safe_accepted_shortcut_blocked(&h, "`--fix`", "ignore");
}

/// Three sessions fix an unused import with `--fix`; four run the linter again without
/// the folder its findings were in (`ruff check src/` after `ruff check src/ tests/`).
/// Read on its flags alone, that was the same command passing (flaky): a shortcut nothing
/// recorded. The retry is the command without an operand, the one the failure was in
/// ([`crate::learn::history::narrowed`]): a blocked candidate the report shows.
#[test]
fn a_retry_without_the_operand_that_failed_is_blocked_and_no_plain_retry() {
    let lint = "tests/test_app.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\n[*] 1 fixable with the `--fix` option.";
    let mut h = Vec::new();
    for s in ["a", "b", "c"] {
        h.push(rec(s, "ruff check src/ tests/", false, lint));
        h.push(rec(s, "ruff check --fix src/ tests/", true, ""));
    }
    for s in ["d", "e", "f", "g"] {
        h.push(rec(s, "ruff check src/ tests/", false, lint));
        h.push(rec(s, "ruff check src/", true, ""));
    }
    safe_accepted_shortcut_blocked(&h, "`--fix`", "without");
}

/// Four sessions add the type arguments javac asked for; three lower its strictness
/// instead: `-Werror` dropped, `-Werror` taken out of the build file, `-Xlint:all,-rawtypes`.
/// Before, those were working fixes that contested the real one. Strictness lowered
/// ([`crate::learn::history::strictness`], [`crate::learn::history::named_ignore`]) is its
/// own blocked candidate.
#[test]
fn strictness_lowered_is_blocked_and_contests_nothing() {
    let javac = "src/App.java:5: warning: [rawtypes] found raw type: List\nerror: warnings found and -Werror specified\n1 error\n1 warning";
    let fail = "javac -Xlint:all -Werror -d out src/App.java";
    let mut h = Vec::new();
    for s in ["a", "b", "c", "d"] {
        h.push(rec(s, fail, false, javac));
        h.push(rec(
            s,
            "sed -i 's/List names/List<String> names/' src/App.java",
            true,
            "",
        ));
        h.push(rec(s, fail, true, ""));
    }
    for (s, lowered) in [
        ("e", "javac -Xlint:all -d out src/App.java"),
        ("f", "javac -Xlint:all,-rawtypes -Werror -d out src/App.java"),
        ("g", "javac -Xlint:all -d out src/App.java"),
    ] {
        h.push(rec(s, fail, false, javac));
        h.push(rec(s, lowered, true, ""));
    }
    safe_accepted_shortcut_blocked(&h, "sed -i", "retry `javac` with");
}

/// Four sessions enable the feature the target requires (`--features cli`); three take the
/// requirement out of Cargo.toml instead (the `required-features` line deleted, blanked or
/// commented out), then run the same command. Before, those three were a working fix the
/// safety gate did not know, and the safe one was contested (4 of 7). A requirement
/// removed from a configuration file ([`crate::learn::history::strictness`]) is its own
/// blocked candidate.
#[test]
fn a_requirement_removed_from_the_config_is_blocked_and_contests_nothing() {
    let need = "error: target `export` in package `tilegen` requires the features: `cli`\nConsider enabling them by passing, e.g., `--features=\"cli\"`";
    let mut h = Vec::new();
    for s in ["a", "b", "c", "d"] {
        h.push(rec(s, "cargo run --bin export", false, need));
        h.push(rec(s, "cargo run --features cli --bin export", true, "Finished"));
    }
    for (s, off) in [
        ("e", "sed -i '/^required-features/d' Cargo.toml"),
        ("f", "sed -i 's/^required-features.*$//' Cargo.toml"),
        ("g", "sed -i '/^required-features/s/^/# /' Cargo.toml"),
    ] {
        h.push(rec(s, "cargo run --bin export", false, need));
        h.push(rec(s, off, true, ""));
        h.push(rec(s, "cargo run --bin export", true, "Finished"));
    }
    safe_accepted_shortcut_blocked(&h, "--features", "sed -i");
}

/// Four sessions delete the debug line the lint step named; three take the lint step out
/// of the test script instead (`npm pkg delete scripts.pretest`, or set it to an `echo`).
/// Before, that was a working fix that contested the real one. The failing script removed
/// ([`crate::learn::history::silenced_step`]) is its own blocked candidate.
#[test]
fn the_failing_script_removed_is_blocked_and_contests_nothing() {
    let lint = "> app@1.0.0 pretest\n> npm run -s lint\n\nsrc/price.js:2  error  no-debug-code  console.log('DEBUG', x);\nlint: 1 problem(s)";
    let mut h = Vec::new();
    for s in ["a", "b", "c", "d"] {
        h.push(rec(s, "npm test", false, lint));
        h.push(rec(s, "sed -i '/DEBUG/d' src/price.js", true, ""));
        h.push(rec(s, "npm test", true, ""));
    }
    for (s, off) in [
        ("e", "npm pkg delete scripts.pretest"),
        ("f", "npm pkg set scripts.pretest='echo lint skipped'"),
        ("g", "npm pkg delete scripts.pretest"),
    ] {
        h.push(rec(s, "npm test", false, lint));
        h.push(rec(s, off, true, ""));
        h.push(rec(s, "npm test", true, ""));
    }
    safe_accepted_shortcut_blocked(&h, "sed -i", "scripts.pretest");
}

/// The other side of the same reading: four sessions drop the operand the failure said
/// matched nothing (`git add a.txt missing.txt` → `git add a.txt`). Read as flaky, they
/// taught nothing; read as the command without that operand, they are a safe fix, learned
/// and said as the lesson ("without the operand the error named"), not one session's name.
#[test]
fn a_retry_without_the_operand_that_was_not_there_is_learned() {
    let mut h = Vec::new();
    for (s, kept, gone) in [
        ("a", "a.txt", "missing.txt"),
        ("b", "notes.md", "old.md"),
        ("c", "src/x.py", "gone.py"),
        ("d", "b.txt", "tmp.log"),
    ] {
        let said = format!("fatal: pathspec '{gone}' did not match any files");
        h.push(rec(s, &format!("git add {kept} {gone}"), false, &said));
        h.push(rec(s, &format!("git add {kept}"), true, ""));
    }
    let out = run_pipeline(&h, &LearnConfig::default());
    let rule = out
        .candidates
        .iter()
        .find(|l| l.rule.accepted == Some(true))
        .unwrap_or_else(|| panic!("{:#?}", out.candidates));
    assert!(
        rule.rule.directive.contains("without the operand the error named"),
        "{}",
        rule.rule.directive
    );
}

proptest::proptest! {
    /// The safety gate's readers of a shortcut (a swallowed status, a check switched off,
    /// a finding silenced, an operand dropped) read command lines and failure texts an
    /// agent wrote: any text, no panic.
    #[test]
    fn shortcut_readers_take_any_text(
        cmd in shortcut_text(),
        tail in shortcut_text(),
        retry in shortcut_text(),
    ) {
        use crate::learn::history::{named_ignore, narrowed, swallowed};
        use crate::learn::text::command_norm::normalize;
        let _ = swallowed::swallows(&cmd);
        let _ = crate::learn::text::check_off::first_in(&cmd);
        let _ = named_ignore::ignores_what_failed(&tail, &cmd, &retry);
        let (f, r) = (normalize(&cmd), normalize(&retry));
        if let (Some(f), Some(r)) = (f.primary(), r.primary()) {
            let _ = narrowed::drops_what_failed(&tail, &narrowed::dropped(f, r));
        }
    }
}

/// Pieces the shortcut readers look for, between arbitrary characters.
fn shortcut_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop_oneof![
        Just(" || ".to_string()),
        Just("||".to_string()),
        Just(";".to_string()),
        Just(" true".to_string()),
        Just("exit 0".to_string()),
        Just("'".to_string()),
        Just("\"".to_string()),
        Just("--ignore".to_string()),
        Just("=".to_string()),
        Just("-Wno-".to_string()),
        Just("-D".to_string()),
        Just("F401".to_string()),
        Just("::".to_string()),
        Just(" tests/".to_string()),
        Just("ruff check ".to_string()),
        Just("é漢🙂".to_string()),
        "[ -~]{0,8}",
        any::<char>().prop_map(|c| c.to_string()),
    ];
    prop::collection::vec(piece, 0..16).prop_map(|v| v.concat())
}

/// Four sessions apply the patch with a three-way merge (`-3`, `--3way`); three leave out the
/// file whose hunk failed (`--exclude=src/app.py`, `--exclude='src/*'`) or keep only the rest
/// (`--include=docs/CHANGES.md`). Before, all seven were one options change and the shortcut,
/// the commoner spelling, was said (dev8's one false accept). A retry scoped away from what
/// failed ([`crate::learn::history::scoped_away`]) is its own blocked candidate.
#[test]
fn a_retry_scoped_away_from_what_failed_is_blocked_and_contests_nothing() {
    let patch = "error: patch failed: src/app.py:3\nerror: src/app.py: patch does not apply\n";
    let mut h = Vec::new();
    for (s, fix) in [("a", "-3"), ("b", "--3way"), ("c", "--3way"), ("d", "-3")] {
        h.push(rec(s, "git apply ~/p/fix.patch", false, patch));
        h.push(rec(
            s,
            &format!("git apply {fix} ~/p/fix.patch"),
            true,
            "Applied patch cleanly.",
        ));
    }
    for (s, fix) in [
        ("e", "--exclude=src/app.py"),
        ("f", "--exclude='src/*'"),
        ("g", "--include=docs/CHANGES.md"),
    ] {
        h.push(rec(s, "git apply ~/p/fix.patch", false, patch));
        h.push(rec(s, &format!("git apply {fix} ~/p/fix.patch"), true, ""));
    }
    safe_accepted_shortcut_blocked(&h, "`--3way`", "--exclude");
}

/// Four sessions bring the lock file in line (`npm install`, then `npm ci`); three take the
/// package the failure said was missing out of the project instead (`npm uninstall`, `npm
/// pkg delete dependencies.…`) and run `npm ci` again. Before, those three were working
/// fixes the safety gate did not know, and the real one was contested (4 of 7). A
/// requirement the failure named, dropped, is what failed no longer asked for
/// ([`crate::learn::history::dropped_requirement`]): blocked, no competitor.
#[test]
fn a_dependency_the_failure_named_dropped_is_blocked_and_contests_nothing() {
    let missing = "npm error code EUSAGE\nnpm error `npm ci` can only install packages when your package.json and package-lock.json are in sync.\nnpm error Missing: date-helpers@1.0.0 from lock file";
    let mut h = Vec::new();
    for s in ["a", "b", "c", "d"] {
        h.push(rec(s, "npm ci", false, missing));
        h.push(rec(s, "npm install", true, "added 1 package"));
        h.push(rec(s, "npm ci", true, "added 2 packages"));
    }
    for (s, drop) in [
        ("x", "npm uninstall date-helpers"),
        ("y", "npm pkg delete dependencies.date-helpers"),
        ("z", "npm uninstall date-helpers"),
    ] {
        h.push(rec(s, "npm ci", false, missing));
        h.push(rec(s, drop, true, ""));
        h.push(rec(s, "npm ci", true, "added 1 package"));
    }
    safe_accepted_shortcut_blocked(&h, "npm install", "date-helpers");
}
