//! A cloned repository is untrusted input: committed links and devices under `.fable/`
//! must never make a hook write outside the project or read without bound. Each case
//! drives the real hook binaries through the `.fable/` door (`src/fable_dir.rs`).

mod common_discipline;
use common_discipline::*;
use serde_json::json;
use std::fs;
use std::os::unix::fs::symlink;
use std::time::{Duration, Instant};

/// A file outside the project, standing for `~/.bashrc`.
fn victim(p: &Proj) -> std::path::PathBuf {
    let v = p.home.join("victim.rc");
    fs::write(&v, "export PRECIOUS=1\n").unwrap();
    v
}

fn assert_untouched(v: &std::path::Path) {
    assert_eq!(
        fs::read_to_string(v).unwrap(),
        "export PRECIOUS=1\n",
        "{} was written through",
        v.display()
    );
}

#[test]
fn a_symlinked_log_is_never_appended_to() {
    let p = Proj::new();
    let v = victim(&p);
    symlink(&v, p.fable().join("evidence.jsonl")).unwrap();
    let o = p.hook("fable-evidence", success("s1", "echo secret-command"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("symbolic link"), "says why: {}", stderr(&o));
    assert_untouched(&v);
}

#[test]
fn a_dangling_log_link_does_not_create_its_target() {
    let p = Proj::new();
    let target = p.home.join("created-by-fable");
    symlink(&target, p.fable().join("evidence.jsonl")).unwrap();
    let o = p.hook("fable-evidence", failure("s1", "cargo test", 101));
    assert_eq!(code(&o), 0);
    assert!(!target.exists(), "the dangling link's target was created");
}

#[test]
fn a_symlinked_lock_or_state_folder_is_refused() {
    let p = Proj::new();
    let outside = p.home.join("outside");
    fs::create_dir(&outside).unwrap();
    symlink(&outside, p.fable().join("state")).unwrap();
    symlink(outside.join("evidence.lock"), p.fable().join("evidence.lock")).unwrap();
    for _ in 0..3 {
        let o = p.hook("fable-fail-streak", failure("s1", "cargo test", 101));
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let o = p.hook("fable-evidence", failure("s1", "cargo test", 101));
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        0,
        "a hook created files outside the project"
    );
}

#[test]
fn symlinked_rule_store_is_not_written_through() {
    let p = Proj::new();
    let v = victim(&p);
    symlink(&v, p.fable().join("RULES.md")).unwrap();
    // A history worth learning from, so the SessionEnd hook wants to write the store.
    for i in 0..4 {
        let sid = format!("s{i}");
        p.hook("fable-evidence", failure(&sid, "git push", 1));
        p.hook("fable-evidence", success(&sid, "git pull --rebase"));
        p.hook("fable-evidence", success(&sid, "git push"));
    }
    let o = p.hook(
        "fable-learn",
        json!({"session_id":"s3","hook_event_name":"SessionEnd","reason":"other"}),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        p.fable().join("rules.json").is_file(),
        "the store was written (so RULES.md was tried)"
    );
    assert!(stderr(&o).contains("symbolic link"), "says why: {}", stderr(&o));
    assert_untouched(&v);
}

#[test]
fn devices_as_ledger_or_rules_cost_nothing() {
    let p = Proj::new();
    symlink("/dev/zero", p.fable().join("LEDGER.md")).unwrap();
    symlink("/dev/zero", p.fable().join("rules.json")).unwrap();
    let start = Instant::now();
    let o = p.stop();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = p.hook(
        "fable-inject",
        json!({"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = p.hook("fable-fail-streak", failure("s1", "cargo test", 101));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Three whole processes; unbounded reads of /dev/zero took 10 s and gigabytes.
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
}

#[test]
fn an_oversized_ledger_is_refused_not_parsed() {
    let p = Proj::new();
    let big = "- [ ] card\n".repeat(200_000); // 2.2 MB, over the 1 MiB document cap
    p.ledger(&big);
    let o = p.stop();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("larger than"), "says why: {}", stderr(&o));
}

#[test]
fn a_committed_generation_beyond_keep_is_not_read() {
    let p = Proj::new();
    let rec = json!({"v":1,"ts":"2026-01-01T00:00:00.000Z","session":"x","cwd":p.root,"cmd":"make deploy",
                     "exit":0,"ok":true,"tail":"fine"});
    fs::write(p.fable().join("evidence.jsonl.9"), format!("{rec}\n")).unwrap();
    p.hook("fable-evidence", success("s1", "ls"));
    let o = p.cli(&["evidence", "show", "--json"]);
    assert!(!stdout(&o).contains("make deploy"), "{}", stdout(&o));
}

#[test]
fn a_torn_last_line_does_not_swallow_the_next_record() {
    let p = Proj::new();
    p.hook("fable-evidence", success("s1", "echo one"));
    let log = p.fable().join("evidence.jsonl");
    let mut text = fs::read(&log).unwrap();
    text.extend_from_slice(b"{\"v\":1,\"cmd\":\"cut mid-wr");
    fs::write(&log, text).unwrap();
    p.hook("fable-evidence", success("s1", "echo two"));
    let cmds: Vec<String> = p
        .records()
        .iter()
        .map(|r| r["cmd"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(cmds.contains(&"echo two".to_string()), "{cmds:?}");
}

#[test]
fn large_records_of_writers_that_exited_0_survive_killed_neighbours() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let p = Proj::new();
    let bin = assert_cmd::cargo::cargo_bin("fable-evidence");
    let big = "x".repeat(24 * 1024);
    let mut children = Vec::new();
    for i in 0..120 {
        let payload = success("s1", &format!("echo W{i}- {big}"));
        let mut c = Command::new(&bin)
            .current_dir(&p.root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &p.home)
            .env("XDG_STATE_HOME", p.state_home())
            .env("FABLE_CONFIG_DIR", p.config_dir())
            .env("CLAUDE_PROJECT_DIR", &p.root)
            .env("FABLE_EVIDENCE_MAX_BYTES", "100000000")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        c.stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        children.push((i, c));
    }
    // Kill every other writer at whatever point it has reached.
    for (i, c) in children.iter_mut() {
        if *i % 2 == 1 {
            let _ = c.kill();
        }
    }
    let mut exited_ok = Vec::new();
    for (i, mut c) in children {
        if c.wait().unwrap().success() {
            exited_ok.push(i);
        }
    }
    assert!(!exited_ok.is_empty());
    let cmds: Vec<String> = p
        .records()
        .iter()
        .map(|r| r["cmd"].as_str().unwrap_or("").to_string())
        .collect();
    for i in &exited_ok {
        let marker = format!("echo W{i}- ");
        assert!(
            cmds.iter().any(|c| c.starts_with(&marker)),
            "writer {i} exited 0 but its record is not readable"
        );
    }
}

#[test]
fn a_failure_whose_output_was_cut_mid_emoji_is_still_logged() {
    let p = Proj::new();
    let payload = format!(
        r#"{{"session_id":"s1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","cwd":"{}","tool_input":{{"command":"cargo test"}},"error":"Exit code 101\ntest result: FAILED \ud83d"}}"#,
        p.root.display()
    );
    let o = p.hook_raw("fable-evidence", payload.as_bytes(), &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let recs = p.records();
    assert_eq!(recs.len(), 1, "the payload was dropped: {}", stderr(&o));
    assert_eq!(recs[0]["exit"], 101);
    assert_eq!(recs[0]["ok"], false);
}

#[test]
fn a_committed_learn_json_cannot_loosen_learning_unless_the_project_is_trusted() {
    let p = Proj::new();
    fs::write(
        p.fable().join("learn.json"),
        r#"{"threshold": 0, "min_sessions_variant": 1}"#,
    )
    .unwrap();
    p.hook("fable-evidence", success("s1", "ls"));
    let o = p.cli(&["rules", "extract"]);
    assert!(
        stderr(&o).contains("threshold, min_sessions_variant looser than the default, raised"),
        "{}",
        stderr(&o)
    );
    p.trust();
    let o = p.cli(&["rules", "extract"]);
    assert!(
        !stderr(&o).contains("raised"),
        "a trusted project keeps its settings: {}",
        stderr(&o)
    );
}

/// Runs one hook binary as Proj::cmd would, but with its data segment (heap, anonymous
/// maps, thread stacks) limited to 64 MiB, and returns (exit code, CPU time used).
// The child is reaped by wait4 (for its rusage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn bounded_hook(p: &Proj, bin: &str, payload: &serde_json::Value) -> (Option<i32>, Duration) {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin(bin));
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()))
        .env("HOME", &p.home)
        .env("XDG_CONFIG_HOME", p.home.join("xdg-config"))
        .env("XDG_STATE_HOME", p.state_home())
        .env("FABLE_CONFIG_DIR", p.config_dir())
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .current_dir(&p.root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 64 << 20,
                rlim_max: 64 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    // CPU time (user + system) from wait4, not wall time: the suite runs tests in
    // parallel on few cores, and a hook's own cost is what the bound is about.
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for the child we spawned; the pointers are to live locals.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4 failed");
    let cpu = Duration::from_secs((usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) as u64)
        + Duration::from_micros((usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) as u64);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, cpu)
}

/// Issue 10 "must show": with a `/dev/zero` ledger and rules, a 200 MB ledger and a 160 MB
/// committed log generation, every hook exits 0 in under 1 s within 64 MiB of memory.
#[test]
fn every_hook_stays_under_a_second_and_64_mib_on_a_hostile_clone() {
    type Setup = Box<dyn Fn(&Proj)>;
    let cases: Vec<(&str, Setup)> = vec![
        (
            "/dev/zero ledger and rules",
            Box::new(|p: &Proj| {
                symlink("/dev/zero", p.fable().join("LEDGER.md")).unwrap();
                symlink("/dev/zero", p.fable().join("rules.json")).unwrap();
            }),
        ),
        (
            "200 MB ledger",
            Box::new(|p: &Proj| {
                let f = fs::File::create(p.fable().join("LEDGER.md")).unwrap();
                f.set_len(200 << 20).unwrap();
            }),
        ),
        (
            "160 MB committed generation",
            Box::new(|p: &Proj| {
                p.ledger("- [x] 1. t -- evidence: `cargo test` -> ok\n");
                let f = fs::File::create(p.fable().join("evidence.jsonl.1")).unwrap();
                f.set_len(160 << 20).unwrap();
            }),
        ),
    ];
    let payloads = [
        ("fable-evidence", failure("s1", "cargo test", 101)),
        ("fable-fail-streak", failure("s1", "cargo test", 101)),
        (
            "fable-log-guard",
            json!({"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}),
        ),
        (
            "fable-spawn-guard",
            json!({"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Agent","tool_input":{"prompt":"small"}}),
        ),
        (
            "fable-inject",
            json!({"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}),
        ),
        (
            "fable-close-guard",
            json!({"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false}),
        ),
        (
            "fable-learn",
            json!({"session_id":"s1","hook_event_name":"SessionEnd","reason":"exit"}),
        ),
    ];
    let mut report = Vec::new();
    for (name, setup) in &cases {
        let p = Proj::new();
        setup(&p);
        for (bin, payload) in &payloads {
            let mut v = payload.clone();
            v["cwd"] = json!(p.root.to_string_lossy());
            let (code, took) = bounded_hook(&p, bin, &v);
            report.push(format!("{name:28} {bin:18} exit {code:?}, {took:?} of CPU"));
            assert_eq!(
                code,
                Some(0),
                "{name}: {bin} did not exit 0 within 64 MiB\n{}",
                report.join("\n")
            );
            assert!(
                took < Duration::from_secs(1),
                "{name}: {bin} took {took:?}\n{}",
                report.join("\n")
            );
        }
    }
    eprintln!("{}", report.join("\n"));
}
