//! Per-file snapshots of passing runs, kept in user state so the close guard can name the
//! file that changed after a pass (the record itself carries only the hash, sealed).
//!
//! `${XDG_STATE_HOME:-~/.local/state}/fable/trees/<project key>/<tree>`, 0600, written
//! atomically, the newest [`KEEP`] per project kept. A snapshot is trusted only when its
//! files hash to the sealed `tree` ([`crate::evidence::tree_check::Now`] checks): editing one
//! cannot make changed files look unchanged. Format: a header line `fable-tree 2`, then
//! per file and folder `size mtime_ns ctime_ns ino path` ended by NUL (a path holds any
//! byte but NUL; folders' paths end in `/`).

use crate::evidence::tree::{Snapshot, Stat};
use std::path::{Path, PathBuf};

/// How many snapshots a project keeps (a stop checks the newest passes).
pub const KEEP: usize = 12;
const HEADER: &str = "fable-tree 2";
/// The most a snapshot is read (200,000 files of ordinary path length fit).
const MAX_BYTES: u64 = 64 << 20;

/// This project's snapshot folder, when a state folder can be named.
pub fn dir(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<PathBuf> {
    crate::session_state::user_state_dir(get).map(|d| d.join("trees").join(crate::fingerprint::project_key(fable_dir)))
}

/// The bytes of a snapshot.
pub fn encode(s: &Snapshot) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + s.files.len() * 64);
    out.extend_from_slice(format!("{HEADER}\n").as_bytes());
    for (p, st) in s.files.iter().chain(&s.dirs) {
        out.extend_from_slice(format!("{} {} {} {} ", st.size, st.mtime_ns, st.ctime_ns, st.ino).as_bytes());
        out.extend_from_slice(p.as_bytes());
        out.push(0);
    }
    out
}

/// A snapshot from its bytes; `None` when they are not one.
pub fn decode(bytes: &[u8]) -> Option<Snapshot> {
    let nl = bytes.iter().position(|b| *b == b'\n')?;
    if &bytes[..nl] != HEADER.as_bytes() {
        return None;
    }
    let mut out = Snapshot::default();
    for rec in bytes[nl + 1..].split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let text = std::str::from_utf8(rec).ok()?;
        let mut it = text.splitn(5, ' ');
        let mut num = || it.next().and_then(|n| n.parse::<i128>().ok());
        let (size, mtime, ctime, ino) = (num()?, num()?, num()?, num()?);
        let path = it.next()?.to_string();
        let st = Stat {
            size: u64::try_from(size).ok()?,
            mtime_ns: i64::try_from(mtime).ok()?,
            ctime_ns: i64::try_from(ctime).ok()?,
            ino: u64::try_from(ino).ok()?,
        };
        if path.ends_with('/') {
            out.dirs.push((path, st));
        } else {
            out.files.push((path, st));
        }
    }
    Some(out)
}

/// Saves a snapshot under its hash (best effort) and drops all but the newest [`KEEP`].
/// Written again when it exists: the same files may sit in folders whose stats moved (an
/// ignored file came and went), and the newest folder stats keep the Stop on its fast path.
pub fn save(dir: &Path, s: &Snapshot, tree: &str) {
    let path = dir.join(tree);
    if crate::session_state::mkdir_private(dir).is_err() {
        return;
    }
    let _ = crate::atomic_file::write(&path, &encode(s), crate::atomic_file::Perms::Private, false);
    prune(dir);
}

fn prune(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut all: Vec<(std::time::SystemTime, PathBuf)> = rd
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.len() == 32 && n.bytes().all(|b| b.is_ascii_hexdigit()))
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if all.len() <= KEEP {
        return;
    }
    all.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (_, p) in all.into_iter().skip(KEEP) {
        let _ = std::fs::remove_file(p);
    }
}

/// The snapshot saved under `tree`, if any.
pub fn load(dir: &Path, tree: &str) -> Option<Snapshot> {
    if tree.len() != 32 || !tree.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir.join(tree))
        .ok()?;
    let mut bytes = Vec::with_capacity(f.metadata().map_or(0, |m| m.len().min(MAX_BYTES) as usize));
    f.take(MAX_BYTES).read_to_end(&mut bytes).ok()?;
    decode(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_odd_paths_and_keeps_the_newest() {
        let s = Snapshot {
            files: vec![
                (
                    "a b\nc.py".into(),
                    Stat {
                        size: 3,
                        mtime_ns: -5,
                        ctime_ns: 7,
                        ino: 9,
                    },
                ),
                (
                    "z".into(),
                    Stat {
                        size: 0,
                        mtime_ns: 1,
                        ctime_ns: 2,
                        ino: 3,
                    },
                ),
            ],
            dirs: vec![(
                "./".into(),
                Stat {
                    size: 4096,
                    mtime_ns: 8,
                    ctime_ns: 8,
                    ino: 2,
                },
            )],
        };
        assert_eq!(decode(&encode(&s)), Some(s.clone()));
        assert_eq!(decode(b"junk"), None);
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("trees");
        let h = s.hash();
        save(&d, &s, &h);
        assert_eq!(load(&d, &h), Some(s.clone()));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(d.join(&h)).unwrap().permissions().mode() & 0o777,
            0o600
        );
        for i in 0..KEEP + 3 {
            std::fs::write(d.join(format!("{i:032x}")), b"x").unwrap();
        }
        save(&d, &Snapshot::default(), &Snapshot::default().hash());
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), KEEP);
        assert!(load(&d, "../x").is_none());
    }
}
