//! Issue 30 item 3 through `fable doctor`: a fable plugin plus an install, or user plus
//! project settings, is one problem naming the exact fix; a plugin alone is healthy and
//! is not told to `fable install`; a hook binary fable installed that is gone, not
//! executable or overwritten is named (and an overwritten one is not run).

mod common_setup;

use common_setup::{text, write_script, Setup};

use serde_json::{json, Value};
use std::fs;
use std::os::unix::fs::PermissionsExt;

/// `fable install --no-skill ARGS`; asserts success.
fn install(s: &Setup, args: &[&str]) {
    let mut all = vec!["--no-skill"];
    all.extend_from_slice(args);
    s.install(&all);
}

/// `fable doctor --json ARGS`: exit code and report.
fn doctor(s: &Setup, args: &[&str]) -> (i32, Value) {
    let out = s.fable().args(["doctor", "--json"]).args(args).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    (out.status.code().unwrap_or(-1), v)
}

fn problems(v: &Value, kind: &str) -> Vec<String> {
    v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == kind)
        .map(|p| p["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn user_and_project_doubles_are_one_problem_with_the_fix() {
    let s = Setup::new();
    install(&s, &["--user"]);
    // The project settings written by hand (the installer would refuse): bare names.
    s.install_past_the_refusal(&["--project"]);
    let (code, v) = doctor(&s, &[]);
    assert_eq!(code, 1, "{v}");
    let dups = problems(&v, "duplicate");
    assert_eq!(dups.len(), 1, "one problem for one mistake: {dups:?}");
    let m = &dups[0];
    assert!(m.contains("fable-evidence runs twice on PostToolUse [Bash]"), "{m}");
    assert!(m.contains("fable-close-guard runs twice on Stop"), "{m}");
    assert!(m.contains("keep user: `fable uninstall --project`"), "{m}");
    assert!(
        m.contains("keep project: `fable uninstall --user` (or `fable install --project --replace`)"),
        "{m}"
    );
}

#[test]
fn plugin_and_user_install_is_a_problem_and_plugin_alone_is_healthy() {
    let s = Setup::new();
    let plugin = s.plugin();
    // A marketplace install, recorded where Claude Code records it.
    let rec = json!({"version": 2, "plugins": {"fable@dev": [{"scope": "user", "installPath": plugin}]}});
    fs::create_dir_all(s.home().join(".claude/plugins")).unwrap();
    fs::write(s.home().join(".claude/plugins/installed_plugins.json"), rec.to_string()).unwrap();
    let (code, v) = doctor(&s, &[]);
    assert_eq!(code, 0, "the plugin alone is a complete registration: {v}");
    assert!(
        !v.to_string().contains("fable install"),
        "no advice to install on top: {v}"
    );
    let scope = v["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scope"] == "plugin")
        .cloned();
    assert_eq!(scope.expect("plugin found")["hooks"].as_array().unwrap().len(), 11);

    // The user settings get the hooks too (written past the installer's refusal).
    let out = s
        .fable()
        .env("HOME", s.root().join("elsewhere"))
        .env("CLAUDE_CONFIG_DIR", s.home().join(".claude"))
        .args(["install", "--user", "--no-skill", "--bin-dir"])
        .arg(s.bins())
        .output()
        .unwrap();
    // The installer sees the plugin in that config dir and refuses; write the file by hand.
    assert!(!out.status.success());
    let user = json!({"hooks": {"Stop": [{"hooks": [{"type": "command",
        "command": format!("{} # fable", shell_words::quote(&s.bins().join("fable-close-guard").to_string_lossy())),
        "timeout": 180}]}]}});
    fs::write(s.home().join(".claude/settings.json"), user.to_string()).unwrap();
    let (code, v) = doctor(&s, &[]);
    assert_eq!(code, 1, "{v}");
    let dups = problems(&v, "duplicate");
    assert_eq!(dups.len(), 1, "{dups:?}");
    assert!(dups[0].contains("fable-close-guard runs twice on Stop"), "{}", dups[0]);
    assert!(
        dups[0].contains("Keep the plugin: run `fable uninstall --user`"),
        "{}",
        dups[0]
    );
}

#[test]
fn a_plugin_loaded_with_plugin_dir_is_found_when_named() {
    let s = Setup::new();
    let plugin = s.plugin();
    let (code, v) = doctor(&s, &["--plugin-dir", plugin.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    let (code, v) = doctor(&s, &[]);
    assert_eq!(code, 1, "unnamed, nothing registers the hooks: {v}");
}

#[test]
fn a_missing_disabled_or_overwritten_hook_binary_is_named_with_the_fix() {
    let s = Setup::new();
    install(&s, &["--user"]);
    let (code, v) = doctor(&s, &[]);
    assert_eq!(code, 0, "{v}");
    let guard = s.bins().join("fable-close-guard");

    // chmod -x: the stop check is off.
    fs::set_permissions(&guard, fs::Permissions::from_mode(0o644)).unwrap();
    let (code, v) = doctor(&s, &[]);
    assert_eq!(code, 1, "{v}");
    let all = v["problems"].to_string();
    assert!(
        all.contains("fable-close-guard") && all.contains("not executable"),
        "{all}"
    );
    assert!(all.contains("fable install --user"), "{all}");

    // Overwritten with something that answers fine: changed, and not run.
    let ran = s.root().join("it-ran");
    fs::write(&guard, format!("#!/bin/sh\ntouch '{}'\nexit 0\n", ran.display())).unwrap();
    fs::set_permissions(&guard, fs::Permissions::from_mode(0o755)).unwrap();
    let (code, v) = doctor(&s, &[]);
    assert_eq!(code, 1, "{v}");
    let changed = problems(&v, "changed_binary");
    assert_eq!(changed.len(), 2, "Stop and SubagentStop: {changed:?}");
    assert!(changed[0].contains("fable-close-guard") && changed[0].contains("changed since fable installed it"));
    assert!(changed[0].contains("`fable install --user`"), "{}", changed[0]);
    assert!(!ran.exists(), "the doctor ran a binary fable did not install");

    // Deleted.
    fs::remove_file(&guard).unwrap();
    let (code, v) = doctor(&s, &[]);
    assert_eq!(code, 1);
    assert!(v["problems"].to_string().contains("fable-close-guard"), "{v}");

    // Put back and installed again: healthy.
    write_script(&guard, "cat >/dev/null\n");
    install(&s, &["--user"]);
    assert_eq!(doctor(&s, &[]).0, 0);
}
