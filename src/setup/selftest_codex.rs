//! `fable selftest --host codex`, the pure half: the same plan and the same checks as
//! under Claude Code ([`selftest`]), with the script in the shape of the Codex mock
//! ([`crate::harness::responses`]) and what a Codex run left turned into the
//! [`Observed`] the checks read.
//!
//! Why a translation and not a second judge: the checks are about fable (a failing
//! command logged with its exit code, a never-run citation blocked, an unbacked claim
//! blocked, the stop allowed once the command ran), not about the host. Only the channel
//! differs: Codex sends a Stop block's reason back as a user message
//! `<hook_prompt hook_run_id=…>REASON</hook_prompt>` and a tool result as a
//! `function_call_output`, where Claude Code sends "Stop hook feedback" and a
//! `tool_result`. Each is mapped to the Claude Code shape the judge reads.
//!
//! The runner (I/O) is [`crate::setup::selftest_codex_run`].

use crate::setup::selftest::{self, Observed};
use serde_json::{json, Value};

/// The plan's script ([`selftest::script`]) for the Codex mock: each Bash call becomes a
/// shell step (`exec_command`), text steps stay.
pub fn script() -> Value {
    let step = |s: &Value| match s["tool_use"]["input"]["command"].as_str() {
        Some(cmd) => json!({"shell": cmd}),
        None => s.clone(),
    };
    let claude = selftest::script();
    json!({
        "steps": claude["steps"].as_array().into_iter().flatten().map(step).collect::<Vec<_>>(),
        "default": claude["default"],
    })
}

/// The reasons of the `<hook_prompt …>` parts of a text, in order.
pub fn hook_prompts(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<hook_prompt") {
        let after = &rest[start..];
        let Some(open_end) = after.find('>') else { break };
        let body = &after[open_end + 1..];
        let end = body.find("</hook_prompt>").unwrap_or(body.len());
        out.push(body[..end].to_string());
        rest = &body[end..];
    }
    out
}

/// A Codex request's new input as the Claude Code content blocks the judge reads: a tool
/// output as a `tool_result`, a Stop block's reason as "Stop hook feedback", any other
/// message's text as text.
pub fn new_user_content(new_input: &Value) -> Value {
    let mut blocks = Vec::new();
    for it in new_input.as_array().into_iter().flatten() {
        if it["type"] == "function_call_output" || it["type"] == "custom_tool_call_output" {
            blocks.push(json!({"type": "tool_result", "content": it["output"]}));
            continue;
        }
        for c in it["content"].as_array().into_iter().flatten() {
            let Some(text) = c["text"].as_str() else { continue };
            let reasons = hook_prompts(text);
            if reasons.is_empty() {
                blocks.push(json!({"type": "text", "text": text}));
            }
            for r in reasons {
                blocks.push(json!({"type": "text", "text": format!("Stop hook feedback:\n{r}\n")}));
            }
        }
    }
    Value::Array(blocks)
}

/// What a Codex run left, as the judge reads it. `summary` is the harness's
/// ([`crate::harness::codex_summary`]); `let_through` whether fable noted a stop let
/// through after its limit of blocks.
pub fn observed(
    summary: &Value,
    evidence: Vec<Value>,
    rc: i32,
    broken: Vec<(String, String)>,
    let_through: bool,
) -> Observed {
    let requests = summary["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["kind"] == "main")
        .map(|r| json!({"kind": "main", "step": r["step"], "new_user_content": new_user_content(&r["new_input"])}))
        .collect();
    Observed {
        evidence,
        requests,
        rc,
        result: summary["last_message"].as_str().map(str::to_string),
        broken,
        let_through,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::selftest::{CITED_CMD, FAIL_CMD, STEP_CITE_STOP, STEP_DONE};

    #[test]
    fn the_codex_script_runs_the_same_commands_as_shell_steps() {
        let s = script();
        let steps = s["steps"].as_array().unwrap();
        assert_eq!(steps.len(), selftest::script()["steps"].as_array().unwrap().len());
        assert_eq!(steps[0], json!({"shell": FAIL_CMD}));
        assert!(steps.iter().any(|x| x == &json!({"shell": CITED_CMD})));
        assert_eq!(steps[STEP_DONE as usize]["text"], selftest::DONE);
    }

    #[test]
    fn a_hook_prompt_becomes_stop_feedback_and_a_tool_output_a_tool_result() {
        let input = json!([
            {"type": "function_call_output", "call_id": "c", "output": "Process exited with code 3"},
            {"type": "message", "role": "user", "content": [{"type": "input_text",
             "text": "<hook_prompt hook_run_id=\"stop:0:/h/hooks.json\">fable: cited evidence is not backed:\n  `sh ./check.sh` has no run</hook_prompt>"}]}]);
        let blocks = new_user_content(&input);
        assert_eq!(blocks[0]["type"], "tool_result");
        let text = blocks[1]["text"].as_str().unwrap();
        assert!(text.starts_with("Stop hook feedback:\nfable: cited evidence"), "{text}");
        assert!(selftest::reason_excerpt(text, CITED_CMD).is_some_and(|r| r.contains(CITED_CMD)));
        assert_eq!(
            hook_prompts("<hook_prompt a=\"1\">x</hook_prompt><hook_prompt>y</hook_prompt>"),
            ["x", "y"]
        );
    }

    #[test]
    fn a_codex_summary_is_judged_by_the_same_checks() {
        let block = |r: &str| {
            json!([{"type": "message", "role": "user", "content": [{"type": "input_text",
                                      "text": format!("<hook_prompt hook_run_id=\"stop:1:/h\">{r}</hook_prompt>")}]}])
        };
        let mut requests: Vec<Value> = (0..=STEP_DONE)
            .map(|s| json!({"kind": "main", "step": s, "new_input": []}))
            .collect();
        requests[(STEP_CITE_STOP + 1) as usize]["new_input"] = block(&format!(
            "fable: cited evidence is not backed by the evidence log:\n  `{CITED_CMD}` has no run"
        ));
        let summary = json!({"requests": requests, "last_message": selftest::DONE});
        let o = observed(&summary, Vec::new(), 0, Vec::new(), false);
        let checks = selftest::judge(&o, std::path::Path::new("/b"));
        let blocked = checks.iter().find(|c| c.name.contains("never run")).unwrap();
        assert!(blocked.ok, "{blocked:?}");
        let logged = checks.iter().find(|c| c.name.contains("failing command")).unwrap();
        assert!(!logged.ok, "no evidence, no pass: {logged:?}");
    }
}
