//! The words that make an output line an error line, and the two scanners that find them:
//! a table walk for a hook's few lines, an Aho-Corasick automaton for a learner's many.
//!
//! Why two: building the automaton cost 0.73 M instructions per process (callgrind), a
//! seventh of a fail-streak failure, to scan the one to four lines a hook reads. The walk
//! needs nothing built: a constant table maps each byte to the words starting with it.
//! The learner scans hundreds of thousands of lines, where the automaton's one pass per
//! line pays its build back; it switches when the signature masks do
//! ([`crate::learn::text::mask_engine::lite_now`]). Both answer "does the line hold one of
//! [`ERROR_WORDS`], ASCII case-insensitively, anywhere"; the test
//! `walk_and_automaton_agree_on_corpora` compares them on every corpus line.

use aho_corasick::AhoCorasick;
use std::sync::OnceLock;

/// Words that make a line an error line (matched case-insensitively anywhere). All lower
/// case ASCII, at most 64 of them (the walk keeps one bit per word).
pub const ERROR_WORDS: &[&str] = &[
    "error",
    "fatal",
    "fail",
    "exception",
    "denied",
    "refused",
    "not found",
    "rejected",
    "conflict",
    "timed out",
    "timedout",
    "timeout",
    "time out",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "unable",
    "invalid",
    "missing",
    "no such",
    "panic",
    "abort",
    "traceback",
    "killed",
    "undefined",
    "unresolved",
    "unrecognized",
    "no space",
    "in use",
    "deadlock",
    "unhealthy",
    "crash",
    "expired",
    "forbidden",
    "unauthori",
    "too many",
    "exceeded",
    "err!",
    "[rejected]",
    "backoff",
    "errimage",
    "stale",
    "flaky",
    "no tests",
    "not executable",
    "unsupported",
    "deprecated",
    "oom",
];

/// Whether `line` holds an error word: the walk while the masks use their light engine,
/// the automaton after.
pub fn any_in(line: &str) -> bool {
    if crate::learn::text::mask_engine::lite_now() {
        walk(line)
    } else {
        automaton().is_match(line)
    }
}

/// For each byte, the words (bits of [`ERROR_WORDS`] positions) that start with it in
/// either case. Built at compile time.
const FIRST: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut i = 0;
    while i < ERROR_WORDS.len() {
        let b = ERROR_WORDS[i].as_bytes()[0];
        t[b as usize] |= 1 << i;
        t[b.to_ascii_uppercase() as usize] |= 1 << i;
        i += 1;
    }
    t
};

/// The table walk: at each byte, only the words starting with that byte are compared.
fn walk(line: &str) -> bool {
    const { assert!(ERROR_WORDS.len() <= 64) };
    let b = line.as_bytes();
    for i in 0..b.len() {
        let mut m = FIRST[b[i] as usize];
        while m != 0 {
            let w = ERROR_WORDS[m.trailing_zeros() as usize].as_bytes();
            if b.len() - i >= w.len() && b[i..i + w.len()].eq_ignore_ascii_case(w) {
                return true;
            }
            m &= m - 1;
        }
    }
    false
}

/// One automaton over [`ERROR_WORDS`], ASCII case-insensitive, built once per process.
/// A large case-insensitive regex alternation cost more to compile than a whole hook run;
/// 51 `contains` calls on a lowered copy of every line were a third of learning time on
/// 100k records. Aho-Corasick scans each line once. A contiguous NFA, not the DFA the
/// builder picks for so few words: the DFA cost 1.7M instructions to build.
fn automaton() -> &'static AhoCorasick {
    static WORDS: OnceLock<AhoCorasick> = OnceLock::new();
    WORDS.get_or_init(|| {
        AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .ascii_case_insensitive(true)
            .build(ERROR_WORDS)
            .expect("error words compile")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agree(l: &str) {
        assert_eq!(walk(l), automaton().is_match(l), "{l:?}");
    }

    #[test]
    fn walk_and_automaton_agree_on_corpora() {
        for w in ERROR_WORDS {
            assert_eq!(*w, w.to_ascii_lowercase(), "lower case: {w}");
            let upper = w.to_ascii_uppercase();
            let cut = &w[..w.len() - 1];
            for l in [
                w.to_string(),
                upper.clone(),
                format!("x{w}"),
                format!("{upper}y"),
                cut.to_string(),
                format!("ü{cut}"),
                format!("{cut}é"),
            ] {
                agree(&l);
            }
            assert!(walk(w) && walk(&upper) && walk(&format!("ü {w}.")));
        }
        for l in [
            "",
            "e",
            "ERR",
            "Err!",
            "ÉRROR",
            "errör",
            "[REJECTED]",
            "CAN’T",
            "no\tsuch",
            "Time Out",
            "ok",
        ] {
            agree(l);
        }
        let mut lines = 0;
        for f in crate::learn::text::mask_engine::corpus_files() {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            for l in text.lines().flat_map(|row| row.split("\\n").chain([row])) {
                lines += 1;
                agree(l);
            }
        }
        assert!(lines > 10_000, "{lines} corpus lines");
    }
}
