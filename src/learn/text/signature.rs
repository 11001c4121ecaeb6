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
    url: LazyRe,
    quoted: LazyRe,
    var: LazyRe,
    path: LazyRe,
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
    fn all(&self) -> [&LazyRe; 14] {
        [
            &self.url,
            &self.quoted,
            &self.var,
            &self.path,
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
    hash: LazyRe::gated(gate::hash, r"\b(?:[0-9a-f]{7,64}|sha256:[0-9a-f]+)\b"),
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
    if s.contains("://") || s.contains("git@") {
        s = m.url.replace(e, &s, "<url>").into();
    }
    if has(|c| matches!(c, '\'' | '"' | '`' | '‘'), &s) {
        s = m.quoted.replace(e, &s, "<q>").into();
    }
    if s.contains('$') {
        s = m.var.replace(e, &s, "<var>").into();
    }
    if s.contains('/') || s.contains('.') {
        s = m.path.replace(e, &s, "<path>").into();
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

/// Every candidate error line of an output, in order (each cut to 300 characters).
fn picked(tail: &str) -> Vec<String> {
    let text = unescape(crate::evidence::tail_chars(tail, MAX_SCAN_CHARS));
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut picked: Vec<&str> = lines.iter().copied().filter(|l| errorish(l)).collect();
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
mod tests {
    #[test]
    fn ascii_patterns_rewrite_classes_and_boundaries() {
        assert_eq!(
            crate::learn::text::mask_engine::ascii_pattern(r"\b\w+[\w.-]\d\s"),
            r"(?-u:\b)[0-9A-Za-z_]+[0-9A-Za-z_.-][0-9][\t\n\x0B\x0C\r ]"
        );
        assert_eq!(
            crate::learn::text::mask_engine::ascii_pattern(r"[^\s'\]]\.\\"),
            r"[^\t\n\x0B\x0C\r '\]]\.\\"
        );
        for r in super::masks().all() {
            let _ = r.get(); // every mask compiles in its ASCII form
        }
    }

    use super::*;

    #[test]
    fn a_tools_diagnostics_are_picked_from_among_its_output_rows() {
        let interleaved = "comm: file 2 is not in sorted order\nzoe\ncomm: file 1 is not in sorted order\nann\nbob\ncomm: input is not in sorted order\n";
        let plain = "comm: file 2 is not in sorted order\ncomm: file 1 is not in sorted order\ncomm: input is not in sorted order\n";
        assert_eq!(error_lines(interleaved), error_lines(plain));
        assert_eq!(signature(interleaved).template, signature(plain).template);
        // No prefix on the last line: the last two lines, as before.
        assert_eq!(error_lines("a\nb\nc"), vec!["b".to_string(), "c".to_string()]);
    }

    #[test]
    fn a_command_line_echoed_by_its_runner_is_no_error_line() {
        // make prints the recipe it runs: `-Werror` names an error only as a flag.
        let make = "gcc -Wall -Wextra -Werror -O2 -o app main.c\nmain.c: In function 'main':\n\
                    main.c:4:9: error: unused variable 'n' [-Werror=unused-variable]\n\
                    cc1: all warnings being treated as errors\nmake: *** [Makefile:5: app] Error 1\n";
        let lines = error_lines(make);
        assert!(lines[0].starts_with("main.c:4:9: error: unused variable"), "{lines:?}");
        assert!(!lines.iter().any(|l| l.starts_with("gcc ")), "{lines:?}");
        // An error word outside the flags keeps a line that also holds one.
        assert_eq!(
            error_lines("error: unexpected argument '--fail-fast' found"),
            vec!["error: unexpected argument '--fail-fast' found".to_string()]
        );
        assert_eq!(
            error_lines("go test -failfast ./...\n--- FAIL: TestX (0.00s)"),
            vec!["--- FAIL: TestX (0.00s)".to_string()]
        );
    }

    #[test]
    fn masks_variable_parts() {
        let t = mask_line("error: failed to push some refs to 'https://x.org/a.git' at 12:03:04 in 3.2s (abc1234def)");
        assert!(t.contains("<q>") && t.contains("<dur>") && t.contains("<hash>"), "{t}");
        let p = mask_line("  File \"src/train.py\", line 3, in <module>");
        assert!(p.contains("<q>") && p.contains("<n>"), "{p}");
        assert_eq!(mask_line("open /home/u/x/y.txt failed"), "open <path> failed");
        // A name with two known extensions is one path (`dump.sql.gz`, not `<path>.gz`).
        assert_eq!(
            mask_line("gzip: dump.sql.gz already exists"),
            "gzip: <path> already exists"
        );
        assert!(mask_line("error[E0432]: unresolved import").contains("E0432"));
    }

    /// A name is the session's own word however the tool quotes it: GNU's `name' (find,
    /// grep, make in the C locale) and a bare `$variable` (jq, shells) mask like 'name'.
    #[test]
    fn masks_gnu_quotes_and_variable_names() {
        assert_eq!(
            mask_line("find: paths must precede expression: `b.log'"),
            "find: paths must precede expression: <q>"
        );
        assert_eq!(
            mask_line("make: *** No rule to make target `a' and `b'"),
            "make: *** No rule to make target <q> and <q>"
        );
        assert_eq!(mask_line("unresolved import `foo`"), "unresolved import <q>");
        assert_eq!(
            mask_line("jq: error: $target is not defined at <top-level>, line 1:"),
            "jq: error: <var> is not defined at <top-level>, line <n>:"
        );
        assert_eq!(
            mask_line("bash: $HOME_DIR: unbound variable"),
            "bash: <var>: unbound variable"
        );
        // A dollar that names nothing stays.
        assert_eq!(mask_line("cost: $5 and $ alone"), "cost: $<n> and $ alone");
    }

    #[test]
    fn keeps_anchors() {
        assert!(anchors("error[E0432]: unresolved import `foo`").contains(&"E0432".to_string()));
        assert_eq!(anchors("npm ERR! code ERESOLVE")[0], "ERESOLVE");
        assert_eq!(
            anchors("Error: listen EADDRINUSE: address already in use :::3000")[0],
            "EADDRINUSE"
        );
        assert_eq!(anchors("PermissionError: [Errno 13] Permission denied")[0], "errno13");
        assert_eq!(anchors("429 Too Many Requests")[0], "http429");
        assert_eq!(
            anchors("ModuleNotFoundError: No module named 'torch'")[0],
            "ModuleNotFoundError"
        );
        assert_eq!(
            anchors(" ! [rejected] main -> main (fetch first)")[0],
            "non-fast-forward"
        );
        assert_eq!(
            anchors("remote contains work that you do not have locally")[0],
            "non-fast-forward"
        );
        assert_eq!(anchors("CrashLoopBackOff")[0], "CrashLoopBackOff");
    }

    #[test]
    fn generic_words_are_not_anchors() {
        for t in [
            "fails",
            "error: something failed",
            "incident",
            "unsafe task requested: Propaganda AI Video",
            "adversarial behavior requested: ddos_code_obfuscation_tools_1",
            "temporary_error_1",
            "bad data error",
        ] {
            assert!(anchors(t).is_empty(), "{t}: {:?}", anchors(t));
        }
    }

    /// A word of a name the session chose (a quoted folder, a path) is never an anchor;
    /// the same word in the tool's own message still is.
    #[test]
    fn path_and_quoted_name_words_are_never_anchors() {
        for t in [
            "cp: -r not specified; omitting directory 'fixtures'",
            "cp: -r not specified; omitting directory 'tests/fixtures'",
            "cp: cannot copy tests/fixtures/timeout to out",
            "mv: cannot move `conflict' to `x'",
            "cat: flaky.txt: Is a directory",
        ] {
            assert!(anchors(t).is_empty(), "{t}: {:?}", anchors(t));
        }
        assert!(anchors(
            "Main.java:1: error: class ReportJob is public, should be declared in a file named ReportJob.java"
        )
        .is_empty());
        assert_eq!(anchors("E   fixture 'db' not found")[0], "fixture-not-found");
        assert_eq!(anchors("CrashLoopBackOff: pod/web-1 in ns/app")[0], "CrashLoopBackOff");
        assert_eq!(anchors("cat: 'a b': No such file or directory")[0], "ENOENT");
        assert!(anchors("error: 'timed out' while reading").contains(&"timeout".to_string()));
    }

    #[test]
    fn signature_of_real_git_rejection() {
        let tail = "To ../remote.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to '../remote.git'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally.";
        let s = signature(tail);
        assert_eq!(s.primary(), Some("non-fast-forward"));
        assert!(!s.template.contains("remote.git"), "{}", s.template);
    }

    /// Every line of every corpus tail, both engines: masks and anchors byte-identical.
    #[test]
    fn engines_agree_on_corpora() {
        let files = crate::learn::text::mask_engine::corpus_files();
        let (mut lines, mut texts) = (0usize, 0usize);
        let mut check = |text: &str| {
            texts += 1;
            assert_eq!(anchors_in(Engine::Lite, text), anchors_in(Engine::Full, text), "{text}");
            for l in text.lines().chain(std::iter::once(text)) {
                lines += 1;
                assert_eq!(mask_line_in(Engine::Lite, l), mask_line_in(Engine::Full, l), "{l}");
            }
        };
        crate::learn::text::mask_engine::corpus_objects(|o| {
            for (k, x) in o {
                if let Some(t) = x
                    .as_str()
                    .filter(|_| matches!(k.as_str(), "tail" | "trigger" | "directive"))
                {
                    check(t);
                    check(&unescape(t));
                }
            }
        });
        for extra in [
            "error: ‘quoted’ at https://x.org/a/b.git 12:03:04 3.2s 0xdeadbeef sha256:abc E0432 errno 13 Errno  7",
            "Ünïcødé wörd_ERROR_CODE 503 Service Unavailable 429 too many",
            "ERRNO 2 ModuleNotFoundError: No module named 'x' EADDRINUSE ENOSPC_X AB1234 1,234.5",
            "naïve_ident 1.2.3 a/b/c.py:12 ./x ../y/ z.rs café.py",
        ] {
            check(extra);
        }
        assert!(
            files.len() > 3 && lines > 1000,
            "corpora found: {} files, {lines} lines",
            files.len()
        );
        eprintln!("{} files, {texts} texts, {lines} lines", files.len());
    }

    /// Each mask's gate says yes wherever the mask matches, under both engines, on every
    /// corpus line and on edge lines (see `mask_gates`).
    #[test]
    fn gates_hold_wherever_their_mask_matches() {
        let all = masks().all();
        let gated: Vec<_> = all.into_iter().filter_map(|r| Some((r, r.gate()?))).collect();
        assert_eq!(gated.len(), 8);
        let (mut lines, mut shut) = (0usize, 0usize);
        let mut check = |l: &str| {
            lines += 1;
            for (r, gate) in &gated {
                let open = gate(l.as_bytes());
                assert!(
                    open || !(r.get().is_match(l) || r.lite().is_match(l)),
                    "{:?} matches {l:?}",
                    r.get()
                );
                shut += usize::from(!open);
            }
        };
        for l in [
            "",
            "E",
            "EABC",
            "xEABC",
            "E0432",
            "Errno 13",
            "ERRNO:7",
            "errno",
            "429 Too",
            "x429 Too",
            "4290 not",
            "3.2s",
            "3. s",
            "12:03",
            "1:2",
            "5 ms",
            "5\x0bms",
            "a1b2c3d",
            "abcdef",
            "sha256:",
            "ModuleNotFoundError",
            "AbCd",
            "A1B2",
            "Ab",
            "ÉError",
            "_12",
            "é12",
            "12é",
            "1,234.5",
            "ms5",
            "deadbeef",
            "500 - Internal",
        ] {
            check(l);
        }
        for f in crate::learn::text::mask_engine::corpus_files() {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            for l in text.lines().flat_map(|row| row.split("\\n").chain([row])) {
                check(l);
            }
        }
        assert!(
            lines > 10_000 && shut > lines,
            "{shut} of {} checks shut",
            lines * gated.len()
        );
    }

    #[test]
    fn literal_backslash_n_is_a_line_break() {
        let s = signature("ok\\nModuleNotFoundError: No module named 'x'\\n");
        assert!(s.template.starts_with("ModuleNotFoundError"), "{}", s.template);
    }
}
