//! The history the learner reads, held compactly, and the one way the pipeline reads it.
//!
//! A [`Record`] is ~500 bytes before its strings; a million of them, with the per-record
//! normalisation beside them, was 1.5 GB. The pipeline reads six things of a record —
//! command, outcome, session, time, whether it is an edit, and (for failures and untrusted
//! records only) the output — so [`History`] keeps just those: commands and sessions
//! interned, times in one arena, outputs only where a later stage reads them. It is built
//! one record at a time ([`HistoryBuilder::push`]) while the log is read, with the
//! normalisation ([`Prepared`]) built beside it, so no whole log is ever resident.
//!
//! [`Records`] is what the pipeline's stages take: a plain `[Record]` (tests, callers with
//! records in hand) and a [`History`] read the same, so both give the same outcome.

use crate::evidence::Record;
use crate::learn::history::origin_trust::Trust;
use crate::learn::history::prepared::{Prepared, PreparedBuilder};
use std::collections::HashMap;
use std::sync::Arc;

/// Read access to a history, oldest record first.
pub trait Records {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn cmd(&self, i: usize) -> &str;
    fn ok(&self, i: usize) -> bool;
    fn session(&self, i: usize) -> &str;
    fn ts(&self, i: usize) -> &str;
    /// The output as read ([`Record::output`]: the tail, after the head when the output
    /// was cut). A [`History`] keeps it only for failures and untrusted records (the only
    /// ones any stage reads it of after normalisation); `""` otherwise.
    fn tail(&self, i: usize) -> std::borrow::Cow<'_, str>;
    /// An edit record ([`is_edit_record`]).
    fn is_edit(&self, i: usize) -> bool;
}

impl Records for [Record] {
    fn len(&self) -> usize {
        <[Record]>::len(self)
    }
    fn cmd(&self, i: usize) -> &str {
        &self[i].cmd
    }
    fn ok(&self, i: usize) -> bool {
        self[i].ok
    }
    fn session(&self, i: usize) -> &str {
        &self[i].session
    }
    fn ts(&self, i: usize) -> &str {
        &self[i].ts
    }
    fn tail(&self, i: usize) -> std::borrow::Cow<'_, str> {
        self[i].output()
    }
    fn is_edit(&self, i: usize) -> bool {
        is_edit_record(&self[i])
    }
}

impl Records for Vec<Record> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    fn cmd(&self, i: usize) -> &str {
        self.as_slice().cmd(i)
    }
    fn ok(&self, i: usize) -> bool {
        self.as_slice().ok(i)
    }
    fn session(&self, i: usize) -> &str {
        self.as_slice().session(i)
    }
    fn ts(&self, i: usize) -> &str {
        self.as_slice().ts(i)
    }
    fn tail(&self, i: usize) -> std::borrow::Cow<'_, str> {
        self.as_slice().tail(i)
    }
    fn is_edit(&self, i: usize) -> bool {
        self.as_slice().is_edit(i)
    }
}

/// An edit record: a file-tool call (Write, Edit, …) logged with its file and no command.
pub fn is_edit_record(r: &Record) -> bool {
    r.file.is_some() && r.cmd.trim().is_empty()
}

/// Strings seen many times (commands, session ids) stored once each.
#[derive(Debug, Default)]
struct Interner {
    ids: HashMap<Arc<str>, u32>,
    strings: Vec<Arc<str>>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.strings.len() as u32;
        let a: Arc<str> = Arc::from(s);
        self.strings.push(a.clone());
        self.ids.insert(a, i);
        i
    }
}

const OK: u8 = 1;
const EDIT: u8 = 2;

/// A history held by column, with its normalisation ([`Prepared`]).
#[derive(Debug, Default)]
pub struct History {
    cmds: Vec<Arc<str>>,
    cmd: Vec<u32>,
    sessions: Vec<Arc<str>>,
    session: Vec<u32>,
    flags: Vec<u8>,
    /// Every `ts`, concatenated; `ts_end[i]` is where record `i`'s ends.
    ts: String,
    ts_end: Vec<usize>,
    /// (record, tail) of failures and untrusted records, in record order.
    tails: Vec<(usize, Box<str>)>,
    /// The normalisation every stage reads (built as the records arrived).
    pub prep: Prepared,
}

impl History {
    /// The compact form of records already in memory (oldest first).
    pub fn from_records(records: &[Record]) -> History {
        let mut b = HistoryBuilder::default();
        for r in records {
            b.push(r);
        }
        b.finish()
    }

    /// The time of the newest record.
    pub fn last_ts(&self) -> Option<&str> {
        (!Records::is_empty(self)).then(|| self.ts(Records::len(self) - 1))
    }
}

impl Records for History {
    fn len(&self) -> usize {
        self.cmd.len()
    }
    fn cmd(&self, i: usize) -> &str {
        &self.cmds[self.cmd[i] as usize]
    }
    fn ok(&self, i: usize) -> bool {
        self.flags[i] & OK != 0
    }
    fn session(&self, i: usize) -> &str {
        &self.sessions[self.session[i] as usize]
    }
    fn ts(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ts_end[i - 1] };
        &self.ts[start..self.ts_end[i]]
    }
    fn tail(&self, i: usize) -> std::borrow::Cow<'_, str> {
        match self.tails.binary_search_by_key(&i, |(k, _)| *k) {
            Ok(p) => self.tails[p].1.as_ref().into(),
            Err(_) => "".into(),
        }
    }
    fn is_edit(&self, i: usize) -> bool {
        self.flags[i] & EDIT != 0
    }
}

/// Builds a [`History`] one record at a time: what a record costs once pushed is its
/// interned ids, its time and (failure or untrusted) its output.
#[derive(Default)]
pub struct HistoryBuilder {
    cmds: Interner,
    sessions: Interner,
    cmd: Vec<u32>,
    session: Vec<u32>,
    flags: Vec<u8>,
    ts: String,
    ts_end: Vec<usize>,
    tails: Vec<(usize, Box<str>)>,
    prep: PreparedBuilder,
}

impl HistoryBuilder {
    /// Adds the next record (oldest first).
    pub fn push(&mut self, r: &Record) {
        let i = self.cmd.len();
        let trust = self.prep.push(r);
        self.cmd.push(self.cmds.id(&r.cmd));
        self.session.push(self.sessions.id(&r.session));
        let edit = is_edit_record(r);
        self.flags.push(if r.ok { OK } else { 0 } | if edit { EDIT } else { 0 });
        self.ts.push_str(&r.ts);
        self.ts_end.push(self.ts.len());
        if !r.ok || trust == Trust::Untrusted {
            self.tails.push((i, r.output().as_ref().into()));
        }
    }

    pub fn len(&self) -> usize {
        self.cmd.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cmd.is_empty()
    }

    pub fn finish(self) -> History {
        let mut h = History {
            cmds: self.cmds.strings,
            cmd: self.cmd,
            sessions: self.sessions.strings,
            session: self.session,
            flags: self.flags,
            ts: self.ts,
            ts_end: self.ts_end,
            tails: self.tails,
            prep: self.prep.finish(),
        };
        h.ts.shrink_to_fit();
        h.tails.shrink_to_fit();
        h
    }
}
