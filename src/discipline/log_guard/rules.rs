//! The log guard's Bash rules: which plain commands reach what fable protects.

use super::shell::{self, base, glob_component, has_glob, Words};
use super::{resolve, Protected};
use crate::setup::registrations::HOOK_BINARIES;
use std::path::{Component, Path, PathBuf};

/// Programs that may name a hook binary, fable's state or `disableAllHooks` without
/// running, changing or reading it: searches, version control, printing, inspection.
const MENTION_ONLY: [&str; 27] = [
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "git",
    "echo",
    "printf",
    "which",
    "type",
    "whereis",
    "ls",
    "stat",
    "file",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "b3sum",
    "man",
    "wc",
    "du",
    "readlink",
    "realpath",
    "head",
    "sort",
    "gh",
];
/// Filters that only read what a search piped them.
const FILTERS: [&str; 8] = ["head", "tail", "wc", "sort", "uniq", "cut", "less", "more"];
/// Programs that read or copy a folder tree: naming an ancestor of the state folder
/// with them reaches the key.
const RECURSIVE: [&str; 15] = [
    "cp", "rsync", "tar", "zip", "7z", "rm", "find", "chmod", "chown", "mv", "scp", "grep", "rg", "ag", "cat",
];
/// Searches whose first operand is a pattern, not a path.
const SEARCHES: [&str; 6] = ["grep", "egrep", "fgrep", "rg", "ag", "ack"];

fn is_interpreter(prog: &str) -> bool {
    prog.starts_with("python")
        || prog.starts_with("perl")
        || prog.starts_with("ruby")
        || matches!(
            prog,
            "node"
                | "nodejs"
                | "deno"
                | "bun"
                | "php"
                | "awk"
                | "gawk"
                | "mawk"
                | "lua"
                | "Rscript"
                | "tclsh"
                | "jshell"
        )
}

/// Why a Bash command is denied, if it is.
pub fn bash_verdict(command: &str, cwd: &Path, prot: &Protected) -> Option<String> {
    verdict_at(command, cwd, prot, 0)
}

fn deny(what: &str, why: &str) -> Option<String> {
    Some(format!("fable: this command {what} — {why}. Records written by anything else back no ledger card; run the command you want to cite instead."))
}

fn verdict_at(command: &str, cwd: &Path, prot: &Protected, depth: usize) -> Option<String> {
    if depth > 3 {
        return None;
    }
    let segs = shell::segments(command);
    let progs: Vec<String> = segs
        .iter()
        .flat_map(|w| shell::invocations(w).into_iter().map(|i| base(&i[0]).to_string()))
        .collect();
    let writes = segs.iter().any(|w| !shell::written_targets(w).is_empty());
    let mention_only = !writes
        && progs
            .iter()
            .all(|p| MENTION_ONLY.contains(&p.as_str()) || FILTERS.contains(&p.as_str()));
    // A program that is the output of a substitution: `$(which fable-evidence) < p.json`.
    let squashed: String = command.split_whitespace().collect::<Vec<_>>().join(" ");
    let dynamic_hook = [
        "$(which ",
        "`which ",
        "$(command -v ",
        "`command -v ",
        "$(type -p ",
        "$(realpath ",
        "$(readlink -f ",
    ]
    .iter()
    .flat_map(|w| HOOK_BINARIES.iter().map(move |h| format!("{w}{h}")))
    .any(|pat| {
        squashed.match_indices(&pat).any(|(at, _)| {
            // In program position: at the start, or after an operator or a wrapper.
            let before = squashed[..at].trim_end();
            before.is_empty()
                || before.ends_with(['|', ';', '&', '(', '{'])
                || ["exec", "env", "sudo", "nohup", "xargs", "command"]
                    .iter()
                    .any(|w| before.ends_with(w))
        })
    });
    if dynamic_hook {
        return deny(
            "runs a fable hook binary",
            "hooks take payloads from Claude Code only; a hand-fed one is refused and reported",
        );
    }
    // Text-level tripwires, for what words hide (interpreter scripts, here-documents).
    if !mention_only {
        if command.contains("disableAllHooks") {
            return deny(
                "writes `disableAllHooks`",
                "it turns every hook off, fable's guards and evidence log among them",
            );
        }
        let locking = command.contains("flock") || command.contains("lockf") || command.contains("fcntl");
        if locking && command.contains("evidence.lock") {
            return deny(
                "takes the evidence log's lock",
                "while it is held the evidence hook cannot log the runs that finish, and drops them",
            );
        }
    }
    if progs.iter().any(|p| is_interpreter(p)) && names_state_in_text(command, prot) {
        return deny("names fable's user state in a script", prot.state_why());
    }
    let mut cwd = cwd.to_path_buf();
    for words in &segs {
        let words: Words = words.iter().map(|w| prot.vars.expand(w)).collect();
        if let Some(v) = segment_verdict(&words, &mut cwd, prot, depth) {
            return Some(v);
        }
    }
    None
}

fn segment_verdict(words: &[String], cwd: &mut PathBuf, prot: &Protected, depth: usize) -> Option<String> {
    let first = base(words.first()?).to_string();
    // `cd X && …`: later parts run in X, and a `cd` into fable's state is itself denied.
    if matches!(first.as_str(), "cd" | "pushd") {
        let dir = words
            .get(1)
            .map_or_else(|| prot.vars.home.clone().unwrap_or_default(), |d| d.clone());
        if state_match(&dir, cwd, prot) == Reach::Inside {
            return deny("changes into fable's user state", prot.state_why());
        }
        *cwd = resolve(&dir, cwd);
        return None;
    }
    let cwd = cwd.as_path();
    for target in shell::written_targets(words) {
        if let Some(why) = prot.covers(&resolve(&target, cwd)) {
            return deny(&format!("writes {target}"), &why);
        }
    }
    for inv in shell::invocations(words) {
        if let Some(script) = shell::inner_script(inv) {
            if let Some(v) = verdict_at(&script, cwd, prot, depth + 1) {
                return Some(v);
            }
        }
        if let Some(v) = invocation_verdict(inv, cwd, prot) {
            return Some(v);
        }
    }
    None
}

fn invocation_verdict(inv: &[String], cwd: &Path, prot: &Protected) -> Option<String> {
    let prog = base(&inv[0]);
    let hook_named = |w: &str| HOOK_BINARIES.contains(&base(w.trim_end_matches([')', '`', '"', '\''])));
    // A program word that is itself a substitution (`$(which fable-evidence) < x`).
    let dynamic = inv[0].starts_with('$');
    if hook_named(&inv[0]) || (dynamic && inv.iter().any(|w| hook_named(w))) {
        return deny(
            "runs a fable hook binary",
            "hooks take payloads from Claude Code only; a hand-fed one is refused and reported",
        );
    }
    if prog == "fable" {
        if let Some(v) = fable_subcommand(inv) {
            return Some(v);
        }
    }
    // The whole `.fable/` folder, the log with it (`rm -rf .fable`, `mv .fable /tmp`).
    if matches!(prog, "rm" | "mv" | "shred" | "chmod" | "chown")
        && inv[1..].iter().any(|w| resolve(w, cwd) == prot.fable_dir)
    {
        return deny(
            "removes or moves `.fable/`",
            "the evidence log is in it, and is written only by fable's evidence hook",
        );
    }
    if prog == "flock" && inv.iter().any(|w| prot.covers(&resolve(w, cwd)).is_some()) {
        return deny(
            "takes the evidence log's lock",
            "while it is held the evidence hook cannot log the runs that finish, and drops them",
        );
    }
    let mention_only =
        MENTION_ONLY.contains(&prog) || FILTERS.contains(&prog) || (prog == "cargo" && !inv.iter().any(|w| w == "run"));
    if !mention_only && inv[1..].iter().any(|w| hook_named(w)) {
        return if shell::is_writer(prog) {
            deny(
                "changes a fable hook binary",
                "fable's hook binaries are what Claude Code runs on every call; changing one switches a guard off",
            )
        } else {
            deny(
                "runs a fable hook binary",
                "hooks take payloads from Claude Code only; a hand-fed one is refused and reported",
            )
        };
    }
    // Every word that names fable's user state, but a search's pattern or a message.
    let skip = operand_skips(inv);
    for (i, w) in inv.iter().enumerate().skip(1) {
        if skip.contains(&i) {
            continue;
        }
        match state_match(w, cwd, prot) {
            Reach::Inside => return deny(&format!("names {w}"), prot.state_why()),
            Reach::Ancestor if RECURSIVE.contains(&prog) => {
                return deny(&format!("reaches into {w}"), prot.state_why());
            }
            _ => {}
        }
    }
    None
}

/// Word positions that are not paths: a search's pattern, a commit or tag message.
fn operand_skips(inv: &[String]) -> Vec<usize> {
    let prog = base(&inv[0]);
    let mut out = Vec::new();
    if SEARCHES.contains(&prog) {
        let has_e = inv.iter().any(|w| w == "-e" || w == "--regexp");
        for (i, w) in inv.iter().enumerate().skip(1) {
            if (w == "-e" || w == "--regexp") && i + 1 < inv.len() {
                out.push(i + 1);
            }
        }
        if !has_e {
            if let Some(i) = inv.iter().skip(1).position(|w| !w.starts_with('-')) {
                out.push(i + 1);
            }
        }
    }
    if matches!(prog, "git" | "echo" | "printf" | "gh") {
        out.extend(1..inv.len());
    }
    out
}

fn fable_subcommand(inv: &[String]) -> Option<String> {
    let ops: Vec<&str> = inv[1..]
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect();
    let what = match ops.as_slice() {
        ["uninstall", ..] => "runs `fable uninstall`",
        ["trust", ..] => "runs `fable trust`",
        ["evidence", "import", ..] => "runs `fable evidence import`",
        ["install", ..] if inv.iter().any(|w| w.starts_with("--bin-dir")) => {
            "re-points fable's hooks (`fable install --bin-dir`)"
        }
        _ => return None,
    };
    deny(
        what,
        "installing, trusting and importing evidence are the user's to do, in their own terminal",
    )
}

#[derive(Debug, PartialEq, Eq)]
enum Reach {
    No,
    /// The word is fable's state folder, something in it, or a glob that can match one.
    Inside,
    /// The word is a folder above fable's state, below HOME (`~/.local/state`).
    Ancestor,
}

/// Whether `word` (expanded) names fable's user state from `cwd`.
fn state_match(word: &str, cwd: &Path, prot: &Protected) -> Reach {
    let Some(state) = &prot.user_state else {
        return Reach::No;
    };
    if word.is_empty() || word.contains(char::is_whitespace) && !word.starts_with('/') {
        return Reach::No;
    }
    let word = word.trim_start_matches(['=', '@']);
    let word = word
        .split_once('=')
        .map_or(word, |(k, v)| if k.starts_with('-') { v } else { word });
    let p = resolve(word, cwd);
    let pc: Vec<String> = normal(&p);
    let sc: Vec<String> = normal(state);
    let matches = |a: &String, b: &String| if has_glob(a) { glob_component(a, b) } else { a == b };
    let n = pc.len().min(sc.len());
    if !pc.iter().zip(sc.iter()).take(n).all(|(a, b)| matches(a, b)) {
        return Reach::No;
    }
    if pc.len() >= sc.len() {
        return Reach::Inside;
    }
    // Above the state folder: only folders below HOME (never HOME or `/` itself).
    let home_len = prot
        .vars
        .home
        .as_deref()
        .map_or(usize::MAX, |h| normal(Path::new(h)).len());
    if pc.len() > home_len {
        Reach::Ancestor
    } else {
        Reach::No
    }
}

fn normal(p: &Path) -> Vec<String> {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect()
}

/// An interpreter's script (or a here-document) that spells out fable's state folder.
fn names_state_in_text(text: &str, prot: &Protected) -> bool {
    let mut needles: Vec<String> = vec![".local/state/fable".into(), "XDG_STATE_HOME".into(), "fable/key".into()];
    if let Some(s) = &prot.user_state {
        needles.push(s.to_string_lossy().into_owned());
    }
    if needles.iter().any(|n| text.contains(n.as_str())) {
        return true;
    }
    // `os.path.join(home, ".local", "state", "fable", "key")`
    let squashed: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '\'' | '"'))
        .collect();
    squashed.contains("state,fable") || squashed.contains("fable,key")
}

impl Protected {
    fn state_why(&self) -> &'static str {
        "fable's user state (its sealing key, chain heads and attempt notes) is not the agent's to read or change"
    }
}
