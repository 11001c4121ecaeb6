//! `fable doctor` through the real binary, against hook binaries registered by `fable
//! install` in temporary settings (the real ones in the healthy run; elsewhere scripts
//! that answer, which the install hashes in microseconds instead of seconds). HOME and
//! the XDG folders point into the test's folder (`tests/common_setup`); the doctor's own
//! probes run in a throwaway project of their own.

mod common_setup;

use common_setup::{text, write_script, Bins, Setup, HOOK_BINARIES};
use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const SYSTEM_PATH: &str = "/usr/bin:/bin";

/// `fable` in the sandbox with PATH `path`.
fn fable(s: &Setup, path: &str) -> assert_cmd::Command {
    let mut c = s.fable();
    c.env("PATH", path);
    c
}

/// A fake `claude` printing `version` for `--version`.
fn claude(s: &Setup, version: &str) {
    write_script(&s.root().join("claude"), &format!("echo '{version}'\n"));
}

fn install(s: &Setup, scope: &str, path: &str) {
    let out = fable(s, path)
        .args(["install", scope, "--no-skill", "--bin-dir"])
        .arg(s.bins())
        .output()
        .unwrap();
    assert!(out.status.success(), "install {scope}: {}", text(&out.stderr));
}

fn doctor(s: &Setup, path: &str, args: &[&str]) -> (i32, String) {
    let out = fable(s, path).arg("doctor").args(args).output().unwrap();
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    (out.status.code().unwrap_or(-1), text(&out.stdout))
}

fn doctor_json(s: &Setup, path: &str) -> (i32, Value) {
    let (code, out) = doctor(s, path, &["--json"]);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
    (code, v)
}

/// Script hooks that answer, in `dir`.
fn script_hooks(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    for b in HOOK_BINARIES {
        write_script(&dir.join(b), "cat >/dev/null\n");
    }
}

fn problems(v: &Value) -> Vec<(String, String)> {
    v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap().to_string(),
                p["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_healthy_install_exits_0_and_every_hook_answers() {
    // The real hook binaries, answering the doctor's payloads.
    let s = Setup::with(Bins::Links);
    install(&s, "--user", SYSTEM_PATH);
    let (code, out) = doctor(&s, SYSTEM_PATH, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Claude Code 2.1.332"), "{out}");
    let ok: Vec<&str> = out.lines().filter(|l| l.trim_start().starts_with("ok ")).collect();
    assert_eq!(ok.len(), 11, "{out}");
    for b in HOOK_BINARIES {
        assert!(ok.iter().any(|l| l.contains(b) && l.contains("answered")), "{b}: {out}");
    }
    assert!(out.contains("project: ") && out.contains("no file"), "{out}");
    assert!(out.contains("no problems found"), "{out}");
    // The probes wrote nothing into the real project or the user's state.
    assert_eq!(fs::read_dir(s.project().join(".fable")).unwrap().count(), 0);
}

#[test]
fn a_deleted_binary_exits_1_and_is_named() {
    let s = Setup::new();
    install(&s, "--user", SYSTEM_PATH);
    fs::remove_file(s.bins().join("fable-close-guard")).unwrap();
    let (code, out) = doctor(&s, SYSTEM_PATH, &[]);
    assert_eq!(code, 1, "{out}");
    let problem = out
        .lines()
        .find(|l| l.starts_with("fable: problem:"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        problem.contains("fable-close-guard") && problem.contains("no such file") && problem.contains("fable install"),
        "{problem}"
    );
    assert!(
        out.lines()
            .any(|l| l.contains("FAIL") && l.contains("fable-close-guard")),
        "{out}"
    );
    let (code, v) = doctor_json(&s, SYSTEM_PATH);
    assert_eq!(code, 1);
    assert_eq!(v["healthy"], false);
    let hooks = v["scopes"][0]["hooks"].as_array().unwrap();
    let gone: Vec<_> = hooks.iter().filter(|h| h["status"] == "missing").collect();
    // Registered twice (Stop and SubagentStop): both entries are named.
    assert_eq!(gone.len(), 2, "{v}");
    assert!(gone.iter().all(|h| h["binary"] == "fable-close-guard"));
    assert_eq!(
        (gone[0]["event"].as_str(), gone[1]["event"].as_str()),
        (Some("Stop"), Some("SubagentStop"))
    );
}

#[test]
fn json_report_parses_and_lists_each_scope() {
    let s = Setup::new();
    install(&s, "--user", SYSTEM_PATH);
    let (code, v) = doctor_json(&s, SYSTEM_PATH);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["healthy"], true);
    assert_eq!(v["claude_version"], "2.1.332");
    let names: Vec<&str> = v["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["scope"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["user", "project", "local"]);
    let hooks = v["scopes"][0]["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 11);
    assert!(hooks.iter().all(|h| h["status"] == "answers" && h["ok"] == true), "{v}");
    assert!(problems(&v).is_empty());
}

#[test]
fn the_same_hook_in_two_scopes_under_two_spellings_is_a_duplicate() {
    let s = Setup::new();
    let path = s.path();
    install(&s, "--user", &path);
    // `fable install` refuses the second registration; made past it.
    s.install_past_the_refusal(&["--project"]);
    let (code, v) = doctor_json(&s, &path);
    assert_eq!(code, 1, "{v}");
    let dups: Vec<_> = problems(&v).into_iter().filter(|(k, _)| k == "duplicate").collect();
    assert_eq!(dups.len(), 1, "one problem naming every doubled hook: {v}");
    assert!(
        dups.iter()
            .any(|(_, m)| m.contains("fable-evidence runs twice on PostToolUse [Bash]")
                && m.contains("fable uninstall --user")
                && m.contains("fable uninstall --project")),
        "{dups:?}"
    );
    // Identical command strings (user and local, one bin dir) run once: a note, no problem.
    let s = Setup::new();
    install(&s, "--user", SYSTEM_PATH);
    install(&s, "--local", SYSTEM_PATH);
    let (code, v) = doctor_json(&s, SYSTEM_PATH);
    assert_eq!(code, 0, "{v}");
    assert!(v["notes"].to_string().contains("runs it once"), "{v}");
}

#[test]
fn outside_a_project_only_user_scope_is_checked() {
    let s = Setup::new();
    install(&s, "--user", SYSTEM_PATH);
    let elsewhere = s.root().join("elsewhere");
    fs::create_dir_all(elsewhere.join(".git")).unwrap();
    let out = fable(&s, SYSTEM_PATH)
        .args(["doctor", "--json"])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scopes"].as_array().unwrap().len(), 1, "{v}");
    assert!(v["notes"].to_string().contains("checked user settings only"), "{v}");
    // --project DIR picks the project from anywhere.
    let out = fable(&s, SYSTEM_PATH)
        .args(["doctor", "--json", "--project"])
        .arg(s.project())
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scopes"].as_array().unwrap().len(), 3, "{v}");
    // A missing folder is a usage error, as everywhere.
    fable(&s, SYSTEM_PATH)
        .args(["doctor", "--project"])
        .arg(s.root().join("nope"))
        .assert()
        .code(2);
}

#[test]
fn version_path_and_answer_problems_say_what_to_do() {
    let s = Setup::new();
    install(&s, "--user", SYSTEM_PATH);
    // An old Claude Code drops a settings file naming PostToolUseFailure.
    claude(&s, "2.0.55 (Claude Code)");
    let (code, v) = doctor_json(&s, SYSTEM_PATH);
    assert_eq!(code, 1);
    let p = problems(&v);
    assert!(
        p.iter().any(|(k, m)| k == "unknown_event"
            && m.contains("ignores the whole file")
            && m.contains("fable install --user")),
        "{p:?}"
    );
    claude(&s, "2.1.332");

    // Another copy on PATH than the one registered.
    let other = s.root().join("other");
    fs::create_dir_all(&other).unwrap();
    for b in HOOK_BINARIES {
        fs::write(other.join(b), "#!/bin/sh\ncat >/dev/null\n").unwrap();
        fs::set_permissions(other.join(b), fs::Permissions::from_mode(0o755)).unwrap();
    }
    let (code, v) = doctor_json(&s, &format!("{}:{SYSTEM_PATH}", other.display()));
    assert_eq!(code, 1, "{v}");
    let p = problems(&v);
    assert_eq!(p.iter().filter(|(k, _)| k == "path_mismatch").count(), 7, "{p:?}");
    assert!(p.iter().all(|(k, _)| k == "path_mismatch"), "{p:?}");

    // A hook replaced after the install is named, not run (it is not what fable installed).
    let stop = s.bins().join("fable-close-guard");
    fs::remove_file(&stop).unwrap();
    fs::write(&stop, "#!/bin/sh\necho hello\n").unwrap();
    fs::set_permissions(&stop, fs::Permissions::from_mode(0o755)).unwrap();
    let (code, out) = doctor(&s, SYSTEM_PATH, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("changed since fable installed it") && out.contains("fable-close-guard"),
        "{out}"
    );
}

#[test]
fn nothing_registered_is_a_problem_with_the_way_out() {
    let s = Setup::new();
    let (code, out) = doctor(&s, SYSTEM_PATH, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("no fable hooks are registered") && out.contains("run `fable install`"),
        "{out}"
    );
}

#[test]
fn a_vendored_project_install_resolves_through_claude_project_dir() {
    let s = Setup::new();
    let vendored = s.project().join("target/release");
    script_hooks(&vendored);
    let out = fable(&s, SYSTEM_PATH)
        .args(["install", "--project", "--no-skill", "--bin-dir"])
        .arg(&vendored)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (code, v) = doctor_json(&s, SYSTEM_PATH);
    assert_eq!(code, 0, "{v}");
    let hooks = v["scopes"][1]["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 11, "{v}");
    for h in hooks {
        assert!(
            h["command"].as_str().unwrap().starts_with("\"$CLAUDE_PROJECT_DIR/"),
            "{h}"
        );
        assert!(
            Path::new(h["resolved"].as_str().unwrap()).starts_with(s.project()),
            "{h}"
        );
        assert_eq!(h["status"], "answers", "{h}");
    }
}

#[test]
fn a_fable_plugin_is_checked_and_a_second_registration_is_a_duplicate() {
    let s = Setup::new();
    let plugin = s.plugin();
    let (code, v) = fable(&s, SYSTEM_PATH)
        .env("CLAUDE_PLUGIN_ROOT", &plugin)
        .args(["doctor", "--json"])
        .output()
        .map(|o| (o.status.code(), serde_json::from_slice::<Value>(&o.stdout).unwrap()))
        .unwrap();
    assert_eq!(code, Some(0), "{v}");
    let scope = v["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scope"] == "plugin")
        .unwrap();
    assert_eq!(scope["hooks"].as_array().unwrap().len(), 11, "{v}");
    assert!(
        scope["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["status"] == "answers"),
        "{v}"
    );

    // Installed into user settings as well: every hook runs twice.
    install(&s, "--user", SYSTEM_PATH);
    let out = fable(&s, SYSTEM_PATH)
        .env("CLAUDE_PLUGIN_ROOT", &plugin)
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(problems(&v).iter().filter(|(k, _)| k == "duplicate").count(), 1, "{v}");
}
