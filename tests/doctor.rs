//! `fable doctor` through the real binary, against real hook binaries registered by
//! `fable install` in temporary settings. HOME, XDG_STATE_HOME, XDG_CONFIG_HOME and
//! FABLE_CONFIG_DIR point into the test's folder; the doctor's own probes run in a
//! throwaway project of their own.

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Every hook binary fable ships: the library's own list, so the tests cannot drift from it.
use fable::setup::registrations::HOOK_BINARIES;

struct Sandbox {
    tmp: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let s = Sandbox {
            tmp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(s.home()).unwrap();
        fs::create_dir_all(s.project().join(".git")).unwrap();
        fs::create_dir_all(s.project().join(".fable")).unwrap();
        link_hooks(&s.bin_dir());
        s.claude("2.1.332 (Claude Code)");
        s
    }
    fn root(&self) -> &Path {
        self.tmp.path()
    }
    fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    fn project(&self) -> PathBuf {
        self.root().join("my project")
    }
    fn bin_dir(&self) -> PathBuf {
        self.root().join("bin dir")
    }

    /// A fake `claude` printing `version` for `--version`.
    fn claude(&self, version: &str) {
        let p = self.root().join("claude");
        fs::write(&p, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// `fable` in a cleared environment: the test's HOME and state, PATH `path`.
    fn fable(&self, path: &str) -> Command {
        let mut c = Command::cargo_bin("fable").unwrap();
        c.env_clear()
            .env("HOME", self.home())
            .env("XDG_STATE_HOME", self.root().join("state"))
            .env("XDG_CONFIG_HOME", self.root().join("config"))
            .env("FABLE_CONFIG_DIR", self.root().join("fable-config"))
            .env("FABLE_CLAUDE_BIN", self.root().join("claude"))
            .env("PATH", path)
            .current_dir(self.project());
        c
    }

    fn install(&self, scope: &str, path: &str) {
        let out = self
            .fable(path)
            .args(["install", scope, "--no-skill", "--bin-dir"])
            .arg(self.bin_dir())
            .output()
            .unwrap();
        assert!(out.status.success(), "install {scope}: {}", text(&out.stderr));
    }

    fn doctor(&self, path: &str, args: &[&str]) -> (i32, String) {
        let out = self.fable(path).arg("doctor").args(args).output().unwrap();
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{err}");
        (out.status.code().unwrap_or(-1), text(&out.stdout))
    }

    fn doctor_json(&self, path: &str) -> (i32, Value) {
        let (code, out) = self.doctor(path, &["--json"]);
        let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
        (code, v)
    }

    fn path_with_bins(&self) -> String {
        format!("{}:{SYSTEM_PATH}", self.bin_dir().display())
    }
}

const SYSTEM_PATH: &str = "/usr/bin:/bin";

/// A bin dir of links to the freshly built hook binaries (deleting a link is harmless).
fn link_hooks(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    for b in HOOK_BINARIES {
        // isolation: not spawned here; the doctor runs it in its own throwaway HOME.
        std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin(b), dir.join(b)).unwrap();
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
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
    let s = Sandbox::new();
    s.install("--user", SYSTEM_PATH);
    let (code, out) = s.doctor(SYSTEM_PATH, &[]);
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
    let s = Sandbox::new();
    s.install("--user", SYSTEM_PATH);
    fs::remove_file(s.bin_dir().join("fable-close-guard")).unwrap();
    let (code, out) = s.doctor(SYSTEM_PATH, &[]);
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
    let (code, v) = s.doctor_json(SYSTEM_PATH);
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
    let s = Sandbox::new();
    s.install("--user", SYSTEM_PATH);
    let (code, v) = s.doctor_json(SYSTEM_PATH);
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
    let s = Sandbox::new();
    let path = s.path_with_bins();
    s.install("--user", &path);
    // `fable install` refuses the second registration; made past it (another HOME).
    let out = s
        .fable(&path)
        .env("HOME", s.root().join("elsewhere"))
        .args(["install", "--project", "--no-skill", "--bin-dir"])
        .arg(s.bin_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (code, v) = s.doctor_json(&path);
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
    let s = Sandbox::new();
    s.install("--user", SYSTEM_PATH);
    s.install("--local", SYSTEM_PATH);
    let (code, v) = s.doctor_json(SYSTEM_PATH);
    assert_eq!(code, 0, "{v}");
    assert!(v["notes"].to_string().contains("runs it once"), "{v}");
}

#[test]
fn outside_a_project_only_user_scope_is_checked() {
    let s = Sandbox::new();
    s.install("--user", SYSTEM_PATH);
    let elsewhere = s.root().join("elsewhere");
    fs::create_dir_all(elsewhere.join(".git")).unwrap();
    let out = s
        .fable(SYSTEM_PATH)
        .args(["doctor", "--json"])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scopes"].as_array().unwrap().len(), 1, "{v}");
    assert!(v["notes"].to_string().contains("checked user settings only"), "{v}");
    // --project DIR picks the project from anywhere.
    let out = s
        .fable(SYSTEM_PATH)
        .args(["doctor", "--json", "--project"])
        .arg(s.project())
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scopes"].as_array().unwrap().len(), 3, "{v}");
    // A missing folder is a usage error, as everywhere.
    s.fable(SYSTEM_PATH)
        .args(["doctor", "--project"])
        .arg(s.root().join("nope"))
        .assert()
        .code(2);
}

#[test]
fn version_path_and_answer_problems_say_what_to_do() {
    let s = Sandbox::new();
    s.install("--user", SYSTEM_PATH);
    // An old Claude Code drops a settings file naming PostToolUseFailure.
    s.claude("2.0.55 (Claude Code)");
    let (code, v) = s.doctor_json(SYSTEM_PATH);
    assert_eq!(code, 1);
    let p = problems(&v);
    assert!(
        p.iter().any(|(k, m)| k == "unknown_event"
            && m.contains("ignores the whole file")
            && m.contains("fable install --user")),
        "{p:?}"
    );
    s.claude("2.1.332");

    // Another copy on PATH than the one registered.
    let other = s.root().join("other");
    fs::create_dir_all(&other).unwrap();
    for b in HOOK_BINARIES {
        fs::write(other.join(b), "#!/bin/sh\ncat >/dev/null\n").unwrap();
        fs::set_permissions(other.join(b), fs::Permissions::from_mode(0o755)).unwrap();
    }
    let (code, v) = s.doctor_json(&format!("{}:{SYSTEM_PATH}", other.display()));
    assert_eq!(code, 1, "{v}");
    let p = problems(&v);
    assert_eq!(p.iter().filter(|(k, _)| k == "path_mismatch").count(), 7, "{p:?}");
    assert!(p.iter().all(|(k, _)| k == "path_mismatch"), "{p:?}");

    // A hook replaced after the install is named, not run (it is not what fable installed).
    let stop = s.bin_dir().join("fable-close-guard");
    fs::remove_file(&stop).unwrap();
    fs::write(&stop, "#!/bin/sh\necho hello\n").unwrap();
    fs::set_permissions(&stop, fs::Permissions::from_mode(0o755)).unwrap();
    let (code, out) = s.doctor(SYSTEM_PATH, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("changed since fable installed it") && out.contains("fable-close-guard"),
        "{out}"
    );
}

#[test]
fn nothing_registered_is_a_problem_with_the_way_out() {
    let s = Sandbox::new();
    let (code, out) = s.doctor(SYSTEM_PATH, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("no fable hooks are registered") && out.contains("run `fable install`"),
        "{out}"
    );
}

#[test]
fn a_vendored_project_install_resolves_through_claude_project_dir() {
    let s = Sandbox::new();
    let vendored = s.project().join("target/release");
    link_hooks(&vendored);
    let out = s
        .fable(SYSTEM_PATH)
        .args(["install", "--project", "--no-skill", "--bin-dir"])
        .arg(&vendored)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (code, v) = s.doctor_json(SYSTEM_PATH);
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
    let s = Sandbox::new();
    let plugin = s.root().join("plugin");
    fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    fs::write(
        plugin.join(".claude-plugin/plugin.json"),
        r#"{"name":"fable","version":"0.1.0"}"#,
    )
    .unwrap();
    fs::create_dir_all(plugin.join("hooks")).unwrap();
    let hooks_json = Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/hooks.json");
    fs::copy(hooks_json, plugin.join("hooks/hooks.json")).unwrap();
    link_hooks(&plugin.join("target/release"));
    let (code, v) = s
        .fable(SYSTEM_PATH)
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
    s.install("--user", SYSTEM_PATH);
    let out = s
        .fable(SYSTEM_PATH)
        .env("CLAUDE_PLUGIN_ROOT", &plugin)
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(problems(&v).iter().filter(|(k, _)| k == "duplicate").count(), 1, "{v}");
}
