//! Property-based fuzzing of every input surface an agent or a file can reach: hook stdin,
//! the ledger parser, evidence-line reading, settings merging, failure signatures and
//! command normalisation. No panic, no hang, and every hook answers 0 or a deliberate 2.
//!
//! CI runs a bounded number of cases per target (`PROPTEST_CASES`, default below); the long
//! run documented in docs/architecture.md sets `PROPTEST_CASES=200000`. A failing case is shrunk and
//! stored under `proptest-regressions/`, which is committed and replayed on every run.

use fable::hook::{Answer, HookInput};
use fable::runner::{decide_fail_open, HookEnv, HookResult};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::path::Path;

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn config(default: u32) -> ProptestConfig {
    ProptestConfig {
        cases: cases(default),
        ..ProptestConfig::default()
    }
}

/// Strings drawn from pieces that matter to our parsers, plus arbitrary characters.
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("- [ ] ".to_string()),
        Just("- [x] ".to_string()),
        Just("- [~] ".to_string()),
        Just(" -- evidence: ".to_string()),
        Just(" -- tried: ".to_string()),
        Just("-- deferred: ".to_string()),
        Just("证据：".to_string()),
        Just("PAUSED: ".to_string()),
        Just("MODE: light\n".to_string()),
        Just("REPLAY: on\n".to_string()),
        Just("`".to_string()),
        Just("\n".to_string()),
        Just("  ".to_string()),
        Just("Exit code ".to_string()),
        Just("cd /tmp && ".to_string()),
        Just("error[E0432]: ".to_string()),
        Just("git push origin main".to_string()),
        Just("npm ERR! code ERESOLVE".to_string()),
        Just("/home/u/x.rs:12:5".to_string()),
        Just("sudo env A=B npx bash -c '".to_string()),
        Just("\"".to_string()),
        Just("\u{feff}".to_string()),
        Just("é漢🙂".to_string()),
        "[ -~]{0,12}".prop_map(|s| s),
        any::<char>().prop_map(|c| c.to_string()),
        (0u32..100_000).prop_map(|n| n.to_string()),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

/// JSON values shaped like hook payloads, with wrong types mixed in.
fn payload() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        text().prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    });
    let keys = prop::sample::select(vec![
        "session_id",
        "cwd",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_response",
        "error",
        "stop_hook_active",
        "source",
        "model",
        "reason",
        "is_interrupt",
        "duration_ms",
        "agent_id",
    ]);
    let event = prop::sample::select(vec![
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "PreToolUse",
        "SessionStart",
        "SessionEnd",
        "",
    ]);
    let tool_input = (text(), text(), any::<bool>()).prop_map(|(c, p, b)| {
        json!({"command": c, "prompt": p, "model": if b { "opus" } else { "haiku" }, "subagent_type": "general"})
    });
    (event, tool_input, prop::collection::vec((keys, value), 0..6)).prop_map(|(e, ti, extra)| {
        let mut m = Map::new();
        m.insert("hook_event_name".into(), json!(e));
        m.insert("session_id".into(), json!("fuzz-session"));
        m.insert("tool_name".into(), json!("Bash"));
        m.insert("tool_input".into(), ti);
        for (k, v) in extra {
            m.insert(k.to_string(), v);
        }
        Value::Object(m)
    })
}

type Decide = fn(&HookInput, &HookEnv) -> HookResult;

fn hooks() -> Vec<(&'static str, Decide)> {
    vec![
        (
            fable::evidence::logger::HOOK_NAME,
            fable::evidence::logger::decide as Decide,
        ),
        (
            fable::discipline::fail_streak::HOOK_NAME,
            fable::discipline::fail_streak::decide as Decide,
        ),
        (
            fable::discipline::close_guard::HOOK_NAME,
            fable::discipline::close_guard::decide as Decide,
        ),
        (
            fable::discipline::spawn_guard::HOOK_NAME,
            fable::discipline::spawn_guard::decide as Decide,
        ),
        (
            fable::discipline::inject::HOOK_NAME,
            fable::discipline::inject::decide as Decide,
        ),
    ]
}

fn project(ledger: &str) -> (tempfile::TempDir, HookEnv) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("p");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join(".fable")).unwrap();
    std::fs::write(root.join(".fable/LEDGER.md"), ledger).unwrap();
    let env = HookEnv::with_vars([
        ("CLAUDE_PROJECT_DIR", root.to_string_lossy().into_owned()),
        ("XDG_STATE_HOME", t.path().join("state").to_string_lossy().into_owned()),
        (
            "FABLE_CONFIG_DIR",
            t.path().join("config").to_string_lossy().into_owned(),
        ),
        ("HOME", t.path().to_string_lossy().into_owned()),
    ]);
    (t, env)
}

fn assert_sane(name: &str, a: &Answer) {
    assert!(a.exit == 0 || a.exit == 2, "{name}: exit {}", a.exit);
    assert!(!a.stderr.contains("internal error"), "{name} panicked: {}", a.stderr);
    if !a.stdout.is_empty() {
        let v: Value = serde_json::from_str(&a.stdout).unwrap_or_else(|e| panic!("{name}: stdout not JSON ({e})"));
        assert!(v.is_object());
    }
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn hook_stdin_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = HookInput::parse(&bytes);
        let (_t, env) = project("- [ ] 1. card\n");
        for (name, decide) in hooks() {
            let a = decide_fail_open(name, &bytes, &env, decide);
            assert_sane(name, &a);
        }
    }

    #[test]
    fn hook_payloads_get_a_sane_answer(p in payload(), ledger in text()) {
        let (_t, env) = project(&ledger);
        let bytes = p.to_string().into_bytes();
        for (name, decide) in hooks() {
            let a = decide_fail_open(name, &bytes, &env, decide);
            assert_sane(name, &a);
        }
    }

    #[test]
    fn ledger_parser_takes_any_text(s in text()) {
        let l = fable::discipline::ledger::parse(&s);
        for c in l.done_cards() {
            let _ = c.citations();
            let _ = c.has_substantive_evidence();
            let _ = c.label();
        }
        let _ = l.phase();
    }

    #[test]
    fn evidence_lines_never_fail_the_reader(bytes in prop::collection::vec(any::<u8>(), 0..2048), t in text()) {
        let mut out = fable::evidence::journal::ReadOutcome::default();
        fable::evidence::journal::read_lines_into(&bytes[..], &mut out);
        // A record written by us always reads back identically.
        let r = fable::evidence::Record { v: 1, ts: "2026-12-02T12:00:00.000Z".into(), session: t.clone(), cwd: t.clone(),
            cmd: t.clone(), exit: Some(1), ok: false, tail: t.clone(), head: Some(t), event: None, tool_use_id: None, agent: None, ms: None, trust: None, file: None, summary: None, background: None, imported: None, tree: None, host: None, chain: None, mac: None };
        let mut back = fable::evidence::journal::ReadOutcome::default();
        fable::evidence::journal::read_lines_into(r.to_line().as_bytes(), &mut back);
        prop_assert_eq!(back.records, vec![r]);
    }

    #[test]
    fn settings_merge_is_total_idempotent_and_keeps_foreign_entries(doc in payload(), cmd in text()) {
        let entries: Vec<fable::setup::settings::OurEntry> = fable::setup::registrations::builtin().unwrap().iter().map(|r| {
            fable::setup::settings::OurEntry { event: r.event.clone(), matcher: r.matcher.clone(),
                command: format!("'/opt/x y/{}'", r.binary), timeout: r.timeout }
        }).collect();
        let mut doc = doc;
        if let Some(m) = doc.as_object_mut() {
            m.insert("hooks".into(), json!({"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": cmd}]}]}));
        }
        if let Ok((once, _)) = fable::setup::settings::install(doc.clone(), &entries) {
            let (twice, _) = fable::setup::settings::install(once.clone(), &entries).unwrap();
            prop_assert_eq!(fable::setup::settings::render(&once), fable::setup::settings::render(&twice));
            let (removed, _) = fable::setup::settings::uninstall(twice).unwrap();
            let (removed_orig, _) = fable::setup::settings::uninstall(doc).unwrap();
            prop_assert_eq!(removed, removed_orig);
        }
    }

    #[test]
    fn signatures_and_command_norms_take_any_text(s in text()) {
        let sig = fable::learn::signature::signature(&s);
        let _ = sig.primary();
        let _ = fable::learn::signature::anchors(&s);
        for line in s.lines() {
            let masked = fable::learn::signature::mask_line(line);
            prop_assert_eq!(fable::learn::signature::mask_line(&masked), masked.clone(), "masking is idempotent");
        }
        let n = fable::learn::command_norm::normalize(&s);
        let _ = (n.domain(), n.action(), n.label());
    }
}

#[test]
fn registrations_are_read_from_hooks_json() {
    // Guards the fuzz target above against silently testing nothing.
    assert!(fable::setup::registrations::builtin().unwrap().len() >= 8);
    assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/hooks.json").exists());
}
