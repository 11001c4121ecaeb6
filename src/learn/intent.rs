//! Recovery by intent: how a later success relates to a failure, judged on the words the
//! agent actually typed.
//!
//! Why its own file: normalisation ([`crate::learn::command_norm`]) deliberately forgets
//! what does not change the subject (`python3 -m unittest` and `python -m unittest` are
//! both `unittest`; `cd web &&` and `PYTHONPATH=src` are housekeeping). That is right for
//! grouping failures, wrong for judging a retry: `python` → `python3` under `-m` looked
//! like an unchanged (flaky) retry, and a typo fixed (`pyhton3` → `python3`) looked like a
//! program substituted. These judgements read the raw words.

use crate::learn::agreement::edit_distance;
use crate::learn::command_norm::Segment;

/// Wrappers that put a command in another directory without `cd`: `git -C X`,
/// `make -C X`, `npm --prefix X`, `cargo --manifest-path X/Cargo.toml`. They are one fix
/// with `cd X && …` (the directory was the problem), so [`dir_flag`] keys them alike.
pub const DIR_FLAGS: &[&str] = &[
    "-C",
    "--prefix",
    "--manifest-path",
    "--cwd",
    "--dir",
    "--directory",
    "--chdir",
    "--project",
];

/// `Some(takes_value)` when a word is a directory wrapper flag: `--prefix` (its value is
/// the next word) or `--prefix=web` (value inline).
pub fn dir_flag(w: &str) -> Option<bool> {
    let (k, inline) = match w.split_once('=') {
        Some((k, _)) => (k, true),
        None => (w, false),
    };
    DIR_FLAGS.contains(&k).then_some(!inline)
}

/// The programs of a raw command line as typed, one per simple command: environment
/// assignments, `sudo`/`env`/`time`/`nohup`/`export` and `cd X` skipped, version suffixes
/// kept (`python3` stays `python3`), path prefixes dropped (`/usr/bin/git` → `git`).
pub fn raw_programs(cmd: &str) -> Vec<String> {
    let words: Vec<String> =
        shell_words::split(cmd).unwrap_or_else(|_| cmd.split_whitespace().map(str::to_string).collect());
    let mut out = Vec::new();
    let mut at_start = true;
    let mut skip_next = false;
    for w in &words {
        if matches!(w.as_str(), "&&" | "||" | ";" | "|" | "&") {
            at_start = true;
            continue;
        }
        if skip_next {
            skip_next = false;
            continue;
        }
        if !at_start {
            continue;
        }
        let assignment = w
            .split_once('=')
            .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if assignment || matches!(w.as_str(), "sudo" | "env" | "time" | "nohup" | "export" | "exec") {
            continue;
        }
        if w == "cd" {
            skip_next = true;
            continue;
        }
        out.push(w.rsplit('/').next().unwrap_or(w).trim_end_matches(';').to_string());
        at_start = false;
    }
    out
}

/// A name without its version suffix: `python3.11` → `python`.
fn unversioned(p: &str) -> &str {
    let t = p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if t.is_empty() {
        p
    } else {
        t
    }
}

/// Is `to` a typo correction of `from` (judged on the raw program tokens)? A near
/// spelling (`pyhton3` → `python3`, `gti` → `git`: edit distance ≤ 2) is a typo; the
/// same name with another version (`python` → `python3`) is a substitution, not a typo.
pub fn is_typo(from: &str, to: &str) -> bool {
    let (a, b) = (unversioned(from), unversioned(to));
    a != b && a.len() >= 2 && b.len() >= 2 && edit_distance(a, b, 2) <= 2
}

/// The program the retry substituted for the failing one, judged on raw words: `Some
/// ("python3")` for `python -m unittest` → `python3 -m unittest`; `None` when the raw
/// programs are the same or the change is a typo.
///
/// Only for command lines of the same shape (as many simple commands, one program
/// changed): `rustc main.rs -o demo && ./demo` after `rustc main.rs -o demo` adds a step,
/// it does not substitute `demo` for `rustc`.
pub fn substituted(fail_cmd: &str, retry_cmd: &str) -> Option<String> {
    let (f, r) = (raw_programs(fail_cmd), raw_programs(retry_cmd));
    if f.len() != r.len() {
        return None;
    }
    let mut changed = f.iter().zip(&r).filter(|(a, b)| a != b);
    let (fp, rp) = changed.next()?;
    (changed.next().is_none() && !is_typo(fp, rp)).then(|| rp.clone())
}

/// A listing step: a command that shows what a tool can run (`make help`, `npm run` with
/// no script, `just --list`). After one, a *different* action of the same program that
/// succeeds is the intent achieved by a substitute (`make help` → `make check` after
/// `make test` had no rule).
///
/// A listing of the program's own actions only: `git config --list` lists settings, not
/// what `git` can run, so it is an inspection ([`is_inspection`]) but no listing.
pub fn is_listing(s: &Segment) -> bool {
    let first = s.action.split(' ').next().unwrap_or("");
    let bare_run = matches!(s.action.as_str(), "run" | "run-script") && s.words.len() <= 2;
    let list_flag = s
        .words
        .iter()
        .skip(1)
        .any(|w| matches!(w.as_str(), "--help" | "--list" | "--tasks"));
    bare_run || matches!(first, "help" | "list" | "targets" | "tasks") || list_flag && s.action.is_empty()
}

/// May `sub` (an action of the failing program, after a listing) stand in for the failing
/// `action`? Another target of the same kind: `npm run build` for `npm run start` (same
/// first word), any target for a program whose actions are targets (`make`, `just`).
pub fn may_substitute(action: &str, sub: &str) -> bool {
    let (a, b) = (
        action.split(' ').next().unwrap_or(""),
        sub.split(' ').next().unwrap_or(""),
    );
    action != sub && !b.is_empty() && (a == b || !action.contains(' ') && !sub.contains(' '))
}

/// An inspection: a listing, a check of the repository (`git fsck`), a version or help
/// query. It only looks, so it is never the fix of a failure (`git fsck` between an
/// `index.lock` failure and a retry that passed was coincidence: the lock was released).
pub fn is_inspection(s: &Segment) -> bool {
    let first = s.action.split(' ').next().unwrap_or("");
    is_listing(s)
        || s.words
            .iter()
            .skip(1)
            .any(|w| matches!(w.as_str(), "--help" | "--list"))
        || matches!(first, "fsck" | "version" | "verify-pack" | "count-objects")
        || s.words.iter().skip(1).any(|w| w == "--version")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::command_norm::normalize;

    #[test]
    fn raw_programs_keep_what_was_typed() {
        assert_eq!(raw_programs("python3 -m unittest"), vec!["python3"]);
        assert_eq!(
            raw_programs("cd web && PYTHONPATH=. sudo /usr/bin/npm run build"),
            vec!["npm"]
        );
        assert_eq!(raw_programs("export X=1 && make test"), vec!["make"]);
    }

    #[test]
    fn typo_is_judged_on_raw_words() {
        assert!(
            is_typo("pyhton3", "python3"),
            "normalised both would differ in suffix only"
        );
        assert!(is_typo("gti", "git"));
        assert!(!is_typo("python", "python3"), "a version change is a substitution");
        assert!(!is_typo("make", "cargo"));
        assert_eq!(substituted("pyhton3 app.py", "python3 app.py"), None);
        assert_eq!(
            substituted("python -m unittest", "python3 -m unittest"),
            Some("python3".into())
        );
        assert_eq!(substituted("python -m unittest", "python -m unittest -v"), None);
        assert_eq!(
            substituted("rustc main.rs -o demo", "rustc main.rs -o demo && ./demo"),
            None
        );
        assert!(may_substitute("run start", "run build:prod"));
        assert!(may_substitute("test", "check"));
        assert!(!may_substitute("commit", "config user.email"));
    }

    #[test]
    fn directory_wrappers_and_listings() {
        assert_eq!(dir_flag("-C"), Some(true));
        assert_eq!(dir_flag("--manifest-path=crates/a/Cargo.toml"), Some(false));
        assert_eq!(dir_flag("--release"), None);
        for l in ["make help", "npm run", "just --list"] {
            assert!(is_listing(normalize(l).primary().unwrap()), "{l}");
        }
        for l in ["make check", "npm run build", "cargo build", "git config --list"] {
            assert!(!is_listing(normalize(l).primary().unwrap()), "{l}");
        }
    }
}
