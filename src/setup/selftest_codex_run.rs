//! `fable selftest --host codex`, the I/O half: finds the user's `codex`, checks the hook
//! binaries Codex would run, runs the plan's session through the Codex harness
//! ([`crate::harness::codex_run`], the one the Codex end-to-end tests use) and prints what
//! [`crate::setup::selftest`] judged of it ([`crate::setup::selftest_codex`] translates).
//!
//! Everything happens in a throw-away folder: the project (`fable init`), HOME and
//! CODEX_HOME, where fable's Codex hooks are registered by absolute path to `--bin-dir`.
//! The user's own `~/.codex` is never read nor written. Codex runs only hooks whose hash
//! the user trusts; a self-test is about whether the hooks work under Codex, so this run
//! passes `--dangerously-bypass-hook-trust` (for the user's own trust, see
//! `fable doctor --host codex`).

use crate::error::{exit, Error, Result};
use crate::harness::codex_run::{self, CodexSpec};
use crate::setup::codex_hooks;
use crate::setup::portable;
use crate::setup::selftest::{self, Check};
use crate::setup::selftest_codex;
use crate::setup::selftest_run::{broken_binaries, work_dir, write_seed};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How to get the CLI, for every "not found" message.
const GET_CODEX: &str = "install the Codex CLI with `npm install -g @openai/codex`, or name it with --codex PATH";

/// The CLI to run: `flag` (an executable file), else `codex` on `PATH`.
pub fn find_codex(flag: Option<&Path>, path_env: Option<&std::ffi::OsStr>) -> std::result::Result<PathBuf, String> {
    match flag {
        Some(p) if portable::is_executable(p) => Ok(std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())),
        Some(p) if p.exists() => Err(format!("{} is not an executable file; {GET_CODEX}", p.display())),
        Some(p) => Err(format!("no Codex CLI at {}; {GET_CODEX}", p.display())),
        None => portable::which("codex", path_env)
            .ok_or_else(|| format!("no Codex CLI found: `codex` is not on PATH; {GET_CODEX}")),
    }
}

/// The hook binaries fable registers for Codex, each once, sorted.
pub fn binaries() -> Vec<&'static str> {
    let mut b: Vec<&str> = codex_hooks::TABLE.iter().map(|(_, _, bin, _)| *bin).collect();
    b.sort_unstable();
    b.dedup();
    b
}

/// `codex --version`'s version (`codex-cli 0.171.0` → `0.171.0`), bounded in time.
fn version(codex: &Path) -> Option<String> {
    let out = std::process::Command::new(codex)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().last().map(str::to_string)
}

/// The run's spec in `work`: the seed project, `fable init`, and fable's Codex hooks in
/// the run's `$CODEX_HOME/hooks.json`.
fn prepare(work: &Path, codex: &Path, bin_dir: &Path, fable: &Path) -> Result<CodexSpec> {
    let seed = write_seed(work)?;
    let hooks = work.join("codex-hooks.json");
    let doc = codex_hooks::codex_hooks(bin_dir);
    std::fs::write(&hooks, serde_json::to_string_pretty(&doc).unwrap_or_default()).map_err(|e| Error::io(&hooks, e))?;
    let q = |p: &Path| shell_words::quote(&p.to_string_lossy()).into_owned();
    let mut spec = CodexSpec::new(codex, selftest_codex::script(), &work.join("out"));
    spec.project_src = Some(seed);
    spec.pre = vec![format!(
        "unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME FABLE_CONFIG_DIR; {} init && cp {} \"$CODEX_HOME/hooks.json\"",
        q(fable),
        q(&hooks)
    )];
    spec.timeout = Duration::from_secs(90);
    Ok(spec)
}

/// Whether fable noted, in the run's user state, a stop let through after its limit.
fn let_through(home: &Path) -> bool {
    let dir = home.join(".local/state/fable/stops");
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(selftest::LET_THROUGH)))
}

/// Runs the session in `work` and judges it: the checks (the bin dir's first) and the
/// isolation the run had. `Err` is a harness failure.
pub fn checks(codex: &Path, bin_dir: &Path, fable: &Path, work: &Path) -> Result<(Vec<Check>, String)> {
    let bins = binaries();
    let broken = broken_binaries(&bins, bin_dir);
    let spec = prepare(work, codex, bin_dir, fable)?;
    let ran = codex_run::run(&spec).map_err(|e| {
        Error::msg(format!(
            "selftest could not run the Codex session ({e}); the run is kept in {}",
            work.display()
        ))
    })?;
    let out = work.join("out");
    let evidence = std::fs::read_to_string(out.join("proj/.fable/evidence.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let observed = selftest_codex::observed(
        &ran.summary,
        evidence,
        ran.rc,
        broken.clone(),
        let_through(&out.join("home")),
    );
    let mut all = vec![selftest::preflight(&bins, &broken, bin_dir)];
    all.extend(selftest::judge(&observed, bin_dir));
    let isolation = std::fs::read_to_string(out.join("isolation"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".to_string());
    Ok((all, isolation))
}

/// `fable selftest --host codex`: 0 when every check passed, 1 when one failed, 2 when
/// there is no Codex CLI to run.
pub fn run(codex_flag: Option<&Path>, bin_dir: &Path, json_out: bool, keep: bool) -> Result<i32> {
    let codex = match find_codex(codex_flag, std::env::var_os("PATH").as_deref()) {
        Ok(c) => c,
        Err(why) => {
            if json_out {
                println!("{}", json!({"ok": false, "error": "codex_not_found", "message": why}));
            }
            eprintln!("fable selftest: {why}");
            return Ok(exit::USAGE);
        }
    };
    let fable = std::env::current_exe().map_err(|e| Error::msg(format!("cannot locate the running fable ({e})")))?;
    let ver = version(&codex);
    let work = work_dir("fable-selftest-codex")?;
    if !json_out {
        eprintln!(
            "fable selftest: running {} ({}) offline against a scripted model, hooks from {} (a few seconds)…",
            codex.display(),
            ver.as_deref().unwrap_or("version unknown"),
            bin_dir.display()
        );
    }
    let (checks, isolation) = checks(&codex, bin_dir, &fable, &work)?;
    let ok = checks.iter().all(|c| c.ok);
    let kept = if ok && !keep {
        let _ = std::fs::remove_dir_all(&work);
        None
    } else {
        Some(work.as_path())
    };
    if json_out {
        let mut report = selftest::report_json(&checks, (&codex, ver.clone()), bin_dir, &isolation, kept);
        // The same document as under Claude Code, with the CLI under its own name.
        if let Some(m) = report.as_object_mut() {
            if let Some(cli) = m.remove("claude") {
                m.insert("codex".into(), cli);
            }
            m.insert("host".into(), json!("codex"));
        }
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        println!(
            "fable selftest: codex {} at {}",
            ver.as_deref().unwrap_or("(version unknown)"),
            codex.display()
        );
        println!(
            "isolation: {isolation}; hooks run with --dangerously-bypass-hook-trust (trust: fable doctor --host codex)"
        );
        print!("{}", selftest::text_report(&checks, kept));
    }
    Ok(if ok { exit::OK } else { exit::FAILURE })
}
