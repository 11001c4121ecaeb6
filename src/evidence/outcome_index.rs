//! The outcome index: where the newest sealed record of each command (and each
//! session's newest edit) sits in the log, so the close guard reads a few lines instead
//! of every generation.
//!
//! One file per project in user state (`<state>/fable/index/<project key>`, 0600, next
//! to the chain head), never in the repository: a clone cannot bring one. It is a fixed
//! header and an open-addressed table of 32-byte slots (FNV-1a of the key → generation
//! serial, byte offset, length). [`Journal::append`](crate::evidence::journal::Journal)
//! files every sealed record under the exclusive append lock, with `pwrite`s of a slot
//! and the header: no rename (a rename per append made ext4 flush synchronously).
//!
//! Nothing in it is believed on its own. A reader uses it only when its header names the
//! current chain head and the exact size of every log file (any append it missed, any
//! truncation, rotation or edit that changes a size makes it stale), and every line it
//! points to must verify under this machine's key and carry the looked-up command. A
//! stale, torn or missing index means the full scan, after which the reader rebuilds it
//! (under the append lock, from sealed records after the last chain break). What the
//! full scan sees and this does not: a same-size in-place change of a record the index
//! does not point to (it would demote older records as "before a break").
//!
//! The index is as trusted as the key beside it: both live in user state, which the
//! PreToolUse guard keeps from the agent, and a repository cannot reach.

use crate::evidence::command_key::{normalize, strip_cd};
use crate::evidence::seal::Sealer;
use crate::evidence::Record;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"FABLEIX1";
pub(crate) const HEADER: u64 = 256;
const SLOT: u64 = 32;
/// Slots tried from a key's home slot before the table counts as lossy.
const PROBE: u64 = 16;
/// Generations the header can describe; a longer rotation is not indexed.
pub const MAX_GENS: usize = 16;
pub(crate) const MIN_SLOTS: u64 = 4096;

/// The header: what the log looked like after the last record this index filed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Header {
    pub(crate) slots: u64,
    /// Rotations seen: a slot filed at serial `s` lives in generation `serial - s`.
    pub(crate) serial: u64,
    pub(crate) live_size: u64,
    /// Some key found no free slot: an absent key then proves nothing.
    pub(crate) lossy: bool,
    /// Slots in use: the writer doubles the table before it is half full.
    pub(crate) used: u64,
    /// MAC of the newest filed record (empty: none yet).
    pub(crate) head: String,
    /// Sizes of generations 1, 2, … that exist.
    pub(crate) gens: Vec<u64>,
}

impl Header {
    fn encode(&self) -> [u8; HEADER as usize] {
        let mut b = [0u8; HEADER as usize];
        b[..8].copy_from_slice(MAGIC);
        b[8..16].copy_from_slice(&self.slots.to_le_bytes());
        b[16..24].copy_from_slice(&self.serial.to_le_bytes());
        b[24..32].copy_from_slice(&self.live_size.to_le_bytes());
        b[32] = u8::from(self.lossy);
        let head = self.head.as_bytes();
        b[40..40 + head.len().min(64)].copy_from_slice(&head[..head.len().min(64)]);
        b[104] = self.gens.len().min(MAX_GENS) as u8;
        b[240..248].copy_from_slice(&self.used.to_le_bytes());
        for (i, g) in self.gens.iter().take(MAX_GENS).enumerate() {
            b[112 + i * 8..120 + i * 8].copy_from_slice(&g.to_le_bytes());
        }
        b
    }

    fn decode(b: &[u8]) -> Option<Header> {
        if b.len() < HEADER as usize || &b[..8] != MAGIC {
            return None;
        }
        let u = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        let slots = u(8);
        let n = b[104] as usize;
        if !slots.is_power_of_two() || slots < MIN_SLOTS || n > MAX_GENS || b[32] > 1 {
            return None;
        }
        let head: String = std::str::from_utf8(&b[40..104])
            .ok()?
            .trim_end_matches('\0')
            .to_string();
        if !(head.is_empty() || head.len() == 64 && head.bytes().all(|c| c.is_ascii_hexdigit())) {
            return None;
        }
        Some(Header {
            slots,
            serial: u(16),
            live_size: u(24),
            lossy: b[32] == 1,
            used: u(240),
            head,
            gens: (0..n).map(|i| u(112 + i * 8)).collect(),
        })
    }
}

/// A table slot: where one key's newest record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Slot {
    pub(crate) hash: u64,
    pub(crate) serial: u64,
    pub(crate) offset: u64,
    pub(crate) len: u32,
}

impl Slot {
    fn encode(&self) -> [u8; SLOT as usize] {
        let mut b = [0u8; SLOT as usize];
        b[..8].copy_from_slice(&self.hash.to_le_bytes());
        b[8..16].copy_from_slice(&self.serial.to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..28].copy_from_slice(&self.len.to_le_bytes());
        b
    }
    fn decode(b: &[u8]) -> Slot {
        let u = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        Slot {
            hash: u(0),
            serial: u(8),
            offset: u(16),
            len: u32::from_le_bytes(b[24..28].try_into().unwrap_or_default()),
        }
    }
}

/// FNV-1a of a key; 0 marks an empty slot, so no key hashes to it.
pub(crate) fn hash(key: &str) -> u64 {
    crate::fingerprint::fnv1a(key.as_bytes()).max(1)
}

/// The key of a session's newest edit that counts under a freshness scope.
pub fn edit_key(project_scope: bool, session: &str) -> String {
    format!("\u{1}edit:{}:{session}", if project_scope { "project" } else { "any" })
}

/// Which freshness scopes an edit of `file` (made in `cwd`) counts under, for the project
/// at `root`: (any file, files under the project). Edits under `.fable/` count under none.
pub fn edit_reach(file: &str, cwd: &str, root: &Path) -> (bool, bool) {
    let abs = crate::project::lexical_abs(Path::new(file), Path::new(cwd));
    if abs.starts_with(root.join(".fable")) {
        return (false, false);
    }
    (true, abs.starts_with(root))
}

/// The keys a record is filed under: its command (and the command after a leading
/// `cd <dir> &&`), or for an edit record the session's edit keys it counts for.
pub fn keys_of(cmd: &str, session: &str, cwd: &str, file: Option<&str>, root: &Path) -> Vec<String> {
    if cmd.is_empty() {
        let (Some(f), false) = (file, session.is_empty()) else {
            return Vec::new();
        };
        let (any, project) = edit_reach(f, cwd, root);
        let mut keys = Vec::new();
        if any {
            keys.push(edit_key(false, session));
        }
        if project {
            keys.push(edit_key(true, session));
        }
        return keys;
    }
    let n = normalize(cmd);
    let mut keys = Vec::new();
    if let Some((_, rest)) = strip_cd(&n) {
        keys.push(rest.to_string());
    }
    keys.push(n);
    keys
}

/// `<state>/fable/index/<project key>`, beside the chain head.
pub(crate) fn path_of(sealer: &Sealer) -> Option<PathBuf> {
    let head = sealer.head.as_ref()?;
    Some(head.parent()?.parent()?.join("index").join(head.file_name()?))
}

pub(crate) fn open_index(path: &Path, write: bool) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .ok()?;
    f.metadata().ok()?.is_file().then_some(f)
}

pub(crate) fn read_header(f: &File) -> Option<Header> {
    let mut b = [0u8; HEADER as usize];
    f.read_exact_at(&mut b, 0).ok()?;
    let h = Header::decode(&b)?;
    let len = f.metadata().ok()?.len();
    (len >= HEADER + h.slots * SLOT).then_some(h)
}

/// Probes for `hash`: the slot holding it, else the first free slot, else `None`.
pub(crate) fn probe(f: &File, h: &Header, hash: u64) -> std::io::Result<Option<(u64, Slot)>> {
    let mut b = [0u8; SLOT as usize];
    for i in 0..PROBE {
        let n = (hash.wrapping_add(i)) & (h.slots - 1);
        f.read_exact_at(&mut b, HEADER + n * SLOT)?;
        let s = Slot::decode(&b);
        if s.hash == hash || s.hash == 0 {
            return Ok(Some((n, s)));
        }
    }
    Ok(None)
}

/// Size of a regular file, `None` when absent (a link or other type: `Some(u64::MAX)`,
/// which no header holds).
pub(crate) fn size_of(p: &Path) -> Option<u64> {
    let m = std::fs::symlink_metadata(p).ok()?;
    Some(if m.is_file() { m.len() } else { u64::MAX })
}

/// Where a just-appended record went, for [`Writer::file`].
pub struct Filed<'a> {
    /// The project root (the log's `.fable/` parent): edits are filed by where they fall.
    pub root: &'a Path,
    /// Generations rotation keeps.
    pub keep: usize,
    /// The append first renamed the live file to generation 1.
    pub rotated: bool,
    /// Where the line (without its newline) starts in the live file, and its length.
    pub offset: u64,
    pub len: usize,
    /// The record's MAC: the new chain head.
    pub mac: &'a str,
}

/// The appending side, opened under the exclusive lock before the write: only an index
/// that described the log exactly up to now is carried forward.
pub struct Writer {
    file: File,
    header: Header,
    path: PathBuf,
}

impl Writer {
    /// The index when it is current for the log as it stands before this append (chain
    /// head `pre_head`, live size `live_size`), or a new one for a log with nothing in it.
    pub fn open(
        sealer: &Sealer,
        keep: usize,
        pre_head: Option<&str>,
        live_size: u64,
        empty_log: impl FnOnce() -> bool,
    ) -> Option<Writer> {
        if keep > MAX_GENS {
            return None;
        }
        let path = path_of(sealer)?;
        if let Some(file) = open_index(&path, true) {
            let header = read_header(&file)?;
            let current = header.head == pre_head.unwrap_or("") && header.live_size == live_size;
            return current.then_some(Writer { file, header, path });
        }
        // No index: start one only for a log with no record yet (otherwise a reader
        // rebuilds it from the log).
        if pre_head.is_some() || live_size > 0 || !empty_log() {
            return None;
        }
        let header = Header {
            slots: MIN_SLOTS,
            serial: 0,
            live_size: 0,
            lossy: false,
            used: 0,
            head: String::new(),
            gens: Vec::new(),
        };
        let file = create(&path, &header, &[])?;
        Some(Writer { file, header, path })
    }

    /// Files the record just appended (see [`Filed`]). A failed write leaves the header as it was,
    /// which makes the index stale: readers then scan and rebuild.
    pub fn file(mut self, at: Filed<'_>, record: &Record) {
        let Filed {
            root,
            keep,
            rotated,
            offset,
            len,
            mac,
        } = at;
        if rotated {
            let h = &mut self.header;
            h.serial += 1;
            h.gens.insert(0, h.live_size);
            h.gens.truncate(keep);
        }
        let keys = keys_of(&record.cmd, &record.session, &record.cwd, record.file.as_deref(), root);
        if (self.header.used + keys.len() as u64) * 2 > self.header.slots && !self.grow() {
            return;
        }
        let h = &mut self.header;
        let slot_of = |key: &str| Slot {
            hash: hash(key),
            serial: h.serial,
            offset,
            len: len as u32,
        };
        let slots: Vec<Slot> = keys.iter().map(|k| slot_of(k)).collect();
        for s in slots {
            match probe(&self.file, h, s.hash) {
                Ok(Some((n, old))) => {
                    if self.file.write_all_at(&s.encode(), HEADER + n * SLOT).is_err() {
                        return;
                    }
                    h.used += u64::from(old.hash == 0);
                }
                Ok(None) => h.lossy = true,
                Err(_) => return,
            }
        }
        h.live_size = offset + len as u64 + 1;
        h.head = mac.to_string();
        let _ = self.file.write_all_at(&h.encode(), 0);
    }
}

impl Writer {
    /// Rewrites the table at twice the size its live slots need (slots of generations that
    /// rotation has dropped are left out), so probes stay short. Rare: the table doubles,
    /// so this runs about once per doubling of the distinct commands seen.
    fn grow(&mut self) -> bool {
        let mut table = vec![0u8; (self.header.slots * SLOT) as usize];
        if self.file.read_exact_at(&mut table, HEADER).is_err() {
            return false;
        }
        let (serial, kept) = (self.header.serial, self.header.gens.len() as u64);
        let live: Vec<Slot> = table
            .chunks_exact(SLOT as usize)
            .map(Slot::decode)
            .filter(|s| s.hash != 0 && serial.checked_sub(s.serial).is_some_and(|g| g <= kept))
            .collect();
        let slots = (live.len() as u64 * 4).next_power_of_two().max(MIN_SLOTS);
        let (placed, lossy) = place(slots, live);
        let header = Header {
            slots,
            used: placed.len() as u64,
            lossy: self.header.lossy || lossy,
            ..self.header.clone()
        };
        match create(&self.path, &header, &placed) {
            Some(file) => {
                self.file = file;
                self.header = header;
                true
            }
            None => false,
        }
    }
}

/// Lays slots out in a table of `slots` entries by linear probing from each hash's home,
/// in the order given (a later slot of the same hash never comes: callers pass one per
/// hash). Returns where each went, and whether any found no free place within [`PROBE`].
pub(crate) fn place(slots: u64, entries: impl IntoIterator<Item = Slot>) -> (Vec<(u64, Slot)>, bool) {
    let mut taken = vec![false; slots as usize];
    let mut placed = Vec::new();
    let mut lossy = false;
    for s in entries {
        let free = (0..PROBE)
            .map(|i| (s.hash.wrapping_add(i)) & (slots - 1))
            .find(|n| !taken[*n as usize]);
        match free {
            Some(at) => {
                taken[at as usize] = true;
                placed.push((at, s));
            }
            None => lossy = true,
        }
    }
    (placed, lossy)
}

/// Writes a whole index to a private temp file and renames it into place.
pub(crate) fn create(path: &Path, header: &Header, slots: &[(u64, Slot)]) -> Option<File> {
    use std::os::unix::fs::PermissionsExt;
    let dir = path.parent()?;
    crate::session_state::mkdir_private(dir).ok()?;
    let mut body = vec![0u8; (HEADER + header.slots * SLOT) as usize];
    body[..HEADER as usize].copy_from_slice(&header.encode());
    for (n, s) in slots {
        let at = (HEADER + n * SLOT) as usize;
        body[at..at + SLOT as usize].copy_from_slice(&s.encode());
    }
    let private = Some(std::fs::Permissions::from_mode(0o600));
    crate::atomic_file::replace_in(dir, path, &body, private, false).ok()?;
    open_index(path, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_rejects_garbage() {
        let h = Header {
            slots: 8192,
            serial: 3,
            live_size: 1234,
            lossy: true,
            used: 77,
            head: "ab".repeat(32),
            gens: vec![10, 20, 30],
        };
        assert_eq!(Header::decode(&h.encode()), Some(h.clone()));
        let mut bad = h.encode();
        bad[0] = b'X';
        assert_eq!(Header::decode(&bad), None);
        let mut odd = h;
        odd.slots = 5000;
        assert_eq!(Header::decode(&odd.encode()), None);
    }

    #[test]
    fn keys_cover_cd_prefix_and_edit_scopes() {
        let root = Path::new("/p");
        assert_eq!(
            keys_of("cd  sub &&  cargo   test", "s", "/p", None, root),
            vec!["cargo test".to_string(), "cd sub && cargo test".to_string()]
        );
        assert_eq!(
            keys_of("", "s", "/p", Some("src/a.rs"), root),
            vec![edit_key(false, "s"), edit_key(true, "s")]
        );
        assert_eq!(
            keys_of("", "s", "/p", Some("/etc/hosts"), root),
            vec![edit_key(false, "s")]
        );
        assert!(keys_of("", "s", "/p", Some(".fable/LEDGER.md"), root).is_empty());
        assert!(keys_of("", "", "/p", Some("src/a.rs"), root).is_empty());
    }

    /// Thousands of distinct commands (each `cmd # n` is its own key) double the table
    /// before it is half full, so no key is lost and every one is found where it was filed.
    #[test]
    fn the_table_grows_and_loses_nothing() {
        let d = tempfile::tempdir().unwrap();
        let state = d.path().join("state").to_string_lossy().into_owned();
        let fable = d.path().join("p/.fable");
        std::fs::create_dir_all(&fable).unwrap();
        let sealer = Sealer::for_user(|k| (k == "XDG_STATE_HOME").then(|| state.clone()), &fable).unwrap();
        let root = d.path().join("p");
        let mut pre: Option<String> = None;
        let mut size = 0u64;
        let n = 5000u64;
        for i in 0..n {
            let w = Writer::open(&sealer, 3, pre.as_deref(), size, || i == 0).expect("current");
            let rec = Record::new(
                "t",
                "s",
                root.to_string_lossy(),
                format!("make t # {i}"),
                Some(0),
                true,
                "",
            );
            let mac = format!("{i:064x}");
            let at = Filed {
                root: &root,
                keep: 3,
                rotated: false,
                offset: size,
                len: 99,
                mac: &mac,
            };
            w.file(at, &rec);
            pre = Some(mac);
            size += 100;
        }
        let f = open_index(&path_of(&sealer).unwrap(), false).unwrap();
        let h = read_header(&f).unwrap();
        assert!(!h.lossy);
        assert_eq!(h.used, n);
        assert!(h.slots >= 2 * n, "{} slots for {n} keys", h.slots);
        for i in (0..n).step_by(97) {
            let (_, s) = probe(&f, &h, hash(&format!("make t # {i}"))).unwrap().unwrap();
            assert_eq!((s.offset, s.len), (i * 100, 99), "key {i}");
        }
    }
}
