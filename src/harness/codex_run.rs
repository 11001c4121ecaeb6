//! One session of the real OpenAI Codex CLI: a throw-away project, HOME and CODEX_HOME
//! under `out/`, the pre commands (an installer writing the hooks), then `codex exec`
//! with a cleared environment pointed at the Responses-API mock
//! ([`codex_mock`]) as a custom model provider, inside a private
//! network namespace when the process may create one, bounded by a timeout.
//!
//! `out/` afterwards: `proj/`, `home/` (HOME; CODEX_HOME is `home/.codex`, the rollouts
//! under `home/.codex/sessions/`), `mock/` (every API request and its answer), `hooks/`
//! (payloads the recorder stored), `pre.log`, `codex.stdout` (the `--json` event stream),
//! `codex.stderr`, `codex.rc`, `last-message.txt`, `script.json`, `summary.json`
//! ([`codex_summary`]).

use super::run::{io, isolate_and_listen, renew_run_folders, run_pre, seed_project, wait_bounded};
use super::{codex_mock, codex_summary, record};
use serde_json::Value;
use std::ffi::OsString;
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Everything one Codex run needs; [`CodexSpec::new`] has the defaults the tests use.
#[derive(Debug, Clone)]
pub struct CodexSpec {
    /// The `codex` launcher or its native binary.
    pub codex: PathBuf,
    /// The mock's script ([`responses`](super::responses)).
    pub script: Value,
    pub out: PathBuf,
    /// Copied in as the project (not on a kept run).
    pub project_src: Option<PathBuf>,
    /// Reuse `out/proj` and `out/home` of the previous run (a later session).
    pub keep: bool,
    /// Shell commands run first in the project, with HOME and CODEX_HOME of the session,
    /// joined by `&&`.
    pub pre: Vec<String>,
    /// PATH for the pre commands, Codex and so its hooks.
    pub path: OsString,
    /// Extra environment for Codex and its hooks.
    pub env: Vec<(String, String)>,
    /// Extra `codex exec` arguments (`-c key=value`).
    pub args: Vec<String>,
    pub prompt: String,
    pub timeout: Duration,
    /// `--dangerously-bypass-hook-trust`: run hooks whose hash the user's config.toml
    /// does not trust (Codex skips those silently otherwise).
    pub bypass_hook_trust: bool,
    /// Mark the project trusted in `config.toml` before the pre commands (project-layer
    /// hooks in `proj/.codex/` load only then).
    pub trust_project: bool,
    /// Try a private network namespace (falls back to none, noted in `out/isolation`).
    pub isolate: bool,
    /// Hook events whose payloads the [`record`] hook stores in `out/hooks/` (registered
    /// in `$CODEX_HOME/hooks.json`, after the pre commands).
    pub record_hooks: Vec<String>,
}

impl CodexSpec {
    pub fn new(codex: &Path, script: Value, out: &Path) -> CodexSpec {
        CodexSpec {
            codex: codex.to_path_buf(),
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
            bypass_hook_trust: true,
            trust_project: false,
            isolate: true,
            record_hooks: Vec::new(),
        }
    }
}

/// How a run ended: Codex's exit status (124 when it timed out).
#[derive(Debug)]
pub struct CodexRan {
    pub rc: i32,
    pub summary: Value,
}

/// The provider name the session's config selects.
const PROVIDER: &str = "harness_mock";

/// The `codex exec` arguments for the mock on `port`: the custom provider (no retries,
/// so a harness fault shows at once), no telemetry export (`analytics.enabled=false`,
/// else 5 s at exit spent on ab.chatgpt.com) and no plugin sync (`--disable plugins`,
/// else a `git ls-remote` of github.com), approval never and no sandbox, so commands run
/// as a user's would.
pub fn exec_args(spec: &CodexSpec, port: u16) -> Vec<OsString> {
    let provider = format!(
        "model_providers.{PROVIDER}={{name=\"harness-mock\",base_url=\"http://127.0.0.1:{port}/v1\",wire_api=\"responses\",env_key=\"CODEX_HARNESS_API_KEY\",request_max_retries=0,stream_max_retries=0}}"
    );
    let mut a: Vec<OsString> = vec!["exec".into(), "-c".into(), provider.into()];
    for c in [
        "model=\"mock-model\"".to_string(),
        format!("model_provider=\"{PROVIDER}\""),
        "approval_policy=\"never\"".into(),
        "sandbox_mode=\"danger-full-access\"".into(),
        "analytics.enabled=false".into(),
    ] {
        a.extend(["-c".into(), c.into()]);
    }
    a.extend(["--disable".into(), "plugins".into()]);
    a.extend(["--skip-git-repo-check".into(), "--json".into()]);
    a.extend(["-o".into(), spec.out.join("last-message.txt").into()]);
    if spec.bypass_hook_trust {
        a.push("--dangerously-bypass-hook-trust".into());
    }
    a.extend(spec.args.iter().map(OsString::from));
    a.push(spec.prompt.clone().into());
    a
}

/// Runs one Codex session. `Err` is a harness failure (the pre commands failed, the mock
/// could not start), never Codex's own exit status.
pub fn run(spec: &CodexSpec) -> Result<CodexRan, String> {
    let out = &spec.out;
    let (proj, home) = (out.join("proj"), out.join("home"));
    let codex_home = home.join(".codex");
    renew_run_folders(out, spec.keep, std::slice::from_ref(&codex_home))?;
    let _ = std::fs::remove_file(out.join("last-message.txt"));
    seed_project(spec.project_src.as_deref(), spec.keep, &proj)?;
    std::fs::write(out.join("script.json"), spec.script.to_string()).map_err(io("script.json"))?;
    if spec.trust_project && !spec.keep {
        let entry = format!("\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n", proj.display());
        append(&codex_home.join("config.toml"), &entry).map_err(io("config.toml"))?;
    }
    run_pre(
        out,
        &proj,
        &spec.pre,
        &spec.path,
        &[("HOME", &home), ("CODEX_HOME", &codex_home)],
    )?;
    if !spec.record_hooks.is_empty() {
        record::install_into(out, &codex_home.join("hooks.json"), &spec.record_hooks)
            .map_err(io("installing the hook recorder"))?;
    }

    // The mock and Codex share one thread's network namespace (see netns).
    let spec2 = spec.clone();
    let rc = std::thread::spawn(move || session(&spec2))
        .join()
        .map_err(|_| "harness: the session thread panicked".to_string())??;
    let _ = std::fs::write(out.join("codex.rc"), format!("{rc}\n"));
    let summary = codex_summary::write(out);
    Ok(CodexRan { rc, summary })
}

fn append(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(text.as_bytes())
}

/// Starts the mock and Codex on a thread of their own (which may enter a namespace).
fn session(spec: &CodexSpec) -> Result<i32, String> {
    let out = &spec.out;
    let listener = isolate_and_listen(out, spec.isolate, "Codex")?;
    let mock = codex_mock::start(
        listener,
        spec.script.clone(),
        &out.join("mock"),
        spec.timeout + Duration::from_secs(15),
        200,
    )
    .map_err(|e| format!("harness: mock: {e}"))?;

    let stdout = File::create(out.join("codex.stdout")).map_err(|e| format!("harness: {e}"))?;
    let stderr = File::create(out.join("codex.stderr")).map_err(|e| format!("harness: {e}"))?;
    let home = out.join("home");
    let mut cmd = Command::new(&spec.codex);
    cmd.args(exec_args(spec, mock.port))
        .current_dir(out.join("proj"))
        .env_clear()
        .env("PATH", &spec.path)
        .env("HOME", &home)
        .env("CODEX_HOME", home.join(".codex"))
        .env("TERM", "dumb")
        .env("LANG", "C.UTF-8")
        .env("SHELL", "/bin/bash")
        .env("USER", std::env::var_os("USER").unwrap_or_else(|| "root".into()))
        .env("HARNESS_OUT", out)
        .env("CODEX_HARNESS_API_KEY", "sk-harness-dummy")
        .env("RUST_LOG", "warn")
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        // Its own process group, so Codex and every hook and command it started end
        // together.
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("harness: starting {}: {e}", spec.codex.display()))?;
    let rc = wait_bounded(&mut child, spec.timeout)?;
    mock.stop();
    Ok(rc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exec_args_select_the_mock_provider_offline_and_end_with_the_prompt() {
        let mut spec = CodexSpec::new(Path::new("codex"), json!({}), Path::new("/o"));
        spec.args = vec!["-c".into(), "model_auto_compact_token_limit=50".into()];
        let a: Vec<String> = exec_args(&spec, 4242)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert_eq!(a[0], "exec");
        assert!(a[2].contains("base_url=\"http://127.0.0.1:4242/v1\"") && a[2].contains("wire_api=\"responses\""));
        for want in [
            "analytics.enabled=false",
            "plugins",
            "--skip-git-repo-check",
            "--json",
            "--dangerously-bypass-hook-trust",
            "model_auto_compact_token_limit=50",
        ] {
            assert!(a.iter().any(|x| x == want), "{want} missing from {a:?}");
        }
        assert_eq!(a.last().map(String::as_str), Some("do it"));
        spec.bypass_hook_trust = false;
        assert!(!exec_args(&spec, 1)
            .iter()
            .any(|x| x == "--dangerously-bypass-hook-trust"));
    }
}
