//! How a substitute program is said when the sessions ran it from several project
//! environments: `.venv/bin/python`, `venv/bin/python` and `.env/bin/python3` are one fix,
//! "the project environment's `<env>/bin/python`", and the environments seen are named.
//!
//! Why apart from [`crate::learn::propose::fix_directive`]: which words a directive uses
//! is that file's; how one kind of fix is said across sessions is a concept of its own.

use crate::learn::history::episodes::Episode;
use crate::learn::propose::render::quote_cmd;

/// A substitute program as the group's sessions share it: when they ran it from
/// several project environments (`.venv/bin/python`, `venv/bin/python`,
/// `.env/bin/python3`), the environment is a placeholder and the ones seen are named,
/// most common first: ("the project environment's `<env>/bin/python`", " (seen: `.venv`,
/// `venv`, `.env`)"); one environment (or one session) is said as it is.
pub fn environment_said(episodes: &[Episode], eps: &[usize], p: &str) -> (String, String) {
    let base = |x: &str| x.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').to_string();
    let split: Vec<(String, String)> = eps
        .iter()
        .filter_map(|&ei| episodes[ei].substitute.as_deref())
        .filter_map(|s| s.rsplit_once("/bin/").map(|(env, prog)| (env.to_string(), base(prog))))
        .collect();
    let Some((_, prog)) = p.rsplit_once("/bin/") else {
        return (quote_cmd(p), String::new());
    };
    let mut envs: Vec<(usize, String)> = Vec::new();
    for (env, _) in &split {
        match envs.iter_mut().find(|e| e.1 == *env) {
            Some(e) => e.0 += 1,
            None => envs.push((1, env.clone())),
        }
    }
    if envs.len() < 2 || split.iter().any(|(_, pr)| *pr != base(prog)) {
        return (quote_cmd(p), String::new());
    }
    envs.sort_by_key(|e| std::cmp::Reverse(e.0));
    let seen: Vec<String> = envs.iter().map(|e| quote_cmd(&e.1)).collect();
    (
        format!(
            "the project environment's {}",
            quote_cmd(&format!("<env>/bin/{}", base(prog)))
        ),
        format!(" (seen: {})", seen.join(", ")),
    )
}
