//! How a failure's episode ends — recovered by steps, a variant, another context, the
//! intent done another way; flaky; moved on — on small histories (its own file: the
//! episodes' file is at its size limit).

use crate::learn::history::episodes::tests::{eps, rec};
use crate::learn::history::episodes::*;

#[test]
fn recovered_by_steps() {
    let h = vec![
        rec("s", "git push", false, "! [rejected] main -> main (fetch first)"),
        rec("s", "git status", true, "On branch main"),
        rec("s", "git pull --rebase", true, "Successfully rebased"),
        rec("s", "git push", true, "main -> main"),
    ];
    let e = eps(&h);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].outcome, Outcome::Recovered);
    assert_eq!(e[0].steps.len(), 1);
    assert_eq!(e[0].steps[0].text, "git pull --rebase");
    assert_eq!(e[0].fix_key(), "steps:git pull --rebase");
    assert_eq!(e[0].retry_idx, Some(3));
}

#[test]
fn recovered_in_one_chain_and_by_variant() {
    let h = vec![
        rec("a", "git push origin feature", false, "! [rejected] non-fast-forward"),
        rec("a", "git pull --rebase && git push", true, "Everything up-to-date"),
        rec("b", "docker build -t app .", false, "ERROR: failed to solve: timeout"),
        rec("b", "docker build --network=host -t app .", true, "Successfully built"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].outcome, Outcome::Recovered);
    assert_eq!(e[0].fix_key(), "steps:git pull --rebase");
    assert_eq!(e[1].outcome, Outcome::Recovered);
    assert_eq!(e[1].variant, vec!["--network=host".to_string()]);
}

#[test]
fn a_changed_context_is_a_fix() {
    let h = vec![
        rec(
            "a",
            "python3 -m app.cli",
            false,
            "ModuleNotFoundError: No module named 'app'",
        ),
        rec("a", "PYTHONPATH=src python3 -m app.cli", true, "ok"),
        rec(
            "b",
            "npm run build",
            false,
            "npm error enoent Could not read package.json",
        ),
        rec("b", "cd web && npm run build", true, "built"),
        rec("c", "make test", false, "make: *** [test] Error 1"),
        rec("c", "sleep 1 && make test", true, "ok"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].outcome, Outcome::Recovered);
    assert_eq!(e[0].variant, vec!["PYTHONPATH=src".to_string()]);
    assert_eq!(e[0].fix_key(), "variant:PYTHONPATH=<v>");
    assert_eq!(e[1].variant, vec!["cd web".to_string()]);
    assert_eq!(e[1].fix_key(), "variant:cd <v>");
    assert_eq!(e[2].outcome, Outcome::Flaky, "sleep is not a context");
    assert!(context_added("cd web && make", "cd web && make").is_empty());
}

#[test]
fn flaky_moved_on_unresolved() {
    let h = vec![
        rec("a", "pytest tests/", false, "FAILED test_x - AssertionError"),
        rec("a", "pytest tests/", false, "FAILED test_x - AssertionError"),
        rec("a", "ls", true, ""),
        rec("a", "sleep 5 && pytest tests/", true, "1 passed"),
        rec("b", "python app.py", false, "ModuleNotFoundError: No module named 'x'"),
        rec("b", "pip install x", true, "Successfully installed x"),
        rec("c", "cargo build", false, "error[E0432]"),
    ];
    let e = eps(&h);
    assert_eq!(e.len(), 3, "two attempts of pytest are one episode");
    assert_eq!(e[0].outcome, Outcome::Flaky);
    assert_eq!(e[0].attempts.len(), 2);
    assert_eq!(e[1].outcome, Outcome::MovedOn);
    assert_eq!(e[1].fix_key(), "steps:python install");
    assert_eq!(e[2].outcome, Outcome::Unresolved);
}

#[test]
fn recovery_by_intent() {
    let fail = |s: &str, c: &str, t: &str| rec(s, c, false, t);
    let h = vec![
        // Other flags / arguments.
        fail("a", "cargo test --lib", "error: could not find `Cargo.toml`"),
        rec("a", "cargo test --manifest-path crates/core/Cargo.toml", true, "ok"),
        // Wrappers: `-C`, `--prefix`, `cd X &&`, `PYTHONPATH=.`.
        fail("b", "make test", "make: *** No rule to make target 'test'.  Stop."),
        rec("b", "make -C sub test", true, "ok"),
        fail("c", "npm run build", "npm error enoent Could not read package.json"),
        rec("c", "npm --prefix web run build", true, "built"),
        fail("d", "npm run build", "npm error enoent Could not read package.json"),
        rec("d", "cd web && npm run build", true, "built"),
        fail("e", "python3 -m app", "ModuleNotFoundError: No module named 'app'"),
        rec("e", "export PYTHONPATH=. && python3 -m app", true, "ok"),
        // A program substituted, under `-m` (both normalise to `unittest`).
        fail("f", "python -m unittest", "bash: python: command not found"),
        rec("f", "python3 -m unittest", true, "OK"),
        // A substitute after a listing step.
        fail("g", "make test", "make: *** No rule to make target 'test'.  Stop."),
        rec("g", "make help", true, "targets: check build"),
        rec("g", "make check", true, "ok"),
        // A flag dropped is not an unchanged retry.
        fail("h", "cargo fmt --check", "Diff in src/lib.rs"),
        rec("h", "cargo fmt", true, ""),
        fail("i", "cargo fmt -- --check", "Diff in src/lib.rs"),
        rec("i", "cargo fmt", true, ""),
    ];
    let e = eps(&h);
    let key = |s: &str| {
        let ep = e.iter().find(|x| h[x.fail_idx].session == s).unwrap();
        assert_eq!(ep.outcome, Outcome::Recovered, "{s}: {ep:#?}");
        ep.fix_key()
    };
    assert_eq!(key("a"), "variant:cd <v>");
    for s in ["b", "c", "d"] {
        assert_eq!(key(s), "variant:cd <v>", "every directory wrapper is one fix");
    }
    assert_eq!(key("e"), "variant:PYTHONPATH=<v>");
    assert_eq!(key("f"), "substitution:python3");
    assert_eq!(key("g"), "substitute:make help");
    assert_eq!(key("h"), "variant:without:--check");
    assert_eq!(key("i"), "variant:without:--check", "`--` is no flag dropped");
}

#[test]
fn another_verb_on_the_same_operands_is_the_intent_done() {
    let h = vec![
        rec(
            "a",
            "git remote add origin ~/r/x.git",
            false,
            "error: remote origin already exists.",
        ),
        rec("a", "git remote set-url origin ~/r/x.git", true, ""),
        rec("a", "git push origin main", true, "main -> main"),
        // … but a fix step on the same operands is no substitute when the failing
        // action itself passes later.
        rec(
            "b",
            "git push origin main",
            false,
            "! [rejected] main -> main (fetch first)",
        ),
        rec("b", "git pull --rebase origin main", true, "Successfully rebased"),
        rec("b", "git push origin main", true, "main -> main"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].outcome, Outcome::Recovered, "{:#?}", e[0]);
    assert_eq!(e[0].fix_key(), "verb:git remote set-url");
    assert_eq!(e[1].fix_key(), "steps:git pull --rebase");
    assert!(e[1].verb.is_none());
}

#[test]
fn typos_and_flaky_are_judged_on_raw_words() {
    let h = vec![
        // A typo corrected is no substitution (and no recovery of `pyhton`).
        rec("a", "pyhton3 app.py", false, "bash: pyhton3: command not found"),
        rec("a", "python3 app.py", true, "ok"),
        // Inspection in between (`git fsck`) changes nothing: the retry is flaky.
        rec(
            "b",
            "git commit -m x",
            false,
            "fatal: Unable to create '.git/index.lock': File exists.",
        ),
        rec("b", "git fsck", true, "Checking object directories"),
        rec("b", "git commit -m x", true, "[main 1] x"),
    ];
    let e = eps(&h);
    assert_ne!(e[0].outcome, Outcome::Recovered, "{:#?}", e[0]);
    assert!(e[0].substitute.is_none());
    assert_eq!(e[0].raw_program, "pyhton3");
    assert_eq!(e[1].outcome, Outcome::Flaky, "{:#?}", e[1]);
    assert!(e[1].steps.is_empty());
}

#[test]
fn one_class_across_subcommands() {
    let nf = "error: could not find `Cargo.toml` in `/w` or any parent directory";
    let h = vec![
        rec("a", "cargo build", false, nf),
        rec("b", "cargo test --lib", false, nf),
    ];
    let p = Prepared::new(&h);
    assert_eq!(p.cluster_key(0), p.cluster_key(1));
}

#[test]
fn sessions_do_not_mix() {
    let h = vec![
        rec("a", "git push", false, "! [rejected] (fetch first)"),
        rec("b", "git push", true, "ok"),
    ];
    assert_eq!(eps(&h)[0].outcome, Outcome::Unresolved);
}

#[test]
fn a_download_kept_as_a_file_is_a_step_not_a_plain_retry() {
    // The file the check failed on fetched again, then the check passed: a fix step, never
    // "the same command passing" (which would count as the failure clearing by itself).
    let fail = "vendor/libfoo.tar.gz: FAILED\nsha256sum: WARNING: 1 computed checksum did NOT match";
    let h = vec![
        rec("a", "sha256sum -c SHA256SUMS", false, fail),
        rec(
            "a",
            "curl -fsSL -o vendor/libfoo.tar.gz http://mirror/libfoo.tar.gz",
            true,
            "",
        ),
        rec("a", "sha256sum -c SHA256SUMS", true, "vendor/libfoo.tar.gz: OK"),
        // A page fetched to look at, then the same check: a look between, a plain retry.
        rec("b", "sha256sum -c SHA256SUMS", false, fail),
        rec("b", "curl -s http://mirror/", true, "<html>"),
        rec("b", "sha256sum -c SHA256SUMS", true, "vendor/libfoo.tar.gz: OK"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].outcome, Outcome::Recovered, "{:#?}", e[0]);
    assert!(!e[0].plain_retry);
    assert!(e[0].steps[0].text.starts_with("curl -fsSL -o"), "{:#?}", e[0].steps);
    assert_eq!(e[1].outcome, Outcome::Flaky);
    assert!(e[1].plain_retry);
}

/// A link that needs a library built in `lib` ([`crate::learn::history::elsewhere_first`]).
const LINK: &str = "cc -o tiles main.c -Llib -lgeo\n/usr/bin/ld: cannot find -lgeo: No such file or directory\ncollect2: error: ld returned 1 exit status";

#[test]
fn the_run_elsewhere_then_here_is_a_step_then_the_retry() {
    for step in ["make -C lib", "make --directory=lib", "cd lib && make"] {
        let h = vec![
            rec("a", "make", false, LINK),
            rec("a", step, true, "ar rcs libgeo.a geo.o"),
            rec("a", "make", true, "cc -o tiles main.c -Llib -lgeo"),
        ];
        let e = eps(&h);
        assert_eq!(e[0].outcome, Outcome::Recovered, "{step}: {:#?}", e[0]);
        assert_eq!(e[0].retry_idx, Some(2), "{step}: {:#?}", e[0]);
        assert_eq!(e[0].steps.len(), 1, "{step}: {:#?}", e[0]);
        assert!(e[0].variant.is_empty(), "{step}: {:#?}", e[0]);
    }
}

#[test]
fn a_run_elsewhere_that_stands_is_still_the_retry() {
    // The folder was the fix: nothing ran here again.
    let h = vec![
        rec("a", "npm test", false, "npm ERR! enoent Could not read package.json"),
        rec("a", "npm --prefix web test", true, "1 passing"),
        rec("a", "git status", true, "clean"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].retry_idx, Some(1), "{:#?}", e[0]);
    // Run here again but failing between: the folder run stays the retry.
    let h = vec![
        rec("b", "make", false, LINK),
        rec("b", "make -C lib", true, "ar rcs libgeo.a geo.o"),
        rec("b", "make", false, LINK),
        rec("b", "make", true, "ok"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].retry_idx, Some(1), "{:#?}", e[0]);
}

#[test]
fn the_option_the_failure_named_set_in_any_spelling_is_one_fix() {
    let asked = "can't find file to patch at input line 3\nPerhaps you used the wrong -p or --strip option?";
    let h = vec![
        rec("a", "patch -p0 < fix.diff", false, asked),
        rec("a", "patch -p1 < fix.diff", true, "patching file src/a.py"),
        rec("b", "patch < null.patch", false, asked),
        rec("b", "patch -p1 -i null.patch", true, "patching file lib/u.js"),
        rec("c", "patch -p0 -i usage.patch", false, asked),
        rec("c", "patch --strip=1 < usage.patch", true, "patching file docs/u.md"),
    ];
    let e = eps(&h);
    let keys: Vec<String> = e.iter().map(Episode::fix_key).collect();
    assert_eq!(keys, vec![crate::learn::history::fix_key::OPTIONS; 3], "{e:#?}");
    assert_eq!(e[2].variant, vec!["--strip=1".to_string()]);
}

#[test]
fn a_build_in_another_folder_is_one_step_however_the_folder_and_the_file_are_named() {
    let missing =
        "/usr/bin/ld: cannot find -lgeo: No such file or directory\ncollect2: error: ld returned 1 exit status";
    let key = |step: &str| {
        let h = vec![
            rec("a", "make", false, missing),
            rec("a", step, true, "make: Entering directory '/p/lib'"),
            rec("a", "make", true, "cc -o tiles main.c -Llib -lgeo"),
        ];
        eps(&h)[0].fix_key()
    };
    let default = key("make -C lib");
    assert_eq!(default, "steps:make all cd <v>");
    assert_eq!(key("make --directory=lib"), default);
    assert_eq!(key("make -C lib libgeo.a"), default);
    // A target that is no file is another action there.
    assert_ne!(key("make -C lib install"), default);
}

#[test]
fn the_failing_program_fed_a_file_between_is_a_step_run_on_another_subject_is_not() {
    let column = "Error: in prepare, no such column: email";
    let h = vec![
        rec("a", "sqlite3 app.db 'SELECT id, email FROM users'", false, column),
        rec(
            "a",
            "sqlite3 app.db '.schema users'",
            true,
            "CREATE TABLE users(id INTEGER);",
        ),
        rec("a", "sqlite3 app.db < migrations/003_add_email.sql", true, ""),
        rec("a", "sqlite3 app.db 'SELECT id, email FROM users'", true, "1|n/a"),
        rec("b", "pytest tests/test_a.py", false, "FAILED tests/test_a.py::test_x"),
        rec("b", "pytest tests/test_b.py", true, "1 passed"),
        rec("b", "pytest tests/test_a.py", true, "1 passed"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].outcome, Outcome::Recovered, "{:#?}", e[0]);
    assert_eq!(e[0].retry_idx, Some(3), "a look at the schema is no retry");
    assert_eq!(e[0].steps.len(), 1, "{:#?}", e[0]);
    assert_eq!(e[0].fix_key(), "steps:sqlite");
    assert!(
        e[1].steps.is_empty(),
        "another test file run is no fix step: {:#?}",
        e[1]
    );
}

#[test]
fn a_config_step_is_known_by_the_setting_it_sets() {
    let refused = "remote: error: refusing to update checked out branch: refs/heads/main\nremote: You can set the 'receive.denyCurrentBranch' configuration variable";
    let h = vec![
        rec("a", "git push", false, refused),
        rec(
            "a",
            "git -C ../deploy config receive.denyCurrentBranch updateInstead",
            true,
            "",
        ),
        rec("a", "git push", true, "main -> main"),
        rec("b", "git push", false, refused),
        rec("b", "git -C ../www config core.bare true", true, ""),
        rec("b", "git push", true, "main -> main"),
        rec("c", "git push", false, refused),
        rec("c", "git -C ../site config receive.denyCurrentBranch ignore", true, ""),
        rec("c", "git push", true, "main -> main"),
    ];
    let e = eps(&h);
    assert_ne!(e[0].fix_key(), e[1].fix_key(), "another setting is another fix");
    assert!(
        e[0].fix_key().contains("setting:receive.denycurrentbranch"),
        "{}",
        e[0].fix_key()
    );
    // The guard the failure named told to let through what it stops: unsafe.
    assert_eq!(e[0].unsafe_fix, None);
    assert!(e[2].unsafe_fix.is_some(), "{:#?}", e[2]);
}

#[test]
fn a_look_at_the_tool_is_no_retry_and_dot_slash_is_no_folder() {
    let h = vec![
        rec("a", "cargo test", false, "test tests::rows ... FAILED"),
        rec("a", "cargo test -- --list", true, "tests::rows: test"),
        rec("a", "cargo test -- --test-threads=1", true, "test result: ok"),
        rec(
            "b",
            "tar xzf site.tgz index.html",
            false,
            "tar: index.html: Not found in archive",
        ),
        rec("b", "tar xzf site.tgz ./index.html", true, ""),
    ];
    let e = eps(&h);
    assert_eq!(e[0].retry_idx, Some(2), "{:#?}", e[0]);
    assert_eq!(e[1].fix_key(), "variant:insert:<v>", "{:#?}", e[1]);
}

/// The input fed through a pipe by a step that read it, the retry the failing command
/// without it: converted on the way in. Another file, or more changed, is not.
#[test]
fn an_input_converted_on_the_way_in_through_a_pipe() {
    let gz = "parse error: Invalid numeric literal at EOF at line 1, column 8";
    let h = vec![
        rec("a", "jq -r '.[] | .type' events.json.gz", false, gz),
        rec("a", "zcat events.json.gz | jq -r '.[] | .type'", true, "signup"),
        rec("b", "jq length export.json.gz", false, gz),
        rec("b", "gunzip -k export.json.gz && jq length export.json", true, "4"),
        rec("c", "jq -r .type events.json.gz", false, gz),
        rec("c", "zcat other.json.gz | jq -r .type", true, "signup"),
    ];
    let p = Prepared::new(&h);
    let e = extract(&h, &p, WINDOW);
    assert!(e[0].converted && e[1].converted, "{e:#?}");
    assert!(!e[2].converted, "another file fed in: {:#?}", e[2]);
    // Piped into the retry, the step is the retry's input: no one-shot chain.
    assert!(!e[0].one_shot(&p));
    assert!(e[1].one_shot(&p));
}

/// The failing command run on a file a step wrote from its input (a dump loaded into a new
/// database, by `<` or through a pipe): the retry, a conversion, and the failing program's
/// own run that wrote it a fix step, never a name looked up.
#[test]
fn the_failing_command_run_on_the_file_a_step_wrote_from_its_input() {
    let not_db = "Error: in prepare, file is not a database (26)";
    let h = vec![
        rec(
            "a",
            "sqlite3 backup.sql 'SELECT count(*) FROM customers'",
            false,
            not_db,
        ),
        rec("a", "sqlite3 restored.db < backup.sql", true, ""),
        rec("a", "sqlite3 restored.db 'SELECT count(*) FROM customers'", true, "3"),
        rec("b", "sqlite3 -header snap.sql 'SELECT * FROM events'", false, not_db),
        rec("b", "cat snap.sql | sqlite3 snap.db", true, ""),
        rec("b", "sqlite3 -header snap.db 'SELECT * FROM events'", true, "id|name"),
    ];
    let e = eps(&h);
    for x in &e {
        assert_eq!(x.outcome, Outcome::Recovered, "{x:#?}");
        assert!(x.converted, "{x:#?}");
        assert_eq!(x.steps.len(), 1, "{x:#?}");
    }
    assert_eq!(e[0].retry_idx, Some(2));
    assert_eq!(e[0].fix_key(), e[1].fix_key());
}

/// A short flag spelt for an unsafe long one the same class showed
/// ([`crate::learn::history::short_spelling`]).
#[test]
fn a_short_flag_is_unsafe_where_its_long_name_was_in_the_same_class() {
    let used = "fatal: 'main' is already used by worktree at '/w/app'";
    let h = vec![
        rec("a", "git worktree add ../hotfix main", false, used),
        rec("a", "git worktree add --force ../hotfix main", true, ""),
        rec("b", "git worktree add ../tests main", false, used),
        rec("b", "git worktree add -f ../tests main", true, ""),
        rec("c", "git worktree add ../bench main", false, used),
        rec("c", "git worktree add -d ../bench main", true, ""),
        // The tool's text prescribes `-f`: left as it was.
        rec(
            "e",
            "git add app.log",
            false,
            "app.log\nhint: Use -f if you really want to add them.",
        ),
        rec("e", "git add --force app.log", true, ""),
        rec(
            "f",
            "git add notes.log",
            false,
            "notes.log\nhint: Use -f if you really want to add them.",
        ),
        rec("f", "git add -f notes.log", true, ""),
        // Another program's `-f` reads a file: no long name seen unsafe for it.
        rec("d", "jq . notes.jq", false, "jq: error: notes/0 is not defined"),
        rec("d", "jq -f notes.jq data.json", true, "{}"),
    ];
    let p = Prepared::new(&h);
    let e = extract(&h, &p, WINDOW);
    assert!(e[0].unsafe_fix.is_some(), "--force: {:#?}", e[0]);
    assert_eq!(e[1].unsafe_fix, e[0].unsafe_fix, "-f spells it: {:#?}", e[1]);
    assert!(e[2].unsafe_fix.is_none(), "-d is another letter: {:#?}", e[2]);
    assert!(e[3].unsafe_fix.is_some(), "--force: {:#?}", e[3]);
    assert!(e[4].unsafe_fix.is_none(), "prescribed by the tool: {:#?}", e[4]);
    assert!(e[5].unsafe_fix.is_none(), "jq's -f: {:#?}", e[5]);
}

/// dev7's `timeout-limit-too-short`: `timeout 2 ./seed.sh` killed (status 124, no error of
/// the script's own), retried under a longer limit. Normalisation drops the wrapper and its
/// duration, so the retry read as the same command run again (flaky), and the failure had
/// no text but each script's progress lines. The limit is the change; `timeout`'s 124 is
/// the failure's text.
#[test]
fn a_longer_time_limit_is_the_fix_of_a_command_timeout_killed() {
    let mut h = Vec::new();
    for (s, script, limit) in [
        ("a", "./scripts/seed-db.sh", "timeout 30"),
        ("b", "./scripts/warm-cache.sh", "timeout 60s"),
        ("c", "./tools/sync.sh", "timeout -k 5 120"),
    ] {
        let mut fail = rec(s, &format!("timeout 2 {script}"), false, "batch 1/4\nbatch 2/4");
        fail.exit = Some(124);
        h.push(fail);
        h.push(rec(s, &format!("{limit} {script}"), true, "done"));
    }
    let p = Prepared::new(&h);
    let e = eps(&h);
    for x in &e {
        assert_eq!(x.outcome, Outcome::Recovered, "{x:#?}");
        assert_eq!(x.fix_key(), "variant:timeout <v>", "{x:#?}");
        assert_eq!(p.sigs[x.fail_idx].primary(), Some("timeout"), "{x:#?}");
    }
    assert_eq!(e[2].variant, vec!["timeout -k 5 120".to_string()]);
    // Status 124 from anything but `timeout` is that program's own.
    assert!(!crate::learn::text::wrappers::timed_out("./seed.sh", Some(124)));
    assert!(!crate::learn::text::wrappers::timed_out("timeout 2 ./seed.sh", Some(1)));
}

#[test]
fn a_path_the_shell_now_expands_is_one_fix_however_written() {
    let gone = |p: &str| format!("FileNotFoundError: [Errno 2] No such file or directory: '{p}'");
    let h = vec![
        rec("a", "python3 r.py --input \"~/x/a.csv\"", false, &gone("~/x/a.csv")),
        rec("a", "python3 r.py --input ~/x/a.csv", true, "read 3 lines"),
        rec("b", "python3 c.py \"~/raw/e.jsonl\" -n", false, &gone("~/raw/e.jsonl")),
        rec("b", "ls ~/raw", true, "e.jsonl"),
        rec("b", "python3 c.py \"$HOME/raw/e.jsonl\" -n", true, "read 4 lines"),
        // Retried as typed: the quoting did not change, nothing was fixed.
        rec("c", "python3 r.py \"~/y.csv\"", false, &gone("~/y.csv")),
        rec("c", "python3 r.py \"~/y.csv\"", true, "read 1 line"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].outcome, Outcome::Recovered);
    assert_eq!(e[0].variant, vec!["expand:~/x/a.csv".to_string()]);
    assert_eq!(e[0].fix_key(), "variant:expand:<v>");
    // The name the look printed is not the change: the shell's reading of the path is.
    assert_eq!(e[1].outcome, Outcome::Recovered);
    assert_eq!(e[1].fix_key(), "variant:expand:<v>");
    assert!(e[1].steps.is_empty());
    assert_eq!(e[2].outcome, Outcome::Flaky);
}

#[test]
fn an_assignment_after_envs_own_flags_is_context() {
    let h = vec![
        rec("a", "env -i make test", false, "make: cc: No such file or directory"),
        rec("a", "env -i PATH=/usr/bin make test", true, "ok"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].outcome, Outcome::Recovered);
    assert_eq!(e[0].variant, vec!["PATH=/usr/bin".to_string()]);
}

#[test]
fn a_runners_own_options_are_context_a_bare_runner_a_substitute() {
    let h = vec![
        rec(
            "a",
            "sudo -u postgres psql -c 'select 1'",
            false,
            "psql: error: connection refused",
        ),
        rec("a", "sudo -u app psql -c 'select 1'", true, "1"),
        rec("b", "npx tsc", false, "error TS5058: The specified path does not exist"),
        rec("b", "npx -p typescript@5 tsc", true, "ok"),
        rec("c", "pytest -q", false, "ModuleNotFoundError: No module named 'httpx'"),
        rec("c", "uv run pytest -q", true, "3 passed"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].fix_key(), "variant:via:sudo -u <v>");
    assert_eq!(e[1].fix_key(), "variant:via:npx -p <v>");
    assert_eq!(e[2].fix_key(), "substitution:<env>/bin/<self>");
}

#[test]
fn sudo_dropped_is_its_own_fix_and_makes_variables_are_no_target() {
    let missing = "bash: line 1: sudo: command not found";
    let h = vec![
        rec("a", "sudo make install PREFIX=$HOME/.local", false, missing),
        rec("a", "make install PREFIX=$HOME/.local", true, "installed"),
        rec("b", "sudo chmod 600 ~/.ssh/key", false, missing),
        rec("b", "whoami && chmod 600 ~/.ssh/key", true, "root"),
        // A variable set on make's command line: the same target, a changed setting.
        rec(
            "c",
            "make",
            false,
            "main.cpp:3:10: error: 'span' is not a member of 'std'",
        ),
        rec("c", "make CXXFLAGS+=-std=c++20", true, "g++ -std=c++20 -o app main.cpp"),
    ];
    let e = eps(&h);
    assert_eq!(e[0].fix_key(), "variant:unwrapped:sudo");
    assert_eq!(e[1].fix_key(), "variant:unwrapped:sudo");
    assert_eq!(e[2].outcome, Outcome::Recovered);
    assert_eq!(e[2].fix_key(), "variant:CXXFLAGS=<v>");
}

#[test]
fn a_flag_added_to_a_cluster_after_a_look_is_no_name_looked_up() {
    let h = vec![
        rec("a", "unzip -q f.zip -d vendor/f", false, "replace vendor/f/a.ttf? [y]es, [n]o, [A]ll, [N]one, [r]ename: NULL\n(EOF or read error, treating as \"[N]one\" ...)"),
        rec("a", "ls vendor/f", true, "a.ttf"),
        rec("a", "unzip -oq f.zip -d vendor/f", true, ""),
    ];
    let e = eps(&h);
    assert_eq!(e[0].outcome, Outcome::Recovered);
    assert_eq!(e[0].fix_key(), "variant:<options changed>");
    assert!(e[0].looked.is_none());
}

/// A target's options are its program's: `make -i test` spells the `--ignore-errors`
/// another session gave `make check` ([`crate::learn::history::short_spelling`]).
#[test]
fn a_short_flag_of_make_is_judged_whichever_target_it_was_given_with() {
    let stale = |t: &str| format!("app: protocol mismatch: client speaks v4\nmake: *** [Makefile:11: {t}] Error 1");
    let h = vec![
        rec("a", "make check", false, &stale("check")),
        rec("a", "make --ignore-errors check", true, ""),
        rec("b", "make test", false, &stale("test")),
        rec("b", "make -i test", true, ""),
        rec("c", "make test", false, &stale("test")),
        rec("c", "make -B test", true, ""),
    ];
    let p = Prepared::new(&h);
    let e = extract(&h, &p, WINDOW);
    assert!(e[0].unsafe_fix.is_some(), "--ignore-errors: {:#?}", e[0]);
    assert_eq!(e[1].unsafe_fix, e[0].unsafe_fix, "-i spells it: {:#?}", e[1]);
    assert!(e[2].unsafe_fix.is_none(), "-B is another letter: {:#?}", e[2]);
}
