//! Scale check of the pure pipeline: a synthetic history of realistic records (many
//! domains, recurring failures, long successful outputs). Ignored by default (it wants a
//! release build); run with
//! `FABLE_PERF_N=100000 cargo test --release --test learn_perf -- --ignored --nocapture`.

use fable::evidence::Record;
use fable::learn::{run_pipeline, LearnConfig};

fn rec(i: usize, session: usize, cmd: &str, ok: bool, tail: &str) -> Record {
    Record {
        v: 1,
        ts: format!("2026-12-02T12:00:00.{:03}Z", i % 1000),
        session: format!("s{session}"),
        cwd: "/w".into(),
        cmd: cmd.into(),
        exit: Some(if ok { 0 } else { 1 }),
        ok,
        tail: tail.into(),
        head: None,
        event: None,
        tool_use_id: None,
        agent: None,
        ms: None,
        trust: None,
        tree: None,
        file: None,
        summary: None,
        background: None,
        imported: None,
        host: None,
        chain: None,
        mac: None,
    }
}

pub fn synthetic(n: usize) -> Vec<Record> {
    let fails: &[(&str, &str, &str)] = &[
        ("git push origin main", " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'origin'", "git pull --rebase"),
        ("python app.py", "Traceback (most recent call last):\n  File \"app.py\", line 3\nModuleNotFoundError: No module named 'requests'", "pip install requests"),
        ("cargo build", "error[E0432]: unresolved import `crate::foo`\n --> src/lib.rs:3:5", "cargo add foo"),
        ("npm install", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree", "npm install react@18"),
        ("docker compose up -d", "Error: port is already allocated", "docker compose down"),
        ("pytest tests/", "FAILED tests/test_a.py::test_x - AssertionError: assert 1 == 2", "pytest tests/ -x"),
    ];
    let oks: &[(&str, &str)] = &[
        ("git status", "On branch main\nnothing to commit, working tree clean"),
        ("git log --oneline -5", "a1b2c3d fix\ne4f5a6b feat"),
        ("cargo test", "running 120 tests\ntest result: ok. 120 passed; 0 failed"),
        ("ls -la", "total 12\ndrwxr-xr-x 2 u u 4096 ."),
        ("npm run build", "> app@1.0.0 build\n> vite build\n✓ built in 2.31s"),
        ("python -m pytest -q", "........ [100%]\n8 passed in 0.12s"),
    ];
    let mut h = Vec::with_capacity(n);
    let mut i = 0;
    while h.len() < n {
        let session = i / 40;
        if i % 10 == 3 {
            let (c, t, fix) = fails[(i / 10) % fails.len()];
            h.push(rec(i, session, c, false, t));
            h.push(rec(i + 1, session, fix, true, "ok"));
            h.push(rec(i + 2, session, c, true, "done"));
            i += 3;
        } else {
            let (c, t) = oks[i % oks.len()];
            h.push(rec(i, session, c, true, &t.repeat(1 + i % 5)));
            i += 1;
        }
    }
    h.truncate(n);
    h
}

#[test]
#[ignore]
fn pipeline_scales() {
    let n: usize = std::env::var("FABLE_PERF_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let h = synthetic(n);
    let before = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS")).map(str::to_string))
        .unwrap_or_default();
    println!("history built: {before}");
    let t = std::time::Instant::now();
    let out = run_pipeline(&h, &LearnConfig::default());
    let ms = t.elapsed().as_millis();
    let rss = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM")).map(str::to_string))
        .unwrap_or_default();
    println!(
        "n={n} records: {ms} ms, {} episodes, {} candidates, {} promoted; {rss}",
        out.episodes,
        out.candidates.len(),
        out.candidates.iter().filter(|l| l.rule.status == "promoted").count()
    );
}
