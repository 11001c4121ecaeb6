//! A hook's process start without std's runtime (`host::process_start`): what std's
//! start-up did for a hook is still done — closed standard descriptors are reopened, a
//! closed reader is not a death by SIGPIPE, a block still exits 2 — and the arguments
//! still reach the hook (`--host codex`).

mod common_discipline;
use common_discipline::*;
use serde_json::json;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

fn start_payload() -> serde_json::Value {
    json!({"session_id": "ps-1", "transcript_path": "/t", "hook_event_name": "SessionStart", "source": "startup"})
}

fn ledgered() -> Proj {
    let p = Proj::new();
    p.ledger("- [ ] 1. parse the config — acceptance: `cargo test config`\n");
    p
}

/// One of our hook binaries as a std command with the project's private environment (as
/// `Proj::cmd`); with `sh_script`, run by `sh -c SCRIPT` (`$0` is the binary), which may
/// change the descriptors the hook starts with.
fn plain_hook(p: &Proj, bin: &str, sh_script: Option<&str>) -> std::process::Command {
    let bin = assert_cmd::cargo::cargo_bin(bin);
    let mut c = match sh_script {
        Some(script) => {
            let mut c = std::process::Command::new("sh");
            c.args(["-c", script]).arg(&bin);
            c
        }
        None => std::process::Command::new(&bin),
    };
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &p.home)
        .env("XDG_STATE_HOME", p.state_home())
        .env("FABLE_CONFIG_DIR", p.config_dir())
        .current_dir(&p.root);
    c
}

/// A pipe whose reader is already closed: every write to it fails with EPIPE.
fn reader_gone() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills two fresh descriptors we then own.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    drop(unsafe { OwnedFd::from_raw_fd(fds[0]) });
    Stdio::from(unsafe { OwnedFd::from_raw_fd(fds[1]) })
}

#[test]
fn a_host_that_stopped_reading_is_not_a_death_by_signal() {
    let p = ledgered();
    // The same call with a reader: the hook has an answer to write.
    let o = p.hook("fable-inject", start_payload());
    assert_eq!(code(&o), 0);
    assert!(context(&o).is_some(), "no context to write: {}", stdout(&o));

    let mut c = plain_hook(&p, "fable-inject", None);
    let mut payload = start_payload();
    payload["cwd"] = json!(p.root.to_string_lossy());
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(reader_gone())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), None, "killed by signal {:?}", status.signal());
    assert_eq!(status.code(), Some(0));
}

#[test]
fn closed_standard_descriptors_still_log_one_whole_record_and_exit_0() {
    let p = Proj::new();
    let payload = {
        let mut v = success("ps-2", "python3 -m unittest");
        v["cwd"] = json!(p.root.to_string_lossy());
        v.to_string()
    };
    // stdout and stderr closed before the hook starts (reopened on /dev/null, as std's
    // start-up did: else the first file it opens takes descriptor 1).
    let mut child = plain_hook(&p, "fable-evidence", Some("exec \"$0\" >&- 2>&-"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = p.records();
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert_eq!(recs[0]["cmd"], "python3 -m unittest");
    let log = std::fs::read_to_string(p.fable().join("evidence.jsonl")).unwrap();
    assert!(
        log.lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()),
        "{log}"
    );
}

#[test]
fn a_block_still_exits_2_and_arguments_still_reach_the_hook() {
    let p = Proj::new();
    p.ledger("- [ ] 1. make the build pass\n");
    let codes: Vec<i32> = (0..6)
        .map(|_| code(&p.hook("fable-fail-streak", failure("ps-3", "make", 2))))
        .collect();
    assert_eq!(
        codes,
        [0, 0, 0, 0, 0, 2],
        "the sixth failure in a row hard-stops with exit 2"
    );
    // `--host codex` is read from the arguments (std::env::args without std's start-up):
    // the record names the host it was told.
    let mut v = success("ps-4", "ls");
    v["cwd"] = json!(p.root.to_string_lossy());
    v["tool_response"] = json!("ok\n");
    let o = p
        .cmd("fable-evidence")
        .args(["--host", "codex"])
        .write_stdin(v.to_string())
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec = p.records().pop().expect("a record");
    assert_eq!(rec["host"], "codex", "{rec}");
}

#[test]
fn a_variable_that_is_not_utf8_anywhere_in_the_environment_is_no_failure() {
    use std::os::unix::ffi::OsStrExt;
    let p = Proj::new();
    let mut v = success("ps-5", "python3 -m unittest");
    v["cwd"] = json!(p.root.to_string_lossy());
    // A Latin-1 value in an unrelated variable (std's `env::vars` panics on it) and in one
    // fable reads (skipped, as if unset).
    let latin1 = std::ffi::OsStr::from_bytes(b"caf\xe9");
    let o = p
        .cmd("fable-evidence")
        .env("LC_NAME_OF_SHOP", latin1)
        .env("FABLE_SCOPE_NOTE", latin1)
        .write_stdin(v.to_string())
        .output()
        .unwrap();
    assert_eq!(code(&o), 0);
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    assert_eq!(p.records().len(), 1);
}
