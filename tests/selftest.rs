//! `fable selftest` driven as a user runs it: the real `fable` binary, the pinned Claude
//! Code CLI (found like the end-to-end tests find it, counted in their tally), the
//! cargo-built hooks as `--bin-dir`. Green on a working build; red, naming the hook, when
//! `fable-close-guard` is missing from the bin dir or not executable; the user's
//! `~/.claude/settings.json` byte-identical; a clear message and exit 2 without a CLI.

mod isolated;
mod support;

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use support::harness::{available, bin_dir};

const NPM: &str = "npm install -g @anthropic-ai/claude-code";

/// `fable selftest <args>` with HOME = `home` and TMPDIR = `tmp` (where the run's folder
/// goes), from a cleared environment.
fn selftest(home: &Path, tmp: &Path, args: &[&str]) -> Output {
    let mut c = isolated::std_cmd("fable", home);
    c.env("TMPDIR", tmp).arg("selftest").args(args);
    c.output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file under `dir` with its bytes, sorted: what "untouched" compares.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// A HOME holding a user's own settings (their hook, odd spacing: any rewrite shows).
fn user_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/settings.json"),
        "{ \"hooks\": {\"Stop\": [ {\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/bin/true\"}]} ]},\n  \"model\":\"sonnet\" }\n",
    )
    .unwrap();
    home
}

fn args<'a>(claude: &'a Path, bins: &'a Path) -> Vec<&'a str> {
    vec![
        "--claude",
        claude.to_str().unwrap(),
        "--bin-dir",
        bins.to_str().unwrap(),
    ]
}

/// The `✓`/`✗` lines of a text report.
fn check_lines(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| l.starts_with("✓ ") || l.starts_with("✗ "))
        .collect()
}

/// A bin dir with every hook of the build linked in, except `leave_out`.
fn bin_dir_without(leave_out: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(bin_dir()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("fable-") && !name.ends_with(".d") && name != leave_out {
            std::os::unix::fs::symlink(e.path(), d.path().join(&name)).unwrap();
        }
    }
    d
}

#[test]
fn green_with_the_pinned_cli_and_the_user_settings_untouched() {
    let Some(claude) = available() else { return };
    let (home, tmp) = (user_home(), tempfile::tempdir().unwrap());
    let before = tree(home.path());
    let bins = bin_dir();
    let o = selftest(home.path(), tmp.path(), &args(&claude, &bins));
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let lines = check_lines(&out);
    assert_eq!(lines.len(), 6, "{out}");
    assert!(lines.iter().all(|l| l.starts_with("✓ ")), "{out}");
    assert!(out.contains("6 of 6 checks passed"), "{out}");
    assert!(out.contains("isolation: "), "{out}");
    assert!(
        out.contains("`sh ./selftest-fail.sh` logged with exit 3") && out.contains("`sh ./check.sh` has no run"),
        "the lines quote what the run showed: {out}"
    );
    assert!(err.contains("fable selftest: running"), "a progress line first: {err}");
    assert_eq!(
        tree(home.path()),
        before,
        "HOME, settings.json included, byte-identical"
    );
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "a green run leaves no folder behind"
    );
}

#[test]
fn json_parses_and_agrees_with_the_text_run() {
    let Some(claude) = available() else { return };
    let (home, tmp) = (user_home(), tempfile::tempdir().unwrap());
    let bins = bin_dir();
    let text = selftest(home.path(), tmp.path(), &args(&claude, &bins));
    let mut a = args(&claude, &bins);
    a.push("--json");
    let j = selftest(home.path(), tmp.path(), &a);
    assert_eq!(j.status.code(), text.status.code(), "{}", stdout(&j));
    assert!(stderr(&j).is_empty(), "no progress line under --json: {}", stderr(&j));
    let doc: Value = serde_json::from_str(&stdout(&j)).expect("one JSON document");
    assert_eq!(doc["ok"], true, "{doc:#}");
    let version = doc["claude"]["version"].as_str().unwrap_or_default();
    assert!(
        stdout(&text).starts_with(&format!("fable selftest: claude {version} at ")) && version.contains('.'),
        "the version both reports read from `claude --version`: {doc:#}"
    );
    assert!(doc["isolation"].as_str().is_some_and(|s| !s.is_empty()), "{doc:#}");
    let checks = doc["checks"].as_array().unwrap();
    let text_out = stdout(&text);
    let lines = check_lines(&text_out);
    assert_eq!(checks.len(), lines.len(), "{doc:#}\n{text_out}");
    for (c, l) in checks.iter().zip(&lines) {
        let mark = if c["ok"] == true { "✓" } else { "✗" };
        assert!(
            l.starts_with(&format!("{mark} {}: ", c["name"].as_str().unwrap())),
            "{c} vs {l}"
        );
        assert!(c["detail"].is_string() && c.get("hook").is_some(), "{c}");
    }
    assert_eq!(checks[1]["hook"], "fable-evidence");
    assert_eq!(checks[3]["hook"], "fable-close-guard");
}

#[test]
fn red_naming_the_hook_when_fable_close_guard_is_missing() {
    let Some(claude) = available() else { return };
    let (home, tmp) = (user_home(), tempfile::tempdir().unwrap());
    let bins = bin_dir_without("fable-close-guard");
    let o = selftest(home.path(), tmp.path(), &args(&claude, bins.path()));
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", stderr(&o));
    let missing = format!("fable-close-guard missing in {}", bins.path().display());
    let lines = check_lines(&out);
    let red: Vec<&&str> = lines.iter().filter(|l| l.starts_with("✗ ")).collect();
    assert!(red.len() >= 2, "{out}");
    assert!(red.iter().all(|l| l.contains(&missing)), "{out}");
    assert!(
        lines.iter().any(|l| l.starts_with("✓ a failing command is logged")),
        "the evidence hook still works and says so: {out}"
    );
    assert!(out.contains("failing hook: fable-close-guard"), "{out}");
    assert!(out.contains("the run is kept in"), "{out}");
}

#[test]
fn red_naming_the_hook_when_fable_close_guard_is_not_executable() {
    let Some(claude) = available() else { return };
    let (home, tmp) = (user_home(), tempfile::tempdir().unwrap());
    let bins = bin_dir_without("fable-close-guard");
    let guard = bins.path().join("fable-close-guard");
    std::fs::copy(bin_dir().join("fable-close-guard"), &guard).unwrap();
    std::fs::set_permissions(&guard, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut a = args(&claude, bins.path());
    a.push("--json");
    let o = selftest(home.path(), tmp.path(), &a);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["ok"], false);
    assert_eq!(
        doc["failing_hooks"],
        serde_json::json!(["fable-close-guard"]),
        "{doc:#}"
    );
    let not_exec = format!("fable-close-guard not executable in {}", bins.path().display());
    let red: Vec<&Value> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .collect();
    assert!(red.len() >= 2, "{doc:#}");
    for c in red {
        assert_eq!(c["hook"], "fable-close-guard", "{c}");
        assert!(c["detail"].as_str().unwrap().contains(&not_exec), "{c}");
    }
}

/// A `claude` that is not Claude Code (it exits at once): every check fails, and says
/// the model was never called — the checks come from the run, not from the script.
#[test]
fn a_claude_that_never_calls_the_model_fails_every_session_check() {
    let (home, tmp) = (user_home(), tempfile::tempdir().unwrap());
    let fake = tmp.path().join("fake-claude");
    std::fs::write(&fake, "#!/bin/sh\necho 'not claude' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run_tmp = tempfile::tempdir().unwrap();
    let bins = bin_dir();
    let o = selftest(home.path(), run_tmp.path(), &args(&fake, &bins));
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", stderr(&o));
    let lines = check_lines(&out);
    assert!(lines[0].starts_with("✓ hook binaries"), "{out}");
    assert_eq!(lines.len(), 6, "{out}");
    for l in &lines[1..] {
        assert!(
            l.starts_with("✗ ") && l.contains("made no request to the scripted model"),
            "{l}"
        );
    }
}

#[test]
fn no_cli_gives_the_way_to_get_one_and_exit_2() {
    let (home, tmp) = (user_home(), tempfile::tempdir().unwrap());
    let o = selftest(home.path(), tmp.path(), &["--claude", "/nonexistent/claude"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("/nonexistent/claude") && err.contains(NPM) && err.contains("--claude PATH"),
        "{err}"
    );
    // None on PATH either: the same advice, and under --json a document saying so.
    let empty = tempfile::tempdir().unwrap();
    let mut c = isolated::std_cmd("fable", home.path());
    let o = c
        .env("PATH", empty.path())
        .env("TMPDIR", tmp.path())
        .args(["selftest", "--json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`claude` is not on PATH") && stderr(&o).contains(NPM),
        "{}",
        stderr(&o)
    );
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (doc["ok"].as_bool(), doc["error"].as_str()),
        (Some(false), Some("claude_not_found"))
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "nothing ran");
}

#[test]
fn a_missing_bin_dir_is_a_usage_error() {
    let (home, tmp) = (user_home(), tempfile::tempdir().unwrap());
    let fake = tmp.path().join("claude");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = selftest(
        home.path(),
        tmp.path(),
        &["--claude", fake.to_str().unwrap(), "--bin-dir", "/nonexistent/bin"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no such directory: /nonexistent/bin"),
        "{}",
        stderr(&o)
    );
}

/// A `fable-close-guard` that is there and executable but never blocks (it reads its
/// payload and exits 0): the preflight passes, the gate checks fail by what the run
/// showed, and each names the hook.
#[test]
fn a_close_guard_that_never_blocks_fails_by_observation() {
    let Some(claude) = available() else { return };
    let (home, tmp) = (user_home(), tempfile::tempdir().unwrap());
    let bins = bin_dir_without("fable-close-guard");
    let guard = bins.path().join("fable-close-guard");
    std::fs::write(&guard, "#!/bin/sh\ncat >/dev/null\nexit 0\n").unwrap();
    std::fs::set_permissions(&guard, std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = selftest(home.path(), tmp.path(), &args(&claude, bins.path()));
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", stderr(&o));
    let lines = check_lines(&out);
    assert!(lines[0].starts_with("✓ hook binaries"), "{out}");
    let red: Vec<&&str> = lines.iter().filter(|l| l.starts_with("✗ ")).collect();
    assert!(
        red.len() >= 2 && red.iter().all(|l| l.ends_with("(hook: fable-close-guard)")),
        "{out}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("✗ an unbacked claim") && l.contains("was let through")),
        "{out}"
    );
}

/// Without the right to make a network namespace (CAP_SYS_ADMIN dropped with `setpriv`,
/// when this runs as root), the harness falls back and the report says so; the checks
/// still pass.
#[test]
fn without_a_network_namespace_it_falls_back_and_says_so() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let (true, Some(setpriv)) = (root, setpriv) else {
        eprintln!("skipped: needs root and setpriv to drop the capability");
        return;
    };
    let Some(claude) = available() else { return };
    let (home, tmp) = (user_home(), tempfile::tempdir().unwrap());
    let bins = bin_dir();
    let mut c = std::process::Command::new(setpriv);
    c.env_clear()
        .envs(isolated::vars(home.path()))
        .env("TMPDIR", tmp.path())
        .args(["--inh-caps=-sys_admin", "--bounding-set=-sys_admin"])
        .arg(bins.join("fable"))
        .arg("selftest")
        .args(args(&claude, &bins));
    let o = c.output().unwrap();
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", stderr(&o));
    assert!(out.contains("isolation: none: no network namespace"), "{out}");
}
