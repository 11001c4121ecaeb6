//! What the host hands a hook, read with bounded memory: its stdin payload, and the end of
//! the session file the payload names ([`search_tail`]).
//!
//! The payload: every JSON string longer than a limit keeps
//! its head and its **tail** (the output's end is what matters: the summary, the exit
//! line), joined by a marker; everything else passes through.
//!
//! A 60 MB payload (a command that printed without end) cost `fable-evidence` 355 MB when
//! read whole and parsed into a `Value`. Claude Code cuts tool output at 30,000
//! characters, so a real payload is never cut here; a hostile or broken one costs at most
//! the kept parts. Cuts fall between characters and escape sequences, so the result stays
//! valid JSON whenever the input was.

use std::collections::VecDeque;
use std::io::Read;

/// Bytes of a long string kept from its start.
pub const HEAD: usize = 32 << 10;
/// Bytes of a long string kept from its end.
pub const TAIL: usize = 96 << 10;
/// What is kept in all; past it the read stops (the JSON is then cut and fails open).
pub const MAX_KEPT: usize = 16 << 20;
/// What is read from the input at most.
pub const MAX_READ: u64 = 256 << 20;

const MARK: &[u8] = b" [... cut by fable: payload string too long ...] ";

/// The string being read: its head (written through) and the units of its tail.
#[derive(Default)]
struct Str {
    len: usize,
    cut: bool,
    tail: VecDeque<u8>,
    /// Lengths of the units (characters, escape sequences) in `tail`, oldest first.
    units: VecDeque<u8>,
    /// The unit being read (at most 12 bytes: `\uXXXX` or a UTF-8 character).
    pending: Vec<u8>,
}

/// Reads `input` into bytes, long strings shortened (see the module docs).
///
/// A payload of at most [`HEAD`] bytes holds no string longer than that, so it is
/// returned as read: the common case (a tool call's few kilobytes) costs one read into a
/// small buffer and no scan. Longer payloads go through the cutter.
pub fn read_bounded(input: impl Read) -> std::io::Result<Vec<u8>> {
    let mut input = input.take(MAX_READ);
    let mut first = Vec::with_capacity(8 << 10);
    (&mut input).take(HEAD as u64 + 1).read_to_end(&mut first)?;
    if first.len() <= HEAD {
        return Ok(first);
    }
    let mut cutter = Cutter::default();
    cutter.feed(&first);
    let mut buf = vec![0u8; 64 << 10];
    while cutter.out.len() <= MAX_KEPT {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        cutter.feed(&buf[..n]);
    }
    Ok(cutter.out)
}

/// The bounded reader's state between reads.
#[derive(Default)]
struct Cutter {
    out: Vec<u8>,
    in_str: bool,
    s: Str,
}

impl Cutter {
    fn feed(&mut self, bytes: &[u8]) {
        let (out, s) = (&mut self.out, &mut self.s);
        for &b in bytes {
            if !self.in_str {
                out.push(b);
                if b == b'"' {
                    self.in_str = true;
                    *s = Str::default();
                }
                continue;
            }
            if s.pending.is_empty() && b == b'"' {
                if s.cut {
                    out.extend_from_slice(MARK);
                    out.extend(s.tail.iter());
                }
                out.push(b'"');
                self.in_str = false;
                continue;
            }
            s.pending.push(b);
            if unit_complete(&s.pending) {
                let unit = std::mem::take(&mut s.pending);
                push_unit(out, s, &unit);
            }
        }
    }
}

/// True when `p` holds one whole unit: a plain byte, an escape (`\n`, `\uXXXX`), or a
/// UTF-8 character (a stray continuation byte stands alone, for the lossy decode).
fn unit_complete(p: &[u8]) -> bool {
    match p[0] {
        b'\\' => match p.get(1) {
            None => false,
            Some(b'u') => p.len() >= 6,
            Some(_) => true,
        },
        0xC0..=0xDF => p.len() >= 2 || p.get(1).is_some_and(|c| c & 0xC0 != 0x80),
        0xE0..=0xEF => p.len() >= 3 || p[1..].iter().any(|c| c & 0xC0 != 0x80),
        0xF0..=0xF7 => p.len() >= 4 || p[1..].iter().any(|c| c & 0xC0 != 0x80),
        _ => true,
    }
}

fn push_unit(out: &mut Vec<u8>, s: &mut Str, unit: &[u8]) {
    if s.len + unit.len() <= HEAD && !s.cut {
        out.extend_from_slice(unit);
        s.len += unit.len();
        return;
    }
    s.cut = true;
    s.tail.extend(unit);
    s.units.push_back(unit.len() as u8);
    while s.tail.len() > TAIL {
        let n = s.units.pop_front().unwrap_or(1) as usize;
        for _ in 0..n {
            s.tail.pop_front();
        }
    }
}

/// The first window [`search_tail`] reads from a file's end; each next is four times larger.
pub const TAIL_FIRST: u64 = 64 * 1024;

/// Searches the end of a session file the host names (Claude Code's transcript, Codex's
/// rollout) for something written recently: `find` runs on its last [`TAIL_FIRST`] bytes,
/// then on windows four times larger up to `max`; the first answer ends the search. What
/// the hooks look for (which turn a call belongs to, which stop this is, a command's exit
/// code) is almost always in the last few KiB of a file that is megabytes.
///
/// `find` gets the window's bytes and whether the window starts mid-file (its first line
/// may be cut: a JSON line cut short does not parse). `None` for a path that is not a
/// regular file (a FIFO would hang the hook), cannot be read, or holds no answer in `max`.
pub fn search_tail<T>(path: &std::path::Path, max: u64, find: impl Fn(&[u8], bool) -> Option<T>) -> Option<T> {
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::File::open(path).ok()?;
    let m = f.metadata().ok()?;
    if !m.is_file() {
        return None;
    }
    let len = m.len();
    let mut window = TAIL_FIRST.min(max);
    loop {
        let start = len.saturating_sub(window);
        f.seek(SeekFrom::Start(start)).ok()?;
        // One read of the known size (`read_to_end` grows from 8 KiB: seven reads for 512 KiB).
        let mut buf = vec![0; usize::try_from(len - start).ok()?];
        f.read_exact(&mut buf).ok()?;
        if let Some(found) = find(&buf, start > 0) {
            return Some(found);
        }
        if start == 0 || window >= max {
            return None;
        }
        window = window.saturating_mul(4).min(max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_payloads_pass_through() {
        let p = br#"{"a":"x\"y\\u00e9","b":[1,2]}"#;
        assert_eq!(read_bounded(&p[..]).unwrap(), p.to_vec());
    }

    /// Either side of the short-payload path's edge (HEAD bytes in all) the result is
    /// what the cutter gives; a string is cut only once it passes HEAD bytes itself.
    #[test]
    fn the_fast_path_agrees_with_the_cutter_at_its_edge() {
        let cut = |p: &[u8]| {
            let mut c = Cutter::default();
            c.feed(p);
            c.out
        };
        for total in [HEAD - 1, HEAD, HEAD + 1, HEAD + 8, HEAD + 9] {
            let p = format!(r#"{{"o":"{}"}}"#, "x".repeat(total - 8));
            let got = read_bounded(p.as_bytes()).unwrap();
            assert_eq!(got, cut(p.as_bytes()), "{total} bytes");
            let string_len = total - 8;
            assert_eq!(got == p.as_bytes(), string_len <= HEAD, "{total} bytes");
        }
    }

    #[test]
    fn a_long_string_keeps_head_and_tail_and_stays_json() {
        let body = format!("{}é\\n{}END", "a".repeat(HEAD + 7), "b\\u00e9".repeat(TAIL));
        let p = format!(r#"{{"out":"{body}","x":1}}"#);
        let got = read_bounded(p.as_bytes()).unwrap();
        assert!(got.len() < HEAD + TAIL + 200, "{}", got.len());
        let v: serde_json::Value = serde_json::from_slice(&got).unwrap();
        let out = v["out"].as_str().unwrap();
        assert!(out.starts_with("aaaa") && out.ends_with("éEND") && out.contains("cut by fable"));
        assert_eq!(v["x"], 1);
    }

    #[test]
    fn a_tail_search_widens_fourfold_and_stops_at_its_bound() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let mut text = b"FAR\n".to_vec();
        text.resize(300 * 1024, b'.');
        text.extend_from_slice(b"\nMID\n");
        text.resize(text.len() + 100 * 1024, b'.');
        text.extend_from_slice(b"\nNEAR\n");
        text.resize(text.len() + 1024, b'.');
        std::fs::write(&p, &text).unwrap();
        let seen = std::cell::RefCell::new(Vec::new());
        let look = |needle: &'static [u8]| {
            search_tail(&p, 280 * 1024, |b, cut| {
                seen.borrow_mut().push((b.len(), cut));
                memchr::memmem::rfind(b, needle).map(|_| ())
            })
        };
        assert_eq!(look(b"NEAR"), Some(()));
        assert_eq!(seen.take(), [(64 * 1024, true)], "answered by the first window");
        assert_eq!(look(b"MID"), Some(()));
        assert_eq!(seen.take(), [(64 * 1024, true), (256 * 1024, true)]);
        assert_eq!(look(b"FAR"), None, "beyond the bound");
        assert_eq!(seen.take().last(), Some(&(280 * 1024, true)));
        let small = t.path().join("small.jsonl");
        std::fs::write(&small, b"FAR\n").unwrap();
        assert_eq!(
            search_tail(&small, 1 << 20, |b, cut| (!cut).then_some(b.len())),
            Some(4)
        );
        assert_eq!(
            search_tail(t.path(), 1024, |_, _| Some(())),
            None,
            "a folder is no session file"
        );
        assert_eq!(search_tail(&t.path().join("none"), 1024, |_, _| Some(())), None);
    }
}
