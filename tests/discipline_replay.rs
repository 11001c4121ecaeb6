//! Acceptance replay (`REPLAY: on`) and `fable trust` / `fable replay`.
//! Ports test_evidence's replay checks and covers what the ancestor never tested:
//! timeouts, the budget, the folder, process-group kills, and the trust gate.

mod common_discipline;
use common_discipline::*;
use serde_json::json;
use std::time::{Duration, Instant};

fn replay_ledger(cites: &[&str]) -> String {
    let mut s = String::from("REPLAY: on\n");
    for (i, c) in cites.iter().enumerate() {
        s.push_str(&format!("- [x] {}. card -- evidence: `{c}` -> passed\n", i + 1));
    }
    s
}

/// What a logged check prints: a test summary (`unittest`'s), so the record is a check
/// whatever its command looks like, and replay may run it again.
const CHECK_OUTPUT: &str =
    "..\n----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nOK\n";

/// Logs runs as [`Proj::log`] does, the passes with a test summary in their output: a
/// command replay treats as a check.
fn check(p: &Proj, recs: &[(&str, i64, bool)]) {
    let root = p.root.to_string_lossy().into_owned();
    for (cmd, exit, ok) in recs {
        if *ok && *exit == 0 {
            check_at(p, cmd, &root);
        } else {
            p.log_at(cmd, *exit, *ok, &root);
        }
    }
}

/// A passing check run in `cwd`.
fn check_at(p: &Proj, cmd: &str, cwd: &str) {
    let payload = json!({"session_id":"s","cwd":cwd,"hook_event_name":"PostToolUse","tool_name":"Bash",
        "tool_input":{"command":cmd},"tool_response":{"stdout":CHECK_OUTPUT,"stderr":"","interrupted":false}});
    assert_eq!(code(&p.hook("fable-evidence", payload)), 0);
}

// ---- ancestor test_evidence: Replay (3) ----

#[test]
fn passing_replay_allows_and_is_logged() {
    let p = Proj::new();
    p.ledger(&replay_ledger(&["true"]));
    check(&p, &[("true", 0, true)]);
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    let last = p.records().pop().unwrap();
    assert_eq!(
        (last["event"].as_str(), last["cmd"].as_str(), last["ok"].as_bool()),
        (Some("Replay"), Some("true"), Some(true))
    );
    assert_eq!(last["exit"], 0);
}

#[test]
fn failing_replay_blocks_with_the_output_tail() {
    let p = Proj::new();
    p.ledger(&replay_ledger(&[
        "test -f built.txt || { echo missing artefact built.txt; false; }",
    ]));
    check(
        &p,
        &[(
            "test -f built.txt || { echo missing artefact built.txt; false; }",
            0,
            true,
        )],
    );
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 2);
    let e = said(&o);
    assert!(e.contains("exit 1") && e.contains("missing artefact built.txt"), "{e}");
    let last = p.records().pop().unwrap();
    assert_eq!(
        (last["event"].as_str(), last["ok"].as_bool()),
        (Some("Replay"), Some(false))
    );
    // The failed replay is now the newest record: the next stop blocks on corroboration.
    let e = said(&p.stop());
    assert!(e.contains("failed on its latest run"), "{e}");
}

#[test]
fn replay_is_off_by_default() {
    let p = Proj::new();
    let marker = p.root.join("ran.txt");
    p.ledger("- [x] 1. card -- evidence: `touch ran.txt` -> done and checked\n");
    p.log(&[("touch ran.txt", 0, true)]);
    p.trust();
    assert_eq!(stop_code(&p.stop()), 0);
    assert!(!marker.exists());
}

// ---- the trust gate ----

#[test]
fn committed_ledger_in_untrusted_project_runs_nothing() {
    let p = Proj::new();
    let marker = p.root.join("pwned.txt");
    p.ledger(&replay_ledger(&["touch pwned.txt"]));
    check(&p, &[("touch pwned.txt", 0, true)]);
    let o = p.stop();
    assert_eq!(stop_code(&o), 0);
    assert!(!marker.exists(), "an untrusted ledger made the hook execute a command");
    assert!(said(&o).contains("not trusted"), "{}", said(&o));
    // Trust lives in the user's config folder, never in the repository.
    assert!(!p.fable().join("trusted.json").exists());
    p.trust();
    assert!(p.config_dir().join("trusted.json").exists());
    assert_eq!(stop_code(&p.stop()), 0);
    assert!(marker.exists());
}

#[test]
fn only_cited_commands_with_a_passing_record_replay() {
    let p = Proj::new();
    p.ledger("REPLAY: on\n- [x] 1. a -- evidence: `touch cited.txt` -> ok and checked\n");
    check(&p, &[("touch cited.txt", 0, true), ("touch uncited.txt", 0, true)]);
    p.trust();
    assert_eq!(stop_code(&p.stop()), 0);
    assert!(p.root.join("cited.txt").exists());
    assert!(!p.root.join("uncited.txt").exists());
    // A cited command that never passed is reported by corroboration and never run.
    p.ledger("REPLAY: on\n- [x] 1. a -- evidence: `touch never.txt` -> ok and checked\n");
    check(&p, &[("touch never.txt", 1, false)]);
    assert_eq!(stop_code(&p.stop()), 2);
    assert!(!p.root.join("never.txt").exists());
}

#[test]
fn trust_list_and_remove() {
    let p = Proj::new();
    p.trust();
    let o = p.cli(&["trust", "--list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["trusted"][0].as_str().unwrap(), p.root.to_str().unwrap());
    // Trusting a subfolder trusts the project root; trusting twice changes nothing.
    std::fs::create_dir_all(p.root.join("src")).unwrap();
    let o = p.cli(&["trust", p.root.join("src").to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["changed"], false);
    let o = p.cli(&["trust", "--remove", p.root.to_str().unwrap()]);
    assert!(o.status.success());
    let o = p.cli(&["trust", "--list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["trusted"].as_array().unwrap().len(), 0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let m = std::fs::metadata(p.config_dir().join("trusted.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(m & 0o777, 0o600);
    }
}

#[test]
fn trust_falls_back_to_xdg_config_home() {
    let p = Proj::new();
    let o = p
        .cmd("fable")
        .env_remove("FABLE_CONFIG_DIR")
        .arg("trust")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", said(&o));
    assert!(p.home.join("xdg-config/fable/trusted.json").exists());
}

// ---- timeouts, budget, folder (ancestor §5 "not covered") ----

#[test]
fn per_command_timeout() {
    let p = Proj::new();
    p.ledger(&replay_ledger(&["sleep 20"]));
    check(&p, &[("sleep 20", 0, true)]);
    p.trust();
    let t = Instant::now();
    let o = p.stop_env(&[("FABLE_REPLAY_TIMEOUT", "0.5")]);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(stop_code(&o), 2);
    assert!(said(&o).contains("timed out after 0.5s"), "{}", said(&o));
}

#[test]
fn total_budget_is_enforced() {
    let p = Proj::new();
    p.ledger(&replay_ledger(&["sleep 0.6", "sleep 0.61", "sleep 0.62"]));
    check(
        &p,
        &[("sleep 0.6", 0, true), ("sleep 0.61", 0, true), ("sleep 0.62", 0, true)],
    );
    p.trust();
    let t = Instant::now();
    let o = p.stop_env(&[("FABLE_REPLAY_TIMEOUT", "5"), ("FABLE_REPLAY_BUDGET", "1")]);
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    assert_eq!(stop_code(&o), 2);
    let e = said(&o);
    assert!(!e.contains("`sleep 0.6` ->"), "the first fits the budget: {e}");
    assert!(e.contains("`sleep 0.61` -> timed out"), "{e}");
    assert!(
        e.contains("`sleep 0.62` -> not replayed: the 1s replay budget is spent"),
        "{e}"
    );
}

#[test]
fn replay_runs_in_the_folder_of_the_newest_record() {
    let p = Proj::named("proj with space", true);
    let sub = p.root.join("sub dir");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("here.txt"), "x").unwrap();
    p.ledger(&replay_ledger(&["test -f here.txt"]));
    // Claude Code logs the shell's cwd after the command: `cd "sub dir" && …` ran in sub dir.
    check_at(&p, "cd \"sub dir\" && test -f here.txt", sub.to_str().unwrap());
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    let last = p.records().pop().unwrap();
    assert_eq!(last["cwd"].as_str().unwrap(), sub.to_str().unwrap());
}

#[test]
fn timeout_kills_the_whole_process_group() {
    let p = Proj::new();
    let cmd = "sleep 30 & echo $! > grandchild.pid; wait";
    p.ledger(&replay_ledger(&[cmd]));
    check(&p, &[(cmd, 0, true)]);
    p.trust();
    let o = p.stop_env(&[("FABLE_REPLAY_TIMEOUT", "1")]);
    assert_eq!(stop_code(&o), 2);
    let pid: i32 = std::fs::read_to_string(p.root.join("grandchild.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    while !process_gone(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(process_gone(pid), "grandchild {pid} outlived the hook");
}

#[test]
fn background_stragglers_of_a_passing_command_are_killed_too() {
    let p = Proj::new();
    let cmd = "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid";
    p.ledger(&replay_ledger(&[cmd]));
    check(&p, &[(cmd, 0, true)]);
    p.trust();
    let t = Instant::now();
    assert_eq!(stop_code(&p.stop()), 0);
    assert!(t.elapsed() < Duration::from_secs(5));
    let pid: i32 = std::fs::read_to_string(p.root.join("bg.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    while !process_gone(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(process_gone(pid));
}

#[test]
fn light_mode_with_replay_on_still_replays() {
    let p = Proj::new();
    p.ledger("MODE: light\nREPLAY: on\n- [ ] 2. open, ignored in light mode\n- [x] 1. a -- evidence: `test -f gone.txt` -> present\n");
    check(&p, &[("test -f gone.txt", 0, true)]);
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 2);
    assert!(said(&o).contains("`test -f gone.txt` -> exit 1"), "{}", said(&o));
}

#[test]
fn paused_skips_replay() {
    let p = Proj::new();
    p.ledger(
        "PAUSED: user wants a hotfix first\nREPLAY: on\n- [x] 1. a -- evidence: `touch p.txt` -> ok and checked\n",
    );
    p.log(&[("touch p.txt", 0, true)]);
    p.trust();
    assert_eq!(stop_code(&p.stop()), 0);
    assert!(!p.root.join("p.txt").exists());
}

// ---- fable replay (manual) ----

#[test]
fn cli_replay_refuses_untrusted_and_reports_trusted() {
    let p = Proj::new();
    p.ledger(&replay_ledger(&["touch cli.txt", "false"]));
    check(&p, &[("touch cli.txt", 0, true), ("false", 0, true)]);
    let o = p.cli(&["replay", p.root.to_str().unwrap()]);
    assert_eq!(stop_code(&o), 2);
    assert!(!p.root.join("cli.txt").exists());
    p.trust();
    let o = p.cli(&["replay", p.root.to_str().unwrap(), "--json"]);
    assert_eq!(stop_code(&o), 1, "{}", said(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["failed"], 1);
    assert_eq!(v["results"][0]["passed"], true);
    assert_eq!(v["results"][1]["passed"], false);
    assert!(p.root.join("cli.txt").exists());
    assert_eq!(p.records().iter().filter(|r| r["event"] == json!("Replay")).count(), 2);
}

// ---- what runs is the logged text, never the normalised citation ----

#[test]
fn a_heredoc_replays_exactly_what_ran() {
    let p = Proj::new();
    // A build from a heredoc Makefile: tabs and newlines matter to make, and `$$HOME`
    // must reach make as written.
    let logged = "make -s -f - <<'EOF'\nall:\n\t@echo 'hello $$HOME' > out.txt\nEOF";
    // A backticked citation is one line: the ledger cites the whitespace-collapsed form.
    p.ledger(&replay_ledger(&[
        "make -s -f - <<'EOF' all: @echo 'hello $$HOME' > out.txt EOF",
    ]));
    p.log(&[(logged, 0, true)]);
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert_eq!(
        std::fs::read_to_string(p.root.join("out.txt")).unwrap(),
        "hello $HOME\n"
    );
    // The replay's own record keeps the text that ran, so the next replay runs it again.
    let last = p.records().pop().unwrap();
    assert_eq!(
        (last["event"].as_str(), last["cmd"].as_str()),
        (Some("Replay"), Some(logged))
    );
    std::fs::remove_file(p.root.join("out.txt")).unwrap();
    let o = p.cli(&["replay", "--json"]);
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["results"][0]["ran"].as_str(), Some(logged));
    assert_eq!(
        std::fs::read_to_string(p.root.join("out.txt")).unwrap(),
        "hello $HOME\n"
    );
}

#[test]
fn an_nbsp_in_the_logged_argument_stays_one_argument() {
    let p = Proj::new();
    // To the shell a no-break space is part of a word; the citation collapses it to a space.
    let logged = "printf '%s\\n' x\u{a0}y > nb.txt";
    p.ledger(&replay_ledger(&["printf '%s\\n' x y > nb.txt"]));
    check(&p, &[(logged, 0, true)]);
    p.trust();
    assert_eq!(stop_code(&p.stop()), 0);
    assert_eq!(std::fs::read_to_string(p.root.join("nb.txt")).unwrap(), "x\u{a0}y\n");
}

#[test]
fn a_redacted_command_is_not_replayed_does_not_block_and_is_said_once() {
    let p = Proj::new();
    let secret = "echo \"Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456\" > leaked.txt";
    assert_eq!(stop_code(&p.hook("fable-evidence", success("s", secret))), 0);
    let logged = p.records().pop().unwrap()["cmd"].as_str().unwrap().to_string();
    assert_eq!(logged, "echo \"Authorization: Bearer [REDACTED]\" > leaked.txt");
    // The card cites what the log shows; corroboration accepts it, replay must not run it.
    p.ledger(&replay_ledger(&[&logged]));
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    let e = system_message(&o).unwrap_or_default();
    assert!(
        e.contains("replay skipped `echo \"Authorization: Bearer [REDACTED]\" > leaked.txt`: the logged command was redacted (it carried a secret)"),
        "{e}"
    );
    assert!(!p.root.join("leaked.txt").exists(), "a redacted command was run");
    assert!(p.records().iter().all(|r| r["event"] != json!("Replay")));
    // Said once per project and command: the next stop is quiet about it.
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert!(!said(&o).contains("replay skipped"), "{}", said(&o));
    let o = p.cli(&["replay"]);
    assert_eq!(stop_code(&o), 0, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("SKIP replay skipped") && stdout(&o).contains("the logged command was redacted"),
        "{}",
        stdout(&o)
    );
    assert!(!p.root.join("leaked.txt").exists());
}

/// The case: a test command run with a secret in an env prefix is logged with
/// the secret masked. Replay cannot run it (the secret is gone), and must not block on it
/// for ever ("redacted, cannot replay" at every stop).
#[test]
fn a_check_with_a_secret_env_prefix_is_skipped_not_blocked() {
    let p = Proj::new();
    p.write("Makefile", "check:\n\t@echo ran >> runs.txt\n");
    let secret = "DB_PASSWORD=hunter2hunter2 make check";
    assert_eq!(stop_code(&p.hook("fable-evidence", success("s", secret))), 0);
    let logged = p.records().pop().unwrap()["cmd"].as_str().unwrap().to_string();
    assert_eq!(logged, "DB_PASSWORD=[REDACTED] make check");
    p.ledger(&replay_ledger(&[&logged]));
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert!(
        said(&o).contains("replay skipped `DB_PASSWORD=[REDACTED] make check`"),
        "{}",
        said(&o)
    );
    assert!(!p.root.join("runs.txt").exists(), "a redacted command was run");
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert!(!said(&o).contains("replay skipped"), "{}", said(&o));
}

// ---- replay runs checks only (issue 29 item 6) ----

/// `./deploy.sh` ran once because the agent meant it to. Cited on a card with REPLAY: on
/// in a trusted project, it is not run again at stop; the stop is allowed, and the user
/// is told why it was not replayed.
#[test]
fn a_cited_deploy_script_is_not_rerun_and_the_skip_is_said() {
    let p = Proj::new();
    let script = p.write("deploy.sh", "#!/bin/sh\necho deployed >> deploys.txt\n");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // The agent's run, for real, then logged as the hook logs it.
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg("./deploy.sh")
        .current_dir(&p.root)
        .status()
        .unwrap();
    assert!(ran.success());
    p.log(&[("./deploy.sh", 0, true)]);
    p.ledger(&replay_ledger(&["./deploy.sh"]));
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert_eq!(
        std::fs::read_to_string(p.root.join("deploys.txt")).unwrap(),
        "deployed\n",
        "deploy.sh ran again"
    );
    assert_eq!(
        system_message(&o).unwrap_or_default().lines().find(|l| l.contains("replay skipped")),
        Some("fable: replay skipped `./deploy.sh`: not a test, build or lint command (replay never re-runs other commands)"),
        "{}",
        said(&o)
    );
    assert!(p.records().iter().all(|r| r["event"] != json!("Replay")));
}

/// `mkdir build` can never pass a second time; it is not replayed, so it cannot block.
#[test]
fn a_cited_mkdir_is_not_replayed() {
    let p = Proj::new();
    std::fs::create_dir(p.root.join("build")).unwrap();
    p.log(&[("mkdir build", 0, true)]);
    p.ledger(&replay_ledger(&["mkdir build"]));
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert!(said(&o).contains("replay skipped `mkdir build`"), "{}", said(&o));
    assert!(p.records().iter().all(|r| r["event"] != json!("Replay")));
}

/// A cited test command IS replayed, next to a skipped one, and a now-failing one blocks.
#[test]
fn a_cited_test_command_is_replayed_and_a_now_failing_one_blocks() {
    let p = Proj::new();
    p.write("Makefile", "test:\n\t@echo ran >> runs.txt\n\t@test ! -f broken\n");
    let make = std::process::Command::new("make")
        .args(["-s", "test"])
        .current_dir(&p.root)
        .status()
        .unwrap();
    assert!(make.success());
    p.log(&[("make -s test", 0, true), ("./deploy.sh", 0, true)]);
    p.ledger(&replay_ledger(&["make -s test", "./deploy.sh"]));
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert!(
        said(&o).contains("acceptance replay passed (1 command(s))"),
        "{}",
        said(&o)
    );
    assert_eq!(std::fs::read_to_string(p.root.join("runs.txt")).unwrap(), "ran\nran\n");
    std::fs::write(p.root.join("broken"), "").unwrap();
    let o = p.stop();
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(said(&o).contains("`make -s test` -> exit 2"), "{}", said(&o));
}

/// A check chained to a deploy is not a check as a whole: `make -s test && ./deploy.sh`
/// is not replayed, even though its first part is a build runner.
#[test]
fn a_check_chained_to_a_deploy_is_not_replayed() {
    let p = Proj::new();
    p.write("Makefile", "test:\n\t@echo ok\n");
    let script = p.write("deploy.sh", "#!/bin/sh\necho deployed >> deploys.txt\n");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let cmd = "make -s test && ./deploy.sh";
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(&p.root)
        .status()
        .unwrap();
    assert!(ran.success());
    check(&p, &[(cmd, 0, true)]);
    p.ledger(&replay_ledger(&[cmd]));
    p.trust();
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert_eq!(
        std::fs::read_to_string(p.root.join("deploys.txt")).unwrap(),
        "deployed\n"
    );
    assert!(
        said(&o).contains("replay skipped `make -s test && ./deploy.sh`"),
        "{}",
        said(&o)
    );
}
