//! **Measuring**: how well fable works, on corpora and on this machine.
//!
//! Owns corpora (formats.md §2, [`corpus`]), the field test (formats.md §4,
//! [`fieldtest`]) with its per-class results ([`classes`]) and extraction metrics
//! ([`extraction_metrics`]), the threshold × margin sweep ([`sweep`]) and its chart
//! ([`chart`]), recurrence after promotion ([`recurrence`]) and the benchmarks
//! ([`bench`](mod@bench), [`bench_learn`], the freshness repository [`bench_fresh`]) and which
//! hand-written table of the learner decides what ([`ablation`]).
//!
//! May use: everything below it ([`crate::learn`], [`crate::evidence`],
//! [`crate::setup`], the root). Nothing on the hook path may use this folder.

pub mod ablation;
pub mod bench;
pub mod bench_codex;
pub mod bench_fresh;
pub mod bench_learn;
pub mod bench_transcript;
pub mod chart;
pub mod classes;
pub mod corpus;
pub mod extraction_metrics;
pub mod fieldtest;
pub mod recurrence;
pub mod sweep;
