//! The scripted mock of the Anthropic Messages API: `POST /v1/messages` (SSE when the
//! request streams, JSON otherwise), `POST /v1/messages/count_tokens`, `GET /v1/models`,
//! a 404 for anything else. Every request is logged to the log folder as
//! `NNN-<kind>.json` (headers minus secrets, parsed body, the answer) plus one line in
//! `requests.jsonl`.
//!
//! std's `TcpListener` and one thread per connection: the CLI opens a handful of
//! connections a session, so nothing more is needed. The server stops by itself when told,
//! after its deadline, or after `max_requests` (a runaway loop must not spin forever).

use super::script::{self, Kind};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Counters shared by the connections: request number and each queue's next step.
#[derive(Default)]
pub(super) struct Counters {
    pub(super) n: usize,
    pub(super) main: usize,
    pub(super) sub: usize,
    /// The first agent-loop request's thread (Codex's `thread-id` header): requests of
    /// any other thread are a sub-agent's.
    pub(super) root_thread: Option<String>,
}

/// What the connections share; an [`Answer`] reads the script and counters from it.
pub(super) struct Shared {
    pub(super) script: Value,
    log_dir: PathBuf,
    pub(super) counters: Mutex<Counters>,
    started: Instant,
    pub(super) stop: AtomicBool,
    max_requests: usize,
    answer: Answer,
}

/// Answers one request of an API on the connection; false when it must close. The
/// Messages API's is this file's own; the Responses API's is in
/// [`codex_mock`](super::codex_mock).
pub(super) type Answer = fn(&Request, &Shared, &mut TcpStream) -> bool;

/// A running mock; [`Mock::stop`] (or drop) ends it.
pub struct Mock {
    pub port: u16,
    shared: Arc<Shared>,
    accept: Option<std::thread::JoinHandle<()>>,
}

impl Mock {
    /// Serves `script` on `listener` (already bound, so the caller chooses the network
    /// namespace) until stopped, `max_time` has passed, or `max_requests` were answered.
    pub fn start(
        listener: TcpListener,
        script: Value,
        log_dir: &Path,
        max_time: Duration,
        max_requests: usize,
    ) -> std::io::Result<Mock> {
        Mock::start_with(listener, script, log_dir, max_time, max_requests, answer)
    }

    /// [`Mock::start`] for another API: the same server, log and limits, `answer` routing.
    pub(super) fn start_with(
        listener: TcpListener,
        script: Value,
        log_dir: &Path,
        max_time: Duration,
        max_requests: usize,
        answer: Answer,
    ) -> std::io::Result<Mock> {
        std::fs::create_dir_all(log_dir)?;
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        let shared = Arc::new(Shared {
            script,
            log_dir: log_dir.to_path_buf(),
            counters: Mutex::new(Counters::default()),
            started: Instant::now(),
            stop: AtomicBool::new(false),
            max_requests,
            answer,
        });
        let s = Arc::clone(&shared);
        let accept = std::thread::spawn(move || {
            while !s.stop.load(Ordering::SeqCst) && s.started.elapsed() < max_time {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let s = Arc::clone(&s);
                        std::thread::spawn(move || serve(stream, &s));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Ok(Mock {
            port,
            shared,
            accept: Some(accept),
        })
    }

    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        self.halt();
    }
}

/// One parsed HTTP/1.1 request.
pub(super) struct Request {
    pub(super) method: String,
    pub(super) path: String,
    headers: Vec<(String, String)>,
    pub(super) raw: Vec<u8>,
}

impl Request {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Reads one request (Content-Length or chunked body); `None` at end of stream.
fn read_request(r: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let mut req = Request {
        method,
        path,
        headers,
        raw: Vec::new(),
    };
    if req
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).ok()?;
            if n == 0 {
                break;
            }
            req.raw.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = req.header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        req.raw = vec![0; n];
        r.read_exact(&mut req.raw).ok()?;
    }
    Some(req)
}

/// Answers requests on one connection until it closes (SSE answers close it).
fn serve(stream: TcpStream, s: &Shared) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(120)));
    let Ok(mut w) = stream.try_clone() else { return };
    let mut r = BufReader::new(stream);
    while let Some(req) = read_request(&mut r) {
        if req
            .header("expect")
            .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
        {
            let _ = w.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
        }
        let keep = (s.answer)(&req, s, &mut w);
        let client_closes = req
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        if !keep || client_closes || s.stop.load(Ordering::SeqCst) {
            break;
        }
    }
}

pub(super) fn respond(w: &mut TcpStream, code: u16, content_type: &str, body: &[u8], close: bool) -> bool {
    let reason = if code == 200 { "OK" } else { "Not Found" };
    let conn = if close { "close" } else { "keep-alive" };
    let head = format!(
        "HTTP/1.1 {code} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nrequest-id: req_mock\r\nconnection: {conn}\r\n\r\n",
        body.len()
    );
    w.write_all(head.as_bytes())
        .and_then(|_| w.write_all(body))
        .and_then(|_| w.flush())
        .is_ok()
        && !close
}

/// Answers one request; false when the connection must close.
fn answer(req: &Request, s: &Shared, w: &mut TcpStream) -> bool {
    let path = req.path.split('?').next().unwrap_or("").trim_end_matches('/');
    let raw = String::from_utf8_lossy(&req.raw).into_owned();
    let body: Value = serde_json::from_str(&raw).unwrap_or(if raw.is_empty() { Value::Null } else { json!(raw) });
    if req.method == "GET" && path.ends_with("/v1/models") {
        record(s, req, "models", &body, json!({}));
        let page = json!({"data": [], "has_more": false, "first_id": null, "last_id": null});
        return respond(w, 200, "application/json", page.to_string().as_bytes(), false);
    }
    if req.method == "HEAD" {
        return respond(w, 200, "text/plain", b"", false);
    }
    if req.method == "POST" && path.ends_with("/v1/messages/count_tokens") {
        record(s, req, "count_tokens", &body, json!({}));
        let n = json!({"input_tokens": (req.raw.len() / 4).max(1)});
        return respond(w, 200, "application/json", n.to_string().as_bytes(), false);
    }
    if !(req.method == "POST" && path.ends_with("/v1/messages")) {
        record(s, req, "other", &body, json!({}));
        let e = json!({"type": "error", "error": {"type": "not_found_error", "message": "mock: no such route"}});
        return respond(w, 404, "application/json", e.to_string().as_bytes(), false);
    }
    let kind = script::kind_of(&s.script, &body);
    let (n, idx) = {
        let mut c = s.counters.lock().unwrap_or_else(|p| p.into_inner());
        c.n += 1;
        let q = match kind {
            Kind::Main => &mut c.main,
            Kind::Sub => &mut c.sub,
            Kind::Side => &mut 0,
        };
        let idx = *q;
        *q += 1;
        (c.n, idx)
    };
    let (step, label) = script::step_for(&s.script, kind, idx);
    let (blocks, stop_reason) = script::content_of(&step, n);
    let mut extra = json!({"step": label, "stop_reason": stop_reason, "answer": blocks});
    if kind == Kind::Main {
        if let Some(e) = script::expectations(&step, &raw) {
            extra["expect"] = e;
        }
    }
    let log_kind = if kind == Kind::Side { "side" } else { "main" };
    record_numbered(s, n, req, log_kind, &body, extra);
    let model = body["model"].as_str().unwrap_or("claude-mock");
    let id = format!("msg_mock_{n:06}");
    if body["stream"] != json!(true) {
        let m = script::message_json(&id, model, &blocks, stop_reason);
        return respond(w, 200, "application/json", m.to_string().as_bytes(), false);
    }
    let events = script::message_sse(&id, model, &blocks, stop_reason);
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\nrequest-id: req_mock\r\n\r\n";
    let _ = w
        .write_all(head.as_bytes())
        .and_then(|_| w.write_all(events.as_bytes()))
        .and_then(|_| w.flush());
    false
}

pub(super) fn record(s: &Shared, req: &Request, kind: &str, body: &Value, extra: Value) {
    let n = {
        let mut c = s.counters.lock().unwrap_or_else(|p| p.into_inner());
        c.n += 1;
        c.n
    };
    record_numbered(s, n, req, kind, body, extra);
}

/// Writes `NNN-<kind>.json` and appends the one-line summary; stops the server at the
/// request limit.
pub(super) fn record_numbered(s: &Shared, n: usize, req: &Request, kind: &str, body: &Value, extra: Value) {
    let headers: serde_json::Map<String, Value> = req
        .headers
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("x-api-key") && !k.eq_ignore_ascii_case("authorization"))
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let t = (s.started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
    let mut rec = json!({"n": n, "t": t, "method": req.method, "path": req.path, "kind": kind,
                         "headers": headers, "body": body});
    let mut line = json!({"n": n, "t": t, "method": req.method, "path": req.path, "kind": kind,
                          "model": body["model"], "stream": body["stream"],
                          "n_messages": body["messages"].as_array().map_or(0, Vec::len)});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            if k != "answer" {
                line[&k] = v.clone();
            }
            rec[&k] = v;
        }
    }
    let file = s.log_dir.join(format!("{n:03}-{kind}.json"));
    let _ = std::fs::write(file, serde_json::to_string_pretty(&rec).unwrap_or_default());
    let _guard = s.counters.lock().unwrap_or_else(|p| p.into_inner());
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(s.log_dir.join("requests.jsonl"))
    {
        let _ = f.write_all(format!("{line}\n").as_bytes());
    }
    if n >= s.max_requests {
        s.stop.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(port: u16, body: &Value) -> String {
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let b = body.to_string();
        write!(c, "POST /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-api-key: secret\r\ncontent-length: {}\r\n\r\n{b}", b.len()).unwrap();
        let mut out = String::new();
        c.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn answers_the_script_in_order_streams_when_asked_and_logs_without_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let l = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let script = json!({"steps": [{"tool_use": {"name": "Bash", "input": {"command": "true"}}}], "default": {"text": "bye"}});
        let m = Mock::start(l, script, dir.path(), Duration::from_secs(30), 200).unwrap();
        let req = json!({"model": "m", "stream": true, "tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "go"}]});
        let first = post(m.port, &req);
        assert!(
            first.contains("text/event-stream") && first.contains("input_json_delta"),
            "{first}"
        );
        let mut req2 = req.clone();
        req2["stream"] = json!(false);
        let second = post(m.port, &req2);
        assert!(second.contains(r#""text":"bye""#), "{second}");
        m.stop();
        let log = std::fs::read_to_string(dir.path().join("001-main.json")).unwrap();
        assert!(!log.contains("secret") && log.contains(r#""step": 0"#), "{log}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("requests.jsonl"))
                .unwrap()
                .lines()
                .count(),
            2
        );
    }
}
