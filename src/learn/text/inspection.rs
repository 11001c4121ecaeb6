//! Commands that only look at a tool rather than use it: listings of what it can run
//! (`make help`, `npm run`), inspections (`git fsck`, `--version`), and the flags that
//! run a tool in another directory (`-C`, `--prefix`, `--manifest-path`).
//!
//! Why apart: normalisation ([`crate::learn::text::command_norm`]) needs these to tell a fix
//! step from diagnosis and a flag's value from a subcommand, and recovery by intent
//! ([`crate::learn::text::intent`], [`crate::learn::history::episodes`]) needs them to recognise a
//! substitute after a listing. Words in, answers out: no dependency on either.

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
    (crate::learn::text::tables::on(crate::learn::text::tables::Table::DirFlags) && DIR_FLAGS.contains(&k))
        .then_some(!inline)
}

/// A listing step: a command that shows what a tool can run (`make help`, `npm run` with
/// no script, `just --list`). After one, a *different* action of the same program that
/// succeeds is the intent achieved by a substitute (`make help` → `make check` after
/// `make test` had no rule).
///
/// A listing of the program's own actions only: `git config --list` lists settings, not
/// what `git` can run, so it is an inspection ([`is_inspection`]) but no listing.
pub fn is_listing(action: &str, words: &[String]) -> bool {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Listings) {
        return false;
    }
    let first = action.split(' ').next().unwrap_or("");
    let bare_run = matches!(action, "run" | "run-script") && words.len() <= 2;
    let list_flag = words
        .iter()
        .skip(1)
        .any(|w| matches!(w.as_str(), "--help" | "--list" | "--tasks"));
    bare_run || matches!(first, "help" | "list" | "targets" | "tasks") || list_flag && action.is_empty()
}

/// May `sub` (an action of the failing program, after a listing) stand in for the failing
/// `action`? Another target of the same kind: `npm run build` for `npm run start` (same
/// first word), any target for a program whose actions are targets (`make`, `just`).
pub fn may_substitute(action: &str, sub: &str) -> bool {
    let (a, b) = (
        action.split(' ').next().unwrap_or(""),
        sub.split(' ').next().unwrap_or(""),
    );
    // `npm start` / `npm test` are `npm run start` / `npm run test` (npm's lifecycle
    // aliases): another script run after the listing stands in for them too.
    let lifecycle = matches!(action, "start" | "test" | "stop" | "restart") && b == "run";
    action != sub && !b.is_empty() && (a == b || lifecycle || !action.contains(' ') && !sub.contains(' '))
}

/// A word that asks the tool about itself (`--help`, `--list`, `--version`): a run that
/// holds one only looks, whatever the failure was.
pub fn asks_about_itself(w: &str) -> bool {
    matches!(w, "--help" | "--list" | "--version")
}

/// An inspection: a listing, a check of the repository (`git fsck`), a version or help
/// query. It only looks, so it is never the fix of a failure (`git fsck` between an
/// `index.lock` failure and a retry that passed was coincidence: the lock was released).
pub fn is_inspection(action: &str, words: &[String]) -> bool {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Listings) {
        return false;
    }
    let first = action.split(' ').next().unwrap_or("");
    is_listing(action, words)
        || words.iter().skip(1).any(|w| asks_about_itself(w))
        || matches!(first, "fsck" | "version" | "verify-pack" | "count-objects")
}

/// `git branch` / `git remote` only look when they list: `git branch -a`, `git remote -v`,
/// `git remote show origin`. With a name or a changing flag they change the repository
/// (`git branch --set-upstream-to=origin/x`, `git remote set-url origin …`): a fix step,
/// never diagnosis — read as diagnosis, the retry after them looked like a plain retry.
pub fn git_lists_refs(action: &str, words: &[String]) -> bool {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Listings) {
        return false;
    }
    let mut rest = words.iter().skip(2).map(String::as_str);
    match action {
        "branch" => rest.all(|w| {
            matches!(
                w,
                "-a" | "--all"
                    | "-r"
                    | "--remotes"
                    | "-v"
                    | "-vv"
                    | "--verbose"
                    | "-l"
                    | "--list"
                    | "--show-current"
                    | "--merged"
                    | "--no-merged"
                    | "--contains"
                    | "--no-color"
                    | "--color"
            )
        }),
        "remote" => rest.all(|w| matches!(w, "-v" | "--verbose")),
        "remote show" | "remote get-url" => true,
        _ => false,
    }
}

/// Inline code that only imports and prints (`python3 -c 'import sys; print(sys.path)'`)
/// or a module that only reports (`python3 -m site`): a look at the interpreter.
pub fn inspects_interpreter(program: &str, words: &[String]) -> bool {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Listings) {
        return false;
    }
    if program == "site" {
        return true;
    }
    let Some(i) = words.iter().position(|w| w == "-c") else {
        return false;
    };
    let Some(code) = words.get(i + 1) else { return false };
    code.split([';', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .all(|st| {
            st.starts_with("import ") && !st.contains('(')
                || st.starts_with("print(") && !st.contains('=') && st.matches('(').count() == 1
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_wrappers_and_listings() {
        assert_eq!(dir_flag("-C"), Some(true));
        assert_eq!(dir_flag("--manifest-path=crates/a/Cargo.toml"), Some(false));
        assert_eq!(dir_flag("--release"), None);
        // (action, words) as normalisation gives them.
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        for (a, l) in [("help", "make help"), ("run", "npm run"), ("", "just --list")] {
            assert!(is_listing(a, &w(l)), "{l}");
        }
        for (a, l) in [
            ("check", "make check"),
            ("run build", "npm run build"),
            ("build", "cargo build"),
            ("config", "git config --list"),
        ] {
            assert!(!is_listing(a, &w(l)), "{l}");
        }
        assert!(is_inspection("config", &w("git config --list")));
        assert!(is_inspection("fsck", &w("git fsck")));
        assert!(is_inspection("", &w("node --version")));
        assert!(!is_inspection("commit", &w("git commit -m x")));
    }

    #[test]
    fn substitutes_are_of_the_same_kind() {
        assert!(may_substitute("run start", "run build:prod"));
        assert!(may_substitute("test", "check"));
        assert!(may_substitute("start", "run compile"), "npm start is npm run start");
        assert!(!may_substitute("commit", "config user.email"));
    }

    #[test]
    fn git_branch_and_remote_only_look_when_they_list() {
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert!(git_lists_refs("branch", &w("git branch -a")));
        assert!(git_lists_refs("branch", &w("git branch")));
        assert!(git_lists_refs("remote", &w("git remote -v")));
        assert!(git_lists_refs("remote show", &w("git remote show origin")));
        assert!(!git_lists_refs("branch", &w("git branch --set-upstream-to=origin/x")));
        assert!(!git_lists_refs("branch", &w("git branch -D old")));
        assert!(!git_lists_refs(
            "remote set-url",
            &w("git remote set-url origin ~/r.git")
        ));
        assert!(!git_lists_refs("remote add", &w("git remote add up ~/r.git")));
    }

    #[test]
    fn inline_code_that_only_prints_inspects() {
        let w = |s: &str| shell_words::split(s).unwrap();
        assert!(inspects_interpreter(
            "python3",
            &w("python3 -c 'import sys; print(sys.path)'")
        ));
        assert!(inspects_interpreter("site", &w("site")));
        assert!(!inspects_interpreter(
            "python3",
            &w("python3 -c 'import os; os.remove(\"x\")'")
        ));
        assert!(!inspects_interpreter(
            "python3",
            &w("python3 -c 'print(open(\"f\", \"w\").write(\"x\"))'")
        ));
        assert!(!inspects_interpreter("python3", &w("python3 app.py")));
    }
}
