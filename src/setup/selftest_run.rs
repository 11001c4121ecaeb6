//! `fable selftest`, the I/O half: finds the user's `claude`, checks the hook binaries,
//! runs the scripted session through the offline harness ([`crate::harness::run`], the
//! one the end-to-end tests use) and prints what [`crate::setup::selftest`] judged.
//!
//! Everything happens in a throw-away folder: the project (`fable init`, fable's hooks
//! registered in *its* `.claude/settings.json` by absolute path to `--bin-dir`) and the
//! HOME the CLI and the hooks see. The user's own settings, HOME and state are never read
//! nor written, so nothing is left registered after the run. The folder is removed when
//! every check passes (unless `--keep`) and kept, and named, when one fails.

use crate::error::{exit, Error, Result};
use crate::harness::run::{self as harness_run, Scope as HarnessScope, Spec};
use crate::setup::claude_version::{self, Detected};
use crate::setup::install::{entries_for, select_for_version};
use crate::setup::portable;
use crate::setup::registrations;
use crate::setup::selftest::{self, Check, Observed};
use crate::setup::settings;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct SelftestArgs {
    /// The agent CLI to prove the hooks under: claude (Claude Code, the default) or codex
    /// (OpenAI Codex CLI).
    #[arg(long, value_enum, default_value_t)]
    pub host: crate::setup::codex_hooks::HostName,
    /// The Claude Code CLI to run (default: `claude` on PATH).
    #[arg(long, value_name = "PATH")]
    pub claude: Option<PathBuf>,
    /// With --host codex: the Codex CLI to run (default: `codex` on PATH).
    #[arg(long, value_name = "PATH")]
    pub codex: Option<PathBuf>,
    /// Directory holding the fable-* hook binaries (default: the directory of this `fable`).
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Print one JSON document on stdout (checks, claude version, isolation, overall ok).
    #[arg(long)]
    pub json: bool,
    /// Keep the run's folder (project, HOME, the scripted model's request log) even when
    /// every check passes.
    #[arg(long)]
    pub keep: bool,
}

/// How to get the CLI, for every "not found" message.
const GET_CLAUDE: &str =
    "install Claude Code with `npm install -g @anthropic-ai/claude-code`, or name the CLI with --claude PATH";

/// The CLI to run: `--claude PATH` (which must be an executable file), else `claude` on
/// `PATH`; `Err` says why none was found and how to get one.
pub fn find_claude(flag: Option<&Path>, path_env: Option<&std::ffi::OsStr>) -> std::result::Result<PathBuf, String> {
    match flag {
        Some(p) if portable::is_executable(p) => Ok(std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())),
        Some(p) if p.exists() => Err(format!("{} is not an executable file; {GET_CLAUDE}", p.display())),
        Some(p) => Err(format!("no Claude Code CLI at {}; {GET_CLAUDE}", p.display())),
        None => portable::which("claude", path_env)
            .ok_or_else(|| format!("no Claude Code CLI found: `claude` is not on PATH; {GET_CLAUDE}")),
    }
}

/// Each hook binary the registrations run that is missing or not executable in `bin_dir`.
pub fn broken_binaries(binaries: &[&str], bin_dir: &Path) -> Vec<(String, String)> {
    binaries
        .iter()
        .filter_map(|b| {
            let p = bin_dir.join(b);
            let why = if std::fs::metadata(&p).is_err() {
                "missing"
            } else if !portable::is_executable(&p) {
                "not executable"
            } else {
                return None;
            };
            Some((b.to_string(), why.to_string()))
        })
        .collect()
}

pub fn bin_dir_of(flag: Option<&Path>) -> Result<PathBuf> {
    let dir = match flag {
        Some(d) => std::path::absolute(d).unwrap_or_else(|_| d.to_path_buf()),
        None => std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf))
            .ok_or_else(|| Error::msg("cannot locate the directory of the fable executable; pass --bin-dir DIR"))?,
    };
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(dir),
        Ok(_) => Err(Error::NotADir(dir)),
        Err(_) => Err(Error::NoSuchDir(dir)),
    }
}

/// A fresh private folder for the run (`<name>-<pid>-…`), under the system's temporary folder.
pub(crate) fn work_dir(name: &str) -> Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    for i in 0..100u32 {
        let dir = base.join(format!("{name}-{}-{nanos:x}-{i}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&dir, e)),
        }
    }
    Err(Error::msg(format!(
        "cannot create a folder for the run in {}",
        base.display()
    )))
}

/// Writes the self-test's seed project into `work/seed` (both hosts run the same one).
pub(crate) fn write_seed(work: &Path) -> Result<PathBuf> {
    let seed = work.join("seed");
    for (rel, content) in selftest::project_files() {
        let p = seed.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
        }
        std::fs::write(&p, content).map_err(|e| Error::io(&p, e))?;
    }
    Ok(seed)
}

/// Writes the seed project and the settings registering fable's hooks (absolute paths
/// into `bin_dir`), and returns the harness spec of the session.
fn prepare(work: &Path, claude: &Path, bin_dir: &Path, detected: &Detected) -> Result<Spec> {
    let seed = write_seed(work)?;
    let regs = registrations::builtin().map_err(Error::msg)?;
    let (regs, _) = select_for_version(&regs, detected.version());
    let (doc, _) = settings::install(json!({}), &entries_for(&regs, bin_dir)?)
        .map_err(|e| Error::msg(format!("selftest: building the settings: {e}")))?;
    let settings_file = work.join("settings.json");
    std::fs::write(&settings_file, settings::render(&doc)).map_err(|e| Error::io(&settings_file, e))?;

    let fable = std::env::current_exe().map_err(|e| Error::msg(format!("cannot locate the running fable ({e})")))?;
    let mut spec = Spec::new(claude, selftest::script(), &work.join("out"));
    spec.project_src = Some(seed);
    // `fable init` as a user runs it, with the run's HOME (set by the harness) and none of
    // the user's own state or config folders.
    spec.pre = vec![format!(
        "unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME FABLE_CONFIG_DIR CLAUDE_CONFIG_DIR; {} init",
        shell_words::quote(&fable.to_string_lossy())
    )];
    spec.settings = Some((settings_file, HarnessScope::Project));
    spec.timeout = Duration::from_secs(90);
    Ok(spec)
}

/// What the harness left in `out`, as the judging reads it.
fn observe(out: &Path, ran: &harness_run::Ran, broken: Vec<(String, String)>) -> Observed {
    let evidence = std::fs::read_to_string(out.join("proj/.fable/evidence.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let requests = ran.summary["requests"]
        .as_array()
        .map(|a| a.iter().filter(|r| r["kind"] == "main").cloned().collect())
        .unwrap_or_default();
    Observed {
        evidence,
        requests,
        rc: ran.rc,
        result: ran.summary["result"]["result"].as_str().map(str::to_string),
        broken,
        let_through: transcripts_mention(&out.join("home"), selftest::LET_THROUGH),
    }
}

/// Whether a transcript (`*.jsonl` under the run's HOME) holds `needle`.
fn transcripts_mention(dir: &Path, needle: &str) -> bool {
    std::fs::read_dir(dir).into_iter().flatten().flatten().any(|e| {
        let p = e.path();
        // The entry itself, not what a link points to: a link cannot make this loop.
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            transcripts_mention(&p, needle)
        } else {
            p.extension().is_some_and(|x| x == "jsonl") && std::fs::read_to_string(&p).is_ok_and(|t| t.contains(needle))
        }
    })
}

/// `fable selftest`: 0 when every check passed, 1 when one failed, 2 when there is no
/// CLI to run (or `--bin-dir` is not a folder).
pub fn run(a: &SelftestArgs) -> Result<i32> {
    let claude = match find_claude(a.claude.as_deref(), std::env::var_os("PATH").as_deref()) {
        Ok(c) => c,
        Err(why) => {
            if a.json {
                println!("{}", json!({"ok": false, "error": "claude_not_found", "message": why}));
            }
            eprintln!("fable selftest: {why}");
            return Ok(exit::USAGE);
        }
    };
    let bin_dir = bin_dir_of(a.bin_dir.as_deref())?;
    let mut binaries: Vec<&str> = registrations::HOOK_BINARIES.to_vec();
    binaries.sort_unstable();
    let broken = broken_binaries(&binaries, &bin_dir);
    let detected = claude_version::read_version(claude.as_os_str(), claude_version::VERSION_TIMEOUT);
    let version = detected.version().map(|v| v.to_string());

    let work = work_dir("fable-selftest")?;
    let spec = prepare(&work, &claude, &bin_dir, &detected)?;
    if !a.json {
        eprintln!(
            "fable selftest: running {} ({}) offline against a scripted model, hooks from {} (a few seconds)…",
            claude.display(),
            version.as_deref().unwrap_or("version unknown"),
            bin_dir.display()
        );
    }
    let ran = harness_run::run(&spec).map_err(|e| {
        Error::msg(format!(
            "selftest could not run the session ({e}); the run is kept in {}",
            work.display()
        ))
    })?;
    let out = work.join("out");
    let isolation = std::fs::read_to_string(out.join("isolation"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".to_string());
    let observed = observe(&out, &ran, broken.clone());
    let mut checks: Vec<Check> = vec![selftest::preflight(&binaries, &broken, &bin_dir)];
    checks.extend(selftest::judge(&observed, &bin_dir));
    let ok = checks.iter().all(|c| c.ok);

    let kept = if ok && !a.keep {
        let _ = std::fs::remove_dir_all(&work);
        None
    } else {
        Some(work.as_path())
    };
    if a.json {
        let report = selftest::report_json(&checks, (&claude, version), &bin_dir, &isolation, kept);
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        println!(
            "fable selftest: claude {} at {}",
            version.as_deref().unwrap_or("(version unknown)"),
            claude.display()
        );
        println!("isolation: {isolation}");
        print!("{}", selftest::text_report(&checks, kept));
    }
    Ok(if ok { exit::OK } else { exit::FAILURE })
}
