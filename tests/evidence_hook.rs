//! The evidence logger as Claude Code runs it: real payload shapes on stdin of the real
//! `fable-evidence` binary, concurrency across processes, rotation, fail-open behaviour.

mod isolated;

use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Every hook binary fable ships: the library's own list, so the tests cannot drift from it.
use fable::setup::registrations::HOOK_BINARIES as HOOKS;

/// A temp project: `.git/` bounds discovery, `.fable/` opts in.
fn project() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("my proj");
    fs::create_dir_all(root.join(".git")).unwrap();
    fs::create_dir_all(root.join(".fable")).unwrap();
    (t, root)
}

fn run_hook(bin: &str, root: &Path, stdin: &[u8]) -> assert_cmd::assert::Assert {
    isolated::cmd(bin, &root.join(".home"))
        .current_dir(root)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env("XDG_STATE_HOME", root.join(".xdg-state"))
        .env("XDG_CONFIG_HOME", root.join(".xdg-config"))
        .env("FABLE_CONFIG_DIR", root.join(".xdg-config/fable"))
        .write_stdin(stdin.to_vec())
        .assert()
}

fn records(root: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    let dir = root.join(".fable");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("evidence.jsonl"))
        .collect();
    // Oldest generation (highest number) first, the live file last.
    let gen = |p: &PathBuf| -> i64 {
        let n = p.file_name().unwrap().to_string_lossy().into_owned();
        n.strip_prefix("evidence.jsonl.")
            .map(|g| g.parse::<i64>().unwrap())
            .unwrap_or(-1)
    };
    files.sort_by_key(|p| std::cmp::Reverse(gen(p)));
    for f in files {
        for line in fs::read_to_string(f).unwrap().lines() {
            out.push(serde_json::from_str(line).unwrap());
        }
    }
    out
}

fn failure(cwd: &Path, cmd: &str, error: &str) -> Vec<u8> {
    json!({"session_id":"s1","transcript_path":"/t.jsonl","cwd":cwd,"hook_event_name":"PostToolUseFailure",
        "tool_name":"Bash","tool_input":{"command":cmd,"description":"d"},"tool_use_id":"toolu_1",
        "error":error,"is_interrupt":false,"duration_ms":21})
    .to_string()
    .into_bytes()
}

/// Each call its own `tool_use_id`, as Claude Code gives them (one call is logged once).
fn success(cwd: &Path, cmd: &str, stdout: &str) -> Vec<u8> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(2);
    let id = format!("toolu_{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    json!({"session_id":"s1","transcript_path":"/t.jsonl","cwd":cwd,"hook_event_name":"PostToolUse",
        "tool_name":"Bash","tool_input":{"command":cmd},"tool_use_id":id,
        "tool_response":{"stdout":stdout,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},
        "duration_ms":8})
    .to_string()
    .into_bytes()
}

#[test]
fn logs_real_failure_and_success_shapes() {
    let (_t, root) = project();
    run_hook(
        "fable-evidence",
        &root,
        &failure(
            &root,
            "ls /nonexistent",
            "Exit code 2\nls: cannot access '/nonexistent': No such file or directory",
        ),
    )
    .success()
    .stdout("")
    .stderr("");
    run_hook("fable-evidence", &root, &failure(&root, "false", "Exit code 1\n")).success();
    run_hook("fable-evidence", &root, &success(&root, "echo ok", "ok")).success();
    let r = records(&root);
    assert_eq!(r.len(), 3);
    assert_eq!((r[0]["exit"].as_i64(), r[0]["ok"].as_bool()), (Some(2), Some(false)));
    assert!(r[0]["tail"].as_str().unwrap().contains("cannot access '/nonexistent'"));
    assert_eq!((r[1]["exit"].as_i64(), r[1]["ok"].as_bool()), (Some(1), Some(false)));
    assert_eq!(
        (r[2]["exit"].as_i64(), r[2]["ok"].as_bool(), r[2]["tail"].as_str()),
        (Some(0), Some(true), Some("ok"))
    );
    for rec in &r {
        assert_eq!(rec["v"], 1);
        assert_eq!(rec["session"], "s1");
        assert_eq!(rec["cwd"], root.to_str().unwrap());
        let ts = rec["ts"].as_str().unwrap();
        assert!(
            chrono::DateTime::parse_from_rfc3339(ts).is_ok() && ts.ends_with('Z') && ts.len() == 24,
            "{ts}"
        );
    }
    // The log is private to the user: it may hold command output.
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(root.join(".fable/evidence.jsonl"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "mode {mode:o}");
}

#[test]
fn resolves_the_project_from_claude_project_dir_even_after_cd() {
    let (_t, root) = project();
    let elsewhere = tempfile::tempdir().unwrap();
    isolated::cmd("fable-evidence", &root.join(".home"))
        .current_dir(elsewhere.path())
        .env("CLAUDE_PROJECT_DIR", &root)
        .write_stdin(success(elsewhere.path(), "make", "built"))
        .assert()
        .success();
    assert_eq!(records(&root).len(), 1);
}

#[test]
fn inert_without_fable_dir_and_records_while_paused() {
    let t = tempfile::tempdir().unwrap();
    fs::create_dir_all(t.path().join(".git")).unwrap();
    run_hook("fable-evidence", t.path(), &success(t.path(), "echo hi", "hi"))
        .success()
        .stderr("");
    assert!(!t.path().join(".fable").exists());

    let (_t2, root) = project();
    fs::write(
        root.join(".fable/LEDGER.md"),
        "PAUSED: user switched to an unrelated bug\n- [ ] 1. thing\n",
    )
    .unwrap();
    run_hook("fable-evidence", &root, &success(&root, "echo hi", "hi")).success();
    assert_eq!(records(&root).len(), 1);
}

#[test]
fn secrets_never_reach_the_log() {
    let (_t, root) = project();
    run_hook(
        "fable-evidence",
        &root,
        &success(
            &root,
            "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456' https://api.example.com",
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENG AKIAIOSFODNN7EXAMPLE ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        ),
    )
    .success();
    let text = fs::read_to_string(root.join(".fable/evidence.jsonl")).unwrap();
    for secret in [
        "abcdefghijklmnopqrstuvwxyz123456",
        "wJalrXUtnFEMIK7MDENG",
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_abcdef",
    ] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
    assert!(text.contains("[REDACTED]"));
}

#[test]
fn every_hook_fails_open_on_bad_stdin() {
    let (_t, root) = project();
    let inputs: [&[u8]; 6] = [
        b"",
        b"   \n",
        b"not json at all",
        b"\x00\xff\xfe\x01binary",
        b"[1,2,3]",
        b"{\"session_id\": \"s\", \"tool_inp",
    ];
    for bin in HOOKS {
        for input in inputs {
            let out = run_hook(bin, &root, input).get_output().clone();
            assert_eq!(out.status.code(), Some(0), "{bin} on {input:?}");
            assert!(out.stdout.is_empty(), "{bin} printed to stdout on {input:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{bin} on {input:?}: {err}");
            assert!(
                err.starts_with(&format!("[fable] {bin}: ")) && err.trim_end().ends_with("(ignored)"),
                "{err}"
            );
        }
    }
    let names: Vec<String> = fs::read_dir(root.join(".fable"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with("evidence.jsonl")),
        "something was logged: {names:?}"
    );
}

#[test]
fn concurrent_hook_processes_lose_nothing() {
    let (_t, root) = project();
    let writers = 8;
    let per = 40;
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let root = root.clone();
            std::thread::spawn(move || {
                for i in 0..per {
                    let mut child = isolated::std_cmd("fable-evidence", &root.join(".home"))
                        .current_dir(&root)
                        .env("FABLE_EVIDENCE_MAX_BYTES", "4096")
                        .env("FABLE_EVIDENCE_KEEP", "1000")
                        .stdin(Stdio::piped())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn()
                        .unwrap();
                    use std::io::Write;
                    child
                        .stdin
                        .take()
                        .unwrap()
                        .write_all(&success(&root, &format!("echo w{w}-{i}"), "x"))
                        .unwrap();
                    assert!(child.wait().unwrap().success());
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let r = records(&root);
    let mut cmds: Vec<String> = r.iter().map(|v| v["cmd"].as_str().unwrap().to_string()).collect();
    cmds.sort();
    let mut want: Vec<String> = (0..writers)
        .flat_map(|w| (0..per).map(move |i| format!("echo w{w}-{i}")))
        .collect();
    want.sort();
    assert_eq!(cmds, want);
}

/// 8 writer processes × 5,000 records through the same locked append path, with a small
/// size limit so the log rotates many times: every record exactly once, no torn line.
#[test]
fn eight_writers_five_thousand_records_each_across_rotations() {
    let (_t, root) = project();
    let writers = 8;
    let per = 5000;
    let mut inputs = Vec::new();
    for w in 0..writers {
        let mut s = String::new();
        for i in 0..per {
            let rec = json!({"v":1,"ts":"2026-12-02T12:00:00.000Z","session":format!("w{w}"),"cwd":"/p",
                "cmd":format!("writer {w} record {i}"),"exit":0,"ok":true,"tail":"y".repeat(64)});
            s.push_str(&rec.to_string());
            s.push('\n');
        }
        let p = root.join(format!("in-{w}.jsonl"));
        fs::write(&p, s).unwrap();
        inputs.push(p);
    }
    let children: Vec<_> = inputs
        .iter()
        .map(|p| {
            isolated::std_cmd("fable", &root.join(".home"))
                .args(["evidence", "import", "--json"])
                .arg(p)
                .current_dir(&root)
                .env("FABLE_EVIDENCE_MAX_BYTES", "262144")
                .env("FABLE_EVIDENCE_KEEP", "1000")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["appended"], per);
    }
    let gens = fs::read_dir(root.join(".fable"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("evidence.jsonl."))
        .count();
    assert!(gens >= 5, "expected several rotations, got {gens}");
    let r = records(&root); // panics on any torn or merged line
    assert_eq!(r.len(), writers * per);
    let mut seen = std::collections::HashSet::new();
    for v in &r {
        assert!(
            seen.insert(v["cmd"].as_str().unwrap().to_string()),
            "duplicate {}",
            v["cmd"]
        );
    }
    // Each writer's records keep their order across generations.
    for w in 0..writers {
        let order: Vec<usize> = r
            .iter()
            .filter(|v| v["session"] == format!("w{w}"))
            .map(|v| v["cmd"].as_str().unwrap().rsplit(' ').next().unwrap().parse().unwrap())
            .collect();
        assert!(order.windows(2).all(|p| p[0] < p[1]), "writer {w} out of order");
    }
}

/// Deleting the log must not switch corroboration off (ancestor weakness §6.2): "no log"
/// is an empty log (the close guard runs only where the evidence hook is registered too),
/// and the logger's note outside the project lets the block say the log was deleted.
#[test]
fn deleting_the_log_does_not_switch_corroboration_off() {
    let (_t, root) = project();
    fs::write(
        root.join(".fable/LEDGER.md"),
        "- [x] 1. checks -- evidence: `./check.sh` -> 12 passed\n",
    )
    .unwrap();
    let stop = json!({"session_id":"s1","cwd":root,"hook_event_name":"Stop","stop_hook_active":false}).to_string();
    // A Stop block is `{"decision":"block"}` on stdout with exit 0; an allow says nothing.
    let reason = |out: &std::process::Output| -> Option<String> {
        let v: Value = serde_json::from_slice(&out.stdout).ok()?;
        (v["decision"] == "block").then(|| v["reason"].as_str().unwrap_or("").to_string())
    };
    let stop_now = || {
        run_hook("fable-close-guard", &root, stop.as_bytes())
            .code(0)
            .get_output()
            .clone()
    };
    // Never had a log: an empty log, so the never-run citation blocks.
    assert!(reason(&stop_now())
        .expect("no log is an empty log")
        .contains("no run in the evidence log"));
    run_hook("fable-evidence", &root, &success(&root, "./check.sh", "12 passed")).success();
    assert_eq!(reason(&stop_now()), None);
    fs::remove_file(root.join(".fable/evidence.jsonl")).unwrap();
    let err = reason(&stop_now()).expect("a deleted log must not switch corroboration off");
    assert!(err.contains("./check.sh") && err.contains("deleted"), "{err}");
    // Running the command again is the way out.
    run_hook("fable-evidence", &root, &success(&root, "./check.sh", "12 passed")).success();
    assert_eq!(reason(&stop_now()), None);
}
