//! What a test command selects: its **family** (the runner, in the folder it ran) and its
//! **selectors** (operands and filter flags that narrow the run).
//!
//! "All tests pass" after the full suite failed and one test then passed is not backed:
//! the passing run is narrower than the failing one. `pytest tests/test_a.py::test_x` is
//! narrower than `pytest`; `cargo test parser` than `cargo test`; `pytest -q` is the same
//! selection as `pytest`. A failure is answered by a later pass of the same family whose
//! selectors are a subset of the failure's (as broad or broader).

use crate::evidence::command_key::normalize;
use std::collections::BTreeSet;
use std::path::Path;

/// Flags that narrow a run, with a value (`-k expr`, `--test it`).
const SELECT_WITH_VALUE: &[&str] = &[
    "-k",
    "-m",
    "-t",
    "--testNamePattern",
    "--grep",
    "-g",
    "-run",
    "--run",
    "--filter",
    "--test",
    "-p",
    "--package",
    "--bin",
    "--example",
    "--bench",
    "--testPathPattern",
    "--spec",
    "--tests",
];

/// Flags that narrow a run on their own.
const SELECT_ALONE: &[&str] = &[
    "--lib",
    "--bins",
    "--doc",
    "--exact",
    "--lf",
    "--last-failed",
    "--sw",
    "--stepwise",
    "--only-failures",
    "--next-failure",
    "-o",
    "--onlyChanged",
    "--changed",
    "--failed",
];

/// Flags that take a value that selects nothing (`--features x`, `-j 4`).
const VALUE_FLAGS: &[&str] = &[
    "--features",
    "-F",
    "-j",
    "--jobs",
    "--target",
    "--maxfail",
    "-n",
    "--tb",
    "-c",
    "--config",
    "--color",
    "--timeout",
    "--workers",
    "--reporter",
    "--manifest-path",
    "--test-threads",
    "--profile",
    "-s",
    "--format",
    "--junitxml",
    "--cov",
    "--durations",
    "-count",
    "-timeout",
    "-parallel",
    "--max-workers",
    "-w",
];

/// Programs whose first operand is a subcommand.
const WITH_SUBCOMMAND: &[&str] = &[
    "cargo", "go", "npm", "pnpm", "yarn", "bun", "make", "just", "mvn", "gradle", "gradlew", "dotnet", "deno",
];

/// Wrappers that run the next words as the command.
const WRAPPERS: &[&[&str]] = &[
    &["uv", "run"],
    &["poetry", "run"],
    &["pipenv", "run"],
    &["pnpm", "exec"],
    &["npx"],
    &["bunx"],
    &["time"],
    &["env"],
    &["nice"],
];

/// The family and selectors of a test command (already without its leading `cd`).
pub fn of(cmd: &str, dir: &Path) -> (String, BTreeSet<String>) {
    let norm = normalize(cmd);
    // The command up to the first pipe or list operator is what ran the tests.
    let head = norm
        .split(['|', ';'])
        .next()
        .unwrap_or("")
        .split("&&")
        .next()
        .unwrap_or("");
    let mut words: Vec<&str> = head.split_whitespace().collect();
    // Environment assignments, then wrappers, then `python -m X`.
    while words.first().is_some_and(|w| w.contains('=') && !w.starts_with('-')) {
        words.remove(0);
    }
    'wrap: loop {
        for w in WRAPPERS {
            if words.len() > w.len() && words[..w.len()] == **w {
                words.drain(..w.len());
                while words.first().is_some_and(|w| w.contains('=') && !w.starts_with('-')) {
                    words.remove(0);
                }
                continue 'wrap;
            }
        }
        break;
    }
    let Some(first) = words.first() else {
        return (String::new(), BTreeSet::new());
    };
    let mut prog = first.rsplit('/').next().unwrap_or(first).to_string();
    let mut rest: Vec<&str> = words[1..].to_vec();
    if prog.starts_with("python") && rest.first() == Some(&"-m") && rest.len() >= 2 {
        prog = rest[1].to_string();
        rest.drain(..2);
    }
    if prog == "unittest" {
        rest.retain(|w| *w != "discover");
    }
    let mut family = prog.clone();
    if WITH_SUBCOMMAND.contains(&prog.as_str()) {
        if let Some(i) = rest.iter().position(|w| !w.starts_with('-')) {
            let mut sub = rest.remove(i).to_string();
            if matches!(prog.as_str(), "npm" | "pnpm" | "yarn" | "bun") {
                if sub == "t" {
                    sub = "test".into();
                }
                if sub == "run" && i < rest.len() {
                    sub = rest.remove(i).to_string();
                }
            }
            family = format!("{prog} {sub}");
        }
    }
    let mut selectors = BTreeSet::new();
    let mut i = 0;
    while i < rest.len() {
        let w = rest[i];
        let (flag, inline) = w.split_once('=').map_or((w, None), |(f, v)| (f, Some(v)));
        if w == "--" {
            // Arguments to the test binary: its non-flag words are name filters.
            let mut j = i + 1;
            while j < rest.len() {
                let a = rest[j];
                if VALUE_FLAGS.contains(&a) {
                    j += 2;
                    continue;
                }
                if !a.starts_with('-') || SELECT_ALONE.contains(&a) {
                    selectors.insert(a.to_string());
                }
                j += 1;
            }
            break;
        }
        if w.starts_with('-') {
            if SELECT_WITH_VALUE.contains(&flag) {
                let value = inline.map(str::to_string).or_else(|| {
                    i += 1;
                    rest.get(i).map(|v| v.to_string())
                });
                selectors.insert(format!("{flag}={}", value.unwrap_or_default()));
            } else if SELECT_ALONE.contains(&flag) {
                selectors.insert(flag.to_string());
            } else if VALUE_FLAGS.contains(&flag) && inline.is_none() {
                i += 1;
            }
        } else if !matches!(w, "." | "./" | "./..." | "...") && !w.starts_with('>') && !w.starts_with("2>") {
            selectors.insert(w.trim_end_matches('/').to_string());
        }
        i += 1;
    }
    (format!("{family} @{}", dir.display()), selectors)
}

/// True when a run selecting `pass` covers at least what a run selecting `failed` did.
pub fn covers(pass: &BTreeSet<String>, failed: &BTreeSet<String>) -> bool {
    pass.is_subset(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(cmd: &str) -> (String, Vec<String>) {
        let (f, s) = of(cmd, Path::new("/p"));
        (f, s.into_iter().collect())
    }

    #[test]
    fn families_and_selectors() {
        assert_eq!(sel("pytest -q"), ("pytest @/p".into(), vec![]));
        assert_eq!(sel("python3 -m pytest -q").0, "pytest @/p");
        assert_eq!(sel("pytest tests/test_a.py::test_x").1, vec!["tests/test_a.py::test_x"]);
        assert_eq!(
            sel("python3 -m unittest test_calc.T.test_b").1,
            vec!["test_calc.T.test_b"]
        );
        assert_eq!(sel("python3 -m unittest discover").1, Vec::<String>::new());
        assert_eq!(sel("cargo test parser").0, "cargo test @/p");
        assert_eq!(sel("cargo test parser").1, vec!["parser"]);
        assert_eq!(sel("cargo test --features x -- --nocapture").1, Vec::<String>::new());
        assert_eq!(sel("cargo test -- parse_ --nocapture").1, vec!["parse_"]);
        assert_eq!(sel("cargo test 2>&1 | tail -5").1, Vec::<String>::new());
        assert_eq!(sel("npm run test").0, "npm test @/p");
        assert_eq!(sel("npm t").0, "npm test @/p");
        assert_eq!(sel("go test ./...").1, Vec::<String>::new());
        assert_eq!(sel("pytest -k parse").1, vec!["-k=parse"]);
        assert_eq!(sel("RUST_LOG=1 uv run pytest -x").0, "pytest @/p");
    }

    #[test]
    fn a_narrower_pass_does_not_cover_a_failure() {
        let (_, full) = of("pytest", Path::new("/p"));
        let (_, one) = of("pytest tests/test_a.py::test_x", Path::new("/p"));
        assert!(!covers(&one, &full));
        assert!(covers(&full, &one));
        assert!(covers(&full, &full));
    }
}
