//! The set-up commands' rough edges, through the real binary: a missing or file `--project`
//! folder exits 2 with the documented message; `fable uninstall` leaves no backup of
//! fable's own hooks beside the settings file (and keeps, by name, one that holds the
//! user's settings); `--purge` lists, asks (or needs `--yes`), and removes the folders it
//! leaves empty that fable created, never `~/.config`.

mod common_setup;

use common_setup::*;
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn backup_beside(settings: &Path) -> PathBuf {
    let mut name = settings.file_name().unwrap().to_os_string();
    name.push(".fable-backup");
    settings.with_file_name(name)
}

fn write_json(p: &Path, v: &Value) {
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, serde_json::to_string_pretty(v).unwrap() + "\n").unwrap();
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn a_missing_or_file_project_folder_exits_2_with_the_documented_message() {
    let s = Setup::new();
    let missing = s.root().join("missing");
    let file = s.root().join("a file");
    fs::write(&file, "x").unwrap();
    let m = missing.to_str().unwrap();
    let f = file.to_str().unwrap();
    for cmd in [
        &["install", "--project"][..],
        &["uninstall", "--project"],
        &["install", "--scope", "local", "--project"],
        &["uninstall", "--scope", "user", "--project"],
        &["doctor", "--project"],
        &["init", "--project"],
    ] {
        let out = s.fable().args(cmd).arg(m).output().unwrap();
        assert_eq!(code(&out), 2, "{cmd:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stderr), format!("fable: no such directory: {m}\n"), "{cmd:?}");
        let out = s.fable().args(cmd).arg(f).output().unwrap();
        assert_eq!(code(&out), 2, "{cmd:?}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stderr),
            format!("fable: not a directory: {f} (pass the project folder, not a file in it)\n"),
            "{cmd:?}"
        );
    }
    // Under --json the error is JSON on stdout too.
    let out = s.fable().args(["install", "--json", "--project", m]).output().unwrap();
    assert_eq!(code(&out), 2);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"], "no_such_directory");
    // Nothing was written anywhere.
    assert!(!s.home().join(".claude").exists());
    assert!(!missing.exists());
}

#[test]
fn uninstall_leaves_no_backup_of_fables_hooks_in_user_or_project_settings() {
    for scope in ["--user", "--local"] {
        let s = Setup::new();
        let settings = if scope == "--user" {
            s.user_settings()
        } else {
            s.project().join(".claude/settings.local.json")
        };
        let mine = json!({"model": "sonnet", "permissions": {"allow": ["Bash(ls)"]}});
        write_json(&settings, &mine);
        s.install(&[scope]);
        // A second install that changes the file: its backup holds fable's hooks.
        s.install(&[scope, "--claude-version", "2.0.55"]);
        let beside = backup_beside(&settings);
        assert!(fable_commands(&beside).len() > 3, "the backup holds fable's hooks");

        let out = s.run(&["uninstall", scope]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let said = text(&out.stdout);
        assert_eq!(read_json(&settings), mine, "{scope}: the user's settings are back");
        assert!(!beside.exists(), "{scope}: {said}");
        assert!(
            said.contains(&format!(
                "removed fable's backup {}: the settings file now, plus fable's hooks",
                beside.display()
            )),
            "{said}"
        );
        // The undo of this uninstall is in fable's user state, and the output says where.
        let kept = said
            .lines()
            .find_map(|l| l.strip_prefix("fable: previous settings kept as "))
            .unwrap_or_else(|| panic!("{said}"));
        assert!(Path::new(kept).starts_with(s.state()), "{kept}");
        // No fable file is left beside the settings.
        let left: Vec<String> = fs::read_dir(settings.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("fable"))
            .collect();
        assert!(left.is_empty(), "{scope}: {left:?}");
    }
}

#[test]
fn a_backup_holding_the_users_earlier_settings_is_kept_and_named() {
    let s = Setup::new();
    write_json(&s.user_settings(), &json!({"model": "sonnet"}));
    s.install(&[]);
    let beside = backup_beside(&s.user_settings());
    // The user changes their settings while fable is installed.
    let mut doc = read_json(&s.user_settings());
    doc["model"] = json!("opus");
    write_json(&s.user_settings(), &doc);

    // --json names it with the reason (a dry run: nothing changes).
    let out = s.run(&["uninstall", "--json", "--dry-run"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["backups_kept"][0]["path"], json!(beside), "{v}");

    let out = s.run(&["uninstall"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(read_json(&s.user_settings()), json!({"model": "opus"}));
    assert_eq!(read_json(&beside), json!({"model": "sonnet"}), "the user's data stays");
    let said = text(&out.stdout);
    assert!(
        said.contains(&format!(
            "backup kept: {}: it holds settings that differ",
            beside.display()
        )),
        "{said}"
    );
}

#[test]
fn purge_without_a_terminal_needs_yes_and_changes_nothing() {
    let s = Setup::new();
    s.install(&[]);
    fs::write(s.state().join("key"), [7u8; 32]).unwrap();
    let before = fs::read(s.user_settings()).unwrap();
    let out = s.run(&["uninstall", "--purge"]);
    assert_eq!(code(&out), 2, "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("--yes") && err.contains("nothing was changed"), "{err}");
    // It listed what it would delete, the key by name.
    let said = text(&out.stdout);
    assert!(
        said.contains(&format!("{} (the sealing key", s.state().join("key").display())),
        "{said}"
    );
    assert_eq!(
        fs::read(s.user_settings()).unwrap(),
        before,
        "the hooks are still registered"
    );
    assert!(s.state().join("key").is_file());
    let out = s.run(&["uninstall", "--purge", "--json"]);
    assert_eq!(code(&out), 2);
    let v: Value = serde_json::from_slice(&out.stdout).expect("only JSON on stdout");
    assert_eq!(v["error"], "needs_yes");

    let out = s.run(&["uninstall", "--purge", "--yes"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!s.state().exists());
    assert!(fable_commands(&s.user_settings()).is_empty());
}

#[test]
fn purge_at_a_terminal_asks_and_only_yes_deletes() {
    let s = Setup::new();
    s.install(&[]);
    fs::write(s.state().join("key"), [7u8; 32]).unwrap();
    for typed in ["\n", "n\n"] {
        let out = s.at_terminal(&["uninstall", "--purge"], typed, &[]);
        let said = text(&out.stdout);
        assert_eq!(code(&out), 1, "{said}");
        assert!(said.contains("[y/N]") && said.contains("purge cancelled"), "{said}");
        assert!(s.state().join("key").is_file(), "{typed:?}");
        assert_eq!(fable_commands(&s.user_settings()).len(), 11, "nothing changed");
    }
    let out = s.at_terminal(&["uninstall", "--purge"], "y\n", &[]);
    let said = text(&out.stdout);
    assert_eq!(code(&out), 0, "{said}");
    let listed = said.find("the sealing key").expect("the key is listed");
    let asked = said.find("[y/N]").unwrap();
    assert!(listed < asked, "listed before asking: {said}");
    assert!(!s.state().exists(), "{said}");
}

#[test]
fn purge_removes_the_folders_fable_created_and_leaves_the_users() {
    // The XDG defaults: ~/.local/state/fable and ~/.config/fable.
    let xdg = ["XDG_STATE_HOME", "XDG_CONFIG_HOME", "FABLE_CONFIG_DIR"];
    for local_existed in [false, true] {
        let s = Setup::new();
        let home = s.home();
        fs::create_dir_all(home.join(".config/other-tool")).unwrap();
        if local_existed {
            fs::create_dir_all(home.join(".local/bin")).unwrap();
        }
        let mut c = s.fable();
        for k in xdg {
            c.env_remove(k);
        }
        c.args(["install", "--claude-version", "2.1.332", "--bin-dir"])
            .arg(s.bins())
            .assert()
            .success();
        assert!(home.join(".local/state/fable/installs.json").is_file());
        fs::create_dir_all(home.join(".config/fable")).unwrap();
        fs::write(home.join(".config/fable/trusted.json"), "{\"v\":1,\"trusted\":[]}\n").unwrap();

        let out = s.at_terminal(&["uninstall", "--purge"], "y\n", &xdg);
        assert_eq!(code(&out), 0, "{}", text(&out.stdout));
        assert!(
            !home.join(".local/state").exists(),
            "fable created it: {}",
            text(&out.stdout)
        );
        assert_eq!(home.join(".local").exists(), local_existed, "{}", text(&out.stdout));
        assert!(!home.join(".config/fable").exists());
        assert!(home.join(".config/other-tool").is_dir(), "~/.config is never fable's");
        assert!(!home.join(".claude/settings.json").exists(), "fable created it");
    }
}

#[test]
fn a_committed_giant_backup_is_kept_unread_and_named() {
    let s = Setup::new();
    s.install(&["--local"]);
    let beside = backup_beside(&s.project().join(".claude/settings.local.json"));
    fs::write(&beside, vec![b' '; 2 << 20]).unwrap();
    let out = s.run(&["uninstall", "--local"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(beside.is_file());
    assert!(
        text(&out.stdout).contains("too large to be a backup fable wrote"),
        "{}",
        text(&out.stdout)
    );
}

/// A hook that looks like fable's but is not (another folder, no `# fable` mark) is left
/// and named; its path comes from a settings file anyone may have written, so the line
/// goes through the sanitiser: no raw ESC, BEL or bidi override reaches the terminal.
#[test]
fn a_left_foreign_hook_is_named_without_raw_control_characters() {
    let s = Setup::new();
    let evil = "/opt/x\u{1b}]52;c;aGk=\u{7}\u{202e}y/fable-evidence";
    write_json(
        &s.user_settings(),
        &json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": evil}]}]}}),
    );
    for args in [&["install", "--no-skill", "--bin-dir"][..], &["uninstall", "--bin-dir"]] {
        let out = s.fable().args(args).arg(s.bins()).output().unwrap();
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(all.contains("fable: left /opt/x"), "{args:?}: {all}");
        assert!(
            !all.contains('\u{1b}') && !all.contains('\u{7}') && !all.contains('\u{202e}'),
            "{args:?}: {all:?}"
        );
    }
}
