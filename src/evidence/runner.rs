//! **What a command is**: the one place that reads a shell command line and says which
//! test, build or lint runner it invokes, whether that invocation executes anything, and
//! whether the exit status the log records is the runner's own.
//!
//! A record's `exit` is the status of the whole line, so `cargo test 2>&1 | head -5`
//! records `head`'s 0 and `pytest || true` records `true`'s. And `cargo test --no-run`,
//! `pytest --collect-only` or `make -n test` exit 0 without running one test. The proof
//! rule (`proof`) needs to know both; the claim check needs the runner's kind. Both read it
//! here, through the same light shell reading: quotes, `&&`/`||`/`;`/`|` lists, env
//! prefixes (`RUST_LOG=1`, `env`, `timeout 60`), `cd x &&`, wrappers (`uv run`,
//! `poetry run`, `npx`, `python -m`, `bash -c '…'`) and redirections. No expansion, no
//! subshell semantics: a line this cannot read is simply "no known runner", which keeps
//! the plain exit-status rule.

mod line;

use line::{mask_of, parse_line, sets_pipefail};

/// What a runner checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tests,
    Build,
    Lint,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tests => "tests",
            Kind::Build => "a build",
            Kind::Lint => "a check",
        }
    }
}

/// Why a runner's exit status is not in the record (the line's status is another
/// program's), or why its output cannot show a summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mask {
    /// Piped into another program (`| head -5`): without `pipefail` the line's status is
    /// the last stage's, and the stage may cut the output. `pipefail` says whether
    /// `set -o pipefail` kept the status honest.
    Piped { into: String, pipefail: bool },
    /// Followed by `|| x`: a failure runs `x`, whose status the line reports.
    OrElse { then: String },
    /// Followed by `; x` (or `&`): the line's status is the last command's.
    Then { then: String },
    /// Standard output sent to `/dev/null`: nothing the run printed reaches the log.
    DevNull,
    /// Started in the background (`X &`): the line's status is the launch's.
    Background,
    /// After `x ||`: it runs only when `x` fails, so it may not have run at all.
    MayNotRun { after: String },
}

impl Mask {
    /// True when the recorded exit status may not be the runner's.
    pub fn hides_status(&self) -> bool {
        !matches!(self, Mask::Piped { pipefail: true, .. } | Mask::DevNull)
    }

    /// The shell text that causes it, for messages: `| head`, `|| true`, `>/dev/null`.
    pub fn shown(&self) -> String {
        match self {
            Mask::Piped { into, .. } => format!("| {into}"),
            Mask::OrElse { then } => format!("|| {then}"),
            Mask::Then { then } => format!("; {then}"),
            Mask::DevNull => ">/dev/null".to_string(),
            Mask::Background => "&".to_string(),
            Mask::MayNotRun { after } => format!("{after} ||"),
        }
    }
}

/// An invocation that runs no test: what it does instead, and the flag that makes it so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotARun {
    /// What the invocation does: "only prints help", "only builds the tests", …
    pub does: &'static str,
    /// The word(s) that make it so, as written (`--no-run`, `-n`).
    pub flag: String,
}

/// One command line, as far as proof and claims care.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Runner {
    /// The runner's kind (`None`: not a known runner; the exit status alone decides).
    pub kind: Option<Kind>,
    /// The tool as a user would name it: `cargo test`, `pytest`, `make test`.
    pub tool: String,
    /// A test runner whose closing summary `summary::parse` reads (`cargo test`, `pytest`,
    /// `python -m unittest`, `jest`, `node --test`, …): its run shows nothing when no
    /// summary reached the log. Wrappers (`make test`, `npm test`, `tox`) print what they
    /// wrap, so they are not direct.
    pub direct: bool,
    /// Set when the invocation executes no test (help, version, list, dry run, build only).
    pub not_a_run: Option<NotARun>,
    /// Set when the exit status or the output of the runner does not reach the record.
    pub mask: Option<Mask>,
    /// A test-name filter is given (`-k`, `--test-name-pattern`, a cargo TESTNAME), so a
    /// run of zero tests most likely means the filter matched nothing.
    pub filtered: bool,
}

/// The runner's kind, when `cmd` invokes a known runner (the old `claims::runner_kind`).
pub fn kind(cmd: &str) -> Option<Kind> {
    classify(cmd).kind
}

/// Reads one command line. Among several commands (`cargo build && cargo test`), a test
/// runner that executes wins, then any test runner, then the first other runner.
pub fn classify(cmd: &str) -> Runner {
    classify_depth(cmd, 0)
}

fn classify_depth(cmd: &str, depth: u8) -> Runner {
    let list = parse_line(cmd);
    let pipefail = list.iter().any(|c| sets_pipefail(&c.words));
    let mut best: Option<(u8, Runner)> = None;
    for (i, c) in list.iter().enumerate() {
        let Some(mut r) = classify_simple(&c.words, depth) else {
            continue;
        };
        if r.mask.is_none() {
            r.mask = mask_of(&list, i, pipefail);
        }
        let rank = match (r.kind, r.not_a_run.is_none()) {
            (Some(Kind::Tests), true) => 4,
            (Some(Kind::Tests), false) => 3,
            (Some(_), true) => 2,
            (Some(_), false) => 1,
            (None, _) => 0,
        };
        if best.as_ref().is_none_or(|(b, _)| rank > *b) {
            best = Some((rank, r));
        }
    }
    best.map(|(_, r)| r).unwrap_or_default()
}

/// Words that only run the next word: `env A=1`, `timeout 60`, `time`, `nice -n 5`.
fn strip_prefixes(words: &[String]) -> &[String] {
    let mut w = words;
    loop {
        let Some(first) = w.first() else { return w };
        let base = first.rsplit('/').next().unwrap_or(first);
        if is_assignment(first) {
            w = &w[1..];
            continue;
        }
        match base {
            "env" | "time" | "nice" | "nohup" | "command" | "exec" | "stdbuf" | "xvfb-run" => {
                w = &w[1..];
                while w.first().is_some_and(|x| x.starts_with('-') || is_assignment(x)) {
                    // `nice -n 5`: a numeric value after a flag goes too.
                    let takes = matches!(w[0].as_str(), "-n" | "-u");
                    w = &w[1..];
                    if takes && !w.is_empty() {
                        w = &w[1..];
                    }
                }
            }
            "timeout" => {
                w = &w[1..];
                while w.first().is_some_and(|x| x.starts_with('-')) {
                    w = &w[1..];
                }
                if !w.is_empty() {
                    w = &w[1..]; // the duration
                }
            }
            _ => return w,
        }
    }
}

fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((k, _)) => {
            !k.is_empty()
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !k.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// Words that run a tool from the project's environment: `uv run`, `poetry run`, `npx`,
/// `pnpm exec`, `python -m`. Returns the words from the tool on (`python -m pytest` →
/// `pytest …`; `python -m unittest` → `unittest …`).
fn strip_wrappers(words: &[String]) -> &[String] {
    let mut w = words;
    for _ in 0..4 {
        let Some(first) = w.first() else { return w };
        let base = first.rsplit('/').next().unwrap_or(first);
        let second = w.get(1).map(String::as_str).unwrap_or("");
        let skip = match (base, second) {
            ("uv" | "poetry" | "pipenv" | "pdm" | "rye" | "hatch", "run") => 2,
            ("pnpm" | "yarn" | "bun", "exec" | "dlx" | "x") => 2,
            ("npx" | "bunx" | "pnpx", _) => 1,
            (p, "-m") if is_python(p) => 2,
            _ => return w,
        };
        w = &w[skip.min(w.len())..];
        // Wrapper flags: `uv run --with pytest pytest`, `npx -y jest`.
        while let Some(f) = w.first().filter(|f| f.starts_with('-')) {
            let valued = matches!(
                f.as_str(),
                "--with"
                    | "--python"
                    | "-p"
                    | "--package"
                    | "--extra"
                    | "--group"
                    | "--directory"
                    | "--project"
                    | "--env-file"
            );
            w = &w[if valued { 2 } else { 1 }.min(w.len())..];
        }
    }
    w
}

fn is_python(p: &str) -> bool {
    p == "python"
        || p == "py"
        || p.strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The runner a simple command invokes, if any (mask not yet set).
fn classify_simple(words: &[String], depth: u8) -> Option<Runner> {
    let w = strip_wrappers(strip_prefixes(words));
    let prog_word = w.first()?;
    let prog = prog_word.rsplit('/').next().unwrap_or(prog_word);
    // `bash -c '…'`: the quoted line is what runs.
    if matches!(prog, "bash" | "sh" | "zsh" | "dash") && depth < 2 {
        let at = w
            .iter()
            .position(|x| x == "-c" || (x.starts_with('-') && !x.starts_with("--") && x.ends_with('c')))?;
        let inner = classify_depth(w.get(at + 1)?, depth + 1);
        return inner.kind.is_some().then_some(inner);
    }
    let rest: Vec<&str> = w[1..].iter().map(String::as_str).collect();
    let sub = first_operand(prog, &rest);
    let third = rest
        .iter()
        .filter(|x| !x.starts_with('-'))
        .nth(1)
        .copied()
        .unwrap_or("");
    let has = |flag: &str| rest.contains(&flag);
    use Kind::*;
    let (kind, direct, tool): (Kind, bool, String) = match (prog, sub) {
        ("cargo", "test") => (Tests, true, "cargo test".into()),
        ("cargo", "nextest") => (
            Tests,
            third != "list",
            format!("cargo nextest {third}").trim_end().into(),
        ),
        ("go", "test") => (Tests, true, "go test".into()),
        ("pytest" | "py.test", _) => (Tests, true, "pytest".into()),
        ("unittest", _) => (Tests, true, "python -m unittest".into()),
        ("jest" | "vitest" | "mocha" | "rspec" | "ctest" | "phpunit", _) => (Tests, true, prog.into()),
        ("node", _) if has("--test") => (Tests, true, "node --test".into()),
        ("tox" | "nox", _) => (Tests, false, prog.into()),
        ("deno", "test") => (Tests, false, "deno test".into()),
        ("npm" | "pnpm" | "yarn" | "bun", "test" | "t") => (Tests, false, format!("{prog} test")),
        ("npm" | "pnpm" | "yarn" | "bun", "run") if third.contains("test") => {
            (Tests, false, format!("{prog} run {third}"))
        }
        ("make" | "just", t) if t.contains("test") || t == "check" => (Tests, false, format!("{prog} {t}")),
        ("mvn" | "gradle" | "gradlew", "test" | "verify" | "check") => (Tests, false, format!("{prog} {sub}")),
        ("cargo", "build" | "check") | ("go", "build") => (Build, false, format!("{prog} {sub}")),
        ("make" | "just", _) => (Build, false, format!("{prog} {sub}").trim_end().into()),
        ("tsc", _) => (Build, false, "tsc".into()),
        ("npm" | "pnpm" | "yarn", "run") if third.contains("build") => (Build, false, format!("{prog} run {third}")),
        ("mvn" | "gradle" | "gradlew", _) => (Build, false, format!("{prog} {sub}").trim_end().into()),
        ("cargo", "clippy" | "fmt") | ("go", "vet") => (Lint, false, format!("{prog} {sub}")),
        ("eslint" | "ruff" | "mypy" | "flake8" | "pylint" | "shellcheck" | "golangci-lint", _) => {
            (Lint, false, prog.into())
        }
        ("npm" | "pnpm" | "yarn", "run") if third.contains("lint") => (Lint, false, format!("{prog} run {third}")),
        _ => return None,
    };
    Some(Runner {
        kind: Some(kind),
        direct,
        not_a_run: not_a_run(prog, sub, third, &rest),
        filtered: filtered(prog, &rest),
        tool,
        mask: None,
    })
}

/// The first word after the program that is not a flag (nor a flag's value, for the few
/// tools whose flags take one before the subcommand: `make -C dir test`).
fn first_operand<'a>(prog: &str, rest: &[&'a str]) -> &'a str {
    let valued: &[&str] = match prog {
        "make" => &["-C", "-f", "--file", "--directory", "-j", "-I"],
        "just" => &["-f", "--justfile", "-d", "--working-directory"],
        "cargo" => &["-C", "-Z", "--config"],
        "go" => &["-C"],
        "npm" | "pnpm" | "yarn" => &["-C", "--prefix", "--dir", "--cwd", "-w", "--workspace", "--filter"],
        _ => &[],
    };
    let mut i = 0;
    while i < rest.len() {
        let w = rest[i];
        if (!w.starts_with('-') || w == "-") && !(prog == "cargo" && w.starts_with('+')) {
            return w;
        }
        i += if valued.contains(&w) { 2 } else { 1 };
    }
    ""
}

/// The flag or subcommand that makes this invocation run no test, if any.
fn not_a_run(prog: &str, sub: &str, third: &str, rest: &[&str]) -> Option<NotARun> {
    let hit = |does: &'static str, flag: &str| {
        Some(NotARun {
            does,
            flag: flag.to_string(),
        })
    };
    // Anything after `--` goes to the test binary (`cargo test -- --list`), still counted.
    for &w in rest {
        match w {
            "--help" | "-h" | "-help" => return hit("only prints help", w),
            "--version" => return hit("only prints a version", w),
            _ => {}
        }
    }
    if matches!(prog, "cargo" | "go" | "npm" | "pnpm" | "yarn") && sub == "help" || (prog == "cargo" && third == "help")
    {
        return hit("only prints help", "help");
    }
    for &w in rest {
        let found = match (prog, w) {
            ("cargo", "--no-run") => Some("only builds the tests"),
            ("cargo", "--list") | ("pytest" | "py.test", "--fixtures" | "--markers") => Some("only lists tests"),
            ("pytest" | "py.test", "--collect-only" | "--co") => Some("only collects (lists) tests"),
            ("jest", "--listTests") | ("phpunit", "--list-tests") | ("go", "-list") => Some("only lists tests"),
            ("ctest", "-N" | "--show-only") => Some("only lists tests"),
            ("make", "-n" | "--dry-run" | "--just-print" | "--recon") => {
                Some("is a dry run: it only prints the commands")
            }
            ("just", "-n" | "--dry-run") => Some("is a dry run: it only prints the commands"),
            ("go", "-n") => Some("is a dry run: it only prints the commands"),
            ("tox", "--notest") => Some("only builds the environments"),
            (_, "--dry-run") => Some("is a dry run: it runs no test"),
            _ => None,
        };
        if let Some(does) = found {
            return hit(does, w);
        }
    }
    match (prog, sub, third) {
        ("cargo", "nextest", "list") | ("vitest", "list", _) => hit("only lists tests", "list"),
        _ => None,
    }
}

/// A test-name filter: `-k`, `--test-name-pattern`, `-run`, a cargo TESTNAME.
fn filtered(prog: &str, rest: &[&str]) -> bool {
    let flags: &[&str] = match prog {
        "pytest" | "py.test" | "unittest" => &["-k"],
        "node" => &["--test-name-pattern"],
        "go" => &["-run"],
        "jest" | "vitest" => &["-t", "--testNamePattern"],
        "mocha" => &["-g", "--grep", "-f", "--fgrep"],
        "ctest" => &["-R", "--tests-regex"],
        "phpunit" => &["--filter"],
        "rspec" => &["-e", "--example"],
        _ => &[],
    };
    if rest
        .iter()
        .any(|w| flags.contains(w) || flags.iter().any(|f| w.starts_with(&format!("{f}="))))
    {
        return true;
    }
    if prog == "node" && rest.iter().any(|w| w.starts_with("--test-name-pattern")) {
        return true;
    }
    if prog == "cargo" {
        // `cargo test name`: an operand after `test` that no flag takes, before `--`.
        let valued = [
            "-p",
            "--package",
            "--test",
            "--bin",
            "--example",
            "--bench",
            "--features",
            "-F",
            "--target",
            "-j",
            "--jobs",
            "--profile",
            "--manifest-path",
            "--exclude",
            "--target-dir",
            "--color",
            "--message-format",
            "-Z",
            "-C",
            "--config",
        ];
        let mut i = rest.iter().position(|w| *w == "test").map_or(rest.len(), |p| p + 1);
        while i < rest.len() && rest[i] != "--" {
            let w = rest[i];
            if valued.contains(&w) {
                i += 2;
                continue;
            }
            if !w.starts_with('-') {
                return true;
            }
            i += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(cmd: &str) -> Option<Mask> {
        classify(cmd).mask
    }

    #[test]
    fn kinds_through_prefixes_and_wrappers() {
        for (cmd, want) in [
            ("cargo test --workspace", Some(Kind::Tests)),
            ("RUST_LOG=1 cargo test", Some(Kind::Tests)),
            ("env RUST_LOG=debug timeout 600 cargo test", Some(Kind::Tests)),
            ("cd crates/a && cargo test", Some(Kind::Tests)),
            ("python3 -m pytest -q", Some(Kind::Tests)),
            ("uv run --with pytest pytest -x", Some(Kind::Tests)),
            ("poetry run python -m unittest", Some(Kind::Tests)),
            ("npx jest", Some(Kind::Tests)),
            ("node --test", Some(Kind::Tests)),
            ("npm run test:unit", Some(Kind::Tests)),
            ("make -C sub test", Some(Kind::Tests)),
            ("bash -c 'cd x && pytest'", Some(Kind::Tests)),
            ("cargo build --release", Some(Kind::Build)),
            ("cargo build && cargo test", Some(Kind::Tests)),
            ("npx eslint .", Some(Kind::Lint)),
            ("cargo clippy -- -D warnings", Some(Kind::Lint)),
            ("ls", None),
            ("echo all tests pass", None),
            ("echo 'cargo test'", None),
            ("cat > run.sh <<'EOF'\npytest -k nomatch\nEOF", None),
            ("cat > a.py <<-EOF\ncargo test\n\tEOF\nls", None),
            ("cat > a.sh <<EOF\nx\nEOF\npytest", Some(Kind::Tests)),
            ("python3 - <<<'pytest'", None),
            ("./run-checks.sh", None),
            ("node app.js", None),
            ("python3 test_x.py", None),
        ] {
            assert_eq!(kind(cmd), want, "{cmd}");
        }
        assert!(classify("python3 -m unittest -v").direct);
        assert!(classify("cargo test").direct);
        assert!(!classify("make test").direct);
        assert!(!classify("npm test").direct);
        assert_eq!(classify("python3 -m unittest").tool, "python -m unittest");
    }

    #[test]
    fn non_executing_flags() {
        for (cmd, does) in [
            ("cargo test --no-run", "only builds the tests"),
            ("cargo test --help", "only prints help"),
            ("cargo test -- --list", "only lists tests"),
            ("python3 -m unittest --help", "only prints help"),
            ("python3 -m pytest --collect-only -q", "only collects (lists) tests"),
            ("make -n test", "is a dry run: it only prints the commands"),
            ("pytest --version", "only prints a version"),
            ("npx jest --listTests", "only lists tests"),
            ("rspec --dry-run", "is a dry run: it runs no test"),
            ("cargo nextest list", "only lists tests"),
        ] {
            assert_eq!(classify(cmd).not_a_run.map(|n| n.does), Some(does), "{cmd}");
        }
        for cmd in [
            "cargo test",
            "pytest -n 4",
            "pytest -k help",
            "make test",
            "cargo test -- --nocapture",
        ] {
            assert_eq!(classify(cmd).not_a_run, None, "{cmd}");
        }
        // A running test runner wins over a listing one on the same line.
        assert_eq!(classify("pytest --co && pytest").not_a_run, None);
    }

    #[test]
    fn masked_statuses() {
        assert_eq!(
            mask("cargo test 2>&1 | head -5"),
            Some(Mask::Piped {
                into: "head".into(),
                pipefail: false
            })
        );
        assert_eq!(
            mask("set -o pipefail; cargo test 2>&1 | tail -5"),
            Some(Mask::Piped {
                into: "tail".into(),
                pipefail: true
            })
        );
        assert_eq!(mask("cargo test >/dev/null 2>&1 || true"), Some(Mask::DevNull));
        assert_eq!(mask("cargo test &>/dev/null"), Some(Mask::DevNull));
        assert_eq!(mask("cargo test > /dev/null"), Some(Mask::DevNull));
        assert_eq!(mask("cargo test 2>/dev/null"), None);
        assert_eq!(mask("make test || true"), Some(Mask::OrElse { then: "true".into() }));
        assert_eq!(mask("make test || :"), Some(Mask::OrElse { then: ":".into() }));
        assert_eq!(mask("make test; true"), Some(Mask::Then { then: "true".into() }));
        assert_eq!(mask("cargo test &"), Some(Mask::Background));
        assert_eq!(
            mask("true || cargo test"),
            Some(Mask::MayNotRun { after: "true".into() })
        );
        assert_eq!(mask(": || pytest | tail -3").map(|m| m.shown()), Some("| tail".into()));
        assert_eq!(
            mask("pytest | tee log || true"),
            Some(Mask::Piped {
                into: "tee".into(),
                pipefail: false
            })
        );
        for cmd in [
            "cargo test",
            "cd x && cargo test",
            "cargo test 2>&1",
            "cargo test && echo ok",
            "cargo test > out.log 2>&1",
            "cargo build; cargo test",
            "echo 'a | b' && pytest",
        ] {
            assert_eq!(mask(cmd), None, "{cmd}");
        }
        assert!(Mask::Piped {
            into: "head".into(),
            pipefail: false
        }
        .hides_status());
        assert!(!Mask::DevNull.hides_status());
    }

    #[test]
    fn filters() {
        assert!(classify("python3 -m unittest -k nomatch").filtered);
        assert!(classify("cargo test nothing_matches").filtered);
        assert!(classify("cargo test -p fable parse::").filtered);
        assert!(!classify("cargo test -p fable").filtered);
        assert!(!classify("cargo test --test summaries").filtered);
        assert!(!classify("cargo test -- --nocapture").filtered);
        assert!(classify("node --test --test-name-pattern=nomatch").filtered);
        assert!(!classify("pytest").filtered);
        assert!(!classify("cargo test # all of them").filtered);
        assert!(classify("cargo test a#b").filtered);
    }
}
