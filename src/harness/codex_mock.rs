//! The scripted mock of the OpenAI Responses API that Codex talks to, on the same server
//! as the Messages API's ([`mock`]: connections, log, limits):
//! `POST /v1/responses` (SSE when the request streams, JSON otherwise), `GET /v1/models`,
//! a 404 for anything else. The answers come from [`responses`].

use super::mock::{self, Mock, Request, Shared};
use super::responses;
use super::script::Kind;
use serde_json::{json, Value};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::Duration;

/// Serves a Codex `script` (see [`responses`]) on `listener` until stopped, `max_time`
/// has passed, or `max_requests` were answered.
pub fn start(
    listener: TcpListener,
    script: Value,
    log_dir: &Path,
    max_time: Duration,
    max_requests: usize,
) -> std::io::Result<Mock> {
    Mock::start_with(listener, script, log_dir, max_time, max_requests, answer)
}

fn answer(req: &Request, s: &Shared, w: &mut TcpStream) -> bool {
    let path = req.path.split('?').next().unwrap_or("").trim_end_matches('/');
    let raw = String::from_utf8_lossy(&req.raw).into_owned();
    let body: Value = serde_json::from_str(&raw).unwrap_or(if raw.is_empty() { Value::Null } else { json!(raw) });
    if req.method == "GET" && path.ends_with("/models") {
        mock::record(s, req, "models", &body, json!({}));
        return mock::respond(w, 200, "application/json", br#"{"models": []}"#, false);
    }
    if req.method == "HEAD" {
        return mock::respond(w, 200, "text/plain", b"", false);
    }
    if !(req.method == "POST" && path.ends_with("/responses")) {
        mock::record(s, req, "other", &body, json!({}));
        let e = json!({"error": {"type": "invalid_request_error", "message": "mock: no such route"}});
        return mock::respond(w, 404, "application/json", e.to_string().as_bytes(), false);
    }
    let thread = req.header("thread-id").map(str::to_string);
    let (n, kind, idx) = {
        let mut c = s.counters.lock().unwrap_or_else(|p| p.into_inner());
        let kind = responses::kind_of(&s.script, &body, thread.as_deref(), &mut c.root_thread);
        c.n += 1;
        let q = match kind {
            Kind::Main => &mut c.main,
            Kind::Sub => &mut c.sub,
            Kind::Side => &mut 0,
        };
        let idx = *q;
        *q += 1;
        (c.n, kind, idx)
    };
    let (step, label) = responses::step_for(&s.script, kind, idx);
    let items = responses::items_of(&step, &body, n);
    let mut extra = json!({"step": label, "thread_id": thread, "answer": items,
                           "n_input": body["input"].as_array().map_or(0, Vec::len),
                           "new_input": responses::new_input(&body)});
    if kind != Kind::Side {
        if let Some(e) = super::script::expectations(&step, &raw) {
            extra["expect"] = e;
        }
    }
    let log_kind = match kind {
        Kind::Main => "main",
        Kind::Sub => "sub",
        Kind::Side => "side",
    };
    mock::record_numbered(s, n, req, log_kind, &body, extra);
    let model = body["model"].as_str().unwrap_or("mock-model");
    let created = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let response = responses::response_json(&format!("resp_mock_{n:06}"), model, &items, created);
    if body["stream"] != json!(true) {
        return mock::respond(w, 200, "application/json", response.to_string().as_bytes(), false);
    }
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\nx-request-id: req_mock\r\n\r\n";
    let _ = w
        .write_all(head.as_bytes())
        .and_then(|_| w.write_all(responses::response_sse(&response).as_bytes()))
        .and_then(|_| w.flush());
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn post(port: u16, thread: &str, body: &Value) -> String {
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let b = body.to_string();
        write!(c, "POST /v1/responses HTTP/1.1\r\nhost: x\r\nconnection: close\r\nthread-id: {thread}\r\nauthorization: Bearer secret\r\ncontent-length: {}\r\n\r\n{b}", b.len()).unwrap();
        let mut out = String::new();
        c.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn answers_main_sub_and_side_requests_from_their_queues_and_logs_without_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let l = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let script = json!({"steps": [{"shell": "ls /nonexistent"}], "default": {"text": "bye"},
                            "sub_steps": [{"text": "sub done"}], "side_text": "SUMMARY"});
        let m = start(l, script, dir.path(), Duration::from_secs(30), 200).unwrap();
        let req = json!({"model": "m", "stream": true, "tools": [{"type": "function", "name": "exec_command"}],
                         "input": [{"type": "message", "role": "user", "content": "do it"}]});
        let first = post(m.port, "t1", &req);
        assert!(
            first.contains("text/event-stream") && first.contains(r#"\"cmd\":\"ls /nonexistent\""#),
            "{first}"
        );
        assert!(post(m.port, "t2", &req).contains("sub done"));
        assert!(post(m.port, "t1", &req).contains("bye"));
        let mut side = req.clone();
        side["tools"] = json!([]);
        side["stream"] = json!(false);
        assert!(post(m.port, "t1", &side).contains("SUMMARY"));
        m.stop();
        let log = std::fs::read_to_string(dir.path().join("002-sub.json")).unwrap();
        assert!(!log.contains("secret") && log.contains(r#""step": "sub0""#), "{log}");
        let lines = std::fs::read_to_string(dir.path().join("requests.jsonl")).unwrap();
        assert_eq!(lines.lines().count(), 4, "{lines}");
    }
}
