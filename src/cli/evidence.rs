//! `fable evidence show | tail | stats`: read the evidence log without opening JSONL by hand.

use crate::error::{Error, Result};
use crate::evidence::journal::{Journal, Rotation};
use crate::evidence::Record;
use crate::project;
use std::collections::BTreeMap;

#[derive(Debug, clap::Args)]
pub struct EvidenceArgs {
    #[command(subcommand)]
    pub what: EvidenceCmd,
    /// Project directory (default: discovered from the current directory).
    #[arg(long, global = true)]
    pub project: Option<std::path::PathBuf>,
    /// Machine-readable output.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum EvidenceCmd {
    /// Every record, oldest first.
    Show,
    /// The newest records.
    Tail {
        /// How many records.
        #[arg(short = 'n', long, default_value_t = 10)]
        count: usize,
    },
    /// Counts: records, failures, malformed lines, files, commands most often failing.
    Stats,
    /// Append records from JSONL files (`-` for stdin), e.g. another host's log:
    /// each valid record is one locked append; malformed lines are skipped and counted.
    Import {
        /// JSONL files of evidence records.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
}

/// The journal of the project at `dir` or discovered from the current directory.
pub fn journal_here(dir: Option<&std::path::Path>) -> Result<Journal> {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let start = dir.map(|d| d.to_path_buf()).unwrap_or(cwd);
    let p = project::find_from(&start).ok_or_else(|| {
        Error::msg(format!(
            "no .fable/ folder at or above {} (run `fable init` to opt this project in)",
            start.display()
        ))
    })?;
    Ok(Journal::new(
        p.fable_dir,
        Rotation::from_lookup(|k| std::env::var(k).ok()),
    ))
}

fn human(r: &Record) -> String {
    let exit = r.exit.map(|e| e.to_string()).unwrap_or_else(|| "?".into());
    let last = r.tail.lines().last().unwrap_or("");
    format!(
        "{} {} exit={exit:<3} {}  {}",
        r.ts,
        if r.ok { "ok  " } else { "FAIL" },
        r.cmd,
        last
    )
}

pub fn run(a: &EvidenceArgs) -> Result<i32> {
    let journal = journal_here(a.project.as_deref())?;
    let newest = match &a.what {
        EvidenceCmd::Import { files } => return import(&journal, files, a.json),
        EvidenceCmd::Stats => return stats(&journal, a.json),
        EvidenceCmd::Show => usize::MAX,
        EvidenceCmd::Tail { count } => *count,
    };
    let read = journal.read_all()?;
    let skip = read.records.len().saturating_sub(newest);
    for r in &read.records[skip..] {
        if a.json {
            print!("{}", r.to_line());
        } else {
            println!("{}", human(r));
        }
    }
    Ok(0)
}

fn stats(journal: &Journal, json: bool) -> Result<i32> {
    let read = journal.read_all()?;
    let failures = read.records.iter().filter(|r| !r.ok).count();
    let mut failing: BTreeMap<&str, usize> = BTreeMap::new();
    for r in read.records.iter().filter(|r| !r.ok) {
        *failing.entry(r.cmd.as_str()).or_default() += 1;
    }
    let mut top: Vec<(&str, usize)> = failing.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    top.truncate(10);
    let files = journal.files();
    if json {
        let v = serde_json::json!({
            "records": read.records.len(), "failures": failures, "malformed": read.malformed,
            "files": files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "top_failing": top.iter().map(|(c, n)| serde_json::json!({"cmd": c, "count": n})).collect::<Vec<_>>(),
        });
        println!("{v}");
    } else {
        println!("records:   {}", read.records.len());
        println!("failures:  {failures}");
        println!("malformed: {}", read.malformed);
        println!("files:     {}", files.len());
        for (c, n) in top {
            println!("  {n:>4}  {c}");
        }
    }
    Ok(0)
}

fn import(journal: &Journal, files: &[std::path::PathBuf], json: bool) -> Result<i32> {
    use crate::evidence::journal::{read_lines_into, ReadOutcome};
    let mut total = ReadOutcome::default();
    let mut appended = 0usize;
    for f in files {
        let mut one = ReadOutcome::default();
        if f.as_os_str() == "-" {
            read_lines_into(std::io::stdin().lock(), &mut one);
        } else {
            one = crate::evidence::journal::read_file(f)?;
        }
        for r in &one.records {
            journal.append(r)?;
            appended += 1;
        }
        total.malformed += one.malformed;
    }
    if json {
        println!(
            "{}",
            serde_json::json!({"appended": appended, "malformed": total.malformed})
        );
    } else {
        println!(
            "appended {appended} records, skipped {} malformed lines",
            total.malformed
        );
    }
    Ok(0)
}
