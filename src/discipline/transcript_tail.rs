//! Reading the end of a session transcript, the way the hooks need it: the newest entries.
//!
//! Two hooks look things up near a transcript's end — which turn a failed call belongs to
//! (`turn`), which stop this is (`round::stop_key`). A real transcript is megabytes and what
//! they look for is almost always in its last few KiB, so the tail is read in growing
//! windows: the first that answers ends the search, and the last bounds it.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The first window, then at most: a search that finds nothing in the larger stops there.
pub const FIRST: u64 = 64 * 1024;

/// Runs `find` on the transcript's last `FIRST` bytes, then (when it answered `None`) on the
/// last `max`. A line cut at a window's start is the caller's to ignore (a JSON line cut
/// short does not parse). `None` for a path that is not a regular file (a FIFO would hang
/// the hook), cannot be read, or holds no answer in `max` bytes.
pub fn search<T>(path: &Path, max: u64, find: impl Fn(&[u8]) -> Option<T>) -> Option<T> {
    let mut f = std::fs::File::open(path).ok()?;
    let m = f.metadata().ok()?;
    if !m.is_file() {
        return None;
    }
    let len = m.len();
    for window in [FIRST.min(max), max] {
        let start = len.saturating_sub(window);
        f.seek(SeekFrom::Start(start)).ok()?;
        // One read of the known size (`read_to_end` grows from 8 KiB: seven reads for 512 KiB).
        let mut buf = vec![0; usize::try_from(len - start).ok()?];
        f.read_exact(&mut buf).ok()?;
        if let Some(found) = find(&buf) {
            return Some(found);
        }
        if start == 0 || window == max {
            break;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_window_answers_else_the_last_and_nothing_beyond_it() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let mut text = b"FAR\n".to_vec();
        text.resize(300 * 1024, b'.');
        text.extend_from_slice(b"\nMID\n");
        text.resize(text.len() + 100 * 1024, b'.');
        text.extend_from_slice(b"\nNEAR\n");
        text.resize(text.len() + 1024, b'.');
        std::fs::write(&p, &text).unwrap();
        let seen = std::cell::Cell::new(Vec::new());
        let look = |needle: &'static [u8]| {
            search(&p, 256 * 1024, |b| {
                let mut s = seen.take();
                s.push(b.len());
                seen.set(s);
                memchr::memmem::rfind(b, needle).map(|_| ())
            })
        };
        assert_eq!(look(b"NEAR"), Some(()));
        assert_eq!(seen.take(), [64 * 1024], "answered by the first window");
        assert_eq!(look(b"MID"), Some(()));
        assert_eq!(seen.take(), [64 * 1024, 256 * 1024]);
        assert_eq!(look(b"FAR"), None, "beyond the last window");
        assert_eq!(search(t.path(), 1024, |_| Some(())), None, "a folder is no transcript");
        assert_eq!(search(&t.path().join("none"), 1024, |_| Some(())), None);
    }
}
