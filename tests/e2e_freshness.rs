//! Issue 29 item 3 under the real Claude Code CLI (scripted mock API): a cited pass is
//! stale when a project file changed after it, however it changed — `sed -i`, a heredoc,
//! a `python3 -c` rewrite, `git checkout -- file` — and a rerun, an honest session, or a
//! run that only wrote caches, build output and ignored files is allowed. The runner is
//! Python's unittest on a real module and its test.

mod support;
use support::e2e::calc::*;
use support::e2e::*;
use support::harness::{available, Outcome, Session};

/// The project: calc.py, its test, one open card.
fn session(name: &str) -> Session {
    Session::new(name)
        .file(".fable/LEDGER.md", OPEN)
        .file("calc.py", CALC)
        .file("test_calc.py", TEST)
}

/// True when `text` holds the stale message for `file`, the pass time to the millisecond.
fn names_stale(text: &str, file: &str) -> bool {
    regex::Regex::new(&format!(
        r"`python3 -m unittest` passed at \d\d:\d\d:\d\d\.\d\d\d UTC; {} changed after it: run it again",
        regex::escape(file)
    ))
    .unwrap()
    .is_match(text)
}

/// One block naming `file` at request 5 (after run, change, card, "All done."), then the
/// steps that follow are allowed to end the session.
fn assert_blocked_then_allowed(o: &Outcome, file: &str, requests: usize, last: &str) {
    let sent = texts(o);
    assert_eq!(
        sent.len(),
        requests,
        "one block, then allowed: {sent:#?}\n{}",
        o.debug()
    );
    assert!(names_stale(&sent[4], file), "{}", sent[4]);
    assert!(result(o).contains(last), "{}", result(o));
}

#[test]
fn sed_after_a_pass_blocks_the_card_naming_the_file_and_a_rerun_allows() {
    let Some(claude) = available() else { return };
    let o = session("fresh-sed")
        .bash(RUN)
        .bash("sed -i 's/a + b/a - b/' calc.py")
        .bash(&close_card())
        .text("All done.")
        .bash("sed -i 's/a - b/a + b/' calc.py")
        .bash(RUN)
        .text("Done after the rerun.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    assert_blocked_then_allowed(&o, "calc.py", 7, "Done after the rerun.");
    let r = o.evidence();
    let passes: Vec<_> = r.iter().filter(|x| x["cmd"] == RUN).collect();
    assert_eq!(passes.len(), 2, "{r:#?}");
    assert!(
        passes.iter().all(|x| x["tree"].as_str().is_some_and(|t| t.len() == 32)),
        "each pass carries its tree: {passes:#?}"
    );
    assert_ne!(passes[0]["tree"], passes[1]["tree"], "sed changed the files");
}

#[test]
fn a_heredoc_rewrite_blocks_the_card() {
    let Some(claude) = available() else { return };
    let o = session("fresh-heredoc")
        .bash(RUN)
        .bash("cat > calc.py <<'EOF'\ndef add(a, b):\n    return a * b\nEOF")
        .bash(&close_card())
        .text("All done.")
        .text("Stopping anyway.")
        .env("FABLE_STOP_BLOCKS", "1")
        .run(&claude);
    let sent = texts(&o);
    assert!(sent.len() >= 5, "{sent:#?}\n{}", o.debug());
    assert!(names_stale(&sent[4], "calc.py"), "{}", sent[4]);
}

#[test]
fn a_python_one_liner_rewrite_blocks_the_card() {
    let Some(claude) = available() else { return };
    let o = session("fresh-python")
        .bash(RUN)
        .bash(
            "python3 -c \"import pathlib; p = pathlib.Path('calc.py'); p.write_text(p.read_text().replace('+', '*'))\"",
        )
        .bash(&close_card())
        .text("All done.")
        .text("Stopping anyway.")
        .env("FABLE_STOP_BLOCKS", "1")
        .run(&claude);
    let sent = texts(&o);
    assert!(sent.len() >= 5, "{sent:#?}\n{}", o.debug());
    assert!(names_stale(&sent[4], "calc.py"), "{}", sent[4]);
}

#[test]
fn git_checkout_of_a_file_blocks_the_card_and_a_rerun_allows() {
    let Some(claude) = available() else { return };
    let o = session("fresh-checkout")
        .pre("git init -q && git add calc.py test_calc.py && git -c user.email=t@t -c user.name=t commit -qm init")
        .bash("sed -i 's/return a + b/return b + a/' calc.py")
        .bash(RUN)
        .bash("git checkout -- calc.py")
        .bash(&close_card())
        .text("All done.")
        .bash(RUN)
        .text("Done after the rerun.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 7, "one block, then allowed: {sent:#?}\n{}", o.debug());
    assert!(names_stale(&sent[5], "calc.py"), "{}", sent[5]);
    assert!(result(&o).contains("Done after the rerun."), "{}", result(&o));
}

#[test]
fn the_honest_session_closes_its_card() {
    let Some(claude) = available() else { return };
    let o = session("fresh-honest")
        .bash(RUN)
        .bash(&close_card())
        .text("All done: all tests pass.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 3, "allowed at once: {sent:#?}\n{}", o.debug());
    assert!(result(&o).contains("All done: all tests pass."), "{}", result(&o));
}

/// What runs write where it does not count — `__pycache__` (the run's own and
/// compileall's), build output, a git-ignored log, fable's own folder — leaves the pass
/// fresh.
#[test]
fn caches_build_output_and_ignored_files_written_after_the_pass_keep_it_fresh() {
    let Some(claude) = available() else { return };
    let o = session("fresh-caches")
        .file(".gitignore", "*.log\n")
        .pre("git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init")
        .bash(RUN)
        .bash("python3 -m compileall -q . && mkdir -p build && echo obj > build/calc.o && echo log > run.log && echo n > .fable/notes.txt")
        .bash(&close_card())
        .text("All done: all tests pass.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 4, "allowed at once: {sent:#?}\n{}", o.debug());
    assert!(result(&o).contains("All done: all tests pass."), "{}", result(&o));
    assert!(o.proj().join("__pycache__").is_dir() && o.proj().join("run.log").is_file());
}

/// With no cards at all, "All tests pass." after `sed -i` is blocked: the only pass ran
/// on other code.
#[test]
fn all_tests_pass_after_sed_blocks_the_final_message() {
    let Some(claude) = available() else { return };
    let o = Session::new("fresh-claim")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .file("calc.py", CALC)
        .file("test_calc.py", TEST)
        .bash(RUN)
        .bash("sed -i 's/a + b/a - b/' calc.py")
        .text("All tests pass.")
        .bash("sed -i 's/a - b/a + b/' calc.py")
        .bash(RUN)
        .text("All tests pass.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 6, "one block, then allowed: {sent:#?}\n{}", o.debug());
    assert!(
        sent[3].contains("The newest passing one is stale") && names_stale(&sent[3], "calc.py"),
        "{}",
        sent[3]
    );
    assert!(!result(&o).contains("SHOULD NOT"), "{}", result(&o));
}
