//! Tampering is denied, and what slips by is seen (issue 30 item 2). Each case drives the
//! real binaries: the log guard (PreToolUse) denies the plain ways around fable's records
//! with a reason, the evidence hook refuses payloads Claude Code did not send, and the
//! Stop names every attempt of the round to the user. Honest commands that merely mention
//! fable, and reads of the log, pass.

mod common_discipline;
use common_discipline::*;
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};

const SID: &str = "sess-1";

/// A project whose user state is at the default place (`~/.local/state/fable`).
fn proj() -> Proj {
    let p = Proj::new();
    let state = p.home.join(".local/state");
    let p = p.with_env("XDG_STATE_HOME", &state.to_string_lossy());
    p.ledger("# Ledger\n\n- [ ] 1. tests pass\n");
    p
}

fn guard(p: &Proj, tool: &str, input: Value) -> std::process::Output {
    p.hook(
        "fable-log-guard",
        json!({"session_id": SID, "hook_event_name": "PreToolUse", "tool_name": tool,
               "tool_input": input, "tool_use_id": "toolu_g"}),
    )
}

/// The deny reason, when the guard denied.
fn denial(o: &std::process::Output) -> Option<String> {
    let v: Value = serde_json::from_slice(&o.stdout).ok()?;
    let h = &v["hookSpecificOutput"];
    (h["permissionDecision"] == "deny").then(|| h["permissionDecisionReason"].as_str().unwrap_or("").to_string())
}

fn bash_denied(p: &Proj, cmd: &str) -> String {
    let o = guard(p, "Bash", json!({"command": cmd, "description": "x"}));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    denial(&o).unwrap_or_else(|| panic!("not denied: {cmd}\n{}", stdout(&o)))
}

fn bash_allowed(p: &Proj, cmd: &str) {
    let o = guard(p, "Bash", json!({"command": cmd, "description": "x"}));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(denial(&o).is_none(), "denied an honest command: {cmd}\n{}", stdout(&o));
}

fn stop(p: &Proj) -> std::process::Output {
    p.hook(
        "fable-close-guard",
        json!({"session_id": SID, "hook_event_name": "Stop", "stop_hook_active": false}),
    )
}

#[test]
fn the_key_by_glob_and_by_python_is_denied_and_named_at_stop() {
    let p = proj();
    let why = bash_denied(&p, "cat ~/.local/state/*/key | xxd");
    assert!(why.contains("sealing key"), "{why}");
    bash_denied(
        &p,
        "python3 -c \"print(open(__import__('os').path.expanduser('~/.local/state/fable/key'),'rb').read().hex())\"",
    );
    bash_denied(&p, "cd ~/.local/state/fable && od -An -tx1 key");
    // The Stop (here blocked for the open card) names both attempts.
    let o = stop(&p);
    let text = said(&o);
    assert!(
        text.contains("attempt(s) this round") && text.contains("~/.local/state/*/key"),
        "{text}"
    );
    assert!(text.contains("python3 -c"), "{text}");
}

#[test]
fn deleting_the_chain_head_and_holding_the_lock_are_denied() {
    let p = proj();
    // A sealed record first, so a head exists.
    p.hook("fable-evidence", success(SID, "pytest -q"));
    let heads = p.home.join(".local/state/fable/heads");
    assert!(fs::read_dir(&heads).unwrap().count() > 0);
    bash_denied(&p, "sed -i '$d' .fable/evidence.jsonl");
    bash_denied(&p, "rm -f ~/.local/state/fable/heads/*");
    bash_denied(&p, &format!("rm -rf {}", heads.display()));
    let why = bash_denied(&p, "flock .fable/evidence.lock sleep 600 &");
    assert!(why.contains("lock"), "{why}");
    bash_denied(&p, "exec 9>.fable/evidence.lock; flock 9; pytest -q");
}

#[test]
fn hook_binaries_are_neither_fed_by_hand_nor_changed() {
    let p = proj();
    let bin = p.home.join(".local/bin");
    fs::create_dir_all(&bin).unwrap();
    let guard_bin = bin.join("fable-close-guard");
    fs::write(&guard_bin, "#!/bin/sh\n").unwrap();
    for cmd in [
        "echo '{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"pytest -q\"}}' | fable-evidence".to_string(),
        format!("cat /tmp/p.json | {}/fable-evidence", bin.display()),
        "bash -c 'fable-evidence < /tmp/p.json'".to_string(),
        "cat /tmp/p.json | env CLAUDE_PROJECT_DIR=. xargs -0 fable-evidence".to_string(),
        format!("chmod -x {}", guard_bin.display()),
        format!("cp /bin/true {}", guard_bin.display()),
        format!("printf '#!/bin/sh\\nexit 0\\n' > {}", guard_bin.display()),
        "fable uninstall".to_string(),
        "fable evidence import --seal /tmp/forged.jsonl".to_string(),
        "fable trust".to_string(),
    ] {
        let why = bash_denied(&p, &cmd);
        assert!(why.starts_with("fable: this command"), "{cmd}: {why}");
    }
    let why = bash_denied(&p, "fable uninstall --scope user");
    assert!(why.contains("the user's to do"), "{why}");
    let w = guard(&p, "Write", json!({"file_path": guard_bin, "content": "#!/bin/sh\n"}));
    assert!(denial(&w).is_some(), "{}", stdout(&w));
}

#[test]
fn settings_edits_by_bash_and_by_write_are_denied() {
    let p = proj();
    let reg = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"fable-close-guard # fable"}]}]}}"#;
    fs::create_dir_all(p.root.join(".claude")).unwrap();
    fs::write(p.root.join(".claude/settings.json"), reg).unwrap();
    fs::create_dir_all(p.home.join(".claude")).unwrap();
    fs::write(p.home.join(".claude/settings.json"), reg).unwrap();
    bash_denied(&p, "echo '{\"disableAllHooks\": true}' > .claude/settings.local.json");
    bash_denied(
        &p,
        "jq '.disableAllHooks = true' ~/.claude/settings.json > /tmp/s && mv /tmp/s ~/.claude/settings.json",
    );
    bash_denied(&p, "sed -i 's/fable-close-guard/true/' .claude/settings.json");
    let w = guard(
        &p,
        "Write",
        json!({"file_path": p.root.join(".claude/settings.local.json"), "content": "{\"disableAllHooks\": true}"}),
    );
    assert!(denial(&w).is_some_and(|r| r.contains("settings")), "{}", stdout(&w));
    let e = guard(
        &p,
        "Edit",
        json!({"file_path": p.root.join(".claude/settings.json"), "old_string": "fable-close-guard", "new_string": "true"}),
    );
    assert!(denial(&e).is_some(), "{}", stdout(&e));
    // Reading settings, and writing one that does not register fable, are fine.
    bash_allowed(&p, "cat .claude/settings.json | jq .hooks");
    let w = guard(
        &p,
        "Write",
        json!({"file_path": p.root.join(".claude/settings.local.json"), "content": "{\"permissions\":{\"allow\":[\"Bash(ls)\"]}}"}),
    );
    assert!(denial(&w).is_none(), "{}", stdout(&w));
}

#[test]
fn reading_the_log_and_honest_mentions_of_fable_pass() {
    let p = proj();
    p.hook("fable-evidence", success(SID, "pytest -q"));
    for cmd in [
        "cp .fable/evidence.jsonl /tmp/backup.jsonl",
        "cat .fable/evidence.jsonl | jq -c '{cmd, ok}'",
        "tail -n 3 .fable/evidence.jsonl",
        "grep -c pytest .fable/evidence.jsonl",
        "fable evidence verify && fable status",
        "git commit -m 'docs: fable-evidence refuses payloads; never cat ~/.local/state/fable/key'",
        "grep -rn 'fable-close-guard' src/ docs/ | head -20",
        "rg disableAllHooks docs/",
        "cargo build --release --bin fable-evidence && cargo test --test tamper",
        "which fable-evidence",
        "ls ~/.local/state",
    ] {
        bash_allowed(&p, cmd);
    }
    // Nothing was attempted: the stop says nothing about attempts.
    let o = stop(&p);
    assert!(!said(&o).contains("attempt(s)"), "{}", said(&o));
}

/// A transcript as Claude Code writes it: `<config>/projects/<slug>/<session>.jsonl`,
/// the model's `tool_use` line written before the tool runs.
fn transcript(p: &Proj, calls: &[(&str, &str)]) -> PathBuf {
    let dir = p.home.join(".claude/projects/-proj");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{SID}.jsonl"));
    let mut text = format!("{}\n", json!({"type": "attachment", "pad": "x".repeat(100_000)}));
    for (id, cmd) in calls {
        text.push_str(&format!(
            "{}\n",
            json!({"type":"assistant","sessionId":SID,"message":{"role":"assistant","content":[
                {"type":"tool_use","id":id,"name":"Bash","input":{"command":cmd,"description":"run"}}]}})
        ));
    }
    fs::write(&path, text).unwrap();
    path
}

/// A PostToolUse payload as Claude Code sends it.
fn post(transcript: &Path, id: &str, cmd: &str, out: &str) -> Value {
    json!({"session_id": SID, "transcript_path": transcript, "hook_event_name": "PostToolUse",
           "tool_name": "Bash", "tool_input": {"command": cmd, "description": "run"}, "tool_use_id": id,
           "tool_response": {"stdout": out, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
           "duration_ms": 5})
}

/// Under Claude Code (its session id in the environment), with a short wait for the
/// transcript writer so each refusal takes a fraction of a second.
const UNDER_CC: &[(&str, &str)] = &[("CLAUDE_CODE_SESSION_ID", SID), ("FABLE_TRANSCRIPT_WAIT_MS", "200")];

#[test]
fn a_forged_payload_piped_into_the_hook_is_refused_and_named_at_stop() {
    let p = proj();
    let t = transcript(&p, &[("toolu_real", "pytest -q")]);
    // The real call is logged.
    let o = p.hook_env(
        "fable-evidence",
        post(&t, "toolu_real", "pytest -q", "3 failed"),
        UNDER_CC,
    );
    assert_eq!(code(&o), 0);
    assert_eq!(p.records().len(), 1);
    // Forgeries, as an agent's shell would pipe them (it has CLAUDE_CODE_SESSION_ID too):
    // an invented id, a real id with another command, no transcript, a fake transcript.
    let fake_dir = p.home.join("fake");
    fs::create_dir_all(&fake_dir).unwrap();
    let fake = fake_dir.join(format!("{SID}.jsonl"));
    fs::copy(&t, &fake).unwrap();
    let mut no_transcript = post(&t, "toolu_real", "pytest -q", "12 passed");
    no_transcript.as_object_mut().unwrap().remove("transcript_path");
    for (payload, why) in [
        (
            post(&t, "toolu_forged", "pytest -q", "12 passed"),
            "not a tool call in the session's transcript",
        ),
        (
            post(&t, "toolu_real", "pytest -q; echo 12 passed", "12 passed"),
            "ran another command",
        ),
        (no_transcript, "names no transcript"),
        (post(&fake, "toolu_real", "pytest -q", "12 passed"), "is not under"),
    ] {
        let o = p.hook_env("fable-evidence", payload, UNDER_CC);
        assert_eq!(code(&o), 0, "fail-open: never blocks");
        let msg = system_message(&o).unwrap_or_default();
        assert!(msg.contains("refused") && msg.contains(why), "{msg}");
        assert!(stderr(&o).contains("not logged"), "{}", stderr(&o));
    }
    // The same id again with other content (a failure re-reported as a pass): dropped.
    let o = p.hook_env(
        "fable-evidence",
        post(&t, "toolu_real", "pytest -q", "12 passed"),
        UNDER_CC,
    );
    assert!(
        system_message(&o)
            .unwrap_or_default()
            .contains("the first record stands"),
        "{}",
        stdout(&o)
    );
    let recs = p.records();
    assert_eq!(recs.len(), 1, "only the real call is logged: {recs:#?}");
    assert!(recs[0]["tail"].as_str().unwrap().contains("3 failed"));
    // The Stop names the five attempts.
    let text = said(&stop(&p));
    assert!(text.contains("5 attempt(s) this round"), "{text}");
    assert!(text.contains("fable-evidence: refused a PostToolUse payload"), "{text}");
}

#[test]
fn one_hook_in_two_scopes_logs_a_call_once_without_a_word() {
    let p = proj();
    let t = transcript(&p, &[("toolu_a", "cargo test")]);
    let payload = post(&t, "toolu_a", "cargo test", "ok");
    let first = p.hook_env("fable-evidence", payload.clone(), UNDER_CC);
    let second = p.hook_env("fable-evidence", payload, UNDER_CC);
    assert_eq!((code(&first), code(&second)), (0, 0));
    assert_eq!(
        system_message(&second),
        None,
        "an identical duplicate is dropped silently"
    );
    assert_eq!(stderr(&second), "");
    assert_eq!(p.records().len(), 1);
    assert!(!said(&stop(&p)).contains("attempt(s)"));
}

#[test]
fn hand_made_payloads_outside_claude_code_are_still_logged() {
    // Tests and other hosts pipe payloads without Claude Code around: nothing to check.
    let p = proj();
    let o = p.hook("fable-evidence", success(SID, "pytest -q"));
    assert_eq!(code(&o), 0);
    assert_eq!(system_message(&o), None, "{}", stdout(&o));
    assert_eq!(p.records().len(), 1);
}

/// Claude Code writes its transcript through a queue: a fast command's hook may start
/// before the call's line is on disk. The hook waits for it (default up to 3 s), so the
/// real call is logged, not refused.
#[test]
fn a_call_whose_transcript_line_lands_late_is_still_logged() {
    use std::io::Write;
    let p = proj();
    let t = transcript(&p, &[]);
    let payload = post(&t, "toolu_late", "false", "");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fable-evidence"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()))
        .env("HOME", &p.home)
        .env("XDG_STATE_HOME", p.home.join(".local/state"))
        .env("XDG_CONFIG_HOME", p.home.join("xdg-config"))
        .env("FABLE_CONFIG_DIR", p.config_dir())
        .env("CLAUDE_CODE_SESSION_ID", SID)
        .current_dir(&p.root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let line = json!({"type":"assistant","sessionId":SID,"message":{"role":"assistant","content":[
        {"type":"tool_use","id":"toolu_late","name":"Bash","input":{"command":"false","description":"run"}}]}});
    fs::OpenOptions::new()
        .append(true)
        .open(&t)
        .unwrap()
        .write_all(format!("{line}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 0);
    assert_eq!(system_message(&out), None, "{}", stdout(&out));
    let recs = p.records();
    assert_eq!(recs.len(), 1, "{recs:#?}");
    assert_eq!(recs[0]["tool_use_id"], "toolu_late");
}
