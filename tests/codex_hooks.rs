//! The hook binaries under `--host codex`, fed the payload shapes captured from Codex
//! 0.171 (docs codex-hooks.md §3: compact JSON, no trailing newline) and a synthetic
//! rollout holding the `item_completed` line Codex writes before PostToolUse runs.

mod common_discipline;
use common_discipline::*;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

const SID: &str = "01a248c1-c11e-73c1-b69b-9642c39296ba";

/// One `item_completed` line of a shell call, as Codex writes it to the rollout.
fn completed(id: &str, code: i64) -> String {
    json!({"timestamp":"2026-12-06T00:29:48.000Z","type":"event_msg","payload":{"type":"item_completed",
        "item":{"type":"CommandExecution","id":id,"exit_code":code,"status": if code == 0 {"completed"} else {"failed"},
        "aggregated_output":"x","command":["/bin/bash","-lc","cmd"]}}})
    .to_string()
}

/// A rollout file holding `lines`, in the project's home (outside the project).
fn rollout(p: &Proj, name: &str, lines: &[String]) -> PathBuf {
    let dir = p.home.join(".codex/sessions/2026/12/06");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("rollout-{name}.jsonl"));
    let mut f = std::fs::File::create(&path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    path
}

/// A Codex PostToolUse of a shell call, exactly as captured (the string response).
fn post(p: &Proj, transcript: &Path, id: &str, cmd: &str, output: &str) -> Value {
    json!({"session_id":SID,"turn_id":"01a248c1-c141-7041-9b7f-ec1854eac476","transcript_path":transcript,
        "cwd":p.root,"hook_event_name":"PostToolUse","model":"mock-model","permission_mode":"bypassPermissions",
        "tool_name":"Bash","tool_input":{"command":cmd},"tool_response":output,"tool_use_id":id})
}

/// Runs a hook binary as `fable install --host codex` registers it, stdin without newline.
fn codex(p: &Proj, bin: &str, payload: &Value, env: &[(&str, &str)]) -> Output {
    let mut c = p.cmd(bin);
    c.args(["--host", "codex"]);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.write_stdin(payload.to_string().into_bytes()).output().unwrap();
    assert_ne!(code(&o), 2, "{bin} exited 2 under Codex: {}", stderr(&o));
    o
}

fn last(p: &Proj) -> Value {
    p.records().pop().expect("a record")
}

#[test]
fn a_failing_command_is_logged_with_its_exit_code_from_the_rollout() {
    let p = Proj::new();
    let r = rollout(p_ref(&p), "a", &[completed("call_fail", 2), completed("call_ok", 0)]);
    let o = codex(
        &p,
        "fable-evidence",
        &post(
            &p,
            &r,
            "call_fail",
            "ls /nonexistent",
            "ls: cannot access '/nonexistent': No such file or directory\n",
        ),
        &[],
    );
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
    let rec = last(&p);
    assert_eq!((rec["exit"].clone(), rec["ok"].clone()), (json!(2), json!(false)));
    assert_eq!(rec["host"], "codex");
    assert_eq!(rec["event"], "PostToolUse");
    assert!(rec["tail"].as_str().unwrap().contains("cannot access"));
    assert!(rec["mac"].is_string(), "sealed like any record");

    codex(&p, "fable-evidence", &post(&p, &r, "call_ok", "echo ok", "ok\n"), &[]);
    let rec = last(&p);
    assert_eq!((rec["exit"].clone(), rec["ok"].clone()), (json!(0), json!(true)));
}

fn p_ref(p: &Proj) -> &Proj {
    p
}

#[test]
fn no_rollout_or_no_line_is_an_unknown_status_never_a_pass() {
    let p = Proj::new();
    let missing = p.home.join("no-such-rollout.jsonl");
    codex(
        &p,
        "fable-evidence",
        &post(&p, &missing, "call_1", "cargo test", "test result: ok. 3 passed\n"),
        &[],
    );
    let rec = last(&p);
    assert_eq!((rec["exit"].clone(), rec["ok"].clone()), (Value::Null, json!(false)));
    let r = rollout(&p, "b", &[completed("another_call", 0)]);
    codex(&p, "fable-evidence", &post(&p, &r, "call_2", "cargo test", "ok\n"), &[]);
    let rec = last(&p);
    assert_eq!((rec["exit"].clone(), rec["ok"].clone()), (Value::Null, json!(false)));
}

#[test]
fn a_five_megabyte_rollout_with_the_line_near_its_end() {
    let p = Proj::new();
    let filler = json!({"type":"response_item","payload":{"type":"message","text":"y".repeat(2000)}}).to_string();
    let mut lines: Vec<String> = (0..2500).map(|_| filler.clone()).collect();
    lines.push(completed("call_big", 101));
    lines.extend((0..20).map(|_| filler.clone()));
    let r = rollout(&p, "big", &lines);
    assert!(std::fs::metadata(&r).unwrap().len() > 5_000_000);
    codex(
        &p,
        "fable-evidence",
        &post(&p, &r, "call_big", "cargo test", "error: test failed\n"),
        &[],
    );
    let rec = last(&p);
    assert_eq!((rec["exit"].clone(), rec["ok"].clone()), (json!(101), json!(false)));
}

#[test]
fn apply_patch_is_an_edit_record() {
    let p = Proj::new();
    let patch =
        "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** Add File: src/new.rs\n+x\n*** End Patch\n";
    let payload = json!({"session_id":SID,"turn_id":"t","transcript_path":"/nonexistent","cwd":p.root,
        "hook_event_name":"PostToolUse","model":"mock-model","permission_mode":"bypassPermissions",
        "tool_name":"apply_patch","tool_input":{"command":patch},"tool_response":"Success. Updated the following files:\nM src/lib.rs\n","tool_use_id":"call_patch"});
    codex(&p, "fable-evidence", &payload, &[]);
    let rec = last(&p);
    assert_eq!(rec["file"], "src/lib.rs");
    assert_eq!(rec["cmd"], "");
    assert_eq!(rec["host"], "codex");
}

#[test]
fn the_project_is_the_payload_cwd_walked_up_not_an_inherited_claude_project_dir() {
    let p = Proj::new();
    let elsewhere = Proj::new();
    p.write("sub/dir/keep", "");
    let r = rollout(&p, "c", &[completed("call_sub", 1)]);
    let mut payload = post(&p, &r, "call_sub", "make", "boom\n");
    payload["cwd"] = json!(p.root.join("sub/dir"));
    codex(
        &p,
        "fable-evidence",
        &payload,
        &[("CLAUDE_PROJECT_DIR", &elsewhere.root.to_string_lossy())],
    );
    assert_eq!(last(&p)["exit"], 1);
    assert!(elsewhere.records().is_empty());
}

#[test]
fn the_fail_streak_speaks_through_additional_context_at_three_and_six() {
    let p = Proj::new();
    p.ledger("- [ ] 1. fix the parser — acceptance: `cargo test parser`\n");
    let ids: Vec<String> = (1..=6).map(|i| format!("call_f{i}")).collect();
    let r = rollout(&p, "d", &ids.iter().map(|id| completed(id, 101)).collect::<Vec<_>>());
    let mut said = Vec::new();
    for id in &ids {
        let o = codex(
            &p,
            "fable-fail-streak",
            &post(&p, &r, id, "cargo test parser", "test failed\n"),
            &[],
        );
        assert_eq!(code(&o), 0);
        if let Some(c) = context(&o) {
            let v: Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
            said.push((id.clone(), c));
        }
    }
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(said[0].0, "call_f3");
    assert!(said[0].1.contains("attribute the failure"));
    assert_eq!(said[1].0, "call_f6");
    assert!(said[1].1.contains("stop retrying"));
    // A pass resets: the rollout says 0.
    let r2 = rollout(&p, "e", &[completed("call_pass", 0), completed("call_f7", 101)]);
    codex(
        &p,
        "fable-fail-streak",
        &post(&p, &r2, "call_pass", "cargo test parser", "ok\n"),
        &[],
    );
    let o = codex(
        &p,
        "fable-fail-streak",
        &post(&p, &r2, "call_f7", "cargo test parser", "failed\n"),
        &[],
    );
    assert!(context(&o).is_none());
}

#[test]
fn an_unknown_status_neither_counts_nor_resets_the_streak() {
    let p = Proj::new();
    p.ledger("- [ ] 1. fix\n");
    let missing = p.home.join("none.jsonl");
    for i in 0..4 {
        let o = codex(
            &p,
            "fable-fail-streak",
            &post(&p, &missing, &format!("call_u{i}"), "make", "?\n"),
            &[],
        );
        assert!(context(&o).is_none());
    }
}

fn stop(p: &Proj, active: bool, env: &[(&str, &str)]) -> Output {
    let payload = json!({"session_id":SID,"turn_id":"t1","transcript_path":"/nonexistent/rollout.jsonl","cwd":p.root,
        "hook_event_name":"Stop","model":"mock-model","permission_mode":"bypassPermissions",
        "stop_hook_active":active,"last_assistant_message":"All done."});
    codex(p, "fable-close-guard", &payload, env)
}

#[test]
fn a_stop_on_open_work_is_blocked_through_the_json_decision() {
    let p = Proj::new();
    p.ledger("- [ ] 1. write the parser\n");
    let o = stop(&p, false, &[]);
    let reason = stop_reason(&o).expect("decision block");
    assert!(reason.contains("write the parser"), "{reason}");
    assert_eq!(code(&o), 0);
}

#[test]
fn fables_own_limit_ends_a_stop_loop_codex_never_caps() {
    let p = Proj::new();
    p.ledger("- [ ] 1. write the parser\n");
    let env = [("FABLE_STOP_BLOCK_LIMIT", "3")];
    assert!(stop_reason(&stop(&p, false, &env)).is_some());
    assert!(stop_reason(&stop(&p, true, &env)).is_some());
    assert!(stop_reason(&stop(&p, true, &env)).is_some());
    let o = stop(&p, true, &env);
    assert!(stop_reason(&o).is_none(), "the fourth stop in a row is let through");
    let msg = system_message(&o).expect("the user is told");
    assert!(
        msg.contains("after 3 blocks in a row") && msg.contains("write the parser"),
        "{msg}"
    );
    // A new turn starts a new count.
    assert!(stop_reason(&stop(&p, false, &env)).is_some());
}

#[test]
fn a_stop_loop_ends_by_default_without_any_setting() {
    // Without FABLE_STOP_BLOCKS from the test helper: the close guard's own limit (3)
    // and the Codex backstop (8) — whichever comes first ends the loop.
    let p = Proj::new();
    p.ledger("- [ ] 1. write the parser\n");
    let env = [("FABLE_STOP_BLOCKS", "3")];
    let mut blocked = 0;
    for i in 0..12 {
        let o = stop(&p, i > 0, &env);
        if stop_reason(&o).is_none() {
            assert!(system_message(&o).is_some());
            break;
        }
        blocked += 1;
    }
    assert!((1..=8).contains(&blocked), "{blocked}");
}

#[test]
fn session_start_context_and_claude_code_unchanged_without_the_flag() {
    let p = Proj::new();
    p.ledger("- [ ] 1. write the parser\n");
    let payload = json!({"session_id":SID,"transcript_path":"/x.jsonl","cwd":p.root,"hook_event_name":"SessionStart",
        "model":"mock-model","permission_mode":"bypassPermissions","source":"startup"});
    let o = codex(&p, "fable-inject", &payload, &[]);
    if !o.stdout.is_empty() {
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    }
    // The same string response under Claude Code (no flag): no rollout is read.
    let r = rollout(&p, "f", &[completed("call_cc", 3)]);
    let out = p
        .cmd("fable-evidence")
        .write_stdin(post(&p, &r, "call_cc", "make", "x\n").to_string())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    let rec = last(&p);
    assert!(rec.get("host").is_none());
    assert_ne!(rec["exit"], 3);
}

#[test]
fn a_patch_that_writes_the_evidence_log_is_denied_and_an_honest_one_is_not() {
    let p = Proj::new();
    let pre = |patch: &str| {
        json!({"session_id":SID,"turn_id":"t","transcript_path":"/x.jsonl","cwd":p.root,"hook_event_name":"PreToolUse",
            "model":"mock-model","permission_mode":"bypassPermissions","tool_name":"apply_patch",
            "tool_input":{"command":patch},"tool_use_id":"call_p"})
    };
    let o = codex(&p, "fable-log-guard", &pre("*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** Add File: .fable/evidence.jsonl\n+{}\n*** End Patch\n"), &[]);
    let v: Value = serde_json::from_slice(&o.stdout).expect("a JSON answer");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .contains("evidence"));
    let o = codex(
        &p,
        "fable-log-guard",
        &pre("*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** End Patch\n"),
        &[],
    );
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
}
