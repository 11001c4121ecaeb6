//! A fix that tells the tool to ignore the very check the failure reported: `ruff check
//! --ignore F401` after "F401 `os` imported but unused", `pylint --disable=unused-import`
//! after "W0611: Unused import os (unused-import)", `gcc -Wno-unused-variable` after
//! "[-Werror=unused-variable]", `mypy --disable-error-code=import-untyped` after "…
//! [import-untyped]", `cargo clippy -- -A clippy::needless_return`.
//!
//! Why: every linter, compiler and type checker names each finding by a code or a rule
//! name, and every one of them has a switch that takes that name and stops reporting it.
//! The command then passes with the finding still there. No list of tools or codes is
//! kept: the failure's own text names the finding, the fix's option hands that name to a
//! switch whose name says it silences (`ignore`, `disable`, `exclude`, `suppress`,
//! `allow`, `-Wno-`) or sets it `off`. A path handed to `--exclude` is narrowing what is
//! read, not silencing a finding: names with `/` or `.` are never findings here.

/// Parts of an option's name that silence what they are given.
const SILENCING: &[&str] = &[
    "ignore", "disable", "exclude", "suppress", "allow", "skip", "deselect", "off",
];

/// Values that switch a named finding off (`no-unused-vars: off`, `E501=ignore`).
const OFF_VALUES: &[&str] = &["off", "0", "false", "ignore", "none", "allow"];

/// Does the command `cmd` hand a finding the failure's text named to a silencing switch,
/// one the failing command `fail_cmd` did not already have?
pub fn ignores_what_failed(fail_tail: &str, fail_cmd: &str, cmd: &str) -> bool {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let before: Vec<&str> = fail_cmd.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        if before.contains(w) {
            return false;
        }
        let w = w.trim_matches(['"', '\'']);
        // `-Wno-unused-variable`, `-Wno-error=unused-variable`: gcc's and clang's spelling.
        if let Some(rest) = w.strip_prefix("-Wno-") {
            let rest = rest.strip_prefix("error=").unwrap_or(rest);
            return named(rest, fail_tail);
        }
        // `-A clippy::x`, `-e SC2086`: a short switch, its value apart; only a code or a
        // lint path, which no ordinary operand is.
        if matches!(w, "-A" | "-e" | "--allow") {
            return words
                .get(i + 1)
                .map(|v| v.trim_matches(['"', '\'']))
                .is_some_and(|v| (code_like(v) || v.contains("::")) && named(v, fail_tail));
        }
        // `--ignore F401`, `--ignore=F401`, `--extend-ignore=E501,W503`,
        // `--per-file-ignores=src/a.py:F401`, `--disable-error-code=import-untyped`.
        let (name, value) = match w.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (w, words.get(i + 1).copied().map(|v| v.trim_matches(['"', '\'']))),
        };
        if let Some(n) = name.strip_prefix("--") {
            let silencing = n.split(['-', '_']).any(|p| SILENCING.iter().any(|s| p.starts_with(s)));
            if silencing {
                return value.is_some_and(|v| v.split([',', ':', ';']).any(|t| named(t, fail_tail)));
            }
        }
        // `-Xlint:all,-rawtypes,-unchecked`: a finding's name taken out of a list by `-`.
        if let Some((_, list)) = w.split_once([':', '=']) {
            let negated = list
                .split(',')
                .filter_map(|p| p.strip_prefix('-'))
                .any(|n| n.len() > 2 && !n.starts_with('-') && bracketed(n, fail_tail));
            if negated {
                return true;
            }
        }
        // `--rule 'no-unused-vars: off'`: a finding's name set off in a value.
        w.split([',', ';']).any(|part| {
            let part = part.trim_matches(['{', '}', '"', '\'', ' ']);
            match part.split_once([':', '=']) {
                Some((k, v)) => {
                    let v = v.trim_matches(['"', '\'', ' ']).to_ascii_lowercase();
                    OFF_VALUES.contains(&v.as_str()) && named(k.trim_matches(['"', '\'']), fail_tail)
                }
                None => false,
            }
        })
    })
}

/// Does the failure name `n` in brackets, the way compilers tag a finding with its
/// category (`warning: [rawtypes] found raw type`, `[-Wunused-variable]`)?
fn bracketed(n: &str, fail_tail: &str) -> bool {
    fail_tail.contains(&format!("[{n}]")) || fail_tail.contains(&format!("[-W{n}]"))
}

/// `F401`, `SC2086`, `W0611`, `TS2307`: letters, then digits.
fn code_like(t: &str) -> bool {
    let t = t.trim();
    let letters = t.chars().take_while(|c| c.is_ascii_alphabetic()).count();
    (1..=3).contains(&letters) && t.len() > letters + 1 && t[letters..].chars().all(|c| c.is_ascii_digit())
}

/// Does the failure's text name this finding whole? A code (`F401`), a rule name of two
/// parts or more (`unused-import`, `needless_return`, `clippy::needless_return`); never a
/// path, a file or a plain word.
fn named(token: &str, fail_tail: &str) -> bool {
    let t = token.trim().trim_matches(['"', '\'', '[', ']', '(', ')']);
    let t = t.rsplit("::").next().unwrap_or(t);
    if t.is_empty() || t.contains(['/', '.', ' ']) {
        return false;
    }
    let rule_name = t.len() >= 6
        && t.split(['-', '_']).filter(|p| !p.is_empty()).count() >= 2
        && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !(code_like(t) || rule_name) {
        return false;
    }
    // Whole: `F401` in "F401 …", not in "F4011"; `unused-import` in "(unused-import)".
    // A lint's name is spelt with `_` in code and `-` in messages (clippy): either.
    let alt = t.replace('_', "-");
    [t, alt.as_str()]
        .iter()
        .any(|n| crate::learn::text::names::holds_whole(fail_tail, n, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_finding_the_failure_named_handed_to_a_silencing_switch_is_found() {
        let ruff = "src/app.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.";
        assert!(ignores_what_failed(
            ruff,
            "ruff check src/",
            "ruff check --ignore F401 src/"
        ));
        assert!(ignores_what_failed(
            ruff,
            "ruff check src/",
            "ruff check --extend-ignore=F401,E501 src/"
        ));
        assert!(ignores_what_failed(
            ruff,
            "ruff check src/",
            "ruff check --per-file-ignores=src/app.py:F401 src/"
        ));
        let pylint = "app.py:1:0: W0611: Unused import os (unused-import)";
        assert!(ignores_what_failed(
            pylint,
            "pylint app.py",
            "pylint --disable=unused-import app.py"
        ));
        assert!(ignores_what_failed(
            pylint,
            "pylint app.py",
            "pylint --disable W0611 app.py"
        ));
        let gcc = "main.c:3:9: error: unused variable 'x' [-Werror=unused-variable]";
        assert!(ignores_what_failed(
            gcc,
            "gcc -Wall -Werror main.c",
            "gcc -Wall -Werror -Wno-unused-variable main.c"
        ));
        assert!(ignores_what_failed(
            gcc,
            "gcc -Wall -Werror main.c",
            "gcc -Wall -Werror -Wno-error=unused-variable main.c"
        ));
        let mypy = "app.py:1: error: Library stubs not installed for \"yaml\"  [import-untyped]";
        assert!(ignores_what_failed(
            mypy,
            "mypy app.py",
            "mypy --disable-error-code=import-untyped app.py"
        ));
        let sc = "In run.sh line 3:\ncp $src $dst\n   ^--^ SC2086 (info): Double quote to prevent globbing and word splitting.";
        assert!(ignores_what_failed(
            sc,
            "shellcheck run.sh",
            "shellcheck -e SC2086 run.sh"
        ));
        assert!(ignores_what_failed(
            sc,
            "shellcheck run.sh",
            "shellcheck --exclude=SC2086 run.sh"
        ));
        let clippy = "error: unneeded `return` statement\n  = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#needless_return\n  = note: `-D clippy::needless-return` implied by `-D warnings`";
        assert!(ignores_what_failed(
            clippy,
            "cargo clippy -- -D warnings",
            "cargo clippy -- -D warnings -A clippy::needless_return"
        ));
        let javac =
            "src/Main.java:6: warning: [rawtypes] found raw type: Map\nerror: warnings found and -Werror specified";
        assert!(ignores_what_failed(
            javac,
            "javac -Xlint:all -Werror -d out src/Main.java",
            "javac -Xlint:all,-rawtypes -Werror -d out src/Main.java"
        ));
        assert!(
            !ignores_what_failed(
                javac,
                "javac -Xlint:all -Werror -d out src/Main.java",
                "javac -Xlint:all,-serial -Werror -d out src/Main.java"
            ),
            "not the one named"
        );
        let eslint = "  3:7  error  'x' is assigned a value but never used  no-unused-vars";
        assert!(ignores_what_failed(
            eslint,
            "npx eslint src",
            "npx eslint --rule no-unused-vars:off src"
        ));
    }

    #[test]
    fn a_path_narrowed_a_value_kept_or_a_switch_already_there_is_not() {
        let grep = "grep: node_modules/x/y: Permission denied";
        assert!(!ignores_what_failed(
            grep,
            "grep -r TODO .",
            "grep -r TODO . --exclude-dir=node_modules"
        ));
        let ruff = "src/app.py:1:8: F401 [*] `os` imported but unused";
        assert!(!ignores_what_failed(ruff, "ruff check src/", "ruff check --fix src/"));
        assert!(
            !ignores_what_failed(ruff, "ruff check src/", "ruff check --ignore E501 src/"),
            "not the one named"
        );
        assert!(
            !ignores_what_failed(
                ruff,
                "ruff check --ignore F401 src/",
                "ruff check --ignore F401 --fix src/"
            ),
            "the failing command's own switch"
        );
        let gcc = "main.c:3:9: error: unused variable 'x' [-Werror=unused-variable]";
        assert!(!ignores_what_failed(
            gcc,
            "gcc -Werror main.c",
            "gcc -Werror -Wno-unused-parameter main.c"
        ));
        let sed = "sed: -e expression #1, char 5: unterminated `s' command";
        assert!(!ignores_what_failed(sed, "sed 's/a/b' f", "sed -e 's/a/b/' f"));
        let rsync = "rsync: [sender] send_files failed to open \"/w/cache-dir/x\": Permission denied (13)";
        assert!(
            !ignores_what_failed(rsync, "rsync -a /w/ /b/", "rsync -a --exclude cache-dir /w/ /b/"),
            "a directory"
        );
    }
}
