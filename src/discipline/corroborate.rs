//! Citation corroboration: a command cited in an evidence note must be a command that
//! really ran, as written, and whose **newest** run passed.
//!
//! The ancestor matched by substring in either direction and accepted any historical
//! pass, so `echo "pytest -q"` corroborated `pytest -q`, `make` corroborated every
//! citation containing it, and pass → fail → stop was allowed. Here a citation matches a
//! logged command only when both are equal after whitespace collapsing, with one allowance
//! on the logged side: a leading `cd <dir> &&` (the agent's usual way to run in a
//! subfolder). The newest record of the command decides: `ok: true` and `exit: 0`.

use crate::discipline::ledger::normalize;
use crate::evidence::journal::Journal;
use crate::evidence::seal::{self, ChainWalk};
use crate::evidence::Record;
use crate::evidence::{outcome_index, outcome_reader};
use std::collections::HashMap;

/// What the log says about one citation.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The newest record of the command passed.
    Corroborated,
    /// No record of exactly this command.
    NeverRan,
    /// The newest record did not pass.
    LastFailed { exit: Option<i64> },
    /// The command ran, but only outside the folder the citation implies (another tree,
    /// another subfolder): it proves nothing about this project.
    RanElsewhere { dir: String },
    /// The newest record exited 0 but shows no test passing (`--help`, `--no-run`, a
    /// filter that matched nothing, a summary lost to `| head`): `why` says what to run.
    ProvesNothing { why: String },
    /// The newest record is a `run_in_background` launch: its result never reached a hook.
    Background,
    /// The command appears in the log, but in no record this machine's hook sealed
    /// (hand-written, copied, from before a break in the chain, or from before fable
    /// sealed records): it corroborates nothing.
    Unverified { why: Unverified },
}

/// Why a logged record does not count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unverified {
    /// No MAC: written by hand, imported, or by a fable that did not seal.
    Unsealed,
    /// A MAC that this machine's key did not make for this project.
    Forged,
    /// Sealed, but before a point where the log was altered (a record removed).
    BeforeBreak,
    /// This machine has no key yet, so nothing can be checked.
    NoKey,
}

impl Unverified {
    fn says(self) -> &'static str {
        match self {
            Unverified::Unsealed => "not written by this machine's evidence hook (no seal)",
            Unverified::Forged => {
                "carries a seal this machine did not make (altered, copied from elsewhere, or forged)"
            }
            Unverified::BeforeBreak => {
                "older than a point where the evidence log was altered (a record was removed or changed)"
            }
            Unverified::NoKey => "cannot be checked: this machine has no fable key yet",
        }
    }
}

/// How a citation is looked up: normalised after the same redaction the logger applies,
/// so `DB_PASSWORD=test123 make migrate` finds its record, logged as
/// `DB_PASSWORD=[REDACTED] make migrate`.
pub fn cite_key(cited: &str) -> String {
    normalize(&crate::evidence::redact::redact(cited))
}

/// The keys a citation may be logged under: as written (it may already show the mask,
/// copied from the log) and as the logger would have redacted it.
///
/// Remembered per process: the close guard asks for each citation's keys several times
/// (lookup, verdict, freshness, stated counts), and each redaction scans the whole
/// secret rule set.
pub fn cite_keys(cited: &str) -> Vec<String> {
    thread_local! {
        static SEEN: std::cell::RefCell<HashMap<String, Vec<String>>> = std::cell::RefCell::new(HashMap::new());
    }
    if let Some(keys) = SEEN.with(|m| m.borrow().get(cited).cloned()) {
        return keys;
    }
    let keys = cite_keys_of(cited);
    SEEN.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= 4096 {
            m.clear();
        }
        m.insert(cited.to_string(), keys.clone());
    });
    keys
}

fn cite_keys_of(cited: &str) -> Vec<String> {
    let plain = normalize(cited);
    let redacted = cite_key(cited);
    if redacted == plain {
        vec![plain]
    } else {
        vec![plain, redacted]
    }
}

/// The keys a citation's records are found under: its own, and for `cd <dir> && X` also
/// those of `X` (a run of `cd /abs/dir && X`, or of `X` with the shell already in `dir`,
/// is the same citation; its place is checked apart).
pub fn lookup_keys(cited: &str) -> Vec<String> {
    let mut keys = cite_keys(cited);
    let n = normalize(cited);
    if let Some((_, rest)) = strip_cd(&n) {
        for k in cite_keys(rest) {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys
}

pub use crate::evidence::command_key::strip_cd;

/// The newest record of every logged command, keyed by normalised command and, for
/// `cd <dir> && X`, also by `X`.
///
/// With a project root ([`Index::placed`]) a citation is looked up where it says it ran
/// (`run_place`): the newest record *at that place* decides, and records that ran
/// elsewhere only explain why nothing backs it.
#[derive(Debug, Default)]
pub struct Index {
    newest: HashMap<String, Record>,
    /// Every record per key with its position in the log, for lookups by place.
    all: HashMap<String, Vec<(usize, Record)>>,
    unverified: HashMap<String, Unverified>,
    root: Option<std::path::PathBuf>,
}

impl Index {
    /// Builds the index from records in log order (oldest first): later ones win.
    pub fn build(records: impl IntoIterator<Item = Record>) -> Index {
        let mut newest = HashMap::new();
        let mut all: HashMap<String, Vec<(usize, Record)>> = HashMap::new();
        for (at, r) in records.into_iter().enumerate() {
            let n = normalize(&r.cmd);
            if let Some((_, rest)) = strip_cd(&n) {
                newest.insert(rest.to_string(), r.clone());
                all.entry(rest.to_string()).or_default().push((at, r.clone()));
            }
            all.entry(n.clone()).or_default().push((at, r.clone()));
            newest.insert(n, r);
        }
        Index {
            newest,
            all,
            unverified: HashMap::new(),
            root: None,
        }
    }

    /// This index, looking citations up where they ran in the project at `root`.
    pub fn placed(mut self, root: &std::path::Path) -> Index {
        self.root = Some(crate::discipline::run_place::fold(root));
        self
    }

    /// The index of what [`read_relevant`] found: sealed records count, the others are
    /// kept only to say why a citation is not corroborated.
    pub fn from_relevant(r: Relevant) -> Index {
        let mut ix = Index::build(r.records);
        for (rec, why) in r.unverified {
            let n = normalize(&rec.cmd);
            if let Some((_, rest)) = strip_cd(&n) {
                ix.unverified.insert(rest.to_string(), why);
            }
            ix.unverified.insert(n, why);
        }
        ix
    }

    /// The newest record of exactly this (normalised) command.
    /// With a root, the newest record that ran where the citation says.
    pub fn newest(&self, cited: &str) -> Option<&Record> {
        let Some(root) = &self.root else {
            return cite_keys(cited).iter().find_map(|k| self.newest.get(k));
        };
        lookup_keys(cited)
            .iter()
            .filter_map(|k| self.all.get(k))
            .flat_map(|v| v.iter())
            .filter(|(_, r)| crate::discipline::run_place::ran_at(root, cited, &r.cwd, &r.cmd))
            // Log order, not timestamps: a clock that jumped must not pick the older run.
            .max_by_key(|(at, _)| *at)
            .map(|(_, r)| r)
    }

    /// Where the command ran instead, when it ran only outside the citation's place.
    fn elsewhere(&self, cited: &str) -> Option<String> {
        self.root.as_ref()?;
        let (_, r) = lookup_keys(cited)
            .iter()
            .filter_map(|k| self.all.get(k))
            .flat_map(|v| v.iter())
            .max_by_key(|(at, _)| *at)?;
        let (dir, _) = crate::discipline::run_place::effective(&r.cwd, &r.cmd);
        Some(dir.display().to_string())
    }

    pub fn verdict(&self, cited: &str) -> Verdict {
        match self.newest(cited) {
            None => match cite_keys(cited).iter().find_map(|k| self.unverified.get(k)) {
                Some(why) => Verdict::Unverified { why: *why },
                None => match self.elsewhere(cited) {
                    Some(dir) => Verdict::RanElsewhere { dir },
                    None => Verdict::NeverRan,
                },
            },
            Some(r) if r.passed() => {
                let shows = crate::evidence::proof::shows(&r.cmd, r.exit, r.ok, r.summary);
                match shows.proves() {
                    true => Verdict::Corroborated,
                    false => Verdict::ProvesNothing {
                        why: shows.describe(&r.cmd),
                    },
                }
            }
            Some(r) if r.background.is_some() => Verdict::Background,
            Some(r) => Verdict::LastFailed { exit: r.exit },
        }
    }
}

/// The longest run of `[A-Za-z0-9_]` in a citation: JSON never escapes those bytes, so a
/// log line lacking it cannot hold a record of that command. Used to skip parsing.
fn needle(cited: &str) -> Option<&str> {
    cited
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .max_by_key(|t| t.len())
        .filter(|t| !t.is_empty())
}

/// The fields corroboration needs, borrowed from a log line: the long `tail` is skipped
/// without being copied, which keeps the close guard fast on a full log.
#[derive(serde::Deserialize)]
struct Lite<'a> {
    #[serde(borrow)]
    cmd: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    cwd: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    ts: std::borrow::Cow<'a, str>,
    exit: Option<i64>,
    ok: bool,
    #[serde(default, borrow)]
    event: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    summary: Option<crate::evidence::summary::Summary>,
    #[serde(default, borrow)]
    agent: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    background: Option<std::borrow::Cow<'a, str>>,
    /// The files the run left (freshness compares them with today's).
    #[serde(default)]
    tree: Option<String>,
}

/// The raw `cmd` string of a compact JSON log line, when it holds no escape sequence (so
/// the raw text is the value). A quote inside any JSON string is escaped, so the key
/// pattern cannot match inside another field's value.
fn raw_cmd(line: &str) -> Option<&str> {
    let i = line.find("\"cmd\":")?;
    let rest = line[i + 6..].trim_start().strip_prefix('"')?;
    let end = rest.find(['"', '\\'])?;
    (rest.as_bytes()[end] == b'"').then(|| &rest[..end])
}

/// What [`read_relevant`] found for the cited commands.
#[derive(Debug, Default)]
pub struct Relevant {
    /// Sealed records after the last break in the chain, oldest first: the evidence.
    pub records: Vec<Record>,
    /// Records of cited commands that do not count, and why.
    pub unverified: Vec<(Record, Unverified)>,
    pub malformed: usize,
    /// The session's newest sealed edit that counts (when asked for, see [`EditScan`]).
    pub last_edit: Option<crate::discipline::freshness::Edit>,
}

/// What to look for besides the citations, in the same pass: the newest edit of this
/// session that makes an earlier pass stale.
pub struct EditScan<'a> {
    pub session: &'a str,
    pub root: &'a std::path::Path,
    pub scope: crate::discipline::freshness::Scope,
}

/// Reads only the records of the cited commands (oldest first, without their output
/// tails), so the close guard stays fast on a full log. A line is parsed only when it
/// holds the citation's longest word, and kept only when its command matches a citation
/// (directly or after a leading `cd <dir> &&`). A kept record counts only when this
/// machine's key verifies its seal; the chain is followed over every line (from its last
/// bytes, without parsing), and a break — or a log that ends before the newest record
/// sealed for it — demotes every record before it. Malformed lines are skipped and counted.
pub fn read_relevant(journal: &Journal, citations: &[String]) -> Relevant {
    read_relevant_with(journal, citations, None)
}

/// [`read_relevant`], also finding the session's newest edit in the same pass.
pub fn read_relevant_with(journal: &Journal, citations: &[String], edits: Option<EditScan>) -> Relevant {
    use crate::discipline::freshness;
    let edits = edits.filter(|e| e.scope != freshness::Scope::Off && !e.session.is_empty());
    if citations.is_empty() && edits.is_none() {
        return Relevant::default();
    }
    let keys: Vec<String> = citations.iter().flat_map(|c| lookup_keys(c)).collect();
    let ix = outcome_reader::Reader::open(journal);
    if let Some(fast) = ix
        .as_ref()
        .and_then(|ix| from_index(ix, journal, citations, edits.as_ref()))
    {
        return fast;
    }
    let out = scan(journal, &keys, citations, edits);
    // A missing or stale index is rebuilt now that the log has been read once anyway; a
    // current one that could not answer (a citation not in it) stays as it is.
    if ix.is_none() {
        outcome_reader::rebuild(journal);
    }
    out
}

/// The same answer as the full scan, from the outcome index: every citation's newest
/// sealed record and the session's newest edit, each read and verified at the position
/// the index gives. `None` when the index cannot answer all of it (a citation it does not
/// hold — the scan then says why — or a line that does not verify).
fn from_index(
    ix: &outcome_reader::Reader,
    journal: &Journal,
    citations: &[String],
    edits: Option<&EditScan>,
) -> Option<Relevant> {
    use crate::discipline::freshness;
    let mut out = Relevant::default();
    let mut found: Vec<((u64, u64), Record)> = Vec::new();
    for c in citations {
        let keys = lookup_keys(c);
        let hit = keys.iter().find_map(|k| match ix.get(k) {
            outcome_reader::Lookup::Found(line, at) => Some(Some((k, line, at))),
            outcome_reader::Lookup::Absent => None,
            outcome_reader::Lookup::Unusable => Some(None),
        })??;
        let (key, line, at) = hit;
        let lite = serde_json::from_slice::<Lite>(&line).ok()?;
        let n = normalize(&lite.cmd);
        if &n != key && strip_cd(&n).is_none_or(|(_, rest)| rest != key) {
            return None;
        }
        // The index holds the newest run anywhere: one outside the citation's place may
        // hide an older one inside it, which only the scan finds.
        let root = journal.dir().parent()?;
        if !crate::discipline::run_place::ran_at(root, c, &lite.cwd, &lite.cmd) {
            return None;
        }
        if found.iter().any(|(p, _)| *p == at) {
            continue;
        }
        found.push((
            at,
            Record {
                event: lite.event.map(|e| e.into_owned()),
                summary: lite.summary,
                background: lite.background.map(|b| b.into_owned()),
                tree: lite.tree,
                ..Record::new(lite.ts, "", lite.cwd, lite.cmd, lite.exit, lite.ok, "")
            },
        ));
    }
    found.sort_by_key(|(at, _)| *at);
    out.records = found.into_iter().map(|(_, r)| r).collect();
    if let Some(e) = edits {
        if journal.dir().parent() != Some(e.root) {
            return None;
        }
        let key = outcome_index::edit_key(e.scope == freshness::Scope::Project, e.session);
        match ix.get(&key) {
            outcome_reader::Lookup::Found(line, _) => {
                out.last_edit = Some(freshness::edit_of_line(&line, e.root, e.scope)?)
            }
            outcome_reader::Lookup::Absent if !ix.lossy() => {}
            _ => return None,
        }
    }
    Some(out)
}

/// The full pass over every generation (see [`read_relevant`]).
fn scan(journal: &Journal, keys: &[String], citations: &[String], edits: Option<EditScan>) -> Relevant {
    use crate::discipline::freshness;
    let mut out = Relevant::default();
    let edit_needle = edits
        .as_ref()
        .map(|e| format!("\"session\":{}", serde_json::Value::String(e.session.to_string())));
    let wanted: std::collections::HashSet<String> = keys.iter().cloned().collect();
    let needles: Vec<&str> = keys.iter().filter_map(|c| needle(c)).collect();
    let all_needed = keys.iter().any(|c| needle(c).is_none());
    let matches = |n: &str| wanted.contains(n) || strip_cd(n).is_some_and(|(_, rest)| wanted.contains(rest));
    let sealer = journal.sealer();
    let scope = journal.scope();
    let mut walk = ChainWalk::default();
    let demote = |out: &mut Relevant| {
        for r in out.records.drain(..) {
            out.unverified.push((r, Unverified::BeforeBreak));
        }
    };
    let read = journal.each_line(|path, lineno, line| {
        if walk.step(path, lineno, line) {
            demote(&mut out);
        }
        let text = std::str::from_utf8(line).ok();
        let raw = text.and_then(raw_cmd);
        // Only an edit record has an empty command: no other line is searched for one.
        if let (Some(e), Some(needle), Some(t), Some("")) = (&edits, &edit_needle, text, raw) {
            if t.contains(needle.as_str()) {
                if let Some(edit) = freshness::edit_of_line(line, e.root, e.scope) {
                    let sealed = sealer.is_some_and(|s| s.key.verify(&scope, line).is_some());
                    if sealed && out.last_edit.as_ref().is_none_or(|n| edit.ts > n.ts) {
                        out.last_edit = Some(edit);
                    }
                }
                return;
            }
        }
        if citations.is_empty() {
            return;
        }
        // Most lines name another command: decide from the raw `cmd` value when it has
        // no escapes (a word test, then an exact test), and parse only the hits. Other
        // lines are parsed when the citation's longest word occurs anywhere in them.
        let has_word = |s: &str| all_needed || needles.iter().any(|n| s.contains(n));
        match (text, raw) {
            (_, Some(raw)) if !has_word(raw) || !matches(&normalize(raw)) => return,
            (Some(t), None) if !has_word(t) => return,
            _ => {}
        }
        let Ok(lite) = serde_json::from_slice::<Lite>(line) else {
            out.malformed += 1;
            return;
        };
        if !matches(&normalize(&lite.cmd)) {
            return;
        }
        let rec = Record {
            event: lite.event.map(|e| e.into_owned()),
            summary: lite.summary,
            background: lite.background.map(|b| b.into_owned()),
            tree: lite.tree,
            ..Record::new(lite.ts, "", lite.cwd, lite.cmd, lite.exit, lite.ok, "")
        };
        let why = match (sealer, seal::parts(line)) {
            (_, None) => Some(Unverified::Unsealed),
            (None, Some(_)) => Some(Unverified::NoKey),
            (Some(s), Some(_)) => s.key.verify(&scope, line).is_none().then_some(Unverified::Forged),
        };
        match why {
            None => out.records.push(rec),
            Some(why) => out.unverified.push((rec, why)),
        }
    });
    if let Err(e) = read {
        eprintln!("[fable] evidence log: {e}");
    }
    if walk.cut_before(sealer.and_then(|s| s.read_head()).as_deref()) {
        demote(&mut out);
        out.last_edit = None;
    }
    out
}

/// The sealed records of one session whose command is a known runner (tests, builds,
/// checks), oldest first, without tails but with their `summary` and `agent`: what can
/// back a claim in the final message.
/// Lines are parsed only when they hold the session id; a chain break demotes the
/// records before it, as in [`read_relevant`].
pub fn session_runs(journal: &Journal, session: &str) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::new();
    let Some(sealer) = journal.sealer() else { return out };
    if session.is_empty() {
        return out;
    }
    let scope = journal.scope();
    let root = journal.dir().parent().map(crate::discipline::run_place::fold);
    let root = root.as_deref();
    let needle = format!("\"session\":{}", serde_json::Value::String(session.to_string()));
    let mut walk = ChainWalk::default();
    let read = journal.each_line(|path, lineno, line| {
        if walk.step(path, lineno, line) {
            out.clear();
        }
        let Ok(text) = std::str::from_utf8(line) else { return };
        if !text.contains(&needle) {
            return;
        }
        let Ok(lite) = serde_json::from_slice::<Lite>(line) else {
            return;
        };
        // `cd pkg && cargo test` is a runner too; a run outside the project backs nothing here.
        let (dir, rest) = crate::discipline::run_place::effective(&lite.cwd, &lite.cmd);
        let outside = !lite.cwd.is_empty() && root.is_some_and(|root| !dir.starts_with(root));
        if crate::discipline::claims::runner_kind(rest).is_none()
            || outside
            || sealer.key.verify(&scope, line).is_none()
        {
            return;
        }
        // The summary decides whether a piped run (`cargo test 2>&1 | tail`) passed; the
        // agent id tells a sub-agent's runs from the main thread's.
        out.push(Record {
            summary: lite.summary,
            agent: lite.agent.map(|a| a.into_owned()),
            background: lite.background.map(|b| b.into_owned()),
            tree: lite.tree,
            ..Record::new(lite.ts, session, lite.cwd, lite.cmd, lite.exit, lite.ok, "")
        });
    });
    if read.is_err() || walk.cut_before(sealer.read_head().as_deref()) {
        out.clear();
    }
    out
}

/// An actionable message for a citation that is not corroborated.
pub fn explain(cited: &str, v: &Verdict) -> Option<String> {
    match v {
        Verdict::Corroborated => None,
        Verdict::NeverRan => Some(format!(
            "`{cited}` has no run in the evidence log — run exactly this command, or cite the command you did run"
        )),
        Verdict::RanElsewhere { dir } => Some(format!(
            "`{cited}` ran only in {dir}, not where the citation says — run it in this project (`cd <folder> && …` names a subfolder)"
        )),
        Verdict::Unverified { why } => Some(format!(
            "`{cited}` is in the evidence log only in records that do not count: {} — run exactly this command again",
            why.says()
        )),
        Verdict::ProvesNothing { why } => Some(why.clone()),
        Verdict::Background => Some(format!(
            "`{cited}` was launched in the background; run it in the foreground to back a card"
        )),
        Verdict::LastFailed { exit: Some(0) } => Some(format!(
            "`{cited}` exited 0 on its latest run, but its output reports failures (a pipe hides the exit status) — fix them and run it again"
        )),
        Verdict::LastFailed { exit } => Some(format!(
            "`{cited}` failed on its latest run (exit {}) — fix it and run it again until it passes",
            exit.map_or("unknown".to_string(), |e| e.to_string())
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(cmd: &str, exit: i64) -> Record {
        Record::new("", "", "/p", cmd, Some(exit), exit == 0, "")
    }

    #[test]
    fn exact_match_only() {
        let i = Index::build(vec![rec("echo \"pytest -q\"", 0), rec("pytest", 0), rec("make", 0)]);
        assert_eq!(i.verdict("pytest -q"), Verdict::NeverRan);
        assert_eq!(i.verdict("make test"), Verdict::NeverRan);
        let i = Index::build(vec![rec("pytest -q", 0)]);
        assert_eq!(i.verdict("pytest"), Verdict::NeverRan);
        assert_eq!(i.verdict("pytest   -q"), Verdict::Corroborated);
    }

    #[test]
    fn reads_only_relevant_records() {
        let t = tempfile::tempdir().unwrap();
        let sealer = seal::Sealer {
            key: seal::Key::from_bytes([7; 32]),
            head: None,
        };
        let j = Journal::new(t.path(), crate::evidence::journal::Rotation::default()).with_sealer(Some(sealer));
        for c in ["pytest -q -k x", "cd /a && pytest  -q", "pytest", "echo \"pytest -q\""] {
            j.append(&rec(c, 0)).unwrap();
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(j.live_path())
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"cmd\":\"pytest -q\" torn\n"))
            .unwrap();
        let out = read_relevant(&j, &["pytest -q".to_string()]);
        let cmds: Vec<&str> = out.records.iter().map(|r| r.cmd.as_str()).collect();
        assert_eq!(cmds, vec!["cd /a && pytest  -q"]);
        assert_eq!(out.malformed, 1);
        // Without the key, the same records are only unverified.
        let bare = Journal::new(t.path(), crate::evidence::journal::Rotation::default());
        let out = read_relevant(&bare, &["pytest -q".to_string()]);
        assert!(out.records.is_empty());
        assert_eq!(out.unverified.len(), 1);
        assert_eq!(out.unverified[0].1, Unverified::NoKey);
        assert_eq!(raw_cmd(r#"{"v":1,"cmd": "a b","ok":true}"#), Some("a b"));
        assert_eq!(raw_cmd(r#"{"cmd":"say \"hi\"","ok":true}"#), None);
        assert_eq!(raw_cmd(r#"{"tail":"x \"cmd\": y"}"#), None);
    }

    #[test]
    fn cd_prefix_and_newest_wins() {
        let i = Index::build(vec![rec("cd /x &&  pytest -q", 0)]);
        assert_eq!(i.verdict("pytest -q"), Verdict::Corroborated);
        let i = Index::build(vec![rec("pytest -q", 0), rec("pytest -q", 1)]);
        assert_eq!(i.verdict("pytest -q"), Verdict::LastFailed { exit: Some(1) });
        let i = Index::build(vec![rec("pytest -q", 1), rec("cd '/a b' && pytest -q", 0)]);
        assert_eq!(i.verdict("pytest -q"), Verdict::Corroborated);
        assert_eq!(strip_cd("cd \"/a b\" && x y"), Some(("\"/a b\"", "x y")));
        assert_eq!(strip_cd("cd x; y"), None);
        assert_eq!(strip_cd("cd x&&y"), Some(("x", "y")));
        assert_eq!(strip_cd("cd 'a b' &&"), None);
        assert_eq!(strip_cd("cdx && y"), None);
    }
}
