//! Reading the outcome index ([`crate::evidence::outcome_index`]): whether it describes
//! the log as it stands, the newest verified line under a key, and the rebuild from the
//! log after a full scan. Kept apart from the format and the writer, which the journal's
//! append uses, so the journal and this reader do not import each other.

use crate::evidence::journal::Journal;
use crate::evidence::outcome_index::{
    create, hash, keys_of, open_index, path_of, place, probe, read_header, size_of, Header, Slot, MAX_GENS, MIN_SLOTS,
};
use crate::evidence::seal::{ChainWalk, Sealer};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// What a lookup found.
#[derive(Debug, PartialEq)]
pub enum Lookup {
    /// The newest sealed line filed under the key (verified), with its log position
    /// (generation serial, offset) for ordering.
    Found(Vec<u8>, (u64, u64)),
    /// No record under the key (proof of absence only when [`Reader::lossy`] is false).
    Absent,
    /// The slot points at something that does not verify: the index cannot answer.
    Unusable,
}

/// Whether the close guard will answer from the index or scan the log: what `fable
/// status` reports, so a user (and a test) can see the index kept up by the hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// It describes the log exactly as it is now.
    Current,
    /// It exists but the log changed behind it (or it is torn): the next read scans.
    Stale,
    /// None yet (or no key, or a rotation longer than it can describe).
    Missing,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Current => "current",
            State::Stale => "stale",
            State::Missing => "missing",
        }
    }
}

/// The index's [`State`] for this log.
pub fn state(journal: &Journal) -> State {
    if Reader::open(journal).is_some() {
        return State::Current;
    }
    let exists = journal
        .sealer()
        .and_then(path_of)
        .is_some_and(|p| std::fs::symlink_metadata(p).is_ok());
    if exists && journal.rotation().keep <= MAX_GENS {
        State::Stale
    } else {
        State::Missing
    }
}

/// The reading side: an index that describes the log exactly as it is now.
pub struct Reader<'a> {
    journal: &'a Journal,
    sealer: &'a Sealer,
    scope: PathBuf,
    file: File,
    header: Header,
}

impl<'a> Reader<'a> {
    /// The index when it is current (its head is the chain head and every log file has
    /// the size it recorded), else `None`: scan the log, then [`rebuild`].
    pub fn open(journal: &'a Journal) -> Option<Reader<'a>> {
        let sealer = journal.sealer()?;
        if journal.rotation().keep > MAX_GENS {
            return None;
        }
        let file = open_index(&path_of(sealer)?, false)?;
        let header = read_header(&file)?;
        if header.head.is_empty() || sealer.read_head().as_deref() != Some(header.head.as_str()) {
            return None;
        }
        if size_of(&journal.live_path()).unwrap_or(0) != header.live_size {
            return None;
        }
        for g in 1..=journal.rotation().keep.max(1) {
            if size_of(&gen_path(journal, g)) != header.gens.get(g - 1).copied() {
                return None;
            }
        }
        Some(Reader {
            journal,
            sealer,
            scope: journal.scope(),
            file,
            header,
        })
    }

    pub fn lossy(&self) -> bool {
        self.header.lossy
    }

    /// The newest sealed line filed under `key`.
    pub fn get(&self, key: &str) -> Lookup {
        let h = hash(key);
        let slot = match probe(&self.file, &self.header, h) {
            Ok(Some((_, s))) if s.hash == h => s,
            Ok(Some(_)) => return Lookup::Absent,
            // A probe run with no free slot proves no absence.
            Ok(None) | Err(_) => return Lookup::Unusable,
        };
        let Some(gen) = self.header.serial.checked_sub(slot.serial) else {
            return Lookup::Unusable;
        };
        if gen as usize > self.header.gens.len() {
            // Filed in a generation rotation has since dropped.
            return Lookup::Absent;
        }
        let path = if gen == 0 {
            self.journal.live_path()
        } else {
            gen_path(self.journal, gen as usize)
        };
        let mut line = vec![0u8; slot.len as usize];
        let read = crate::fable_dir::open_read(&path, crate::fable_dir::Kind::State)
            .ok()
            .flatten()
            .map(|b| b.reader.into_inner().read_exact_at(&mut line, slot.offset));
        if !matches!(read, Some(Ok(()))) || self.sealer.key.verify(&self.scope, &line).is_none() {
            return Lookup::Unusable;
        }
        Lookup::Found(line, (slot.serial, slot.offset))
    }
}

fn gen_path(journal: &Journal, g: usize) -> PathBuf {
    journal.dir().join(format!("evidence.jsonl.{g}"))
}

/// The fields a rebuild files a line under.
#[derive(serde::Deserialize)]
struct Keyed<'a> {
    #[serde(default, borrow)]
    cmd: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    session: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    cwd: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    file: Option<std::borrow::Cow<'a, str>>,
}

/// Rebuilds the index from the log: every sealed, verifying record after the last chain
/// break, filed in log order (the newest wins). Under the exclusive append lock, taken
/// without waiting (a busy log is indexed next time). Nothing is built for a log whose end
/// was cut (its last record is not the chain head), one with a gap in its generations,
/// or a generation over its cap. Returns true when an index was written.
pub fn rebuild(journal: &Journal) -> bool {
    let Some(sealer) = journal.sealer() else { return false };
    let keep = journal.rotation().keep;
    let Some(path) = path_of(sealer) else { return false };
    if keep > MAX_GENS {
        return false;
    }
    let Some(_lock) = journal.try_lock_exclusive() else {
        return false;
    };
    let Some(head) = sealer.read_head() else { return false };
    let n = (1..=keep).take_while(|g| gen_path(journal, *g).exists()).count();
    if (n + 1..=keep).any(|g| gen_path(journal, g).exists()) {
        return false;
    }
    let scope = journal.scope();
    let root = journal.dir().parent().unwrap_or(Path::new("/")).to_path_buf();
    let cap = crate::fable_dir::Kind::LogGeneration {
        max_bytes: journal.rotation().max_bytes,
    };
    let mut filed: std::collections::HashMap<u64, Slot> = std::collections::HashMap::new();
    let mut walk = ChainWalk::default();
    let mut sizes = Vec::new();
    for g in (0..=n).rev() {
        let p = if g == 0 {
            journal.live_path()
        } else {
            gen_path(journal, g)
        };
        let bytes = match crate::fable_dir::open_read(&p, cap) {
            Ok(Some(b)) if !b.too_large => {
                let mut r = b.reader;
                let mut v = Vec::new();
                if std::io::Read::read_to_end(&mut r, &mut v).is_err() {
                    return false;
                }
                v
            }
            Ok(None) if g == 0 => Vec::new(),
            _ => return false,
        };
        sizes.push(bytes.len() as u64);
        let serial = (n - g) as u64;
        let mut offset = 0u64;
        for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
            let at = offset;
            offset += line.len() as u64 + 1;
            if walk.step(&p, i + 1, line) {
                filed.clear();
            }
            if sealer.key.verify(&scope, line).is_none() {
                continue;
            }
            let Ok(k) = serde_json::from_slice::<Keyed>(line) else {
                continue;
            };
            for key in keys_of(&k.cmd, &k.session, &k.cwd, k.file.as_deref(), &root) {
                let h = hash(&key);
                filed.insert(
                    h,
                    Slot {
                        hash: h,
                        serial,
                        offset: at,
                        len: line.len() as u32,
                    },
                );
            }
        }
    }
    if walk.cut_before(Some(&head)) {
        let _ = std::fs::remove_file(&path);
        return false;
    }
    let live_size = sizes.pop().unwrap_or(0);
    sizes.reverse();
    let slots = (filed.len() as u64 * 4).next_power_of_two().max(MIN_SLOTS);
    let (placed, lossy) = place(slots, filed.into_values());
    let header = Header {
        slots,
        serial: n as u64,
        live_size,
        lossy,
        used: placed.len() as u64,
        head,
        gens: sizes,
    };
    create(&path, &header, &placed).is_some()
}
