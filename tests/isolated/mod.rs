//! The way integration tests start fable's binaries: from a cleared environment, so
//! HOME, the state folder (sealing key, session state, install backups) and the config
//! folder (the trust list) are the test's own temp folders, and nothing the developer's
//! shell exports (`XDG_*`, `FABLE_CONFIG_DIR`, `CLAUDE_CONFIG_DIR`, `CLAUDE_PROJECT_DIR`)
//! reaches the real user state. Setting HOME alone is not enough: an exported
//! `XDG_STATE_HOME` still wins over it. `tests/cli_conventions.rs` checks that every test
//! naming one of our binaries clears the environment like this.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::Path;

/// The whole environment of a child: PATH and TMPDIR from the test's own, the rest
/// inside `home` (laid out as `tests/common_discipline`'s `Proj` lays it out).
pub fn vars(home: &Path) -> Vec<(&'static str, OsString)> {
    let mut v = vec![
        (
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
        ),
        ("HOME", home.into()),
        ("XDG_CONFIG_HOME", home.join("xdg-config").into()),
        ("XDG_STATE_HOME", home.join("state").into()),
        ("FABLE_CONFIG_DIR", home.join("cfg").into()),
    ];
    if let Some(t) = std::env::var_os("TMPDIR") {
        v.push(("TMPDIR", t));
    }
    v
}

/// `assert_cmd` command for one of our binaries, isolated in `home`.
pub fn cmd(bin: &str, home: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin(bin).unwrap();
    c.env_clear().envs(vars(home));
    c
}

/// `std::process` command (for pipes and concurrent children), isolated in `home`.
pub fn std_cmd(bin: &str, home: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin(bin));
    c.env_clear().envs(vars(home));
    c
}

/// `fable evidence import --seal <file>` as a user runs it: at a terminal (a pty from
/// util-linux `script`), typing `seal` at the prompt. Without a terminal it is refused.
pub fn seal_import(home: &Path, dir: &Path, file: &str) -> std::process::Output {
    use std::io::Write;
    let fable = assert_cmd::cargo::cargo_bin("fable");
    let line = format!(
        "{} evidence import --seal {}",
        shell_words::quote(&fable.to_string_lossy()),
        shell_words::quote(file)
    );
    let mut c = std::process::Command::new("script");
    c.env_clear()
        .envs(vars(home))
        .current_dir(dir)
        .args(["-qec", &line, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("util-linux `script` runs");
    child.stdin.take().unwrap().write_all(b"seal\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "sealed import failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
