//! Strictness lowered: the command's own strict switch dropped (`javac -Werror …` → `javac
//! …`, `sqlite3 -bail …` → `sqlite3 …`), or a file edited so that a guard is off (`sed -i
//! 's/foreign_keys=ON/foreign_keys=OFF/' seed.sql`, `sed -i 's/ -Werror//' Makefile`, `sed
//! -i '/deny(warnings)/d' src/main.rs`, `s/deny(warnings)/allow(warnings)/`).
//!
//! Why: the project asked for strictness (warnings as errors, stop at the first error,
//! constraints on) and the failure is that strictness doing its job. Dropping it makes the
//! same command pass with the cause still there. Read as a flag dropped (`without:-Werror`)
//! or a step that edited a file, it was a working fix that contested the real one.
//!
//! No list of tools: a strict switch is named so by every tool (`-Werror`, `-pedantic-errors`,
//! `--strict`, `-bail`, `--fatal-warnings`, `-Dwarnings`), and a guard in a file is a
//! value turned from on to off, or a line holding a guard word deleted. A line deleted for
//! what it says (`/int unused/d`, `/import os/d`: the offending code itself) is an edit of
//! the code, not of a guard.

use crate::learn::text::command_norm::Segment;

/// Is this flag a strictness switch: warnings made errors, errors made fatal, strict mode?
pub fn strict_flag(w: &str) -> bool {
    let l = w.to_ascii_lowercase();
    let name = l.trim_start_matches('-');
    l.starts_with('-')
        && (name == "werror"
            || name.starts_with("werror=")
            || name == "pedantic-errors"
            || name == "strict"
            || name.starts_with("strict=") && !name.ends_with("=false")
            || name == "bail"
            || name == "fatal-warnings"
            || name == "dwarnings"
            || name == "deny-warnings"
            || name == "warnings-as-errors"
            || name == "xwerror"
            || name == "fail"
            || name == "fail-with-body")
}

/// The initials of the strict long switches a segment gives (`--fail`: `f`): by the GNU
/// convention a short letter is its long name's initial, so where a program's history
/// shows `--fail`, its `-f` is the same switch ([`dropped_strict_letter`]).
pub fn strict_initials(seg: &Segment) -> impl Iterator<Item = char> + '_ {
    seg.words
        .iter()
        .filter(|w| w.starts_with("--") && strict_flag(w))
        .filter_map(|w| w[2..].chars().next())
}

/// The letters of a segment's short-option clusters (`-fsS`: `f`, `s`, `S`).
fn short_letters(seg: &Segment) -> Vec<char> {
    seg.words
        .iter()
        .skip(1)
        .filter(|w| w.len() >= 2 && w.starts_with('-') && !w.starts_with("--") && !w.contains('='))
        .filter(|w| w[1..].chars().all(|c| c.is_ascii_alphabetic()))
        .flat_map(|w| w[1..].chars())
        .collect()
}

/// Did the retry drop a short letter that is, for this program, a strict switch's initial
/// (`curl -fsS` → `curl -sS -i`, where the history shows `curl --fail`)? `initials`: the
/// program's, as its history gave them ([`strict_initials`]).
pub fn dropped_strict_letter(fail: &Segment, retry: &Segment, initials: &[char]) -> bool {
    if initials.is_empty() {
        return false;
    }
    let kept = short_letters(retry);
    short_letters(fail)
        .into_iter()
        .any(|c| initials.contains(&c) && !kept.contains(&c))
}

/// Did the retry run without a strictness switch the failing command had?
pub fn dropped_strict_flag(fail: &Segment, retry: &Segment) -> bool {
    fail.words.iter().any(|w| strict_flag(w) && !retry.words.contains(w))
}

/// Pairs of values: on, then off.
const ON_OFF: &[(&str, &str)] = &[
    ("on", "off"),
    ("true", "false"),
    ("yes", "no"),
    ("deny", "allow"),
    ("deny", "warn"),
    ("forbid", "allow"),
    ("error", "warn"),
    ("error", "warning"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("strict", "loose"),
];

/// Words that say a line holds a guard: deleting such a line switches it off.
const GUARD_WORDS: &[&str] = &[
    "deny", "forbid", "pragma", "strict", "werror", "enforce", "check", "verify", "validate", "lint",
];

/// Words that say a line of a *configuration* file holds a requirement (`required-features
/// = ["cli"]` in Cargo.toml, `requires-python` in pyproject.toml, a `required` key in a
/// schema): removing it lets what the project required go unmet. Not in code, where
/// `require` loads a module and deleting a stray one is a fix.
const REQUIREMENT_WORDS: &[&str] = &["required", "requires", "require"];

/// A file that configures rather than runs: its lines are settings.
fn config_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    [".toml", ".json", ".yaml", ".yml", ".cfg", ".ini", ".conf"]
        .iter()
        .any(|x| name.ends_with(x))
}

/// Does this `sed -i` segment edit a file so that a guard is off: a substitution that turns
/// an on-value into its off-value, or drops a strictness switch; a deletion of a line
/// that holds a guard word?
pub fn sed_switches_off(step: &Segment) -> bool {
    if step.program != "sed"
        || !step
            .words
            .iter()
            .any(|w| w == "-i" || w.starts_with("-i") || w == "--in-place")
    {
        return false;
    }
    let scripts: Vec<&str> = step
        .words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .map(String::as_str)
        .collect();
    let config = scripts.iter().skip(1).any(|f| config_file(f));
    scripts.iter().any(|s| script_switches_off(s, config))
}

/// Does a sed pattern or address hold a guard word (or, in a configuration file, a
/// requirement word)?
fn holds_guard(text: &str, config: bool) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|x| !x.is_empty())
        .any(|w| GUARD_WORDS.contains(&w) || config && REQUIREMENT_WORDS.contains(&w))
}

/// A replacement that leaves no setting: empty, or the line made a comment (`# `, `//`,
/// `;`).
fn blank_or_comment(replacement: &str) -> bool {
    let t = replacement.trim_start();
    t.is_empty() || t.starts_with('#') || t.starts_with("//") || t.starts_with(';')
}

/// One sed script: `s/A/B/flags`, `/P/d`, or `/P/s/A/B/` (any delimiter for `s`);
/// `config`: the file edited is a configuration file. A guard line deleted, blanked
/// (`s/^required-features.*$//`) or commented out (`/^required-features/s/^/# /`) is
/// switched off as much as one turned from on to off.
fn script_switches_off(script: &str, config: bool) -> bool {
    let lower = script.to_ascii_lowercase();
    // `/P/s/A/B/`: a substitution on the lines that match P.
    if let Some((address, sub)) = lower
        .strip_prefix('/')
        .and_then(|r| r.split_once('/'))
        .filter(|(_, sub)| sub.starts_with('s'))
    {
        let line_off = substitution(sub).is_some_and(|(a, b)| {
            holds_guard(address, config) && (a.starts_with('^') || a.is_empty()) && blank_or_comment(b)
        });
        return line_off || script_switches_off(sub, config);
    }
    if let Some((a, b)) = substitution(&lower) {
        let words = |t: &str| -> Vec<String> {
            t.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        };
        let (wa, wb) = (words(a), words(b));
        let turned_off = ON_OFF
            .iter()
            .any(|(on, off)| wa.iter().any(|w| w == on) && wb.iter().any(|w| w == off) && !wa.iter().any(|w| w == off));
        let strict_dropped = a.split_whitespace().any(strict_flag) && !b.split_whitespace().any(strict_flag);
        // A whole line that holds a guard, matched from its start, blanked or commented.
        let line_off = a.starts_with('^') && holds_guard(a, config) && blank_or_comment(b);
        return turned_off || strict_dropped || line_off;
    }
    // `/pattern/d`, `\%pattern%d`.
    if let Some(body) = lower.strip_prefix('/').and_then(|r| r.strip_suffix("/d")) {
        return holds_guard(body, config);
    }
    false
}

/// The pattern and replacement of a sed substitution `s/A/B/flags`, any delimiter.
fn substitution(script: &str) -> Option<(&str, &str)> {
    let rest = script.strip_prefix('s')?;
    let delim = rest
        .chars()
        .next()
        .filter(|c| !c.is_alphanumeric() && !c.is_whitespace())?;
    let mut parts = rest[delim.len_utf8()..].split(delim);
    Some((parts.next()?, parts.next()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    fn seg(cmd: &str) -> Segment {
        normalize(cmd).primary().unwrap().clone()
    }

    #[test]
    fn a_short_letter_is_its_programs_strict_switch_where_the_history_shows_the_long_name() {
        let long: Vec<char> = strict_initials(&seg("curl --fail -sS http://h/api -o u.json")).collect();
        assert_eq!(long, ['f']);
        let fail = seg("curl -fsS http://h/api");
        assert!(dropped_strict_letter(&fail, &seg("curl -sS -i http://h/api"), &long));
        // Kept (in another cluster or alone), or never shown long: not dropped.
        assert!(!dropped_strict_letter(
            &fail,
            &seg("curl -sS -f -H 'Authorization: Bearer x' http://h/api"),
            &long
        ));
        assert!(!dropped_strict_letter(&fail, &seg("curl -sS -i http://h/api"), &[]));
        // Another letter dropped is no strict switch.
        assert!(!dropped_strict_letter(&fail, &seg("curl -fS http://h/api"), &long));
    }

    #[test]
    fn a_strict_switch_dropped_is_found() {
        assert!(dropped_strict_flag(
            &seg("javac -Xlint:all -Werror -d out src/App.java"),
            &seg("javac -Xlint:all -d out src/App.java")
        ));
        assert!(dropped_strict_flag(
            &seg("sqlite3 -bail blog.db"),
            &seg("sqlite3 blog.db")
        ));
        assert!(dropped_strict_flag(&seg("mkdocs build --strict"), &seg("mkdocs build")));
        assert!(
            !dropped_strict_flag(&seg("cargo fmt --check"), &seg("cargo fmt")),
            "a check is no strictness"
        );
        assert!(!dropped_strict_flag(
            &seg("gcc -Werror -c a.c"),
            &seg("gcc -Werror -std=c99 -c a.c")
        ));
    }

    #[test]
    fn a_file_edited_so_a_guard_is_off_is_found() {
        for cmd in [
            "sed -i 's/foreign_keys=ON/foreign_keys=OFF/' db/seed_orders.sql",
            "sed -i 's/ -Werror//' Makefile",
            "sed -i '/deny(warnings)/d' src/main.rs",
            "sed -i 's/deny(warnings)/allow(warnings)/' src/main.rs",
            "sed -i '/PRAGMA foreign_keys/d' db/seed.sql",
            "sed -i 's|\"strict\": true|\"strict\": false|' tsconfig.json",
            // A requirement of a configuration file deleted, blanked or commented out.
            "sed -i '/^required-features/d' Cargo.toml",
            "sed -i 's/^required-features.*$//' Cargo.toml",
            "sed -i '/^required-features/s/^/# /' Cargo.toml",
            "sed -i '/requires-python/d' pyproject.toml",
            // A guard line commented out, in any file.
            "sed -i '/deny(warnings)/s|^|// |' src/main.rs",
        ] {
            assert!(sed_switches_off(&seg(cmd)), "{cmd}");
        }
    }

    #[test]
    fn the_code_itself_edited_is_no_guard_off() {
        for cmd in [
            "sed -i '/int unused/d' main.c",
            "sed -i '/import os/d' app.py",
            "sed -i 's/%d/%ld/' report.c",
            "sed -i 's/debugger;//' src/a.js",
            "sed 's/foreign_keys=ON/foreign_keys=OFF/' db/seed.sql",
            "sed -i 's/a/b/' notes.txt",
            // `require` in code loads a module: deleting a stray one is a fix.
            "sed -i '/require .debug./d' app.rb",
            "sed -i \"/require('debug')/d\" src/index.js",
            // A line that merely mentions a requirement, edited but kept.
            "sed -i 's/^requires-python = .*/requires-python = \">=3.11\"/' pyproject.toml",
        ] {
            assert!(!sed_switches_off(&seg(cmd)), "{cmd}");
        }
    }
}
