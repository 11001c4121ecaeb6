//! Issue 29 item 3 at the binaries: a cited pass is stale when any project file changed
//! after it — whatever changed it, in any session — decided by the files' state, not by
//! the clock. Each case logs runs through the real `fable-evidence` (sealed, with the
//! project's `tree`), changes files the way an agent's shell would, and asks the real
//! `fable-close-guard`.

mod common_discipline;
use common_discipline::*;
use serde_json::{json, Value};
use std::fs;
use std::process::Command;

const RUN: &str = "python3 -m unittest";
const CARD: &str = "- [x] 1. calc -- evidence: `python3 -m unittest` -> 3 passed\n";
const HOUR_MS: &str = "3600000";

/// A project with calc.py, and the card citing the run.
fn project() -> Proj {
    let p = Proj::new();
    p.write("calc.py", "def add(a, b):\n    return a + b\n");
    p.write("test_calc.py", "import unittest\n");
    p.ledger(CARD);
    p
}

/// A project that is a real git repository (calc.py committed, `*.log` ignored).
fn git_project() -> Proj {
    let p = Proj::new();
    fs::remove_dir_all(p.root.join(".git")).unwrap();
    p.write("calc.py", "def add(a, b):\n    return a + b\n");
    p.write(".gitignore", "*.log\n");
    sh(
        &p,
        "git init -q && git add calc.py .gitignore && git -c user.email=t@t -c user.name=t commit -qm init",
    );
    p.ledger(CARD);
    p
}

/// Runs a shell command in the project, as the agent's Bash tool would.
fn sh(p: &Proj, script: &str) {
    let o = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(&p.root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{script}: {}", String::from_utf8_lossy(&o.stderr));
}

const UNITTEST_OK: &str =
    "...\n----------------------------------------------------------------------\nRan 3 tests in 0.001s\n\nOK\n";

/// Logs a passing run of `cmd` in session `sid` through the real hook.
fn ran(p: &Proj, sid: &str, cmd: &str, env: &[(&str, &str)]) {
    ran_with(p, sid, cmd, UNITTEST_OK, env)
}

fn ran_with(p: &Proj, sid: &str, cmd: &str, output: &str, env: &[(&str, &str)]) {
    let v = json!({"session_id": sid, "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": cmd}, "tool_use_id": call_id(),
        "tool_response": {"stdout": "", "stderr": output, "interrupted": false}});
    let root = p.root.to_string_lossy().into_owned();
    let mut all = vec![("CLAUDE_PROJECT_DIR", root.as_str())];
    all.extend_from_slice(env);
    let o = p.hook_env("fable-evidence", v, &all);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// Logs a Write edit record of `rel` in session `sid` (the file itself is written by the caller).
fn wrote(p: &Proj, sid: &str, rel: &str, env: &[(&str, &str)]) {
    let file = p.root.join(rel).to_string_lossy().into_owned();
    let v = json!({"session_id": sid, "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": file, "content": "x"},
        "tool_response": {"type": "update", "filePath": file}, "tool_use_id": call_id()});
    let o = p.hook_env("fable-evidence", v, env);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

fn stop(p: &Proj, sid: &str, message: &str) -> std::process::Output {
    p.hook(
        "fable-close-guard",
        json!({"session_id": sid, "hook_event_name": "Stop", "stop_hook_active": false,
               "last_assistant_message": message}),
    )
}

fn last_record(p: &Proj) -> Value {
    p.records().pop().unwrap()
}

/// The block names the file and shows the pass's time to the millisecond.
fn assert_stale_naming(o: &std::process::Output, file: &str) {
    assert_eq!(stop_code(o), 2, "{}", said(o));
    let s = said(o);
    let re = regex::Regex::new(&format!(
        r"`python3 -m unittest` passed at \d\d:\d\d:\d\d\.\d\d\d UTC; {} changed after it: run it again",
        regex::escape(file)
    ))
    .unwrap();
    assert!(re.is_match(&s), "{s}");
}

#[test]
fn sed_after_a_pass_blocks_naming_the_file_and_a_rerun_allows() {
    let p = project();
    ran(&p, "s", RUN, &[]);
    let rec = last_record(&p);
    assert!(rec["tree"].as_str().is_some_and(|t| t.len() == 32), "{rec}");
    assert_eq!(
        stop_code(&stop(&p, "s", "Done.")),
        0,
        "the honest session: {}",
        said(&stop(&p, "s", "Done."))
    );
    sh(&p, "sed -i 's/a + b/a - b/' calc.py");
    assert_stale_naming(&stop(&p, "s", "Done."), "calc.py");
    ran(&p, "s", RUN, &[]);
    assert_eq!(
        stop_code(&stop(&p, "s", "Done.")),
        0,
        "{}",
        said(&stop(&p, "s", "Done."))
    );
}

#[test]
fn a_heredoc_a_python_rewrite_and_a_removal_block() {
    let p = project();
    ran(&p, "s", RUN, &[]);
    sh(&p, "cat > calc.py <<'EOF'\ndef add(a, b):\n    return a * b\nEOF");
    assert_stale_naming(&stop(&p, "s", "Done."), "calc.py");
    ran(&p, "s", RUN, &[]);
    sh(
        &p,
        "python3 -c \"import pathlib; p = pathlib.Path('calc.py'); p.write_text(p.read_text().replace('*', '+'))\"",
    );
    assert_stale_naming(&stop(&p, "s", "Done."), "calc.py");
    ran(&p, "s", RUN, &[]);
    sh(&p, "rm test_calc.py && printf 'x = 1\\n' > helper.py");
    assert_stale_naming(&stop(&p, "s", "Done."), "helper.py (new) and test_calc.py (removed)");
}

#[test]
fn git_checkout_of_a_file_blocks_and_ignored_files_and_caches_do_not() {
    let p = git_project();
    sh(&p, "printf 'def add(a, b):\\n    return a + b + 0\\n' > calc.py");
    ran(&p, "s", RUN, &[]);
    // What a run (or anything) writes where it does not count: caches, build output,
    // git-ignored files, fable's own folder.
    sh(&p, "mkdir -p __pycache__ build node_modules/x && echo x > __pycache__/calc.cpython-312.pyc && echo x > build/out.o && echo x > node_modules/x/i.js && echo x > run.log && echo x > .fable/notes");
    assert_eq!(
        stop_code(&stop(&p, "s", "All tests pass.")),
        0,
        "{}",
        said(&stop(&p, "s", "All tests pass."))
    );
    sh(&p, "git checkout -- calc.py");
    assert_stale_naming(&stop(&p, "s", "Done."), "calc.py");
    // An untracked file that is not ignored counts.
    ran(&p, "s", RUN, &[]);
    sh(&p, "echo 'y = 2' > util.py");
    assert_stale_naming(&stop(&p, "s", "Done."), "util.py (new)");
}

#[test]
fn an_edit_in_an_earlier_session_is_seen() {
    let p = project();
    ran(&p, "first", RUN, &[]);
    p.write("calc.py", "def add(a, b):\n    return b - a\n");
    wrote(&p, "first", "calc.py", &[]);
    // A new session closes a card on the first session's pass.
    assert_stale_naming(&stop(&p, "second", "Done."), "calc.py");
    ran(&p, "second", RUN, &[]);
    assert_eq!(
        stop_code(&stop(&p, "second", "Done.")),
        0,
        "{}",
        said(&stop(&p, "second", "Done."))
    );
}

#[test]
fn a_success_claim_backed_only_by_a_stale_pass_blocks() {
    let p = project();
    p.ledger("# no cards\n");
    ran(&p, "s", RUN, &[]);
    assert_eq!(stop_code(&stop(&p, "s", "All tests pass.")), 0);
    sh(&p, "sed -i 's/a + b/a - b/' calc.py");
    let o = stop(&p, "s", "All tests pass.");
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(
        said(&o).contains("The newest passing one is stale: `python3 -m unittest` passed at")
            && said(&o).contains("; calc.py changed after it"),
        "{}",
        said(&o)
    );
    ran(&p, "s", RUN, &[]);
    assert_eq!(stop_code(&stop(&p, "s", "All tests pass.")), 0);
}

#[test]
fn a_pass_dated_an_hour_ahead_is_still_caught() {
    let p = project();
    ran(&p, "s", RUN, &[("FABLE_TEST_CLOCK_OFFSET_MS", HOUR_MS)]);
    let pass_ts = last_record(&p)["ts"].as_str().unwrap().to_string();
    p.write("calc.py", "def add(a, b):\n    return 0\n");
    wrote(&p, "s", "calc.py", &[]);
    let edit_ts = last_record(&p)["ts"].as_str().unwrap().to_string();
    assert!(
        pass_ts > edit_ts,
        "by the clock the pass is newer: {pass_ts} vs {edit_ts}"
    );
    assert_stale_naming(&stop(&p, "s", "Done."), "calc.py");
}

#[test]
fn an_honest_rerun_after_the_clock_jumped_back_an_hour_is_allowed() {
    let p = project();
    ran(&p, "s", RUN, &[]);
    p.write("calc.py", "def add(a, b):\n    return a + b  # fixed\n");
    wrote(&p, "s", "calc.py", &[]);
    let edit_ts = last_record(&p)["ts"].as_str().unwrap().to_string();
    ran(&p, "s", RUN, &[("FABLE_TEST_CLOCK_OFFSET_MS", "-3600000")]);
    let rerun_ts = last_record(&p)["ts"].as_str().unwrap().to_string();
    assert!(
        rerun_ts < edit_ts,
        "by the clock the rerun is older: {rerun_ts} vs {edit_ts}"
    );
    let o = stop(&p, "s", "All tests pass.");
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
}

#[test]
fn ordinary_commands_take_no_snapshot_and_keep_the_edit_rule() {
    let p = project();
    ran_with(&p, "s", "ls -la", "calc.py\ntest_calc.py\n", &[]);
    assert!(last_record(&p).get("tree").is_none(), "{}", last_record(&p));
    // A cited non-runner keeps the time-based rule over edit records.
    p.ledger("- [x] 1. listed -- evidence: `ls -la` -> files shown\n");
    std::thread::sleep(std::time::Duration::from_millis(5));
    wrote(&p, "s", "calc.py", &[]);
    let o = stop(&p, "s", "Done.");
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    let re = regex::Regex::new(
        r"`ls -la` passed at \d\d:\d\d:\d\d\.\d\d\d UTC, before your edit of calc.py at \d\d:\d\d:\d\d\.\d\d\d UTC",
    )
    .unwrap();
    assert!(re.is_match(&said(&o)), "{}", said(&o));
    // Freshness off: no snapshot, no check.
    ran(&p, "s", RUN, &[("FABLE_FRESHNESS", "off")]);
    assert!(last_record(&p).get("tree").is_none());
}

#[test]
fn the_per_file_snapshot_is_private_and_a_lost_one_still_blocks_unnamed() {
    let p = project();
    ran(&p, "s", RUN, &[]);
    let tree = last_record(&p)["tree"].as_str().unwrap().to_string();
    let trees = p.state_home().join("fable/trees");
    let found: Vec<_> = walk(&trees).into_iter().filter(|f| f.ends_with(&tree)).collect();
    assert_eq!(found.len(), 1, "{found:?}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(fs::metadata(&found[0]).unwrap().permissions().mode() & 0o777, 0o600);
    fs::remove_file(&found[0]).unwrap();
    sh(&p, "sed -i 's/a + b/a - b/' calc.py");
    let o = stop(&p, "s", "Done.");
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(said(&o).contains("; project files changed after it"), "{}", said(&o));
}

fn walk(d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(d).into_iter().flatten().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

/// Outside git there are no ignore rules: what a later test run writes (coverage data,
/// an HTML report, an egg-info) must not make the lint pass before it stale.
#[test]
fn lint_then_tests_with_coverage_output_keeps_both_passes_fresh() {
    let p = project();
    ran(&p, "s", "ruff check .", &[]);
    sh(&p, "mkdir -p htmlcov calc.egg-info && echo x > .coverage && echo x > htmlcov/index.html && echo x > calc.egg-info/PKG-INFO && mkdir -p .claude && echo {} > .claude/settings.local.json");
    ran(&p, "s", RUN, &[]);
    p.ledger("- [x] 1. calc -- evidence: `ruff check .` -> clean; `python3 -m unittest` -> 3 passed\n");
    let o = stop(&p, "s", "Done.");
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    // A source file is still a change.
    sh(&p, "echo '# note' >> calc.py");
    let o = stop(&p, "s", "Done.");
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(
        said(&o).contains("`ruff check .` passed at") && said(&o).contains("; calc.py changed after it"),
        "{}",
        said(&o)
    );
}
