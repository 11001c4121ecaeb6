//! Kind-of-change agreement, through the candidates it builds: one kind of change spelt
//! several ways is one fix ([`crate::learn::history::fix_key::OPTIONS`]); opposite
//! choices still contest; a step inserted by hand agrees with the flag whose name spells
//! it (`git stash` / `--autostash`). (Its own file: the candidates' file is at its size limit.)

use crate::learn::history::episodes::tests::rec;
use crate::learn::history::episodes::{extract, Prepared, WINDOW};
use crate::learn::propose::candidates::{build, Candidate};

fn cands(h: &[crate::evidence::Record]) -> Vec<Candidate> {
    let p = Prepared::new(h);
    let e = extract(h, &p, WINDOW);
    build(&e, &p, true)
}

#[test]
fn one_kind_of_change_spelt_three_ways_agrees_and_names_the_others() {
    // `cp -r`, `-R`, `-a`: before, three fixes of one class contesting each other (2
    // of 4 < 3/4). One flag added is one kind of change: every session supports one
    // candidate, the most common spelling is said, the others are named.
    let cp = "cp: -r not specified; omitting directory 'x'";
    let mut h = Vec::new();
    for (s, flag) in [("a", "-r"), ("b", "-R"), ("c", "-r"), ("d", "-a")] {
        h.push(rec(s, &format!("cp d{s} out/d{s}"), false, cp));
        h.push(rec(s, &format!("cp {flag} d{s} out/d{s}"), true, ""));
    }
    let c = cands(&h);
    let fixes: Vec<&Candidate> = c
        .iter()
        .filter(|c| c.directive_cmds.iter().any(|d| d.starts_with("cp ")))
        .collect();
    assert_eq!(fixes.len(), 1, "{c:#?}");
    let f = fixes[0];
    assert_eq!(f.episodes.len(), 4);
    assert_eq!(
        (f.covered, f.recovered_in_cluster, f.fix_keys_in_cluster),
        (Some(4), 4, 1)
    );
    // Equally common spellings: the most recent first.
    assert_eq!(f.directive, "retry `cp` with `-r` (also seen: `-a`, `-R`)");
}

#[test]
fn opposite_choices_still_contest() {
    // `--rebase` against `--no-rebase`: two choices, not two spellings of one.
    let msg = "fatal: Need to specify how to reconcile divergent branches.";
    let mut h = Vec::new();
    for (s, flag) in [
        ("a", "--rebase"),
        ("b", "--no-rebase"),
        ("c", "--rebase"),
        ("d", "--no-rebase"),
    ] {
        h.push(rec(s, "git pull origin main", false, msg));
        h.push(rec(s, &format!("git pull {flag} origin main"), true, "ok"));
    }
    let c = cands(&h);
    let fixes: Vec<&Candidate> = c
        .iter()
        .filter(|c| c.covered.is_some() && !c.key.ends_with("template"))
        .collect();
    assert_eq!(fixes.len(), 2, "{c:#?}");
    assert!(
        fixes.iter().all(|f| f.covered == Some(2) && f.fix_keys_in_cluster == 2),
        "{fixes:#?}"
    );
}

#[test]
fn a_step_inserted_by_hand_agrees_with_the_flag_that_does_it() {
    // Three sessions retry with `--autostash`, one stashes by hand around the same retry:
    // before, two fixes of one class (3 of 4 covered, the stash session on a contested
    // rule of its own). The flag's name spells the step it automates: one fix, the
    // other way named.
    let msg = "error: cannot pull with rebase: You have unstaged changes.";
    let mut h = Vec::new();
    for s in ["a", "b", "c"] {
        h.push(rec(s, "git pull --rebase", false, msg));
        h.push(rec(s, "git pull --rebase --autostash", true, "ok"));
    }
    h.push(rec("d", "git pull --rebase origin main", false, msg));
    h.push(rec("d", "git stash", true, "Saved working directory"));
    h.push(rec("d", "git pull --rebase origin main", true, "ok"));
    h.push(rec("d", "git stash pop", true, "ok"));
    let c = cands(&h);
    let f = c
        .iter()
        .find(|c| c.directive.contains("--autostash"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!(f.episodes.len(), 4, "{f:#?}");
    assert_eq!(f.covered, Some(4));
    assert_eq!(
        f.directive,
        "retry `git pull` with `--autostash` (or: `git stash` before it, `git stash pop` after)"
    );
}

#[test]
fn another_programs_step_or_a_flag_that_does_not_spell_it_stays_apart() {
    // `mkdir out` before `make` is no `make` flag; `git fetch` is not spelt in
    // `--autostash`: each stays its own fix and the flag covers only its own sessions.
    let msg = "error: cannot pull with rebase: You have unstaged changes.";
    let mut h = Vec::new();
    for s in ["a", "b", "c"] {
        h.push(rec(s, "git pull --rebase", false, msg));
        h.push(rec(s, "git pull --rebase --autostash", true, "ok"));
    }
    h.push(rec("d", "git pull --rebase", false, msg));
    h.push(rec("d", "git fetch origin", true, "ok"));
    h.push(rec("d", "git pull --rebase", true, "ok"));
    let c = cands(&h);
    let f = c
        .iter()
        .find(|c| c.directive.contains("--autostash"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!((f.episodes.len(), f.covered), (3, Some(3)), "{f:#?}");
    assert_eq!(f.directive, "retry `git pull` with `--autostash`");
    let make = "make: *** No rule to make target 'out/app.o'.  Stop.";
    let mut h = Vec::new();
    for s in ["a", "b"] {
        h.push(rec(s, "make", false, make));
        h.push(rec(s, "make -k", true, "ok"));
    }
    h.push(rec("c", "make", false, make));
    h.push(rec("c", "mkdir out", true, ""));
    h.push(rec("c", "make", true, "ok"));
    let c = cands(&h);
    let f = c
        .iter()
        .find(|c| c.directive.contains("`-k`"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!(f.episodes.len(), 2, "{f:#?}");
}

#[test]
fn a_missing_wrapper_dropped_is_one_fix_whatever_it_wrapped() {
    // `cargo watch -x test` / `cargo make test` fail (no such command); the sessions ran
    // the payload directly: `cargo test` three times, `cargo check` once. One kind of
    // change (the wrapper dropped), the common payload said, the other named.
    let mut h = Vec::new();
    for (s, fail, ok) in [
        ("a", "cargo watch -x test", "cargo test"),
        ("b", "cargo watch -x check", "cargo check"),
        ("c", "cargo make test", "cargo test"),
        ("d", "cargo watch -x test", "cargo test"),
    ] {
        let sub = fail.split(' ').nth(1).unwrap_or_default();
        h.push(rec(s, fail, false, &format!("error: no such command: `{sub}`")));
        h.push(rec(s, ok, true, "test result: ok"));
    }
    let c = cands(&h);
    let f = c
        .iter()
        .find(|c| c.key.ends_with("unwrap:cargo"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!((f.episodes.len(), f.covered), (4, Some(4)), "{f:#?}");
    assert_eq!(
        f.directive,
        "run what the missing `cargo` subcommand wraps directly: `cargo test` (also seen: `check`)"
    );
}

#[test]
fn a_step_one_session_spelt_alone_is_said_as_those_agreeing_spelt_it() {
    // Three sessions `mkdir -p <dir>`, one `mkdir out`: the bare step's candidate is
    // supported by all four (their steps include it), so it is said as most of them
    // spelt it, not with the one session's folder.
    let mut h = Vec::new();
    for (s, step, dir) in [
        ("a", "mkdir -p build", "build"),
        ("b", "mkdir -p dist", "dist"),
        ("c", "mkdir -p bin", "bin"),
        ("d", "mkdir out", "out"),
    ] {
        let msg = format!("/usr/bin/ld: cannot open output file {dir}/app: No such file or directory");
        h.push(rec(s, "make", false, &msg));
        h.push(rec(s, step, true, ""));
        h.push(rec(s, "make", true, "cc -o app main.c"));
    }
    let c = cands(&h);
    let bare = c
        .iter()
        .find(|c| c.key.ends_with("steps:mkdir"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!(bare.episodes.len(), 4, "{bare:#?}");
    assert_eq!(bare.directive, "run `mkdir -p <dir>`, then retry `make all`");
    let p = c
        .iter()
        .find(|c| c.key.ends_with("steps:mkdir  -p"))
        .unwrap_or_else(|| panic!("{:#?}", c.iter().map(|c| &c.key).collect::<Vec<_>>()));
    assert_eq!(p.directive, "run `mkdir -p <dir>`, then retry `make all`");
}

#[test]
fn several_project_environments_are_a_placeholder_and_named() {
    let msg = "ModuleNotFoundError: No module named 'requests'";
    let mut h = Vec::new();
    for (s, ok) in [
        ("a", ".venv/bin/python app.py"),
        ("b", "venv/bin/python app.py"),
        ("c", ". .venv/bin/activate && python app.py"),
    ] {
        h.push(rec(s, "python3 app.py", false, msg));
        h.push(rec(s, ok, true, "ok"));
    }
    let c = cands(&h);
    let f = c
        .iter()
        .find(|c| c.key.ends_with("substitution:<env>/bin/<self>"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!(
        f.directive,
        "use the project environment's `<env>/bin/python` instead of `python3` (seen: `.venv`, `venv`)"
    );
}

#[test]
fn the_same_change_with_a_flag_of_its_own_agrees_but_not_an_opposite_one() {
    // `npm run build` ×3 after `npm build`; one session `npm run -s build`: the same
    // change, quieter — it supports the rule. `--no-…` would be another choice.
    let msg = "Unknown command: \"build\"\n\nDid you mean this?\n    npm run build";
    let mut h = Vec::new();
    for (s, ok) in [
        ("a", "npm run build"),
        ("b", "npm run build"),
        ("c", "npm run build"),
        ("d", "npm run -s build"),
        ("e", "npm run --no-color build"),
    ] {
        h.push(rec(s, "npm build", false, msg));
        h.push(rec(s, ok, true, "built"));
    }
    let c = cands(&h);
    let f = c
        .iter()
        .find(|c| c.key.ends_with("||variant:<args>"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!(f.episodes.len(), 4, "{f:#?}");
    // Three sessions typed `run` alike: said, not a placeholder.
    assert_eq!(f.directive, "retry `npm build` with `run`");
}

#[test]
fn a_flag_of_its_own_beside_any_spelling_agrees_whichever_session_came_last() {
    // `ln -s`, `--symbolic`, `-s -T`, `-sn` after "hard link not allowed for directory":
    // `-s -T` is `-s` and a flag of its own. It was asked of the most recent spelling
    // only (`-sn`), so the fourth session agreed or contested by the order of the log.
    // The one-flag candidate of sessions that each fixed `ln dN linkN` with `flags`.
    let one_flag = |spellings: &[&str]| -> Candidate {
        let msg = "ln: d: hard link not allowed for directory";
        let mut h = Vec::new();
        for (i, flags) in spellings.iter().enumerate() {
            let s = format!("s{i}");
            h.push(rec(&s, &format!("ln d{i} link{i}"), false, msg));
            h.push(rec(&s, &format!("ln {flags} d{i} link{i}"), true, ""));
        }
        let c = cands(&h);
        c.iter()
            .find(|c| c.key.ends_with(crate::learn::history::fix_key::OPTIONS))
            .cloned()
            .unwrap_or_else(|| panic!("{c:#?}"))
    };
    for order in [
        ["-s", "--symbolic", "-s -T", "-sn"],
        ["-sn", "-s -T", "--symbolic", "-s"],
    ] {
        let f = one_flag(&order);
        assert_eq!((f.episodes.len(), f.covered), (4, Some(4)), "{order:?}: {f:#?}");
    }
    // Flags of its own, whatever they are, are changed options too: one kind (until
    // 2026-12-07 a flag of its own beside a spelling nobody gave agreed with nothing).
    let f = one_flag(&["-s", "--symbolic", "-sn", "-v -T", "-s -T -v"]);
    assert_eq!(f.episodes.len(), 5, "{f:#?}");
    // The opposite choice is no spelling: `--no-dereference` keeps its own key.
    let f = one_flag(&["-s", "--symbolic", "-sn", "--no-dereference"]);
    assert_eq!(f.episodes.len(), 3, "{f:#?}");
}

#[test]
fn one_operand_edited_by_insertion_is_one_kind_whatever_was_inserted() {
    // `Cannot index array`: what each session put into its filter depends on the filter
    // (`.[].name`, `map(.env)`), and one added `-r` too. Keyed by the inserted text the
    // class split below the recurrence minimum; as one kind of change every session
    // supports one fix, the most common text said and the others named.
    let msg = |k: &str| format!("jq: error (at f.json:1): Cannot index array with string \"{k}\"");
    let mut h = Vec::new();
    for (s, fail, fix) in [
        ("a", "jq '.name' a.json", "jq '.[].name' a.json"),
        ("b", "jq .env b.json", "jq 'map(.env)' b.json"),
        ("c", "jq '.ver' c.json", "jq -r '.[].ver' c.json"),
        ("d", "jq .ip d.json", "jq '.[].ip' d.json"),
    ] {
        let key = fail
            .split(['.', '\'', ' '])
            .find(|w| w.len() > 1 && *w != "jq")
            .unwrap_or("x");
        h.push(rec(s, fail, false, &msg(key)));
        h.push(rec(s, fix, true, "\"a\""));
    }
    let c = cands(&h);
    let fix = c
        .iter()
        .find(|c| c.key.ends_with("||variant:insert:<v>"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!(fix.episodes.len(), 4, "{fix:#?}");
    assert_eq!(fix.covered, Some(4));
    assert_eq!(
        fix.directive,
        "retry `jq` with its operand as `.[].<name>` (also seen: `map(.<name>)`)"
    );
}

#[test]
fn a_name_looked_up_then_used_is_one_fix_aimed_at_what_the_error_named() {
    // `.tables` prints the names; each session then used the one it needed. The look is
    // no retry (another question asked of the same data) and no fix step; the change is
    // one kind whatever the name, and it acted on the word the error named, so one plain
    // retry of the class does not make it coincidence (3 ≥ 1).
    let mut h = Vec::new();
    for (s, bad, good) in [
        ("a", "user", "users"),
        ("b", "tag", "tags"),
        ("c", "Users_tbl", "users"),
    ] {
        h.push(rec(
            s,
            &format!("sqlite3 app.db \"SELECT * FROM {bad} LIMIT 5\""),
            false,
            &format!("Error: in prepare, no such table: {bad}"),
        ));
        h.push(rec(s, "sqlite3 app.db .tables", true, "orders  tags    users"));
        h.push(rec(
            s,
            &format!("sqlite3 app.db \"SELECT * FROM {good} LIMIT 5\""),
            true,
            "1|bob",
        ));
    }
    h.push(rec(
        "d",
        "sqlite3 app.db \"SELECT * FROM user LIMIT 5\"",
        false,
        "Error: in prepare, no such table: user",
    ));
    h.push(rec("d", "ls -l app.db", true, "app.db"));
    h.push(rec("d", "sqlite3 app.db \"SELECT * FROM user LIMIT 5\"", true, "1|bob"));
    let c = cands(&h);
    let fix = c
        .iter()
        .find(|c| c.key.ends_with("||variant:lookup:<v>"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!(fix.episodes.len(), 3, "{fix:#?}");
    assert_eq!((fix.covered, fix.cleared_plainly, fix.targeted), (Some(3), 1, true));
    assert_eq!(
        fix.directive,
        "look the name up with `sqlite3 app.db .tables`, then retry `sqlite` with the name it printed in place of the one the error named"
    );
    assert!(!crate::learn::propose::necessity::coincidental(
        3,
        3,
        1,
        0.75,
        fix.targeted
    ));
}

#[test]
fn the_action_the_error_names_run_instead_is_a_verb_and_agrees_with_it_run_before() {
    let ci = "npm error The `npm ci` command can only install with an existing package-lock.json";
    let h = vec![
        rec("a", "npm ci", false, ci),
        rec("a", "npm install", true, "up to date"),
        rec("a", "npm test", true, "1 passing"),
        // Another action the text does not name is no verb.
        rec("b", "npm ci", false, ci),
        rec("b", "npm audit", true, "found 0 vulnerabilities"),
        // Named, but the failing action tried again after it and failed: no substitute.
        rec("c", "git push", false, " ! [rejected] main -> main (fetch first)"),
        rec("c", "git fetch", true, ""),
        rec("c", "git push", false, " ! [rejected] main -> main (fetch first)"),
    ];
    let p = Prepared::new(&h);
    let e = extract(&h, &p, WINDOW);
    assert_eq!(
        e[0].outcome,
        crate::learn::history::episodes::Outcome::Recovered,
        "{:#?}",
        e[0]
    );
    assert_eq!(e[0].fix_key(), "verb:npm install");
    assert_ne!(e[1].fix_key(), "verb:npm audit", "{:#?}", e[1]);
    assert_ne!(e[2].fix_key(), "verb:git fetch", "{:#?}", e[2]);
    let act = crate::learn::propose::directive::DirectiveAction::Step {
        domain: "npm".into(),
        action: "install".into(),
        flags: vec![],
    };
    assert!(crate::learn::propose::agreement::agrees(
        &e[0],
        &e[0].fix_key(),
        "steps:npm install",
        Some(&act)
    ));
}

/// One option given a value is one fix however the value is attached: `-Llib`, `-L
/// ./lib`, `-L lib` (POSIX `getopt`), `--output=f`, `--output f`, `-o f` (GNU). Before,
/// the attached and the apart spellings were two fix keys of two sessions each: both
/// contested (2 of 4). Turned off, this test fails on the contest.
#[test]
fn one_option_given_a_value_agrees_attached_or_apart_short_or_long() {
    use crate::learn::propose::agreement::one_option_given_a_value as same;
    let v = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    assert!(same(&v(&["-L", "lib"]), &v(&["-Llib"])));
    assert!(same(&v(&["-L./lib"]), &v(&["-L", "lib"])));
    assert!(same(&v(&["--output=a.html"]), &v(&["-o", "a.html"])));
    assert!(same(&v(&["--output", "a.html"]), &v(&["-oa.html"])));
    assert!(same(&v(&["--output", "a"]), &v(&["--output=b"])));
    assert!(
        !same(&v(&["-Llib"]), &v(&["-L./lib"])),
        "two attached: nothing shows -L takes a value"
    );
    assert!(!same(&v(&["-L", "lib"]), &v(&["-I", "lib"])), "two options");
    assert!(
        !same(&v(&["--output", "a"]), &v(&["--offset", "3"])),
        "two long names, one initial"
    );
    assert!(!same(&v(&["-r", "-f"]), &v(&["-rf"])), "a second flag is no value");
    assert!(!same(&v(&["--no-output", "x"]), &v(&["-n", "x"])), "a --no- option");

    let ld = "/usr/bin/ld: cannot find -lgeo: No such file or directory\ncollect2: error: ld returned 1 exit status";
    let mut h = Vec::new();
    for (s, fix) in [
        ("a", "gcc main.c -Llib -lgeo -o app"),
        ("b", "gcc main.c -L lib -lgeo -o app"),
        ("c", "gcc main.c -L./lib -lgeo -o app"),
        ("d", "gcc -L lib main.c -lgeo -o app"),
    ] {
        h.push(rec(s, "gcc main.c -lgeo -o app", false, ld));
        h.push(rec(s, fix, true, ""));
    }
    let c = cands(&h);
    let fixes: Vec<&Candidate> = c.iter().filter(|c| c.directive.contains("-L")).collect();
    assert!(!fixes.is_empty(), "{c:#?}");
    for f in fixes {
        assert_eq!((f.covered, f.recovered_in_cluster), (Some(4), 4), "{f:#?}");
    }
}

#[test]
fn one_value_given_as_an_operand_or_a_setting_agrees_and_names_the_other() {
    // `cargo +stable build` and `RUSTUP_TOOLCHAIN=stable cargo test` after "toolchain … is
    // not installed": two kinds of change, two against two, contested. What they share is
    // the value the retry gave, new to the failing command.
    let msg = "error: toolchain 'nightly-2026-01-05-x86_64-unknown-linux-gnu' is not installed";
    let cargo = |pairs: [(&str, &str, &str); 4]| -> Vec<Candidate> {
        let mut h = Vec::new();
        for (s, fail, ok) in pairs {
            h.push(rec(s, fail, false, msg));
            h.push(rec(s, ok, true, "Finished"));
        }
        cands(&h)
    };
    let c = cargo([
        ("a", "cargo build", "cargo +stable build"),
        ("b", "cargo test -q", "RUSTUP_TOOLCHAIN=stable cargo test -q"),
        ("c", "cargo run -q", "cargo +stable run -q"),
        ("d", "cargo check", "RUSTUP_TOOLCHAIN=stable cargo check"),
    ]);
    let plus = c
        .iter()
        .find(|c| c.directive.starts_with("retry `cargo` with `+stable`"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!((plus.episodes.len(), plus.covered), (4, Some(4)), "{plus:#?}");
    assert_eq!(
        plus.directive,
        "retry `cargo` with `+stable` (also seen: `RUSTUP_TOOLCHAIN=stable`)"
    );
    // Another value is another fix: `nightly` against `stable` still contests.
    let c = cargo([
        ("a", "cargo build", "cargo +stable build"),
        ("b", "cargo test -q", "RUSTUP_TOOLCHAIN=beta cargo test -q"),
        ("c", "cargo run -q", "cargo +stable run -q"),
        ("d", "cargo check", "RUSTUP_TOOLCHAIN=beta cargo check"),
    ]);
    assert!(c.iter().all(|c| c.covered.is_none_or(|n| n <= 2)), "{c:#?}");
}

#[test]
fn a_setting_named_in_its_own_words_agrees_with_the_same_setting_said_otherwise() {
    // `.timeout 8000` as an operand, `-cmd 'PRAGMA busy_timeout = 10000'`: the setting's
    // word (`timeout`) is the value both gave; its number is no value.
    let msg = "Error: stepping, database is locked (5)";
    let mut h = Vec::new();
    for (s, ok) in [
        ("a", "sqlite3 a.db '.timeout 8000' 'INSERT INTO t VALUES (1)'"),
        (
            "b",
            "sqlite3 -cmd 'PRAGMA busy_timeout = 10000' a.db 'INSERT INTO t VALUES (1)'",
        ),
        ("c", "sqlite3 a.db '.timeout 15000' 'INSERT INTO t VALUES (1)'"),
    ] {
        h.push(rec(s, "sqlite3 a.db 'INSERT INTO t VALUES (1)'", false, msg));
        h.push(rec(s, ok, true, ""));
    }
    let c = cands(&h);
    assert!(c.iter().any(|c| c.covered == Some(3)), "{c:#?}");
}

#[test]
fn a_form_beside_typed_words_is_never_said_as_shell() {
    // `run` → `run-script` (an operand edited: a form the episode wrote) beside `--`
    // typed: said as `-- insert:-script` before; now the retry as it was run.
    let msg = "deploy: missing --target <env> (arguments: [\"staging\"])";
    let mut h = Vec::new();
    for s in ["a", "b", "c"] {
        h.push(rec(s, "npm run deploy --target staging", false, msg));
        h.push(rec(s, "npm run-script deploy -- --target staging", true, "deployed"));
    }
    let c = cands(&h);
    assert!(!c.is_empty());
    for c in &c {
        assert!(!c.directive.contains("insert:"), "{}", c.directive);
    }
    assert!(
        c.iter()
            .any(|c| c.directive.contains("`npm run-script deploy -- --target staging`")),
        "{c:#?}"
    );
}

/// Sessions that fail `fail`, run `step` (one per session), and pass `fail` again.
fn stepped(msg: &str, fail: &str, steps: &[(&str, String)]) -> Vec<Candidate> {
    let mut h = Vec::new();
    for (s, step) in steps {
        h.push(rec(s, fail, false, msg));
        h.push(rec(s, step, true, ""));
        h.push(rec(s, fail, true, "ok"));
    }
    cands(&h)
}

/// The candidate whose directive says `needle`.
fn saying<'a>(c: &'a [Candidate], needle: &str) -> &'a Candidate {
    c.iter()
        .find(|c| c.directive.contains(needle))
        .unwrap_or_else(|| panic!("{needle}: {c:#?}"))
}

#[test]
fn one_step_spelt_stronger_or_shorter_is_one_fix_but_not_another_setting() {
    // `git branch -M main` twice, `git branch -m main` once, before the same push: before,
    // the directive's flags had to be among the step's, so `-m` contested `-M` (2 of 3
    // at the minimum). One step inserted, spelt two ways: one fix of three sessions.
    let msg = "error: src refspec main does not match any\nerror: failed to push some refs to 'origin'";
    let each = |f: &str| -> Vec<(&str, String)> {
        ["a", "b", "c", "d"]
            .into_iter()
            .zip(f.split(',').map(str::to_string))
            .collect()
    };
    let c = stepped(
        msg,
        "git push -u origin main",
        &each("git branch -M main,git branch -m main,git branch -M main"),
    );
    let f = saying(&c, "git branch");
    assert_eq!(
        (f.episodes.len(), f.covered, f.recovered_in_cluster),
        (3, Some(3), 3),
        "{f:#?}"
    );
    assert_eq!(
        f.directive,
        "run `git branch -M main`, then retry `git push` (also seen: `git branch -m`)"
    );
    // A `config` step that sets another setting is another fix: `core.bare true` made the
    // push pass too, by turning the checkout into a bare repository.
    let set = |v: &str| format!("git -C ../site config {v}");
    let (update, bare) = (set("receive.denyCurrentBranch updateInstead"), set("core.bare true"));
    let c = stepped(
        "remote: error: refusing to update checked out branch: refs/heads/main",
        "git push origin main",
        &each(&[update.as_str(), &bare, &update, &bare].join(",")),
    );
    let f = saying(&c, "updateInstead");
    assert_eq!((f.episodes.len(), f.covered), (2, Some(2)), "{f:#?}");
    // Nor is a step that makes the opposite choice: `git pull --no-rebase` before the
    // push is a merge, `git pull --rebase` a rebase.
    let c = stepped(
        "! [rejected]        main -> main (fetch first)\nerror: failed to push some refs",
        "git push origin main",
        &each("git pull --rebase origin main,git pull --no-rebase origin main,git pull --rebase origin main,git pull --no-rebase origin main"),
    );
    let f = saying(&c, "git pull --rebase");
    assert_eq!((f.episodes.len(), f.covered), (2, Some(2)), "{f:#?}");
}

#[test]
fn a_name_looked_up_that_extends_the_failing_one_agrees_with_an_insertion() {
    // Two sessions put the package before the class name; a third found it with `find`
    // first. Before, the look made the third its own fix (a lookup), and two insertions
    // stood below the three sessions a variant needs.
    let msg = |c: &str| {
        format!("Error: Could not find or load main class {c}\nCaused by: java.lang.ClassNotFoundException: {c}")
    };
    let mut h = Vec::new();
    for (s, c, pkg) in [("a", "Main", "com.acme.report"), ("b", "Audit", "com.acme.audit")] {
        h.push(rec(s, &format!("java -cp build {c}"), false, &msg(c)));
        h.push(rec(s, &format!("java -cp build {pkg}.{c}"), true, "ok"));
    }
    h.push(rec("c", "java -cp build App", false, &msg("App")));
    h.push(rec(
        "c",
        "find build -name '*.class'",
        true,
        "build/com/acme/sync/App.class",
    ));
    h.push(rec("c", "java -cp build com.acme.sync.App", true, "ok"));
    let c = cands(&h);
    let f = c
        .iter()
        .find(|c| c.directive.contains("its operand as"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!((f.episodes.len(), f.covered), (3, Some(3)), "{f:#?}");
    // The look's own candidate still stands on its session alone: an insertion without a
    // look did not take it.
    let look = c.iter().find(|c| c.directive.starts_with("look the name up"));
    assert!(look.is_none_or(|l| l.episodes.len() == 1), "{look:#?}");
}
