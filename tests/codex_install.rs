//! `fable install|uninstall|doctor --host codex` on a private HOME/CODEX_HOME: the Codex
//! `hooks.json`, the trust hashes in `config.toml` (pinned against the harness's
//! recomputation of Codex 0.171's hashing), and the doctor's untrusted → clean.

mod isolated;

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

struct Env {
    _t: tempfile::TempDir,
    home: PathBuf,
    codex: PathBuf,
    proj: PathBuf,
}

fn env() -> Env {
    let t = tempfile::tempdir().unwrap();
    let home = fs::canonicalize(t.path()).unwrap().join("home");
    let proj = fs::canonicalize(t.path()).unwrap().join("proj");
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(proj.join(".git")).unwrap();
    Env {
        codex: home.join(".codex"),
        home,
        proj,
        _t: t,
    }
}

fn bin_dir() -> PathBuf {
    // isolation: not spawned (only its folder is named)
    assert_cmd::cargo::cargo_bin("fable").parent().unwrap().to_path_buf()
}

fn fable(e: &Env, args: &[&str]) -> Output {
    isolated::cmd("fable", &e.home)
        .env("CODEX_HOME", &e.codex)
        .current_dir(&e.proj)
        .args(args)
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn install(e: &Env, extra: &[&str]) -> Output {
    let b = bin_dir();
    let mut args = vec!["install", "--host", "codex", "--bin-dir", b.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = fable(e, &args);
    assert!(o.status.success(), "{}", out(&o));
    o
}

fn hooks(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn install_writes_the_codex_table_and_is_idempotent() {
    let e = env();
    install(&e, &[]);
    let file = e.codex.join("hooks.json");
    let first = fs::read(&file).unwrap();
    let doc = hooks(&file);
    let want = fable::setup::codex_hooks::codex_hooks(&bin_dir());
    assert_eq!(doc["hooks"], want["hooks"], "install registers exactly codex_hooks()");
    let o = install(&e, &[]);
    assert!(out(&o).contains("already up to date"), "{}", out(&o));
    assert_eq!(fs::read(&file).unwrap(), first, "byte-identical");
    assert!(
        !e.codex.join("hooks.json.fable-backup").exists(),
        "nothing changed, no backup"
    );
}

#[test]
fn the_users_own_hooks_are_kept_and_the_old_file_backed_up() {
    let e = env();
    fs::create_dir_all(&e.codex).unwrap();
    let mine = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/usr/local/bin/my-audit","timeout":5}]}]}}"#;
    fs::write(e.codex.join("hooks.json"), mine).unwrap();
    install(&e, &["--trust"]);
    let doc = hooks(&e.codex.join("hooks.json"));
    let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["hooks"][0]["command"], "/usr/local/bin/my-audit");
    assert_eq!(pre.len(), 2);
    assert_eq!(
        fs::read_to_string(e.codex.join("hooks.json.fable-backup")).unwrap(),
        mine
    );
    // fable's PreToolUse group is the second: its trust key says so; the user's is not trusted by fable.
    let config = fs::read_to_string(e.codex.join("config.toml")).unwrap();
    assert!(config.contains(":pre_tool_use:1:0\"]"), "{config}");
    assert!(!config.contains(":pre_tool_use:0:0\"]"), "{config}");
}

#[test]
fn refuses_a_linked_hooks_file() {
    let e = env();
    fs::create_dir_all(&e.codex).unwrap();
    let elsewhere = e.home.join("elsewhere.json");
    fs::write(&elsewhere, "{}").unwrap();
    std::os::unix::fs::symlink(&elsewhere, e.codex.join("hooks.json")).unwrap();
    let b = bin_dir();
    let o = fable(&e, &["install", "--host", "codex", "--bin-dir", b.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(out(&o).contains("symbolic link"), "{}", out(&o));
    assert_eq!(fs::read_to_string(&elsewhere).unwrap(), "{}");
}

#[test]
fn trust_hashes_equal_the_documented_computation() {
    let e = env();
    // The vector was computed with the harness's `trust_hooks.py --method compute` for
    // `/opt/fable/bin/fable-log-guard --host codex # fable` (PreToolUse, matcher
    // `Bash|apply_patch`, timeout 10) and `/opt/fable/bin/fable-close-guard --host codex # fable` (Stop, 180).
    let o = fable(
        &e,
        &["install", "--host", "codex", "--bin-dir", "/opt/fable/bin", "--trust"],
    );
    assert!(o.status.success(), "{}", out(&o));
    let config = fs::read_to_string(e.codex.join("config.toml")).unwrap();
    let key = |label: &str| {
        format!(
            "[hooks.state.\"{}:{label}:0:0\"]\ntrusted_hash = ",
            e.codex.join("hooks.json").display()
        )
    };
    assert!(
        config.contains(&format!(
            "{}\"sha256:751098b595827b0a6968988c42ef1fb118f236083eddaad0f9645e59914a77a9\"",
            key("pre_tool_use")
        )),
        "{config}"
    );
    assert!(
        config.contains(&format!(
            "{}\"sha256:2b74335a834cca30f4adf516c646aed43ee0c7239d10bc5db6e97fd1ffefefe4\"",
            key("stop")
        )),
        "{config}"
    );
}

#[test]
fn doctor_reports_untrusted_then_clean_after_trust_then_changed() {
    let e = env();
    let o = fable(&e, &["doctor", "--host", "codex"]);
    assert!(!o.status.success());
    assert!(out(&o).contains("no fable hooks for Codex"), "{}", out(&o));
    install(&e, &[]);
    let o = fable(&e, &["doctor", "--host", "codex"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = out(&o);
    assert!(
        text.contains("8 of fable's Codex hooks") && text.contains("not trusted"),
        "{text}"
    );
    assert!(
        text.contains("--trust") && text.contains("/hooks"),
        "the fix is named: {text}"
    );
    fs::create_dir_all(&e.codex).unwrap();
    fs::write(e.codex.join("config.toml"), "# mine\nmodel = \"o3\"\n").unwrap();
    install(&e, &["--trust"]);
    let o = fable(&e, &["doctor", "--host", "codex"]);
    assert!(o.status.success(), "{}", out(&o));
    assert!(out(&o).contains("no problems found"));
    let config = fs::read_to_string(e.codex.join("config.toml")).unwrap();
    assert!(config.starts_with("# mine\nmodel = \"o3\"\n"), "{config}");
    // The binaries move: the commands change, so do the hashes Codex checks.
    let o = fable(&e, &["install", "--host", "codex", "--bin-dir", "/opt/elsewhere"]);
    assert!(o.status.success());
    let o = fable(&e, &["doctor", "--host", "codex"]);
    let text = out(&o);
    assert!(!o.status.success());
    assert!(text.contains("changed since they were trusted"), "{text}");
}

#[test]
fn project_scope_needs_the_project_trusted_too_and_uninstall_cleans_up() {
    let e = env();
    install(&e, &["--project"]);
    let file = e.proj.join(".codex/hooks.json");
    assert!(file.is_file());
    let o = fable(&e, &["doctor", "--host", "codex"]);
    let text = out(&o);
    assert!(text.contains("only for a trusted project"), "{text}");
    install(&e, &["--project", "--trust"]);
    let config = fs::read_to_string(e.codex.join("config.toml")).unwrap();
    assert!(
        config.contains(&format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"",
            e.proj.display()
        )),
        "{config}"
    );
    let o = fable(&e, &["doctor", "--host", "codex"]);
    assert!(o.status.success(), "{}", out(&o));
    let o = fable(&e, &["uninstall", "--host", "codex", "--project"]);
    assert!(o.status.success(), "{}", out(&o));
    assert!(!file.exists(), "fable created it and nothing else is in it");
    let config = fs::read_to_string(e.codex.join("config.toml")).unwrap();
    assert!(!config.contains("trusted_hash"), "{config}");
    // The user's choice to trust the project stays: it was not only fable's to make.
    assert!(config.contains("trust_level"));
}
