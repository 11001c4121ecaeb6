//! `fable evidence show | tail | stats | verify | import`: read the evidence log without
//! opening JSONL by hand, and bring in another host's. Every imported record carries
//! `imported` (when it entered this log); sealing one needs the user at a terminal.

use crate::error::{Error, Result};
use crate::evidence::journal::{Journal, Seal};
use crate::evidence::Record;
use crate::project_arg::ProjectArg;
use std::collections::BTreeMap;

#[derive(Debug, clap::Args)]
pub struct EvidenceArgs {
    #[command(subcommand)]
    pub what: EvidenceCmd,
    #[command(flatten)]
    pub project: ProjectArg,
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
    /// Check every record's seal and the chain between them: which lines this machine's
    /// hook did not write, and where records were removed. Exit 1 when anything fails.
    Verify,
    /// Append records from JSONL files (`-` for stdin), e.g. another host's log: each is
    /// redacted and capped like a hook's record, and stored unsealed (it backs no ledger
    /// card) unless `--seal` says you vouch for it; malformed lines are skipped and counted.
    Import {
        /// JSONL files of evidence records.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// Seal the imported records with this machine's key, so they corroborate
        /// citations as if the hook had written them here. Only for logs you trust;
        /// asks you to type `seal` at a terminal, and is refused without one.
        #[arg(long)]
        seal: bool,
    },
}

/// The journal of the project `--project` names or the current directory belongs to.
pub fn journal_here(project: &ProjectArg) -> Result<Journal> {
    let p = project.resolve()?;
    Ok(Journal::for_reading(&p.fable_dir, |k| std::env::var(k).ok()))
}

/// One line of `show`/`tail`: the seal mark first (`✓` sealed here, `?` unsealed, `✗`
/// a seal this machine did not make, `!` the chain breaks at this record, `·` no key yet).
fn human(r: &Record, seal: Seal, breaks: bool) -> String {
    let exit = r.exit.map(|e| e.to_string()).unwrap_or_else(|| "-".into());
    let verdict = crate::evidence::verdict::Verdict::of(r);
    let last = crate::evidence::verdict::shown(r);
    let mark = match (breaks, seal) {
        (true, _) => "!",
        (_, Seal::Verified) => "✓",
        (_, Seal::Unsealed) => "?",
        (_, Seal::Forged) => "✗",
        (_, Seal::NoKey) => "·",
    };
    format!(
        "{mark} {} {} exit={exit:<3} {}  {}",
        r.ts,
        verdict.label(),
        crate::evidence::head_chars(
            &r.file
                .as_ref()
                .map_or_else(|| r.cmd.replace(['\n', '\r'], " "), |f| format!("(edit) {f}")),
            200
        ),
        crate::evidence::head_chars(&last, 200)
    )
}

fn seal_name(s: Seal) -> &'static str {
    match s {
        Seal::Verified => "verified",
        Seal::Unsealed => "unsealed",
        Seal::Forged => "forged",
        Seal::NoKey => "no-key",
    }
}

pub fn run(a: &EvidenceArgs) -> Result<i32> {
    let journal = journal_here(&a.project)?;
    let newest = match &a.what {
        EvidenceCmd::Import { files, seal } => return import(&journal, files, *seal, a.json),
        EvidenceCmd::Stats => return stats(&journal, a.json),
        EvidenceCmd::Verify => return verify(&journal, a.json),
        EvidenceCmd::Show => usize::MAX,
        EvidenceCmd::Tail { count } => *count,
    };
    let checked = journal.read_checked()?;
    let lines: Vec<_> = checked.lines.iter().filter(|l| l.record.is_some()).collect();
    let skip = lines.len().saturating_sub(newest);
    for l in &lines[skip..] {
        let Some(r) = &l.record else { continue };
        if a.json {
            // The record as logged, plus what verification says of it (not part of it).
            let mut v = serde_json::to_value(r).unwrap_or_default();
            v["verified"] = serde_json::Value::String(seal_name(l.seal).into());
            if l.breaks_chain {
                v["chain_breaks"] = serde_json::Value::Bool(true);
            }
            println!("{v}");
        } else {
            crate::say!("{}", human(r, l.seal, l.breaks_chain));
        }
    }
    Ok(0)
}

/// `fable evidence verify`: exit 0 when every record is sealed here and the chain holds.
fn verify(journal: &Journal, json: bool) -> Result<i32> {
    let checked = journal.read_checked()?;
    let count = |s: Seal| {
        checked
            .lines
            .iter()
            .filter(|l| l.record.is_some() && l.seal == s)
            .count()
    };
    let malformed: Vec<_> = checked.lines.iter().filter(|l| l.record.is_none()).collect();
    let bad: Vec<_> = checked
        .lines
        .iter()
        .filter(|l| l.record.is_some() && (l.seal != Seal::Verified || l.breaks_chain))
        .collect();
    let at = |l: &crate::evidence::journal::CheckedLine| format!("{}:{}", l.file.display(), l.lineno);
    let ok = bad.is_empty() && !checked.cut;
    if json {
        let v = serde_json::json!({
            "ok": ok,
            "records": checked.lines.len() - malformed.len(),
            "verified": count(Seal::Verified),
            "unsealed": count(Seal::Unsealed),
            "forged": count(Seal::Forged),
            "no_key": count(Seal::NoKey),
            "malformed": malformed.len(),
            "chain_breaks": checked.lines.iter().filter(|l| l.breaks_chain).map(at).collect::<Vec<_>>(),
            "cut_at_end": checked.cut,
            "not_verified": bad.iter().filter(|l| l.seal != Seal::Verified).map(|l| serde_json::json!({
                "at": at(l), "seal": seal_name(l.seal),
                "cmd": l.record.as_ref().map(|r| crate::evidence::head_chars(&r.cmd, 200).to_string()),
            })).collect::<Vec<_>>(),
        });
        println!("{v}");
        return Ok(if ok { 0 } else { 1 });
    }
    println!(
        "{} records: {} verified, {} unsealed, {} forged, {} unverifiable (no key); {} malformed lines",
        checked.lines.len() - malformed.len(),
        count(Seal::Verified),
        count(Seal::Unsealed),
        count(Seal::Forged),
        count(Seal::NoKey),
        malformed.len()
    );
    for l in bad.iter().take(50) {
        let what = if l.breaks_chain {
            "the chain breaks here: a record before it was removed or changed".to_string()
        } else {
            format!("{} record", seal_name(l.seal))
        };
        let cmd = l
            .record
            .as_ref()
            .map(|r| crate::evidence::head_chars(&r.cmd, 80).to_string())
            .unwrap_or_default();
        println!("  {}  {what}: {cmd}", at(l));
    }
    if bad.len() > 50 {
        println!("  … and {} more (`--json` lists all)", bad.len() - 50);
    }
    if checked.cut {
        println!(
            "  the log ends before the newest record this machine sealed for it: records were removed from its end"
        );
    }
    if ok {
        println!("every record was written by this machine's evidence hook, and none was removed");
    } else {
        println!("records that do not verify back no ledger card; the commands behind them must be run again");
    }
    Ok(if ok { 0 } else { 1 })
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

fn import(journal: &Journal, files: &[std::path::PathBuf], seal: bool, json: bool) -> Result<i32> {
    use crate::evidence::journal::{read_lines_into, ReadOutcome};
    use crate::evidence::{head_chars, redact::redact, tail_chars, MAX_CMD_CHARS, MAX_HEAD_CHARS, MAX_TAIL_CHARS};
    // Unsealed unless the user vouches, at a terminal: an imported record is another
    // host's claim, and an agent with a shell must not be able to vouch for its own.
    if seal && files.iter().any(|f| f.as_os_str() == "-") {
        return Err(Error::msg(
            "--seal cannot read records from stdin: stdin is where you confirm the seal; name the file instead",
        ));
    }
    let mut reads = Vec::new();
    for f in files {
        let mut one = ReadOutcome::default();
        if f.as_os_str() == "-" {
            read_lines_into(std::io::stdin().lock(), &mut one);
        } else {
            one = crate::evidence::journal::read_file(f)?;
        }
        reads.push(one);
    }
    let journal = if seal {
        let n: usize = reads.iter().map(|r| r.records.len()).sum();
        // SAFETY: isatty only inspects the descriptor.
        let tty = unsafe { libc::isatty(0) } == 1;
        if !tty {
            return Err(Error::msg(
                "--seal needs your confirmation at a terminal (stdin is not one), so nothing was imported: sealed records corroborate ledger cards as if this machine had run them. Run it yourself in a terminal, or import without --seal (unsealed records are kept but back no card)",
            ));
        }
        if !confirm_seal(n, files, &mut std::io::stdin().lock(), &mut std::io::stderr())? {
            eprintln!("not confirmed: nothing was imported");
            return Ok(1);
        }
        let get = |k: &str| std::env::var(k).ok();
        let sealer = crate::evidence::seal::Sealer::for_user(get, journal.dir()).map_err(Error::msg)?;
        journal.clone().with_sealer(Some(sealer))
    } else {
        journal.clone().with_sealer(None)
    };
    let mut total = ReadOutcome::default();
    let mut appended = 0usize;
    let now = crate::evidence::now_ts();
    for one in reads {
        for r in &one.records {
            // The same redaction and caps as the hook's own records.
            let output = redact(&r.tail);
            let r = Record {
                cmd: head_chars(&redact(&r.cmd), MAX_CMD_CHARS).to_string(),
                tail: tail_chars(&output, MAX_TAIL_CHARS).to_string(),
                // A source's own head is kept, capped and redacted; a long tail gives one.
                head: match &r.head {
                    Some(h) => Some(head_chars(&redact(h), MAX_HEAD_CHARS).to_string()),
                    None => crate::evidence::head_if_cut(&output),
                },
                cwd: head_chars(&r.cwd, MAX_CMD_CHARS).to_string(),
                session: head_chars(&r.session, 200).to_string(),
                imported: Some(now.clone()),
                ..r.clone()
            };
            journal.append(&r)?;
            appended += 1;
        }
        total.malformed += one.malformed;
    }
    if json {
        println!(
            "{}",
            serde_json::json!({"appended": appended, "malformed": total.malformed, "sealed": seal})
        );
    } else {
        println!(
            "appended {appended} records ({}), skipped {} malformed lines",
            if seal {
                "sealed with this machine's key"
            } else {
                "unsealed: they back no ledger card; `--seal` vouches for them"
            },
            total.malformed
        );
    }
    Ok(0)
}

/// Asks, on `out`, whether to seal `n` records from `files`; true only when the answer
/// read from `input` is `seal`.
fn confirm_seal(
    n: usize,
    files: &[std::path::PathBuf],
    input: &mut impl std::io::BufRead,
    out: &mut impl std::io::Write,
) -> Result<bool> {
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let _ = write!(
        out,
        "Seal {n} record(s) from {} with this machine's key? Sealed records back ledger cards as if the evidence hook had logged them here. Type `seal` to confirm: ",
        names.join(", ")
    );
    let _ = out.flush();
    let mut line = String::new();
    input.read_line(&mut line).map_err(|e| Error::msg(e.to_string()))?;
    Ok(line.trim() == "seal")
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_the_word_seal_confirms() {
        let files = [std::path::PathBuf::from("other.jsonl")];
        let ask = |answer: &str| {
            let mut out = Vec::new();
            let yes = super::confirm_seal(3, &files, &mut answer.as_bytes(), &mut out).unwrap();
            (yes, String::from_utf8(out).unwrap())
        };
        let (yes, said) = ask("seal\n");
        assert!(yes && said.contains("Seal 3 record(s) from other.jsonl"), "{said}");
        assert!(!ask("y\n").0);
        assert!(!ask("").0);
    }
}
