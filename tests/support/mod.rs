pub mod cargo_name_history;
pub mod codex;
pub mod cut_pipe_history;
pub mod dash_history;
pub mod e2e;
pub mod git_history;
pub mod harness;
pub mod real_runs;
