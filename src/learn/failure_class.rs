//! Failure classes: the scope over which competing fixes contest one another.
//!
//! Why its own notion: the cluster (domain, action, anchor) is too narrow for a contest —
//! a port in use is one problem whichever program met it — and the anchor alone is too
//! wide — `conflict` in `git merge` and in `pip install` are two problems.

use crate::learn::episodes::{Episode, Prepared};
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
    match anchor {
        Some(a) if ENVIRONMENT_ANCHORS.contains(&a) => format!("anchor:{a}"),
        Some(a) if !PROGRAM_SCOPED_ANCHORS.contains(&a) => format!("domain:{domain}|{a}"),
        _ => format!("cluster:{cluster}"),
    }
}

/// Necessity: per failure class, how many failures cleared on a plain retry (literally
/// unchanged, nothing state-changing between; not nested in another recovery). They count
/// against every learned fix of the class: the `index.lock` that was simply released.
pub fn plain_retries(episodes: &[Episode], prep: &Prepared) -> HashMap<String, usize> {
    let mut plain: HashMap<String, usize> = HashMap::new();
    for e in episodes.iter().filter(|e| e.plain_retry && !e.nested) {
        let cluster = prep.cluster_key(e.fail_idx);
        *plain
            .entry(failure_class(&cluster, &e.domain, prep.sigs[e.fail_idx].primary()))
            .or_default() += 1;
    }
    plain
}

#[cfg(test)]
mod tests {
    use super::*;

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
