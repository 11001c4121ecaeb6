pub mod codex;
pub mod e2e;
pub mod git_history;
pub mod harness;
