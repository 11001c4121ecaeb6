//! The program an error names as the one that failed, when it is not the command's main
//! one: `cd My Project && cat x.txt` fails with `bash: line 1: cd: too many arguments`,
//! `printf 'a::b' | cut -d '::' -f1` with `cut: the delimiter must be a single character`.
//!
//! Why: a failure's class is keyed by its tool ([`crate::learn::history::prepared::Prepared::cluster_key`]),
//! and the tool was read from the command alone — its last step (`cat`, `ls`), the one a
//! chain prepares. When the error itself says which step failed (tools prefix their
//! messages with their name; shells add `bash: line N:`), that step is the failure's tool:
//! otherwise one `cd` failure is a class per program that followed it. Only a step the
//! command line really runs counts (a segment, or a housekeeping step such as `cd`), and
//! only a name the masked error line starts with.

use crate::learn::text::command_norm::{domain_of, runs_as_housekeeping, CmdNorm, Segment};

/// The name an error line starts with, after a shell's own prefix (`bash: line <n>: `,
/// `sh: <n>: `): `cd` in `bash: line <n>: cd: too many arguments`.
fn named(line: &str) -> Option<&str> {
    let mut rest = line;
    for shell in ["bash: ", "sh: ", "zsh: ", "dash: ", "<path>: "] {
        if let Some(r) = rest.strip_prefix(shell) {
            rest = r
                .strip_prefix("line <n>: ")
                .or_else(|| r.strip_prefix("<n>: "))
                .unwrap_or(r);
            break;
        }
    }
    let (name, _) = rest.split_once(": ")?;
    let ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+'));
    ok.then_some(name)
}

/// The domain of the step an error names as failing, when it is a step of the command
/// other than its main one; `None` otherwise (the main program's own message, a name the
/// command does not run). `template`: the failure's masked error lines.
pub fn named_domain(cmd: &str, norm: &CmdNorm, template: &str) -> Option<String> {
    let name = named(template.split(" | ").next()?)?;
    let main = norm.primary()?;
    if main.program == name {
        return None;
    }
    // A wrapper that runs the program as another user (`sudo`), said missing: normalisation
    // drops it, so the failure is the wrapper's whichever program it was to run — one class,
    // not one per program. (Its other messages, `sudo: unable to resolve host`, are warnings
    // beside the program's run.)
    let runs = norm.segments.iter().any(|s| s.program == name)
        || runs_as_housekeeping(cmd, name)
        || crate::learn::text::command_norm::run_as_another_user(cmd) == Some(name)
            && template.contains(&format!("{name}: command not found"));
    runs.then(|| domain_of(name))
}

/// The segment of the command line that failed: the step the error names, when it is a
/// segment of the line other than the main one (`jq` in `cat data.json | jq '.name'`
/// failing with `jq: error …`; `cut` in `printf 'a::b' | cut -d '::' -f1`), else the
/// main segment. A pipeline's main segment is its first (`pytest | tail`: the steps after
/// it filter what it printed), so a failure a later step reported was read as the first
/// step's, and that step's retry (`cat data.json | jq '.[].name'`: `cat` unchanged) as
/// an unchanged one. `template`: the failure's masked error lines.
pub fn failing_segment<'a>(norm: &'a CmdNorm, template: &str) -> Option<&'a Segment> {
    match named_segment(norm, template) {
        Some(k) => norm.segments.get(k),
        None => norm.primary(),
    }
}

/// The index of the segment the error names, when it is not the main one
/// ([`failing_segment`]).
pub fn named_segment(norm: &CmdNorm, template: &str) -> Option<usize> {
    let main = norm.primary()?;
    let name = template.split(" | ").next().and_then(named)?;
    if name == main.program {
        return None;
    }
    norm.segments.iter().rposition(|s| s.program == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;
    use crate::learn::text::signature::signature;

    fn domain(cmd: &str, tail: &str) -> Option<String> {
        named_domain(cmd, &normalize(cmd), &signature(tail).template)
    }

    #[test]
    fn the_step_the_error_names_is_the_failures_tool() {
        let cd = "bash: line 1: cd: too many arguments\n";
        assert_eq!(domain("cd My Project && cat x.txt", cd).as_deref(), Some("cd"));
        assert_eq!(domain("cd old backups && ls", cd).as_deref(), Some("cd"));
        assert_eq!(
            domain(
                "cd services/web && make test",
                "bash: line 1: cd: services/web: No such file or directory\n"
            )
            .as_deref(),
            Some("cd")
        );
        assert_eq!(
            domain(
                "printf 'a::b' | cut -d '::' -f1",
                "cut: the delimiter must be a single character\n"
            )
            .as_deref(),
            Some("cut")
        );
    }

    #[test]
    fn the_segment_the_error_names_failed() {
        let seg = |cmd: &str, tail: &str| {
            let n = normalize(cmd);
            failing_segment(&n, &signature(tail).template).map(|s| s.text())
        };
        let jq = "jq: error (at <stdin>:5): Cannot index array with \"name\"\n";
        assert_eq!(seg("cat data.json | jq '.name'", jq).as_deref(), Some("jq .name"));
        assert_eq!(
            seg("curl -s localhost:8080/u | jq .name", jq).as_deref(),
            Some("jq .name")
        );
        // The main program's own message, a name no segment runs: the main segment.
        assert_eq!(seg("jq .name data.json", jq).as_deref(), Some("jq .name data.json"));
        let wc = "wc: 'a.py'$'\\n''b.py': No such file or directory\n";
        assert_eq!(
            seg("find . -name '*.py' | xargs -0 wc -l", wc).as_deref(),
            Some("find . -name *.py")
        );
    }

    #[test]
    fn the_main_programs_own_message_or_a_name_not_run_changes_nothing() {
        assert_eq!(domain("cp a b", "cp: -r not specified; omitting directory 'a'\n"), None);
        assert_eq!(domain("cd x && foo", "bash: line 1: foo: command not found\n"), None);
        assert_eq!(
            domain("make", "cc: error: no input files\n"),
            None,
            "make ran cc, the line did not"
        );
        assert_eq!(domain("git push", "error: failed to push some refs to 'x'\n"), None);
        assert_eq!(domain("sudo apt install x", "sudo: unable to resolve host box\n"), None);
        // The wrapper missing is the wrapper's failure, whichever program it ran.
        assert_eq!(
            domain("sudo make install", "bash: line 1: sudo: command not found\n").as_deref(),
            Some("sudo")
        );
    }
}
