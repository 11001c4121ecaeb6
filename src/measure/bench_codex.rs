//! The Codex row of `fable bench`: `fable-evidence --host codex` fed Codex's PostToolUse
//! shape (a string response, no exit code) with a 5 MB rollout at `transcript_path`, so
//! the row includes reading the exit code from the rollout's end. Target (issue 32):
//! ≤ 1 ms over `/bin/true`. Passes and failures alternate, as in the Claude rows.

use crate::error::{Error, IoContext, Result};
use serde_json::json;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Size of the generated rollout.
const ROLLOUT_BYTES: usize = 5 * 1024 * 1024;

fn completed(id: &str, code: i64) -> String {
    json!({"timestamp":"2026-12-06T00:29:48.000Z","type":"event_msg","payload":{"type":"item_completed",
        "item":{"type":"CommandExecution","id":id,"exit_code":code,"status": if code == 0 {"completed"} else {"failed"},
        "aggregated_output":"ok","command":["/bin/bash","-lc","cargo test"]}}})
    .to_string()
}

/// Writes a rollout of about 5 MB whose end holds the `item_completed` line of each run.
fn write_rollout(path: &Path, runs: usize) -> Result<()> {
    let filler = json!({"timestamp":"2026-12-06T00:29:47.000Z","type":"response_item",
        "payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x".repeat(1900)}]}})
    .to_string();
    let mut f = std::fs::File::create(path).at(path)?;
    let mut written = 0;
    while written < ROLLOUT_BYTES {
        writeln!(f, "{filler}").at(path)?;
        written += filler.len() + 1;
    }
    for n in 0..runs {
        writeln!(
            f,
            "{}",
            completed(&format!("call_bench_{n}"), if n % 2 == 0 { 0 } else { 101 })
        )
        .at(path)?;
    }
    Ok(())
}

fn spawn_once(bin: &Path, root: &Path, stdin: &[u8], env: &[(&str, &str)]) -> Result<(f64, i32, i64)> {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(["--host", "codex"])
        .current_dir(root)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .at(bin)?;
    if let Some(mut s) = child.stdin.take() {
        let _ = s.write_all(stdin);
    }
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: as in `bench::spawn_once`: our own child, reaped here for its rusage.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    if r < 0 {
        return Err(Error::io(bin, std::io::Error::last_os_error()));
    }
    let code = std::process::ExitStatus::from_raw(status).code().unwrap_or(-1);
    Ok((ms, code, usage.ru_maxrss))
}

/// Samples (wall ms), peak RSS (KiB) and exit codes of `runs` runs in `root` (a generated
/// project); `bench` makes the `fable-evidence:codex-5mb-rollout` row of them. The calls
/// mirror the Claude Code rows: even runs pass with `commands[n % len]`, odd runs fail
/// `cargo test --workspace` with exit 101.
pub fn measure(
    bin_dir: &Path,
    root: &Path,
    tmp: &Path,
    runs: usize,
    env: &[(&str, &str)],
    commands: &[&str],
) -> Result<(Vec<f64>, i64, Vec<i32>)> {
    let bin = bin_dir.join("fable-evidence");
    let rollout = tmp.join("rollout-bench.jsonl");
    write_rollout(&rollout, runs)?;
    let (mut samples, mut rss, mut codes) = (Vec::with_capacity(runs), 0, std::collections::BTreeSet::new());
    for n in 0..runs {
        let p = json!({"session_id":"bench-codex","turn_id":"t","transcript_path":rollout,"cwd":root,
            "hook_event_name":"PostToolUse","model":"gpt-5","permission_mode":"bypassPermissions","tool_name":"Bash",
            "tool_input":{"command": if n % 2 == 0 { commands[n % commands.len().max(1)] } else { "cargo test --workspace" }},
            "tool_response": if n % 2 == 0 { "ok\n".repeat(50) } else { "error[E0432]: unresolved import `crate::foo`\n --> src/lib.rs:3:5\n".to_string() },
            "tool_use_id":format!("call_bench_{n}")});
        let (ms, code, r) = spawn_once(&bin, root, p.to_string().as_bytes(), env)?;
        samples.push(ms);
        rss = rss.max(r);
        codes.insert(code);
    }
    let _ = std::fs::remove_file(&rollout);
    Ok((samples, rss, codes.into_iter().collect()))
}
