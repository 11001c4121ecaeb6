//! `fable doctor` on a repository it must not trust: a committed `.claude/settings.json`
//! that registers the repository's own `fable-*` programs is reported, not run (the doctor
//! is what a user runs on a strange clone before trusting it); `--run-project-hooks` runs
//! them in the doctor's throwaway project. And every text the doctor prints from a
//! settings file goes through the one sanitiser: no escape sequence, BEL or bidi override
//! reaches the terminal.

mod common_setup;

use common_setup::*;
use serde_json::{json, Value};
use std::fs;
use std::path::PathBuf;

/// A project whose settings register two programs of the repository, under fable's
/// names and marker, each leaving a marker file when run.
fn hostile(s: &Setup) -> PathBuf {
    let marker = s.root().join("ran");
    let tools = s.project().join("tools");
    fs::create_dir_all(&tools).unwrap();
    let body = format!("touch '{}'\ncat >/dev/null\n", marker.display());
    write_script(&tools.join("fable-evidence"), &body);
    write_script(&s.project().join("fable-close-guard"), &body);
    let settings = json!({"hooks": {
        "PostToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR/tools/fable-evidence\" # fable"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "./fable-close-guard # fable"}]}]
    }});
    fs::create_dir_all(s.project().join(".claude")).unwrap();
    fs::write(s.project_settings(), settings.to_string()).unwrap();
    marker
}

fn doctor(s: &Setup, args: &[&str]) -> (i32, String) {
    let out = s.fable().arg("doctor").args(args).output().unwrap();
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    (out.status.code().unwrap_or(-1), text(&out.stdout))
}

#[test]
fn doctor_does_not_run_the_repositorys_hooks() {
    let s = Setup::new();
    s.install(&["--user", "--no-skill"]);
    let marker = hostile(&s);
    let (code, out) = doctor(&s, &[]);
    assert!(!marker.exists(), "the doctor ran the repository's program: {out}");
    assert_ne!(code, 2, "{out}");
    for p in [
        s.project().join("tools/fable-evidence"),
        s.project().join("fable-close-guard"),
    ] {
        let line = out
            .lines()
            .find(|l| l.contains(&p.display().to_string()) && l.trim_start().starts_with("skip"))
            .unwrap_or_else(|| panic!("{} not listed as skipped: {out}", p.display()));
        assert!(line.contains("provided by the repository, not run"), "{line}");
    }
    assert!(out.contains("`fable doctor --run-project-hooks` probes them"), "{out}");
    // What fable installed is still probed.
    let answered = out.lines().filter(|l| l.contains("answered")).count();
    assert_eq!(answered, 11, "{out}");
    let (_, json_out) = doctor(&s, &["--json"]);
    assert!(!marker.exists());
    let v: Value = serde_json::from_str(&json_out).unwrap();
    let project = v["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["scope"] == "project")
        .unwrap();
    assert!(
        project["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["status"] == "not_run"),
        "{project}"
    );

    // Asked for, it runs them (in its throwaway project).
    let (_, out) = doctor(&s, &["--run-project-hooks"]);
    assert!(marker.exists(), "{out}");
    assert!(!out.contains("not run"), "{out}");
}

#[test]
fn a_repository_the_user_loads_as_a_plugin_is_probed() {
    // `claude --plugin-dir .` on a fable checkout built in place: named by the user.
    let s = Setup::new();
    let plugin = s.plugin_at(&s.project());
    let (code, out) = doctor(&s, &["--plugin-dir", plugin.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().filter(|l| l.contains("answered")).count(), 11, "{out}");
    assert!(!out.contains("not run"), "{out}");
}

#[test]
fn a_hook_fable_did_not_install_elsewhere_is_not_run_either() {
    let s = Setup::new();
    let marker = s.root().join("ran");
    let other = s.root().join("downloads");
    fs::create_dir_all(&other).unwrap();
    write_script(
        &other.join("fable-close-guard"),
        &format!("touch '{}'\n", marker.display()),
    );
    let command = format!("{} # fable", other.join("fable-close-guard").display());
    let settings = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}});
    fs::create_dir_all(s.home().join(".claude")).unwrap();
    fs::write(s.user_settings(), settings.to_string()).unwrap();
    let (_, out) = doctor(&s, &[]);
    assert!(!marker.exists(), "{out}");
    assert!(
        out.contains("not installed by fable on this machine (no install record), not run"),
        "{out}"
    );
}

#[test]
fn doctor_output_holds_no_raw_control_or_bidi_characters() {
    let s = Setup::new();
    let nasty = "\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\u{202e}kcah";
    let folder = s.project().join(format!("x{nasty}"));
    fs::create_dir_all(&folder).unwrap();
    let settings = json!({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": format!("{}/fable-close-guard # fable", folder.display())}]}],
        "PostToolUse": [{"matcher": format!("Bash{nasty}"), "hooks": [
            {"type": "command", "command": format!("\"$CLAUDE_PROJECT_DIR/x{nasty}/fable-evidence\" # fable")}]}],
        format!("Evil{nasty}"): []
    }});
    fs::create_dir_all(s.project().join(".claude")).unwrap();
    fs::write(s.project_settings(), settings.to_string()).unwrap();
    // A settings file that cannot be read names itself and its error: a local one here.
    fs::write(
        s.project().join(".claude/settings.local.json"),
        format!("{{\"a\": \"{nasty}"),
    )
    .unwrap();
    for args in [&[][..], &["--run-project-hooks"]] {
        let (_, out) = doctor(&s, args);
        for bad in ['\u{1b}', '\u{7}', '\u{202e}'] {
            assert!(!out.contains(bad), "{bad:?} in {args:?}: {out:?}");
        }
        assert!(out.contains("\\x1b]52;c;ZXZpbA==\\x07"), "shown, not acted on: {out}");
        assert!(out.contains("\\u{202e}"), "{out}");
    }
    // --json escapes them as JSON does, and keeps the text.
    let (_, out) = doctor(&s, &["--json"]);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v.to_string().contains("\\u001b]52"), "{v}");
}
