//! Which commands only look (listing, reading, status, inspections): diagnosis, never the
//! fix of a failure.
//!
//! Why apart from [`crate::learn::text::command_norm`]: the list is a judgement of its own (and
//! long); normalisation only asks it.

/// A command segment as [`only_looks`] reads it (the normaliser's segment, by its parts:
/// this file must not depend on the normaliser that asks it).
pub struct Looked<'a> {
    pub program: &'a str,
    pub domain: &'a str,
    pub action: &'a str,
    pub words: &'a [String],
    pub writes: bool,
}

/// True for a segment that only looks (see the module doc).
pub fn only_looks(seg: Looked) -> bool {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::ReadOnly) {
        return false;
    }
    let p = seg.program;
    if seg.writes || writes_by_flag(p, seg.words) {
        return false;
    }
    // Fetching a page is diagnosis too (and outside content: never a fix to copy).
    if seg.domain == "http"
        || crate::learn::text::inspection::is_inspection(seg.action, seg.words)
        || crate::learn::text::inspection::inspects_interpreter(p, seg.words)
    {
        return true;
    }
    if matches!(
        p,
        "ls" | "cat"
            | "read"
            | "head"
            | "tail"
            | "less"
            | "more"
            | "grep"
            | "rg"
            | "find"
            | "pwd"
            | "echo"
            | "printf"
            | "which"
            | "type"
            | "env"
            | "printenv"
            | "ps"
            | "df"
            | "du"
            | "uname"
            | "whoami"
            | "id"
            | "ping"
            | "nslookup"
            | "dig"
            | "host"
            | "stat"
            // Where a link points, where a path resolves: `readlink .env` before `ln -sf`
            // relinks it looks; said as a fix step it put a look in the directive.
            | "readlink"
            | "realpath"
            | "file"
            | "wc"
            | "sort"
            | "tree"
            | "true"
            | "date"
            | "diff"
            // What a binary links and holds: `ldd ./app` after "error while loading shared
            // libraries" looks; it fixes nothing.
            | "ldd"
            | "nm"
            | "readelf"
            | "objdump"
    ) {
        return true;
    }
    let a = seg.action.split(' ').next().unwrap_or("");
    if asks_its_action_to_list(seg.action, seg.words) {
        return true;
    }
    match seg.domain {
        "git" => {
            matches!(a, "status" | "log" | "diff" | "show" | "ls-files" | "blame")
                || crate::learn::text::inspection::git_lists_refs(seg.action, seg.words)
        }
        "kubectl" => matches!(a, "get" | "describe" | "logs" | "explain" | "top"),
        "docker" => {
            matches!(a, "ps" | "inspect" | "logs" | "images" | "version" | "info")
                || seg.action.ends_with(" ps")
                || seg.action.ends_with(" logs")
        }
        "python" => p == "pip" && matches!(a, "list" | "show" | "freeze" | "check"),
        "npm" => matches!(a, "ls" | "list" | "view" | "outdated"),
        "cargo" => matches!(a, "tree" | "metadata"),
        _ => false,
    }
}

/// Does a subcommand's own first word ask it to list or show (`git worktree list`, `git
/// stash list`, `git remote show origin`, `git submodule status`, `docker image ls`, `npm
/// config list`)? Tools
/// that nest commands name their looking one so; read as a step, `git worktree list`
/// between a failure and its changed retry took the fix's place (dev7's
/// `git-worktree-branch-checked-out`).
fn asks_its_action_to_list(action: &str, words: &[String]) -> bool {
    let first = action.split(' ').next().unwrap_or("");
    !first.is_empty()
        && words
            .iter()
            .skip_while(|w| w.as_str() != first)
            .skip(1)
            .find(|w| !w.starts_with('-'))
            .is_some_and(|w| matches!(w.as_str(), "list" | "ls" | "show" | "status"))
}

/// A program of the looking kind told by one of its own flags to write: `sort -o FILE`
/// (sorting a file in place is the fix of `comm: file 1 is not in sorted order`, not a
/// look, and read as a look it made the unchanged `comm` that followed a "plain retry"),
/// `find … -delete`, `tree -o FILE`, `date -s`.
fn writes_by_flag(program: &str, words: &[String]) -> bool {
    let any = |f: &dyn Fn(&str) -> bool| words.iter().skip(1).any(|w| f(w));
    match program {
        // `-o F`, `-oF`, `-uo F` (a bundle ending in the output flag), `--output[=F]`.
        "sort" => {
            any(&|w| w.starts_with("--output") || w.starts_with('-') && !w.starts_with("--") && w[1..].contains('o'))
        }
        "find" => any(&|w| matches!(w, "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls")),
        "tree" => any(&|w| w == "-o"),
        "date" => any(&|w| w == "-s" || w.starts_with("--set")),
        // A download kept as a file is a change to the project, not a look: `curl -o
        // vendor/x.tar.gz URL`, a bundle ending in `o` (`-fsSLo F`), `-O` or a bundle
        // holding it (`-sLO`), `--output F`, `--remote-name`. Not `-o -` (the page to
        // standard output) nor `-o /dev/null` (a status check).
        "curl" => {
            let short = |w: &str| w.starts_with('-') && !w.starts_with("--") && w.len() > 1;
            let saved_to = |v: Option<&String>| v.is_some_and(|v| v != "-" && v != "/dev/null");
            words.iter().enumerate().skip(1).any(|(i, w)| {
                (short(w) && w.ends_with('o') || w == "--output") && saved_to(words.get(i + 1))
                    || w.strip_prefix("--output=")
                        .is_some_and(|v| v != "-" && v != "/dev/null")
                    || short(w) && w.contains('O')
                    || w.starts_with("--remote-name")
            })
        }
        // wget saves what it fetches unless told to print it (`-O -`, `-qO-`) or only check.
        "wget" => {
            let printed = words.iter().enumerate().any(|(i, w)| {
                w.ends_with("O-")
                    || w == "--output-document=-"
                    || w == "--spider"
                    || w.starts_with('-')
                        && w.ends_with('O')
                        && words.get(i + 1).is_some_and(|v| v == "-" || v == "/dev/null")
            });
            !printed
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_subcommand_asked_to_list_only_looks() {
        use super::asks_its_action_to_list as lists;
        let w = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert!(lists("worktree", &w("git worktree list")));
        assert!(lists("stash", &w("git stash list")));
        assert!(lists("remote", &w("git remote show origin")));
        assert!(lists("image", &w("docker image ls")));
        assert!(lists("submodule", &w("git submodule status")));
        assert!(!lists("worktree", &w("git worktree add ../x main")));
        assert!(!lists("stash", &w("git stash")));
        assert!(!lists("", &w("ls list")));
    }

    use super::*;

    fn looks(cmd: &str) -> bool {
        let words: Vec<String> = cmd.split(' ').map(str::to_string).collect();
        // The normaliser puts the fetchers in the `http` domain.
        let domain = if matches!(words[0].as_str(), "curl" | "wget") {
            "http"
        } else {
            &words[0]
        };
        only_looks(Looked {
            program: &words[0],
            domain,
            action: "",
            words: &words,
            writes: false,
        })
    }

    #[test]
    fn a_looking_program_told_to_write_does_not_only_look() {
        assert!(looks("sort deps.txt"));
        assert!(looks("find . -name x"));
        assert!(!looks("sort -o deps.txt deps.txt"));
        assert!(!looks("sort -uo deps.txt deps.txt"));
        assert!(!looks("sort --output=deps.txt deps.txt"));
        assert!(!looks("find . -name '*.pyc' -delete"));
        assert!(!looks("date -s 2026-01-01"));
        // Looking into a binary.
        assert!(looks("ldd ./report"));
        assert!(looks("nm -D lib/libgeo.so"));
    }

    #[test]
    fn a_download_kept_as_a_file_is_no_look() {
        // Saved: `-o F`, a bundle ending in `o`, `-O`, `--output`, wget by default.
        assert!(!looks("curl -fsSL -o vendor/a.tar.gz http://x/a.tar.gz"));
        assert!(!looks("curl -fsSLo vendor/a.tar.gz http://x/a.tar.gz"));
        assert!(!looks("curl -sLO http://x/a.tar.gz"));
        assert!(!looks("curl -fL --retry 2 -s -o out/a.zip http://x/a.zip"));
        assert!(!looks("curl --output=a.zip http://x/a.zip"));
        assert!(!looks("curl http://x/a.zip --output a.zip"));
        assert!(!looks("curl -O http://x/a.zip"));
        assert!(!looks("wget http://x/a.zip"));
        assert!(!looks("wget -q -O vendor/a.zip http://x/a.zip"));
        // Printed or only checked: still a look.
        assert!(looks("curl -s http://x/health"));
        assert!(looks("curl -fsSL -o - http://x/a.txt"));
        assert!(looks("curl -sS -w %{http_code} http://x/"));
        assert!(looks("wget -qO- http://x/a.txt"));
        assert!(looks("wget -O - http://x/a.txt"));
        assert!(looks("wget --spider http://x/a.txt"));
        assert!(looks("curl -s -o /dev/null -w %{http_code} http://x/"));
        assert!(looks("wget -q -O /dev/null http://x/"));
    }
}
