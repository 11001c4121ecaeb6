//! `fable install` / `fable uninstall` driven through the real binary, against settings files
//! in temporary directories (HOME, CLAUDE_CONFIG_DIR, XDG_STATE_HOME, XDG_CONFIG_HOME and
//! FABLE_CONFIG_DIR point there; the real ones are never touched). Includes a port of the ancestor's 14 test_install.py checks (ancestor.md §5).

use assert_cmd::Command;
use serde_json::{json, Value};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Every hook binary fable ships: the library's own list, so the tests cannot drift from it.
use fable::setup::registrations::HOOK_BINARIES;

/// A sandbox: HOME, a Claude config dir, a project dir and a bin dir whose path has a space.
struct Sandbox {
    tmp: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let s = Sandbox {
            tmp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(s.home()).unwrap();
        fs::create_dir_all(s.project()).unwrap();
        s.make_bin_dir(&s.bin_dir());
        s
    }

    fn root(&self) -> &Path {
        self.tmp.path()
    }
    fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    fn config(&self) -> PathBuf {
        self.root().join("claude config")
    }
    fn settings(&self) -> PathBuf {
        self.config().join("settings.json")
    }
    fn project(&self) -> PathBuf {
        self.root().join("my project")
    }
    fn bin_dir(&self) -> PathBuf {
        self.root().join("bin dir")
    }
    /// `$XDG_STATE_HOME/fable`: fable's user state.
    fn state(&self) -> PathBuf {
        self.root().join("state home").join("fable")
    }
    /// `$FABLE_CONFIG_DIR`: the trust store's folder.
    fn fable_config(&self) -> PathBuf {
        self.root().join("config home").join("fable")
    }

    /// Fake hook binaries: each prints its own name and its first argument's absence.
    fn make_bin_dir(&self, dir: &Path) {
        fs::create_dir_all(dir).unwrap();
        for b in HOOK_BINARIES {
            let p = dir.join(b);
            fs::write(&p, format!("#!/bin/sh\necho \"ran {b} $#\"\n")).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    /// A fake `claude` that prints `output` for `--version`.
    fn fake_claude(&self, output: &str) -> PathBuf {
        let dir = self
            .root()
            .join(format!("claude-{}", output.replace([' ', '(', ')'], "_")));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("claude");
        fs::write(
            &p,
            format!("#!/bin/sh\nif [ \"$1\" = --version ]; then echo '{output}'; exit 0; fi\nexit 3\n"),
        )
        .unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// `fable` with a sandboxed environment; the Claude version is unknown unless a test says.
    fn fable(&self) -> Command {
        let mut c = Command::cargo_bin("fable").unwrap();
        // A cleared environment: an exported XDG_STATE_HOME would send backups to the real one.
        c.env_clear()
            .env("HOME", self.home())
            .env("CLAUDE_CONFIG_DIR", self.config())
            .env("XDG_STATE_HOME", self.root().join("state home"))
            .env("XDG_CONFIG_HOME", self.root().join("config home"))
            .env("FABLE_CONFIG_DIR", self.fable_config())
            .env("FABLE_CLAUDE_BIN", self.root().join("no-claude-here"))
            .env("PATH", "/usr/bin:/bin")
            .current_dir(self.project());
        c
    }

    fn install(&self) -> Command {
        let mut c = self.fable();
        c.arg("install")
            .arg("--bin-dir")
            .arg(self.bin_dir())
            .args(["--claude-version", "2.1.332"]);
        c
    }

    /// `install --project` with the bin dir on PATH: project settings are shared, so fable
    /// names the hooks by bare name and needs to find them there.
    fn install_project(&self) -> Command {
        let mut c = self.install();
        c.arg("--project").env("PATH", path_with(&self.bin_dir()));
        c
    }

    fn install_ok(&self) {
        self.install().assert().success();
    }

    fn read(&self) -> Value {
        read_json(&self.settings())
    }

    fn write(&self, v: &Value) {
        fs::create_dir_all(self.config()).unwrap();
        fs::write(self.settings(), serde_json::to_string_pretty(v).unwrap()).unwrap();
    }
}

/// `PATH` with `dir` first, then the system folders.
fn path_with(dir: &Path) -> String {
    format!("{}:/usr/bin:/bin", dir.display())
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

fn groups<'a>(doc: &'a Value, event: &str) -> &'a [Value] {
    doc["hooks"][event].as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// Every command string in the document.
fn commands(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(events) = doc["hooks"].as_object() {
        for groups in events.values() {
            for g in groups.as_array().into_iter().flatten() {
                for h in g["hooks"].as_array().into_iter().flatten() {
                    if let Some(c) = h["command"].as_str() {
                        out.push(c.to_string());
                    }
                }
            }
        }
    }
    out
}

fn program(command: &str) -> String {
    shell_words::split(command).unwrap().remove(0)
}

fn foreign_settings() -> Value {
    json!({
        "permissions": {"allow": ["Bash(cargo test:*)"], "deny": []},
        "hooks": {
            "PostToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/my-bash-logger --quiet", "timeout": 5}]}
            ],
            "Stop": [
                {"hooks": [{"type": "command", "command": "notify-send 'done'"}]}
            ]
        },
        "env": {"RUST_LOG": "info"},
        "model": "sonnet"
    })
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ---------------------------------------------------------------------------------------
// The ancestor's test_install.py, check by check.
// ---------------------------------------------------------------------------------------

#[test]
fn ancestor_01_fresh_install_creates_the_events() {
    let s = Sandbox::new();
    s.install_ok();
    let doc = s.read();
    for e in [
        "SessionStart",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SubagentStop",
        "PostToolUseFailure",
        "SessionEnd",
    ] {
        assert!(!groups(&doc, e).is_empty(), "{e} missing in {doc}");
    }
}

#[test]
fn ancestor_02_commands_are_absolute_paths() {
    let s = Sandbox::new();
    s.install_ok();
    let cmds = commands(&s.read());
    assert_eq!(cmds.len(), 11);
    for c in cmds {
        let p = PathBuf::from(program(&c));
        assert!(p.is_absolute(), "{c}");
        assert_eq!(p.parent().unwrap(), s.bin_dir(), "{c}");
        assert!(p.is_file(), "{c} does not name an existing file");
    }
}

#[test]
fn ancestor_03_pre_tool_use_matcher() {
    let s = Sandbox::new();
    s.install_ok();
    let doc = s.read();
    assert_eq!(groups(&doc, "PreToolUse")[0]["matcher"], "Agent|Task|Workflow");
}

#[test]
fn ancestor_04_post_tool_use_matcher_is_bash() {
    let s = Sandbox::new();
    s.install_ok();
    let doc = s.read();
    // Bash groups, plus the evidence hook's group for file edits (issue 11: freshness).
    for e in ["PostToolUse", "PostToolUseFailure"] {
        assert!(
            groups(&doc, e)
                .iter()
                .all(|g| g["matcher"] == "Bash" || g["matcher"] == "Write|Edit|MultiEdit|NotebookEdit"),
            "{e}"
        );
    }
    assert!(groups(&doc, "PostToolUseFailure")
        .iter()
        .all(|g| g["matcher"] == "Bash"));
}

#[test]
fn ancestor_05_idempotent_group_counts_keep_both_post_tool_use_groups() {
    let s = Sandbox::new();
    for _ in 0..3 {
        s.install_ok();
    }
    let doc = s.read();
    let count = |e| groups(&doc, e).len();
    assert_eq!(count("SessionStart"), 1);
    assert_eq!(count("PreToolUse"), 2);
    assert_eq!(
        count("PostToolUse"),
        3,
        "PR #1 regression: both PostToolUse/Bash groups (and the edit group) must survive"
    );
    assert_eq!(count("PostToolUseFailure"), 2);
    assert_eq!(count("Stop"), 1);
    assert_eq!(count("SubagentStop"), 1);
    assert_eq!(count("SessionEnd"), 1);
    let post: Vec<String> = groups(&doc, "PostToolUse")
        .iter()
        .map(|g| program(g["hooks"][0]["command"].as_str().unwrap()))
        .collect();
    assert!(post[0].ends_with("/fable-evidence"));
    assert!(post[1].ends_with("/fable-evidence"));
    assert!(post[2].ends_with("/fable-fail-streak"));
}

#[test]
fn ancestor_06_preserves_permissions() {
    let s = Sandbox::new();
    s.write(&foreign_settings());
    s.install_ok();
    assert_eq!(s.read()["permissions"], foreign_settings()["permissions"]);
}

#[test]
fn ancestor_07_08_preserves_the_users_hook_and_adds_alongside() {
    let s = Sandbox::new();
    s.write(&foreign_settings());
    s.install_ok();
    let doc = s.read();
    let post = groups(&doc, "PostToolUse");
    assert_eq!(
        post[0],
        foreign_settings()["hooks"]["PostToolUse"][0],
        "user's group kept first, unchanged"
    );
    assert_eq!(post.len(), 4, "user's group plus our three");
    assert_eq!(groups(&doc, "Stop")[0], foreign_settings()["hooks"]["Stop"][0]);
    assert_eq!(groups(&doc, "Stop").len(), 2);
}

#[test]
fn ancestor_09_10_11_repoints_without_stale_paths_or_duplicates() {
    let s = Sandbox::new();
    s.install_ok();
    let moved = s.root().join("moved bin");
    s.make_bin_dir(&moved);
    s.fable()
        .arg("install")
        .arg("--bin-dir")
        .arg(&moved)
        .args(["--claude-version", "2.1.332"])
        .assert()
        .success();
    let doc = s.read();
    let text = fs::read_to_string(s.settings()).unwrap();
    // 09: re-pointed to the new path.
    for c in commands(&doc) {
        assert_eq!(PathBuf::from(program(&c)).parent().unwrap(), moved, "{c}");
    }
    // 10: no stale old path.
    assert!(
        !text.contains(s.bin_dir().to_str().unwrap()),
        "stale path left:\n{text}"
    );
    // 11: no duplicates.
    assert_eq!(commands(&doc).len(), 11);
    assert_eq!(groups(&doc, "PostToolUse").len(), 3);
}

#[test]
fn ancestor_12_13_uninstall_removes_ours_and_keeps_the_users_hook() {
    let s = Sandbox::new();
    s.write(&foreign_settings());
    s.install_ok();
    s.fable().arg("uninstall").assert().success();
    let doc = s.read();
    let cmds = commands(&doc);
    assert!(cmds.iter().all(|c| !c.contains("fable-")), "{cmds:?}");
    assert!(cmds.contains(&"/usr/local/bin/my-bash-logger --quiet".to_string()));
    assert!(cmds.contains(&"notify-send 'done'".to_string()));
    for e in ["SessionStart", "PreToolUse", "PostToolUseFailure", "SessionEnd"] {
        assert!(doc["hooks"].get(e).is_none(), "{e} should be dropped once emptied");
    }
}

#[test]
fn ancestor_14_bad_json_is_refused_and_left_untouched() {
    let s = Sandbox::new();
    fs::create_dir_all(s.config()).unwrap();
    let bad = b"{\"hooks\": {\"Stop\": [ }\n";
    fs::write(s.settings(), bad).unwrap();
    let out = s.install().output().unwrap();
    assert!(!out.status.success());
    assert_eq!(fs::read(s.settings()).unwrap(), bad);
    let err = stderr_of(&out);
    assert!(
        err.contains(s.settings().to_str().unwrap()),
        "error must name the file: {err}"
    );
    assert!(err.contains("invalid JSON"), "{err}");
    assert!(err.contains("nothing was changed"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Beyond the ancestor.
// ---------------------------------------------------------------------------------------

#[test]
fn install_three_times_is_byte_identical_and_uninstall_restores_foreign_content() {
    let s = Sandbox::new();
    s.write(&foreign_settings());
    s.install_ok();
    let once = fs::read(s.settings()).unwrap();
    s.install_ok();
    s.install_ok();
    let thrice = fs::read(s.settings()).unwrap();
    assert_eq!(once, thrice, "re-install changed the file");
    s.fable().arg("uninstall").assert().success();
    assert_eq!(s.read(), foreign_settings());
    // Key order of foreign content is preserved too.
    let keys: Vec<String> = s.read().as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["permissions", "hooks", "env", "model"]);
}

#[test]
fn reinstall_after_the_user_added_an_event_changes_nothing() {
    let s = Sandbox::new();
    s.install_ok();
    let mut doc = s.read();
    doc["hooks"]["UserPromptSubmit"] = json!([{"hooks": [{"type": "command", "command": "my-prompt-hook"}]}]);
    let text = format!("{}\n", serde_json::to_string_pretty(&doc).unwrap());
    fs::write(s.settings(), &text).unwrap();
    let out = s.install().output().unwrap();
    assert!(stdout_of(&out).contains("already registered"), "{}", stdout_of(&out));
    assert_eq!(fs::read_to_string(s.settings()).unwrap(), text);
}

#[test]
fn written_file_is_pretty_with_two_space_indent_and_trailing_newline() {
    let s = Sandbox::new();
    s.install_ok();
    let text = fs::read_to_string(s.settings()).unwrap();
    assert!(text.starts_with("{\n  \"hooks\": {\n    \""), "{text}");
    assert!(text.ends_with("}\n"));
    assert!(!text.ends_with("\n\n"));
}

#[test]
fn non_object_settings_are_refused_untouched() {
    for bad in [
        "[1, 2, 3]\n",
        "{\"hooks\": [\"x\"]}\n",
        "{\"hooks\": {\"Stop\": {\"a\": 1}}}\n",
    ] {
        let s = Sandbox::new();
        fs::create_dir_all(s.config()).unwrap();
        fs::write(s.settings(), bad).unwrap();
        let out = s.install().output().unwrap();
        assert!(!out.status.success(), "{bad}");
        assert_eq!(fs::read_to_string(s.settings()).unwrap(), bad);
        assert!(stderr_of(&out).contains(s.settings().to_str().unwrap()));
        assert!(stderr_of(&out).contains("nothing was changed"));
        let out = s.fable().arg("uninstall").output().unwrap();
        assert!(!out.status.success(), "uninstall must refuse too: {bad}");
        assert_eq!(fs::read_to_string(s.settings()).unwrap(), bad);
    }
}

#[test]
fn commands_with_spaces_run_through_sh() {
    let s = Sandbox::new();
    s.install_ok();
    let doc = s.read();
    let mut ran = 0;
    for c in commands(&doc) {
        assert!(c.contains("bin dir"), "{c}");
        let out = std::process::Command::new("sh").arg("-c").arg(&c).output().unwrap();
        assert!(out.status.success(), "`{c}` failed: {}", stderr_of(&out));
        let name = Path::new(&program(&c))
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        // "0" arguments: the quoted path stayed one word.
        assert_eq!(stdout_of(&out), format!("ran {name} 0\n"));
        ran += 1;
    }
    assert_eq!(ran, 11);
}

#[test]
fn quotes_in_the_bin_dir_are_handled() {
    let s = Sandbox::new();
    let odd = s.root().join("it's $HOME");
    s.make_bin_dir(&odd);
    s.fable()
        .arg("install")
        .arg("--bin-dir")
        .arg(&odd)
        .args(["--claude-version", "2.1.332"])
        .assert()
        .success();
    for c in commands(&s.read()) {
        assert_eq!(PathBuf::from(program(&c)).parent().unwrap(), odd);
        let out = std::process::Command::new("sh").arg("-c").arg(&c).output().unwrap();
        assert!(out.status.success(), "{c}");
    }
}

#[test]
fn only_safe_keys_and_numeric_timeouts_are_written() {
    let s = Sandbox::new();
    s.install_ok();
    let doc = s.read();
    for groups in doc["hooks"].as_object().unwrap().values() {
        for g in groups.as_array().unwrap() {
            for k in g.as_object().unwrap().keys() {
                assert!(["matcher", "hooks"].contains(&k.as_str()), "group key {k}");
            }
            for h in g["hooks"].as_array().unwrap() {
                for k in h.as_object().unwrap().keys() {
                    assert!(["type", "command", "timeout"].contains(&k.as_str()), "entry key {k}");
                }
                assert_eq!(h["type"], "command");
                assert!(h["timeout"].as_u64().is_some_and(|t| t > 0), "{h}");
            }
        }
    }
}

#[test]
fn hand_registered_namesake_elsewhere_is_left_and_named() {
    // Before issue 15 the base name alone made this fable's, and it was replaced.
    let s = Sandbox::new();
    s.write(&json!({"hooks": {"PostToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "/other/path/fable-evidence"}]}
    ]}}));
    let out = s.install().output().unwrap();
    assert!(out.status.success());
    assert!(
        stdout_of(&out).contains("left /other/path/fable-evidence: not registered by fable"),
        "{}",
        stdout_of(&out)
    );
    let cmds = commands(&s.read());
    assert!(cmds.contains(&"/other/path/fable-evidence".to_string()));
    assert_eq!(groups(&s.read(), "PostToolUse").len(), 4);
}

#[test]
fn foreign_hook_in_a_mixed_group_keeps_its_place() {
    let s = Sandbox::new();
    s.write(&json!({"hooks": {"PostToolUse": [
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": "/old/fable-fail-streak # fable"},
            {"type": "command", "command": "echo fable-evidence is not ours"}
        ]},
        {"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}
    ]}}));
    s.install_ok();
    let doc = s.read();
    let post = groups(&doc, "PostToolUse");
    assert_eq!(
        post[0],
        json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "echo fable-evidence is not ours"}]})
    );
    assert_eq!(post[1]["matcher"], "Edit");
    assert_eq!(post.len(), 5);
    s.fable().arg("uninstall").assert().success();
    assert_eq!(groups(&s.read(), "PostToolUse").len(), 2);
}

#[test]
fn stale_entries_under_events_no_longer_registered_are_removed() {
    let s = Sandbox::new();
    s.write(&json!({"hooks": {
        "PreCompact": [{"hooks": [{"type": "command", "command": "'/old place/fable-close-guard' # fable"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "my-prompt-hook"}]}]
    }}));
    s.install_ok();
    let doc = s.read();
    assert!(doc["hooks"].get("PreCompact").is_none(), "{doc}");
    assert_eq!(groups(&doc, "UserPromptSubmit").len(), 1);
}

/// Issue 11, item 4: the close guard also answers SubagentStop (every agent type: no
/// matcher), and an old marked entry there is replaced, not duplicated.
#[test]
fn subagent_stop_runs_the_close_guard_for_every_agent_type() {
    let s = Sandbox::new();
    s.write(&json!({"hooks": {
        "SubagentStop": [{"hooks": [{"type": "command", "command": "'/old place/fable-close-guard' # fable"}]}]
    }}));
    s.install_ok();
    let doc = s.read();
    let sub = groups(&doc, "SubagentStop");
    assert_eq!(sub.len(), 1, "{doc}");
    assert!(sub[0].get("matcher").is_none(), "{doc}");
    let hooks = sub[0]["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 1, "{doc}");
    let cmd = hooks[0]["command"].as_str().unwrap();
    assert!(
        program(cmd).ends_with("/fable-close-guard") && !cmd.contains("/old place/"),
        "{cmd}"
    );
    assert!(hooks[0]["timeout"].as_u64().is_some_and(|t| t > 0));
    s.fable().arg("uninstall").assert().success();
    assert!(s.read()["hooks"].get("SubagentStop").is_none(), "{}", s.read());
}

#[test]
fn scopes_write_the_right_files() {
    // --project
    let s = Sandbox::new();
    s.install_project().assert().success();
    let project_settings = s.project().join(".claude/settings.json");
    assert_eq!(groups(&read_json(&project_settings), "PostToolUse").len(), 3);
    assert!(s.project().join(".claude/skills/fable/SKILL.md").is_file());
    assert!(!s.settings().exists(), "user settings must not be touched");
    assert!(!s.project().join(".claude/settings.local.json").exists());

    // --local, with --dir from elsewhere
    let s = Sandbox::new();
    let mut c = s.install();
    c.arg("--local").arg("--dir").arg(s.project()).current_dir(s.root());
    c.assert().success();
    assert!(s.project().join(".claude/settings.local.json").is_file());
    assert!(!s.project().join(".claude/settings.json").exists());
    assert!(!s.settings().exists());

    // --user (explicit) honours CLAUDE_CONFIG_DIR ...
    let s = Sandbox::new();
    s.install().arg("--user").assert().success();
    assert!(s.settings().is_file());
    assert!(s.config().join("skills/fable/SKILL.md").is_file());
    assert!(!s.project().join(".claude").exists());

    // ... and falls back to $HOME/.claude.
    let s = Sandbox::new();
    s.install().env_remove("CLAUDE_CONFIG_DIR").assert().success();
    assert!(s.home().join(".claude/settings.json").is_file());
    assert!(s.home().join(".claude/skills/fable/SKILL.md").is_file());

    // Two scopes at once are refused.
    let s = Sandbox::new();
    s.install().args(["--scope", "project", "--local"]).assert().failure();
    s.install().args(["--user", "--local"]).assert().failure();
    s.install().args(["--user", "--project"]).assert().failure();
    assert!(!s.project().join(".claude").exists());
}

/// The one CLI convention: `--project DIR` names the folder (and, alone, the shared project
/// scope); `--scope` names the settings file.
#[test]
fn project_dir_and_scope_follow_the_cli_convention() {
    let s = Sandbox::new();
    let mut c = s.install();
    c.arg("--project").arg(s.project()).current_dir(s.root());
    c.env("PATH", path_with(&s.bin_dir())).assert().success();
    assert!(s.project().join(".claude/settings.json").is_file());
    assert!(!s.settings().exists(), "user settings must not be touched");

    let s = Sandbox::new();
    let mut c = s.install();
    c.args(["--scope", "local", "--project"])
        .arg(s.project())
        .current_dir(s.root());
    c.assert().success();
    assert!(s.project().join(".claude/settings.local.json").is_file());
    assert!(!s.project().join(".claude/settings.json").exists());

    let s = Sandbox::new();
    let mut c = s.install();
    c.arg("--local").arg("--project").arg(s.project()).current_dir(s.root());
    c.assert().success();
    assert!(s.project().join(".claude/settings.local.json").is_file());

    let s = Sandbox::new();
    let out = s
        .install()
        .arg("--project")
        .arg(s.root().join("nope"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("no such directory"), "{}", stderr_of(&out));
}

#[test]
fn project_scope_needs_an_existing_directory() {
    let s = Sandbox::new();
    let out = s
        .install()
        .args(["--project", "--dir"])
        .arg(s.root().join("nope"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("no such directory"), "{}", stderr_of(&out));
}

#[test]
fn dry_run_writes_nothing() {
    let s = Sandbox::new();
    let out = s.install().arg("--dry-run").output().unwrap();
    assert!(out.status.success());
    assert!(!s.config().exists(), "dry run created the config dir");
    assert!(
        stdout_of(&out).contains("would register 11 hooks"),
        "{}",
        stdout_of(&out)
    );
    assert!(
        stdout_of(&out).contains("+     \"PostToolUse\": ["),
        "shows a diff: {}",
        stdout_of(&out)
    );

    s.write(&foreign_settings());
    let before = fs::read(s.settings()).unwrap();
    s.install().arg("--dry-run").assert().success();
    assert_eq!(fs::read(s.settings()).unwrap(), before);
    assert!(!s.config().join("skills").exists());
    assert!(!s.config().join("settings.json.fable-backup").exists());

    s.install_ok();
    let installed = fs::read(s.settings()).unwrap();
    let out = s.fable().args(["uninstall", "--dry-run"]).output().unwrap();
    assert!(out.status.success());
    assert!(
        stdout_of(&out).contains("would remove 11 fable hooks"),
        "{}",
        stdout_of(&out)
    );
    assert_eq!(fs::read(s.settings()).unwrap(), installed);
    assert!(s.config().join("skills/fable/SKILL.md").exists());
}

#[test]
fn claude_2_0_55_gets_no_post_tool_use_failure_and_a_warning() {
    let s = Sandbox::new();
    let claude = s.fake_claude("2.0.55 (Claude Code)");
    let out = s
        .fable()
        .arg("install")
        .arg("--bin-dir")
        .arg(s.bin_dir())
        .env("PATH", format!("{}:/usr/bin:/bin", claude.parent().unwrap().display()))
        .env_remove("FABLE_CLAUDE_BIN")
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc = s.read();
    assert!(doc["hooks"].get("PostToolUseFailure").is_none(), "{doc}");
    assert_eq!(groups(&doc, "PostToolUse").len(), 3);
    let err = stderr_of(&out);
    assert!(err.contains("warning") && err.contains("PostToolUseFailure"), "{err}");
    assert!(err.contains("2.0.55") && err.contains("Upgrade"), "{err}");
}

#[test]
fn downgrade_to_2_0_55_removes_an_earlier_post_tool_use_failure() {
    let s = Sandbox::new();
    s.install_ok();
    assert!(!groups(&s.read(), "PostToolUseFailure").is_empty());
    s.fable()
        .arg("install")
        .arg("--bin-dir")
        .arg(s.bin_dir())
        .args(["--claude-version", "2.0.55"])
        .assert()
        .success();
    assert!(s.read()["hooks"].get("PostToolUseFailure").is_none());
}

#[test]
fn foreign_post_tool_use_failure_on_old_claude_is_flagged() {
    let s = Sandbox::new();
    s.write(&json!({"hooks": {"PostToolUseFailure": [{"hooks": [{"type": "command", "command": "mine"}]}]}}));
    let out = s
        .fable()
        .arg("install")
        .arg("--bin-dir")
        .arg(s.bin_dir())
        .args(["--claude-version", "2.0.55"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        groups(&s.read(), "PostToolUseFailure").len(),
        1,
        "foreign entry is kept"
    );
    assert!(stderr_of(&out).contains("ignore the whole"), "{}", stderr_of(&out));
}

#[test]
fn claude_2_0_56_and_2_1_332_get_post_tool_use_failure() {
    for version in ["2.0.56 (Claude Code)", "2.1.332 (Claude Code)"] {
        // Through --claude ...
        let s = Sandbox::new();
        let claude = s.fake_claude(version);
        let out = s
            .fable()
            .arg("install")
            .arg("--bin-dir")
            .arg(s.bin_dir())
            .arg("--claude")
            .arg(&claude)
            .arg("--json")
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(groups(&s.read(), "PostToolUseFailure").len(), 2, "{version}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["claude_version"], version.split(' ').next().unwrap());
        assert_eq!(report["claude_version_source"], "read");
        assert!(!stderr_of(&out).contains("PostToolUseFailure"), "{}", stderr_of(&out));

        // ... and through FABLE_CLAUDE_BIN.
        let s = Sandbox::new();
        let claude = s.fake_claude(version);
        s.fable()
            .arg("install")
            .arg("--bin-dir")
            .arg(s.bin_dir())
            .env("FABLE_CLAUDE_BIN", &claude)
            .assert()
            .success();
        assert_eq!(groups(&s.read(), "PostToolUseFailure").len(), 2, "{version}");
    }
}

#[test]
fn unknown_version_writes_post_tool_use_failure_with_a_note() {
    let s = Sandbox::new();
    let out = s
        .fable()
        .arg("install")
        .arg("--bin-dir")
        .arg(s.bin_dir())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(groups(&s.read(), "PostToolUseFailure").len(), 2);
    let err = stderr_of(&out);
    assert!(err.contains("could not read the Claude Code version"), "{err}");
    assert!(err.contains("--claude-version"), "{err}");
}

#[test]
fn a_hanging_claude_is_bounded_by_the_timeout() {
    let s = Sandbox::new();
    let dir = s.root().join("slow");
    fs::create_dir_all(&dir).unwrap();
    let claude = dir.join("claude");
    fs::write(&claude, "#!/bin/sh\nsleep 30\n").unwrap();
    fs::set_permissions(&claude, fs::Permissions::from_mode(0o755)).unwrap();
    let start = std::time::Instant::now();
    let out = s
        .fable()
        .arg("install")
        .arg("--bin-dir")
        .arg(s.bin_dir())
        .arg("--claude")
        .arg(&claude)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    assert!(stderr_of(&out).contains("did not answer"), "{}", stderr_of(&out));
}

#[test]
fn uninstall_without_a_settings_file_creates_nothing() {
    let s = Sandbox::new();
    let out = s.fable().arg("uninstall").output().unwrap();
    assert!(out.status.success());
    assert!(!s.config().exists(), "uninstall created {}", s.config().display());
    assert!(stdout_of(&out).contains("no settings file"));
    s.fable().args(["uninstall", "--project"]).assert().success();
    assert!(!s.project().join(".claude").exists());
}

#[test]
fn uninstall_leaves_a_file_without_our_hooks_byte_identical() {
    let s = Sandbox::new();
    fs::create_dir_all(s.config()).unwrap();
    let text = "{\"model\":\"sonnet\",   \"hooks\":{\"Stop\":[]}}";
    fs::write(s.settings(), text).unwrap();
    s.fable().arg("uninstall").assert().success();
    assert_eq!(fs::read_to_string(s.settings()).unwrap(), text);
    assert!(!s.config().join("settings.json.fable-backup").exists());
}

#[test]
fn uninstall_drops_the_hooks_key_it_emptied() {
    let s = Sandbox::new();
    s.write(&json!({"model": "sonnet"}));
    s.install_ok();
    s.fable().arg("uninstall").assert().success();
    assert_eq!(s.read(), json!({"model": "sonnet"}));
}

#[test]
fn backup_holds_the_previous_file_after_each_write() {
    let s = Sandbox::new();
    s.install_ok();
    assert!(
        !s.config().join("settings.json.fable-backup").exists(),
        "no previous file, no backup"
    );
    let first = fs::read(s.settings()).unwrap();
    let moved = s.root().join("moved");
    s.make_bin_dir(&moved);
    s.fable()
        .arg("install")
        .arg("--bin-dir")
        .arg(&moved)
        .args(["--claude-version", "2.1.332"])
        .assert()
        .success();
    let backup = s.config().join("settings.json.fable-backup");
    assert_eq!(fs::read(&backup).unwrap(), first);
    // No temp files left behind.
    let stray: Vec<_> = fs::read_dir(s.config())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

#[test]
fn private_settings_stay_private_and_so_does_the_backup() {
    let s = Sandbox::new();
    s.write(&json!({"env": {"API_TOKEN": "secret"}}));
    fs::set_permissions(s.settings(), fs::Permissions::from_mode(0o600)).unwrap();
    s.install_ok();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&s.settings()), 0o600);
    assert_eq!(mode(&s.config().join("settings.json.fable-backup")), 0o600);
}

#[test]
fn ancestor_python_hooks_are_kept_but_pointed_out() {
    let s = Sandbox::new();
    let old = "python3 /home/u/.claude/skills/fable-mode/hooks/fable_evidence_log.py";
    s.write(&json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": old}]}]}}));
    let out = s.install().output().unwrap();
    assert!(out.status.success());
    assert!(commands(&s.read()).contains(&old.to_string()), "not ours to remove");
    assert!(stderr_of(&out).contains("fable-mode"), "{}", stderr_of(&out));
}

#[test]
fn a_symlinked_settings_file_is_written_through() {
    let s = Sandbox::new();
    let dotfiles = s.root().join("dotfiles");
    fs::create_dir_all(&dotfiles).unwrap();
    fs::write(dotfiles.join("settings.json"), "{\"model\": \"sonnet\"}\n").unwrap();
    fs::create_dir_all(s.config()).unwrap();
    std::os::unix::fs::symlink(dotfiles.join("settings.json"), s.settings()).unwrap();
    s.install_ok();
    assert!(fs::symlink_metadata(s.settings()).unwrap().file_type().is_symlink());
    assert_eq!(
        groups(&read_json(&dotfiles.join("settings.json")), "PostToolUse").len(),
        3
    );
}

#[test]
fn skill_is_installed_and_removed() {
    let s = Sandbox::new();
    s.install_ok();
    let skill = s.config().join("skills/fable/SKILL.md");
    let template = fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/SKILL.md")).unwrap();
    assert_eq!(fs::read(&skill).unwrap(), template);
    // A user's other skill next to ours stays.
    fs::create_dir_all(s.config().join("skills/mine")).unwrap();
    fs::write(s.config().join("skills/mine/SKILL.md"), "x").unwrap();
    s.fable().arg("uninstall").assert().success();
    assert!(!skill.exists());
    assert!(!s.config().join("skills/fable").exists(), "empty folder removed");
    assert!(s.config().join("skills/mine/SKILL.md").exists());
}

#[test]
fn no_skill_skips_the_skill_both_ways() {
    let s = Sandbox::new();
    s.install().arg("--no-skill").assert().success();
    assert!(!s.config().join("skills").exists());
    s.install_ok();
    s.fable().args(["uninstall", "--no-skill"]).assert().success();
    assert!(s.config().join("skills/fable/SKILL.md").exists());
}

#[test]
fn human_summary_says_what_happened_and_what_next() {
    let s = Sandbox::new();
    let out = s.install().output().unwrap();
    let text = stdout_of(&out);
    assert!(
        text.contains(&format!("11 hooks registered in {}", s.settings().display())),
        "{text}"
    );
    assert!(text.contains("next Claude Code session"), "{text}");
    assert!(text.contains(".fable/") && text.contains("fable init"), "{text}");
    let again = stdout_of(&s.install().output().unwrap());
    assert!(again.contains("already registered"), "{again}");
}

#[test]
fn json_summary_is_machine_readable() {
    let s = Sandbox::new();
    let out = s.install().arg("--json").output().unwrap();
    assert!(out.status.success());
    let r: Value = serde_json::from_slice(&out.stdout).expect("stdout is only JSON");
    assert_eq!(r["action"], "install");
    assert_eq!(r["scope"], "user");
    assert_eq!(r["changed"], true);
    assert_eq!(r["hooks"].as_array().unwrap().len(), 11);
    assert_eq!(r["settings"], s.settings().to_str().unwrap());
    assert_eq!(r["skill"]["action"], "installed");
    assert_eq!(r["missing_binaries"], json!([]));

    let out = s.fable().args(["uninstall", "--json"]).output().unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["action"], "uninstall");
    assert_eq!(r["removed"].as_array().unwrap().len(), 11);
    assert_eq!(r["skill"]["action"], "removed");
}

#[test]
fn missing_hook_binaries_are_warned_about() {
    let s = Sandbox::new();
    fs::remove_file(s.bin_dir().join("fable-learn")).unwrap();
    let out = s.install().output().unwrap();
    assert!(out.status.success());
    let err = stderr_of(&out);
    assert!(err.contains("fable-learn") && err.contains("not found"), "{err}");
    assert!(!err.contains("fable-evidence"), "{err}");
}

#[test]
fn default_bin_dir_is_the_directory_of_the_running_fable() {
    let s = Sandbox::new();
    let out = s
        .fable()
        .args(["install", "--claude-version", "2.1.332", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    // isolation: not spawned (only its folder is compared).
    let exe_dir = PathBuf::from(env!("CARGO_BIN_EXE_fable"))
        .parent()
        .unwrap()
        .to_path_buf();
    assert_eq!(
        fs::canonicalize(r["bin_dir"].as_str().unwrap()).unwrap(),
        fs::canonicalize(exe_dir).unwrap()
    );
}

#[test]
fn plugin_manifest_matches_the_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plugin = read_json(&root.join(".claude-plugin/plugin.json"));
    assert_eq!(plugin["name"], "fable");
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    assert!(plugin["description"].as_str().is_some_and(|d| !d.is_empty()));
    // The skill ships with the plugin too: Claude Code 2.1.332 loads a SKILL.md placed directly
    // in a manifest `skills` folder (checked with the cc-harness).
    let skills = root.join(plugin["skills"].as_str().unwrap());
    assert!(skills.join("SKILL.md").is_file());
    let hooks = read_json(&root.join("hooks/hooks.json"));
    for c in commands(&hooks) {
        assert!(c.contains("${CLAUDE_PLUGIN_ROOT}/target/release/fable-"), "{c}");
    }
}

// ---------------------------------------------------------------------------------------
// install.sh, with a fake `cargo` so no release build is needed.
// ---------------------------------------------------------------------------------------

/// A fake cargo that "builds" each binary as a script; the fake `fable` logs its arguments.
fn fake_cargo(s: &Sandbox) -> (PathBuf, PathBuf) {
    let tools = s.root().join("tools");
    fs::create_dir_all(&tools).unwrap();
    let target = s.root().join("target dir");
    let log = s.root().join("fable.log");
    let cargo = tools.join("cargo");
    fs::write(
        &cargo,
        format!(
            r#"#!/bin/sh
echo "cargo $* RUSTFLAGS=$RUSTFLAGS" >> '{log}'
out="$CARGO_TARGET_DIR/release"
prev=""
for a in "$@"; do
  [ "$prev" = "--target" ] && out="$CARGO_TARGET_DIR/$a/release"
  prev="$a"
done
mkdir -p "$out"
for b in fable fable-evidence fable-log-guard fable-fail-streak fable-close-guard fable-spawn-guard fable-inject fable-learn; do
  printf '#!/bin/sh\necho "%s $*" >> "{log}"\n' "$b" > "$out/$b"
  chmod 755 "$out/$b"
done
"#,
            log = log.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&cargo, fs::Permissions::from_mode(0o755)).unwrap();
    (tools, target)
}

fn install_sh(s: &Sandbox, tools: &Path, target: &Path) -> std::process::Command {
    let mut c = std::process::Command::new("bash");
    c.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("install.sh"))
        .env("HOME", s.home())
        .env("XDG_STATE_HOME", s.root().join("state home"))
        .env("XDG_CONFIG_HOME", s.root().join("config home"))
        .env("FABLE_CONFIG_DIR", s.fable_config())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("PATH", format!("{}:/usr/bin:/bin", tools.display()))
        .env("CARGO_TARGET_DIR", target)
        .env_remove("PREFIX")
        .env_remove("CC")
        .env_remove("RUSTFLAGS");
    c
}

#[test]
fn install_sh_dry_run_changes_nothing_on_disk() {
    let s = Sandbox::new();
    let (tools, target) = fake_cargo(&s);
    let prefix = s.root().join("prefix");
    // Nothing built yet: no build, no copy, a message saying so.
    let out = install_sh(&s, &tools, &target)
        .arg("--prefix")
        .arg(&prefix)
        .arg("--dry-run")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no fable binary built yet"));
    assert!(!prefix.exists(), "dry run created the prefix");
    assert!(!target.exists(), "dry run built");
    assert!(!s.root().join("fable.log").exists(), "dry run ran cargo");
    // With a build present, the settings change is shown by it, registering the prefix.
    install_sh(&s, &tools, &target)
        .arg("--prefix")
        .arg(s.root().join("first"))
        .output()
        .unwrap();
    let log_before = fs::read_to_string(s.root().join("fable.log")).unwrap();
    let out = install_sh(&s, &tools, &target)
        .arg("--prefix")
        .arg(&prefix)
        .arg("--dry-run")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(!prefix.exists(), "dry run copied binaries");
    let log = fs::read_to_string(s.root().join("fable.log")).unwrap();
    let new = &log[log_before.len()..];
    assert!(!new.contains("cargo build"), "dry run built: {new}");
    assert!(
        new.contains(&format!("fable install --bin-dir {} --dry-run", prefix.display())),
        "{new}"
    );
}

#[test]
fn install_sh_builds_copies_and_registers() {
    let s = Sandbox::new();
    let (tools, target) = fake_cargo(&s);
    let prefix = s.root().join("pre fix");
    let out = install_sh(&s, &tools, &target)
        .arg("--prefix")
        .arg(&prefix)
        .args(["--project"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    for b in ["fable"].iter().chain(HOOK_BINARIES.iter()) {
        let p = prefix.join(b);
        assert!(p.is_file(), "{b} not installed");
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o755);
    }
    let log = fs::read_to_string(s.root().join("fable.log")).unwrap();
    assert!(log.contains("cargo build --release"), "{log}");
    assert!(
        log.contains("--locked"),
        "Cargo.lock exists, so the build is locked: {log}"
    );
    assert!(log.contains("fable install --project\n"), "{log}");
    assert!(stderr_of(&out).contains("not on your PATH"), "{}", stderr_of(&out));

    // Re-runnable, and PREFIX works; no warning once the prefix is on PATH.
    let out = install_sh(&s, &tools, &target)
        .env("PREFIX", &prefix)
        .env(
            "PATH",
            format!("{}:{}:/usr/bin:/bin", tools.display(), prefix.display()),
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("not on your PATH"));
    let log = fs::read_to_string(s.root().join("fable.log")).unwrap();
    assert_eq!(log.matches("fable install").count(), 2, "{log}");

    // --uninstall runs `fable uninstall` with the remaining options, then removes the binaries.
    let out = install_sh(&s, &tools, &target)
        .arg("--uninstall")
        .arg("--prefix")
        .arg(&prefix)
        .arg("--local")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let log = fs::read_to_string(s.root().join("fable.log")).unwrap();
    assert!(log.contains("fable uninstall --local\n"), "{log}");
    for b in ["fable"].iter().chain(HOOK_BINARIES.iter()) {
        assert!(!prefix.join(b).exists(), "{b} left behind");
    }
}

/// On a glibc Linux host with a static libc, install.sh builds through
/// scripts/release-build.sh with `+crt-static` for the host target (no dynamic loader at
/// every hook start) and installs from target/<host>/release; without libc.a it falls back
/// to a plain dynamic build and says so.
#[test]
fn install_sh_links_statically_where_glibc_allows() {
    let s = Sandbox::new();
    let (tools, target) = fake_cargo(&s);
    let libc_a = s.root().join("libc.a");
    for (name, body) in [
        ("rustc", "echo 'host: x86_64-unknown-linux-gnu'".to_string()),
        ("cc", format!("echo '{}'", libc_a.display())),
    ] {
        let p = tools.join(name);
        fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let install_into = |prefix: &Path| {
        let out = install_sh(&s, &tools, &target)
            .arg("--prefix")
            .arg(prefix)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        (out, fs::read_to_string(s.root().join("fable.log")).unwrap())
    };
    // No libc.a yet: dynamic, into target/release.
    let prefix = s.root().join("dyn");
    let (out, log) = install_into(&prefix);
    assert!(stderr_of(&out).contains("no static libc"), "{}", stderr_of(&out));
    assert!(!log.contains("crt-static"), "{log}");
    assert!(prefix.join("fable-evidence").is_file());
    // With libc.a: static, for the host target, installed from target/<host>/release.
    fs::write(&libc_a, b"").unwrap();
    fs::remove_dir_all(&target).unwrap();
    let prefix = s.root().join("static");
    let (_, log) = install_into(&prefix);
    let build = log.lines().rfind(|l| l.starts_with("cargo build")).unwrap();
    assert!(build.contains("--target x86_64-unknown-linux-gnu"), "{build}");
    assert!(build.contains("-C target-feature=+crt-static"), "{build}");
    assert!(!target.join("release").exists(), "built the dynamic set too");
    for b in ["fable"].iter().chain(HOOK_BINARIES.iter()) {
        assert!(prefix.join(b).is_file(), "{b} not installed from target/<host>/release");
    }
}

#[test]
fn install_sh_help_and_missing_cargo() {
    let s = Sandbox::new();
    let (tools, target) = fake_cargo(&s);
    let out = install_sh(&s, &tools, &target).arg("--help").output().unwrap();
    assert!(out.status.success());
    assert!(stdout_of(&out).contains("--prefix"));
    assert!(!s.root().join("fable.log").exists(), "--help must not build");

    let empty = s.root().join("empty");
    fs::create_dir_all(&empty).unwrap();
    let out = install_sh(&s, &empty, &target)
        .env("PATH", format!("{}:/usr/bin:/bin", empty.display()))
        .arg("--prefix")
        .arg(s.root().join("p"))
        .output()
        .unwrap();
    if std::process::Command::new("sh")
        .args(["-c", "PATH=/usr/bin:/bin command -v cargo"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return; // a system cargo exists: this machine cannot show the missing-cargo message
    }
    assert!(!out.status.success());
    assert!(stderr_of(&out).contains("cargo not found"), "{}", stderr_of(&out));
}

// ---------------------------------------------------------------------------------------
// Issue 15: whose entries, and dangling links. Issue 13 item 4: a clean uninstall.
// ---------------------------------------------------------------------------------------

/// Writes `v` exactly as fable renders it, so a round trip can be compared byte for byte.
fn write_rendered(path: &Path, v: &Value) -> Vec<u8> {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = format!("{}\n", serde_json::to_string_pretty(v).unwrap());
    fs::write(path, &text).unwrap();
    text.into_bytes()
}

fn is_symlink(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

#[test]
fn a_third_party_namesake_survives_install_and_uninstall_byte_identical() {
    let s = Sandbox::new();
    let third = json!({"type": "command", "command": "/opt/other/fable-close-guard", "timeout": 7});
    let mut doc = foreign_settings();
    doc["hooks"]["Stop"][0]["hooks"]
        .as_array_mut()
        .unwrap()
        .push(third.clone());
    let original = write_rendered(&s.settings(), &doc);

    let out = s.install().output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).contains("left /opt/other/fable-close-guard: not registered by fable"),
        "{}",
        stdout_of(&out)
    );
    let installed = s.read();
    assert_eq!(
        groups(&installed, "Stop")[0]["hooks"][1],
        third,
        "kept in place, as it was"
    );
    assert!(commands(&installed).iter().any(|c| c.ends_with(" # fable")));

    let out = s.fable().arg("uninstall").output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).contains("left /opt/other/fable-close-guard: not registered by fable"),
        "{}",
        stdout_of(&out)
    );
    assert_eq!(
        fs::read(s.settings()).unwrap(),
        original,
        "uninstall removed a third party's hook"
    );

    // The user can say it is fable's after all.
    s.fable()
        .args(["uninstall", "--bin-dir", "/opt/other"])
        .assert()
        .success();
    assert!(!commands(&s.read()).contains(&"/opt/other/fable-close-guard".to_string()));
}

#[test]
fn entries_written_before_the_marker_are_still_fables_by_their_folder() {
    let s = Sandbox::new();
    // What an older fable wrote: unmarked commands in the bin dir it installed to.
    let old = |bin: &str| {
        let p = s.bin_dir().join(bin);
        json!({"type": "command", "command": shell_words::quote(p.to_str().unwrap()), "timeout": 10})
    };
    let legacy = json!({"hooks": {
        "PostToolUse": [{"matcher": "Bash", "hooks": [old("fable-evidence")]}],
        "Stop": [{"hooks": [old("fable-close-guard")]}]
    }});
    write_rendered(&s.settings(), &legacy);
    // Installing from that folder again replaces them (no duplicates) ...
    s.install_ok();
    assert_eq!(commands(&s.read()).len(), 11);
    assert!(commands(&s.read()).iter().all(|c| c.ends_with(" # fable")));

    // ... and a folder recorded by an install elsewhere claims them at uninstall.
    write_rendered(&s.settings(), &legacy);
    s.fable().args(["uninstall"]).assert().success();
    assert!(commands(&s.read()).is_empty(), "{}", s.read());
}

#[test]
fn a_dangling_user_settings_link_stays_a_link_without_the_flag() {
    let s = Sandbox::new();
    let target = s.root().join("dotfiles/claude/settings.json");
    fs::create_dir_all(s.config()).unwrap();
    std::os::unix::fs::symlink(&target, s.settings()).unwrap();

    let out = s.install().output().unwrap();
    assert!(!out.status.success());
    let err = stderr_of(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "one clear line: {err}");
    for needle in [
        s.settings().to_str().unwrap(),
        target.to_str().unwrap(),
        "--follow-link",
    ] {
        assert!(err.contains(needle), "{needle} missing: {err}");
    }
    assert!(is_symlink(&s.settings()), "the link was replaced");
    assert!(
        !s.root().join("dotfiles").exists(),
        "something was created at the target"
    );
    assert!(!s.config().join("skills").exists());

    // Uninstall has nothing to remove and does not create anything either.
    s.fable().arg("uninstall").assert().success();
    assert!(is_symlink(&s.settings()) && !target.exists());
}

#[test]
fn with_follow_link_the_target_is_written_and_the_link_kept() {
    let s = Sandbox::new();
    let target = s.root().join("dotfiles/claude/settings.json");
    fs::create_dir_all(s.config()).unwrap();
    std::os::unix::fs::symlink(&target, s.settings()).unwrap();
    let out = s.install().arg("--follow-link").output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(is_symlink(&s.settings()));
    assert_eq!(fs::read_link(s.settings()).unwrap(), target);
    assert_eq!(groups(&read_json(&target), "PostToolUse").len(), 3);
    assert!(
        stdout_of(&out).contains(target.to_str().unwrap()),
        "{}",
        stdout_of(&out)
    );
    // fable created the target; uninstall removes it again and leaves the link as it found it.
    s.fable().arg("uninstall").assert().success();
    assert!(is_symlink(&s.settings()));
    assert!(!target.exists());
}

#[test]
fn a_read_only_settings_file_is_refused_and_says_so() {
    let s = Sandbox::new();
    s.write(&foreign_settings());
    fs::set_permissions(s.settings(), fs::Permissions::from_mode(0o444)).unwrap();
    let before = fs::read(s.settings()).unwrap();
    for args in [&["install"][..], &["uninstall"][..]] {
        let mut c = if args[0] == "install" {
            s.install()
        } else {
            let mut c = s.fable();
            c.args(args);
            c
        };
        let out = c.output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = stderr_of(&out);
        assert!(err.contains("read-only") && err.contains("chmod u+w"), "{err}");
        assert!(err.contains(s.settings().to_str().unwrap()), "{err}");
    }
    assert_eq!(fs::read(s.settings()).unwrap(), before);
    assert!(!s.config().join("settings.json.fable-backup").exists());
}

#[test]
fn uninstall_after_install_into_a_fresh_project_leaves_no_claude_folder() {
    let s = Sandbox::new();
    s.install_project().assert().success();
    // A second install that changes the file (an older Claude Code: no PostToolUseFailure)
    // makes fable write a backup beside the settings.
    s.fable()
        .args(["install", "--project", "--claude-version", "2.0.55", "--bin-dir"])
        .arg(s.bin_dir())
        .env("PATH", path_with(&s.bin_dir()))
        .assert()
        .success();
    let claude = s.project().join(".claude");
    assert!(claude.join("settings.json.fable-backup").is_file());

    let out = s
        .fable()
        .args(["uninstall", "--project", "--dry-run"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(claude.join("settings.json").is_file(), "dry run removed the file");
    assert!(stdout_of(&out).contains("fable created it"), "{}", stdout_of(&out));

    let out = s.fable().args(["uninstall", "--project"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        !claude.exists(),
        "left behind: {:?}",
        fs::read_dir(&claude).map(|d| d.count())
    );
    assert_eq!(fs::read_dir(s.project()).unwrap().count(), 0);

    // Keeping the skill at first keeps the record, so the folders still go later.
    s.install_project().assert().success();
    s.fable()
        .args(["uninstall", "--project", "--no-skill"])
        .assert()
        .success();
    assert!(claude.join("skills/fable/SKILL.md").is_file());
    s.fable().args(["uninstall", "--project"]).assert().success();
    assert!(!claude.exists());
}

#[test]
fn uninstall_keeps_the_users_project_files_and_moves_its_backup_out_of_the_project() {
    let s = Sandbox::new();
    let settings = s.project().join(".claude/settings.json");
    let original = write_rendered(&settings, &foreign_settings());
    fs::create_dir_all(s.project().join(".claude/skills/mine")).unwrap();
    s.install_project().assert().success();
    assert!(s.project().join(".claude/settings.json.fable-backup").is_file());

    let out = s.fable().args(["uninstall", "--project"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(fs::read(&settings).unwrap(), original);
    assert!(!s.project().join(".claude/settings.json.fable-backup").exists());
    assert!(
        s.project().join(".claude/skills/mine").is_dir(),
        "the user's folder stays"
    );
    assert!(!s.project().join(".claude/skills/fable").exists());
    // Says where the copy of the pre-uninstall file went: fable's user state.
    let text = stdout_of(&out);
    let line = text
        .lines()
        .find(|l| l.contains("previous settings kept as"))
        .unwrap_or_else(|| panic!("{text}"));
    let kept = PathBuf::from(line.rsplit(" as ").next().unwrap());
    assert!(kept.starts_with(s.state()), "{line}");
    assert!(kept.is_file());

    // --keep-backup keeps them beside the file.
    s.install_project().assert().success();
    s.fable()
        .args(["uninstall", "--project", "--keep-backup"])
        .assert()
        .success();
    assert!(s.project().join(".claude/settings.json.fable-backup").is_file());
}

#[test]
fn uninstall_purge_lists_then_removes_fables_user_state() {
    let s = Sandbox::new();
    s.install_ok();
    fs::create_dir_all(s.state().join("sessions")).unwrap();
    fs::write(s.state().join("sessions/abc"), "model").unwrap();
    fs::write(s.state().join("key"), [7u8; 32]).unwrap();
    fs::create_dir_all(s.fable_config()).unwrap();
    fs::write(s.fable_config().join("trusted.json"), "{\"v\":1,\"trusted\":[]}\n").unwrap();

    // --dry-run lists and removes nothing.
    let out = s.fable().args(["uninstall", "--purge", "--dry-run"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    for p in [s.state(), s.state().join("key"), s.fable_config().join("trusted.json")] {
        assert!(text.contains(p.to_str().unwrap()), "{} not listed: {text}", p.display());
    }
    assert!(stderr_of(&out).contains("unverifiable"), "{}", stderr_of(&out));
    assert!(s.state().join("key").is_file() && s.fable_config().join("trusted.json").is_file());
    assert_eq!(groups(&s.read(), "PostToolUse").len(), 3, "dry run uninstalled");

    let out = s
        .fable()
        .args(["uninstall", "--purge", "--dry-run", "--json"])
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).expect("only JSON on stdout");
    assert_eq!(
        r["purge"]["paths"],
        json!([s.state(), s.fable_config().join("trusted.json")])
    );
    assert_eq!(r["purge"]["removed"], Value::Null);
    assert!(s.state().is_dir());

    let out = s.fable().args(["uninstall", "--purge", "--yes"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let listed = text.find(s.state().to_str().unwrap()).expect("state folder listed");
    let done = text.find("purged").expect("says it purged");
    assert!(listed < done, "listed first: {text}");
    assert!(!s.state().exists(), "state folder left");
    assert!(!s.fable_config().exists(), "trust store left");
    assert!(
        !s.settings().exists(),
        "fable created the settings file and only its hooks were in it"
    );
}

#[test]
fn uninstall_purge_json_reports_what_it_removed() {
    let s = Sandbox::new();
    s.install_ok();
    let out = s
        .fable()
        .args(["uninstall", "--purge", "--yes", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let r: Value = serde_json::from_slice(&out.stdout).expect("only JSON on stdout");
    // The state folder, and $XDG_STATE_HOME above it: fable's install created that one too
    // (the record says so), and the purge left it empty.
    assert_eq!(r["purge"]["removed"], json!([s.state(), s.state().parent().unwrap()]));
    assert!(!s.state().exists());
    assert!(!s.root().join("state home").exists());
}

/// Every path under `root` with its bytes or link target: a picture of the disk.
fn snapshot(root: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let m = fs::symlink_metadata(&p).unwrap();
            let what = if m.file_type().is_symlink() {
                format!("-> {}", fs::read_link(&p).unwrap().display())
            } else if m.is_dir() {
                stack.push(p.clone());
                "dir".to_string()
            } else {
                format!("{:o} {:?}", m.permissions().mode(), fs::read(&p).unwrap())
            };
            out.push((p, what));
        }
    }
    out.sort();
    out
}

#[test]
fn install_sh_dry_run_with_the_real_fable_changes_nothing_on_disk() {
    let s = Sandbox::new();
    let (tools, target) = fake_cargo(&s);
    // A prefix holding the real fable: install.sh --dry-run runs its `install --dry-run`.
    let prefix = s.root().join("prefix");
    fs::create_dir_all(&prefix).unwrap();
    // isolation: not spawned here; install.sh starts it with the sandbox's HOME and XDG folders.
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fable"), prefix.join("fable")).unwrap();
    s.write(&foreign_settings());
    let before = snapshot(s.root());
    for extra in [&[][..], &["--project", "--dir"][..]] {
        let mut c = install_sh(&s, &tools, &target);
        c.arg("--prefix").arg(&prefix).arg("--dry-run").args(extra);
        if !extra.is_empty() {
            // Project settings are shared: the hooks are named by bare name, found on PATH.
            c.arg(s.project()).env(
                "PATH",
                format!("{}:{}:/usr/bin:/bin", tools.display(), prefix.display()),
            );
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert!(stdout_of(&out).contains("would register"), "{}", stdout_of(&out));
    }
    assert_eq!(snapshot(s.root()), before, "install.sh --dry-run changed the disk");
}

// ---------------------------------------------------------------------------------------
// Project scope is shared through git: no path of this machine in it.
// ---------------------------------------------------------------------------------------

/// Runs every command of `doc` through `sh -c` from `cwd` with `env`, as Claude Code runs
/// hooks, and checks each ran its own binary with no stray arguments.
fn run_all_through_sh(doc: &Value, cwd: &Path, env: &[(&str, String)]) {
    let cmds = commands(doc);
    assert_eq!(cmds.len(), 11, "{doc}");
    for c in cmds {
        let run = || {
            std::process::Command::new("sh")
                .arg("-c")
                .arg(&c)
                .env_clear()
                .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
                .current_dir(cwd)
                .output()
                .unwrap()
        };
        // The scripts were just written: a process another test thread forked at that
        // moment holds the write handle until it execs, and exec then fails with
        // ETXTBSY. Not the installer's doing: try again.
        let mut out = run();
        for _ in 0..20 {
            if out.status.success() || !stderr_of(&out).contains("Text file busy") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
            out = run();
        }
        assert!(out.status.success(), "`{c}` failed: {}", stderr_of(&out));
        let name = Path::new(&program(&c))
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(stdout_of(&out), format!("ran {name} 0\n"), "{c}");
    }
}

#[test]
fn project_scope_names_hooks_on_path_by_bare_name() {
    let s = Sandbox::new();
    let out = s.install_project().output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stdout_of(&out).contains("by bare name"), "{}", stdout_of(&out));
    let file = s.project().join(".claude/settings.json");
    let text = fs::read_to_string(&file).unwrap();
    for private in [s.home(), s.bin_dir(), s.root().to_path_buf()] {
        assert!(
            !text.contains(private.to_str().unwrap()),
            "{} leaked into {text}",
            private.display()
        );
    }
    let doc = read_json(&file);
    for c in commands(&doc) {
        assert!(HOOK_BINARIES.iter().any(|b| c == format!("{b} # fable")), "{c}");
    }
    // A teammate with the binaries on PATH runs them from anywhere.
    let elsewhere = s.root().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    run_all_through_sh(&doc, &elsewhere, &[("PATH", path_with(&s.bin_dir()))]);
    // Still fable's: re-install is byte-identical and uninstall removes every entry.
    s.install_project().assert().success();
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
    s.fable().args(["uninstall", "--project"]).assert().success();
    assert!(!file.exists(), "uninstall left {file:?}");
}

#[test]
fn project_scope_runs_a_vendored_build_from_claude_project_dir() {
    let s = Sandbox::new();
    let vendored = s.project().join("target dir").join("release");
    s.make_bin_dir(&vendored);
    let install_vendored = || {
        let mut c = s.fable();
        c.args(["install", "--project", "--claude-version", "2.1.332", "--bin-dir"])
            .arg(&vendored);
        c
    };
    let out = install_vendored().output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let file = s.project().join(".claude/settings.json");
    let text = fs::read_to_string(&file).unwrap();
    assert!(!text.contains(s.root().to_str().unwrap()), "{text}");
    let doc = read_json(&file);
    for c in commands(&doc) {
        assert!(
            c.starts_with("\"$CLAUDE_PROJECT_DIR/target dir/release/fable-") && c.ends_with("\" # fable"),
            "{c}"
        );
    }
    // A teammate's clone somewhere else: the hooks follow CLAUDE_PROJECT_DIR.
    let clone = s.root().join("their clone");
    s.make_bin_dir(&clone.join("target dir/release"));
    run_all_through_sh(
        &doc,
        s.root(),
        &[
            ("PATH", "/usr/bin:/bin".to_string()),
            ("CLAUDE_PROJECT_DIR", clone.display().to_string()),
        ],
    );
    install_vendored().assert().success();
    assert_eq!(fs::read_to_string(&file).unwrap(), text, "re-install changed the file");
    s.fable().args(["uninstall", "--project"]).assert().success();
    assert!(!file.exists());
}

#[test]
fn project_scope_refuses_binaries_neither_on_path_nor_inside_the_project() {
    let s = Sandbox::new();
    for dry in [true, false] {
        let mut c = s.install();
        c.arg("--project");
        if dry {
            c.arg("--dry-run");
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stdout_of(&out));
        let err = stderr_of(&out);
        assert!(
            err.contains("shared") && err.contains("PATH") && err.contains("--local"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(!s.project().join(".claude").exists(), "refused, yet wrote");
    }
    // Local scope is this user's own: absolute paths are fine there.
    s.install().arg("--local").assert().success();
    let doc = read_json(&s.project().join(".claude/settings.local.json"));
    assert!(commands(&doc).iter().all(|c| c.contains(s.bin_dir().to_str().unwrap())));
}
