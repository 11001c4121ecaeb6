//! The signature masks' regex engines: `regex_lite` for a hook's few lines, `regex` for
//! a learner's many, one meaning (see [`LazyRe`]).

use regex::Regex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// A mask pattern compiled on first use, by one of two engines with the same meaning.
///
/// A hook masks one or two lines: compiling the patterns with `regex` (lazy DFA,
/// one-pass, reverse automata) cost 6.0M instructions, nearly half of a fail-streak
/// failure. `regex_lite` compiles the same patterns in a fraction of that and matches them
/// with a plain backtracker/PikeVM, ample for a few lines. The learner masks hundreds of
/// thousands of lines, where `regex`'s faster matching pays its compile back: after
/// [`LITE_USES`] masked texts in one process, the masks switch to `regex`. Both give
/// byte-identical results (`\w`, `\d`, `\s`, `\b` are ASCII in `regex_lite`, and
/// [`ascii_pattern`] makes them ASCII for `regex`); the test `signature::tests::engines_agree_on_corpora`
/// compares them on every corpus tail.
pub struct LazyRe {
    src: &'static str,
    /// A byte scan that must say yes wherever the pattern matches: with the light engine,
    /// a text it says no to is not searched, and the pattern not compiled for it
    /// ([`crate::learn::text::mask_gates`]).
    gate: Option<fn(&[u8]) -> bool>,
    cell: OnceLock<Regex>,
    lite: OnceLock<regex_lite::Regex>,
}

/// Masked texts (lines masked, texts anchored) after which the masks use `regex`.
pub const LITE_USES: usize = 64;

/// How many texts this process has masked or anchored (see [`LazyRe`]).
static USES: AtomicUsize = AtomicUsize::new(0);

/// Which engine runs the masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Lite,
    Full,
}

/// The engine for the next text: `regex_lite` for a hook's few, `regex` for a learner's many.
pub fn engine() -> Engine {
    if USES.fetch_add(1, Ordering::Relaxed) < LITE_USES {
        Engine::Lite
    } else {
        Engine::Full
    }
}

/// Whether the next text would still be masked by `regex_lite` (a hook's few lines): other
/// scanners built for many lines ([`crate::learn::text::error_words`]) switch with the masks.
pub fn lite_now() -> bool {
    USES.load(Ordering::Relaxed) < LITE_USES
}

impl LazyRe {
    pub const fn new(src: &'static str) -> LazyRe {
        LazyRe {
            src,
            gate: None,
            cell: OnceLock::new(),
            lite: OnceLock::new(),
        }
    }

    /// A pattern with a gate (see the field).
    pub const fn gated(gate: fn(&[u8]) -> bool, src: &'static str) -> LazyRe {
        LazyRe {
            src,
            gate: Some(gate),
            cell: OnceLock::new(),
            lite: OnceLock::new(),
        }
    }

    /// The pattern's gate, if it has one.
    #[cfg(test)]
    pub fn gate(&self) -> Option<fn(&[u8]) -> bool> {
        self.gate
    }

    /// Whether the light engine can skip `s`: its gate says the pattern cannot match.
    fn shut(&self, s: &str) -> bool {
        self.gate.is_some_and(|g| !g(s.as_bytes()))
    }

    pub fn get(&self) -> &Regex {
        self.cell.get_or_init(|| re(self.src))
    }

    pub fn lite(&self) -> &regex_lite::Regex {
        self.lite
            .get_or_init(|| regex_lite::Regex::new(self.src).expect("mask pattern compiles"))
    }

    /// Byte spans of every match, left to right (as `find_iter`).
    pub fn spans(&self, e: Engine, s: &str) -> Vec<(usize, usize)> {
        match e {
            Engine::Lite if self.shut(s) => Vec::new(),
            Engine::Lite => self.lite().find_iter(s).map(|m| (m.start(), m.end())).collect(),
            Engine::Full => self.get().find_iter(s).map(|m| (m.start(), m.end())).collect(),
        }
    }

    /// The text of every match.
    pub fn finds<'a>(&self, e: Engine, s: &'a str) -> Vec<&'a str> {
        self.spans(e, s).into_iter().map(|(a, b)| &s[a..b]).collect()
    }

    /// The first group of every match (as `captures_iter`; group 1 always takes part).
    pub fn group1s<'a>(&self, e: Engine, s: &'a str) -> Vec<&'a str> {
        match e {
            Engine::Lite if self.shut(s) => Vec::new(),
            Engine::Lite => self
                .lite()
                .captures_iter(s)
                .filter_map(|c| c.get(1).map(|m| m.as_str()))
                .collect(),
            Engine::Full => self
                .get()
                .captures_iter(s)
                .filter_map(|c| c.get(1).map(|m| m.as_str()))
                .collect(),
        }
    }

    /// Every match replaced by what `with` says for its span (as `replace_all`).
    pub fn replace_with(&self, e: Engine, s: &str, mut with: impl FnMut(usize, usize) -> String) -> String {
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for (a, b) in self.spans(e, s) {
            out.push_str(&s[last..a]);
            out.push_str(&with(a, b));
            last = b;
        }
        out.push_str(&s[last..]);
        out
    }

    /// Every match replaced by `by` (a plain text, no `$` groups).
    pub fn replace(&self, e: Engine, s: &str, by: &str) -> String {
        self.replace_with(e, s, |_, _| by.to_string())
    }
}

/// Rewrites a pattern's `\w`, `\d`, `\s` and `\b` into their ASCII forms, inside and
/// outside bracket classes. Compiling the Unicode forms cost ~10 ms per process — five
/// hook budgets, paid by the fail-streak hook at every failure — for no gain: the
/// identifiers, numbers and paths of error text are ASCII.
pub fn ascii_pattern(p: &str) -> String {
    let class = |c: char| match c {
        'w' => "0-9A-Za-z_",
        'd' => "0-9",
        _ => "\\t\\n\\x0B\\x0C\\r ",
    };
    let mut out = String::with_capacity(p.len() * 2);
    let mut in_class = false;
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('w' | 'd' | 's')) if in_class => out.push_str(class(e)),
                Some(e @ ('w' | 'd' | 's')) => {
                    out.push('[');
                    out.push_str(class(e));
                    out.push(']');
                }
                Some('b') => out.push_str("(?-u:\\b)"),
                Some(e) => {
                    out.push('\\');
                    out.push(e);
                }
                None => out.push('\\'),
            },
            '[' if !in_class => {
                in_class = true;
                out.push(c);
            }
            ']' if in_class && !out.ends_with('[') && !out.ends_with("[^") => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Compiles a mask pattern with ASCII classes (see [`ascii_pattern`]).
pub fn re(p: &str) -> Regex {
    Regex::new(&ascii_pattern(p)).expect("mask pattern compiles")
}

/// Calls `f` on every JSON object of every corpus file ([`corpus_files`]), nested ones
/// included: records, trajectories, rules.
#[cfg(test)]
pub(crate) fn corpus_objects(mut f: impl FnMut(&serde_json::Map<String, serde_json::Value>)) {
    for file in corpus_files() {
        for row in std::fs::read_to_string(&file).unwrap_or_default().lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(row) else {
                continue;
            };
            let mut stack = vec![&v];
            while let Some(v) = stack.pop() {
                match v {
                    serde_json::Value::Array(a) => stack.extend(a),
                    serde_json::Value::Object(o) => {
                        f(o);
                        stack.extend(o.values());
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Every `.jsonl` file under the `tests/corpora*` folders: the texts the tests that compare
/// two implementations (mask engines, term forms) run over.
#[cfg(test)]
pub(crate) fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir("tests")
        .expect("tests folder")
        .flatten()
        .map(|d| d.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("corpora"))
        })
        .collect();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    files
}
