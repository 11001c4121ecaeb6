pub mod codex;
pub mod e2e;
pub mod harness;
