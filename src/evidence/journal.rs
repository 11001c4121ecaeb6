//! The evidence log on disk: locked appends, rotation by rename, ordered reads.
//!
//! Claude Code runs all matching hooks of an event in parallel, and several Bash calls of
//! one turn at once, so many processes append at the same moment. Every append happens
//! under an exclusive lock on `.fable/evidence.lock` (a separate file, so the lock survives
//! the rename of the live file) and is one `write` of one whole line. When the live file
//! would pass the size limit it is renamed to generation 1 under the same lock (older
//! generations shift up, the oldest beyond `keep` is deleted): nothing of the live
//! generation is ever rewritten or dropped. Readers take a shared lock and read
//! generations oldest → newest.

use crate::error::{IoContext, Result};
use crate::evidence::outcome_index;
use crate::evidence::seal::{chain_of, Sealer};
use crate::evidence::Record;
use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const DEFAULT_MAX_BYTES: u64 = 512 * 1024;
pub const DEFAULT_KEEP: usize = 3;
const LIVE: &str = "evidence.jsonl";
const LOCK: &str = "evidence.lock";
/// How long an append waits for the lock before giving up (fail-open, with a note).
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Size limit and number of rotated generations kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    pub max_bytes: u64,
    pub keep: usize,
}

impl Default for Rotation {
    fn default() -> Self {
        Rotation {
            max_bytes: DEFAULT_MAX_BYTES,
            keep: DEFAULT_KEEP,
        }
    }
}

impl Rotation {
    /// From `FABLE_EVIDENCE_MAX_BYTES` and `FABLE_EVIDENCE_KEEP` (defaults 512 KiB and 3).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Rotation {
        let num = |k: &str| get(k).and_then(|v| v.trim().parse::<u64>().ok());
        Rotation {
            max_bytes: num("FABLE_EVIDENCE_MAX_BYTES")
                .filter(|n| *n >= 1024)
                .unwrap_or(DEFAULT_MAX_BYTES),
            keep: num("FABLE_EVIDENCE_KEEP")
                .map(|n| n.min(1000) as usize)
                .unwrap_or(DEFAULT_KEEP),
        }
    }
}

/// The evidence log of one `.fable/` folder.
#[derive(Debug, Clone)]
pub struct Journal {
    dir: PathBuf,
    rotation: Rotation,
    /// The user's sealing key and head: appends are sealed, verifying readers check.
    sealer: Option<Sealer>,
}

/// How far back from the end of the live file an append looks for the record to chain
/// to: a record is at most 4,000 + 4,000 characters, JSON-escaped at most 6 bytes each.
const CHAIN_LOOKBACK: u64 = 64 * 1024;

/// Records read from every generation, plus how many lines were skipped as malformed.
#[derive(Debug, Default)]
pub struct ReadOutcome {
    pub records: Vec<Record>,
    pub malformed: usize,
}

fn open_lock(path: &Path) -> Result<File> {
    crate::fable_dir::open_lock(path).at(path)
}

fn lock_with_deadline(f: &File, path: &Path, exclusive: bool) -> Result<()> {
    let start = Instant::now();
    let mut pause = Duration::from_micros(200);
    loop {
        let r = if exclusive { f.try_lock() } else { f.try_lock_shared() };
        match r {
            Ok(()) => return Ok(()),
            Err(fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(fs::TryLockError::WouldBlock) => {
                return Err(crate::error::Error::msg(format!(
                    "{}: still locked after {}s",
                    path.display(),
                    LOCK_WAIT.as_secs()
                )))
            }
            Err(fs::TryLockError::Error(e)) => return Err(crate::error::Error::io(path, e)),
        }
    }
}

impl Journal {
    pub fn new(fable_dir: impl Into<PathBuf>, rotation: Rotation) -> Journal {
        Journal {
            dir: fable_dir.into(),
            rotation,
            sealer: None,
        }
    }

    /// A project's log for reading, as the environment configures rotation, verified with
    /// this user's key when one exists (readers never create a key).
    pub fn for_reading(fable_dir: &Path, get: impl Fn(&str) -> Option<String>) -> Journal {
        let sealer = Sealer::existing(&get, fable_dir);
        Journal::new(fable_dir, Rotation::from_lookup(get)).with_sealer(sealer)
    }

    /// This journal with a sealing key: its appends are sealed, its verifying readers
    /// accept only records sealed under this key for this folder.
    pub fn with_sealer(mut self, sealer: Option<Sealer>) -> Journal {
        self.sealer = sealer;
        self
    }

    /// The `.fable/` folder this log lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn sealer(&self) -> Option<&Sealer> {
        self.sealer.as_ref()
    }

    pub fn rotation(&self) -> Rotation {
        self.rotation
    }

    /// What a seal binds a record to: the canonical `.fable/` path, so a record copied
    /// from another project (or another machine) does not verify here.
    pub fn scope(&self) -> PathBuf {
        fs::canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone())
    }

    /// The MAC the next record chains to: the remembered head, else the newest record of
    /// the live file (or, just after a rotation, of generation 1) that verifies.
    fn last_mac(&self, sealer: &Sealer, scope: &Path) -> Option<String> {
        if let Some(h) = sealer.read_head() {
            return Some(h);
        }
        [self.live_path(), self.generation_path(1)].iter().find_map(|p| {
            let tail = crate::fable_dir::read_tail(p, CHAIN_LOOKBACK).ok()??;
            tail.split(|b| *b == b'\n')
                .rev()
                .find_map(|line| sealer.key.verify(scope, line))
        })
    }

    pub fn live_path(&self) -> PathBuf {
        self.dir.join(LIVE)
    }

    fn generation_path(&self, n: usize) -> PathBuf {
        self.dir.join(format!("{LIVE}.{n}"))
    }

    fn lock_path(&self) -> PathBuf {
        self.dir.join(LOCK)
    }

    /// Appends one record: one locked write of one line, rotating first when needed;
    /// sealed (and chained to the newest sealed record) when the journal has a key. Any
    /// `chain`/`mac` the record carried is dropped: only this append can seal it.
    /// Returns true when this write started a new live file.
    pub fn append(&self, record: &Record) -> Result<bool> {
        let lock_path = self.lock_path();
        let lock = open_lock(&lock_path)?;
        lock_with_deadline(&lock, &lock_path, true)?;
        let mut pre_head = None;
        let line = match &self.sealer {
            Some(sealer) => {
                let scope = self.scope();
                pre_head = self.last_mac(sealer, &scope);
                let rec = Record {
                    chain: pre_head.as_deref().map(chain_of),
                    mac: None,
                    ..record.clone()
                };
                sealer.key.seal(&scope, &rec.to_line())
            }
            None => Record {
                chain: None,
                mac: None,
                ..record.clone()
            }
            .to_line(),
        };
        let live = self.live_path();
        let size = fs::metadata(&live).map(|m| m.len()).unwrap_or(0);
        let mut fresh = size == 0;
        // Opened before the write: only an index that was current until now is kept up.
        // Listing the folder only when no index exists yet: not on every append.
        let empty_log = || self.files().len() <= usize::from(live.exists());
        let index = self
            .sealer
            .as_ref()
            .and_then(|s| outcome_index::Writer::open(s, self.rotation.keep, pre_head.as_deref(), size, empty_log));
        let mut rotated = false;
        if size > 0 && size + line.len() as u64 > self.rotation.max_bytes {
            self.rotate()?;
            fresh = true;
            rotated = true;
        }
        let offset = crate::fable_dir::append_line(&live, line.as_bytes()).at(&live)?;
        if let Some(sealer) = &self.sealer {
            if let Some((_, mac)) = crate::evidence::seal::parts(line.trim_end_matches('\n').as_bytes()) {
                let mac = String::from_utf8_lossy(mac);
                sealer.write_head(&mac);
                if let Some(ix) = index {
                    let at = outcome_index::Filed {
                        root: self.dir.parent().unwrap_or(Path::new("/")),
                        keep: self.rotation.keep,
                        rotated,
                        offset,
                        len: line.trim_end_matches('\n').len(),
                        mac: &mac,
                    };
                    ix.file(at, record);
                }
            }
        }
        // The lock is released when `lock` drops, after the write has reached the file.
        drop(lock);
        Ok(fresh)
    }

    /// The exclusive append lock if it is free right now (an index rebuild: never waits).
    pub fn try_lock_exclusive(&self) -> Option<File> {
        let lock = open_lock(&self.lock_path()).ok()?;
        lock.try_lock().ok()?;
        Some(lock)
    }

    /// Shifts generations up by one and renames the live file to generation 1.
    /// Called with the exclusive lock held.
    fn rotate(&self) -> Result<()> {
        let keep = self.rotation.keep;
        if keep == 0 {
            let live = self.live_path();
            return fs::remove_file(&live).at(&live);
        }
        let oldest = self.generation_path(keep);
        if oldest.exists() {
            fs::remove_file(&oldest).at(&oldest)?;
        }
        for n in (1..keep).rev() {
            let from = self.generation_path(n);
            if from.exists() {
                let to = self.generation_path(n + 1);
                fs::rename(&from, &to).at(&from)?;
            }
        }
        let live = self.live_path();
        fs::rename(&live, self.generation_path(1)).at(&live)
    }

    /// Existing log files, oldest generation first, the live file last.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut gens: Vec<(usize, PathBuf)> = fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let n = name.strip_prefix(LIVE)?.strip_prefix('.')?.parse::<usize>().ok()?;
                // Only the generations rotation keeps: a committed `evidence.jsonl.9` is
                // not part of this log.
                (1..=self.rotation.keep.max(1)).contains(&n).then(|| (n, e.path()))
            })
            .collect();
        gens.sort_by_key(|g| std::cmp::Reverse(g.0));
        let mut out: Vec<PathBuf> = gens.into_iter().map(|(_, p)| p).collect();
        let live = self.live_path();
        if live.exists() {
            out.push(live);
        }
        out
    }

    /// True when any log file exists (a project that has a logger).
    pub fn exists(&self) -> bool {
        !self.files().is_empty()
    }

    /// Calls `visit(file, line number, bytes)` for every non-blank line across
    /// generations, oldest first, under the shared lock. Files are read through the door
    /// (no links, regular files only, at most a generation's cap each): a refused file is
    /// one stderr line and skipped, never a failure.
    pub fn each_line(&self, mut visit: impl FnMut(&Path, usize, &[u8])) -> Result<()> {
        let lock_path = self.lock_path();
        // A read-only `.fable/` (or none yet) still reads; the lock is best effort.
        let lock = open_lock(&lock_path).ok();
        if let Some(l) = &lock {
            lock_with_deadline(l, &lock_path, false)?;
        }
        let kind = crate::fable_dir::Kind::LogGeneration {
            max_bytes: self.rotation.max_bytes,
        };
        for path in self.files() {
            let b = match crate::fable_dir::open_read(&path, kind) {
                Ok(Some(b)) => b,
                Ok(None) => continue,
                Err(e) if crate::fable_dir::is_refusal(&e) => {
                    eprintln!("[fable] evidence log: {e} (skipped)");
                    continue;
                }
                Err(e) => return Err(crate::error::Error::io(&path, e)),
            };
            if b.too_large {
                eprintln!(
                    "[fable] evidence log: {} is larger than a generation can be; only its first {} bytes are read",
                    path.display(),
                    kind.cap()
                );
            }
            let mut reader = b.reader;
            let mut bytes = Vec::with_capacity(reader.limit().min(1 << 24) as usize);
            std::io::Read::read_to_end(&mut reader, &mut bytes).map_err(|e| crate::error::Error::io(&path, e))?;
            for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
                if !line.iter().all(u8::is_ascii_whitespace) {
                    visit(&path, i + 1, line);
                }
            }
        }
        Ok(())
    }

    /// Reads every record across generations, oldest first, skipping (and counting)
    /// malformed lines — a torn or hand-edited line never makes a reader fail. Nothing is
    /// verified here: learning and statistics read everything; corroboration and replay
    /// read through [`Journal::read_checked`] or `corroborate::read_relevant`.
    pub fn read_all(&self) -> Result<ReadOutcome> {
        let mut out = ReadOutcome::default();
        self.each_line(|_, _, line| match serde_json::from_slice::<Record>(line) {
            Ok(r) => out.records.push(r),
            Err(_) => out.malformed += 1,
        })?;
        Ok(out)
    }

    /// Every line with what verification says of it, and where the chain breaks.
    pub fn read_checked(&self) -> Result<Checked> {
        let mut out = Checked::default();
        let scope = self.scope();
        let mut walk = crate::evidence::seal::ChainWalk::default();
        self.each_line(|path, lineno, line| {
            let broke = walk.step(path, lineno, line);
            let seal = match (&self.sealer, crate::evidence::seal::parts(line)) {
                (_, None) => Seal::Unsealed,
                (None, Some(_)) => Seal::NoKey,
                (Some(s), Some(_)) if s.key.verify(&scope, line).is_some() => Seal::Verified,
                (Some(_), Some(_)) => Seal::Forged,
            };
            out.lines.push(CheckedLine {
                file: path.to_path_buf(),
                lineno,
                record: serde_json::from_slice(line).ok(),
                seal,
                breaks_chain: broke,
            });
        })?;
        out.cut = walk.cut_before(self.sealer.as_ref().and_then(Sealer::read_head).as_deref());
        Ok(out)
    }
}

/// What verification says of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seal {
    /// Sealed by this user's key for this project.
    Verified,
    /// Carries a MAC that this key did not make here (altered, copied, or forged).
    Forged,
    /// Carries no MAC (hand-written, imported, older fable, or torn).
    Unsealed,
    /// Carries a MAC, but there is no key on this machine to check it with.
    NoKey,
}

/// One line of the log as [`Journal::read_checked`] saw it.
#[derive(Debug, Clone)]
pub struct CheckedLine {
    pub file: PathBuf,
    pub lineno: usize,
    /// `None` for a malformed line.
    pub record: Option<Record>,
    pub seal: Seal,
    /// The chain breaks at this line: a record before it was removed or changed.
    pub breaks_chain: bool,
}

/// The whole log, checked.
#[derive(Debug, Default)]
pub struct Checked {
    pub lines: Vec<CheckedLine>,
    /// The log ends before the newest record this machine sealed for it.
    pub cut: bool,
}

/// Parses JSONL from a reader into records, counting malformed lines.
pub fn read_lines_into(reader: impl BufRead, out: &mut ReadOutcome) {
    for line in reader.split(b'\n') {
        let Ok(line) = line else {
            out.malformed += 1;
            continue;
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record>(&line) {
            Ok(r) => out.records.push(r),
            Err(_) => out.malformed += 1,
        }
    }
}

/// Reads a standalone JSONL evidence file (an extra log given on the command line).
pub fn read_file(path: &Path) -> Result<ReadOutcome> {
    let f = File::open(path).at(path)?;
    let mut out = ReadOutcome::default();
    read_lines_into(BufReader::new(f), &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn rec(i: usize) -> Record {
        Record::new(
            "2026-12-02T12:00:00.000Z",
            "s",
            "/p",
            format!("echo {i}"),
            Some(0),
            true,
            "x".repeat(200),
        )
    }

    #[test]
    fn rotates_by_rename_and_reads_in_order() {
        let t = tempfile::tempdir().unwrap();
        let j = Journal::new(
            t.path(),
            Rotation {
                max_bytes: 2048,
                keep: 100,
            },
        );
        for i in 0..100 {
            j.append(&rec(i)).unwrap();
        }
        let files = j.files();
        assert!(files.len() > 5, "{files:?}");
        for f in &files {
            assert!(fs::metadata(f).unwrap().len() <= 2048);
        }
        let all = j.read_all().unwrap();
        assert_eq!(all.malformed, 0);
        let cmds: Vec<String> = all.records.iter().map(|r| r.cmd.clone()).collect();
        let want: Vec<String> = (0..100).map(|i| format!("echo {i}")).collect();
        assert_eq!(cmds, want);
    }

    #[test]
    fn keeps_only_the_configured_generations() {
        let t = tempfile::tempdir().unwrap();
        let j = Journal::new(
            t.path(),
            Rotation {
                max_bytes: 1024,
                keep: 2,
            },
        );
        for i in 0..60 {
            j.append(&rec(i)).unwrap();
        }
        assert_eq!(j.files().len(), 3);
        let all = j.read_all().unwrap();
        assert_eq!(all.records.last().unwrap().cmd, "echo 59");
    }

    #[test]
    fn malformed_lines_are_counted_not_fatal() {
        let t = tempfile::tempdir().unwrap();
        let j = Journal::new(t.path(), Rotation::default());
        j.append(&rec(1)).unwrap();
        fs::OpenOptions::new()
            .append(true)
            .open(j.live_path())
            .unwrap()
            .write_all(b"{torn\n\xff\xfe\n\n")
            .unwrap();
        j.append(&rec(2)).unwrap();
        let all = j.read_all().unwrap();
        assert_eq!((all.records.len(), all.malformed), (2, 2));
    }

    #[test]
    fn rotation_settings_from_env() {
        let r = Rotation::from_lookup(|k| match k {
            "FABLE_EVIDENCE_MAX_BYTES" => Some("4096".into()),
            "FABLE_EVIDENCE_KEEP" => Some("7".into()),
            _ => None,
        });
        assert_eq!(
            r,
            Rotation {
                max_bytes: 4096,
                keep: 7
            }
        );
        assert_eq!(Rotation::from_lookup(|_| Some("junk".into())), Rotation::default());
    }
}
