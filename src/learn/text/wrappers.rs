//! Wrappers: what a command line puts before the program it runs without changing what
//! runs (`sudo`, `env X=Y`, `time`, `timeout N`, `npx`, `uv run`, `npm exec`, `python -m`,
//! `bash -c "…"`), and which of them run the project's own copy of a tool.
//!
//! Why its own file: normalisation ([`crate::learn::text::command_norm`]) reads a segment
//! once its wrappers are gone, and recovery forms ask whether a retry went through a
//! project runner; both read this one list.

use crate::learn::text::program_family::program_name;

/// A program that runs a tool from the project's own environment (`npx tidyjs`, `uv run
/// ruff`): wrappers [`crate::learn::text::command_norm::normalize`] unwraps to the tool, so a retry through one ran the
/// failing program's own copy. Not `pnpm dlx`/`yarn dlx`, which fetch it. A package
/// manager's `exec` is named with it (`npm exec`: [`runner_exec`]).
pub fn project_runner(program: &str) -> bool {
    let runners = [
        "npx",
        "bunx",
        "pnpx",
        "uv",
        "poetry",
        "pipenv",
        "pdm",
        "hatch",
        "rye",
        "npm exec",
        "pnpm exec",
        "yarn exec",
        "bundle exec",
    ];
    crate::learn::text::tables::on(crate::learn::text::tables::Table::Wrappers) && runners.contains(&program)
}

/// How a runner is typed before the program it runs: `uv run <program>`, `npx <program>`,
/// `npm exec <program>`.
pub fn runner_invocation(runner: &str) -> String {
    match runner {
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" => format!("{runner} run <program>"),
        _ => format!("{runner} <program>"),
    }
}

/// The runner a command line starts with when it is a package manager's `exec` (`npm
/// exec bundlr …` → `npm exec`): the program a retry through it substituted.
pub fn runner_exec(cmd: &str) -> Option<String> {
    let w = words_of(cmd);
    let (p, verb) = (w.first()?, w.get(1)?);
    let p = program_name(p);
    (verb == "exec" && project_runner(&format!("{p} exec"))).then(|| format!("{p} exec"))
}

/// Does `runner`'s option `flag` take the next word as its value (`sudo -u postgres`,
/// `timeout -k 5`, `npx -p typescript`, `uv run --with httpx`)? One table for every reader
/// of a runner's options: unwrapping, the context a retry added, the programs as typed.
pub(crate) fn option_takes_value(runner: &str, flag: &str) -> bool {
    match runner {
        "sudo" | "doas" => matches!(flag, "-u" | "-g"),
        "env" => flag == "-u",
        "timeout" => matches!(flag, "-k" | "-s"),
        "npx" | "bunx" | "pnpx" => matches!(flag, "-p" | "--package" | "-c" | "--call"),
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" => matches!(flag, "--with" | "--python" | "-p" | "--env"),
        _ => false,
    }
}

/// The wrappers that run a program as another user.
pub(crate) const AS_ANOTHER_USER: [&str; 2] = ["sudo", "doas"];

/// Removes wrappers; returns the remaining words, whether `sudo` was seen, and an inner
/// command string when the wrapper was `bash -c "…"`.
pub(crate) fn unwrap_words(mut w: Vec<String>) -> (Vec<String>, bool, Option<String>) {
    let mut sudo = false;
    for _ in 0..16 {
        let Some(first) = w.first().cloned() else { break };
        let prog = program_name(&first);
        let drop = |w: &mut Vec<String>, n: usize| {
            w.drain(..n.min(w.len()));
        };
        match prog.as_str() {
            "sudo" | "doas" => {
                sudo = true;
                drop(&mut w, 1);
                while let Some(f) = w.first() {
                    if option_takes_value(&prog, f) {
                        drop(&mut w, 2);
                    } else if f.starts_with('-') {
                        drop(&mut w, 1);
                    } else {
                        break;
                    }
                }
            }
            "env" => {
                drop(&mut w, 1);
                while let Some(f) = w.first() {
                    if option_takes_value("env", f) {
                        drop(&mut w, 2);
                    } else if f.starts_with('-') || is_assignment(f) {
                        drop(&mut w, 1);
                    } else {
                        break;
                    }
                }
            }
            _ if is_assignment(&first) => drop(&mut w, 1),
            "time" | "nohup" | "exec" | "command" | "nice" | "stdbuf" | "unbuffer" => {
                drop(&mut w, 1);
                while w.first().is_some_and(|f| f.starts_with('-')) {
                    drop(&mut w, 1);
                }
            }
            "timeout" => {
                drop(&mut w, 1);
                while let Some(f) = w.first().filter(|f| f.starts_with('-')).cloned() {
                    drop(&mut w, 1);
                    // `-k 5`, `-s KILL`: the option's value is no command.
                    if option_takes_value("timeout", &f) {
                        drop(&mut w, 1);
                    }
                }
                drop(&mut w, 1); // the duration
            }
            "npx" | "bunx" | "pnpx" => {
                drop(&mut w, 1);
                while let Some(f) = w.first().filter(|f| f.starts_with('-')).cloned() {
                    // `-p typescript`, `--package eslint`: the package is no program.
                    drop(&mut w, if option_takes_value(&prog, &f) { 2 } else { 1 });
                }
            }
            "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" if w.get(1).map(String::as_str) == Some("run") => {
                drop(&mut w, 2);
                while w.first().is_some_and(|f| f.starts_with('-')) {
                    let n = if option_takes_value(&prog, &w[0]) { 2 } else { 1 };
                    drop(&mut w, n);
                }
            }
            "pnpm" | "yarn" if w.get(1).map(String::as_str) == Some("dlx") => drop(&mut w, 2),
            // A package manager's `exec` runs the project's own copy of a tool, as `npx`
            // does: `npm exec bundlr -- --out dist` runs `bundlr --out dist`.
            "npm" | "pnpm" | "yarn" | "bundle" if w.get(1).map(String::as_str) == Some("exec") => {
                drop(&mut w, 2);
                while w.first().is_some_and(|f| f.starts_with('-') && f != "--") {
                    drop(&mut w, 1);
                }
                if w.first().is_some_and(|f| f == "--") {
                    drop(&mut w, 1);
                } else if w.get(1).is_some_and(|f| f == "--") {
                    w.remove(1);
                }
            }
            "python" | "python3" => {
                // `python -m pytest …` runs pytest; `python -X dev -m pip` as well.
                let mut i = 1;
                while i < w.len() && w[i].starts_with('-') && w[i] != "-m" && w[i] != "-c" {
                    i += if matches!(w[i].as_str(), "-X" | "-W") { 2 } else { 1 };
                }
                if w.get(i).map(String::as_str) == Some("-m") && i + 1 < w.len() {
                    drop(&mut w, i + 1);
                } else {
                    break;
                }
            }
            "bash" | "sh" | "zsh" | "dash" => {
                let mut i = 1;
                while i < w.len() && w[i].starts_with('-') && w[i] != "-c" && !w[i].contains('c') {
                    i += 1;
                }
                let has_c = w.get(i).is_some_and(|f| f.starts_with('-') && f.contains('c'));
                if has_c {
                    return (Vec::new(), sudo, w.get(i + 1).cloned());
                }
                break;
            }
            _ => break,
        }
    }
    (w, sudo, None)
}

/// A command line's words as the shell splits them (whitespace when a quote is open).
pub(crate) fn words_of(s: &str) -> Vec<String> {
    match shell_words::split(s) {
        Ok(w) => w,
        Err(_) => s.split_whitespace().map(str::to_string).collect(),
    }
}

/// `NAME=value`: an assignment before a program.
pub(crate) fn is_assignment(w: &str) -> bool {
    let Some(eq) = w.find('=') else { return false };
    eq > 0
        && w[..eq].chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !w.starts_with(|c: char| c.is_ascii_digit())
}

/// Did `timeout` end the command: the line's first program is `timeout` and the status is
/// 124, GNU `timeout`'s own ("If the command times out, … exit with status 124"). The
/// command printed no error of its own (it was killed mid-way): without this the failure
/// had no text but its progress lines, one per script, and nothing recurred.
pub fn timed_out(cmd: &str, exit: Option<i64>) -> bool {
    exit == Some(124)
        && cmd
            .split_whitespace()
            .find(|w| !is_assignment(w))
            .is_some_and(|w| w == "timeout")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runner_is_said_as_it_is_typed() {
        assert_eq!(runner_invocation("uv"), "uv run <program>");
        assert_eq!(runner_invocation("npx"), "npx <program>");
        assert_eq!(runner_invocation("npm exec"), "npm exec <program>");
        assert!(
            project_runner("npm exec") && !project_runner("npm"),
            "npm alone runs scripts"
        );
    }

    #[test]
    fn a_package_npx_is_given_is_no_program() {
        let w = |l: &str| unwrap_words(words_of(l)).0;
        assert_eq!(w("npx -p typescript tsc -p app"), vec!["tsc", "-p", "app"]);
        assert_eq!(w("npx --package eslint --yes eslint ."), vec!["eslint", "."]);
        assert_eq!(w("npx --yes prettier -c ."), vec!["prettier", "-c", "."]);
    }
}
