//! Failure signatures: the error lines of an output with the variable parts masked
//! (Drain-style templating), plus the *anchors* that identify the failure class.
//!
//! Why: two runs of the same failure differ in numbers, hashes, paths, quoted names, URLs
//! and times; masking them lets episodes cluster. Anchors are what must agree for two
//! failures to be "the same": error codes (`E0432`, `ERESOLVE`, `EADDRINUSE`, `Errno 13`,
//! HTTP statuses), exception/condition class names (`ModuleNotFoundError`,
//! `CrashLoopBackOff`) and a lexicon of failure phrases (`non-fast-forward`, `address
//! already in use`, …). Paraphrases of one failure map to one canonical anchor through a
//! small alias table (`fetch first` / `remote contains work` / `behind its remote` →
//! `non-fast-forward`). Bare words like "error", "failed" or "fatal" are deliberately
//! *not* anchors: every failure has them, so they identify nothing.

pub use crate::learn::text::anchor_phrases::describe_anchor;
use crate::learn::text::anchor_phrases::{is_noise_class, PHRASES};
use crate::learn::text::mask_engine::{engine, Engine, LazyRe};
use crate::learn::text::mask_gates as gate;

/// The signature of one output.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Signature {
    /// Masked error lines joined by ` | ` (at most [`MAX_LINES`]).
    pub template: String,
    /// Canonical anchors, most specific first (see [`anchors`]).
    pub anchors: Vec<String>,
}

impl Signature {
    /// The most specific anchor, the one clusters are keyed on.
    pub fn primary(&self) -> Option<&str> {
        self.anchors.first().map(String::as_str)
    }
}

/// Most error lines kept in a template.
pub const MAX_LINES: usize = 4;
/// Only the end of an output is read: errors come last, and this bounds the cost.
const MAX_SCAN_CHARS: usize = 3000;

struct Masks {
    excerpt: LazyRe,
    url: LazyRe,
    quoted: LazyRe,
    var: LazyRe,
    path: LazyRe,
    located: LazyRe,
    qualified: LazyRe,
    hash: LazyRe,
    dur: LazyRe,
    num: LazyRe,
    code_e: LazyRe,
    code_errno: LazyRe,
    code_letter: LazyRe,
    code_snake: LazyRe,
    snake_ident: LazyRe,
    camel: LazyRe,
    http: LazyRe,
}

#[cfg(test)]
impl Masks {
    /// Every mask, for the tests that check each one.
    fn all(&self) -> [&LazyRe; 17] {
        [
            &self.excerpt,
            &self.url,
            &self.quoted,
            &self.var,
            &self.path,
            &self.located,
            &self.qualified,
            &self.hash,
            &self.dur,
            &self.num,
            &self.code_e,
            &self.code_errno,
            &self.code_letter,
            &self.code_snake,
            &self.snake_ident,
            &self.camel,
            &self.http,
        ]
    }
}

/// Whether a line reads as an error line.
fn errorish(line: &str) -> bool {
    (crate::learn::text::tables::on(crate::learn::text::tables::Table::ErrorWords)
        && crate::learn::text::error_words::any_in(line)
        // Only a line with a flag word pays for the second look.
        && (!(line.starts_with('-') || line.contains(" -"))
            || crate::learn::text::error_words::any_in(&outside_flags(line))))
        || line.starts_with("hint:")
        || line.starts_with('!')
        || line
            .split(|c: char| !c.is_ascii_alphanumeric() && c != ':')
            .any(|w| w == "E:")
}

/// The line without its flag words (`-Werror`, `--fail-fast`): a command line echoed by
/// the tool that ran it (`gcc -Wall -Werror -o app main.c`, printed by make) names an error
/// only inside a flag, and is no error line.
fn outside_flags(line: &str) -> String {
    line.split_whitespace()
        .filter(|w| {
            let mut c = w.chars();
            !(c.next() == Some('-') && c.next().is_some_and(|n| n.is_ascii_alphabetic() || n == '-'))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

static MASKS: Masks = Masks {
    // A value the tool printed and cut (`object ({"id":1,"na...) cannot be csv-formatted`,
    // jq): the session's data, its cut quote unbalanced. Masked before quotes are read.
    excerpt: LazyRe::new(r#"\([\[{"][^\n]*?\.\.\.\)"#),
    url: LazyRe::new(r#"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'"`<>]+|git@[\w.-]+:[^\s'"`<>]+"#),
    // `*`, not `{0,200}`: a bounded repeat of a Unicode class compiles to 200 copies of
    // its UTF-8 automaton (milliseconds per process); a quote never spans a line anyway.
    // GNU tools quote a name as `name' (find, grep, make, ld in the C locale): that form
    // comes before the backquote pair, or "`a' and `b'" would mask as one quote.
    quoted: LazyRe::new(r#"'[^'\n]*'|"[^"\n]*"|`[^`'\n]*'|`[^`\n]*`|‘[^’\n]*’"#),
    // A variable's name (`$target is not defined`, `$HOME: unbound variable`) is the
    // session's own word, like a quoted name: jq, shells, perl, make say it bare.
    var: LazyRe::new(r"\$[A-Za-z_][A-Za-z0-9_]*"),
    path: LazyRe::new(
        r"(?:\.{0,2}/)?(?:[\w.@+-]+/)+[\w.@+-]*|\b[\w-]+(?:\.(?:py|rs|js|ts|tsx|jsx|go|rb|java|c|h|cpp|sh|yaml|yml|json|toml|txt|lock|tf|tfvars|md|cfg|ini|xml|sql|whl|tar|gz|zip))+\b",
    ),
    // A line that starts with where it is (`users.csv:7: INSERT failed`, the `file:line:`
    // of compilers and loaders): the file is the session's, whatever its extension.
    located: LazyRe::new(r"^[\w+-]+(?:\.[\w+-]+)+:\d+:"),
    // A qualified name (`Report::Format`, `App::Config`): the session's module, bare.
    qualified: LazyRe::new(r"\b[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+\b"),
    // Upper-case too from twelve digits: the thread id OpenSSL 3 puts before each error
    // (`80DB1AF8027F0000:error:1C800064:…`) changes with every run; its 8-digit code stays.
    hash: LazyRe::gated(gate::hash, r"\b(?:[0-9a-f]{7,64}|[0-9A-F]{12,64}|sha256:[0-9a-f]+)\b"),
    dur: LazyRe::gated(
        gate::dur,
        r"\b\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds|m|min|minutes|h|hours)\b|\b\d{1,2}:\d{2}(?::\d{2})?\b",
    ),
    num: LazyRe::gated(gate::num, r"\b\d+(?:[.,]\d+)*\b"),
    code_e: LazyRe::gated(gate::code_e, r"\bE[A-Z]{3,}[A-Z0-9_]*\b"),
    code_errno: LazyRe::gated(gate::code_errno, r"(?i)\berrno\s*(\d+)"),
    code_letter: LazyRe::gated(gate::code_letter, r"\b(?:[A-Z]{1,3}\d{3,5})\b"),
    code_snake: LazyRe::new(r"\b[A-Z]{2,}(?:_[A-Z0-9]{2,})+\b"),
    snake_ident: LazyRe::new(r"\b\w*[a-z0-9]_\w+\b"),
    camel: LazyRe::gated(
        gate::camel,
        r"\b(?:[A-Z][a-z0-9]+){2,}(?:\.[A-Z][A-Za-z]+)?\b|\b[A-Z][A-Za-z]*(?:Error|Exception|Exit|Denied|NotFound)\b",
    ),
    http: LazyRe::gated(
        gate::http,
        r"\b([45]\d\d)\b\s*(?:-\s*)?(?:[A-Z][a-z]|too|rate|token|gateway|internal|not|unauthori|forbidden|bad|service)",
    ),
};

fn masks() -> &'static Masks {
    &MASKS
}

/// Anchors of a text, most specific first: error codes, then class names, then phrases.
/// Exit status and tool names are carried separately by the caller (they are not
/// failure-specific on their own).
pub fn anchors(text: &str) -> Vec<String> {
    anchors_in(engine(), text)
}

fn anchors_in(e: Engine, text: &str) -> Vec<String> {
    let m = masks();
    let mut out: Vec<String> = Vec::new();
    let push = |a: String, out: &mut Vec<String>| {
        if !out.contains(&a) {
            out.push(a);
        }
    };
    // URLs and paths carry codes by accident (`.../E1234/...`): look at text without them.
    let mut clean = if text.contains("://") || text.contains("git@") {
        std::borrow::Cow::Owned(m.url.replace(e, text, " "))
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    // A name the session chose is no anchor: `omitting directory 'fixtures'` is not a
    // missing pytest fixture, `cp: cannot stat 'timeout/x'` no timeout. A quoted word
    // (no space inside: a quoted *message* keeps its words) and a path are read as blank.
    let blanked = crate::learn::text::names::blanked(&clean);
    let names: Vec<String> = blanked
        .as_ref()
        .map(|b| b.1.iter().map(|n| n.to_string()).collect())
        .unwrap_or_default();
    if let Some((n, _)) = blanked {
        clean = std::borrow::Cow::Owned(n);
    }
    // A class-like word the text also gives as a name (`class ReportJob is public, should
    // be declared in a file named ReportJob.java`) is the session's name, said bare too.
    let named = |w: &str| {
        names
            .iter()
            .any(|n| n.split(|c: char| !c.is_alphanumeric()).any(|x| x == w))
    };
    // Phrases are words of the message, not parts of identifiers: a task named
    // `floor_plan_unauthorized_acquisition` is not an "unauthorized" error.
    let lower = if clean.contains('_') {
        m.snake_ident.replace(e, &clean, " ").to_lowercase()
    } else {
        clean.to_lowercase()
    };
    let digits = clean.chars().any(|c| c.is_ascii_digit());
    // A phrase that maps to a code-like anchor is as specific as the code itself.
    let phrases = if crate::learn::text::tables::on(crate::learn::text::tables::Table::AnchorPhrases) {
        PHRASES
    } else {
        &[]
    };
    for (phrase, anchor) in phrases {
        if anchor.starts_with('E') && anchor.chars().skip(1).all(|c| c.is_ascii_uppercase()) && lower.contains(phrase) {
            push(anchor.to_string(), &mut out);
        }
    }
    for s in m.code_e.finds(e, &clean) {
        if !matches!(s, "ERROR" | "ERR" | "EOF" | "ENV" | "EXIT" | "EXPECTED" | "EXAMPLE") {
            push(s.to_string(), &mut out);
        }
    }
    if digits {
        for c in m.code_errno.group1s(e, &clean) {
            push(format!("errno{c}"), &mut out);
        }
        for c in m.code_letter.finds(e, &clean) {
            push(c.to_string(), &mut out);
        }
    }
    if clean.contains('_') {
        for (a, b) in m.code_snake.spans(e, &clean) {
            if !crate::learn::text::variable_name::names_a_variable(&clean, a, b) {
                push(clean[a..b].to_string(), &mut out);
            }
        }
    }
    if digits {
        for c in m.http.group1s(e, &clean) {
            push(format!("http{c}"), &mut out);
        }
    }
    for s in m.camel.finds(e, &clean) {
        if !is_noise_class(s) && !named(s) {
            let canon = if s.ends_with("ModuleNotFoundError") {
                "ModuleNotFoundError"
            } else {
                s
            };
            push(canon.to_string(), &mut out);
        }
    }
    for (phrase, anchor) in phrases {
        if lower.contains(phrase) {
            push(anchor.to_string(), &mut out);
        }
    }
    out
}

/// Masks the variable parts of one line.
pub fn mask_line(line: &str) -> String {
    mask_line_in(engine(), line)
}

fn mask_line_in(e: Engine, line: &str) -> String {
    let m = masks();
    let has = |pred: fn(char) -> bool, s: &str| s.chars().any(pred);
    let mut s = std::borrow::Cow::Borrowed(line);
    // Each mask runs (and compiles) only when the line holds what it could match.
    if s.contains("...)") {
        s = m.excerpt.replace(e, &s, "(<value>)").into();
    }
    if s.contains("://") || s.contains("git@") {
        s = m.url.replace(e, &s, "<url>").into();
    }
    if has(|c| matches!(c, '\'' | '"' | '`' | '‘'), &s) {
        s = m.quoted.replace(e, &s, "<q>").into();
    }
    if s.contains('$') {
        s = m.var.replace(e, &s, "<var>").into();
    }
    if s.contains('.') && s.contains(':') {
        let t = s.clone();
        s = m
            .located
            .replace_with(e, &t, |a, b| {
                let at = t[a..b].find(':').map_or(b, |p| a + p);
                format!("<path>{}", &t[at..b])
            })
            .into();
    }
    if s.contains('/') || s.contains('.') {
        s = m.path.replace(e, &s, "<path>").into();
    }
    if s.contains("::") {
        s = m.qualified.replace(e, &s, "<q>").into();
    }
    if has(|c| c.is_ascii_digit(), &s) {
        s = m.hash.replace(e, &s, "<hash>").into();
        s = m.dur.replace(e, &s, "<dur>").into();
        // Keep codes such as E0432 / Errno 13 / 429 intact: mask only free-standing
        // numbers that are not part of a code word.
        let t = s.clone();
        s = m
            .num
            .replace_with(e, &t, |a, b| {
                let before = t[..a].chars().last();
                if before.is_some_and(|c| c.is_ascii_alphabetic()) {
                    t[a..b].to_string()
                } else {
                    "<n>".to_string()
                }
            })
            .into();
    } else if s.chars().any(|c| c.is_ascii_hexdigit()) {
        s = m.hash.replace(e, &s, "<hash>").into();
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The output an evidence record carries, with the literal `\n` sequences some
/// converters leave in place turned into real line breaks.
fn unescape(tail: &str) -> String {
    tail.replace("\\n", "\n")
}

/// The error lines of an output: lines that look like errors, else the last lines.
pub fn error_lines(tail: &str) -> Vec<String> {
    cut(&picked(tail), MAX_LINES)
}

/// Every candidate error line of an output, in order (each cut to 300 characters). An
/// output the log cut ([`crate::evidence::Record::output`]: head, cut line, tail) gives its
/// head's error lines first, the cause a page of usage or a cascade pushed out of the
/// tail (`npm error Missing: x from lock file` before `npm ci`'s option list), then the
/// tail's.
fn picked(tail: &str) -> Vec<String> {
    let Some((head, rest)) = split_at_cut(tail) else {
        return picked_in(tail, false);
    };
    let mut lines = head_errors(head);
    for l in picked_in(rest, true) {
        if !lines.contains(&l) {
            lines.push(l);
        }
    }
    lines
}

/// An output's head and tail, when the log cut it between them.
fn split_at_cut(output: &str) -> Option<(&str, &str)> {
    let at = output.find(crate::evidence::OUTPUT_CUT)?;
    let head = output[..at].strip_suffix('\n')?;
    let rest = output[at + crate::evidence::OUTPUT_CUT.len()..].strip_prefix('\n')?;
    Some((head, rest))
}

/// The error lines of a head, its last line left out unless whole (the head's cut may
/// split it); warnings set aside beside other errors, as in the tail.
fn head_errors(head: &str) -> Vec<String> {
    let text = unescape(head);
    let mut lines: Vec<&str> = text.lines().collect();
    if !text.ends_with('\n') {
        lines.pop();
    }
    let mut picked: Vec<&str> = lines
        .into_iter()
        .map(str::trim)
        .filter(|l| !l.is_empty() && errorish(l))
        .collect();
    // A line that is only the prefix the tool puts on every line (`npm error` between
    // paragraphs) says nothing.
    if let Some(first) = picked.first() {
        let prefix: String = first.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        if picked.iter().filter(|l| l.starts_with(&prefix)).count() >= 3 {
            picked.retain(|l| *l != prefix);
        }
    }
    set_warnings_aside(&mut picked);
    picked
        .into_iter()
        .take(MAX_LINES)
        .map(|l| crate::evidence::head_chars(l, 300).to_string())
        .collect()
}

/// Warnings beside what failed are no part of it ([`crate::learn::text::warning_line`]):
/// set aside when other error lines stand beside them (a failure of warnings alone keeps
/// them). One pass over the lines, no allocation per line.
fn set_warnings_aside(picked: &mut Vec<&str>) {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::ErrorWords) {
        return;
    }
    let warns: Vec<bool> = picked
        .iter()
        .map(|l| crate::learn::text::warning_line::is_warning(l))
        .collect();
    if warns.contains(&true) && warns.contains(&false) {
        let mut w = warns.iter();
        picked.retain(|_| !w.next().copied().unwrap_or(false));
    }
}

/// [`picked`] of a plain output; `split_first`: its first line is the remainder of one
/// the log's cut split.
fn picked_in(tail: &str, split_first: bool) -> Vec<String> {
    let scanned = crate::evidence::tail_chars(tail, MAX_SCAN_CHARS);
    let text = unescape(scanned);
    // A scan cut inside a line starts with its end (`m error` of `npm error`): no line.
    let cut_inside = (scanned.len() < tail.len() && !tail[..tail.len() - scanned.len()].ends_with('\n'))
        || (split_first && scanned.len() == tail.len());
    let lines: Vec<&str> = text
        .lines()
        .skip(usize::from(cut_inside))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut picked: Vec<&str> = lines.iter().copied().filter(|l| errorish(l)).collect();
    set_warnings_aside(&mut picked);
    // Only exit reports read as errors (`make: *** […] Error 1`): the line above the first
    // says why ([`crate::learn::text::exit_report`]).
    if !picked.is_empty()
        && picked
            .iter()
            .all(|l| crate::learn::text::exit_report::is_exit_report(l))
    {
        if let Some(cause) = crate::learn::text::exit_report::cause_above(&lines) {
            picked.insert(0, cause);
        }
    }
    if picked.is_empty() {
        // No line reads as an error: the last two lines, but when the last one carries the
        // `prog: ` prefix tools put before their diagnostics, the last two lines with that
        // prefix (`comm: input is not in sorted order` after rows of output it printed:
        // the rows are the session's data, the diagnostics are the failure). Only the last
        // line's: `modified: x` in the middle of `git status` is a row, not a diagnostic.
        let prefix = lines.last().and_then(|l| diagnostic_prefix(l));
        let mut ours: Vec<&str> = lines
            .iter()
            .rev()
            .copied()
            .filter(|l| prefix.is_none_or(|p| l.starts_with(p)))
            .take(2)
            .collect();
        ours.reverse();
        picked = ours;
    }
    picked
        .into_iter()
        .map(|l| crate::evidence::head_chars(l, 300).to_string())
        .collect()
}

/// The `prog: ` a diagnostic line starts with (a name of letters, digits and `._+-`, then
/// `: `), if any.
fn diagnostic_prefix(line: &str) -> Option<&str> {
    let (name, _) = line.split_once(": ")?;
    let ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c));
    ok.then(|| &line[..name.len() + 2])
}

/// At most `max` lines: the first ones (the cause) and the last one (the summary),
/// duplicates dropped.
fn cut(picked: &[String], max: usize) -> Vec<String> {
    let kept: Vec<&String> = if picked.len() > max {
        picked[..max - 1].iter().chain(picked.last()).collect()
    } else {
        picked.iter().collect()
    };
    let mut out: Vec<String> = Vec::new();
    for l in kept {
        if !out.contains(l) {
            out.push(l.clone());
        }
    }
    out
}

/// The signature of an output.
pub fn signature(tail: &str) -> Signature {
    of_lines(&error_lines(tail))
}

/// The signature of an output and the anchors of its error lines the signature cut (it
/// reads at most [`MAX_LINES`]): a failure whose decisive line is the fifth still belongs
/// to that line's class for the coincidence test
/// ([`crate::learn::propose::failure_class::plain_retries`]). Empty when nothing was cut.
pub fn signature_and_beyond(tail: &str) -> (Signature, Vec<String>) {
    let all = picked(tail);
    let sig = of_lines(&cut(&all, MAX_LINES));
    if all.len() <= MAX_LINES {
        return (sig, Vec::new());
    }
    let beyond = anchors(&cut(&all, usize::MAX).join("\n"))
        .into_iter()
        .filter(|a| !sig.anchors.contains(a))
        .collect();
    (sig, beyond)
}

fn of_lines(lines: &[String]) -> Signature {
    let mut masked: Vec<String> = Vec::new();
    for l in lines {
        let t = mask_line(l);
        if !t.is_empty() && !masked.contains(&t) {
            masked.push(t);
        }
    }
    Signature {
        template: masked.join(" | "),
        anchors: anchors(&lines.join("\n")),
    }
}

#[cfg(test)]
#[path = "signature_tests.rs"]
mod tests;
