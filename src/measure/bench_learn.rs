//! The learning half of `fable bench`: the pipeline over generated histories.
//!
//! Each size runs in a child process of its own (`fable bench --learn-child N`), so its
//! peak RSS is its own and not the maximum of everything before it. The child writes a
//! synthetic log through the evidence journal, sealed with a key of its own, then times
//! what `fable-learn` does with a real log: read and verify every generation into a
//! compact history and run the pipeline on it. Targets: 100k records ≤ 2 s and
//! ≤ 200 MB peak, 1M records ≤ 300 MB peak; 10× the records costs ≤ 12× the time.

use crate::error::{Error, Result};
use crate::evidence::journal::{Journal, Rotation};
use crate::evidence::Record;
use crate::learn::pipeline::run_history;
use crate::learn::session_end::each_record;
use crate::learn::LearnConfig;
use crate::learn::{HistoryBuilder, Records};
use serde_json::json;
use std::time::Instant;

/// A small deterministic generator (64-bit LCG): the same history on every machine.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[(self.next() as usize) % xs.len()]
    }
}

const MODULES: [&str; 8] = ["requests", "numpy", "yaml", "pandas", "flask", "torch", "attr", "click"];
const NAMES: [&str; 8] = ["parser", "config", "auth", "store", "api", "cli", "model", "util"];

/// A failure with its real-world shape, and the command that fixes it.
fn failure(r: &mut Lcg) -> (String, String, i64, String) {
    let m = *r.pick(&MODULES);
    let n = *r.pick(&NAMES);
    let line = r.next() % 400 + 1;
    match r.next() % 7 {
        0 => (
            "git push origin main".into(),
            format!("To ../remote.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to '../remote.git'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally. ({line})"),
            1,
            "git pull --rebase".into(),
        ),
        1 => (
            format!("python3 src/{n}.py"),
            format!("Traceback (most recent call last):\n  File \"/home/dev/app/src/{n}.py\", line {line}, in <module>\n    import {m}\nModuleNotFoundError: No module named '{m}'"),
            1,
            format!("pip install {m}"),
        ),
        2 => (
            "cargo build".into(),
            format!("   Compiling app v0.1.0 (/home/dev/app)\nerror[E0432]: unresolved import `crate::{n}`\n --> src/lib.rs:{line}:5\n  |\n{line} | use crate::{n}::Thing;\n  |     ^^^^^^^^^^^ could not find `{n}` in the crate root\n\nerror: could not compile `app` (lib) due to 1 previous error"),
            101,
            format!("touch src/{n}.rs"),
        ),
        3 => (
            "npm run lint".into(),
            "npm error Missing script: \"lint\"\nnpm error\nnpm error To see a list of scripts, run:\nnpm error   npm run".into(),
            1,
            "npm pkg set scripts.lint=eslint".into(),
        ),
        4 => (
            format!("python3 -m http.server {}", 8000 + line),
            format!("OSError: [Errno 98] Address already in use (port {})", 8000 + line),
            1,
            format!("fuser -k {}/tcp", 8000 + line),
        ),
        5 => (
            "make".into(),
            format!("Makefile:{line}: *** missing separator.  Stop."),
            2,
            "sed -i 's/^    /\\t/' Makefile".into(),
        ),
        _ => (
            format!("./scripts/{n}.sh"),
            format!("bash: ./scripts/{n}.sh: Permission denied"),
            126,
            format!("chmod +x scripts/{n}.sh"),
        ),
    }
}

fn success(r: &mut Lcg) -> (String, String) {
    let n = *r.pick(&NAMES);
    let k = r.next() % 300 + 1;
    match r.next() % 6 {
        0 => (
            "git status".into(),
            format!("On branch main\nChanges not staged for commit:\n\tmodified:   src/{n}.rs\n"),
        ),
        1 => (
            "cargo test".into(),
            format!(
                "running {k} tests\n{}test result: ok. {k} passed; 0 failed; 0 ignored",
                "test x ... ok\n".repeat((k % 40) as usize)
            ),
        ),
        2 => (
            format!("git diff src/{n}.rs"),
            format!("diff --git a/src/{n}.rs b/src/{n}.rs\n@@ -{k},7 +{k},9 @@\n+    let x = {k};\n"),
        ),
        3 => (
            "ls -la src".into(),
            format!("total {k}\n-rw-r--r-- 1 dev dev {k}0 Dec  2 12:00 {n}.rs\n"),
        ),
        4 => (
            "npm run build".into(),
            format!("> app@1.0.0 build\n> vite build\n✓ {k} modules transformed.\n✓ built in 1.{k}s"),
        ),
        _ => (
            format!("python3 -m pytest -q tests/test_{n}.py"),
            format!("{}\n{k} passed in 0.{k}s", ".".repeat((k % 60) as usize)),
        ),
    }
}

/// Calls `sink` with each of `n` synthetic records: sessions of ~40 commands, mostly
/// successes, with recurring failure classes fixed the way real sessions fix them, and
/// some flaky retries. Streamed, so generating a large log holds no more than one record.
pub fn synthetic_records(n: usize, mut sink: impl FnMut(Record) -> Result<()>) -> Result<()> {
    let mut r = Lcg(0x5eed);
    let mut i = 0usize;
    let mut push = |i: &mut usize, cmd: &str, exit: i64, tail: &str| -> Result<()> {
        if *i >= n {
            return Ok(());
        }
        let rec = Record {
            v: 1,
            ts: format!(
                "2026-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                1 + (*i / 2_000_000) % 12,
                1 + (*i / 80_000) % 28,
                (*i / 3600) % 24,
                (*i / 60) % 60,
                *i % 60,
                *i % 1000
            ),
            session: format!("bench-{}", *i / 40),
            cwd: "/home/dev/app".into(),
            cmd: cmd.into(),
            exit: Some(exit),
            ok: exit == 0,
            tail: tail.into(),
            head: None,
            event: Some(if exit == 0 { "PostToolUse" } else { "PostToolUseFailure" }.into()),
            tool_use_id: Some(format!("toolu_{i:08}")),
            agent: None,
            ms: Some(10 + (*i as u64 % 900)),
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
        *i += 1;
        sink(rec)
    };
    while i < n {
        if r.next().is_multiple_of(10) {
            let (cmd, tail, exit, fix) = failure(&mut r);
            push(&mut i, &cmd, exit, &tail)?;
            if r.next().is_multiple_of(5) {
                // Flaky: the same command passes unchanged.
                push(&mut i, &cmd, 0, "ok")?;
            } else {
                push(&mut i, &fix, 0, "")?;
                push(&mut i, &cmd, 0, "done")?;
            }
        } else {
            let (cmd, tail) = success(&mut r);
            push(&mut i, &cmd, 0, &tail)?;
        }
    }
    Ok(())
}

/// The synthetic log of `n` records as JSONL text.
pub fn synthetic_jsonl(n: usize) -> String {
    let mut out = String::new();
    let _ = synthetic_records(n, |rec| {
        out.push_str(&rec.to_line());
        Ok(())
    });
    out
}

/// Rotation for the generated log: large enough generations that `n` records all stay
/// in the history the learner reads (a user who keeps 100k records configures this).
const GEN_BYTES: u64 = 8 * 1024 * 1024;

/// The environment a child runs under: its own user state (the sealing key) and a
/// rotation that keeps every generated record.
fn child_env(dir: &std::path::Path, n: usize) -> Vec<(String, String)> {
    let keep = (n * 600) as u64 / GEN_BYTES + 2;
    vec![
        ("XDG_STATE_HOME".into(), dir.join("state").display().to_string()),
        ("FABLE_EVIDENCE_MAX_BYTES".into(), GEN_BYTES.to_string()),
        ("FABLE_EVIDENCE_KEEP".into(), keep.to_string()),
    ]
}

/// CPU time (user + system) this process has used, in ms: on a loaded machine the wall
/// clock measures the neighbours; this measures the work.
fn cpu_ms() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces): utime and stime are the
    // 12th and 13th of them.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 1000.0 / 100.0)
}

fn vm_hwm_kb() -> Option<u64> {
    status_kb("VmHWM:")
}

fn status_kb(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The child's job: write a sealed log of `n` records into a project under `dir` the way
/// the evidence hook does, then time what `fable-learn` does with it — read every
/// generation, verify every seal and normalise each record as it is read into a compact
/// history ([`each_record`], [`HistoryBuilder`]: `parse_ms`), then [`run_history`]. Prints one
/// JSON line. Peak RSS covers the whole process, generation included (it streams).
pub fn child(n: usize, dir: &std::path::Path) -> Result<i32> {
    let get = |k: &str| std::env::var(k).ok();
    let project = crate::project::Project::at(dir.join("project"));
    std::fs::create_dir_all(&project.fable_dir).map_err(|e| Error::io(&project.fable_dir, e))?;
    let sealer = crate::evidence::seal::Sealer::for_user(get, &project.fable_dir).map_err(Error::msg)?;
    let journal = Journal::new(&project.fable_dir, Rotation::from_lookup(get)).with_sealer(Some(sealer));
    let written = Instant::now();
    synthetic_records(n, |rec| journal.append(&rec).map(|_| ()))?;
    let write_ms = written.elapsed().as_secs_f64() * 1000.0;
    let start = Instant::now();
    let cpu_start = cpu_ms();
    let mut b = HistoryBuilder::default();
    let mut untrusted = 0;
    each_record(&project, |r| {
        untrusted += usize::from(r.trust.is_some());
        b.push(&r)
    })?;
    let history = b.finish();
    let parsed_ms = start.elapsed().as_secs_f64() * 1000.0;
    let loaded_rss = status_kb("VmRSS:");
    let outcome = run_history(&history, &LearnConfig::default(), None);
    let total_ms = start.elapsed().as_secs_f64() * 1000.0;
    let cpu = cpu_ms().zip(cpu_start).map(|(b, a)| b - a);
    println!(
        "{}",
        json!({"records": history.len(), "unverified": untrusted, "write_ms": write_ms, "parse_ms": parsed_ms, "total_ms": total_ms, "cpu_ms": cpu,
            "episodes": outcome.episodes, "candidates": outcome.candidates.len(), "loaded_rss_kb": loaded_rss, "peak_rss_kb": vm_hwm_kb()})
    );
    Ok(0)
}

/// Runs each size in its own child process and collects the lines.
pub fn measure(sizes: &[usize], progress: bool) -> Result<Vec<serde_json::Value>> {
    let exe = std::env::current_exe().map_err(|e| Error::io("current_exe", e))?;
    let mut out = Vec::new();
    for &n in sizes {
        if progress {
            eprintln!("bench: learning pipeline on {n} records");
        }
        let dir = std::env::temp_dir().join(format!("fable-bench-learn-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let o = std::process::Command::new(&exe)
            .args(["bench", "--learn-child", &n.to_string(), "--learn-dir"])
            .arg(&dir)
            .envs(child_env(&dir, n))
            .output()
            .map_err(|e| Error::io(&exe, e));
        let _ = std::fs::remove_dir_all(&dir);
        let o = o?;
        if !o.status.success() {
            return Err(Error::msg(format!(
                "learning bench on {n} records failed: {}",
                String::from_utf8_lossy(&o.stderr)
            )));
        }
        let v: serde_json::Value =
            serde_json::from_slice(&o.stdout).map_err(|e| Error::msg(format!("bench child output: {e}")))?;
        out.push(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_is_deterministic_exact_and_parseable() {
        let a = synthetic_jsonl(500);
        assert_eq!(a, synthetic_jsonl(500));
        assert_eq!(a.lines().count(), 500);
        let mut read = crate::evidence::journal::ReadOutcome::default();
        crate::evidence::journal::read_lines_into(a.as_bytes(), &mut read);
        assert_eq!((read.records.len(), read.malformed), (500, 0));
        let fails = read.records.iter().filter(|r| !r.ok).count();
        assert!(fails > 20 && fails < 100, "{fails}");
    }
}
