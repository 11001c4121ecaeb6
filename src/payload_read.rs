//! A hook's stdin, read with bounded memory: every JSON string longer than a limit keeps
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
}
