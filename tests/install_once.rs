//! Issue 30 item 3, "one registration acts once": `fable install` refuses a second
//! registration (user vs project vs local, or a fable plugin) and `--replace` moves it;
//! it records each installed binary's SHA-256. And with both registered anyway (settings
//! written by hand), the hooks Claude Code starts twice per call act once: one evidence
//! record, the 3-failure reminder at the 3rd failure, at most 3 blocks per stop reason.

mod common_setup;

use common_setup::{fable_commands, isolated, text, Setup};

use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// `fable install --no-skill ARGS` in the sandbox's project; its output (it may be refused).
fn install(s: &Setup, args: &[&str]) -> std::process::Output {
    s.fable()
        .args(["install", "--no-skill", "--claude-version", "2.1.332", "--bin-dir"])
        .arg(s.bins())
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn user_then_project_is_refused_with_the_way_out() {
    let s = Setup::new();
    assert!(install(&s, &["--user"]).status.success());
    let out = install(&s, &["--project"]);
    assert!(!out.status.success(), "a second registration must be refused");
    let err = text(&out.stderr);
    assert!(err.contains("refused") && err.contains("run every hook twice"), "{err}");
    assert!(
        err.contains(&format!("user settings ({})", s.user_settings().display())),
        "{err}"
    );
    assert!(err.contains("keep the user one: nothing to do"), "{err}");
    assert!(err.contains("--replace` (removes it from user)"), "{err}");
    assert!(!s.project_settings().exists(), "nothing was written");
    // The other way round too: project first, then user.
    let s = Setup::new();
    assert!(install(&s, &["--project"]).status.success());
    let out = install(&s, &["--user"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("project settings"), "{}", text(&out.stderr));
    assert!(!s.user_settings().exists());
}

#[test]
fn replace_moves_the_registration() {
    let s = Setup::new();
    assert!(install(&s, &["--user"]).status.success());
    assert_eq!(fable_commands(&s.user_settings()).len(), 11);
    let out = install(&s, &["--project", "--replace"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("removed fable's hooks from user settings"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        fable_commands(&s.user_settings()).is_empty(),
        "moved out of user settings"
    );
    assert_eq!(fable_commands(&s.project_settings()).len(), 11);
    // Now the project holds it: a user install is the second one.
    assert!(!install(&s, &["--user"]).status.success());
    // Installing again where it is changes nothing and is not refused.
    assert!(install(&s, &["--project"]).status.success());
}

#[test]
fn one_command_string_in_two_files_is_not_a_double() {
    // User and local scope both write the absolute path: Claude Code runs it once.
    let s = Setup::new();
    assert!(install(&s, &["--user"]).status.success());
    let out = install(&s, &["--local"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_fable_plugin_refuses_a_second_registration() {
    let s = Setup::new();
    let plugin = s.root().join("plugin");
    fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    fs::write(plugin.join(".claude-plugin/plugin.json"), r#"{"name":"fable"}"#).unwrap();
    fs::create_dir_all(plugin.join("hooks")).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/hooks.json"),
        plugin.join("hooks/hooks.json"),
    )
    .unwrap();
    // Named with --plugin-dir (as `claude --plugin-dir` loads it) …
    let out = install(&s, &["--user", "--plugin-dir", plugin.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("the fable plugin") && err.contains("disable the plugin"),
        "{err}"
    );
    // … and recorded by a marketplace install; --replace cannot move a plugin's hooks.
    let rec = json!({"version": 2, "plugins": {"fable@local": [{"scope": "user", "installPath": plugin}]}});
    fs::create_dir_all(s.home().join(".claude/plugins")).unwrap();
    fs::write(s.home().join(".claude/plugins/installed_plugins.json"), rec.to_string()).unwrap();
    let out = install(&s, &["--user", "--replace"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("disable the plugin"));
    assert!(!s.user_settings().exists());
    // Disabled in the settings: not loaded, so the install goes ahead.
    fs::create_dir_all(s.home().join(".claude")).unwrap();
    fs::write(s.user_settings(), r#"{"enabledPlugins":{"fable@local":false}}"#).unwrap();
    assert!(install(&s, &["--user"]).status.success());
}

#[test]
fn install_records_the_sha256_of_each_hook_binary() {
    let s = Setup::new();
    assert!(install(&s, &["--user"]).status.success());
    let state: Value =
        serde_json::from_str(&fs::read_to_string(s.home().join("state/fable/installs.json")).unwrap()).unwrap();
    let rec = &state["installs"][s.user_settings().to_string_lossy().as_ref()];
    let bins = rec["binaries"].as_object().expect("binaries recorded");
    assert_eq!(bins.len(), 7, "{rec}");
    for (path, hash) in bins {
        let h = hash.as_str().unwrap();
        assert_eq!(h.len(), 64);
        assert!(h.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(Path::new(path).starts_with(s.bins()), "{path}");
    }
}

// ---- both registered anyway: every call arrives twice, at the same time ----

/// Runs `bin` twice at once with the same payload, as Claude Code does for a hook
/// registered in two scopes; returns both outputs.
fn twice(p: &Path, bin: &str, payload: &Value) -> Vec<std::process::Output> {
    let children: Vec<_> = (0..2)
        .map(|_| {
            let mut c = isolated::std_cmd(bin, &p.join(".home"))
                .current_dir(p)
                .env("CLAUDE_PROJECT_DIR", p)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(format!("{payload}\n").as_bytes())
                .unwrap();
            c
        })
        .collect();
    children.into_iter().map(|c| c.wait_with_output().unwrap()).collect()
}

fn project() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("proj");
    fs::create_dir_all(p.join(".git")).unwrap();
    fs::create_dir_all(p.join(".fable")).unwrap();
    (t, p)
}

fn failure(id: &str, cmd: &str) -> Value {
    json!({"session_id": "s1", "transcript_path": "/none.jsonl", "cwd": "/", "hook_event_name": "PostToolUseFailure",
           "tool_name": "Bash", "tool_input": {"command": cmd, "description": "run"}, "tool_use_id": id,
           "error": "Exit code 101\nerror: 2 tests failed", "is_interrupt": false, "duration_ms": 30})
}

#[test]
fn a_call_delivered_twice_is_logged_once() {
    let (_t, p) = project();
    for i in 0..5 {
        let ok = json!({"session_id": "s1", "transcript_path": "/none.jsonl", "cwd": "/", "hook_event_name": "PostToolUse",
            "tool_name": "Bash", "tool_input": {"command": format!("echo {i}")}, "tool_use_id": format!("toolu_ok{i}"),
            "tool_response": {"stdout": format!("{i}"), "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}});
        assert!(twice(&p, "fable-evidence", &ok).iter().all(|o| o.status.success()));
    }
    let log = fs::read_to_string(p.join(".fable/evidence.jsonl")).unwrap();
    let cmds: Vec<String> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["cmd"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(cmds, (0..5).map(|i| format!("echo {i}")).collect::<Vec<_>>());
}

#[test]
fn the_reminder_comes_at_the_third_failure_not_the_second() {
    let (_t, p) = project();
    fs::write(p.join(".fable/LEDGER.md"), "- [ ] 1. fix the tests\n").unwrap();
    let said = |outs: &[std::process::Output]| -> usize {
        outs.iter()
            .filter(|o| text(&o.stdout).contains("3 failed attempts"))
            .count()
    };
    for n in 1..=2 {
        let outs = twice(&p, "fable-fail-streak", &failure(&format!("toolu_f{n}"), "cargo test"));
        assert_eq!(said(&outs), 0, "no reminder at failure {n}");
    }
    let outs = twice(&p, "fable-fail-streak", &failure("toolu_f3", "cargo test"));
    assert_eq!(said(&outs), 1, "one reminder, at the 3rd failure");
    // The demand (6+) comes at the 6th failure, not the 3rd.
    for n in 4..=5 {
        let outs = twice(&p, "fable-fail-streak", &failure(&format!("toolu_f{n}"), "cargo test"));
        assert!(outs.iter().all(|o| o.status.code() == Some(0)), "failure {n}");
    }
    let outs = twice(&p, "fable-fail-streak", &failure("toolu_f6", "cargo test"));
    assert_eq!(outs.iter().filter(|o| o.status.code() == Some(2)).count(), 1);
}

/// A transcript whose last assistant entry has `uuid`.
fn transcript(p: &Path, uuid: &str) -> PathBuf {
    let t = p.join(".home/t.jsonl");
    fs::create_dir_all(t.parent().unwrap()).unwrap();
    let mut body = fs::read_to_string(&t).unwrap_or_default();
    body.push_str(&format!(
        "{{\"parentUuid\":null,\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"Done.\"}}]}},\"type\":\"assistant\",\"uuid\":\"{uuid}\"}}\n"
    ));
    fs::write(&t, body).unwrap();
    t
}

fn blocked(o: &std::process::Output) -> bool {
    serde_json::from_slice::<Value>(&o.stdout).is_ok_and(|v| v["decision"] == "block")
}

#[test]
fn a_stop_judged_twice_counts_one_block_and_lets_go_after_three() {
    let (_t, p) = project();
    fs::write(p.join(".fable/LEDGER.md"), "- [ ] 1. unfinished\n").unwrap();
    let mut blocks = 0;
    for turn in 1..=4 {
        let t = transcript(&p, &format!("uuid-{turn}"));
        let stop = json!({"session_id": "s1", "transcript_path": t, "cwd": p, "hook_event_name": "Stop",
                          "stop_hook_active": turn > 1, "last_assistant_message": "Done."});
        let outs = twice(&p, "fable-close-guard", &stop);
        // One copy decides; the other says nothing (a block by either blocks the stop,
        // and its reason reaches the model once).
        let said: Vec<&std::process::Output> = outs.iter().filter(|o| !o.stdout.is_empty()).collect();
        let shown: Vec<String> = outs.iter().map(|o| text(&o.stdout)).collect();
        assert_eq!(said.len(), 1, "turn {turn}: {shown:?}");
        if blocked(said[0]) {
            blocks += 1;
        } else {
            assert!(text(&said[0].stdout).contains("after 3 blocks in a row"), "{shown:?}");
        }
    }
    assert_eq!(blocks, 3, "three blocks, then the stop is let through");
}
