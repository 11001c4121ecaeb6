//! Evidence records for the learning tests that drive the production pipeline in process
//! (`run_pipeline` on a `Vec<Record>`): one session's command, its outcome and output tail.
//! Included by path (`#[path = "support/records.rs"] mod records;`), not through
//! `support/mod.rs`, so a learning test does not compile the harness.

#![allow(dead_code)]

use fable::evidence::Record;

/// A record of `cmd` in `session`: exit 0 when `ok`, else 1, with `tail` as its output.
pub fn rec(session: &str, cmd: &str, ok: bool, tail: &str) -> Record {
    Record::new(
        "2026-01-01T00:00:00.000Z",
        session,
        "/w",
        cmd,
        Some(if ok { 0 } else { 1 }),
        ok,
        tail,
    )
}
