//! Acceptance replay: re-run the commands cited on closed cards before the round ends.
//! "Passed once" is not "still passes" — a later card can break an earlier one.
//!
//! Guarded so a ledger cannot become a way to execute code: a command is replayed only
//! when it is cited on a `- [x]` card **and** its newest record in this project's log is a
//! pass (so the agent already ran it, as written), **and** it is a check — a test, build
//! or lint runner, or a run whose output carried a test summary — and only in a project
//! the user trusts on this machine ([`crate::setup::trust_store`]). Anything else cited
//! (`./deploy.sh`, `mkdir build`, `git push`) ran once because the agent meant it to;
//! running it again at stop would deploy twice, or fail for ever on what the first run
//! made. Those are skipped and said, never run. What runs is the **record's own text**,
//! never the citation: a citation is whitespace-collapsed (a heredoc loses its lines, an
//! NBSP becomes a space), and only the log holds what really ran; a record whose text was
//! redacted is not run at all. Each command runs with `sh -c` in the folder its newest
//! record ran in, in its own process group; when it is over (exit or timeout) the
//! [`reaper`] kills the group and every process it left
//! behind, even those that left the group, so nothing outlives the hook. Per-command
//! timeout and a total budget keep the Stop hook inside its registered host timeout (180 s
//! in `hooks/hooks.json`).

use crate::discipline::corroborate::{strip_cd, Index};
use crate::discipline::ledger::{normalize, Ledger};
use crate::discipline::reaper::{self, Reap};
use crate::error::Result;
use crate::evidence::{now_ts, tail_chars, Record};
use crate::project::Project;
use serde_json::json;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
pub const DEFAULT_BUDGET_SECS: f64 = 120.0;
/// The Stop hook is registered with `timeout: 180`; the budget stays below it with room
/// for the rest of the hook, or the host would kill us mid-replay.
pub const MAX_BUDGET_SECS: f64 = 170.0;
/// How much output a replay keeps (the record's tail cap).
const KEEP_BYTES: usize = 16 * 1024;
/// How many output characters a failure message quotes.
pub const QUOTE_CHARS: usize = 160;

/// Time limits, from `FABLE_REPLAY_TIMEOUT` and `FABLE_REPLAY_BUDGET` (seconds), and
/// what the reaper may kill when a command is over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub per_command: Duration,
    pub budget: Duration,
    pub reap: Reap,
}

impl Settings {
    /// The settings of a replaying binary (the Stop hook, `fable replay`): it has no
    /// children of its own, so the reaper may kill every descendant ([`Reap::Descendants`]).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Settings {
        let secs = |k: &str, d: f64| {
            get(k)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s > 0.0)
                .unwrap_or(d)
        };
        let budget = secs("FABLE_REPLAY_BUDGET", DEFAULT_BUDGET_SECS).min(MAX_BUDGET_SECS);
        let per = secs("FABLE_REPLAY_TIMEOUT", DEFAULT_TIMEOUT_SECS).min(budget);
        Settings {
            per_command: Duration::from_secs_f64(per),
            budget: Duration::from_secs_f64(budget),
            reap: Reap::Descendants,
        }
    }
}

/// One command to replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The citation as written on the card (normalised): what messages show.
    pub cited: String,
    /// What `sh -c` runs: the newest record's command text exactly as logged (without
    /// the leading `cd <dir> &&` the citation matched past). Never the citation.
    pub command: String,
    /// Where it runs.
    pub dir: PathBuf,
}

/// How one replay ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Passed,
    Failed {
        exit: Option<i32>,
    },
    TimedOut {
        after: Duration,
    },
    /// Not run (budget spent, folder gone, the logged text was redacted, spawn failed).
    NotRun {
        why: String,
    },
}

#[derive(Debug, Clone)]
pub struct RunResult {
    pub job: Job,
    pub outcome: Outcome,
    /// The last bytes of combined stdout+stderr.
    pub output: String,
    pub ms: u64,
}

impl RunResult {
    pub fn passed(&self) -> bool {
        self.outcome == Outcome::Passed
    }

    /// `` `cmd` -> reason `` with the last 160 characters of output.
    pub fn describe(&self) -> String {
        let tail = tail_chars(self.output.trim_end(), QUOTE_CHARS).replace('\n', " ⏎ ");
        let tail = if tail.is_empty() {
            String::new()
        } else {
            format!(": …{tail}")
        };
        match &self.outcome {
            Outcome::Passed => format!("`{}` -> passed", self.job.cited),
            Outcome::Failed { exit } => format!(
                "`{}` -> exit {}{tail}",
                self.job.cited,
                exit.map_or("by signal".into(), |e| e.to_string())
            ),
            Outcome::TimedOut { after } => {
                format!(
                    "`{}` -> timed out after {:.1}s{tail}",
                    self.job.cited,
                    after.as_secs_f64()
                )
            }
            Outcome::NotRun { why } => format!("`{}` -> not replayed: {why}", self.job.cited),
        }
    }

    /// The evidence record of this replay (`event: "Replay"`), unless it never ran.
    pub fn to_record(&self, session: &str) -> Option<Record> {
        let exit = match &self.outcome {
            Outcome::Passed => Some(0),
            Outcome::Failed { exit } => exit.map(i64::from),
            Outcome::TimedOut { .. } => Some(124),
            Outcome::NotRun { .. } => return None,
        };
        let tail = crate::evidence::redact::redact(&self.output);
        // The text that ran, so the next replay (which reads this record as the newest)
        // runs it again verbatim; it matches the citation as the logged record did.
        let cmd = crate::evidence::redact::redact(&self.job.command);
        let cwd = self.job.dir.to_string_lossy().into_owned();
        let head = crate::evidence::head_if_cut(&tail);
        let tail = tail_chars(&tail, crate::evidence::MAX_TAIL_CHARS);
        Some(Record {
            event: Some("Replay".into()),
            head,
            ms: Some(self.ms),
            // The replay's own output says what it ran: a test summary keeps it a check.
            summary: crate::evidence::summary::parse(&self.job.command, &self.output),
            ..Record::new(now_ts(), session, cwd, cmd, exit, self.passed(), tail)
        })
    }
}

/// Where a cited command replays: the folder its newest record names. Claude Code
/// reports the shell's cwd *after* the command (`cd sub && pytest -q` is logged with cwd
/// `…/sub`, verified against the real CLI in `tests/e2e_evidence.rs`), which is exactly
/// where the cited part ran; a record without an absolute cwd replays at the project root.
///
/// What runs is the record's text ([`logged_text`]), not `cited`: the citation went
/// through whitespace collapsing, which turns a heredoc into a different command and an
/// NBSP inside an argument into a word break.
fn job_for(cited: &str, rec: &Record, root: &Path) -> Job {
    let cwd = Path::new(&rec.cwd);
    let dir = if cwd.is_absolute() { cwd } else { root };
    Job {
        cited: cited.into(),
        command: logged_text(cited, &rec.cmd).into(),
        dir: dir.into(),
    }
}

/// The part of a logged command that the citation names, verbatim: the whole text, or,
/// when the citation matched past a leading `cd <dir> &&` ([`Index`]'s one allowance),
/// the text after it — the record's cwd is already that folder. Should neither match
/// (they cannot: `Index` matched the same way), the whole logged text: it is what ran.
fn logged_text<'a>(cited: &str, logged: &'a str) -> &'a str {
    let want = normalize(cited);
    if normalize(logged) == want {
        return logged;
    }
    match strip_cd(logged.trim_start()) {
        Some((_, rest)) if normalize(rest) == want => rest,
        _ => logged,
    }
}

/// Why a command must not run, if it must not: the log keeps a secret's place with
/// [`MASK`](crate::evidence::redact::MASK) (or `[REDACTED PRIVATE KEY]`), so the logged
/// text is no longer what ran, and running it would be a different command.
fn refusal(command: &str) -> Option<&'static str> {
    use crate::evidence::redact::MASK;
    (command.contains(MASK) || command.contains("[REDACTED PRIVATE KEY]")).then_some(
        "the logged command was redacted (it carried a secret), so replay cannot run what ran; \
         run it by hand, or pass the secret through an environment variable",
    )
}

/// Why a cited command with a passing record is not replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Not a test, build or lint command: replay re-runs checks only.
    NotACheck,
    /// Its logged text carries a redaction mask: what ran is not in the log.
    Redacted,
}

/// A cited command replay leaves alone, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub cited: String,
    pub why: Skip,
}

impl Skipped {
    /// The line said to the user.
    pub fn describe(&self) -> String {
        match self.why {
            Skip::NotACheck => format!(
                "fable: replay skipped `{}`: not a test, build or lint command (replay never re-runs other commands)",
                self.cited
            ),
            Skip::Redacted => format!(
                "fable: replay skipped `{}`: {}",
                self.cited,
                refusal("[REDACTED]").unwrap_or_default()
            ),
        }
    }
}

/// What replay will run, and what it leaves alone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub jobs: Vec<Job>,
    pub skipped: Vec<Skipped>,
}

/// The replay plan: each distinct command cited on a `- [x]` card whose newest record in
/// the log passed, when it is a check whose logged text is whole; the others are skipped.
/// A citation without a passing record is corroboration's business, never replay's.
pub fn plan(ledger: &Ledger, index: &Index, root: &Path) -> Plan {
    let mut plan = Plan::default();
    for card in ledger.done_cards() {
        for cited in card.citations() {
            if plan.jobs.iter().any(|j| j.cited == cited) || plan.skipped.iter().any(|s| s.cited == cited) {
                continue;
            }
            let Some(rec) = index.newest(&cited).filter(|r| r.passed()) else {
                continue;
            };
            let job = job_for(&cited, rec, root);
            let why = if refusal(&job.command).is_some() {
                Some(Skip::Redacted)
            } else if !crate::discipline::replay_check::is_check(&job.command, rec) {
                Some(Skip::NotACheck)
            } else {
                None
            };
            match why {
                Some(why) => plan.skipped.push(Skipped { cited, why }),
                None => plan.jobs.push(job),
            }
        }
    }
    plan
}

/// Runs one job with `sh -c` in its own process group, bounded by `timeout`; when it is
/// over (exit or timeout), [`reaper::sweep`] kills what it left behind, as `reap` allows.
pub fn run_one(job: &Job, timeout: Duration, reap: Reap) -> RunResult {
    let start = Instant::now();
    let done = |outcome: Outcome, output: String| RunResult {
        job: job.clone(),
        outcome,
        output,
        ms: start.elapsed().as_millis() as u64,
    };
    if !job.dir.is_dir() {
        let why = format!("folder {} no longer exists", job.dir.display());
        return done(Outcome::NotRun { why }, String::new());
    }
    if let Some(why) = refusal(&job.command) {
        return done(Outcome::NotRun { why: why.into() }, String::new());
    }
    // Before the spawn, so orphans of this command are re-parented to us, not to init.
    reaper::prepare(reap);
    let spawned = (|| -> std::io::Result<_> {
        let (reader, writer) = std::io::pipe()?;
        let writer2 = writer.try_clone()?;
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&job.command)
            .current_dir(&job.dir)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(writer2)
            .process_group(0);
        let child = cmd.spawn()?;
        // Dropping `cmd` closes our copies of the write end, so EOF can arrive.
        drop(cmd);
        Ok((child, reader))
    })();
    let (mut child, mut reader) = match spawned {
        Ok(x) => x,
        Err(e) => {
            return done(
                Outcome::NotRun {
                    why: format!("cannot start sh: {e}"),
                },
                String::new(),
            )
        }
    };
    let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
    let (tx, rx) = mpsc::channel::<()>();
    let sink = Arc::clone(&buf);
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = reader.read(&mut chunk) {
            if n == 0 {
                break;
            }
            if let Ok(mut b) = sink.lock() {
                b.extend_from_slice(&chunk[..n]);
                if b.len() > 2 * KEEP_BYTES {
                    let cut = b.len() - KEEP_BYTES;
                    b.drain(..cut);
                }
            }
        }
        let _ = tx.send(());
    });
    let pgid = child.id();
    let outcome = match child.wait_timeout(timeout) {
        Ok(Some(status)) => match status.code() {
            Some(0) => Outcome::Passed,
            code => Outcome::Failed { exit: code },
        },
        Ok(None) => {
            reaper::kill_group(pgid);
            let _ = child.wait();
            Outcome::TimedOut { after: timeout }
        }
        Err(e) => {
            reaper::kill_group(pgid);
            let _ = child.wait();
            Outcome::NotRun {
                why: format!("wait failed: {e}"),
            }
        }
    };
    // Stragglers (background children of a command that exited, daemons that left the
    // group) die too. `sh` is reaped above, so the sweep reaping our children is safe.
    reaper::sweep(pgid, reap, reaper::SWEEP_BOUND);
    // A straggler holding the pipe's write end kept `read` blocked; it is dead now, so EOF
    // arrives. The bound stays for one the sweep could not kill.
    let _ = rx.recv_timeout(Duration::from_secs(1));
    let output = buf
        .lock()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    // `cargo test 2>&1 | tail` exits 0 through the pipe: its summary decides, as it does
    // for a logged run.
    let summary_fails = || crate::evidence::summary::parse(&job.command, &output).is_some_and(|s| s.shows_failure());
    let outcome = match outcome {
        Outcome::Passed if summary_fails() => Outcome::Failed { exit: Some(0) },
        o => o,
    };
    done(outcome, output)
}

/// Runs the jobs in order within the budget; once it is spent the rest are not run.
pub fn run_all(jobs: &[Job], settings: Settings) -> Vec<RunResult> {
    let start = Instant::now();
    jobs.iter()
        .map(|job| {
            let left = settings.budget.saturating_sub(start.elapsed());
            if left < Duration::from_millis(50) {
                let why = format!("the {:.0}s replay budget is spent", settings.budget.as_secs_f64());
                return RunResult {
                    job: job.clone(),
                    outcome: Outcome::NotRun { why },
                    output: String::new(),
                    ms: 0,
                };
            }
            run_one(job, settings.per_command.min(left), settings.reap)
        })
        .collect()
}

/// What a replay ran, and what it left alone.
#[derive(Debug, Clone, Default)]
pub struct Replayed {
    pub results: Vec<RunResult>,
    pub skipped: Vec<Skipped>,
}

/// Plans, runs, and logs the replay of a trusted project's ledger. The caller checks trust.
pub fn replay_project(
    project: &Project,
    ledger: &Ledger,
    journal: &crate::evidence::journal::Journal,
    settings: Settings,
    session: &str,
) -> Replayed {
    let cites: Vec<String> = ledger.done_cards().flat_map(|c| c.citations()).collect();
    // Only sealed records qualify a command: an upstream commit cannot add what runs.
    let index = Index::from_relevant(crate::discipline::corroborate::read_relevant(journal, &cites));
    let plan = plan(ledger, &index, &project.root);
    let results = run_all(&plan.jobs, settings);
    for r in &results {
        if let Some(rec) = r.to_record(session) {
            // Logging is best effort: a replay's verdict does not depend on it.
            let _ = journal.append(&rec);
        }
    }
    Replayed {
        results,
        skipped: plan.skipped,
    }
}

/// `fable replay [--project DIR] [--json]`
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub project: crate::project_arg::ProjectArg,
    /// The old positional spelling of `--project` (hidden; kept for one release).
    #[arg(hide = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

/// Exit 0 when everything replayed passed, 1 on any failure, 2 when refused (untrusted).
pub fn run_cli(a: &ReplayArgs) -> Result<i32> {
    let project = a.project.or_legacy(a.dir.as_deref()).resolve()?;
    let get = |k: &str| std::env::var(k).ok();
    if !crate::setup::trust_store::is_trusted(get, &project.root) {
        let msg = format!(
            "{}: not trusted on this machine; replay runs nothing here. Run `fable trust --project {}` first.",
            project.root.display(),
            project.root.display()
        );
        if a.json {
            println!("{}", json!({"project": project.root, "trusted": false, "results": []}));
        } else {
            eprintln!("fable replay: {msg}");
        }
        return Ok(crate::error::exit::USAGE);
    }
    let ledger = crate::discipline::ledger::load(&project.ledger_path()).unwrap_or_default();
    let journal = crate::evidence::journal::Journal::for_reading(&project.fable_dir, |k| std::env::var(k).ok());
    let session = std::env::var("CLAUDE_CODE_SESSION_ID").unwrap_or_default();
    let Replayed { results, skipped } =
        replay_project(&project, &ledger, &journal, Settings::from_lookup(get), &session);
    let failed = results.iter().filter(|r| !r.passed()).count();
    if a.json {
        let rs: Vec<_> = results
            .iter()
            .map(|r| {
                json!({"cmd": r.job.cited, "ran": r.job.command, "dir": r.job.dir, "passed": r.passed(),
                       "result": r.describe(), "ms": r.ms})
            })
            .collect();
        let sk: Vec<_> = skipped
            .iter()
            .map(|s| json!({"cmd": s.cited, "skipped": s.describe()}))
            .collect();
        println!(
            "{}",
            json!({"project": project.root, "trusted": true, "results": rs, "failed": failed, "skipped": sk})
        );
    } else {
        for s in &skipped {
            println!("SKIP {}", s.describe().trim_start_matches("fable: "));
        }
        if results.is_empty() {
            println!(
                "nothing to replay: no closed card cites a check (test, build, lint) with a passing run in the log"
            );
        } else {
            for r in &results {
                println!("{} {}", if r.passed() { "PASS" } else { "FAIL" }, r.describe());
            }
            println!("{} replayed, {failed} failed", results.len());
        }
    }
    Ok(if failed > 0 { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_clamp_to_host_timeout() {
        let s = Settings::from_lookup(|k| match k {
            "FABLE_REPLAY_BUDGET" => Some("999".into()),
            "FABLE_REPLAY_TIMEOUT" => Some("junk".into()),
            _ => None,
        });
        assert_eq!(s.budget, Duration::from_secs_f64(MAX_BUDGET_SECS));
        assert_eq!(s.per_command, Duration::from_secs(30));
    }

    #[test]
    fn replays_in_the_recorded_folder() {
        let rec = |cmd: &str, cwd: &str| Record::new("", "", cwd, cmd, Some(0), true, "");
        let j = job_for(
            "pytest -q",
            &rec("cd 'sub dir' && pytest -q", "/p/sub dir"),
            Path::new("/r"),
        );
        assert_eq!(
            (j.command.as_str(), j.dir.as_path()),
            ("pytest -q", Path::new("/p/sub dir"))
        );
        let j = job_for("pytest -q", &rec("pytest -q", ""), Path::new("/r"));
        assert_eq!(j.dir, Path::new("/r"));
    }

    #[test]
    fn runs_the_logged_text_not_the_citation() {
        let heredoc = "cat <<'EOF' > out.txt\nhello $HOME\nEOF";
        assert_eq!(logged_text(&normalize(heredoc), heredoc), heredoc);
        let nbsp = "printf '%s\\n' x\u{a0}y";
        assert_eq!(logged_text("printf '%s\\n' x y", nbsp), nbsp);
        // Past a leading `cd <dir> &&`, raw: a quoted folder, tabs and a newline kept.
        let cd = "cd  \"sub  dir\"\t&&\n  cat <<'EOF'\n a  b\nEOF";
        assert_eq!(logged_text("cat <<'EOF' a b EOF", cd), "cat <<'EOF'\n a  b\nEOF");
        // A citation of the whole `cd … && X` runs the whole text.
        assert_eq!(logged_text(&normalize(cd), cd), cd);
        let rec = Record::new("", "", "/p", heredoc, Some(0), true, "");
        let j = job_for(&normalize(heredoc), &rec, Path::new("/r"));
        assert_eq!(
            (j.cited.as_str(), j.command.as_str()),
            ("cat <<'EOF' > out.txt hello $HOME EOF", heredoc)
        );
    }

    #[test]
    fn redacted_text_is_never_run() {
        let t = tempfile::tempdir().unwrap();
        for command in [
            "echo \"Authorization: Bearer [REDACTED]\" > leaked.txt",
            "echo [REDACTED PRIVATE KEY] > leaked.txt",
        ] {
            let job = Job {
                cited: command.into(),
                command: command.into(),
                dir: t.path().into(),
            };
            let r = run_one(&job, Duration::from_secs(5), Reap::Group);
            assert!(
                matches!(&r.outcome, Outcome::NotRun { why } if why.contains("redacted")),
                "{r:?}"
            );
            assert!(r.to_record("s").is_none());
        }
        assert!(!t.path().join("leaked.txt").exists());
    }

    #[test]
    fn a_replays_long_output_keeps_its_head_as_the_hook_does() {
        let t = tempfile::tempdir().unwrap();
        let job = Job {
            cited: "x".into(),
            command: "echo 'error: first'; seq 1 1500; exit 3".into(),
            dir: t.path().into(),
        };
        let rec = run_one(&job, Duration::from_secs(10), Reap::Group)
            .to_record("s")
            .unwrap();
        assert!(
            rec.head.as_deref().is_some_and(|h| h.starts_with("error: first\n1\n")),
            "{rec:?}"
        );
        assert!(!rec.tail.contains("first") && rec.exit == Some(3), "{rec:?}");
    }

    #[test]
    fn timeout_kills_the_group() {
        let t = tempfile::tempdir().unwrap();
        let job = Job {
            cited: "x".into(),
            command: "sleep 30 & echo started; wait".into(),
            dir: t.path().into(),
        };
        // `Group`: this test process runs other tests' children on parallel threads.
        let r = run_one(&job, Duration::from_millis(300), Reap::Group);
        assert!(matches!(r.outcome, Outcome::TimedOut { .. }), "{r:?}");
        assert!(r.output.contains("started"));
        assert!(r.ms < 5000);
    }
}
