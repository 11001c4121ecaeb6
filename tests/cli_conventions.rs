//! Conventions every `fable` subcommand keeps for a person at a terminal and a script:
//! `--project DIR` on every project command (old spellings still accepted, undocumented);
//! one message and exit 4 for "not a fable project", exit 2 and "no such directory" for a
//! missing folder; `--json` output that parses, errors included; no colour; quiet on a
//! closed pipe. And the test suite's own rule: no test reaches the real user state.

mod common_discipline;
use common_discipline::*;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

const NOT_A_PROJECT: i32 = 4;
const USAGE: i32 = 2;

/// Every project-scoped command, as `fable <args> --project DIR` runs it. `trust` comes
/// before `replay` so replay finds the project trusted.
const PROJECT_COMMANDS: &[&[&str]] = &[
    &["status"],
    &["lint"],
    &["trust"],
    &["replay"],
    &["evidence", "show"],
    &["evidence", "tail"],
    &["evidence", "stats"],
    &["evidence", "verify"],
    &["rules", "list"],
    &["rules", "recurrence"],
];

/// Commands that only read and print (for the closed-pipe check).
const READ_COMMANDS: &[&[&str]] = &[
    &["status"],
    &["lint"],
    &["evidence", "show"],
    &["evidence", "tail"],
    &["evidence", "stats"],
    &["evidence", "verify"],
    &["rules", "list"],
    &["rules", "recurrence"],
    &["trust", "--list"],
];

/// A project with a closed card citing a command that passed (sealed by the real hook),
/// so every command has something to report.
fn busy_project() -> Proj {
    let p = Proj::new();
    p.ledger("- [ ] 1. next — acceptance: `true`\n- [x] 2. done -- evidence: `true` passed\n");
    p.write("docs/SPEC.md", "# plan [measured]\n");
    p.log(&[("true", 0, true)]);
    p
}

/// `fable <args>` with the project's private environment, run from `cwd`.
fn run_in(p: &Proj, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = p.cmd("fable");
    c.current_dir(cwd).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.timeout(std::time::Duration::from_secs(60)).output().unwrap()
}

fn with(args: &[&str], more: &[&str]) -> Vec<String> {
    args.iter().chain(more).map(|s| s.to_string()).collect()
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Every line of a `--json` report parses (`evidence show` prints one object a line).
fn json_lines(o: &Output, what: &str) -> Vec<Value> {
    let out = stdout(o);
    assert!(!out.trim().is_empty() || what.contains("evidence"), "{what}: no output");
    if let Ok(v) = serde_json::from_str::<Value>(&out) {
        return vec![v];
    }
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {l}")))
        .collect()
}

fn not_a_project_line(dir: &Path) -> String {
    format!(
        "fable: not a fable project: no .fable/ folder at or above {} (run `fable init` there to opt in)\n",
        dir.display()
    )
}

#[test]
fn every_project_command_accepts_project_dir_from_anywhere() {
    let p = busy_project();
    let elsewhere = tempfile::tempdir().unwrap();
    let root = p.root.to_str().unwrap().to_string();
    for args in PROJECT_COMMANDS {
        for json in [false, true] {
            let mut a = with(args, &["--project", &root]);
            if json {
                a.push("--json".into());
            }
            let o = run_in(&p, elsewhere.path(), &refs(&a), &[]);
            let what = format!("fable {}", a.join(" "));
            assert!([0, 1].contains(&code(&o)), "{what}: exit {}\n{}", code(&o), stderr(&o));
            if json {
                for v in json_lines(&o, &what) {
                    assert!(v.get("error").is_none(), "{what}: {v}");
                }
            }
        }
    }
    // `fable init --project DIR` opts that folder in, wherever it runs from.
    let fresh = p.root.parent().unwrap().join("fresh");
    std::fs::create_dir_all(fresh.join(".git")).unwrap();
    let o = run_in(
        &p,
        elsewhere.path(),
        &["init", "--project", fresh.to_str().unwrap(), "--json"],
        &[],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    json_lines(&o, "init --json");
    assert!(fresh.join(".fable/LEDGER.md").is_file());
}

#[test]
fn project_may_name_a_folder_inside_the_project() {
    let p = busy_project();
    let src = p.root.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let o = run_in(
        &p,
        Path::new("/"),
        &["status", "--project", src.to_str().unwrap(), "--json"],
        &[],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["project"], p.root.to_str().unwrap());
}

#[test]
fn not_a_project_has_one_message_and_one_exit_code() {
    let p = Proj::bare();
    let root = p.root.to_str().unwrap().to_string();
    for args in PROJECT_COMMANDS {
        // Named with --project, and discovered from the current directory.
        for a in [with(args, &["--project", &root]), with(args, &[])] {
            let what = format!("fable {}", a.join(" "));
            let o = run_in(&p, &p.root, &refs(&a), &[]);
            assert_eq!(code(&o), NOT_A_PROJECT, "{what}: {}", stderr(&o));
            assert_eq!(stderr(&o), not_a_project_line(&p.root), "{what}");
            assert_eq!(stdout(&o), "", "{what}");

            let a = with(&refs(&a), &["--json"]);
            let o = run_in(&p, &p.root, &refs(&a), &[]);
            assert_eq!(code(&o), NOT_A_PROJECT, "{what} --json: {}", stderr(&o));
            let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{what} --json: {e}"));
            assert_eq!(v["error"], "not_a_project", "{what}: {v}");
            assert_eq!(v["path"], root.as_str(), "{what}: {v}");
            assert_eq!(
                v["message"].as_str().unwrap(),
                not_a_project_line(&p.root).trim_start_matches("fable: ").trim_end()
            );
        }
    }
}

#[test]
fn a_missing_folder_or_a_file_is_named_as_such() {
    let p = Proj::new();
    let missing = p.root.join("no such");
    let file = p.write("notes.txt", "x");
    let mut commands: Vec<&[&str]> = PROJECT_COMMANDS.to_vec();
    commands.push(&["init"]);
    for args in commands {
        let a = with(args, &["--project", missing.to_str().unwrap()]);
        let o = run_in(&p, &p.root, &refs(&a), &[]);
        assert_eq!(code(&o), USAGE, "{a:?}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!("fable: no such directory: {}\n", missing.display()),
            "{a:?}"
        );
        let a = with(&refs(&a), &["--json"]);
        let o = run_in(&p, &p.root, &refs(&a), &[]);
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            (code(&o), v["error"].as_str()),
            (USAGE, Some("no_such_directory")),
            "{a:?}"
        );

        let a = with(args, &["--project", file.to_str().unwrap()]);
        let o = run_in(&p, &p.root, &refs(&a), &[]);
        assert_eq!(code(&o), USAGE, "{a:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with(&format!("fable: not a directory: {}", file.display())),
            "{a:?}: {}",
            stderr(&o)
        );
    }
    assert!(!missing.exists(), "nothing creates a folder it was only asked about");
}

#[test]
fn the_old_spellings_still_work_but_only_project_is_documented() {
    let p = busy_project();
    let elsewhere = tempfile::tempdir().unwrap();
    let root = p.root.to_str().unwrap();
    for a in [
        &["status", root, "--json"][..],
        &["lint", root, "--json"],
        &["trust", root, "--json"],
        &["replay", root, "--json"],
        &["status", "--dir", root, "--json"],
        &["evidence", "stats", "--dir", root, "--json"],
    ] {
        let o = run_in(&p, elsewhere.path(), a, &[]);
        assert!([0, 1].contains(&code(&o)), "{a:?}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v.get("error").is_none(), "{a:?}: {v}");
    }
    for args in PROJECT_COMMANDS.iter().chain([&["init"][..]].iter()) {
        let o = run_in(
            &p,
            &p.root,
            &with(args, &["--help"]).iter().map(String::as_str).collect::<Vec<_>>(),
            &[],
        );
        let help = stdout(&o);
        assert!(help.contains("--project <DIR>"), "{args:?}: {help}");
        assert!(!help.contains("--dir") && !help.contains("[DIR]"), "{args:?}: {help}");
    }
}

#[test]
fn no_colour_anywhere() {
    let p = busy_project();
    let mut commands: Vec<&[&str]> = PROJECT_COMMANDS.to_vec();
    commands.extend([
        &["trust", "--list"][..],
        &["init"],
        &["--help"],
        &["evidence", "--help"],
    ]);
    for args in commands {
        for json in [false, true] {
            let a = if json { with(args, &["--json"]) } else { with(args, &[]) };
            if json && args.contains(&"--help") {
                continue;
            }
            for env in [
                &[("NO_COLOR", "1")][..],
                &[("TERM", "xterm-256color"), ("CLICOLOR_FORCE", "1")],
            ] {
                let o = run_in(&p, &p.root, &refs(&a), env);
                assert!(
                    !o.stdout.contains(&0x1b) && !o.stderr.contains(&0x1b),
                    "{a:?} {env:?} printed an escape sequence"
                );
            }
        }
    }
}

#[test]
fn a_closed_pipe_ends_every_read_command_quietly() {
    let p = busy_project();
    let lines: String = (0..3000)
        .map(|i| {
            format!(
                "{{\"v\":1,\"ts\":\"2026-01-01T00:00:00.000Z\",\"session\":\"s\",\"cwd\":\"/\",\"cmd\":\"echo {i} {}\",\"exit\":0,\"ok\":true,\"tail\":\"\"}}\n",
                "x".repeat(80)
            )
        })
        .collect();
    std::fs::write(p.fable().join("evidence.jsonl"), lines).unwrap();
    for args in READ_COMMANDS {
        for json in [false, true] {
            let a = if json { with(args, &["--json"]) } else { with(args, &[]) };
            let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fable"))
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", &p.home)
                .env("XDG_STATE_HOME", p.state_home())
                .env("XDG_CONFIG_HOME", p.home.join("xdg-config"))
                .env("FABLE_CONFIG_DIR", p.config_dir())
                .args(&a)
                .current_dir(&p.root)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut first = [0u8; 16];
            let _ = child.stdout.as_mut().unwrap().read(&mut first);
            drop(child.stdout.take()); // the reader goes away, like `| head -c 16`
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            let status = child.wait().unwrap();
            assert!(
                !err.contains("panicked") && !err.contains("Broken pipe"),
                "{a:?}: {err}"
            );
            assert_ne!(status.code(), Some(101), "{a:?} panicked");
        }
    }
}

/// Issue 13 item 3: a test that starts one of our binaries with the developer's
/// environment writes the sealing key, session state, trust list or install backups into
/// the real `~/.local/state`, `~/.config` or `~/.claude`. Setting HOME is not enough (an
/// exported `XDG_STATE_HOME` or `FABLE_CONFIG_DIR` wins over it), so the rule is: the
/// function that names one of our binaries (`cargo_bin(…)`, `CARGO_BIN_EXE_…`) also
/// clears the environment (`env_clear()`) and sets HOME (or uses `tests/isolated`'s
/// `vars`). Tests normally go through `tests/isolated` or `common_discipline`'s
/// `Proj::cmd`, which do. A use that starts nothing says `// isolation: not spawned`.
///
/// Why a scan and not a run under a sentinel HOME: a run would check only the commands
/// that test happens to run, and could not see writes that follow an exported
/// `XDG_STATE_HOME` instead of HOME, nor tell ours from other processes on a shared
/// machine. The scan covers every test, present and future, in milliseconds; what it
/// cannot see is a binary started by name through a shell script (`install.sh` tests,
/// the cc-harness), which set their own HOME.
#[test]
fn every_test_isolates_the_user_state() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = Vec::new();
    let mut todo = vec![tests.clone()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() && path.file_name().is_some_and(|n| n != "corpora") {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    let is_fn = |l: &str| {
        let t = l.trim_start();
        t.starts_with("fn ")
            || t.starts_with("pub fn ")
            || t.starts_with("pub(crate) fn ")
            || t.starts_with("async fn ")
    };
    // Spelled in two halves so this scan does not find itself.
    let needles = [concat!("cargo", "_bin("), concat!("CARGO_BIN", "_EXE_")];
    let mut bad: Vec<String> = Vec::new();
    let mut hits = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let code = l.split("//").next().unwrap_or("");
            if !needles.iter().any(|n| code.contains(n)) {
                continue;
            }
            hits += 1;
            if (i > 0 && lines[i - 1].contains("isolation: not spawned")) || l.contains("isolation: not spawned") {
                continue;
            }
            let start = (0..=i).rev().find(|&j| is_fn(lines[j])).unwrap_or(0);
            let end = (i + 1..lines.len()).find(|&j| is_fn(lines[j])).unwrap_or(lines.len());
            let body = lines[start..end].join("\n");
            if !(body.contains("env_clear()") && (body.contains("\"HOME\"") || body.contains("vars("))) {
                let rel: PathBuf = f.strip_prefix(&tests).unwrap().to_path_buf();
                bad.push(format!("tests/{}:{}: {}", rel.display(), i + 1, l.trim()));
            }
        }
    }
    assert!(hits > 5, "the scan found no uses at all: {hits}");
    assert!(
        bad.is_empty(),
        "these start a fable binary with the real environment (use tests/isolated or Proj::cmd):\n{}",
        bad.join("\n")
    );
}
