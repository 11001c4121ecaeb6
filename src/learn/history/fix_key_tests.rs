//! Tests of the fix key ([`crate::learn::history::fix_key`]): which sessions did "the same
//! fix". (Apart from the module: its rules and their cases outgrew one file.)

use crate::learn::history::episodes::tests::rec;
use crate::learn::history::episodes::{extract, Outcome, Prepared, WINDOW};
use crate::learn::history::fix_key::OPTIONS;

fn keys(h: &[crate::evidence::Record]) -> Vec<String> {
    let p = Prepared::new(h);
    let e = extract(h, &p, WINDOW);
    assert!(e.iter().all(|e| e.outcome == Outcome::Recovered), "{e:#?}");
    e.iter().map(|e| e.fix_key()).collect()
}

#[test]
fn one_flag_added_is_one_kind_of_change_whatever_its_spelling() {
    let cp = "cp: -r not specified; omitting directory 'x'";
    let h = vec![
        rec("a", "cp config backup/config", false, cp),
        rec("a", "cp -r config backup/config", true, ""),
        rec("b", "cp templates snap/templates", false, cp),
        rec("b", "cp -R templates snap/templates", true, ""),
        rec("c", "cp assets out/assets", false, cp),
        rec("c", "cp -a assets out/assets", true, ""),
        rec(
            "d",
            "curl -sS 'http://h/x?ids=[1,2]'",
            false,
            "curl: (3) bad range in URL",
        ),
        rec("d", "curl -sS --globoff 'http://h/x?ids=[1,2]'", true, "ok"),
    ];
    assert_eq!(keys(&h), vec![OPTIONS; 4]);
}

#[test]
fn a_negation_keeps_its_key_and_every_other_options_change_is_one_kind() {
    let h = vec![
        rec(
            "a",
            "git pull",
            false,
            "fatal: Need to specify how to reconcile divergent branches.",
        ),
        rec("a", "git pull --no-rebase", true, "Merge made"),
        rec("b", "curl -sS https://h/", false, "curl: (60) SSL certificate problem"),
        rec("b", "curl -sS --cacert ca.pem https://h/", true, "ok"),
        rec("c", "grep -rn 'a(' src/", false, "grep: Unmatched ( or \\("),
        rec("c", "grep -rn -F -w 'a(' src/", true, "src/x:1:a("),
    ];
    let k = keys(&h);
    assert_eq!(k[0], "variant:--no-rebase", "the opposite choice keeps its key");
    // A flag with its operand and two flags are changed options, as one flag is
    // (until 2026-12-07 three kinds, which contested each other).
    assert_eq!(k[1], OPTIONS, "a flag with its operand");
    assert_eq!(k[2], OPTIONS, "two flags");
}

/// dev2's `M_PI` undeclared: `-std=c99` → `-std=gnu99` in two sessions,
/// `-D_DEFAULT_SOURCE` and `-D_GNU_SOURCE` added in two: one kind (options changed),
/// not two fixes of two sessions each contesting each other. A flag's value changed
/// to a file is another input, its own kind (`kubectl apply -f a.yaml` → `-f crd.yaml`).
#[test]
fn a_value_changed_and_a_flag_added_are_one_kind_and_a_file_given_is_not() {
    let m_pi = "src/area.c:5:20: error: 'M_PI' undeclared (first use in this function)";
    let h = vec![
        rec("a", "gcc -std=c99 -o area src/area.c -lm", false, m_pi),
        rec("a", "gcc -std=gnu99 -o area src/area.c -lm", true, ""),
        rec("b", "gcc -std=c11 -o area area.c -lm", false, m_pi),
        rec("b", "gcc -std=c11 -D_DEFAULT_SOURCE -o area area.c -lm", true, ""),
    ];
    assert_eq!(keys(&h), vec![OPTIONS; 2]);
    let kind = "error: unable to recognize \"x.yaml\": no matches for kind \"Prometheus\"";
    let files = vec![
        rec("c", "kubectl apply -f k8s/x.yaml", false, kind),
        rec("c", "kubectl apply -f https://example.com/crd.yaml", true, "created"),
        rec("d", "kubectl apply -f x.yaml", false, kind),
        rec("d", "kubectl apply -f crd.yaml", true, "created"),
    ];
    assert_eq!(keys(&files), vec!["variant:value:<v>"; 2]);
}

#[test]
fn end_of_options_an_attached_number_and_a_programs_own_variable_are_spellings() {
    let merge = "error: commit 1a2b3c4 is a merge but no -m option was given.";
    let links = "ERROR: No matching distribution found for x";
    let script = "npm error Missing script: \"build\"";
    let h = vec![
        rec("a", "basename docs/*.md", false, "basename: extra operand 'docs/b.md'"),
        rec("a", "basename -a docs/*.md", true, "a.md"),
        rec("b", "basename m/*.sql", false, "basename: extra operand 'm/b.sql'"),
        rec("b", "basename -a -- m/*.sql", true, "a.sql"),
        rec("c", "git revert --no-edit merge-x", false, merge),
        rec("c", "git revert --no-edit -m1 merge-x", true, ""),
        rec("d", "git revert --no-edit merge-y", false, merge),
        rec("d", "git revert --no-edit -m 1 merge-y", true, ""),
        rec("e", ".venv/bin/pip install --no-index x", false, links),
        rec(
            "e",
            "PIP_FIND_LINKS=dist .venv/bin/pip install --no-index x",
            true,
            "Successfully installed x",
        ),
        rec("f", ".venv/bin/pip install --no-index x", false, links),
        rec(
            "f",
            ".venv/bin/pip install --no-index --find-links dist x",
            true,
            "Successfully installed x",
        ),
        rec("g", "npm run build", false, script),
        rec("g", "npm_config_workspace=web npm run build", true, "built"),
        rec("h", "npm run build", false, script),
        rec("h", "npm run build -w web", true, "built"),
        // Another program's variable is no option of this one.
        rec("i", "npm run build", false, script),
        rec("i", "NODE_ENV=production npm run build", true, "built"),
    ];
    let k = keys(&h);
    assert_eq!(k[0], OPTIONS, "`--` ends the options, it changes nothing");
    // Alone, `--` is the change: a name kept from being read as an option, one kind
    // with the name written from the current folder.
    let alone = vec![
        rec("z", "cat -notes.txt", false, "cat: invalid option -- 'n'"),
        rec("z", "cat -- -notes.txt", true, "x"),
        rec("y", "wc -l -x.csv", false, "wc: invalid option -- 'x'"),
        rec("y", "wc -l ./-x.csv", true, "1 ./-x.csv"),
    ];
    assert_eq!(
        keys(&alone),
        vec!["variant:escaped:<v>"; 2],
        "alone, `--` is the change"
    );
    assert_eq!(k[1], k[0]);
    assert_eq!(k[2], OPTIONS, "-m1 is -m 1");
    assert_eq!(k[3], k[2]);
    assert_eq!(k[4], k[5], "PIP_FIND_LINKS=dist is --find-links dist");
    assert_eq!(k[6], k[7], "npm_config_workspace=web is -w web's long option");
    assert_eq!(k[8], "variant:NODE_ENV=<v>");
}

/// The failing program run from the project's own copy is one key whichever program
/// (`<self>`); another program's copy keeps its name.
#[test]
fn the_failing_programs_own_copy_is_one_key_whichever_program() {
    let nf = |p: &str| format!("bash: {p}: command not found");
    let h = vec![
        rec("a", "lintkit src", false, &nf("lintkit")),
        rec("a", ".venv/bin/lintkit src", true, "ok"),
        rec("b", "mdcheck README.md", false, &nf("mdcheck")),
        rec("b", "node_modules/.bin/mdcheck README.md", true, "ok"),
        rec("c", "python3 -m tool x", false, "No module named tool"),
        rec("c", "venv/bin/python -m tool x", true, "ok"),
        rec("d", "pytest -q", false, &nf("pytest")),
        rec("d", ".venv/bin/python -m pytest -q", true, "ok"),
        rec("e", "tidyjs src", false, &nf("tidyjs")),
        rec("e", "npx tidyjs src", true, "ok"),
        rec("f", "bundlr --out dist", false, &nf("bundlr")),
        rec("f", "npm exec bundlr -- --out dist", true, "ok"),
        rec("g", "yarn test", false, "error Command \"test\" not found."),
        rec("g", "npm test", true, "ok"),
    ];
    let k = keys(&h);
    assert_eq!(k[..3], ["substitution:<env>/bin/<self>"; 3], "{k:?}");
    assert_ne!(k[3], k[0], "{k:?}");
    assert_eq!(k[4], k[0], "through the project's runner: {k:?}");
    assert_eq!(k[5], k[0], "through a package manager's exec: {k:?}");
    assert_ne!(k[6], k[0], "another package manager is no project copy: {k:?}");
}

#[test]
fn a_tool_respelt_while_a_flag_was_dropped_is_the_dropped_flag() {
    let user = "ERROR: Can not perform a '--user' install. User site-packages are not visible in this virtualenv.";
    let h = vec![
        rec("a", "venv/bin/pip install --user -q ./libs/x", false, user),
        rec(
            "a",
            "venv/bin/python -m pip install -q ./libs/x",
            true,
            "Successfully installed x",
        ),
        rec("b", ".venv/bin/pip3 install --user -q ./libs/y", false, user),
        rec(
            "b",
            ".venv/bin/pip install -q ./libs/y",
            true,
            "Successfully installed y",
        ),
        rec("c", ".venv/bin/pip install --user -q ./libs/z", false, user),
        rec(
            "c",
            ".venv/bin/pip install -q ./libs/z",
            true,
            "Successfully installed z",
        ),
        // Another program, no flag dropped: still a substitute.
        rec("d", "python app.py", false, "bash: python: command not found"),
        rec("d", "python3 app.py", true, "ok"),
    ];
    let k = keys(&h);
    assert_eq!(k[..3], ["variant:without:--user"; 3], "{k:?}");
    assert!(k[3].starts_with("substitution:"), "{}", k[3]);
}

#[test]
fn a_path_made_ready_by_any_program_is_one_fix_and_nothing_else_is() {
    let enoent = "tar: third_party/vendor: Cannot open: No such file or directory";
    let h = vec![
        rec("a", "tar xzf v.tgz -C third_party/vendor", false, enoent),
        rec("a", "mkdir -p third_party/vendor", true, ""),
        rec("a", "tar xzf v.tgz -C third_party/vendor", true, ""),
        rec("b", "tar -xf r.tgz --directory out/release", false, enoent),
        rec(
            "b",
            "install -d out/release && tar -xf r.tgz --directory out/release",
            true,
            "",
        ),
        // The folder of the operand.
        rec(
            "c",
            "mv a.txt out/a.txt",
            false,
            "mv: cannot move 'a.txt' to 'out/a.txt': No such file or directory",
        ),
        rec("c", "mkdir out", true, ""),
        rec("c", "mv a.txt out/a.txt", true, ""),
        // A step on another word, and a step of the failing program itself.
        rec(
            "d",
            "./target/release/x",
            false,
            "bash: ./target/release/x: No such file or directory",
        ),
        rec("d", "cargo build --release", true, "Finished"),
        rec("d", "./target/release/x", true, "ok"),
        rec("e", "git switch feat/x", false, "fatal: invalid reference: feat/x"),
        rec("e", "git branch feat/x", true, ""),
        rec("e", "git switch feat/x", true, "Switched to branch 'feat/x'"),
    ];
    let k = keys(&h);
    assert_eq!(k[..3], [crate::learn::history::fix_key::PREPARES_OPERAND; 3], "{k:?}");
    assert_eq!(k[3], "steps:cargo build --release");
    assert_eq!(k[4], "steps:git branch");
}

#[test]
fn a_script_restated_is_the_same_kind_as_one_inserted_into_and_a_look_is_no_retry() {
    let add = "jq: error (at s.json:1): string (\"a: \") and number (3) cannot be added";
    let h = vec![
        rec("a", r#"jq -r '.[] | .name + ": " + .count' s.json"#, false, add),
        rec(
            "a",
            r#"jq -r '.[] | .name + ": " + (.count | tostring)' s.json"#,
            true,
            "a: 3",
        ),
        rec("b", r#"jq -r '.[] | .job + ": " + .n' b.json"#, false, add),
        rec("b", r#"jq -r '.[] | "\(.job): \(.n)"' b.json"#, true, "a: 3"),
    ];
    let k = keys(&h);
    assert_eq!(k[0], "variant:insert:<v>");
    assert_eq!(k[1], k[0], "restated: one operand edited, as an insertion is");
    // The same data asked another question that keeps few of the script's names: a
    // look, not the failing script restated.
    let look = vec![
        rec("c", r#"jq -r '.[] | .name + ": " + .count' s.json"#, false, add),
        rec("c", r#"jq -r '.[] | .name' s.json"#, true, "a"),
    ];
    let p = Prepared::new(&look);
    let e = extract(&look, &p, WINDOW);
    assert_ne!(e[0].outcome, Outcome::Recovered, "{:#?}", e[0]);
}

#[test]
fn a_flags_value_changed_is_one_kind_whatever_the_flag_and_its_spelling() {
    // jq's own words (they name no option: one that does is set, `option_set`).
    let indent = "jq: Cannot indent more than 7 characters";
    let fields = "cut: fields are numbered from 1";
    let h = vec![
        rec("a", "jq --indent 8 . package.json", false, indent),
        rec("a", "jq --indent 4 . package.json", true, "{}"),
        rec("b", "cut -f 0,2 hosts.tsv", false, fields),
        rec("b", "cut -f 1,2 hosts.tsv", true, "a\tb"),
        rec("c", "cut -d, -f0 users.csv", false, fields),
        rec("c", "cut -d, -f1 users.csv", true, "a"),
        rec(
            "d",
            "git log --date=iso-8601 -1",
            false,
            "fatal: unknown date format iso-8601",
        ),
        rec("d", "git log --date=iso8601 -1", true, "commit 1"),
    ];
    // Another value is a changed option: the kind of every options change.
    assert_eq!(keys(&h), vec![OPTIONS; 4]);
    // A bare flag replaced in its place by a flag with a value is that option given
    // another value (`-ansi` is GCC's `-std=c90`): one kind with `-std=c89` → `-std=c99`.
    let loop_decl = "error: 'for' loop initial declarations are only allowed in C99 or C11 mode";
    let std = vec![
        rec("f", "cc -ansi -o tool tool.c", false, loop_decl),
        rec("f", "cc -std=gnu99 -o tool tool.c", true, ""),
        rec("g", "gcc -std=c89 -o sum sum.c", false, loop_decl),
        rec("g", "gcc -std=c99 -o sum sum.c", true, ""),
    ];
    assert_eq!(keys(&std), vec![OPTIONS; 2]);
    // A flag without a value put in another's place is another flag; a negation put in
    // is the opposite choice: neither is a value given.
    let other = vec![
        rec("h", "grep -E 'a(b' notes.txt", false, "grep: Unmatched ( or \\("),
        rec("h", "grep -F 'a(b' notes.txt", true, "a(b"),
        rec("i", "git -c x=1 log --color --oneline", false, "fatal: bad config"),
        rec("i", "git -c x=1 log --no-color=always --oneline", true, "x"),
    ];
    let p = Prepared::new(&other);
    let e = extract(&other, &p, WINDOW);
    assert!(e.iter().all(|e| !e.fix_key().contains("value:")), "{e:#?}");
    // Other letters in a bundle are other flags, not a value.
    let ls = vec![
        rec(
            "e",
            "ls -la src",
            false,
            "ls: cannot access 'src': No such file or directory",
        ),
        rec("e", "ls -lh srcs", true, "x"),
    ];
    let p = Prepared::new(&ls);
    let e = extract(&ls, &p, WINDOW);
    assert!(e.iter().all(|e| !e.fix_key().starts_with("variant:value")), "{e:#?}");
}

#[test]
fn a_name_the_shell_split_quoted_whole_is_one_kind_and_a_catch_all_is_unsafe() {
    let spec = |n: &str| format!("fatal: pathspec '{n}' did not match any files");
    let h = vec![
        rec("a", "git add My Notes.md", false, &spec("My")),
        rec("a", "git add \"My Notes.md\"", true, ""),
        rec("b", "git add Q3 report.txt", false, &spec("Q3")),
        rec("b", "git add Q3\\ report.txt", true, ""),
        rec("c", "git rm --cached design/Old Logo.svg", false, &spec("design/Old")),
        rec(
            "c",
            "git rm --cached 'design/Old Logo.svg'",
            true,
            "rm 'design/Old Logo.svg'",
        ),
    ];
    assert_eq!(keys(&h), vec!["variant:joined:<v>"; 3]);
    let all = vec![
        rec("d", "git add My Notes.md", false, &spec("My")),
        rec("d", "git add -A", true, ""),
    ];
    let p = Prepared::new(&all);
    let e = extract(&all, &p, WINDOW);
    assert_eq!(
        e[0].unsafe_fix,
        Some(crate::learn::history::fix_safety::WIDENED),
        "{e:#?}"
    );
}

#[test]
fn operands_seen_from_the_folder_a_cd_prefix_entered_are_the_same_operands() {
    let open = "Error: cannot open \"tables.sql\"";
    let h = vec![
        rec("a", "sqlite3 app.db '.read db/schema.sql'", false, open),
        rec("a", "cd db && sqlite3 ../app.db '.read schema.sql'", true, "0"),
        rec("b", "sqlite3 dev.db '.read sql/init.sql'", false, open),
        rec("b", "cd sql && sqlite3 ../dev.db '.read init.sql'", true, "0"),
        rec(
            "c",
            "python3 scripts/main.py",
            false,
            "FileNotFoundError: [Errno 2] No such file or directory: 'data.csv'",
        ),
        rec("c", "cd scripts && python3 main.py", true, "ok"),
    ];
    assert_eq!(keys(&h), vec!["variant:cd <v>"; 3]);
}

#[test]
fn a_long_option_takes_its_value_either_way() {
    let e = "error[E0670]: `async fn` is not permitted in Rust 2015";
    let h = vec![
        rec("a", "rustc main.rs", false, e),
        rec("a", "rustc --edition 2021 main.rs", true, ""),
        rec("b", "rustc src/main.rs", false, e),
        rec("b", "rustc --edition=2021 src/main.rs", true, ""),
        rec(
            "c",
            "git push",
            false,
            "fatal: The current branch x has no upstream branch.",
        ),
        rec("c", "git push -u origin x", true, ""),
        rec(
            "d",
            "git push",
            false,
            "fatal: The current branch y has no upstream branch.",
        ),
        rec("d", "git push --set-upstream origin y", true, ""),
    ];
    let k = keys(&h);
    assert_eq!(k[0], k[1]);
    assert_eq!(k[0], OPTIONS);
    assert_eq!(k[2], k[3], "-u and --set-upstream: one kind, no synonym table");
}

#[test]
fn setting_the_variable_the_error_named_is_one_kind_whatever_the_name() {
    let h = vec![
        rec("a", "make install", false, "Makefile:2: *** PREFIX is not set.  Stop."),
        rec("a", "make install PREFIX=~/.local", true, "ok"),
        rec("b", "make release", false, "Makefile:2: *** VERSION is not set.  Stop."),
        rec("b", "VERSION=1.4.2 make release", true, "ok"),
        // A variable the error did not name is that variable's own fix.
        rec("c", "make deploy", false, "Makefile:2: *** ENV is not set.  Stop."),
        rec("c", "make deploy DEBUG=1", true, "ok"),
    ];
    let k = keys(&h);
    assert_eq!(k[0], format!("variant:{}", crate::learn::history::fix_key::NAMED));
    assert_eq!(k[1], k[0]);
    assert_eq!(k[2], "variant:DEBUG=<v>");
}

/// dev7's `cargo-env-macro-unset-at-build`: `BUILD_COMMIT=dev cargo build` after "environment
/// variable `BUILD_COMMIT` not defined at compile time" sets the variable the error named. Its
/// name starts with the action (`build`), which read it as `cargo build`'s own `--commit`
/// setting, an options change, apart from the sessions that set `APP_VERSION` or `GIT_SHA`.
#[test]
fn a_variable_the_error_named_is_never_the_programs_own_setting() {
    let said = |v: &str| format!("error: environment variable `{v}` not defined at compile time");
    let h = vec![
        rec("a", "cargo build", false, &said("BUILD_COMMIT")),
        rec("a", "BUILD_COMMIT=dev cargo build", true, ""),
        rec("b", "cargo build -q", false, &said("GIT_SHA")),
        rec("b", "GIT_SHA=local cargo build -q", true, ""),
    ];
    let k = keys(&h);
    assert_eq!(k[0], format!("variant:{}", crate::learn::history::fix_key::NAMED));
    assert_eq!(k[1], k[0]);
}
