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
            | "file"
            | "wc"
            | "sort"
            | "tree"
            | "true"
            | "date"
            | "diff"
    ) {
        return true;
    }
    let a = seg.action.split(' ').next().unwrap_or("");
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
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn looks(cmd: &str) -> bool {
        let words: Vec<String> = cmd.split(' ').map(str::to_string).collect();
        only_looks(Looked {
            program: &words[0],
            domain: &words[0],
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
    }
}
