//! Issue 29 items 6 and 7 under the real Claude Code CLI (scripted mock API): replay
//! re-runs checks only (a cited `./deploy.sh` runs once, however many stops), a run the
//! evidence hook could not log after the cited pass blocks the stop with its cause, and a
//! `run_in_background` launch is named as one, not as a failure.

mod support;
use serde_json::json;
use support::e2e::*;
use support::harness::{available, Session};

/// `make -s test` passes until a file named `broken` exists.
const MAKEFILE: &str = "test:\n\t@echo 'Ran the tests'\n\t@test ! -f broken\n";

/// Item 6: with `REPLAY: on` in a trusted project, a cited `./deploy.sh` is not run again
/// at stop (the script appends a line per run: one line), the stop is allowed, and the
/// user is told replay skipped it.
#[test]
fn a_cited_deploy_script_runs_once_and_the_skip_is_said() {
    let Some(claude) = available() else { return };
    let o = Session::new("replay-deploy")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. deploy\n")
        .file("deploy.sh", "#!/bin/sh\necho deployed >> deploys.txt\n")
        .pre("chmod +x deploy.sh && fable trust --project .")
        .bash("./deploy.sh")
        .bash(&ledger_step(&[
            "REPLAY: on",
            "- [x] 1. deploy -- evidence: `./deploy.sh` -> deployed, deploys.txt has the line",
        ]))
        .text("Deployed.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 3, "the stop was blocked: {sent:#?}\n{}", o.debug());
    assert!(
        result(&o).contains("Deployed.") && !result(&o).contains("SHOULD NOT"),
        "{}",
        result(&o)
    );
    assert_eq!(
        std::fs::read_to_string(o.proj().join("deploys.txt")).unwrap_or_default(),
        "deployed\n",
        "deploy.sh ran again at stop"
    );
    let told = o.transcript_lines("replay skipped `./deploy.sh`: not a test, build or lint command");
    assert!(!told.is_empty(), "the user is told replay skipped it\n{}", o.debug());
    assert!(o.evidence().iter().all(|r| r["event"] != "Replay"));
}

/// Item 7: the cited `make -s test` passed and was logged; then another process holds
/// `.fable/evidence.lock` while the same command runs again and fails. Its record is lost
/// (the hook gives up on the lock after 5 s, noting why); the log still ends on the pass.
/// The lock is released and another command is logged; the stop is still blocked, naming
/// the lost run and the cause; once the fixed command's rerun is logged, it is allowed.
#[test]
fn a_run_lost_to_a_held_lock_blocks_the_stop_until_a_logged_rerun() {
    let Some(claude) = available() else { return };
    let card = "- [x] 1. tests -- evidence: `make -s test` -> Ran the tests, exit 0";
    let mut s = Session::new("replay-lost")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. tests\n")
        .file("Makefile", MAKEFILE)
        .bash("make -s test")
        .bash(&ledger_step(&[card]))
        .file(
            "hold.py",
            "import fcntl, os, time\nf = open('.fable/evidence.lock', 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nopen('held', 'w').close()\nend = time.time() + 60\nwhile not os.path.exists('release') and time.time() < end:\n    time.sleep(0.1)\n",
        )
        .bash("touch broken")
        // Another process takes the log's lock and keeps it until `release` exists (a
        // plain `flock` on it is denied by the log guard; this one stands for any process
        // that holds it).
        // It has the lock before the next command runs (a background start can lose the
        // race to the very next hook on a fast machine).
        .bash("python3 hold.py >/dev/null 2>&1 & for i in $(seq 100); do [ -e held ] && break; sleep 0.05; done")
        .bash("make -s test")
        // Logged once the lock is free: another command, so the lost run still stands.
        .bash("touch release")
        .text("All done.")
        .bash("rm broken")
        .bash("make -s test")
        .text("Done after the rerun.")
        .text("SHOULD NOT BE REACHED");
    s.timeout = 120;
    let o = s.run(&claude);
    let sent = texts(&o);
    let block = sent
        .iter()
        .find(|t| t.contains("could not be logged"))
        .unwrap_or_else(|| panic!("no block named the lost run: {sent:#?}\n{}", o.debug()));
    assert!(
        block.contains("(`make -s test`) could not be logged: .fable/evidence.lock: still locked after 5s")
            && block.contains("fix it and run the command again"),
        "{block}"
    );
    assert!(
        result(&o).contains("Done after the rerun.") && !result(&o).contains("SHOULD NOT"),
        "{}\n{}",
        result(&o),
        o.debug()
    );
    // The failing run is not in the log: what the project's log shows is pass, then pass.
    let runs: Vec<_> = o
        .evidence()
        .into_iter()
        .filter(|r| r["cmd"] == "make -s test")
        .map(|r| r["exit"].clone())
        .collect();
    assert_eq!(runs, vec![json!(0), json!(0)], "{runs:?}");
}

/// A passing suite run with `run_in_background`: logged as a background launch (exit
/// null, the task id kept), and when cited the stop says it was launched in the
/// background — not that it failed. The foreground rerun backs the card.
#[test]
fn a_cited_background_run_is_named_as_a_background_launch() {
    let Some(claude) = available() else { return };
    let card = "- [x] 1. tests -- evidence: `make -s test` -> Ran the tests";
    let o = Session::new("replay-background")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. tests\n")
        .file("Makefile", MAKEFILE)
        .step(json!({"tool_use": {"name": "Bash", "input": {
            "command": "make -s test", "description": "run the tests", "run_in_background": true}}}))
        .bash(&ledger_step(&[card]))
        .text("All done.")
        .bash("make -s test")
        .text("Done after the foreground run.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    let launch = o
        .evidence()
        .into_iter()
        .find(|r| r["cmd"] == "make -s test")
        .unwrap_or_else(|| panic!("no record of the launch\n{}", o.debug()));
    assert!(launch["exit"].is_null() && launch["background"].is_string(), "{launch}");
    let block = sent
        .iter()
        .find(|t| t.contains("not backed by the evidence log"))
        .unwrap_or_else(|| panic!("the stop was not blocked: {sent:#?}\n{}", o.debug()));
    assert!(
        block.contains("`make -s test` was launched in the background; run it in the foreground to back a card"),
        "{block}"
    );
    assert!(!block.contains("exit unknown"), "{block}");
    assert!(
        result(&o).contains("Done after the foreground run.") && !result(&o).contains("SHOULD NOT"),
        "{}",
        result(&o)
    );
}
