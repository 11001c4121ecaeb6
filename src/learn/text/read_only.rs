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
    if seg.writes {
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
