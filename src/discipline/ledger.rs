//! The `.fable/LEDGER.md` parser.
//!
//! Compatible with the ancestor's line grammar (cards `- [ ]` / `- [x]` / `- [X]` / `- [~]`,
//! directives `MODE:` `REPLAY:` `TIER:` `ROUTING:` where the first valid line wins,
//! `PAUSED` with a reason of at least 3 characters), but stricter where the ancestor was
//! loose: a note marker (`evidence:`, `tried:`, `deferred:` and the Chinese markers) counts
//! only inside a *note* — after ` -- ` on the card line, or on an indented continuation
//! line under the card — never in the card's title (`- [x] add evidence: loader` is a
//! title, not evidence). Lines inside fenced code blocks are examples, not state.
//!
//! Parsing never fails: a line that fits no rule is ignored, so a half-edited ledger can
//! never block an agent through a parse error.

/// Whether a card is still to do, done, or set aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardState {
    /// `- [ ]`
    Open,
    /// `- [x]` or `- [X]`
    Done,
    /// `- [~]`
    Deferred,
}

/// What a note says about its card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// `evidence:` / `verified:` / `证据:` / `凭证:` / `验证:`
    Evidence,
    /// `tried:` / `已试:` / `排除:` — hypotheses ruled out during a grind.
    Tried,
    /// `deferred:` / `搁置:` / `推迟:`
    Deferred,
}

/// One note under a card: its kind and the text after the marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub kind: NoteKind,
    pub body: String,
    /// 1-based line number where the note starts.
    pub line: usize,
}

/// One task card with the notes that belong to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub state: CardState,
    /// The card text before its first note, trimmed.
    pub title: String,
    pub notes: Vec<Note>,
    /// 1-based line number of the card line.
    pub line: usize,
}

impl Card {
    pub fn notes_of(&self, kind: NoteKind) -> impl Iterator<Item = &Note> {
        self.notes.iter().filter(move |n| n.kind == kind)
    }

    /// True when some evidence note on this card is substantive.
    pub fn has_substantive_evidence(&self) -> bool {
        self.notes_of(NoteKind::Evidence).any(|n| is_substantive(&n.body))
    }

    /// Backticked commands cited in this card's evidence notes, whitespace collapsed,
    /// in order of appearance, without duplicates. Backticked prose that is not a command
    /// line (`src/config.rs`, `parse_config`, `3 passed`) is not a citation: see
    /// [`looks_like_command`].
    pub fn citations(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for n in self.notes_of(NoteKind::Evidence) {
            for c in backtick_spans(&n.body) {
                if looks_like_command(&c) && !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        out
    }

    /// A short label for messages: line number and the title, capped.
    /// The title is quoted: it is repository text, shown as data, never as an instruction.
    pub fn label(&self) -> String {
        format!("line {}: \"{}\"", self.line, crate::hook::printable(&self.title, 80))
    }
}

/// `MODE:` — full ceremony, or light triage (honesty rules kept, ceremony dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Full,
    Light,
}

/// `TIER:` — how much parallelism the session may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    Conservative,
    Throughput,
}

/// `ROUTING:` — how sub-agent work is routed across models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routing {
    Quality,
    Balanced,
    Frugal,
}

impl Tier {
    pub fn parse(s: &str) -> Option<Tier> {
        match s.trim().to_ascii_lowercase().as_str() {
            "conservative" => Some(Tier::Conservative),
            "throughput" => Some(Tier::Throughput),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Tier::Conservative => "conservative",
            Tier::Throughput => "throughput",
        }
    }
}

impl Routing {
    pub fn parse(s: &str) -> Option<Routing> {
        match s.trim().to_ascii_lowercase().as_str() {
            "quality" => Some(Routing::Quality),
            "balanced" => Some(Routing::Balanced),
            "frugal" => Some(Routing::Frugal),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Routing::Quality => "quality",
            Routing::Balanced => "balanced",
            Routing::Frugal => "frugal",
        }
    }
}

/// The ledger's state, as the guards read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    pub cards: Vec<Card>,
    pub mode: Mode,
    pub replay: bool,
    pub tier: Option<Tier>,
    pub routing: Option<Routing>,
    /// The reason of the first reasoned `PAUSED` line.
    pub paused: Option<String>,
}

/// The ledger's state machine, as the injector sizes its context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Paused,
    /// Open cards exist.
    Active,
    /// Cards exist, none open.
    Idle,
    /// No cards (or no ledger).
    Starting,
}

impl Ledger {
    pub fn open_cards(&self) -> impl Iterator<Item = &Card> {
        self.cards.iter().filter(|c| c.state == CardState::Open)
    }

    pub fn done_cards(&self) -> impl Iterator<Item = &Card> {
        self.cards.iter().filter(|c| c.state == CardState::Done)
    }

    pub fn is_paused(&self) -> bool {
        self.paused.is_some()
    }

    pub fn is_light(&self) -> bool {
        self.mode == Mode::Light
    }

    pub fn phase(&self) -> Phase {
        if self.is_paused() {
            Phase::Paused
        } else if self.open_cards().next().is_some() {
            Phase::Active
        } else if !self.cards.is_empty() {
            Phase::Idle
        } else {
            Phase::Starting
        }
    }

    /// Substantive `tried:` notes on cards: the distillations that reset a fail streak.
    pub fn tried_notes(&self) -> impl Iterator<Item = &Note> {
        self.cards
            .iter()
            .flat_map(|c| c.notes_of(NoteKind::Tried))
            .filter(|n| is_substantive(&n.body))
    }
}

/// Reads and parses a ledger file; `None` when it does not exist or cannot be read.
pub fn load(path: &std::path::Path) -> Option<Ledger> {
    // Through the `.fable/` door: a linked, device or oversized ledger is refused (one
    // stderr line) and treated as absent rather than read unbounded.
    match crate::fable_dir::read_string(path, crate::fable_dir::Kind::Document) {
        Ok(text) => text.map(|t| parse(&t)),
        Err(e) => {
            eprintln!("[fable] ledger: {e} (ignored)");
            None
        }
    }
}

/// Strips `word` from the start of `s`, ASCII case-insensitively.
fn strip_word<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let head = s.get(..word.len())?;
    head.eq_ignore_ascii_case(word).then(|| &s[word.len()..])
}

/// `<word>\s*[:：]` at the start of `s` (ASCII case-insensitive); returns the rest.
/// Hand-written rather than a regex: hooks start a fresh process per call, and compiling
/// patterns would cost more than parsing the whole ledger.
fn strip_marker<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let rest = strip_word(s, word)?.trim_start();
    rest.strip_prefix(':').or_else(|| rest.strip_prefix('：'))
}

/// A directive line `NAME: value` where value is one of `values` (whole word); the
/// first valid line of each kind wins, and unknown values are ignored.
fn directive(line: &str, name: &str, values: &[&'static str]) -> Option<&'static str> {
    let rest = strip_marker(line, name)?.trim_start();
    values.iter().copied().find(|v| {
        strip_word(rest, v).is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

const NOTE_MARKERS: &[(&str, NoteKind)] = &[
    ("evidence", NoteKind::Evidence),
    ("verified", NoteKind::Evidence),
    ("证据", NoteKind::Evidence),
    ("凭证", NoteKind::Evidence),
    ("验证", NoteKind::Evidence),
    ("tried", NoteKind::Tried),
    ("已试", NoteKind::Tried),
    ("排除", NoteKind::Tried),
    ("deferred", NoteKind::Deferred),
    ("搁置", NoteKind::Deferred),
    ("推迟", NoteKind::Deferred),
];

/// Source and data file extensions: a bare `name.ext` is a file being talked about, not a
/// program being run (a script is run as `./name.sh` or `sh name.sh`).
const FILE_EXTENSIONS: &[&str] = &[
    "rs", "py", "toml", "json", "jsonl", "md", "txt", "yaml", "yml", "js", "ts", "tsx", "jsx", "go", "c", "h", "cc",
    "cpp", "hpp", "java", "kt", "rb", "lock", "cfg", "ini", "sh", "html", "css", "sql", "csv", "log", "xml",
];

/// Whether a backticked span is a command line of a program, so that it must be
/// corroborated, rather than an identifier, a file name or a line of output. A command's
/// first word is a program name or a path (`cargo`, `./check.sh`, `/usr/bin/env`); it does
/// not start with a digit (`3 passed`), is not a bare file name (`src/config.rs`,
/// `Cargo.toml`), and is not code (`parse_config`, `Foo::bar`, `run()`). A bare
/// snake_case word counts only when a program of that name is on `PATH`.
pub fn looks_like_command(span: &str) -> bool {
    let mut words = span.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let single = words.next().is_none();
    if first.starts_with(|c: char| c.is_ascii_digit()) || first.contains("::") || first.contains('(') {
        return false;
    }
    if first.ends_with(':') || first.ends_with(',') || first.ends_with('.') {
        return false; // `error:`, `note,` — output or prose
    }
    let is_path =
        first.starts_with("./") || first.starts_with('/') || first.starts_with("../") || first.starts_with('~');
    if !is_path {
        if let Some((_, ext)) = first.rsplit_once('.') {
            if FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) {
                return false;
            }
        }
        if first.contains('/') && single {
            return false; // `src/parser` — a path talked about
        }
        if single && first.contains('_') && !first.contains('=') {
            return on_path(first);
        }
    }
    true
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// Splits a note-bearing text at ` -- ` separators that lie outside backticks, so a
/// cited `cargo test -- --nocapture` stays whole. Returns the parts after the first.
fn split_notes(s: &str) -> (&str, Vec<&str>) {
    let bytes = s.as_bytes();
    let mut cuts = Vec::new();
    let mut in_tick = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'`' => in_tick = !in_tick,
            b' ' | b'\t' if !in_tick && s[i + 1..].starts_with("--") && s[i + 3..].starts_with([' ', '\t']) => {
                cuts.push(i);
                i += 3;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let mut parts = Vec::new();
    let head_end = cuts.first().copied().unwrap_or(s.len());
    for (k, &c) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).copied().unwrap_or(s.len());
        parts.push(&s[c + 3..end]);
    }
    (&s[..head_end], parts)
}

/// Classifies a note segment by its leading marker; returns the kind and the body.
fn classify(seg: &str) -> Option<(NoteKind, String)> {
    let seg = seg.trim();
    NOTE_MARKERS
        .iter()
        .find_map(|(w, k)| strip_marker(seg, w).map(|rest| (*k, rest.trim().to_string())))
}

/// Parses ledger text. Never fails.
pub fn parse(text: &str) -> Ledger {
    let mut l = Ledger::default();
    let (mut mode, mut replay, mut in_fence) = (None, None, false);
    for (idx, raw) in text.lines().enumerate() {
        let lineno = idx + 1;
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || line.is_empty() {
            continue;
        }
        if let Some(card) = parse_card(line, lineno) {
            l.cards.push(card);
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            if let Some(card) = l.cards.last_mut() {
                continue_card(card, line, lineno);
                continue;
            }
        }
        if mode.is_none() {
            if let Some(v) = directive(line, "MODE", &["light", "full"]) {
                mode = Some(if v == "light" { Mode::Light } else { Mode::Full });
                continue;
            }
        }
        if replay.is_none() {
            if let Some(v) = directive(line, "REPLAY", &["on", "off"]) {
                replay = Some(v == "on");
                continue;
            }
        }
        if l.tier.is_none() {
            if let Some(v) = directive(line, "TIER", &["throughput", "conservative"]) {
                l.tier = Tier::parse(v);
                continue;
            }
        }
        if l.routing.is_none() {
            if let Some(v) = directive(line, "ROUTING", &["quality", "balanced", "frugal"]) {
                l.routing = Routing::parse(v);
                continue;
            }
        }
        if l.paused.is_none() {
            // `PAUSED:` with its colon: a prose line starting "Paused …" pauses nothing.
            if let Some(rest) = strip_marker(line, "PAUSED") {
                let reason = rest
                    .trim_matches(|c: char| matches!(c, ' ' | '\t' | ':' | '：' | '-' | '–' | '—'))
                    .to_string();
                if reason.chars().count() >= 3 {
                    l.paused = Some(reason);
                }
            }
        }
    }
    l.mode = mode.unwrap_or_default();
    l.replay = replay.unwrap_or(false);
    l
}

/// A card line: `- [ ]`, `- [x]`, `- [X]`, `- [~]` (other marks and `* [ ]` are not cards).
fn parse_card(line: &str, lineno: usize) -> Option<Card> {
    let rest = line.strip_prefix("- [")?;
    let mut chars = rest.chars();
    let mark = chars.next()?;
    if chars.next()? != ']' {
        return None;
    }
    let state = match mark {
        ' ' => CardState::Open,
        'x' | 'X' => CardState::Done,
        '~' => CardState::Deferred,
        _ => return None,
    };
    let body = chars.as_str();
    let (title, segs) = split_notes(body);
    let mut card = Card {
        state,
        title: title.trim().to_string(),
        notes: Vec::new(),
        line: lineno,
    };
    attach(&mut card, &segs, lineno);
    Some(card)
}

/// Attaches note segments to a card; a segment without a marker continues the previous
/// note (or is ignored when there is none), so prose after ` -- ` never becomes a marker.
fn attach(card: &mut Card, segs: &[&str], lineno: usize) {
    for seg in segs {
        match classify(seg) {
            Some((kind, body)) => card.notes.push(Note {
                kind,
                body,
                line: lineno,
            }),
            None => {
                if let Some(last) = card.notes.last_mut() {
                    last.body.push_str(" -- ");
                    last.body.push_str(seg.trim());
                }
            }
        }
    }
}

/// An indented line under a card: a new note when it starts with a marker (optionally
/// after `--`, `-` or `*`), otherwise more text of the card's last note.
fn continue_card(card: &mut Card, line: &str, lineno: usize) {
    let stripped = line
        .strip_prefix("--")
        .or_else(|| line.strip_prefix("- "))
        .or_else(|| line.strip_prefix("* "))
        .unwrap_or(line)
        .trim_start();
    let (head, segs) = split_notes(stripped);
    if classify(head).is_some() {
        let mut all = vec![head];
        all.extend(segs);
        // The first segment carries a marker, so `attach` starts a new note with it.
        attach(card, &all, lineno);
    } else if let Some(last) = card.notes.last_mut() {
        last.body.push(' ');
        last.body.push_str(head.trim());
        attach(card, &segs, lineno);
    }
}

/// Words that only assert success: a note made of these alone is not evidence.
const BARE: &[&str] = &[
    "ok",
    "okay",
    "done",
    "works",
    "it works",
    "working",
    "verified",
    "tested",
    "pass",
    "passes",
    "passed",
    "passing",
    "green",
    "all green",
    "good",
    "looks good",
    "all good",
    "fine",
    "works fine",
    "complete",
    "completed",
    "fixed",
    "confirmed",
    "checked",
    "success",
    "successful",
    "yes",
    "lgtm",
    "tests pass",
    "all tests pass",
    "完成",
    "已完成",
    "通过",
    "已验证",
    "没问题",
];

/// True when a note body is evidence rather than an adjective: at least 6 characters
/// (the ancestor's floor) and not a bare success word.
pub fn is_substantive(body: &str) -> bool {
    let t = body.trim();
    if t.chars().count() < 6 {
        return false;
    }
    let norm: String = t
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() || c == ' ' { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    !BARE.contains(&norm.as_str())
}

/// Backtick spans in a text, whitespace collapsed; empty spans are dropped.
pub fn backtick_spans(s: &str) -> Vec<String> {
    let parts: Vec<&str> = s.split('`').collect();
    // Odd parts are inside ticks; the last part has no closing tick, so it never counts.
    (1..parts.len().saturating_sub(1))
        .step_by(2)
        .map(|i| normalize(parts[i]))
        .filter(|n| !n.is_empty())
        .collect()
}

pub use crate::evidence::command_key::normalize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_command_lines_are_citations() {
        for cmd in [
            "cargo test",
            "pytest",
            "make",
            "./check.sh",
            "sh ./check.sh",
            "npm run build",
            "t",
            "/bin/true",
            "DB_PASSWORD=x make migrate",
            "go test ./...",
            "python3 -m pytest tests/test_a.py",
        ] {
            assert!(looks_like_command(cmd), "{cmd}");
        }
        for prose in [
            "src/config.rs",
            "parse_config",
            "3 passed",
            "Cargo.toml",
            "Foo::bar",
            "run()",
            "error:",
            "src/parser",
            "README.md",
            "12 passed, 0 failed",
        ] {
            assert!(!looks_like_command(prose), "{prose}");
        }
        let l = parse(
            "- [x] 1. loader -- evidence: `cargo test` passed; see `src/config.rs` and `parse_config`, `3 passed`\n",
        );
        assert_eq!(l.cards[0].citations(), vec!["cargo test".to_string()]);
    }

    #[test]
    fn cards_and_states() {
        let l = parse("# L\n- [ ] a\n- [x] b -- evidence: `t` 3 ok\n- [X] c\n- [~] d -- deferred: later\n- [?] e\n* [ ] f\n  - [ ] nested\n");
        let s: Vec<_> = l.cards.iter().map(|c| c.state).collect();
        assert_eq!(
            s,
            vec![
                CardState::Open,
                CardState::Done,
                CardState::Done,
                CardState::Deferred,
                CardState::Open
            ]
        );
        assert_eq!(l.cards[1].title, "b");
        assert_eq!(l.cards[1].citations(), vec!["t".to_string()]);
    }

    #[test]
    fn marker_in_title_is_not_a_note() {
        let l = parse("- [x] add evidence: loader foo\n");
        assert!(l.cards[0].notes.is_empty());
        let l = parse("- [x] loader -- evidence: 12 passed in `pytest -q`\n");
        assert!(l.cards[0].has_substantive_evidence());
    }

    #[test]
    fn continuation_lines_belong_to_the_card() {
        let l =
            parse("- [x] a\n  -- evidence: `cargo test -- --nocapture` 40 passed\n    and more\n- [ ] b\n  tried: x\n");
        assert_eq!(l.cards[0].citations(), vec!["cargo test -- --nocapture".to_string()]);
        assert!(l.cards[0].notes[0].body.ends_with("and more"));
        assert_eq!(l.cards[1].notes[0].kind, NoteKind::Tried);
    }

    #[test]
    fn directives_first_wins_and_paused_needs_reason() {
        let l =
            parse("mode： LIGHT\nMODE: full\nREPLAY: bogus\nreplay: on\nTIER: throughput\nROUTING: frugal\nPAUSED:\n");
        assert_eq!((l.mode, l.replay), (Mode::Light, true));
        assert_eq!((l.tier, l.routing), (Some(Tier::Throughput), Some(Routing::Frugal)));
        assert!(!l.is_paused());
        assert!(parse("PAUSED: user asked for docs\n").is_paused());
        assert!(!parse("PAUSED -- ab\n").is_paused());
        assert!(!parse("Paused the parser work to look at docs\n").is_paused());
        assert!(parse("paused： the user asked for docs\n").is_paused());
        assert!(parse("```\n- [ ] example\nPAUSED: nope\n```\n").cards.is_empty());
    }

    #[test]
    fn substance() {
        for bad in ["ok", "done", "works!", "Verified.", "it works", "", "  abc "] {
            assert!(!is_substantive(bad), "{bad}");
        }
        for good in ["40/40 tests green", "`pytest -q` -> 12 passed", "全部 12 项测试通过"] {
            assert!(is_substantive(good), "{good}");
        }
    }

    #[test]
    fn spans() {
        assert_eq!(backtick_spans("a `x  y` b `z`"), vec!["x y", "z"]);
        assert_eq!(backtick_spans("a `x` b `unterminated"), vec!["x"]);
        assert!(backtick_spans("``").is_empty());
    }
}
