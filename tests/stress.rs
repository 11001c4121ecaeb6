//! Stress, as the hooks meet it in real sessions: many processes at once on one project.
//! - 16 writer processes × 5,000 records across many rotations: 0 lost, 0 torn, 0 twice.
//! - Parallel fail-streak, close-guard and evidence processes on one session: the streak
//!   state stays valid JSON and counts every failure exactly once.

mod isolated;

use serde_json::{json, Value};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn project() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("p");
    fs::create_dir_all(root.join(".git")).unwrap();
    fs::create_dir_all(root.join(".fable")).unwrap();
    (t, root)
}

fn all_lines(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("evidence.jsonl") {
            out.extend(fs::read_to_string(e.path()).unwrap().lines().map(str::to_string));
        }
    }
    out
}

#[test]
fn sixteen_writers_five_thousand_records_each() {
    let (_t, root) = project();
    let (writers, per) = (16usize, 5000usize);
    let mut children = Vec::new();
    for w in 0..writers {
        let input: String = (0..per)
            .map(|i| {
                let r = json!({"v":1,"ts":"2026-12-02T12:00:00.000Z","session":format!("w{w}"),"cwd":"/p",
                    "cmd":format!("w{w} #{i}"),"exit":i % 3,"ok":i % 3 == 0,"tail":"z".repeat(40 + i % 90)});
                format!("{r}\n")
            })
            .collect();
        let mut c = isolated::std_cmd("fable", &root.join(".home"))
            .args(["evidence", "import", "-"])
            .current_dir(&root)
            .env("FABLE_EVIDENCE_MAX_BYTES", "131072")
            .env("FABLE_EVIDENCE_KEEP", "1000")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = c.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
        children.push((c, writer));
    }
    for (c, writer) in children {
        writer.join().unwrap();
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let lines = all_lines(&root.join(".fable"));
    assert_eq!(lines.len(), writers * per, "lost or duplicated records");
    let mut seen = std::collections::HashSet::new();
    for l in &lines {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("torn or merged line ({e}): {l:.200}"));
        assert!(
            seen.insert(v["cmd"].as_str().unwrap().to_string()),
            "twice: {}",
            v["cmd"]
        );
    }
    let generations = fs::read_dir(root.join(".fable"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("evidence.jsonl."))
        .count();
    assert!(generations >= 20, "expected many rotations, got {generations}");
}

#[test]
fn parallel_guards_on_one_session_keep_the_streak_exact() {
    let (t, root) = project();
    fs::write(root.join(".fable/LEDGER.md"), "- [ ] 1. make the build pass\n").unwrap();
    let state = t.path().join("state");
    let failure = json!({"session_id":"stress-1","cwd":root,"hook_event_name":"PostToolUseFailure","tool_name":"Bash",
        "tool_input":{"command":"make"},"error":"Exit code 2\nmake: *** [all] Error 2"})
    .to_string();
    let stop =
        json!({"session_id":"stress-1","cwd":root,"hook_event_name":"Stop","stop_hook_active":false}).to_string();
    let run = |bin: &'static str, payload: String| {
        let root = root.clone();
        let state = state.clone();
        std::thread::spawn(move || {
            let mut c = isolated::std_cmd(bin, &root.join(".home"))
                .current_dir(&root)
                .env("XDG_STATE_HOME", &state)
                .env("FABLE_CONFIG_DIR", &state)
                // Every one of the many Stops must block: no limit on blocks in a row.
                .env("FABLE_STOP_BLOCKS", "1000000")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            c.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
            let out = c.wait_with_output().unwrap();
            (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
        })
    };
    let failures = 40;
    let mut handles = Vec::new();
    for i in 0..failures {
        handles.push(("streak", run("fable-fail-streak", failure.clone())));
        handles.push(("evidence", run("fable-evidence", failure.clone())));
        if i % 4 == 0 {
            handles.push(("close", run("fable-close-guard", stop.clone())));
        }
    }
    let mut hard = 0;
    for (kind, h) in handles {
        let (code, stdout) = h.join().unwrap();
        match kind {
            "streak" if code == Some(2) => hard += 1,
            // A Stop block is `{"decision":"block"}` on stdout, exit 0.
            "close" => assert!(
                code == Some(0) && stdout.contains("\"decision\":\"block\""),
                "open card must block every Stop: {code:?} {stdout}"
            ),
            _ => assert_eq!(code, Some(0), "{kind}"),
        }
    }
    // Failures 6..=40 are hard: exactly 35, whatever the interleaving.
    assert_eq!(hard, failures - 5, "each failure counted exactly once");
    let states: Vec<PathBuf> = fs::read_dir(root.join(".fable/state"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".json"))
        .collect();
    assert_eq!(states.len(), 1, "{states:?}");
    let v: Value = serde_json::from_slice(&fs::read(&states[0]).unwrap()).expect("state is valid JSON");
    assert_eq!(v["streak"], failures as u64);
    assert_eq!(all_lines(&root.join(".fable")).len(), failures);
}
