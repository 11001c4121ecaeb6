//! Whether a backticked span names a program that could have run.
//!
//! An honest note writes identifiers and values in backticks (`add`, `None`, `calc.add`);
//! treating each as a command that never ran blocked honest stops three times over. A span
//! that no logged record matches is a citation only when its program exists: a shell
//! builtin, a known runner, a file on `PATH`, or a path in the project. Anything else is
//! prose. A span a record matches is always a citation (it ran), and a known runner is
//! always one (`pytest -q` cited but never run, with pytest not on `PATH`, must block).

use crate::evidence::command_key::{normalize, strip_cd};
use std::path::Path;

/// Shell builtins and keywords an agent runs as commands.
const BUILTINS: &[&str] = &[
    "cd", "echo", "printf", "test", "[", "true", "false", "export", "source", ".", "set", "unset", "type", "command",
    "eval", "exec", "read", "kill", "wait", "ulimit", "umask", "alias", "pushd", "popd", "for", "if", "while", "time",
    "!",
];

/// The program word of a command: after a leading `cd <dir> &&` and environment
/// assignments.
pub fn program_of(cmd: &str) -> Option<String> {
    let n = normalize(cmd);
    let rest = strip_cd(&n).map_or(n.as_str(), |(_, r)| r);
    rest.split_whitespace()
        .find(|w| !(w.contains('=') && !w.starts_with('-') && !w.starts_with('/')))
        .map(str::to_string)
}

/// True when `cited`'s program exists here: a builtin, a known runner, on `PATH`, or a
/// path (`./check.sh`, `/usr/bin/x`: meant as a program even when it is gone).
pub fn exists(cited: &str, _root: &Path) -> bool {
    let Some(prog) = program_of(cited) else {
        return false;
    };
    if BUILTINS.contains(&prog.as_str()) || crate::discipline::claims::runner_kind(cited).is_some() {
        return true;
    }
    // A path is meant as a program whether or not it exists now (a script cited but never
    // written must still block): only bare words are looked up.
    if prog.contains('/') {
        return true;
    }
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(&prog).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_not_programs() {
        let root = Path::new("/nonexistent-root");
        for span in ["add", "None", "calc.add", "parse_config x", "Foo"] {
            assert!(!exists(span, root), "{span}");
        }
        for span in [
            "ls -la",
            "cd pkg && ls",
            "echo hi",
            "pytest -q",
            "FOO=1 sh -c true",
            "/bin/true",
        ] {
            assert!(exists(span, root), "{span}");
        }
    }
}
