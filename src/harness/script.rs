//! The mock's script and the answers it gives, as pure functions of the request.
//!
//! Script shape (what the tests build):
//! `{"steps": [step…], "default": step, "sub_marker": "TEXT", "sub_steps": [step…],
//!   "sub_default": step, "side_text": "ok"}`; a step is `{"text": …}`,
//! `{"tool_use": {"name", "input"}}`, `{"tool_uses": […]}` (with an optional leading
//! `"text"`), or `{"content": [raw blocks], "stop_reason": …}`; `"expect_contains"` (a
//! string or a list) is checked against the raw request body and logged.
//!
//! A request that offers the `Bash` tool is the agent loop ("main") and takes the next
//! step; one whose first message holds `sub_marker` takes the next sub-step instead (so a
//! sub-agent's turns never race the main thread's); anything else (titles, probes) is a
//! "side" request answered with `side_text` and takes no step.

use serde_json::{json, Value};

/// Which queue a request draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Main,
    Sub,
    Side,
}

/// The tool whose presence marks an agent-loop request.
pub const MAIN_TOOL: &str = "Bash";

/// Classifies a `/v1/messages` body.
pub fn kind_of(script: &Value, body: &Value) -> Kind {
    let offers_main = body["tools"]
        .as_array()
        .is_some_and(|ts| ts.iter().any(|t| t["name"] == MAIN_TOOL));
    if !offers_main {
        return Kind::Side;
    }
    if let Some(marker) = script["sub_marker"].as_str() {
        let first = body["messages"]
            .get(0)
            .map(|m| m["content"].to_string())
            .unwrap_or_default();
        if first.contains(marker) {
            return Kind::Sub;
        }
    }
    Kind::Main
}

/// The step for the `idx`-th request of `kind`, and its label for the log
/// (`0`, `"default"`, `"sub0"`, `"side"`).
pub fn step_for(script: &Value, kind: Kind, idx: usize) -> (Value, Value) {
    match kind {
        Kind::Main => main_step(script, idx),
        Kind::Sub => (
            script["sub_steps"]
                .get(idx)
                .or_else(|| script.get("sub_default"))
                .cloned()
                .unwrap_or(json!({"text": "sub-agent: nothing more."})),
            json!(format!("sub{idx}")),
        ),
        Kind::Side => side_step(script),
    }
}

/// The agent loop's `idx`-th step, or the script's `default` past the end (both hosts).
pub fn main_step(script: &Value, idx: usize) -> (Value, Value) {
    match script["steps"].get(idx) {
        Some(s) => (s.clone(), json!(idx)),
        None => (
            script
                .get("default")
                .cloned()
                .unwrap_or(json!({"text": "Nothing more to do."})),
            json!("default"),
        ),
    }
}

/// A side request's answer (a title, a summary): the script's `side_text` (both hosts).
pub fn side_step(script: &Value) -> (Value, Value) {
    (
        json!({"text": script["side_text"].as_str().unwrap_or("ok")}),
        json!("side"),
    )
}

/// The content blocks and stop reason a step answers with. Tool-use ids are made from
/// `id_seed` so every answer's ids are unique and a run's log is reproducible.
pub fn content_of(step: &Value, id_seed: usize) -> (Vec<Value>, &'static str) {
    if let Some(blocks) = step["content"].as_array() {
        let has_tool = blocks.iter().any(|b| b["type"] == "tool_use");
        let sr = match step["stop_reason"].as_str() {
            Some("tool_use") => "tool_use",
            Some("max_tokens") => "max_tokens",
            Some("end_turn") => "end_turn",
            _ if has_tool => "tool_use",
            _ => "end_turn",
        };
        return (blocks.clone(), sr);
    }
    let mut blocks = Vec::new();
    if let Some(t) = step["text"].as_str() {
        blocks.push(json!({"type": "text", "text": t}));
    }
    let uses: Vec<&Value> = match (&step["tool_use"], step["tool_uses"].as_array()) {
        (Value::Object(_), _) => vec![&step["tool_use"]],
        (_, Some(us)) => us.iter().collect(),
        _ => Vec::new(),
    };
    for (i, tu) in uses.iter().enumerate() {
        let id = tu["id"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("toolu_mock{id_seed:06}x{i:03}"));
        let input = tu.get("input").cloned().unwrap_or(json!({}));
        blocks.push(json!({"type": "tool_use", "id": id, "name": tu["name"], "input": input}));
    }
    if blocks.is_empty() {
        blocks.push(json!({"type": "text", "text": ""}));
    }
    (blocks, if uses.is_empty() { "end_turn" } else { "tool_use" })
}

/// `expect_contains` of a step, each needle with whether the raw body holds it.
pub fn expectations(step: &Value, raw: &str) -> Option<Value> {
    let needles: Vec<&str> = match &step["expect_contains"] {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    Some(Value::Object(
        needles
            .iter()
            .map(|n| (n.to_string(), Value::Bool(raw.contains(n))))
            .collect(),
    ))
}

/// The usage every answer reports (the CLI only needs the fields present).
fn usage(output_tokens: u64) -> Value {
    json!({"input_tokens": 100, "output_tokens": output_tokens,
           "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

/// The whole message, for a request that did not ask to stream.
pub fn message_json(id: &str, model: &str, blocks: &[Value], stop_reason: &str) -> Value {
    json!({"id": id, "type": "message", "role": "assistant", "model": model,
           "content": blocks, "stop_reason": stop_reason, "stop_sequence": null,
           "usage": usage(20)})
}

/// The same message as server-sent events, in the order the real API sends them: a tool
/// call's input arrives as one `input_json_delta`, text as one `text_delta`.
pub fn message_sse(id: &str, model: &str, blocks: &[Value], stop_reason: &str) -> String {
    let mut out = String::new();
    let mut ev = |name: &str, data: Value| out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    ev(
        "message_start",
        json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
               "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage(1)}}),
    );
    for (i, b) in blocks.iter().enumerate() {
        match b["type"].as_str() {
            Some("text") => {
                ev(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i,
                    "content_block": {"type": "text", "text": ""}}),
                );
                ev(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i,
                    "delta": {"type": "text_delta", "text": b["text"]}}),
                );
            }
            Some("tool_use") => {
                ev(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i,
                    "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}}),
                );
                ev(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": b["input"].to_string()}}),
                );
            }
            _ => ev(
                "content_block_start",
                json!({"type": "content_block_start", "index": i, "content_block": b}),
            ),
        }
        ev("content_block_stop", json!({"type": "content_block_stop", "index": i}));
    }
    ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 20}}),
    );
    ev("message_stop", json!({"type": "message_stop"}));
    out
}

/// What the CLI added to the conversation since the model's last turn: tool results, hook
/// feedback, the prompt (a string content becomes one text block).
pub fn new_user_content(body: &Value) -> Vec<Value> {
    let msgs = body["messages"].as_array().cloned().unwrap_or_default();
    let mut new: Vec<Value> = Vec::new();
    for m in msgs.iter().rev() {
        if m["role"] == "assistant" {
            break;
        }
        let blocks = match &m["content"] {
            Value::Array(a) => a.clone(),
            other => vec![json!({"type": "text", "text": other})],
        };
        new.splice(0..0, blocks);
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_loop_takes_steps_sub_agents_their_own_and_the_rest_are_side_requests() {
        let script = json!({"steps": [{"text": "a"}], "sub_marker": "SUBTASK"});
        let bash = json!([{"name": "Bash"}]);
        let main = json!({"tools": bash, "messages": [{"role": "user", "content": "do it"}]});
        let sub =
            json!({"tools": bash, "messages": [{"role": "user", "content": [{"type": "text", "text": "SUBTASK: x"}]}]});
        let title = json!({"messages": [{"role": "user", "content": "title?"}]});
        assert_eq!(kind_of(&script, &main), Kind::Main);
        assert_eq!(kind_of(&script, &sub), Kind::Sub);
        assert_eq!(kind_of(&script, &title), Kind::Side);
        assert_eq!(step_for(&script, Kind::Main, 0), (json!({"text": "a"}), json!(0)));
        assert_eq!(step_for(&script, Kind::Main, 1).1, json!("default"));
        assert_eq!(step_for(&script, Kind::Sub, 0).1, json!("sub0"));
    }

    #[test]
    fn a_tool_step_streams_its_input_whole_and_stops_for_the_tool() {
        let step = json!({"tool_uses": [{"name": "Bash", "input": {"command": "echo a"}}, {"name": "Bash", "input": {"command": "echo b"}}]});
        let (blocks, sr) = content_of(&step, 7);
        assert_eq!(sr, "tool_use");
        assert_eq!(blocks.len(), 2);
        assert_ne!(blocks[0]["id"], blocks[1]["id"]);
        let sse = message_sse("m", "x", &blocks, sr);
        assert!(sse.contains(r#"\"command\":\"echo b\""#), "{sse}");
        assert!(sse.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
        assert_eq!(content_of(&json!({"text": "done"}), 0).1, "end_turn");
    }

    #[test]
    fn new_user_content_is_what_came_after_the_last_assistant_turn() {
        let body = json!({"messages": [
            {"role": "user", "content": "do it"},
            {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
            {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]},
            {"role": "user", "content": "Stop hook feedback"}]});
        let new = new_user_content(&body);
        assert_eq!(new.len(), 2);
        assert_eq!(new[0]["type"], "tool_result");
        assert_eq!(new[1]["text"], "Stop hook feedback");
        assert_eq!(
            expectations(&json!({"expect_contains": "ok"}), "is ok"),
            Some(json!({"ok": true}))
        );
    }
}
