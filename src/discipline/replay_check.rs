//! Which cited commands are checks that replay may run again: a known test, build or lint
//! runner ([`claims::runner_kind`](crate::discipline::claims::runner_kind)), or a run whose
//! output carried a recognised test summary. Everything else (`./deploy.sh`, `mkdir
//! build`, `git push`) ran once because the agent meant it to; running it again at stop
//! could deploy twice or fail for ever on what the first run made.
//!
//! A check chained to something else (`cargo test && ./deploy.sh`) is not a check as a
//! whole: the parts after the first are split off (outside quotes, at `&&`, `||`, `;`,
//! `|`, `&` and line ends) and none may run a script (`./x`, `x.sh`, `sh x`) or a command
//! that changes the world outside the working tree's build (a push, a publish, a deploy, a
//! copy, a removal, a network transfer). Filters (`| tail -5`), waits and control words pass.
//! The first part decides on its own; a heredoc's body is data, not commands.

use crate::discipline::corroborate::strip_cd;
use crate::evidence::Record;

/// Programs that, in a later part of a chain, make the command more than a check.
const SIDE_EFFECTS: [&str; 30] = [
    "rm",
    "mv",
    "cp",
    "mkdir",
    "rmdir",
    "ln",
    "install",
    "rsync",
    "scp",
    "ssh",
    "curl",
    "wget",
    "git",
    "docker",
    "kubectl",
    "helm",
    "terraform",
    "ansible-playbook",
    "aws",
    "gcloud",
    "az",
    "sudo",
    "dd",
    "truncate",
    "shred",
    "chmod",
    "chown",
    "deploy",
    "publish",
    "release",
];

/// Subcommands that publish or deploy whatever the program (`npm publish`).
const SIDE_EFFECT_SUBS: [&str; 5] = ["publish", "deploy", "push", "release", "upload"];

/// True when replay may run `command` (its logged text) again.
pub fn is_check(command: &str, rec: &Record) -> bool {
    let text = command.trim_start();
    let bare = strip_cd(text).map_or(text, |(_, rest)| rest);
    let parts = split(bare);
    let Some(first) = parts.first() else { return false };
    let first_ok = rec.summary.is_some() || crate::discipline::claims::runner_kind(first).is_some();
    first_ok && parts[1..].iter().all(|p| !side_effect(p))
}

/// The parts of a command line, split at unquoted `&&`, `||`, `;`, `|`, `&` and newlines
/// (`2>&1`, `>&2` are redirections, not separators). A heredoc ends the scan: its body
/// is data.
fn split(cmd: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let (mut single, mut double) = (false, false);
    let chars: Vec<char> = cmd.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                cur.push(c);
                if let Some(n) = chars.get(i + 1) {
                    cur.push(*n);
                }
                i += 2;
                continue;
            }
            '<' if !single && !double && chars.get(i + 1) == Some(&'<') => {
                // The heredoc's body (from the next line) is data.
                cur.extend(chars[i..].iter().take_while(|c| **c != '\n'));
                break;
            }
            ';' | '|' | '&' | '\n' if !single && !double => {
                let redirect = c == '&' && (cur.ends_with('>') || chars.get(i + 1) == Some(&'>'));
                if !redirect {
                    parts.push(std::mem::take(&mut cur));
                    while chars.get(i + 1).is_some_and(|n| matches!(n, '&' | '|')) {
                        i += 1;
                    }
                    i += 1;
                    continue;
                }
            }
            _ => {}
        }
        cur.push(c);
        i += 1;
    }
    parts.push(cur);
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// True when a later part of a chain runs a script or a command with effects beyond a check.
fn side_effect(part: &str) -> bool {
    let words: Vec<&str> = part
        .split_whitespace()
        .map(|w| w.trim_start_matches(['(', '{', '!']))
        .filter(|w| !w.is_empty())
        .skip_while(|w| w.contains('=') && !w.starts_with('-'))
        .collect();
    let Some(prog) = words.first() else { return false };
    let name = prog.rsplit('/').next().unwrap_or(prog);
    let script = prog.contains('/') || name.ends_with(".sh");
    let shell_script =
        matches!(name, "sh" | "bash" | "zsh" | "source" | ".") && words.get(1).is_some_and(|a| !a.starts_with('-'));
    script && crate::discipline::claims::runner_kind(part).is_none()
        || shell_script
        || SIDE_EFFECTS.contains(&name)
        || words.get(1).is_some_and(|s| SIDE_EFFECT_SUBS.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain() -> Record {
        Record::new("", "", "/p", "", Some(0), true, "")
    }

    #[test]
    fn runners_are_checks_other_commands_are_not() {
        for c in [
            "cargo test",
            "cd sub && pytest -q",
            "RUST_LOG=1 cargo build",
            "make -s test",
            "tsc --noEmit",
        ] {
            assert!(is_check(c, &plain()), "{c}");
        }
        for c in ["./deploy.sh", "mkdir build", "git push", "touch x", "sh ./check.sh"] {
            assert!(!is_check(c, &plain()), "{c}");
        }
    }

    #[test]
    fn a_check_chained_to_a_side_effect_is_not_a_check() {
        for c in [
            "cargo test && ./deploy.sh",
            "pytest -q; git push",
            "make test && npm publish",
            "cargo build && cp target/x /usr/local/bin",
            "pytest || sh notify.sh",
        ] {
            assert!(!is_check(c, &plain()), "{c}");
        }
        for c in [
            "cargo test 2>&1 | tail -5",
            "cargo test && cargo clippy -- -D warnings",
            "pytest -q | grep -v warn; echo done",
            "make -s -f - <<'EOF'\nall:\n\t@rm -f x; ./y.sh\nEOF",
            "cargo test -- 'a;b' \"c && ./d.sh\"",
        ] {
            assert!(is_check(c, &plain()), "{c}");
        }
    }

    #[test]
    fn a_summary_makes_the_first_part_a_check() {
        let rec = Record {
            summary: crate::evidence::summary::parse("", "Ran 2 tests in 0.001s\n\nOK\n"),
            ..plain()
        };
        assert!(rec.summary.is_some());
        assert!(is_check("sh ./run_tests.sh", &rec));
        assert!(is_check(
            "sh ./d.sh x.pid & until [ -s x.pid ]; do sleep 0.02; done",
            &rec
        ));
        assert!(!is_check("sh ./run_tests.sh && ./deploy.sh", &rec));
    }
}
