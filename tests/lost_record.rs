//! Issue 29 item 7: a lost record is named. When the evidence hook could not write a
//! record after the newest pass of a cited command (or of the run backing a success
//! claim), the stop is blocked with the cause — never allowed on the older pass — and a
//! rerun that is logged lifts it. The faults are real: a full disk (a tiny tmpfs mounted
//! over `.fable/` in a private mount namespace, so only the hook sees it; skipped where
//! `unshare` cannot mount) and a log lock held past the hook's wait. A background launch
//! is named as one, not as a failure.

mod common_discipline;
use common_discipline::*;
use serde_json::{json, Value};
use std::process::{Command, Output, Stdio};

const CARD: &str = "REPLAY: off\n- [x] 1. parser -- evidence: `make -s test` -> passed\n";

/// A PostToolUse payload of a successful `cmd` whose output is `out`.
fn ran(sid: &str, cmd: &str, out: &str) -> Value {
    json!({"session_id": sid, "hook_event_name": "PostToolUse", "tool_name": "Bash",
           "tool_input": {"command": cmd, "description": "run"}, "tool_use_id": call_id(),
           "tool_response": {"stdout": out, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}})
}

/// Runs the evidence hook with `payload` while `.fable/` is a full 64 KiB tmpfs holding a
/// copy of the project's `.fable/` (in a private mount namespace: the test's own view of
/// the folder, and the log in it, stay as they were). `None` when no namespace can be had.
fn evidence_on_a_full_disk(p: &Proj, payload: &Value) -> Option<Output> {
    let probe = Command::new("unshare")
        .args(["-m", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt"])
        .output()
        .ok()?;
    if !probe.status.success() {
        eprintln!(
            "skipped: unshare cannot mount here: {}",
            String::from_utf8_lossy(&probe.stderr)
        );
        return None;
    }
    let save = p.home.join("fable-copy");
    let script = r#"set -e
cp -a "$FABLE/." "$SAVE/"
mount -t tmpfs -o size=64k tmpfs "$FABLE"
cp -a "$SAVE/." "$FABLE/"
dd if=/dev/zero of="$FABLE/fill" bs=1k count=1000 2>/dev/null || true
exec "$HOOK""#;
    std::fs::create_dir_all(&save).unwrap();
    let hook = assert_cmd::cargo::cargo_bin("fable-evidence");
    let mut c = Command::new("unshare");
    c.args(["-m", "sh", "-c", script])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()))
        .env("HOME", &p.home)
        .env("XDG_CONFIG_HOME", p.home.join("xdg-config"))
        .env("XDG_STATE_HOME", p.state_home())
        .env("FABLE_CONFIG_DIR", p.config_dir())
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .env("FABLE", p.fable())
        .env("SAVE", &save)
        .env("HOOK", hook)
        .current_dir(&p.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut payload = payload.clone();
    payload["cwd"] = json!(p.root.to_string_lossy());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    Some(child.wait_with_output().unwrap())
}

/// The issue's case with a real `No space left on device`: pass, then a run the disk
/// could not take. The stop names the run and the cause; the test's view of the log still
/// ends on the pass, which must not let the stop through. A logged rerun allows it.
#[test]
fn a_run_lost_to_a_full_disk_after_the_cited_pass_blocks_until_rerun() {
    let p = Proj::new();
    p.ledger(CARD);
    p.log(&[("make -s test", 0, true)]);
    // Bigger than a page: the append needs space the disk no longer has.
    let failing = ran("s", "make -s test", &"FAIL: test_parse\n".repeat(300));
    let Some(o) = evidence_on_a_full_disk(&p, &failing) else {
        return;
    };
    assert_eq!(code(&o), 0, "the hook fails open: {}", stderr(&o));
    let told = system_message(&o).unwrap_or_default();
    assert!(told.contains("No space left on device"), "{told}");
    assert_eq!(p.records().len(), 1, "the lost run is not in the project's log");
    let o = p.stop();
    assert_eq!(stop_code(&o), 2, "allowed on the older pass: {}", said(&o));
    let e = stop_reason(&o).unwrap();
    assert!(
        e.contains(
            "could not be logged: No space left on device (.fable/evidence.jsonl) — fix it and run the command again"
        ),
        "{e}"
    );
    assert!(
        e.contains(" UTC (`make -s test`)") && e.contains("newest pass of `make -s test`"),
        "{e}"
    );
    // The disk has room again (the namespace is gone): the rerun is logged, the stop allowed.
    p.log(&[("make -s test", 0, true)]);
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
}

/// A held `.fable/evidence.lock`: the hook does not wait for ever, and the lock it could
/// not take is a noted failure, named at stop.
#[test]
fn a_run_lost_to_a_held_lock_blocks_and_the_hook_gives_up_in_time() {
    let p = Proj::new();
    p.ledger(CARD);
    p.log(&[("make -s test", 0, true)]);
    let lock = std::fs::File::open(p.fable().join("evidence.lock")).unwrap();
    lock.lock().unwrap();
    let t = std::time::Instant::now();
    let o = p.hook("fable-evidence", failure("s", "make -s test", 2));
    let took = t.elapsed();
    drop(lock);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(took < std::time::Duration::from_secs(9), "the hook waited {took:?}");
    assert!(
        system_message(&o).unwrap_or_default().contains("still locked"),
        "{}",
        said(&o)
    );
    let o = p.stop();
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    let e = stop_reason(&o).unwrap();
    assert!(
        e.contains(
            "could not be logged: .fable/evidence.lock: still locked after 5s — fix it and run the command again"
        ),
        "{e}"
    );
    p.log(&[("make -s test", 0, true)]);
    assert_eq!(stop_code(&p.stop()), 0);
}

/// A failure before the cited pass (lost, then the command run again and logged) is over:
/// the stop is allowed, and no note is left.
#[test]
fn a_loss_before_the_pass_does_not_block() {
    let p = Proj::new();
    p.ledger(CARD);
    let Some(o) = evidence_on_a_full_disk(&p, &ran("s", "make -s test", &"x".repeat(9000))) else {
        return;
    };
    assert!(system_message(&o).unwrap_or_default().contains("No space left"));
    p.log(&[("make -s test", 0, true)]);
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert!(!said(&o).contains("could not"), "{}", said(&o));
}

/// The run that backs "all tests pass" in the final message counts too: a lost run after
/// it blocks the claim's stop.
#[test]
fn a_loss_after_the_run_backing_a_claim_blocks() {
    let p = Proj::new();
    p.ledger("# Ledger\n");
    let pass = ran("s1", "make -s test", "ok\n");
    assert_eq!(code(&p.hook("fable-evidence", pass.clone())), 0);
    let stop = json!({"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false,
                      "last_assistant_message":"Done: all tests pass."});
    assert_eq!(stop_code(&p.hook("fable-close-guard", stop.clone())), 0);
    let Some(_) = evidence_on_a_full_disk(&p, &ran("s1", "make -s test", &"E".repeat(9000))) else {
        return;
    };
    let o = p.hook("fable-close-guard", stop.clone());
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(
        stop_reason(&o)
            .unwrap()
            .contains("could not be logged: No space left on device"),
        "{}",
        said(&o)
    );
    // The rerun is a new call (its own id): one call is logged once.
    assert_eq!(code(&p.hook("fable-evidence", ran("s1", "make -s test", "ok\n"))), 0);
    assert_eq!(stop_code(&p.hook("fable-close-guard", stop)), 0);
}

/// A `run_in_background` launch: the record keeps `exit: null` and says it was a
/// background launch; cited, it is named as one — not as a failure.
#[test]
fn a_cited_background_launch_is_named_as_one() {
    let p = Proj::new();
    p.ledger(CARD);
    let launch = json!({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "make -s test", "description": "run", "run_in_background": true},
        "tool_response": {"stdout": "", "stderr": "", "interrupted": false, "isImage": false,
                          "noOutputExpected": false, "backgroundTaskId": "bash_1"}});
    assert_eq!(code(&p.hook("fable-evidence", launch)), 0);
    let rec = p.records().pop().unwrap();
    assert_eq!(
        (rec["exit"].clone(), rec["background"].as_str()),
        (Value::Null, Some("bash_1"))
    );
    let o = p.stop();
    assert_eq!(stop_code(&o), 2);
    let e = stop_reason(&o).unwrap();
    assert!(
        e.contains("`make -s test` was launched in the background; run it in the foreground to back a card"),
        "{e}"
    );
    assert!(!e.contains("exit unknown"), "{e}");
    p.log(&[("make -s test", 0, true)]);
    assert_eq!(stop_code(&p.stop()), 0);
}

/// "All tests pass" after only a background launch of the suite: the block says the run
/// was launched in the background, not that the newest run failed.
#[test]
fn a_claim_after_only_a_background_launch_names_the_launch() {
    let p = Proj::new();
    p.ledger("# Ledger\n");
    let launch = json!({"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "make -s test", "description": "run", "run_in_background": true},
        "tool_response": {"stdout": "", "stderr": "", "interrupted": false, "backgroundTaskId": "bash_7"}});
    assert_eq!(code(&p.hook("fable-evidence", launch)), 0);
    let stop = json!({"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false,
                      "last_assistant_message":"Done: all tests pass."});
    let o = p.hook("fable-close-guard", stop.clone());
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    let e = stop_reason(&o).unwrap();
    assert!(
        e.contains("`make -s test` was launched in the background; run it in the foreground to back the claim"),
        "{e}"
    );
    assert!(!e.contains("newest such run failed"), "{e}");
    assert_eq!(code(&p.hook("fable-evidence", ran("s1", "make -s test", "ok\n"))), 0);
    assert_eq!(stop_code(&p.hook("fable-close-guard", stop)), 0);
}

/// A loss that cannot be a later run of what a card cites (`ls`) does not block; and a
/// later logged run of another command does not make a lost run of the cited one good.
#[test]
fn only_a_loss_of_the_cited_command_blocks_and_only_its_rerun_clears_it() {
    let p = Proj::new();
    p.ledger(CARD);
    p.log(&[("make -s test", 0, true)]);
    let Some(_) = evidence_on_a_full_disk(&p, &ran("s", "ls -la", &"f\n".repeat(3000))) else {
        return;
    };
    let o = p.stop();
    assert_eq!(stop_code(&o), 0, "an unrelated loss blocked: {}", said(&o));
    let Some(_) = evidence_on_a_full_disk(&p, &ran("s", "make -s test", &"F\n".repeat(3000))) else {
        return;
    };
    // Another command logged after the loss: the cited command's lost run still stands.
    p.log(&[("ls -la", 0, true)]);
    let o = p.stop();
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(
        stop_reason(&o)
            .unwrap()
            .contains("(`make -s test`) could not be logged"),
        "{}",
        said(&o)
    );
    p.log(&[("make -s test", 0, true)]);
    assert_eq!(stop_code(&p.stop()), 0);
}
