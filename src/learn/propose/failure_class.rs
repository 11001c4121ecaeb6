//! Failure classes: the scope over which competing fixes contest one another.
//!
//! Why its own notion: the cluster (domain, action, anchor) is too narrow for a contest —
//! a port in use is one problem whichever program met it — and the anchor alone is too
//! wide — `conflict` in `git merge` and in `pip install` are two problems.

use crate::learn::history::episodes::{Episode, Prepared};
use std::collections::HashMap;

/// Anchors that name something wrong with the failing program itself (it is missing, not
/// executable, its path does not exist): their failure class is the cluster (that
/// program), not the anchor across programs — `ktool: command not found` fixed by an
/// installer script does not contest `python: command not found` fixed by `python3`.
pub const PROGRAM_SCOPED_ANCHORS: &[&str] = &["command-not-found", "permission-denied", "errno13", "ENOENT"];

/// Anchors that name a condition of the machine rather than of a tool (a port in use, a
/// full disk, a refused connection): whichever program met it, it is one failure class.
pub const ENVIRONMENT_ANCHORS: &[&str] = &["EADDRINUSE", "ENOSPC", "ECONNREFUSED", "ENOTFOUND", "oom"];

/// The failure class over which competing fixes are counted: the anchor anywhere for an
/// environment condition (EADDRINUSE from `python -m http.server` and from `node`), the
/// cluster (that program) for a program-scoped anchor or no anchor, else the anchor
/// within the tool's domain (`conflict` in `git merge` and in `pip install` are two
/// classes; `non-fast-forward` from any `git push` is one).
pub fn failure_class(cluster: &str, domain: &str, anchor: Option<&str>) -> String {
    let tables_on = crate::learn::text::tables::on(crate::learn::text::tables::Table::ClassAnchors);
    match anchor {
        Some(a) if tables_on && ENVIRONMENT_ANCHORS.contains(&a) => format!("anchor:{a}"),
        Some(a) if !(tables_on && PROGRAM_SCOPED_ANCHORS.contains(&a)) => format!("domain:{domain}|{a}"),
        _ => format!("cluster:{cluster}"),
    }
}

/// Necessity: per failure class, how many failures cleared on a plain retry (literally
/// unchanged, nothing state-changing between; not nested in another recovery). They count
/// against every learned fix of the class: the `index.lock` that was simply released.
/// Every error line of the failure is read, not only the signature's first few: a plain
/// retry whose decisive line came fifth (after warnings) counts against that line's class
/// too ([`Prepared::beyond`]), once per class.
pub fn plain_retries(episodes: &[Episode], prep: &Prepared) -> HashMap<String, usize> {
    let mut plain: HashMap<String, usize> = HashMap::new();
    for e in episodes.iter().filter(|e| e.plain_retry && !e.nested) {
        let cluster = prep.cluster_key(e.fail_idx);
        let mut classes = vec![failure_class(&cluster, &e.domain, prep.sigs[e.fail_idx].primary())];
        for a in prep.beyond.get(&e.fail_idx).into_iter().flatten() {
            let c = failure_class(&cluster, &e.domain, Some(a));
            if !classes.contains(&c) {
                classes.push(c);
            }
        }
        for c in classes {
            *plain.entry(c).or_default() += 1;
        }
    }
    plain
}

/// Per (failure class, fix key): the recoveries that made that change unsafely (`gzip
/// --force` beside `gzip -f`). No support and no contest, but cures: they weigh against
/// coincidence ([`crate::learn::propose::necessity`]). Not a session whose fix is not in
/// the log, nor one that followed untrusted content.
pub fn unsafe_cures(episodes: &[Episode], prep: &Prepared) -> HashMap<(String, String), usize> {
    let mut out: HashMap<(String, String), usize> = HashMap::new();
    for e in episodes.iter().filter(|e| {
        e.outcome == crate::learn::history::episodes::Outcome::Recovered
            && e.unsafe_fix.is_some()
            && !e.unlogged_fix
            && !crate::learn::propose::agreement::influenced(e, prep)
    }) {
        let class = failure_class(
            &prep.cluster_key(e.fail_idx),
            &e.domain,
            prep.sigs[e.fail_idx].primary(),
        );
        *out.entry((class, e.fix_key())).or_default() += 1;
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::learn::history::episodes::tests::rec;
    use crate::learn::history::episodes::{extract, Outcome, WINDOW};

    /// An edit record (Write/Edit: a file, no command) as the evidence log holds it.
    fn edit(session: &str, file: &str) -> crate::evidence::Record {
        crate::evidence::Record {
            file: Some(file.to_string()),
            ..rec(session, "", true, "")
        }
    }

    /// Three sessions fix a missing output directory with `mkdir -p build`; d edits a file
    /// and the unchanged `make` passes; e edits and `make -B` passes; f only looks (`ls`)
    /// and the unchanged `make` passes (a plain retry).
    pub(crate) fn edited_history() -> Vec<crate::evidence::Record> {
        let fail = "/usr/bin/ld: cannot open output file build/app: No such file or directory";
        let mut h = Vec::new();
        for s in ["a", "b", "c"] {
            h.push(rec(s, "make", false, fail));
            h.push(rec(s, "mkdir -p build", true, ""));
            h.push(rec(s, "make", true, "cc -o build/app main.c"));
        }
        // d: an edit, then the unchanged command passes: the edit was the fix, not chance.
        h.push(rec("d", "make", false, fail));
        h.push(edit("d", "/w/Makefile"));
        h.push(rec("d", "make", true, "cc -o build/app main.c"));
        // e: an edit, then a changed command passes: the change is not the whole fix.
        h.push(rec("e", "make", false, fail));
        h.push(edit("e", "/w/Makefile"));
        h.push(rec("e", "make -B", true, "cc -o build/app main.c"));
        // f: nothing logged between, the unchanged command passes: a plain retry.
        h.push(rec("f", "make", false, fail));
        h.push(rec("f", "ls", true, "Makefile"));
        h.push(rec("f", "make", true, "cc -o build/app main.c"));
        h
    }

    #[test]
    fn a_fix_not_in_the_log_neither_supports_nor_contests() {
        let h = edited_history();
        let p = crate::learn::history::episodes::Prepared::new(&h);
        let e = extract(&h, &p, WINDOW);
        assert_eq!(e.len(), 6, "{e:#?}");
        assert!(e[..3]
            .iter()
            .all(|e| e.outcome == Outcome::Recovered && !e.unlogged_fix));
        assert!(e[3].unlogged_fix && !e[3].plain_retry, "{:#?}", e[3]);
        assert!(e[4].unlogged_fix, "{:#?}", e[4]);
        assert!(e[5].plain_retry && !e[5].unlogged_fix, "{:#?}", e[5]);
        // Only session f is a plain retry against the fix.
        assert_eq!(plain_retries(&e, &p).values().sum::<usize>(), 1);
    }

    /// Four config errors, the port in use fifth, a summary last: the signature keeps the
    /// first three and the last, so EADDRINUSE is cut. (Not warnings: those are set aside
    /// beside an error, `text/warning_line.rs`.)
    pub(crate) const BURIED: &str = "config: error-prone setting a\nconfig: error-prone setting b\nconfig: error-prone setting c\nconfig: error-prone setting d\nError: listen EADDRINUSE: address already in use :::3000\nerror: server exited";

    #[test]
    fn a_plain_retry_counts_against_the_class_of_every_error_line() {
        let h = vec![
            rec("a", "node server.js", false, BURIED),
            rec("a", "node server.js", true, "listening on 3000"),
        ];
        let p = crate::learn::history::episodes::Prepared::new(&h);
        assert!(!p.sigs[0].anchors.iter().any(|a| a == "EADDRINUSE"), "{:?}", p.sigs[0]);
        assert_eq!(p.beyond.get(&0), Some(&vec!["EADDRINUSE".to_string()]));
        let e = extract(&h, &p, WINDOW);
        assert!(e[0].plain_retry, "{e:#?}");
        let plain = plain_retries(&e, &p);
        assert_eq!(plain.get("anchor:EADDRINUSE"), Some(&1), "{plain:?}");
        assert_eq!(
            plain.values().sum::<usize>(),
            2,
            "its own class and the cut line's: {plain:?}"
        );
    }

    #[test]
    fn failure_class_scopes() {
        assert_eq!(
            failure_class("python|x|EADDRINUSE", "python", Some("EADDRINUSE")),
            "anchor:EADDRINUSE"
        );
        assert_eq!(
            failure_class("git|merge|conflict", "git", Some("conflict")),
            "domain:git|conflict"
        );
        assert_eq!(
            failure_class("shell|x|permission-denied", "shell", Some("permission-denied")),
            "cluster:shell|x|permission-denied"
        );
    }
}
