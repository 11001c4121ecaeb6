//! `fable bench`: whole-process latency of every hook binary against realistic state.
//!
//! A hook runs on every tool call of every session, so what matters is the whole process:
//! exec, stdin parse, discovery, the decision, exit. Each binary is spawned `--runs` times
//! (default 200) with a representative payload in a generated project that holds a 50-card
//! ledger, an evidence log at the rotation size plus full rotated generations, and a store
//! of 200 promoted rules. Reported per hook: p50, p99, max wall time and peak RSS (from
//! `wait4`'s rusage), and the p50 added over `/bin/true` spawned the same way in the same
//! run. Targets (this machine class, medians): every hook ≤ 2 ms absolute and ≤ 0.5 ms
//! added, the close guard ≤ 5 ms absolute and ≤ 1.0 ms added. Each hook meets a freshly
//! generated project, so what one hook writes (evidence appends that rotate the log) does
//! not change what the next one measures.

use crate::error::{Error, IoContext, Result};
use crate::evidence::journal::{Journal, Rotation, DEFAULT_MAX_BYTES};
use crate::evidence::Record;
use crate::setup::registrations::HOOK_BINARIES;
use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Spawns per hook binary.
    #[arg(long, default_value_t = 200)]
    pub runs: usize,
    /// Directory holding the hook binaries (default: beside this `fable`).
    #[arg(long)]
    pub bin_dir: Option<PathBuf>,
    /// Only these hooks (by binary name), e.g. `--only fable-close-guard`.
    #[arg(long)]
    pub only: Vec<String>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// History sizes for the learning pipeline, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
    pub learn_sizes: Vec<usize>,
    /// Skip the hook latency part.
    #[arg(long)]
    pub skip_hooks: bool,
    /// Skip the learning pipeline part.
    #[arg(long)]
    pub skip_learn: bool,
    /// Internal: run one learning measurement in this process and print it.
    #[arg(long, hide = true)]
    pub learn_child: Option<usize>,
    /// Internal: the scratch folder the learning child writes its log into.
    #[arg(long, hide = true)]
    pub learn_dir: Option<PathBuf>,
    /// Builds the bench's projects and payloads into this folder and times nothing: for
    /// `valgrind --tool=callgrind` / `strace -c` on one hook with exactly what the bench
    /// feeds it (`DIR/README` says how).
    #[arg(long)]
    pub keep: Option<PathBuf>,
}

/// One hook's measured distribution.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HookTiming {
    pub hook: String,
    pub runs: usize,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub peak_rss_kb: i64,
    pub target_ms: f64,
    pub met: bool,
    /// p50 minus the `/bin/true` p50 of the same run (`None` for the baseline itself).
    pub added_ms: Option<f64>,
    pub added_target_ms: f64,
    pub added_met: Option<bool>,
    pub exit_codes: Vec<i32>,
}

/// Percentile by nearest rank over sorted samples.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

const COMMANDS: [&str; 12] = [
    "cargo test --workspace",
    "cargo build --release",
    "git status",
    "git push origin main",
    "npm run build",
    "pytest -q tests/",
    "make check",
    "ls -la src",
    "python3 scripts/gen.py --seed 7",
    "git diff --stat",
    "rg -n TODO src",
    "cargo clippy --all-targets -- -D warnings",
];

/// Generates the realistic state the hooks read. The log is sealed with a key in `state`
/// (the user state the hooks are given), as the evidence hook would have written it, so
/// the close guard measures its real path: corroboration over sealed records.
pub fn build_state(root: &Path, state: &Path) -> Result<()> {
    let fable = root.join(".fable");
    std::fs::create_dir_all(root.join(".git")).at(root)?;
    std::fs::create_dir_all(&fable).at(&fable)?;
    // Evidence: three full rotated generations plus a live file just under the limit.
    let state_s = state.display().to_string();
    let sealer = crate::evidence::seal::Sealer::for_user(|k| (k == "XDG_STATE_HOME").then(|| state_s.clone()), &fable)
        .map_err(Error::msg)?;
    let journal = Journal::new(&fable, Rotation::default()).with_sealer(Some(sealer));
    // Appended until the oldest kept generation exists and the live file is within 8 KiB
    // of the limit: one more rotation would drop the first records, which the ledger cites.
    let mut i = 0usize;
    let oldest = fable.join(format!("evidence.jsonl.{}", Rotation::default().keep));
    let live = fable.join("evidence.jsonl");
    let full = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0) + 8 * 1024 >= DEFAULT_MAX_BYTES;
    while !(oldest.exists() && full(&live)) {
        let cmd = format!("{} # {}", COMMANDS[i % COMMANDS.len()], i / COMMANDS.len());
        let ok = !(i + 4).is_multiple_of(7);
        let r = Record {
            v: 1,
            ts: format!(
                "2026-12-01T{:02}:{:02}:{:02}.000Z",
                (i / 3600) % 24,
                (i / 60) % 60,
                i % 60
            ),
            session: format!("bench-{}", i / 200),
            cwd: root.display().to_string(),
            cmd,
            exit: Some(if ok { 0 } else { 101 }),
            ok,
            tail: format!("line {i}: {}", "output text ".repeat(20)),
            head: None,
            event: Some(if ok { "PostToolUse" } else { "PostToolUseFailure" }.into()),
            tool_use_id: Some(format!("toolu_{i:06}")),
            agent: None,
            ms: Some(40),
            trust: None,
            tree: None,
            file: None,
            summary: None,
            background: None,
            imported: None,
            host: None,
            chain: None,
            mac: None,
        };
        journal.append(&r)?;
        i += 1;
    }
    // Ledger: 50 closed cards whose citations all name commands from the *oldest*
    // generation (the first records written), so a scan reads every generation and
    // then lets the stop through: the close guard's whole path, at its most expensive.
    let passing: Vec<usize> = (0..COMMANDS.len()).filter(|j| !(j + 4).is_multiple_of(7)).collect();
    let mut ledger = String::from("# Ledger\n\nMODE: full\n\n");
    for c in 0..50 {
        let cited = format!("{} # 0", COMMANDS[passing[c % passing.len()]]);
        ledger.push_str(&format!(
            "- [x] {c}. card number {c} -- evidence: `{cited}` -> exit 0 as expected\n"
        ));
    }
    std::fs::write(fable.join("LEDGER.md"), ledger).at(fable.join("LEDGER.md"))?;
    // Rules store: 200 promoted rules in the pinned rule format, with the optional anchors
    // the learner writes.
    let rules: Vec<Value> = (0..200)
        .map(|k| {
            let domain = ["git", "cargo", "npm", "pytest", "make"][k % 5];
            json!({"id": format!("R-{k}"), "domain": domain,
                "trigger": format!("{} fails with error code E{:04} in module m{k}", COMMANDS[k % COMMANDS.len()], k),
                "directive": format!("run `fix-step-{k}` then retry"), "status": "promoted", "verdict": "pass",
                "reason": "pass", "prevented": 5, "broken": 0, "near_misses": 0, "precision": 1.0,
                "wilson": [0.566, 1.0], "support": [format!("bench-{k}:1")],
                // As the learner stores them: the anchors the trigger must share.
                "anchors": [format!("E{k:04}")]})
        })
        .collect();
    // Sealed as the learner seals its own promotions: unsealed rules are shown to no one,
    // so without the seal SessionStart and failures would measure the cheap path of
    // parsing 200 rules and showing none of them.
    let mut rules: Vec<crate::learn::Rule> =
        serde_json::from_value(Value::Array(rules)).map_err(|e| Error::msg(e.to_string()))?;
    if let Some(sealer) = journal.sealer() {
        let scope = crate::learn::rule_seal::scope(&fable);
        for r in &mut rules {
            crate::learn::rule_seal::seal(r, &sealer.key, &scope);
        }
    }
    let p = fable.join("rules.json");
    std::fs::write(&p, serde_json::to_string_pretty(&rules).unwrap_or_default()).at(&p)?;
    crate::measure::bench_transcript::build(root)
}

fn payload(hook: &str, root: &Path, n: usize) -> Value {
    let cwd = root.display().to_string();
    let transcript = crate::measure::bench_transcript::path(root).display().to_string();
    let common = |event: &str| json!({"session_id": "bench-session", "transcript_path": transcript, "cwd": cwd, "hook_event_name": event});
    let mut v = match hook {
        h if alternates(h) && n.is_multiple_of(2) => {
            let mut v = common("PostToolUse");
            v["tool_input"] = json!({"command": COMMANDS[n % COMMANDS.len()]});
            v["tool_response"] = json!({"stdout": "ok\n".repeat(50), "stderr": "", "interrupted": false});
            v
        }
        "fable-evidence" | "fable-fail-streak" => {
            let mut v = common("PostToolUseFailure");
            v["tool_input"] = json!({"command": "cargo test --workspace"});
            v["error"] = json!("Exit code 101\nerror[E0432]: unresolved import `crate::foo`\n --> src/lib.rs:3:5");
            v
        }
        "fable-close-guard" => {
            let mut v = common("Stop");
            v["stop_hook_active"] = json!(false);
            v
        }
        "fable-spawn-guard" => {
            let mut v = common("PreToolUse");
            v["tool_name"] = json!("Agent");
            v["tool_input"] =
                json!({"description": "implement", "prompt": "x".repeat(2000), "subagent_type": "general-purpose"});
            v
        }
        "fable-log-guard" => {
            let mut v = common("PreToolUse");
            v["tool_input"] = json!({"command": "cargo test --workspace 2>&1 | tee test.log"});
            v
        }
        "fable-inject" => {
            let mut v = common("SessionStart");
            v["source"] = json!("startup");
            v["model"] = json!("claude-sonnet-4-5");
            v
        }
        _ => {
            let mut v = common("SessionEnd");
            v["reason"] = json!("exit");
            v
        }
    };
    v["tool_use_id"] = json!(format!("toolu_bench_{n}"));
    v
}

/// A hook process as the bench starts it: in the project, stdin piped, output discarded.
fn hook_command(bin: &Path, root: &Path, env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(bin);
    c.current_dir(root)
        .env("CLAUDE_PROJECT_DIR", root)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// The close guard must let the generated project's stop through, or the bench would time
/// the blocking path (a full scan to explain each citation) and call it the common one.
fn allowed_stop(bin: &Path, root: &Path, env: &[(&str, &str)]) -> Result<()> {
    let mut child = hook_command(bin, root, env).stdout(Stdio::piped()).spawn().at(bin)?;
    if let Some(mut s) = child.stdin.take() {
        let _ = s.write_all(payload("fable-close-guard", root, 0).to_string().as_bytes());
    }
    let out = child.wait_with_output().at(bin)?;
    let said = String::from_utf8_lossy(&out.stdout);
    if said.contains("\"decision\":\"block\"") {
        return Err(Error::msg(format!(
            "bench setup: the close guard blocks the generated project's stop, so it would time the wrong path: {}",
            said.chars().take(300).collect::<String>()
        )));
    }
    Ok(())
}

/// Spawns `bin` once with `stdin`, returning wall milliseconds, exit code and peak RSS (KiB).
fn spawn_once(bin: &Path, root: &Path, stdin: &[u8], env: &[(&str, &str)]) -> Result<(f64, i32, i64)> {
    let start = Instant::now();
    let mut child = hook_command(bin, root, env).spawn().at(bin)?;
    if let Some(mut s) = child.stdin.take() {
        let _ = s.write_all(stdin);
    }
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child, which we reap here
    // instead of through `Child::wait` so its resource usage is ours to read.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    if r < 0 {
        return Err(Error::io(bin, std::io::Error::last_os_error()));
    }
    let code = std::process::ExitStatus::from_raw(status).code().unwrap_or(-1);
    Ok((ms, code, usage.ru_maxrss))
}

fn timing(hook: &str, mut samples: Vec<f64>, rss: i64, target: f64, exit_codes: Vec<i32>) -> HookTiming {
    samples.sort_by(f64::total_cmp);
    let p50 = percentile(&samples, 50.0);
    HookTiming {
        hook: hook.to_string(),
        runs: samples.len(),
        p50_ms: p50,
        p99_ms: percentile(&samples, 99.0),
        max_ms: *samples.last().unwrap_or(&f64::NAN),
        peak_rss_kb: rss,
        target_ms: target,
        met: p50 <= target,
        added_ms: None,
        added_target_ms: if hook == "fable-close-guard" { 1.0 } else { 0.5 },
        added_met: None,
        exit_codes,
    }
}

/// Whether [`payload`] alternates a success (even runs) and a failure (odd runs).
fn alternates(hook: &str) -> bool {
    matches!(hook, "fable-evidence" | "fable-fail-streak")
}

/// The time a hook adds over the baseline process of the same run.
fn with_floor(mut t: HookTiming, floor: Option<f64>) -> HookTiming {
    if let Some(floor) = floor {
        t.added_ms = Some(t.p50_ms - floor);
        t.added_met = Some(t.p50_ms - floor <= t.added_target_ms);
    }
    t
}

/// Time ratios between consecutive learning sizes (10× the records should cost ≤ 12×).
fn learn_scaling(learn: &[Value]) -> Vec<Value> {
    learn
        .windows(2)
        .filter_map(|w| {
            let (a, b) = (w[0]["total_ms"].as_f64()?, w[1]["total_ms"].as_f64()?);
            Some(json!({"from": w[0]["records"], "to": w[1]["records"], "time_ratio": b / a.max(1e-9)}))
        })
        .collect()
}

/// Measures every hook (or `only`) `runs` times in a fresh generated project.
pub fn measure_hooks(bin_dir: &Path, runs: usize, only: &[String], progress: bool) -> Result<Vec<HookTiming>> {
    let tmp = std::env::temp_dir().join(format!("fable-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let root = tmp.join("project");
    let state = tmp.join("state");
    let fresh = || -> Result<()> {
        let _ = std::fs::remove_dir_all(&tmp);
        build_state(&root, &state)
    };
    fresh()?;
    let state_s = state.display().to_string();
    let env = [
        ("XDG_STATE_HOME", state_s.as_str()),
        ("FABLE_CONFIG_DIR", state_s.as_str()),
    ];
    let mut out = Vec::new();
    // The cost of starting any process here, for reading the hook rows against.
    if let Some(t) = ["/bin/true", "/usr/bin/true"]
        .iter()
        .map(Path::new)
        .find(|p| p.exists())
    {
        let mut samples = Vec::with_capacity(runs);
        let mut rss = 0;
        for _ in 0..runs {
            let (ms, _, r) = spawn_once(t, &root, b"{}", &env)?;
            samples.push(ms);
            rss = rss.max(r);
        }
        out.push(timing("baseline:/bin/true", samples, rss, f64::INFINITY, vec![0]));
    }
    for hook in HOOK_BINARIES
        .iter()
        .filter(|h| only.is_empty() || only.iter().any(|o| o == *h))
    {
        let bin = bin_dir.join(hook);
        if !bin.exists() {
            return Err(Error::msg(format!(
                "{} not found; build with `cargo build --release` first",
                bin.display()
            )));
        }
        if progress {
            eprintln!("bench: {hook} × {runs}");
        }
        fresh()?;
        if *hook == "fable-close-guard" {
            allowed_stop(&bin, &root, &env)?;
        }
        let mut samples = Vec::with_capacity(runs);
        let mut rss = 0;
        let mut codes = std::collections::BTreeSet::new();
        for n in 0..runs {
            // The assistant entry of each call (and of each stop: a stop key repeated
            // would be answered as the same stop delivered twice).
            crate::measure::bench_transcript::turn(&root, n)?;
            let p = payload(hook, &root, n).to_string();
            let (ms, code, r) = spawn_once(&bin, &root, p.as_bytes(), &env)?;
            samples.push(ms);
            rss = rss.max(r);
            codes.insert(code);
        }
        let target = if *hook == "fable-close-guard" { 5.0 } else { 2.0 };
        let floor = out.first().filter(|b| b.hook.starts_with("baseline")).map(|b| b.p50_ms);
        // Hooks fed passes and failures in turn also get a row per half: the median of a
        // two-mode mix lands on either mode from run to run and says nothing of both.
        let halves = alternates(hook).then(|| {
            let half = |odd: bool| {
                samples
                    .iter()
                    .skip(usize::from(odd))
                    .step_by(2)
                    .copied()
                    .collect::<Vec<_>>()
            };
            [("success", half(false)), ("failure", half(true))]
        });
        out.push(with_floor(
            timing(hook, samples, rss, target, codes.iter().copied().collect()),
            floor,
        ));
        for (what, s) in halves.into_iter().flatten() {
            let mut t = timing(hook, s, rss, target, codes.iter().copied().collect());
            t.hook = format!("{hook}:{what}");
            out.push(with_floor(t, floor));
        }
    }
    if only.is_empty() || only.iter().any(|o| o.starts_with("fable-evidence")) {
        fresh()?;
        let floor = out.first().filter(|b| b.hook.starts_with("baseline")).map(|b| b.p50_ms);
        let (samples, rss, codes) = crate::measure::bench_codex::measure(bin_dir, &root, &tmp, runs, &env, &COMMANDS)?;
        let mut t = timing("fable-evidence:codex-5mb-rollout", samples, rss, 2.0, codes);
        t.added_target_ms = 1.0;
        out.push(with_floor(t, floor));
    }
    if only.is_empty() || only.iter().any(|o| o.starts_with("fable-close-guard")) {
        let floor = out.first().filter(|b| b.hook.starts_with("baseline")).map(|b| b.p50_ms);
        out.extend(measure_freshness(bin_dir, &tmp, runs, &env, floor, progress)?);
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(out)
}

/// The close guard on a git repository of 10,000 tracked files whose card cites a pass
/// carrying a `tree` (`bench_fresh`): `fresh-10k` with the files as the pass left them,
/// `fresh-10k-relist` with a new git-ignored file before each stop. Each twice: as a user
/// gets it, the pass's watcher answering (`evidence::tree_watch`; Linux), and with
/// `FABLE_WATCH=off`, the guard checking every file itself (a `stat` of each stored folder
/// and file; after the new file the root folder is read again and git asked about the
/// names it has not answered yet). Target: ≤ 10 ms added.
fn measure_freshness(
    bin_dir: &Path,
    tmp: &Path,
    runs: usize,
    env: &[(&str, &str)],
    floor: Option<f64>,
    progress: bool,
) -> Result<Vec<HookTiming>> {
    let root = tmp.join("fresh-10k");
    let _ = std::fs::remove_dir_all(&root);
    let evidence = bin_dir.join("fable-evidence");
    let mut off = env.to_vec();
    off.push(("FABLE_WATCH", "off"));
    // No watcher while the full check is timed (its work on the new logs would share the
    // CPU); the pass is logged again, watched, before the watched rows.
    crate::measure::bench_fresh::build(&root, &evidence, &off)?;
    let bin = bin_dir.join("fable-close-guard");
    allowed_stop(&bin, &root, env)?;
    let mut rows = Vec::new();
    let (mut logs, mut watching) = (0, false);
    for (name, relist, watch) in [
        ("fresh-10k-unwatched", false, false),
        ("fresh-10k-relist-unwatched", true, false),
        ("fresh-10k", false, true),
        ("fresh-10k-relist", true, true),
    ] {
        if watch && !watching {
            crate::measure::bench_fresh::log_pass(&root, &evidence, env, 1)?;
            if !crate::measure::bench_fresh::wait_for_watcher(env) {
                if progress {
                    eprintln!(
                        "bench: no freshness watcher started (not Linux, or FABLE_WATCH=off): the full check only"
                    );
                }
                break;
            }
            watching = true;
        }
        if progress {
            eprintln!("bench: fable-close-guard:{name} × {runs}");
        }
        let env = if watch { env } else { &off[..] };
        let (mut samples, mut rss, mut codes) = (Vec::with_capacity(runs), 0, std::collections::BTreeSet::new());
        for n in 0..runs {
            if relist {
                // A new ignored file before each stop: the root folder moved every time.
                logs += 1;
                std::fs::write(root.join(format!("run-{logs}.log")), "log\n").at(&root)?;
            }
            crate::measure::bench_transcript::turn(&root, n)?;
            let p = payload("fable-close-guard", &root, n).to_string();
            let (ms, code, r) = spawn_once(&bin, &root, p.as_bytes(), env)?;
            samples.push(ms);
            rss = rss.max(r);
            codes.insert(code);
        }
        let mut t = timing("fable-close-guard", samples, rss, 11.0, codes.into_iter().collect());
        t.hook = format!("fable-close-guard:{name}");
        t.added_target_ms = 10.0;
        rows.push(with_floor(t, floor));
    }
    let _ = std::fs::remove_dir_all(&root);
    Ok(rows)
}

/// `--keep DIR`: the generated projects (`project`, `fresh-10k`), the user state (`state`)
/// and one payload file per hook and half (`payload.<hook>[.success|.failure]`), so one
/// hook run can be profiled on exactly what the bench times.
fn keep(bin_dir: &Path, dir: &Path) -> Result<i32> {
    let dir = std::path::absolute(dir).at(dir)?;
    let _ = std::fs::remove_dir_all(&dir);
    let (root, state) = (dir.join("project"), dir.join("state"));
    build_state(&root, &state)?;
    let state_s = state.display().to_string();
    let env = [
        ("XDG_STATE_HOME", state_s.as_str()),
        ("FABLE_CONFIG_DIR", state_s.as_str()),
    ];
    crate::measure::bench_fresh::build(&dir.join("fresh-10k"), &bin_dir.join("fable-evidence"), &env)?;
    for hook in HOOK_BINARIES {
        let halves: &[(&str, usize)] = if alternates(hook) {
            &[(".success", 0), (".failure", 1)]
        } else {
            &[("", 0)]
        };
        for (suffix, n) in halves {
            crate::measure::bench_transcript::turn(&root, *n)?;
            let p = dir.join(format!("payload.{hook}{suffix}"));
            std::fs::write(&p, payload(hook, &root, *n).to_string()).at(&p)?;
        }
    }
    let p = dir.join("payload.fable-close-guard.fresh");
    std::fs::write(&p, payload("fable-close-guard", &dir.join("fresh-10k"), 0).to_string()).at(&p)?;
    let howto = format!(
        "cd {0}/project && env XDG_STATE_HOME={1} FABLE_CONFIG_DIR={1} CLAUDE_PROJECT_DIR=$PWD \
         valgrind --tool=callgrind BIN/fable-evidence < {0}/payload.fable-evidence.failure\n\
         fresh-10k: the same in {0}/fresh-10k with payload.fable-close-guard.fresh; a watcher\n\
         answers its stops for 30 minutes (FABLE_WATCH=off profiles the full check).\n\
         Each run changes the state (a log line, a claim): build again with --keep.\n",
        dir.display(),
        state.display()
    );
    let p = dir.join("README");
    std::fs::write(&p, howto).at(&p)?;
    println!("{}", dir.display());
    Ok(0)
}

pub fn run(a: &BenchArgs) -> Result<i32> {
    let bin_dir = match &a.bin_dir {
        Some(d) => d.clone(),
        None => std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .ok_or_else(|| Error::msg("cannot locate the hook binaries; pass --bin-dir"))?,
    };
    if let Some(n) = a.learn_child {
        let dir = a
            .learn_dir
            .as_deref()
            .ok_or_else(|| Error::msg("--learn-child needs --learn-dir"))?;
        return crate::measure::bench_learn::child(n, dir);
    }
    if let Some(dir) = &a.keep {
        return keep(&bin_dir, dir);
    }
    if a.runs == 0 {
        return Err(Error::msg("--runs must be at least 1"));
    }
    // `fable` restores SIGPIPE's default (`cli::main`) so that `| head` ends it quietly; here a
    // child that exits without reading its stdin (`/bin/true`, a hook failing open) would
    // then kill the bench in the middle of `write_all`, exit 141 and no table. The write's
    // EPIPE is already tolerated, so the bench ignores the signal.
    // SAFETY: setting a signal disposition; the bench has started no thread yet.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let hooks = if a.skip_hooks {
        Vec::new()
    } else {
        measure_hooks(&bin_dir, a.runs, &a.only, !a.json)?
    };
    let learn = if a.skip_learn {
        Vec::new()
    } else {
        crate::measure::bench_learn::measure(&a.learn_sizes, !a.json)?
    };
    let scaling = learn_scaling(&learn);
    if a.json {
        println!(
            "{}",
            json!({"version": 1, "hooks": hooks, "learn": learn, "learn_scaling": scaling})
        );
        return Ok(0);
    }
    if !hooks.is_empty() {
        // As wide as the longest row name (`fable-close-guard:fresh-10k-relist-unwatched`).
        let w = hooks.iter().map(|h| h.hook.chars().count()).max().unwrap_or(0).max(34);
        println!(
            "{:<w$} {:>6} {:>8} {:>8} {:>8} {:>10} {:>12} {:>14}",
            "hook", "runs", "p50 ms", "p99 ms", "max ms", "peak RSS", "target", "added (target)"
        );
        let verdict = |met: bool| if met { "met" } else { "MISSED" };
        for h in &hooks {
            let added = match (h.added_ms, h.added_met) {
                (Some(a), Some(m)) => format!("{a:+.2} (≤{}) {}", h.added_target_ms, verdict(m)),
                _ => "—".to_string(),
            };
            println!(
                "{:<w$} {:>6} {:>8.2} {:>8.2} {:>8.2} {:>7} KiB {:>5} {:<6} {added}",
                h.hook,
                h.runs,
                h.p50_ms,
                h.p99_ms,
                h.max_ms,
                h.peak_rss_kb,
                format!("≤{}", h.target_ms),
                verdict(h.met)
            );
        }
    }
    if !learn.is_empty() {
        println!(
            "\n{:>10} {:>10} {:>10} {:>12} {:>12}",
            "records", "parse ms", "total ms", "peak RSS", "candidates"
        );
        for l in &learn {
            println!(
                "{:>10} {:>10.0} {:>10.0} {:>8} KiB {:>12}",
                l["records"],
                l["parse_ms"].as_f64().unwrap_or(f64::NAN),
                l["total_ms"].as_f64().unwrap_or(f64::NAN),
                l["peak_rss_kb"],
                l["candidates"]
            );
        }
        for s in &scaling {
            println!(
                "scaling {}→{} records: {:.1}× the time (target ≤ 12× for 10× the records)",
                s["from"],
                s["to"],
                s["time_ratio"].as_f64().unwrap_or(f64::NAN)
            );
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn nearest_rank_percentiles() {
        let s: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&s, 50.0), 50.0);
        assert_eq!(percentile(&s, 99.0), 99.0);
        assert_eq!(percentile(&[3.0], 99.0), 3.0);
        assert!(percentile(&[], 50.0).is_nan());
    }
}
