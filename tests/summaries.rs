//! Every fixture under `tests/data/summaries/` (captured tails of real tool runs, or
//! hand-written where the tool could not be installed: see that folder's README) parses to
//! the Summary in the table below, and every fixture is in the table.

use fable::evidence::summary::{parse, Summary};
use std::path::Path;

/// `(passed, failed, skipped, errors)`; `None` for a count the format does not carry.
type Counts = (Option<u64>, Option<u64>, Option<u64>, Option<u64>);

const fn all(passed: u64, failed: u64, skipped: u64, errors: u64) -> Option<Counts> {
    Some((Some(passed), Some(failed), Some(skipped), Some(errors)))
}

/// Only errors: compilers and linters count no tests.
const fn errors(n: u64) -> Option<Counts> {
    Some((None, None, None, Some(n)))
}

/// Fixture file stem, the command that produced it (the parser's hint), what it must parse to.
const TABLE: &[(&str, &str, Option<Counts>)] = &[
    ("cargo-test-pass", "cargo test", all(5, 0, 1, 0)),
    ("cargo-test-fail", "cargo test --no-fail-fast", all(3, 2, 1, 0)),
    ("cargo-test-tail5-fail", "cargo test 2>&1 | tail -5", all(2, 1, 1, 0)),
    ("cargo-compile-fail", "cargo test", errors(1)),
    ("cargo-nextest-pass", "cargo nextest run", all(5, 0, 1, 0)),
    (
        "cargo-nextest-fail",
        "cargo nextest run --no-fail-fast",
        all(3, 2, 1, 0),
    ),
    ("pytest-pass", "python3 -m pytest", all(4, 0, 1, 0)),
    ("pytest-fail", "python3 -m pytest", all(2, 2, 1, 0)),
    ("pytest-quiet-fail", "python3 -m pytest -q", all(2, 2, 1, 0)),
    ("pytest-notests-pass", "python3 -m pytest", all(0, 0, 0, 0)),
    ("pytest-collecterror-fail", "python3 -m pytest", all(0, 0, 0, 1)),
    ("unittest-pass", "python3 -m unittest -v", all(4, 0, 1, 0)),
    ("unittest-fail", "python3 -m unittest", all(2, 1, 1, 1)),
    ("go-test-pass", "go test ./...", Some((None, Some(0), None, Some(0)))),
    ("go-test-fail", "go test ./...", Some((None, Some(2), None, Some(0)))),
    (
        "go-test-build-fail",
        "go test ./...",
        Some((None, Some(0), None, Some(1))),
    ),
    ("go-test-verbose-pass", "go test -v .", all(3, 0, 1, 0)),
    ("go-test-verbose-fail", "go test -v ./...", all(2, 2, 1, 0)),
    ("jest-pass", "npx jest jt", all(3, 0, 1, 0)),
    ("jest-fail", "npx jest jt", all(2, 1, 1, 0)),
    ("vitest-pass", "npx vitest run vt", all(3, 0, 1, 0)),
    ("vitest-fail", "npx vitest run vt", all(2, 1, 1, 0)),
    ("vitest-color-fail", "npx vitest run vt", all(2, 1, 1, 0)),
    (
        "mocha-pass",
        "npx mocha mo/tiny.spec.js",
        Some((Some(3), Some(0), Some(1), None)),
    ),
    (
        "mocha-fail",
        "npx mocha mo/tiny.spec.js",
        Some((Some(2), Some(1), Some(1), None)),
    ),
    ("node-test-pass", "node --test", all(3, 0, 2, 0)),
    ("node-test-fail", "node --test", all(2, 1, 2, 0)),
    (
        "node-test-spec-fail",
        "node --test --test-reporter=spec",
        all(2, 1, 2, 0),
    ),
    ("rspec-pass", "rspec", all(4, 0, 1, 0)),
    ("rspec-fail", "rspec", all(2, 2, 1, 0)),
    ("minitest-pass", "ruby tiny_test.rb", all(4, 0, 1, 0)),
    ("minitest-fail", "ruby tiny_test.rb", all(2, 1, 1, 1)),
    ("ctest-pass", "ctest", Some((Some(3), Some(0), None, None))),
    ("ctest-fail", "ctest", Some((Some(2), Some(1), None, None))),
    ("maven-pass", "mvn -B test", all(4, 0, 1, 0)),
    ("maven-fail", "mvn -B test", all(2, 1, 1, 1)),
    ("gradle-fail", "./gradlew test", all(2, 2, 1, 0)),
    ("phpunit-pass", "phpunit TinyTest.php", all(4, 0, 0, 0)),
    ("phpunit-fail", "phpunit TinyTest.php", all(2, 1, 0, 1)),
    ("phpunit-skipped-pass", "phpunit SkipTest.php", all(1, 0, 1, 0)),
    ("tsc-pass", "npx tsc -p .", None),
    ("tsc-fail", "npx tsc -p .", errors(3)),
    ("tsc-pretty-fail", "npx tsc -p . --pretty", errors(3)),
    ("eslint-fail", "npx eslint .", errors(5)),
    ("eslint-warnings-pass", "npx eslint .", errors(0)),
    // Runs that test nothing, cut or hidden output, other shapes (see docs/proof.md).
    ("cargo-test-doctest-pass", "cargo test", all(5, 0, 1, 0)),
    ("cargo-test-doctest-fail", "cargo test --no-fail-fast", all(3, 2, 1, 0)),
    (
        "cargo-test-doctest-tail5-fail",
        "cargo test --no-fail-fast 2>&1 | tail -5",
        errors(2),
    ),
    (
        "cargo-test-nofailfast-tail5-fail",
        "cargo test --no-fail-fast 2>&1 | tail -5",
        all(0, 0, 0, 1),
    ),
    ("cargo-test-nomatch", "cargo test nothing_matches", all(0, 0, 0, 0)),
    ("cargo-test-no-run", "cargo test --no-run", None),
    ("cargo-test-help", "cargo test --help", None),
    ("cargo-test-head5", "cargo test 2>&1 | head -5", None),
    ("unittest-nomatch", "python3 -m unittest -k nomatch", all(0, 0, 0, 0)),
    ("unittest-help", "python3 -m unittest --help", None),
    ("unittest-head3", "python3 -m unittest 2>&1 | head -3", None),
    ("unittest-head3-v", "python3 -m unittest -v 2>&1 | head -3", None),
    ("pytest-nomatch", "python3 -m pytest -k nomatch", all(0, 0, 0, 0)),
    (
        "pytest-collect-only",
        "python3 -m pytest --collect-only",
        all(0, 0, 0, 0),
    ),
    (
        "pytest-collect-only-q",
        "python3 -m pytest --collect-only -q",
        all(0, 0, 0, 0),
    ),
    ("pytest-help", "python3 -m pytest --help", None),
    ("pytest-head5", "python3 -m pytest 2>&1 | head -5", None),
    (
        "node-test-nomatch",
        "node --test --test-name-pattern=nomatch",
        all(0, 0, 2, 0),
    ),
    ("make-n-test", "make -n test", None),
    ("make-test-pass", "make test", all(2, 0, 1, 0)),
    ("make-test-fail", "make test", all(2, 0, 1, 1)),
    ("negative-prose", "tail -n 8 app.log", None),
    ("negative-git-log", "git log -i --grep=failed --grep=passed -n 12", None),
    (
        "negative-build-log",
        "cmake -S . -B b2 && cmake --build b2 --verbose",
        None,
    ),
    ("negative-npm-install", "npm i left-pad && npm ls --depth=0", None),
];

fn dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/summaries"))
}

fn read(stem: &str) -> String {
    let path = dir().join(format!("{stem}.txt"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn counts(s: Summary) -> Counts {
    (s.passed, s.failed, s.skipped, s.errors)
}

#[test]
fn every_fixture_parses_to_its_expected_summary() {
    let wrong: Vec<String> = TABLE
        .iter()
        .filter_map(|&(stem, cmd, want)| {
            let got = parse(cmd, &read(stem)).map(counts);
            (got != want).then(|| format!("{stem}: got {got:?}, want {want:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_fail_fixture_shows_failure_and_a_pass_fixture_does_not() {
    for &(stem, cmd, _) in TABLE {
        let shows = parse(cmd, &read(stem)).is_some_and(|s| s.shows_failure());
        assert_eq!(shows, stem.ends_with("-fail"), "{stem}");
    }
}

#[test]
fn the_table_covers_every_fixture_and_fixtures_fit_the_log() {
    let mut on_disk: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .into_string()
                .ok()?
                .strip_suffix(".txt")
                .map(str::to_string)
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = TABLE.iter().map(|(stem, _, _)| stem.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
    for stem in &listed {
        let chars = read(stem).chars().count();
        assert!(chars <= fable::evidence::MAX_TAIL_CHARS, "{stem}: {chars} characters");
    }
}

#[test]
fn hand_written_fixtures_say_so_in_their_first_line() {
    let readme = std::fs::read_to_string(dir().join("README.md")).unwrap();
    for &(stem, _, _) in TABLE {
        let hand = read(stem).starts_with("# hand-written: ");
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{stem}`")))
            .unwrap_or_else(|| panic!("{stem}"));
        assert_eq!(hand, row.contains("hand-written"), "{stem}: README row {row:?}");
    }
}
