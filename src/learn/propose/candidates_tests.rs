//! How episodes become candidates ([`crate::learn::propose::candidates`]): clusters, fix
//! groups, directives, unsafe groups (its own file: the module is at its size limit).

use crate::learn::history::episodes::tests::rec;
use crate::learn::history::episodes::Prepared;
use crate::learn::history::episodes::{extract, WINDOW};
use crate::learn::propose::candidates::*;

fn cands(h: &[crate::evidence::Record]) -> Vec<Candidate> {
    let p = Prepared::new(h);
    let e = extract(h, &p, WINDOW);
    build(&e, &p, true)
}

#[test]
fn one_candidate_per_cluster_and_fix_and_a_template_for_unresolved() {
    let mut h = Vec::new();
    for s in ["a", "b", "c"] {
        h.push(rec(
            s,
            "git push origin main",
            false,
            " ! [rejected] main -> main (fetch first)",
        ));
        h.push(rec(s, "git pull --rebase", true, "Successfully rebased"));
        h.push(rec(s, "git push origin main", true, "main -> main"));
    }
    h.push(rec(
        "d",
        "git push",
        false,
        "Updates were rejected because the remote contains work",
    ));
    let c = cands(&h);
    assert_eq!(c.len(), 2, "{c:#?}");
    let fix = c.iter().find(|c| c.source == DirectiveSource::Fix).unwrap();
    assert_eq!(fix.episodes.len(), 3, "only the episodes fixed this way");
    assert!(fix.directive.contains("git pull --rebase"), "{}", fix.directive);
    assert!(fix.trigger.contains("non-fast-forward"), "{}", fix.trigger);
    assert!(fix.class_unresolved);
    assert_eq!((fix.covered, fix.recovered_in_cluster), (Some(3), 3));
    let t = c.iter().find(|c| c.source == DirectiveSource::Pack).unwrap();
    assert_eq!(t.episodes.len(), 1, "the unresolved failure supports the pack rule");
    assert!(t.remedy_known);
    assert_eq!(
        t.covered,
        Some(3),
        "the template's `git pull --rebase` agrees with the fixes"
    );
}

#[test]
fn exploration_makes_no_directive() {
    // Session a looked (pip list) and moved on: no directive, no one's support.
    // Session b tried something (touch) and moved on: still no directive from it; as
    // an attempt that never made the action succeed it supports the template only.
    let h = vec![
        rec(
            "a",
            "python src/train.py",
            false,
            "ModuleNotFoundError: No module named 'pandas'",
        ),
        rec("a", "pip list", true, "numpy 1.26"),
        rec("b", "python app.py", false, "ModuleNotFoundError: No module named 'x'"),
        rec("b", "touch notes.txt", true, ""),
    ];
    let c = cands(&h);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0].source, DirectiveSource::Pack);
    assert!(!c[0].directive.contains("touch") && !c[0].directive.contains("pip list"));
    assert_eq!(c[0].episodes, vec![1], "only session b's attempt");
}

#[test]
fn moved_on_attempts_typos_and_remedies() {
    let h = vec![
        // An attempt that never made `python` succeed: supports the template.
        rec(
            "a",
            "python src/train.py",
            false,
            "ModuleNotFoundError: No module named 'torch'",
        ),
        rec("a", "touch requirements.txt", true, ""),
        // A typo corrected: self-resolved, no one's support.
        rec("b", "pyhton app.py", false, "bash: pyhton: command not found"),
        rec("b", "python3 app.py", true, "ok"),
        // The template's own remedy taken (`git add`, commit): self-resolved.
        rec(
            "c",
            "git merge feature",
            false,
            "CONFLICT (content): Merge conflict in a.py",
        ),
        rec("c", "git add a.py && git commit -m merge", true, "[main 1] merge"),
    ];
    let c = cands(&h);
    let t: Vec<&Candidate> = c.iter().filter(|c| c.source == DirectiveSource::Pack).collect();
    assert_eq!(t.len(), 1, "{c:#?}");
    assert!(
        t[0].directive.contains("install the missing module"),
        "{}",
        t[0].directive
    );
    assert_eq!(t[0].episodes.len(), 1);
}

#[test]
fn nested_failure_is_no_ones_support() {
    // `git gc` failed while the curl failure was being recovered: not a lesson.
    let h = vec![
        rec(
            "s",
            "curl -sS http://127.0.0.1:8080/health",
            false,
            "curl: (7) Failed to connect",
        ),
        rec("s", "git gc --prune=now", false, "fatal: not a git repository"),
        rec("s", "curl -sS http://127.0.0.1:8080/health", true, "ok"),
    ];
    let p = Prepared::new(&h);
    let e = extract(&h, &p, WINDOW);
    assert!(e.iter().any(|e| e.nested && e.fail_idx == 1), "{e:#?}");
    assert!(build(&e, &p, true).iter().all(|c| !c.episodes.contains(&1)));
}

#[test]
fn failures_group_by_tool_and_signature_not_subcommand() {
    let nf = "error: could not find `Cargo.toml` in `/home/dev/w` or any parent directory";
    let lc = "error: Your local changes to the following files would be overwritten by checkout:\n\ta.py\nPlease commit your changes or stash them before you switch branches.\nAborting";
    let mut h = Vec::new();
    for (s, cmd) in [("a", "cargo build"), ("b", "cargo test"), ("c", "cargo check --all")] {
        h.push(rec(s, cmd, false, nf));
        h.push(rec(s, &format!("cd crate && {cmd}"), true, "Finished"));
    }
    for (s, cmd) in [("d", "git checkout dev"), ("e", "git switch main")] {
        h.push(rec(s, cmd, false, lc));
        h.push(rec(s, "git stash", true, "Saved working directory"));
        h.push(rec(s, cmd, true, "Switched to branch"));
    }
    let c = cands(&h);
    let cargo = c.iter().find(|c| c.domain == "cargo").unwrap();
    assert_eq!(cargo.episodes.len(), 3, "{c:#?}");
    assert_eq!(cargo.label, "cargo", "the class spans subcommands");
    assert_eq!(cargo.actions, vec!["build", "check", "test"]);
    let git = c.iter().find(|c| c.domain == "git").unwrap();
    assert_eq!((git.episodes.len(), git.recovered_in_cluster), (2, 2));
}

#[test]
fn unsafe_fix_is_its_own_group() {
    let h = vec![
        rec("a", "./backup.sh", false, "bash: ./backup.sh: Permission denied"),
        rec("a", "chmod +x backup.sh", true, ""),
        rec("a", "./backup.sh", true, "done"),
        rec("b", "./backup.sh", false, "bash: ./backup.sh: Permission denied"),
        rec("b", "chmod 777 backup.sh", true, ""),
        rec("b", "./backup.sh", true, "done"),
    ];
    let c = cands(&h);
    assert_eq!(c.len(), 2, "{c:#?}");
    assert!(c
        .iter()
        .any(|c| c.unsafe_fix == Some("chmod_777") && c.episodes.len() == 1));
    // Only the allowed fix counts in the contest: the unsafe one does not compete.
    assert!(c.iter().all(|c| c.recovered_in_cluster == 1));
    assert!(c.iter().any(|c| c.unsafe_fix.is_none() && c.covered == Some(1)));
}

#[test]
fn unsafe_fix_does_not_absorb_open_episodes() {
    let h = vec![
        rec("a", "git push", false, "! [rejected] (non-fast-forward)"),
        rec("a", "git push --force", true, "+ forced update"),
        rec("b", "git push", false, "! [rejected] (non-fast-forward)"),
    ];
    let c = cands(&h);
    assert_eq!(c.len(), 2);
    assert!(c
        .iter()
        .any(|c| c.source == DirectiveSource::Pack && c.episodes.len() == 1));
}

#[test]
fn directive_shows_the_shared_fix_with_placeholders() {
    let mut h = Vec::new();
    for (s, b) in [("a", "feature/login"), ("b", "fix/typo")] {
        h.push(rec(
            s,
            &format!("git push origin {b}"),
            false,
            " ! [rejected] (fetch first)",
        ));
        h.push(rec(
            s,
            &format!("git pull --rebase origin {b}"),
            true,
            "Successfully rebased",
        ));
        h.push(rec(s, &format!("git push origin {b}"), true, "ok"));
    }
    let c = cands(&h);
    let fix = c.iter().find(|c| c.source == DirectiveSource::Fix).unwrap();
    assert_eq!(
        fix.directive, "run `git pull --rebase origin <branch>`, then retry `git push`",
        "no session's own branch in the directive"
    );
    // The gates still see what actually ran.
    assert_eq!(
        fix.directive_cmds,
        vec!["git pull --rebase origin fix/typo".to_string()]
    );
}

#[test]
fn dedup_merges_identical_keys() {
    let h = vec![
        rec("a", "python app.py", false, "ModuleNotFoundError: No module named 'x'"),
        rec("b", "python app.py", false, "ModuleNotFoundError: No module named 'y'"),
    ];
    let c = cands(&h);
    assert_eq!(c.len(), 1);
    let twice = dedup(vec![c[0].clone(), c[0].clone()]);
    assert_eq!(twice.len(), 1);
    assert_eq!(twice[0].episodes.len(), 2);
}

#[test]
fn a_variant_is_said_with_placeholders_for_what_varied() {
    let nf = "error: could not find `Cargo.toml` in `/home/dev/w` or any parent directory";
    let mut h = Vec::new();
    for (s, retry) in [
        ("a", "cargo test --manifest-path tiler/Cargo.toml"),
        ("b", "cargo build --manifest-path rust/slugify/Cargo.toml"),
        ("c", "cd tools/ledger && cargo check"),
    ] {
        let fail = retry.replace(" --manifest-path tiler/Cargo.toml", "");
        let fail = fail.replace(" --manifest-path rust/slugify/Cargo.toml", "");
        let fail = fail.replace("cd tools/ledger && ", "");
        h.push(rec(s, &fail, false, nf));
        h.push(rec(s, retry, true, "Finished"));
    }
    let p = Prepared::new(&h);
    let e = extract(&h, &p, WINDOW);
    let c = build(&e, &p, false);
    let v = c
        .iter()
        .find(|c| c.key.ends_with("variant:cd <v>"))
        .expect("one directory fix");
    assert_eq!(v.episodes.len(), 3, "{c:#?}");
    assert!(
        v.directive.contains("--manifest-path <dir>/Cargo.toml"),
        "{}",
        v.directive
    );
    for private in ["tiler", "slugify", "ledger"] {
        assert!(!v.directive.contains(private), "{}", v.directive);
    }
}

/// A conversion is said with where its step wrote and the retry on that file, never as
/// the failing command run again.
#[test]
fn a_conversion_is_said_with_the_file_it_wrote() {
    let h = crate::learn::propose::written_input::tests::converted();
    let said: Vec<String> = cands(&h)
        .into_iter()
        .map(|c| c.directive)
        .filter(|d| d.contains("iconv"))
        .collect();
    assert_eq!(said.len(), 2, "{said:#?}");
    assert!(said.iter().any(|d| d.contains(" > ")), "{said:#?}");
    assert!(
        said.iter()
            .all(|d| d.contains("on the file it wrote: `python3 load.py ")),
        "{said:#?}"
    );
}

/// dev6's `c-shared-object-needs-fpic`: "recompile with -fPIC", and each session gave
/// `-fPIC` its own way — a step rebuilding the object, `make CFLAGS='-O2 -fPIC'`, the link
/// retried from source with `-fPIC`. Three fix keys of one session each contested one
/// another; the option new to the failing command in all of them makes them agree
/// ([`crate::learn::propose::shared_option`]). An option the others did not give agrees
/// with nothing.
#[test]
fn one_option_every_fix_gave_wherever_it_was_given_is_one_fix() {
    let pic = "/usr/bin/ld: obj/a.o: relocation R_X86_64_PC32 against symbol `n' can not be used when making a shared object; recompile with -fPIC\ncollect2: error: ld returned 1 exit status";
    let h = vec![
        rec("a", "gcc -shared -o liba.so obj/a.o", false, pic),
        rec("a", "gcc -fPIC -c src/a.c -o obj/a.o", true, ""),
        rec("a", "gcc -shared -o liba.so obj/a.o", true, ""),
        rec("b", "gcc -shared -o libb.so obj/b.o", false, pic),
        rec("b", "make CFLAGS='-O2 -fPIC' obj/b.o", true, ""),
        rec("b", "gcc -shared -o libb.so obj/b.o", true, ""),
        rec("c", "gcc -shared -o libc.so obj/c.o", false, pic),
        rec("c", "gcc -shared -fPIC -o libc.so src/c.c", true, ""),
        rec("d", "gcc -shared -o libd.so obj/d.o", false, pic),
        rec("d", "gcc -shared -Wl,-z,notext -o libd.so obj/d.o", true, ""),
    ];
    let c = cands(&h);
    let step = c
        .iter()
        .find(|c| c.directive.contains("-fPIC -c"))
        .unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!(step.covered, Some(3), "{step:#?}");
    assert_eq!(step.recovered_in_cluster, 4, "{step:#?}");
}
