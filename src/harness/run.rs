//! One session of the real CLI: a throw-away project and HOME under `out/`, the pre
//! commands (an installer writing the settings), then `claude -p` with a cleared
//! environment pointed at the [`mock`](super::mock), inside a private network namespace
//! when the process may create one, bounded by a timeout.
//!
//! `out/` afterwards: `proj/` (the project as the session left it), `home/` (HOME, with the
//! transcripts), `mock/NNN-<kind>.json` and `mock/requests.jsonl` (every API request and
//! its answer), `hooks/` (payloads a capture hook stored, if any), `pre.log`,
//! `claude.stdout` (the `--output-format json` result), `claude.stderr`, `claude.rc`,
//! `debug.log`, `script.json`, `summary.json` ([`summary`]).

use super::{mock::Mock, netns, record, summary};
use serde_json::Value;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// Where a settings file goes (the CLI reads each scope from its own place).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `proj/.claude/settings.json`
    Project,
    /// `proj/.claude/settings.local.json`
    Local,
    /// `home/.claude/settings.json`
    User,
    /// `--settings FILE`
    Flag,
}

/// Everything one run needs; [`Spec::new`] has the defaults the tests use.
#[derive(Debug, Clone)]
pub struct Spec {
    pub claude: PathBuf,
    /// The mock's script ([`script`](super::script)).
    pub script: Value,
    pub out: PathBuf,
    /// Copied in as the project (not on a kept run).
    pub project_src: Option<PathBuf>,
    /// Reuse `out/proj` and `out/home` of the previous run: a later session of the same
    /// project and user state (only `hooks/` and `mock/` are renewed).
    pub keep: bool,
    /// Shell commands run first in the project, with HOME=`out/home`, joined by `&&`.
    pub pre: Vec<String>,
    /// PATH for the pre commands, the CLI and so its hooks.
    pub path: OsString,
    /// Extra environment for the CLI and its hooks.
    pub env: Vec<(String, String)>,
    /// Extra `claude` arguments.
    pub args: Vec<String>,
    pub prompt: String,
    pub timeout: Duration,
    pub settings: Option<(PathBuf, Scope)>,
    /// `None`: `--dangerously-skip-permissions`; `Some(mode)`: `--permission-mode mode`.
    pub permission_mode: Option<String>,
    /// Try a private network namespace (falls back to none, noted in `out/isolation`).
    pub isolate: bool,
    /// Hook events whose payloads the [`record`] hook stores in `out/hooks/`.
    pub record_hooks: Vec<String>,
}

impl Spec {
    pub fn new(claude: &Path, script: Value, out: &Path) -> Spec {
        Spec {
            claude: claude.to_path_buf(),
            script,
            out: out.to_path_buf(),
            project_src: None,
            keep: false,
            pre: Vec::new(),
            path: std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            env: Vec::new(),
            args: Vec::new(),
            prompt: "do it".into(),
            timeout: Duration::from_secs(60),
            settings: None,
            permission_mode: None,
            isolate: true,
            record_hooks: Vec::new(),
        }
    }
}

/// How a run ended: the CLI's exit status (124 when it timed out).
#[derive(Debug)]
pub struct Ran {
    pub rc: i32,
    pub summary: Value,
}

/// Runs one session. `Err` is a harness failure (the pre commands failed, the mock could
/// not start), never the CLI's own exit status.
pub fn run(spec: &Spec) -> Result<Ran, String> {
    let out = &spec.out;
    let (proj, home) = (out.join("proj"), out.join("home"));
    renew_run_folders(out, spec.keep, &[proj.join(".claude"), home.join(".claude")])?;
    seed_project(spec.project_src.as_deref(), spec.keep, &proj)?;
    std::fs::write(out.join("script.json"), spec.script.to_string()).map_err(io("script.json"))?;

    let mut args: Vec<OsString> = vec![
        "-p".into(),
        spec.prompt.clone().into(),
        "--output-format".into(),
        "json".into(),
    ];
    args.push("--debug-file".into());
    args.push(out.join("debug.log").into());
    match &spec.permission_mode {
        None => args.push("--dangerously-skip-permissions".into()),
        Some(m) => args.extend(["--permission-mode".into(), m.into()]),
    }
    if let Some((file, scope)) = &spec.settings {
        let dest = match scope {
            Scope::Project => proj.join(".claude/settings.json"),
            Scope::Local => proj.join(".claude/settings.local.json"),
            Scope::User => home.join(".claude/settings.json"),
            Scope::Flag => out.join("flag-settings.json"),
        };
        std::fs::copy(file, &dest).map_err(io("copying the settings"))?;
        if *scope == Scope::Flag {
            args.extend(["--settings".into(), dest.into()]);
        }
    }
    args.extend(spec.args.iter().map(OsString::from));

    run_pre(out, &proj, &spec.pre, &spec.path, &[("HOME", &home)])?;

    if !spec.record_hooks.is_empty() {
        record::install(out, &home, &spec.record_hooks).map_err(io("installing the hook recorder"))?;
    }

    // The mock and the CLI share one thread's network namespace (see netns).
    let spec2 = spec.clone();
    let rc = std::thread::spawn(move || session(&spec2, &args))
        .join()
        .map_err(|_| "harness: the session thread panicked".to_string())??;
    let _ = std::fs::write(out.join("claude.rc"), format!("{rc}\n"));
    let summary = summary::write(out);
    Ok(Ran { rc, summary })
}

/// Clears what a new session must not inherit (all of it unless `keep`: a later session of
/// the same project keeps its project and HOME) and makes the run folders.
pub(crate) fn renew_run_folders(out: &Path, keep: bool, more: &[PathBuf]) -> Result<(), String> {
    let renew: &[&str] = if keep {
        &["hooks", "mock"]
    } else {
        &["hooks", "mock", "proj", "home"]
    };
    for d in renew {
        let _ = std::fs::remove_dir_all(out.join(d));
    }
    for d in [out.join("hooks"), out.join("mock"), out.join("proj")]
        .iter()
        .chain(more)
    {
        std::fs::create_dir_all(d).map_err(io("creating the run folders"))?;
    }
    Ok(())
}

/// Copies the seeded project into the run's project folder (not for a kept session).
pub(crate) fn seed_project(src: Option<&Path>, keep: bool, proj: &Path) -> Result<(), String> {
    let Some(src) = src.filter(|_| !keep) else {
        return Ok(());
    };
    let st = Command::new("cp")
        .arg("-a")
        .arg(src.join("."))
        .arg(proj)
        .status()
        .map_err(io("cp"))?;
    if !st.success() {
        return Err(format!("harness: copying {} failed", src.display()));
    }
    Ok(())
}

/// Runs the pre commands (joined by `&&`) in the project with the run's HOME (and `env`),
/// logging to `OUT/pre.log`; a failure is a harness failure naming that log.
pub(crate) fn run_pre(
    out: &Path,
    proj: &Path,
    pre: &[String],
    path: &OsStr,
    env: &[(&str, &Path)],
) -> Result<(), String> {
    if pre.is_empty() {
        return Ok(());
    }
    let log = File::create(out.join("pre.log")).map_err(io("pre.log"))?;
    let st = Command::new("bash")
        .arg("-c")
        .arg(pre.join(" && "))
        .current_dir(proj)
        .envs(env.iter().copied())
        .env("HARNESS_OUT", out)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(io("pre.log"))?)
        .stderr(log)
        .status()
        .map_err(io("bash"))?;
    if !st.success() {
        return Err(format!(
            "harness: the pre commands failed, see {}",
            out.join("pre.log").display()
        ));
    }
    Ok(())
}

/// Enters a private network namespace on this thread when asked (saying in `OUT/isolation`
/// what was had: `who` talks only to the mock either way), then binds the mock's port on
/// loopback inside it.
pub(crate) fn isolate_and_listen(out: &Path, isolate: bool, who: &str) -> Result<TcpListener, String> {
    let isolation = if !isolate {
        "none (not asked)".to_string()
    } else {
        match netns::isolate_this_thread() {
            Ok(()) => "network namespace (loopback only)".to_string(),
            Err(e) => format!("none: no network namespace ({e}); {who} talks only to the mock"),
        }
    };
    let _ = std::fs::write(out.join("isolation"), format!("{isolation}\n"));
    TcpListener::bind(("127.0.0.1", 0)).map_err(|e| format!("harness: mock bind: {e}"))
}

/// Starts the mock and the CLI, on a thread of their own (which may enter a namespace).
fn session(spec: &Spec, args: &[OsString]) -> Result<i32, String> {
    let out = &spec.out;
    let listener = isolate_and_listen(out, spec.isolate, "the CLI")?;
    let mock = Mock::start(
        listener,
        spec.script.clone(),
        &out.join("mock"),
        spec.timeout + Duration::from_secs(15),
        200,
    )
    .map_err(|e| format!("harness: mock: {e}"))?;

    let stdout = File::create(out.join("claude.stdout")).map_err(|e| format!("harness: {e}"))?;
    let stderr = File::create(out.join("claude.stderr")).map_err(|e| format!("harness: {e}"))?;
    let mut cmd = Command::new(&spec.claude);
    cmd.args(args)
        .current_dir(out.join("proj"))
        .env_clear()
        .env("PATH", &spec.path)
        .env("HOME", out.join("home"))
        .env("TERM", "dumb")
        .env("LANG", "C.UTF-8")
        .env("SHELL", "/bin/bash")
        .env("USER", std::env::var_os("USER").unwrap_or_else(|| "root".into()))
        .env("HARNESS_OUT", out)
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{}", mock.port))
        .env("ANTHROPIC_API_KEY", "sk-ant-harness-dummy");
    // The CLI's switches for traffic that is not the conversation (telemetry, updates,
    // error reports, surveys): off, so the mock is the only peer.
    for k in [
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "DISABLE_TELEMETRY",
        "DISABLE_AUTOUPDATER",
        "DISABLE_ERROR_REPORTING",
        "DISABLE_BUG_COMMAND",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY",
    ] {
        cmd.env(k, "1");
    }
    // As root, --dangerously-skip-permissions refuses to start unless told it is a sandbox.
    // SAFETY: geteuid has no preconditions.
    if spec.permission_mode.is_none() && unsafe { libc::geteuid() } == 0 {
        cmd.env("IS_SANDBOX", "1");
    }
    cmd.envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        // Its own process group, so the CLI and every hook it started end together.
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("harness: starting {}: {e}", spec.claude.display()))?;
    let rc = wait_bounded(&mut child, spec.timeout)?;
    mock.stop();
    Ok(rc)
}

/// Waits for a CLI started in its own process group for at most `timeout` (then TERM,
/// KILL after 5 s: 124), and ends whatever the session left running (a backgrounded
/// command) with it.
pub(super) fn wait_bounded(child: &mut std::process::Child, timeout: Duration) -> Result<i32, String> {
    let pgid = child.id() as libc::pid_t;
    let rc = match child.wait_timeout(timeout).map_err(|e| format!("harness: wait: {e}"))? {
        Some(st) => st.code().unwrap_or(-1),
        None => {
            kill_group(pgid, libc::SIGTERM);
            if child.wait_timeout(Duration::from_secs(5)).ok().flatten().is_none() {
                kill_group(pgid, libc::SIGKILL);
                let _ = child.wait();
            }
            124
        }
    };
    kill_group(pgid, libc::SIGKILL);
    Ok(rc)
}

/// A harness error message for a failed I/O step.
pub(super) fn io(what: &'static str) -> impl Fn(std::io::Error) -> String {
    move |e| format!("harness: {what}: {e}")
}

fn kill_group(pgid: libc::pid_t, sig: libc::c_int) {
    // SAFETY: signals the group this harness created; a gone group is ESRCH, ignored.
    unsafe {
        libc::kill(-pgid, sig);
    }
}
