//! The Codex script and the answers of the scripted OpenAI Responses API, as pure
//! functions of the request (the Codex counterpart of [`script`](super::script)).
//!
//! Script shape (what the tests build):
//! `{"steps": [step…], "default": step, "sub_steps": [step…], "sub_default": step,
//!   "side_text": "ok"}`; a step is `{"shell": CMD}` (one `exec_command` call),
//! `{"shells": [CMD…]}` (parallel calls), `{"patch": TEXT}` (an `apply_patch` custom tool
//! call: Codex offers that tool to known models such as `gpt-5.5`, not to `mock-model`),
//! `{"text": …}` (an assistant message, also a leading one before calls), `{"function_call": {"name", "arguments", "namespace"?}}` /
//! `{"function_calls": […]}` (raw calls such as `spawn_agent`), or `{"items": […]}` (raw
//! output items); `"expect_contains"` (a string or a list) is checked against the raw
//! request body and logged.
//!
//! A request that offers the shell tool (`exec_command` in Codex 0.171) is the agent
//! loop. Its first thread (the `thread-id` header) is the main thread and takes the next
//! step; another thread is a sub-agent's and takes the next sub-step (when the script has
//! any, else it shares the steps). A request without the shell tool (the compaction
//! summary) is a side request answered with `side_text`, taking no step. In a call's
//! arguments `{{agent_id}}` becomes the last `agent_id` that a tool output of the request
//! returned (spawn_agent's answer), so a script can wait for the agent it spawned.

use super::script::{main_step, side_step, Kind};
use serde_json::{json, Value};

/// The shell tool Codex 0.171 offers the model (`unified_exec`); its arguments are
/// `{"cmd": …}`, and the hooks see it as `Bash` with `{"command": …}`.
pub const SHELL_TOOL: &str = "exec_command";

/// The tool names a request offers, namespaced tools (`multi_agent_v1`'s) included.
pub fn tool_names(body: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        if let Some(n) = t["name"].as_str() {
            names.push(n.to_string());
        }
        for sub in t["tools"].as_array().into_iter().flatten() {
            if let Some(n) = sub["name"].as_str() {
                names.push(n.to_string());
            }
        }
    }
    names
}

/// Which queue a `/v1/responses` request draws from; `root` is the main thread's id,
/// set by the first agent-loop request.
pub fn kind_of(script: &Value, body: &Value, thread: Option<&str>, root: &mut Option<String>) -> Kind {
    if !tool_names(body).iter().any(|n| n == SHELL_TOOL) {
        return Kind::Side;
    }
    let thread = thread.unwrap_or("").to_string();
    let root = root.get_or_insert_with(|| thread.clone());
    if *root != thread && script["sub_steps"].is_array() {
        Kind::Sub
    } else {
        Kind::Main
    }
}

/// The step for the `idx`-th request of `kind`, and its label for the log.
pub fn step_for(script: &Value, kind: Kind, idx: usize) -> (Value, Value) {
    match kind {
        Kind::Main => main_step(script, idx),
        Kind::Sub => match script["sub_steps"].get(idx) {
            Some(s) => (s.clone(), json!(format!("sub{idx}"))),
            None => (
                script
                    .get("sub_default")
                    .cloned()
                    .unwrap_or(json!({"text": "Subagent done."})),
                json!("sub_default"),
            ),
        },
        Kind::Side => side_step(script),
    }
}

/// An assistant message item.
fn message(id: String, text: &str) -> Value {
    json!({"type": "message", "id": id, "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

/// A function-call item; `arguments` is sent as the JSON string the API carries.
fn function_call(id: String, call_id: String, name: &Value, arguments: String) -> Value {
    json!({"type": "function_call", "id": id, "call_id": call_id, "name": name,
           "arguments": arguments, "status": "completed"})
}

/// The last `agent_id` a tool output of this request returned (spawn_agent's answer).
pub fn last_agent_id(body: &Value) -> Option<String> {
    body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .filter(|it| it["type"] == "function_call_output")
        .filter_map(|it| serde_json::from_str::<Value>(it["output"].as_str()?).ok())
        .find_map(|o| o["agent_id"].as_str().map(str::to_string))
}

/// The output items a step answers with. Ids are made from `seed` (the request number),
/// so every answer's ids are unique and a run's log is reproducible.
pub fn items_of(step: &Value, body: &Value, seed: usize) -> Vec<Value> {
    if let Some(items) = step["items"].as_array() {
        return items.clone();
    }
    let mut items = Vec::new();
    let mut k = 0;
    let mut next = |prefix: &str| {
        k += 1;
        format!("{prefix}_mock{seed:06}x{k:03}")
    };
    if let Some(t) = step["text"].as_str() {
        items.push(message(next("msg"), t));
    }
    let cmds: Vec<&Value> = match (&step["shell"], step["shells"].as_array()) {
        (Value::String(_), _) => vec![&step["shell"]],
        (_, Some(cs)) => cs.iter().collect(),
        _ => Vec::new(),
    };
    for c in cmds {
        let args = json!({"cmd": c}).to_string();
        items.push(function_call(next("fc"), next("call"), &json!(SHELL_TOOL), args));
    }
    if let Some(patch) = step["patch"].as_str() {
        items.push(
            json!({"type": "custom_tool_call", "id": next("ctc"), "call_id": next("call"),
                          "name": "apply_patch", "input": patch, "status": "completed"}),
        );
    }
    let calls: Vec<&Value> = match (&step["function_call"], step["function_calls"].as_array()) {
        (Value::Object(_), _) => vec![&step["function_call"]],
        (_, Some(fs)) => fs.iter().collect(),
        _ => Vec::new(),
    };
    for fc in calls {
        let mut args = match &fc["arguments"] {
            Value::String(s) => s.clone(),
            Value::Null => "{}".to_string(),
            v => v.to_string(),
        };
        if args.contains("{{agent_id}}") {
            let id = last_agent_id(body).unwrap_or_else(|| "unknown-agent".into());
            args = args.replace("{{agent_id}}", &id);
        }
        let call_id = fc["call_id"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| next("call"));
        let mut item = function_call(next("fc"), call_id, &fc["name"], args);
        if let Some(ns) = fc["namespace"].as_str() {
            item["namespace"] = json!(ns);
        }
        items.push(item);
    }
    if items.is_empty() {
        items.push(message(next("msg"), ""));
    }
    items
}

/// The whole response object (also the `response.completed` payload).
pub fn response_json(id: &str, model: &str, items: &[Value], created_at: u64) -> Value {
    json!({"id": id, "object": "response", "created_at": created_at, "model": model,
           "status": "completed", "output": items,
           "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
                     "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                     "total_tokens": 120}})
}

/// The response as server-sent events, in the order the real API sends them:
/// `response.created`, per item `output_item.added` (a message's text as one
/// `output_text.delta`) and `output_item.done`, then `response.completed`.
pub fn response_sse(response: &Value) -> String {
    let mut out = String::new();
    let mut seq = 0;
    let mut ev = |mut data: Value| {
        data["sequence_number"] = json!(seq);
        seq += 1;
        out.push_str(&format!(
            "event: {}\ndata: {data}\n\n",
            data["type"].as_str().unwrap_or("")
        ));
    };
    let mut created = response.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    created["usage"] = Value::Null;
    ev(json!({"type": "response.created", "response": created}));
    for (i, it) in response["output"].as_array().into_iter().flatten().enumerate() {
        ev(json!({"type": "response.output_item.added", "output_index": i, "item": it}));
        if it["type"] == "message" {
            for (j, c) in it["content"].as_array().into_iter().flatten().enumerate() {
                if c["type"] == "output_text" && c["text"].as_str().is_some_and(|t| !t.is_empty()) {
                    ev(json!({"type": "response.output_text.delta", "item_id": it["id"],
                              "output_index": i, "content_index": j, "delta": c["text"]}));
                }
            }
        }
        ev(json!({"type": "response.output_item.done", "output_index": i, "item": it}));
    }
    ev(json!({"type": "response.completed", "response": response}));
    out
}

/// What Codex added to the conversation since the model's last item: tool outputs, hook
/// feedback (developer messages, `<hook_prompt>` user messages); on the first request,
/// everything from the first user message on.
pub fn new_input(body: &Value) -> Vec<Value> {
    let input = match &body["input"] {
        Value::Array(a) => a.clone(),
        Value::Null => return Vec::new(),
        other => return vec![other.clone()],
    };
    let model_made = |it: &Value| {
        matches!(
            it["type"].as_str(),
            Some("function_call" | "local_shell_call" | "custom_tool_call" | "reasoning")
        ) || (it["type"] == "message" && it["role"] == "assistant")
    };
    match input.iter().rposition(model_made) {
        Some(last) => input[last + 1..].to_vec(),
        None => {
            let first_user = input.iter().position(|it| it["role"] == "user").unwrap_or(0);
            input[first_user..].to_vec()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offering(tools: Value) -> Value {
        json!({"tools": tools, "input": []})
    }

    #[test]
    fn the_first_shell_thread_is_main_another_a_sub_agent_and_no_shell_a_side_request() {
        let script = json!({"steps": [{"text": "a"}], "sub_steps": [{"text": "s"}]});
        let loop_req = offering(json!([{"type": "function", "name": "exec_command"}]));
        let mut root = None;
        assert_eq!(kind_of(&script, &loop_req, Some("t1"), &mut root), Kind::Main);
        assert_eq!(kind_of(&script, &loop_req, Some("t2"), &mut root), Kind::Sub);
        assert_eq!(kind_of(&script, &loop_req, Some("t1"), &mut root), Kind::Main);
        assert_eq!(
            kind_of(&script, &offering(json!([])), Some("t1"), &mut root),
            Kind::Side
        );
        let no_subs = json!({"steps": []});
        assert_eq!(kind_of(&no_subs, &loop_req, Some("t2"), &mut root), Kind::Main);
        let ns = offering(json!([{"type": "namespace", "name": "multi_agent_v1", "tools": [{"name": "spawn_agent"}]}]));
        assert_eq!(tool_names(&ns), vec!["multi_agent_v1", "spawn_agent"]);
        assert_eq!(step_for(&script, Kind::Sub, 1).1, json!("sub_default"));
    }

    #[test]
    fn a_shell_step_is_an_exec_command_call_and_agent_ids_are_filled_in() {
        let items = items_of(&json!({"text": "first", "shells": ["echo a", "echo b"]}), &json!({}), 3);
        assert_eq!(items.len(), 3);
        assert_eq!(items[0]["type"], "message");
        assert_eq!(items[1]["name"], "exec_command");
        assert_eq!(items[1]["arguments"], r#"{"cmd":"echo a"}"#);
        assert_ne!(items[1]["call_id"], items[2]["call_id"]);
        let body = json!({"input": [{"type": "function_call_output", "output": "{\"agent_id\":\"ag-1\",\"nickname\":\"x\"}"}]});
        let wait = json!({"function_call": {"name": "wait_agent", "namespace": "multi_agent_v1",
                                            "arguments": {"targets": ["{{agent_id}}"]}}});
        let items = items_of(&wait, &body, 4);
        assert_eq!(items[0]["namespace"], "multi_agent_v1");
        let patch = items_of(&json!({"patch": "*** Begin Patch\n*** End Patch\n"}), &body, 5);
        assert_eq!(
            (&patch[0]["type"], &patch[0]["name"]),
            (&json!("custom_tool_call"), &json!("apply_patch"))
        );
        assert_eq!(items[0]["arguments"], r#"{"targets":["ag-1"]}"#);
    }

    #[test]
    fn the_stream_carries_every_item_and_ends_completed() {
        let items = items_of(&json!({"text": "All done."}), &json!({}), 1);
        let sse = response_sse(&response_json("resp_1", "m", &items, 0));
        let names: Vec<&str> = sse.lines().filter_map(|l| l.strip_prefix("event: ")).collect();
        assert_eq!(
            names,
            [
                "response.created",
                "response.output_item.added",
                "response.output_text.delta",
                "response.output_item.done",
                "response.completed"
            ]
        );
        assert!(sse.contains(r#""delta":"All done.""#), "{sse}");
    }

    #[test]
    fn new_input_is_what_came_after_the_models_last_item() {
        let body = json!({"input": [
            {"type": "message", "role": "developer", "content": []},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "do it"}]},
            {"type": "function_call", "call_id": "c"},
            {"type": "function_call_output", "call_id": "c", "output": "x"},
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "ctx"}]}]});
        let new = new_input(&body);
        assert_eq!(new.len(), 2);
        assert_eq!(new[0]["type"], "function_call_output");
        let first = json!({"input": [body["input"][0], body["input"][1]]});
        assert_eq!(new_input(&first).len(), 1);
    }
}
