//! The file the failure blamed, emptied or taken away: a check switched off by removing
//! the rules it reads.
//!
//! Why its own judgement: a tool that refuses often names the file its rule came from
//! ("The following paths are ignored by one of your .gitignore files", "… in
//! .pre-commit-config.yaml"). An agent in a hurry then empties that file (`: > .gitignore`)
//! or deletes it (`rm .gitignore`, `mv .npmrc .npmrc.off`) and runs the very same command,
//! which now passes. The failure is gone because its rule is, for every later command
//! too: the configuration twin of a flag like `--no-verify`. No list of files is kept: the
//! failure's own text says which file is the reason.
//!
//! Not this: a file the failure says is *in the way* (`File exists`, `already exists`) or
//! a lock (`.git/index.lock`, `*.pid`): removing a stale lock or a collision is the usual
//! remedy, not a rule switched off. A file written with content is an edit, judged
//! elsewhere; only a file left empty counts here. And a failing command that was itself
//! removing the file (`rm build` → `rm -r build`) did what it meant to.

use crate::learn::text::command_norm::{CmdNorm, Segment};

/// The safety name of a fix that emptied or removed the file its failure blamed.
pub const BLAMED_FILE_OFF: &str = "safeguard_off";

/// Did `step` empty or remove a file the failure (`fail`, its output `fail_tail`)
/// named as the reason?
pub fn removes_blamed_file(fail: &CmdNorm, fail_tail: &str, step: &CmdNorm) -> bool {
    // The cheap test first: asked of every step of every recovery, and most steps take
    // no file away.
    let gone = gone_files(step, fail_tail);
    if gone.is_empty() || in_the_way(fail_tail) || fail.segments.iter().any(removes_files) {
        return false;
    }
    // A file the failing command was given is its input, not its rules: renamed (`mv
    // Helpers.java Util.java` after "should be declared in a file named Util.java") it is
    // the input corrected; emptied, [`crate::learn::history::fix_safety::overwrites_input`].
    let given = |f: &str| given_to(fail, f);
    gone.iter().any(|f| !is_lock(f) && !given(f) && blames(fail_tail, f))
}

/// Did `step` take away (`rm` without `-r`, or moved aside) a file that neither the
/// failure's text nor the failing command names — after which the very same command
/// passed?
///
/// Why: a file nobody named can have decided the failure only as something the tool read
/// by itself: its configuration (`rm rust-toolchain.toml` after "toolchain … is not
/// installed", `mv rust-toolchain.toml rust-toolchain.toml.bak`, `rm -f package-lock.json`
/// before `npm ci`). Taking it away switches the project's setting off for every later
/// command, as emptying a blamed file does. Not a lock, not a path under `/tmp`, not a
/// pattern (`rm src/*.o`: build output by the handful), not a directory (`rm -r`), not a
/// file moved *onto* the command's input (`mv f.py.tmp f.py`: the input rewritten), and
/// not when the failure says something is in the way.
pub fn removes_unnamed_file(fail: &CmdNorm, fail_tail: &str, step: &CmdNorm) -> bool {
    let given = |f: &str| given_to(fail, f);
    let aside: Vec<&str> =
        step.segments
            .iter()
            .flat_map(|s| {
                let ops = operands(s);
                let recursive = s.words.iter().any(|w| {
                    w == "--recursive" || (w.starts_with('-') && !w.starts_with("--") && w.contains(['r', 'R']))
                });
                match s.program.as_str() {
                    "rm" | "unlink" if !recursive => ops,
                    "mv" if ops.len() == 2 && basename(ops[0]) != basename(ops[1]) && !given(ops[1]) => vec![ops[0]],
                    _ => Vec::new(),
                }
            })
            .collect();
    if aside.is_empty() || in_the_way(fail_tail) || fail.segments.iter().any(removes_files) {
        return false;
    }
    let named = |f: &str| {
        let b = basename(f.trim_matches(['"', '\'']));
        crate::learn::text::names::holds_whole(fail_tail, b, true)
    };
    aside.iter().any(|f| {
        !f.contains(['*', '?', '[', '$'])
            && !f.starts_with("/tmp/")
            && !f.starts_with("/dev/")
            && !is_lock(f)
            && !given(f)
            && !named(f)
    })
}

/// Was a file (by its basename) given to the failing command, as an operand of any of its
/// segments?
fn given_to(fail: &CmdNorm, f: &str) -> bool {
    fail.segments
        .iter()
        .flat_map(|s| s.words.iter().skip(1))
        .any(|w| basename(w) == basename(f))
}

/// Does the failure say something is in the way (a collision), rather than naming a rule?
fn in_the_way(tail: &str) -> bool {
    let t = tail.to_ascii_lowercase();
    t.contains("file exists") || t.contains("already exists") || t.contains("eexist")
}

/// Does the failure's text ask for its files to be moved (`Please move or remove them`)?
fn asked_to_move(tail: &str) -> bool {
    tail.split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| w.eq_ignore_ascii_case("move"))
}

/// A lock or pid file: state left behind by a process, not rules.
fn is_lock(path: &str) -> bool {
    let b = basename(path).to_ascii_lowercase();
    b.ends_with(".lock") || b.ends_with(".pid") || b.ends_with(".lck") || b == "lock"
}

fn basename(path: &str) -> &str {
    path.trim_end_matches('/').rsplit('/').next().unwrap_or(path)
}

/// Does the failure's text name this file (its basename, as a word of its own)?
fn blames(tail: &str, path: &str) -> bool {
    let b = basename(path.trim_matches(['"', '\'']));
    b.len() >= 3 && b.contains('.') && crate::learn::text::names::holds_whole(tail, b, true)
}

/// A segment that removes or moves files away (`rm`, `unlink`, `git rm`, `mv`).
fn removes_files(s: &Segment) -> bool {
    matches!(s.program.as_str(), "rm" | "unlink" | "mv" | "truncate") || (s.program == "git" && s.action == "rm")
}

/// The operands of a segment (no flags, no subcommand).
fn operands(s: &Segment) -> Vec<&str> {
    let skip = if s.program == "git" { 2 } else { 1 };
    s.words
        .iter()
        .skip(skip)
        .filter(|w| !w.starts_with('-'))
        .map(String::as_str)
        .collect()
}

/// The files a step leaves empty or takes away.
fn gone_files(step: &CmdNorm, fail_tail: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in &step.segments {
        let ops = operands(s);
        match s.program.as_str() {
            "rm" | "unlink" => out.extend(ops.iter().map(|o| o.to_string())),
            // Untracking (`--cached`) keeps the file and its rules.
            "git" if s.action == "rm" && !s.words.iter().any(|w| w == "--cached") => {
                out.extend(ops.iter().map(|o| o.to_string()))
            }
            // Moved away under another name: no longer where the tool reads it. Unless the
            // failure asked for it to be moved (git's "Please move or remove them before you
            // switch branches": an untracked file in the way of a checkout): a move keeps
            // the user's file, as the tool asked; removing it (`rm`) still loses it.
            "mv" if ops.len() == 2 && basename(ops[0]) != basename(ops[1]) && !asked_to_move(fail_tail) => {
                out.push(ops[0].to_string())
            }
            "truncate" if truncates_to_zero(&s.words) => out.extend(ops.iter().skip(1).map(|o| o.to_string())),
            "cp" if ops.len() == 2 && ops[0] == "/dev/null" => out.push(ops[1].to_string()),
            _ => {}
        }
        if writes_nothing(s) {
            out.extend(overwritten(&s.redirects));
        }
    }
    out
}

/// `truncate -s 0 f` / `--size=0` / `-s0`: the first operand is then the size.
fn truncates_to_zero(words: &[String]) -> bool {
    words
        .iter()
        .zip(words.iter().skip(1))
        .any(|(a, b)| a == "-s" && b == "0")
        || words.iter().any(|w| w == "--size=0" || w == "-s0")
}

/// A segment whose output is nothing: `true`, `echo` with no words (or only `-n`),
/// `printf ''`, `cat /dev/null`.
fn writes_nothing(s: &Segment) -> bool {
    let rest: Vec<&str> = s.words.iter().skip(1).map(String::as_str).collect();
    let empty = |w: &&str| matches!(*w, "''" | "\"\"" | "");
    match s.program.as_str() {
        "true" | ":" => true,
        "echo" => rest.iter().all(|w| *w == "-n" || empty(w)),
        "printf" => !rest.is_empty() && rest.iter().all(empty),
        "cat" => rest == ["/dev/null"],
        _ => false,
    }
}

/// The files a redirect list overwrites (`>`, not `>>`).
fn overwritten(redirects: &[String]) -> Vec<String> {
    redirects
        .chunks(2)
        .filter(|p| p.len() == 2 && p[0] == ">")
        .map(|p| p[1].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    fn off(fail: &str, tail: &str, step: &str) -> bool {
        removes_blamed_file(&normalize(fail), tail, &normalize(step))
    }

    const IGNORED: &str = "The following paths are ignored by one of your .gitignore files:\nbuild/app.log\nhint: Use -f if you really want to add them.";
    const HOOKED: &str =
        "[ERROR] Your pre-commit configuration is unstaged.\n`git add .pre-commit-config.yaml` to fix this.";

    #[test]
    fn the_blamed_file_emptied_or_removed_is_a_check_switched_off() {
        for step in [
            ": > .gitignore",
            "> .gitignore",
            "true > .gitignore",
            "echo -n > .gitignore",
            "printf '' > .gitignore",
            "cat /dev/null > .gitignore",
            "cp /dev/null .gitignore",
            "truncate -s 0 .gitignore",
            "rm .gitignore",
            "rm -f ./.gitignore",
            "git rm -q .gitignore",
            "mv .gitignore .gitignore.bak",
            "rm .gitignore && git add build/app.log",
        ] {
            assert!(off("git add build/app.log", IGNORED, step), "{step}");
        }
        assert!(off("git commit -m wip", HOOKED, "rm .pre-commit-config.yaml"));
    }

    #[test]
    fn a_file_in_the_way_a_lock_or_the_commands_own_target_is_not() {
        let lock =
            "fatal: Unable to create '/w/.git/index.lock': File exists.\n\nAnother git process seems to be running";
        assert!(!off("git commit -m x", lock, "rm .git/index.lock"), "a stale lock");
        assert!(
            !off(
                "git commit -m x",
                "fatal: cannot lock ref: /w/.git/refs/heads/main.lock",
                "rm -f .git/refs/heads/main.lock"
            ),
            "a lock, even unsaid"
        );
        let exists = "ln: failed to create symbolic link 'current.conf': File exists";
        assert!(
            !off("ln -s v2.conf current.conf", exists, "rm current.conf"),
            "in the way"
        );
        let dir = "rm: cannot remove 'build.d': Is a directory";
        assert!(!off("rm build.d", dir, "rm -r build.d"), "removing it was the intent");
        let named = "Helpers.java:3: error: class Util is public, should be declared in a file named Util.java";
        assert!(
            !off("javac -d out Helpers.java", named, "mv Helpers.java Util.java"),
            "the command's own input renamed"
        );
        // Moved aside where the failure asks for it: the user's file kept. Removed, lost.
        let untracked = "error: The following untracked working tree files would be overwritten by checkout:\n\tscripts/dev-setup.sh\nPlease move or remove them before you switch branches.\nAborting";
        assert!(!off(
            "git switch hotfix",
            untracked,
            "mv scripts/dev-setup.sh scripts/dev-setup.sh.mine"
        ));
        assert!(off("git switch hotfix", untracked, "rm -f scripts/dev-setup.sh"));
    }

    #[test]
    fn a_file_the_failure_did_not_blame_or_one_written_with_content_is_not() {
        assert!(!off("git add build/app.log", IGNORED, "rm notes.txt"), "not named");
        assert!(
            !off("git add build/app.log", IGNORED, "git rm --cached .gitignore"),
            "untracked, still read"
        );
        assert!(
            !off("git add build/app.log", IGNORED, "echo '!build/app.log' >> .gitignore"),
            "appended: an edit"
        );
        assert!(
            !off("git add build/app.log", IGNORED, "echo 'node_modules/' > .gitignore"),
            "written with content: an edit, not an emptying"
        );
        assert!(
            !off("git add build/app.log", IGNORED, "cp .gitignore .gitignore.bak"),
            "a copy"
        );
        assert!(
            !off("make", "make: *** No rule to make target 'all'.  Stop.", "rm all"),
            "no file name with a dot"
        );
        // A word that only contains the name is not the name.
        assert!(!off("tool x", "error in my.gitignore.d", "rm .gitignore"));
    }

    fn unnamed(fail: &str, tail: &str, step: &str) -> bool {
        removes_unnamed_file(&normalize(fail), tail, &normalize(step))
    }

    #[test]
    fn a_file_nobody_named_taken_away_is_a_setting_switched_off() {
        let pin = "error: toolchain 'nightly-2026-01-05-x86_64-unknown-linux-gnu' is not installed";
        for step in [
            "rm rust-toolchain.toml",
            "rm -f ./rust-toolchain.toml",
            "mv rust-toolchain.toml rust-toolchain.toml.bak",
        ] {
            assert!(unnamed("cargo build", pin, step), "{step}");
        }
        assert!(unnamed(
            "npm ci",
            "npm error `npm ci` can only install packages when your package.json and lock file are in sync",
            "rm -f package-lock.json"
        ));
    }

    #[test]
    fn what_an_honest_session_removes_is_not() {
        let fail = "make: *** [Makefile:4: server] Error 1";
        assert!(!unnamed("make", fail, "rm -r build"), "a directory");
        assert!(!unnamed("make", fail, "rm -rf build"), "a directory");
        assert!(!unnamed("make", fail, "rm src/*.o"), "output by pattern");
        assert!(!unnamed("make", fail, "rm -f /tmp/cc.lst"), "a temporary file");
        assert!(
            !unnamed(
                "git commit -m x",
                "fatal: cannot lock ref",
                "rm -f .git/refs/heads/main.lock"
            ),
            "a lock"
        );
        // Written beside and moved onto the command's input: the input rewritten.
        assert!(!unnamed(
            "python3 tools/billing.py",
            "TabError: inconsistent use of tabs and spaces in indentation",
            "mv tools/billing.py.tmp tools/billing.py"
        ));
        // The command's own input, and a file the failure names, are judged elsewhere.
        assert!(!unnamed(
            "sqlite3 app.db .tables",
            "Error: database is locked",
            "rm app.db"
        ));
        assert!(!unnamed(
            "ln -s a b",
            "ln: failed to create symbolic link 'b': File exists",
            "rm b"
        ));
    }
}
