//! The offline harness: runs the real Claude Code CLI against a scripted mock of the
//! Anthropic Messages API, and the real OpenAI Codex CLI against one of the Responses
//! API, so the end-to-end tests prove our hooks under each real host (docs/harness.md).
//!
//! Parts, one concept each: [`script`] (what the mock answers, pure), [`mock`] (the HTTP
//! server on 127.0.0.1, logging every request), [`netns`] (a private network namespace for
//! one thread and its children), [`record`] (a hook that stores what each hook event
//! read), [`run`] (one session: throw-away project and HOME, the
//! CLI with a cleared environment), [`summary`] (what the run left, as one JSON).
//! Codex: [`responses`] (its script and answers, pure), [`codex_mock`] (the Responses
//! routes on the same server), [`codex_run`] (one `codex exec` session),
//! [`codex_summary`].
//!
//! Never on the hook path (scripts/check_layout.py): the hooks must not carry a web
//! server. Uses nothing else of the crate.

pub mod codex_mock;
pub mod codex_run;
pub mod codex_summary;
pub mod mock;
pub mod netns;
pub mod record;
pub mod responses;
pub mod run;
pub mod script;
pub mod summary;
