//! What the stops learnt about a pass's project since its snapshot was saved: the folders'
//! stats now, and the names git ignores in them.
//!
//! A stop after a new ignored file (a log, a cache) reads again the folders that moved and
//! asks git (`git check-ignore`: ≈2.5 ms to start and read the index, then ≈0.1 ms a name
//! on this VM) about every name there that the pass did not count. Ignored names are never
//! counted, so a root holding 200 logs cost 20 ms a stop, every stop, and the stop then
//! rewrote the whole snapshot (700 KB on 10,000 files) to record the folders' new stats.
//! A stop that finds the files unchanged now saves beside the snapshot (`<tree>.moved`,
//! 0600, a few KB): the folders' stats (the next stop reads only what moved since), the
//! names git said were ignored, and the stats of git's other inputs then
//! ([`ignore_inputs`](crate::evidence::tree_store::ignore_inputs): index, exclude files,
//! configuration). The next stop asks git only about names it has no answer for while
//! those inputs kept their stats.
//!
//! Why that is git's answer: whether a name is ignored depends on the `.gitignore` files,
//! those inputs and the index. The counted `.gitignore` files are among the files every
//! stop compares (one that changed makes the verdict a change whatever else is found); the
//! rest by their stats, as a passing runner reuses its previous snapshot
//! ([`pass_tree`](crate::evidence::tree_store::pass_tree)).
//!
//! Format: a line `fable-moved 1`, then records ended by NUL: `k size mtime_ns ctime_ns
//! ino path` (an input), `d …` the same for a folder (`./`, `src/`), `i path` (an ignored
//! name).

use crate::evidence::tree::Stat;
use std::path::{Path, PathBuf};

const HEADER: &str = "fable-moved 1";

/// The folders' stats and ignored names a stop found, and git's inputs then.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Moved {
    pub keys: Vec<(String, Stat)>,
    /// Sorted by path.
    pub dirs: Vec<(String, Stat)>,
    /// Sorted.
    pub ignored: Vec<String>,
}

/// Where the record for snapshot `tree` lives.
pub fn path(dir: &Path, tree: &str) -> PathBuf {
    dir.join(format!("{tree}.moved"))
}

/// The record for `tree`, if there is a valid one.
pub fn load(dir: &Path, tree: &str) -> Option<Moved> {
    if tree.len() != 32 || !tree.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path(dir, tree))
        .ok()?;
    let mut bytes = Vec::new();
    f.take(16 << 20).read_to_end(&mut bytes).ok()?;
    decode(&bytes)
}

/// Saves the record for `tree` (best effort).
pub fn save(dir: &Path, tree: &str, m: &Moved) {
    let _ = crate::atomic_file::write(&path(dir, tree), &encode(m), crate::atomic_file::Perms::Private, false);
}

pub fn encode(m: &Moved) -> Vec<u8> {
    let mut out = format!("{HEADER}\n").into_bytes();
    for (tag, list) in [("k", &m.keys), ("d", &m.dirs)] {
        for (p, s) in list {
            let rec = format!("{tag} {} {} {} {} {p}\0", s.size, s.mtime_ns, s.ctime_ns, s.ino);
            out.extend_from_slice(rec.as_bytes());
        }
    }
    for p in &m.ignored {
        out.extend_from_slice(format!("i {p}\0").as_bytes());
    }
    out
}

/// `None` unless the bytes are a record as [`encode`] writes it (folders sorted).
pub fn decode(bytes: &[u8]) -> Option<Moved> {
    let text = std::str::from_utf8(bytes)
        .ok()?
        .strip_prefix(HEADER)?
        .strip_prefix('\n')?;
    let mut m = Moved::default();
    for rec in text.split('\0').filter(|r| !r.is_empty()) {
        let (tag, rest) = rec.split_once(' ')?;
        if tag == "i" {
            m.ignored.push(rest.to_string());
            continue;
        }
        let (p, st) = crate::evidence::tree::stat_record(rest)?;
        match tag {
            "k" => m.keys.push((p, st)),
            "d" => m.dirs.push((p, st)),
            _ => return None,
        }
    }
    let sorted = m.dirs.windows(2).all(|w| w[0].0 < w[1].0) && m.ignored.windows(2).all(|w| w[0] < w[1]);
    sorted.then_some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_it_does_not_write() {
        let st = |n: i64| Stat {
            size: 1,
            mtime_ns: n,
            ctime_ns: -n,
            ino: 3,
        };
        let m = Moved {
            keys: vec![("/h/.gitconfig".into(), st(0)), ("/p/.git/index".into(), st(5))],
            dirs: vec![("./".into(), st(1)), ("a b/".into(), st(2))],
            ignored: vec!["a b/x.log".into(), "run.log".into()],
        };
        assert_eq!(decode(&encode(&m)), Some(m.clone()));
        let t = tempfile::tempdir().unwrap();
        let tree = "0123456789abcdef0123456789abcdef";
        save(t.path(), tree, &m);
        assert_eq!(load(t.path(), tree), Some(m.clone()));
        assert_eq!(load(t.path(), "../x"), None);
        let unsorted = Moved {
            dirs: m.dirs.iter().rev().cloned().collect(),
            ..m.clone()
        };
        assert_eq!(decode(&encode(&unsorted)), None);
        assert_eq!(decode(b"junk"), None);
        assert_eq!(decode(format!("{HEADER}\nx 1 2 3 4 p\0").as_bytes()), None);
    }
}
