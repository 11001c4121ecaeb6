//! Commands that only look: they neither count toward a fail streak nor reset it.
//!
//! A real grind is "fail, `cat` the log, fail, `ls`, fail …": if any success reset the
//! streak, the demand at six failures would never come. So the streak counts only what
//! changes something. A command is read-only when every simple command in it (split at
//! `|`, `&&`, `||`, `;`) is a looking program (`cat`, `ls`, `grep`, `git status`/`log`/
//! `diff`/`show`, `sed -n`, …) and nothing is redirected into a file. Anything else —
//! a build, a test run, an edit, a `mv` — counts: its failure adds to the streak and its
//! success resets it.

/// Programs that only read, whatever their arguments (no `-i`, `-delete` forms: those
/// are checked below).
const LOOKERS: &[&str] = &[
    "cat",
    "less",
    "more",
    "head",
    "tail",
    "ls",
    "ll",
    "la",
    "pwd",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "fd",
    "tree",
    "wc",
    "file",
    "stat",
    "du",
    "df",
    "which",
    "type",
    "whereis",
    "printenv",
    "date",
    "whoami",
    "id",
    "uname",
    "ps",
    "jq",
    "yq",
    "sort",
    "uniq",
    "cut",
    "diff",
    "cmp",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "true",
    "test",
    "[",
    "xxd",
    "od",
    "hexdump",
    "echo",
    "printf",
    "cd",
    "column",
    "nl",
    "tr",
    "history",
    "env",
    "command",
    "hostname",
    "uptime",
    "free",
    "lsof",
    "man",
];

/// `git` subcommands that only read.
const GIT_LOOKS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "rev-parse",
    "ls-files",
    "grep",
    "describe",
    "shortlog",
    "reflog",
    "remote",
    "config",
    "branch",
    "tag",
    "whatchanged",
    "cat-file",
    "ls-tree",
];

fn simple_is_read_only(words: &[&str]) -> bool {
    let Some(prog) = words.first().map(|w| w.rsplit('/').next().unwrap_or(w)) else {
        return true;
    };
    let args = &words[1..];
    let has = |f: &str| args.iter().any(|a| *a == f || a.starts_with(&format!("{f}=")));
    match prog {
        "git" => {
            let sub = args.iter().find(|a| !a.starts_with('-')).copied().unwrap_or("");
            // `git branch -D x`, `git tag -d x`, `git config k v` change things.
            let writes = matches!(sub, "branch" | "tag")
                && args.iter().any(|a| matches!(*a, "-d" | "-D" | "-m" | "-M" | "-f"))
                || sub == "config"
                    && !args
                        .iter()
                        .any(|a| matches!(*a, "--get" | "--list" | "-l" | "--get-all"))
                || sub == "remote"
                    && args
                        .iter()
                        .any(|a| matches!(*a, "add" | "remove" | "rm" | "set-url" | "rename"));
            GIT_LOOKS.contains(&sub) && !writes
        }
        "sed" => !args.iter().any(|a| a.starts_with("-i") || *a == "--in-place"),
        "find" => !(has("-delete") || has("-exec") || has("-execdir") || has("-ok")),
        "awk" | "gawk" => !args.iter().any(|a| a.contains("system(") || a.contains("print >")),
        _ => LOOKERS.contains(&prog),
    }
}

/// True when the command only looks (see the module doc).
pub fn is_read_only(cmd: &str) -> bool {
    let words: Vec<String> =
        shell_words::split(cmd).unwrap_or_else(|_| cmd.split_whitespace().map(str::to_string).collect());
    if words.is_empty() {
        return false;
    }
    let mut seg: Vec<&str> = Vec::new();
    let mut all = true;
    let mut check = |seg: &mut Vec<&str>| {
        all &= simple_is_read_only(seg);
        seg.clear();
    };
    for w in &words {
        // A redirection into a file writes (`2>&1` and `>/dev/null` do not).
        if let Some(at) = w.find('>') {
            let target = w[at..].trim_start_matches(['>', '&', '|']);
            let next_is_target = target.is_empty();
            let harmless =
                target.starts_with("/dev/null") || target.chars().all(|c| c.is_ascii_digit()) && !next_is_target;
            if !(harmless || next_is_target && w.ends_with(">&")) {
                return false;
            }
            continue;
        }
        match w.as_str() {
            "|" | "||" | "&&" | ";" | "|&" => check(&mut seg),
            _ => seg.push(w.as_str()),
        }
    }
    check(&mut seg);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looking_commands_are_read_only() {
        for c in [
            "cat data.txt",
            "ls -la src",
            "grep -rn foo src | head -20",
            "git status",
            "git log --oneline -5",
            "git diff HEAD~1 -- src/parse.rs",
            "sed -n 1,40p src/lib.rs",
            "cd sub && ls",
            "find . -name '*.rs'",
            "tail -n 50 build.log 2>&1",
            "cat x 2>/dev/null",
        ] {
            assert!(is_read_only(c), "{c}");
        }
    }

    #[test]
    fn changing_commands_count() {
        for c in [
            "cargo test",
            "cargo build",
            "sed -i s/a/b/ f",
            "echo x > f",
            "cat a >> b",
            "git commit -m x",
            "git branch -D old",
            "git config user.name x",
            "find . -name '*.o' -delete",
            "ls && make",
            "mv a b",
            "python3 -c 'print(1)'",
            "",
        ] {
            assert!(!is_read_only(c), "{c}");
        }
    }
}
