//! What each captured run (tests/data/summaries/, see its README) shows, through the same
//! path the logger and the close guard take: the summary parsed from the captured tail,
//! then `proof::shows` on the command as it ran and the exit status it had.

use fable::evidence::proof::{shows, Shows};
use fable::evidence::summary::parse;
use std::path::Path;

/// What a run is expected to show, coarsely.
#[derive(Debug, PartialEq, Clone, Copy)]
enum Want {
    Pass,
    Failed,
    NothingRan,
    NotARun,
    NoSummary,
}

/// Fixture stem, the command exactly as it ran, its exit status, what it shows.
const RUNS: &[(&str, &str, i64, Want)] = &[
    ("cargo-test-doctest-pass", "cargo test", 0, Want::Pass),
    (
        "cargo-test-doctest-fail",
        "FAIL=1 cargo test --no-fail-fast",
        101,
        Want::Failed,
    ),
    (
        "cargo-test-doctest-tail5-fail",
        "FAIL=1 cargo test --no-fail-fast 2>&1 | tail -5",
        0,
        Want::Failed,
    ),
    (
        "cargo-test-nofailfast-tail5-fail",
        "FAIL=1 cargo test --no-fail-fast 2>&1 | tail -5",
        0,
        Want::Failed,
    ),
    ("cargo-test-nomatch", "cargo test nothing_matches", 0, Want::NothingRan),
    ("cargo-test-no-run", "cargo test --no-run", 0, Want::NotARun),
    ("cargo-test-help", "cargo test --help", 0, Want::NotARun),
    (
        "cargo-test-head5",
        "FAIL=1 cargo test 2>&1 | head -5",
        0,
        Want::NoSummary,
    ),
    ("unittest-pass", "python3 -m unittest -v", 0, Want::Pass),
    (
        "unittest-nomatch",
        "python3 -m unittest -k nomatch",
        0,
        Want::NothingRan,
    ),
    ("unittest-help", "python3 -m unittest --help", 0, Want::NotARun),
    (
        "unittest-head3",
        "python3 -m unittest 2>&1 | head -3",
        0,
        Want::NoSummary,
    ),
    (
        "unittest-head3-v",
        "python3 -m unittest -v 2>&1 | head -3",
        0,
        Want::NoSummary,
    ),
    ("pytest-pass", "python3 -m pytest", 0, Want::Pass),
    ("pytest-nomatch", "python3 -m pytest -k nomatch", 5, Want::Failed),
    (
        "pytest-nomatch",
        "python3 -m pytest -k nomatch || true",
        0,
        Want::NothingRan,
    ),
    (
        "pytest-collect-only",
        "python3 -m pytest --collect-only",
        0,
        Want::NotARun,
    ),
    (
        "pytest-collect-only-q",
        "python3 -m pytest --collect-only -q",
        0,
        Want::NotARun,
    ),
    ("pytest-help", "python3 -m pytest --help", 0, Want::NotARun),
    ("pytest-head5", "python3 -m pytest 2>&1 | head -5", 0, Want::NoSummary),
    ("node-test-pass", "node --test", 0, Want::Pass),
    (
        "node-test-nomatch",
        "node --test --test-name-pattern=nomatch",
        0,
        Want::NothingRan,
    ),
    ("make-n-test", "make -n test", 0, Want::NotARun),
    ("make-test-pass", "make test", 0, Want::Pass),
    ("make-test-fail", "make test", 2, Want::Failed),
    ("cargo-test-pass", "cargo test", 0, Want::Pass),
    (
        "cargo-test-tail5-fail",
        "FAIL=1 cargo test 2>&1 | tail -5",
        0,
        Want::Failed,
    ),
    // Not a runner: the exit status decides, whatever the output says.
    (
        "negative-build-log",
        "cmake -S . -B b2 && cmake --build b2 --verbose",
        0,
        Want::Pass,
    ),
];

fn read(stem: &str) -> String {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/summaries")).join(format!("{stem}.txt"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn coarse(s: &Shows) -> Want {
    match s {
        Shows::Pass { .. } => Want::Pass,
        Shows::Failed => Want::Failed,
        Shows::NothingRan { .. } => Want::NothingRan,
        Shows::NotARun { .. } => Want::NotARun,
        Shows::NoSummary { .. } => Want::NoSummary,
    }
}

#[test]
fn every_captured_run_shows_what_it_did() {
    let wrong: Vec<String> = RUNS
        .iter()
        .filter_map(|&(stem, cmd, exit, want)| {
            let got = shows(cmd, Some(exit), exit == 0, parse(cmd, &read(stem)));
            (coarse(&got) != want).then(|| format!("{stem} `{cmd}`: got {got:?}, want {want:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn only_passes_prove_and_the_others_say_what_to_run() {
    for &(stem, cmd, exit, want) in RUNS {
        let got = shows(cmd, Some(exit), exit == 0, parse(cmd, &read(stem)));
        assert_eq!(got.proves(), want == Want::Pass, "{stem}");
        let said = got.describe(cmd);
        assert_eq!(said.is_empty(), want == Want::Pass, "{stem}: {said}");
        if want != Want::Pass {
            assert!(said.contains(cmd), "{stem}: {said}");
            assert!(!said.contains('\n'), "{stem}: one line: {said}");
        }
    }
}

#[test]
fn the_messages_name_what_to_do() {
    let msg = |stem: &str, cmd: &str| shows(cmd, Some(0), true, parse(cmd, &read(stem))).describe(cmd);
    assert_eq!(
        msg("unittest-nomatch", "python3 -m unittest -k nomatch"),
        "`python3 -m unittest -k nomatch` ran 0 tests: the filter matched nothing — fix the filter (or drop it) so the tests that back the card run"
    );
    assert!(msg("cargo-test-no-run", "cargo test --no-run").contains("only builds the tests"));
    assert!(msg("cargo-test-no-run", "cargo test --no-run").contains("(`cargo test`)"));
    assert!(msg("unittest-help", "python3 -m unittest --help").contains("(`python3 -m unittest`)"));
    assert!(msg("unittest-head3", "python3 -m unittest 2>&1 | head -3").contains("run it without `| head`"));
}

// The shell reading runs inside the close guard on every cited and session command: it
// must never panic, whatever the text (hooks are fail-open, but a panic loses the check).
proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 3000, ..Default::default() })]

    #[test]
    fn any_command_line_is_read_without_panicking(
        cmd in "[a-z0-9 \\-|&;<>'\"$()#\\\\\n\t=/.:]{0,80}",
        exit in proptest::option::of(-2i64..3),
    ) {
        let r = fable::evidence::runner::classify(&cmd);
        let s = shows(&cmd, exit, exit == Some(0), None);
        let _ = (r, s.describe(&cmd));
    }

    #[test]
    fn runner_words_in_any_shell_shape_are_read(
        pre in "(cd x && |A=1 |timeout 9 |true; |)",
        run in "(cargo test|python3 -m unittest|make -n test|npm test|pytest --co)",
        post in "( 2>&1 \\| head -3| \\|\\| true|; echo|>/dev/null 2>&1| &|)",
    ) {
        let cmd = format!("{pre}{run}{post}");
        let s = shows(&cmd, Some(0), true, None);
        let _ = s.describe(&cmd);
        proptest::prop_assert!(fable::evidence::runner::kind(&cmd).is_some(), "{}", cmd);
    }
}
