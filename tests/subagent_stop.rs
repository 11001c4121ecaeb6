//! Issue 11, item 4, for sub-agents: at SubagentStop the close guard checks only the
//! final message's claim of success. The claim needs a sealed passing run of such a
//! command, newer than the session's last edit, by this sub-agent (records carrying its
//! `agent` id) or by the main thread (records without one); the parent's ledger (open
//! cards, citations) is left to the parent's own Stop. Payloads in the shape Claude Code
//! 2.1.332 sends (captured: claude-code-hooks.md, cc-harness `experiments.py subagent`).

mod common_discipline;
use common_discipline::*;
use serde_json::{json, Value};

const SID: &str = "e1fc1e12-1ede-4389-9be5-a7b6905fbb3f";
const AGENT: &str = "acfbc16cd869985b7";

/// A SubagentStop payload as captured from the real CLI.
fn subagent_stop(p: &Proj, agent: &str, message: &str, active: bool) -> Value {
    json!({"session_id": SID, "transcript_path": "/nonexistent/t.jsonl", "cwd": p.root.to_string_lossy(),
           "prompt_id": "f2104d6e", "permission_mode": "bypassPermissions", "agent_id": agent,
           "agent_type": "general-purpose", "effort": {"level": "medium"}, "hook_event_name": "SubagentStop",
           "stop_hook_active": active,
           "agent_transcript_path": format!("/nonexistent/subagents/agent-{agent}.jsonl"),
           "last_assistant_message": message,
           "background_tasks": [{"id": agent, "type": "subagent", "status": "running",
                                 "description": "sub task", "agent_type": "general-purpose"}],
           "session_crons": []})
}

fn sub_stop(p: &Proj, agent: &str, message: &str) -> std::process::Output {
    p.hook("fable-close-guard", subagent_stop(p, agent, message, false))
}

fn main_stop(p: &Proj, message: &str) -> std::process::Output {
    p.hook(
        "fable-close-guard",
        json!({"session_id": SID, "hook_event_name": "Stop", "stop_hook_active": false,
               "last_assistant_message": message, "background_tasks": [], "session_crons": []}),
    )
}

/// A Bash call logged through the real evidence hook, by `agent` (None: the main thread).
fn ran(p: &Proj, agent: Option<&str>, cmd: &str, stdout: &str) {
    let mut v = success(SID, cmd);
    v["tool_response"]["stdout"] = json!(stdout);
    if let Some(a) = agent {
        v["agent_id"] = json!(a);
        v["agent_type"] = json!("general-purpose");
    }
    let o = p.hook("fable-evidence", v);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

fn wrote(p: &Proj, agent: Option<&str>, rel: &str) {
    let file = p.root.join(rel).to_string_lossy().into_owned();
    let mut v = json!({"session_id": SID, "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": file, "content": "x\n"},
        "tool_response": {"type": "create", "filePath": file}, "tool_use_id": "toolu_w"});
    if let Some(a) = agent {
        v["agent_id"] = json!(a);
    }
    let o = p.hook("fable-evidence", v);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

const PASS: &str = "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
const FAIL: &str =
    "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";

fn tick() {
    std::thread::sleep(std::time::Duration::from_millis(5));
}

#[test]
fn an_unbacked_claim_blocks_the_sub_agent_and_its_own_run_backs_it() {
    let p = Proj::new();
    p.ledger("# no cards\n");
    let o = sub_stop(&p, AGENT, "Fixed the parser. All tests pass now.");
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    let e = said(&o);
    assert!(
        e.contains("\"All tests pass now\"") && e.contains("this sub-agent's (or the main thread's)"),
        "{e}"
    );
    ran(&p, Some(AGENT), "cargo test", PASS);
    assert_eq!(
        p.records().pop().unwrap()["agent"],
        AGENT,
        "the sub-agent's run carries its id"
    );
    let o = sub_stop(&p, AGENT, "Fixed the parser. All tests pass now.");
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    // Nothing claimed, nothing to back.
    let q = Proj::new();
    q.ledger("# no cards\n");
    assert_eq!(stop_code(&sub_stop(&q, AGENT, "Here is what I found in src/.")), 0);
}

#[test]
fn a_main_thread_run_backs_it_but_a_sibling_sub_agents_does_not() {
    let p = Proj::new();
    p.ledger("# no cards\n");
    ran(&p, Some("sibling0000000001"), "cargo test", PASS);
    let claim = "Done: the build succeeds.";
    let o = sub_stop(&p, AGENT, claim);
    assert_eq!(
        stop_code(&o),
        2,
        "a sibling's run is not this sub-agent's: {}",
        said(&o)
    );
    // The parent's Stop counts every run of the session, the sibling's included.
    assert_eq!(stop_code(&main_stop(&p, claim)), 0);
    ran(&p, None, "cargo build", "Finished `dev` profile\n");
    assert_eq!(stop_code(&sub_stop(&p, AGENT, claim)), 0);
}

#[test]
fn a_run_older_than_anyones_last_edit_or_a_piped_failure_does_not_back_it() {
    let p = Proj::new();
    p.ledger("# no cards\n");
    let claim = "All tests pass.";
    ran(&p, Some(AGENT), "cargo test", PASS);
    tick();
    // The main thread (or anyone in the session) changed the code after the run.
    wrote(&p, None, "src/parse.rs");
    assert_eq!(stop_code(&sub_stop(&p, AGENT, claim)), 2);
    tick();
    // `cargo test 2>&1 | tail -5` exits 0 through the pipe; its summary says 1 failed.
    ran(&p, Some(AGENT), "cargo test 2>&1 | tail -5", FAIL);
    assert_eq!(p.records().pop().unwrap()["summary"]["failed"], 1);
    let o = sub_stop(&p, AGENT, claim);
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(said(&o).contains("The newest such run failed"), "{}", said(&o));
    // The parent's Stop sees the same: a piped failure backs no claim there either.
    assert_eq!(stop_code(&main_stop(&p, claim)), 2);
    tick();
    ran(&p, Some(AGENT), "cargo test 2>&1 | tail -5", PASS);
    assert_eq!(stop_code(&sub_stop(&p, AGENT, claim)), 0);
}

/// The parent's ledger is the parent's: open cards and a never-run citation block the
/// parent's Stop, not a sub-agent that says nothing it cannot back.
#[test]
fn open_cards_and_citations_of_the_parent_ledger_do_not_block_a_sub_agent() {
    let p = Proj::new();
    p.ledger("- [ ] 1. still open\n- [x] 2. parser -- evidence: `pytest -q` -> 3 passed\n");
    let o = sub_stop(&p, AGENT, "I read the parser; the bug is in tokenise().");
    assert_eq!(stop_code(&o), 0, "{}", said(&o));
    assert_eq!(system_message(&o), None, "an allowed sub-agent stop has nothing to say");
    let o = main_stop(&p, "Stopping here.");
    assert_eq!(stop_code(&o), 2);
    assert!(
        said(&o).contains("still open") && said(&o).contains("pytest -q"),
        "{}",
        said(&o)
    );
    // PAUSED switches the claim check off, as at Stop; no `.fable/` is no check at all.
    p.ledger("PAUSED: the user moved me to a hotfix\n- [ ] 1. still open\n");
    assert_eq!(stop_code(&sub_stop(&p, AGENT, "All tests pass.")), 0);
    let bare = Proj::bare();
    assert_eq!(stop_code(&sub_stop(&bare, AGENT, "All tests pass.")), 0);
    // Light mode keeps the honesty rule.
    p.ledger("MODE: light\n- [ ] 1. still open\n");
    assert_eq!(stop_code(&sub_stop(&p, AGENT, "All tests pass.")), 2);
}

/// A sub-agent's blocks are counted apart from the parent's: it is re-blocked up to the
/// limit (whatever `stop_hook_active` says), then let through with a message to the user,
/// and the parent's own count is untouched.
#[test]
fn a_sub_agents_blocks_hold_up_to_the_limit_and_are_its_own() {
    let p = Proj::new().with_env("FABLE_STOP_BLOCKS", "2");
    p.ledger("# no cards\n");
    let claim = "All tests pass now.";
    for i in 1..=2 {
        let o = p.hook("fable-close-guard", subagent_stop(&p, AGENT, claim, i > 1));
        assert_eq!(stop_code(&o), 2, "block {i}: {}", said(&o));
    }
    // The parent's first stop is still its first block, not let through.
    let o = main_stop(&p, claim);
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    let o = p.hook("fable-close-guard", subagent_stop(&p, AGENT, claim, true));
    assert_eq!(stop_code(&o), 0);
    let msg = system_message(&o).expect("the user is told");
    assert!(
        msg.contains("after 2 blocks") && msg.contains("All tests pass"),
        "{msg}"
    );
    // Another sub-agent of the same session starts from zero.
    let o = sub_stop(&p, "other000000000002", claim);
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
}
