//! Evidence only the hook can write (issue 10 item 2): every way of putting a passing
//! record into the log other than the real `fable-evidence` hook — a hand-appended line,
//! an edited one, a committed generation, another user's or project's records, a record
//! removed from the middle or the end — corroborates nothing, and the hook's own records
//! still do. Each case drives the real binaries.

mod common_discipline;
use common_discipline::*;
use std::fs;

const CARD: &str = "- [x] 1. tests -- evidence: `pytest -q` -> 12 passed\n";

/// The Stop is blocked, and the block says `needle`.
fn blocks_saying(p: &Proj, needle: &str) {
    let o = p.stop();
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
    assert!(said(&o).contains(needle), "{}", said(&o));
}

fn log_text(p: &Proj) -> String {
    fs::read_to_string(p.fable().join("evidence.jsonl")).unwrap_or_default()
}

#[test]
fn the_hooks_own_records_corroborate_and_verify() {
    let p = Proj::new();
    p.ledger(CARD);
    p.log(&[("ls", 0, true), ("pytest -q", 0, true)]);
    assert_eq!(stop_code(&p.stop()), 0);
    let line = log_text(&p);
    assert!(line.contains("\"mac\":\"") && line.contains("\"chain\":\""), "{line}");
    let o = p.cli(&["evidence", "verify"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("2 records: 2 verified"), "{}", stdout(&o));
    let key = p.state_home().join("fable/key");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
}

#[test]
fn a_hand_appended_pass_blocks_and_verify_names_it() {
    let p = Proj::new();
    p.ledger(CARD);
    p.log(&[("ls", 0, true)]);
    p.forge_at("pytest -q", 0, true, &p.root.to_string_lossy());
    blocks_saying(&p, "no seal");
    let v = p.cli(&["evidence", "verify"]);
    assert_eq!(code(&v), 1);
    assert!(
        stdout(&v).contains("evidence.jsonl:2  unsealed record: pytest -q"),
        "{}",
        stdout(&v)
    );
    let show = stdout(&p.cli(&["evidence", "show"]));
    assert!(
        show.lines().any(|l| l.starts_with("? ") && l.contains("pytest -q")),
        "{show}"
    );
    assert!(show.lines().any(|l| l.starts_with("✓ ") && l.contains(" ls")), "{show}");
}

#[test]
fn an_edited_record_is_forged() {
    let p = Proj::new();
    p.ledger(CARD);
    p.log(&[("pytest -q", 1, false)]);
    // The Write tool rewrites the failure into a pass, seal and all.
    let edited = log_text(&p)
        .replace("\"exit\":1,\"ok\":false", "\"exit\":0,\"ok\":true")
        .replace("PostToolUseFailure", "PostToolUse");
    assert_ne!(edited, log_text(&p));
    fs::write(p.fable().join("evidence.jsonl"), edited).unwrap();
    blocks_saying(&p, "seal this machine did not make");
}

#[test]
fn a_committed_generation_with_a_pass_corroborates_nothing() {
    let p = Proj::new();
    p.ledger(CARD);
    let root = p.root.to_string_lossy().into_owned();
    let rec = serde_json::json!({"v":1,"ts":"2026-12-01T00:00:00.000Z","session":"x","cwd":root,
        "cmd":"pytest -q","exit":0,"ok":true,"tail":"12 passed","mac":"0".repeat(64)});
    fs::write(p.fable().join("evidence.jsonl.1"), format!("{rec}\n")).unwrap();
    fs::write(p.fable().join("evidence.jsonl.9"), format!("{rec}\n")).unwrap();
    p.log(&[("ls", 0, true)]);
    let o = p.stop();
    assert_eq!(stop_code(&o), 2, "{}", said(&o));
}

#[test]
fn records_sealed_by_another_user_or_for_another_project_do_not_count() {
    // Another user (another state folder, another key) seals a pass of the same project.
    let p = Proj::new();
    p.ledger(CARD);
    let other = Proj::new();
    let mut theirs = p.hook_raw(
        "fable-evidence",
        success("s", "pytest -q").to_string().as_bytes(),
        &[("XDG_STATE_HOME", &other.state_home().to_string_lossy())],
    );
    assert!(theirs.status.success());
    p.log(&[("ls", 0, true)]);
    blocks_saying(&p, "seal this machine did not make");

    // The same user's pass in project B, copied into project A.
    let a = Proj::new();
    a.ledger(CARD);
    let b_root = a.root.parent().unwrap().join("b");
    fs::create_dir_all(b_root.join(".git")).unwrap();
    fs::create_dir_all(b_root.join(".fable")).unwrap();
    let mut payload = success("s", "pytest -q");
    payload["cwd"] = serde_json::json!(b_root.to_string_lossy());
    theirs = a.hook_raw(
        "fable-evidence",
        payload.to_string().as_bytes(),
        &[("CLAUDE_PROJECT_DIR", &b_root.to_string_lossy())],
    );
    assert!(theirs.status.success());
    let copied = fs::read_to_string(b_root.join(".fable/evidence.jsonl")).unwrap();
    assert!(copied.contains("pytest -q"));
    fs::write(a.fable().join("evidence.jsonl"), copied).unwrap();
    blocks_saying(&a, "seal this machine did not make");
}

#[test]
fn removing_the_failure_after_a_pass_breaks_the_chain() {
    // pass → fail → (agent deletes the failure) → the earlier pass must not count.
    let p = Proj::new();
    p.ledger(CARD);
    p.log(&[("pytest -q", 0, true), ("pytest -q", 1, false), ("ls", 0, true)]);
    let lines: Vec<String> = log_text(&p).lines().map(str::to_string).collect();
    fs::write(
        p.fable().join("evidence.jsonl"),
        format!("{}\n{}\n", lines[0], lines[2]),
    )
    .unwrap();
    blocks_saying(&p, "evidence log was altered");
    let v = p.cli(&["evidence", "verify"]);
    assert_eq!(code(&v), 1);
    assert!(
        stdout(&v).contains("evidence.jsonl:2  the chain breaks here"),
        "{}",
        stdout(&v)
    );
    // Running it again after the break is evidence again.
    p.log(&[("pytest -q", 0, true)]);
    assert_eq!(stop_code(&p.stop()), 0, "{}", said(&p.stop()));
}

#[test]
fn cutting_the_last_record_off_the_end_is_seen() {
    let p = Proj::new();
    p.ledger(CARD);
    p.log(&[("pytest -q", 0, true), ("pytest -q", 1, false)]);
    let first = log_text(&p).lines().next().unwrap().to_string();
    fs::write(p.fable().join("evidence.jsonl"), format!("{first}\n")).unwrap();
    blocks_saying(&p, "evidence log was altered");
    let v = p.cli(&["evidence", "verify"]);
    assert_eq!(code(&v), 1);
    assert!(
        stdout(&v).contains("records were removed from its end"),
        "{}",
        stdout(&v)
    );
}

#[test]
fn imported_records_are_redacted_capped_and_unsealed_unless_vouched_for() {
    let p = Proj::new();
    p.ledger(CARD);
    let root = p.root.to_string_lossy().into_owned();
    let rec = serde_json::json!({"v":1,"ts":"2026-12-01T00:00:00.000Z","session":"x","cwd":root,
        "cmd":"pytest -q","exit":0,"ok":true,"tail":format!("{} password=hunter2", "y".repeat(9000))});
    let file = p.home.join("other.jsonl");
    fs::write(&file, format!("{rec}\n")).unwrap();
    let o = p.cli(&["evidence", "import", &file.to_string_lossy()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("unsealed"), "{}", stdout(&o));
    let log = log_text(&p);
    assert!(!log.contains("hunter2"), "imported secrets are redacted");
    let r: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(r["tail"].as_str().unwrap().chars().count(), 4000);
    // The output's start is kept as the hook keeps it: the tail cut it.
    assert_eq!(r["head"].as_str().unwrap(), "y".repeat(1000), "{r}");
    assert_eq!(stop_code(&p.stop()), 2, "an import backs no card");
    // `--seal` without a terminal (an agent's shell, a pipe) is refused and adds nothing.
    let before = log_text(&p);
    let o = p.cli(&["evidence", "import", "--seal", &file.to_string_lossy()]);
    assert_ne!(code(&o), 0, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("needs your confirmation at a terminal"),
        "{}",
        stderr(&o)
    );
    assert_eq!(log_text(&p), before, "a refused sealed import writes nothing");
    // At a terminal, answered `seal`: sealed, stamped with the import time.
    seal_at_terminal(&p, &file.to_string_lossy(), "seal");
    assert_eq!(stop_code(&p.stop()), 0, "{}", said(&p.stop()));
    let last: serde_json::Value = serde_json::from_str(log_text(&p).lines().last().unwrap()).unwrap();
    assert!(last["imported"].as_str().is_some_and(|t| t.ends_with('Z')), "{last}");
    assert!(last["mac"].is_string(), "{last}");
}

/// `fable evidence import --seal FILE` run at a terminal (a pty from util-linux
/// `script`), answering `answer` at the prompt.
fn seal_at_terminal(p: &Proj, file: &str, answer: &str) -> String {
    use std::io::Write;
    let fable = assert_cmd::cargo::cargo_bin("fable");
    let line = format!(
        "{} evidence import --seal {}",
        shell_words::quote(&fable.to_string_lossy()),
        shell_words::quote(file)
    );
    let mut child = std::process::Command::new("script")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()))
        .env("HOME", &p.home)
        .env("XDG_CONFIG_HOME", p.home.join("xdg-config"))
        .env("XDG_STATE_HOME", p.state_home())
        .env("FABLE_CONFIG_DIR", p.config_dir())
        .current_dir(&p.root)
        .args(["-qec", &line, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("util-linux `script` runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{answer}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// At the terminal, any answer but `seal` imports nothing.
#[test]
fn a_sealed_import_not_confirmed_imports_nothing() {
    let p = Proj::new();
    p.ledger(CARD);
    let rec = serde_json::json!({"v":1,"ts":"2030-01-01T00:00:00.000Z","session":"x","cwd":"/","cmd":"pytest -q","exit":0,"ok":true,"tail":"12 passed"});
    let file = p.root.join("other.jsonl");
    fs::write(&file, format!("{rec}\n")).unwrap();
    let said_there = seal_at_terminal(&p, &file.to_string_lossy(), "y");
    assert!(
        said_there.contains("Type `seal` to confirm") && said_there.contains("nothing was imported"),
        "{said_there}"
    );
    assert_eq!(log_text(&p), "");
    assert_eq!(stop_code(&p.stop()), 2, "nothing sealed backs the card");
}

#[test]
fn a_missing_key_seals_nothing_and_says_so() {
    let p = Proj::new();
    p.ledger(CARD);
    // The state folder is a file: no key can be made.
    fs::write(p.state_home(), "not a folder").unwrap();
    let o = p.hook("fable-evidence", success("s", "pytest -q"));
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["systemMessage"].as_str().unwrap().contains("unsealed"), "{v}");
    assert_eq!(stop_code(&p.stop()), 2);
}

#[test]
fn a_log_that_cannot_be_written_is_told_to_the_user_and_named_at_stop() {
    let p = Proj::new();
    p.ledger(CARD);
    // `.fable/evidence.jsonl` is a folder: every append fails.
    fs::create_dir_all(p.fable().join("evidence.jsonl")).unwrap();
    let o = p.hook("fable-evidence", success("s", "pytest -q"));
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("could not write the evidence log"),
        "{v}"
    );
    let s = p.stop();
    assert_eq!(stop_code(&s), 2);
    assert!(
        said(&s).contains("the evidence hook could not write the log"),
        "{}",
        said(&s)
    );
}
