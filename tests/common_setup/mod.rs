//! Shared set-up for the `fable install` / `uninstall` / `doctor` integration tests: a
//! temporary HOME, an opted-in project (`.git/` and `.fable/`), a bin dir holding the
//! freshly built hook binaries, and a fake `claude` that reports 2.1.332. `fable` runs in
//! a cleared environment (`tests/isolated`), so nothing reaches the real user's settings
//! or state. Its paths hold spaces on purpose: every command must quote them.
#![allow(dead_code)]

#[path = "../isolated/mod.rs"]
pub mod isolated;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

pub use fable::setup::registrations::HOOK_BINARIES;

pub struct Setup {
    tmp: tempfile::TempDir,
}

/// What the bin dir holds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Bins {
    /// Small shell scripts that read the payload and answer nothing (fast to hash: the
    /// install records each binary's SHA-256, and a debug build of a hook is 60 MB).
    Scripts,
    /// Links to the freshly built hook binaries.
    Links,
    /// Copies of them (a test may overwrite one).
    Copies,
}

impl Setup {
    /// The sandbox with script hooks.
    pub fn new() -> Setup {
        Setup::with(Bins::Scripts)
    }

    pub fn with(bins: Bins) -> Setup {
        let s = Setup {
            tmp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(s.home()).unwrap();
        fs::create_dir_all(s.project().join(".git")).unwrap();
        fs::create_dir_all(s.project().join(".fable")).unwrap();
        fs::create_dir_all(s.bins()).unwrap();
        for b in HOOK_BINARIES {
            let at = s.bins().join(b);
            match bins {
                Bins::Scripts => write_script(&at, "cat >/dev/null\n"),
                // isolation: not spawned here; only the doctor's sandboxed probe runs them.
                Bins::Links => std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin(b), &at).unwrap(),
                // isolation: not spawned here; only the doctor's sandboxed probe runs them.
                Bins::Copies => drop(fs::copy(assert_cmd::cargo::cargo_bin(b), &at).unwrap()),
            }
        }
        write_script(&s.root().join("claude"), "echo '2.1.332 (Claude Code)'\n");
        s
    }

    pub fn root(&self) -> &Path {
        self.tmp.path()
    }
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    pub fn project(&self) -> PathBuf {
        self.root().join("my project")
    }
    pub fn bins(&self) -> PathBuf {
        self.root().join("bin dir")
    }
    /// `PATH` with the bin dir first.
    pub fn path(&self) -> String {
        format!("{}:/usr/bin:/bin", self.bins().display())
    }
    /// `$XDG_STATE_HOME/fable` as `tests/isolated` sets it.
    pub fn state(&self) -> PathBuf {
        self.home().join("state/fable")
    }
    pub fn user_settings(&self) -> PathBuf {
        self.home().join(".claude/settings.json")
    }
    pub fn project_settings(&self) -> PathBuf {
        self.project().join(".claude/settings.json")
    }

    /// `fable` in the project, isolated in HOME, the bin dir on PATH.
    pub fn fable(&self) -> assert_cmd::Command {
        let mut c = isolated::cmd("fable", &self.home());
        c.env("PATH", self.path())
            .env("FABLE_CLAUDE_BIN", self.root().join("claude"))
            .current_dir(self.project());
        c
    }

    /// `fable ARGS`, its output.
    pub fn run(&self, args: &[&str]) -> Output {
        self.fable().args(args).output().unwrap()
    }

    /// `fable ARGS` at a terminal (a pty from util-linux `script`), `typed` being what the
    /// user types; `unset` names variables of the isolated environment to leave out.
    pub fn at_terminal(&self, args: &[&str], typed: &str, unset: &[&str]) -> Output {
        use std::io::Write;
        // isolation: the environment is cleared and HOME set below (vars()).
        let fable = assert_cmd::cargo::cargo_bin("fable");
        let mut line = shell_words::quote(&fable.to_string_lossy()).into_owned();
        for a in args {
            line.push(' ');
            line.push_str(&shell_words::quote(a));
        }
        let mut c = std::process::Command::new("script");
        c.env_clear()
            .envs(
                isolated::vars(&self.home())
                    .into_iter()
                    .filter(|(k, _)| !unset.contains(k)),
            )
            .env("PATH", self.path())
            .env("FABLE_CLAUDE_BIN", self.root().join("claude"))
            .current_dir(self.project())
            .args(["-qec", &line, "/dev/null"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().expect("util-linux `script` runs");
        child.stdin.take().unwrap().write_all(typed.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }

    /// A fable plugin folder as `claude --plugin-dir` loads it: the repository's
    /// `hooks/hooks.json`, its hooks built in `target/release` (script hooks that answer).
    pub fn plugin(&self) -> PathBuf {
        self.plugin_at(&self.root().join("fable-plugin"))
    }

    /// The plugin folder at `p` (a checkout of fable built in place, say).
    pub fn plugin_at(&self, p: &Path) -> PathBuf {
        let p = p.to_path_buf();
        fs::create_dir_all(p.join(".claude-plugin")).unwrap();
        fs::write(
            p.join(".claude-plugin/plugin.json"),
            r#"{"name":"fable","version":"0.1.0"}"#,
        )
        .unwrap();
        fs::create_dir_all(p.join("hooks")).unwrap();
        let hooks_json = Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/hooks.json");
        fs::copy(hooks_json, p.join("hooks/hooks.json")).unwrap();
        fs::create_dir_all(p.join("target/release")).unwrap();
        for b in HOOK_BINARIES {
            write_script(&p.join("target/release").join(b), "cat >/dev/null\n");
        }
        p
    }

    /// `fable install --no-skill ARGS` run with another HOME, so the installer cannot see
    /// the user scope's registration and refuse a second one: how a test writes a double
    /// registration (project settings land in the project all the same). Asserts success.
    pub fn install_past_the_refusal(&self, args: &[&str]) {
        let out = self
            .fable()
            .env("HOME", self.root().join("elsewhere"))
            .args(["install", "--no-skill", "--bin-dir"])
            .arg(self.bins())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }

    /// `fable install ARGS` from the bin dir (the fake `claude` says 2.1.332); asserts success.
    pub fn install(&self, args: &[&str]) -> Output {
        let out = self
            .fable()
            .args(["install", "--bin-dir"])
            .arg(self.bins())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "install {args:?}: {}", text(&out.stderr));
        out
    }
}

/// An executable `#!/bin/sh` script with `body`.
pub fn write_script(at: &Path, body: &str) {
    fs::write(at, format!("#!/bin/sh\n{body}")).unwrap();
    fs::set_permissions(at, fs::Permissions::from_mode(0o755)).unwrap();
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The fable hook commands in a settings file (none when it is missing).
pub fn fable_commands(settings: &Path) -> Vec<String> {
    let doc: serde_json::Value = fs::read_to_string(settings)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    let mut out = Vec::new();
    for groups in doc["hooks"].as_object().into_iter().flat_map(|m| m.values()) {
        for g in groups.as_array().into_iter().flatten() {
            for h in g["hooks"].as_array().into_iter().flatten() {
                let c = h["command"].as_str().unwrap_or("");
                if c.contains("fable-") {
                    out.push(c.to_string());
                }
            }
        }
    }
    out
}
