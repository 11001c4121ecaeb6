//! A requirement the failure named, dropped: `npm uninstall log-format` or `npm pkg delete
//! dependencies.date-helpers` after `npm ci` said "Missing: date-helpers@1.0.0 from lock
//! file"; `pip uninstall x` after a failure about `x`.
//!
//! Why: the lock file and the manifest disagree, or a package cannot be resolved, and the
//! shortest path to a passing command is to stop needing the package. The command then
//! passes with the project's need unmet: what failed is no longer asked for, as a retry
//! run without the operand its failure was in is ([`crate::learn::history::narrowed`]).
//! Unrecognised, such sessions were working fixes that contested the real one
//! (`npm install`, which brings the lock file in line).
//!
//! Read from the step's words, not a table of package managers: a removal subcommand
//! (`uninstall`, `remove`, `rm`, `un`, `delete`, `del`) followed by a name the failure's
//! own output printed as a package: a version after it (`x@1.0.0`, `x==2.1`), or in a
//! failure that speaks of dependencies (a stale container or pod the failure names, taken
//! away, is a fix, not this). A name of
//! fewer than three characters is chance, not the package the failure meant. `git rm`
//! and the like are no package: a path (`/`, a leading `.`) never counts. When the failing
//! command was itself a removal (`pip uninstall x` asked to confirm), removing is the
//! intent, and `pip uninstall -y x` its fix.

use crate::learn::text::command_norm::Segment;

/// Subcommands that take a package out of a project.
const REMOVE: &[&str] = &["uninstall", "remove", "rm", "un", "delete", "del"];

/// The position after the removal subcommand in a segment's words, if it is a removal.
fn removal(s: &Segment) -> Option<usize> {
    s.words
        .iter()
        .skip(1)
        .take(2)
        .position(|w| REMOVE.contains(&w.as_str()))
}

/// Does `step` remove a package the failure's output (`failure`) named, when the failing
/// command (`failed`) removed none?
pub fn drops_named_requirement(failed: &Segment, step: &Segment, failure: &str) -> bool {
    // The removal words are the safety table's: `--tables` counts what they decide.
    if removal(failed).is_some() || !crate::learn::text::tables::on(crate::learn::text::tables::Table::Safety) {
        return false;
    }
    let Some(at) = removal(step) else {
        return false;
    };
    step.words
        .iter()
        .skip(at + 2)
        .filter(|w| !w.starts_with('-'))
        .filter_map(|w| package_name(w))
        .any(|name| printed_as_package(failure, name))
}

/// The package an operand names: `date-helpers` of `dependencies.date-helpers`,
/// `left-pad@1.3.0`, `requests==2.31`; `None` for a path or a name too short to mean one.
fn package_name(w: &str) -> Option<&str> {
    let w = [
        "dependencies.",
        "devDependencies.",
        "optionalDependencies.",
        "peerDependencies.",
    ]
    .iter()
    .find_map(|p| w.strip_prefix(p))
    .unwrap_or(w);
    // A scoped npm name keeps its leading `@` (`@acme/ui@2.0.0` → `@acme/ui`).
    let cut = w
        .char_indices()
        .skip(1)
        .find(|&(_, c)| matches!(c, '@' | '=' | '<' | '>' | '~' | '^'));
    let name = cut.map_or(w, |(i, _)| &w[..i]);
    let path = name.starts_with('.') || name.contains("/.") || (name.contains('/') && !name.starts_with('@'));
    (name.chars().count() >= 3 && !path).then_some(name)
}

/// Does `text` print `name` as a package: a whole word with a version after it
/// (`date-helpers@1.0.0`, `react-lite@"^2.0.0"`, `requests==2.31`), or a whole word in a
/// failure about dependencies ([`about_dependencies`]; whole as the learner and the hook
/// read a name: [`crate::learn::text::names::holds_whole`])? A name alone is not enough:
/// `docker rm web` after `container name "/web" is already in use`, or `kubectl delete pod
/// web` after `pods "web" already exists`, takes away a stale object, which is the fix,
/// not a requirement dropped.
fn printed_as_package(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/');
    let versioned = text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let rest = &text[i + name.len()..];
        let version = ["==", ">=", "<=", "~=", "!="].iter().any(|op| rest.starts_with(op))
            || rest
                .strip_prefix('@')
                .and_then(|v| v.chars().next())
                .is_some_and(|c| c.is_ascii_digit() || matches!(c, '^' | '~' | '"' | '\'' | '<' | '>' | '='));
        !before.is_some_and(part) && version
    });
    versioned || about_dependencies(text) && crate::learn::text::names::holds_whole(text, name, false)
}

/// Does the failure speak of dependencies (`dependency`, `requires`, `missing`, a lock
/// file)? Then a name it printed without a version is still the package it meant.
fn about_dependencies(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    [
        "dependenc",
        "depends on",
        "requires",
        "required by",
        "missing:",
        "lock file",
        "lockfile",
        "not installed",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(line: &str) -> Segment {
        crate::learn::text::command_norm::normalize(line).segments[0].clone()
    }

    fn drops(step: &str, failure: &str) -> bool {
        drops_named_requirement(&seg("npm ci"), &seg(step), failure)
    }

    const MISSING: &str = "npm error `npm ci` can only install packages when your package.json and package-lock.json are in sync.\nnpm error Missing: date-helpers@1.0.0 from lock file\nnpm error Invalid: lock file's log-format@1.0.0 does not satisfy log-format@2.0.0";

    #[test]
    fn a_package_the_failure_named_taken_out() {
        assert!(drops("npm uninstall log-format", MISSING));
        assert!(drops("npm pkg delete dependencies.date-helpers", MISSING));
        assert!(drops("npm rm date-helpers@1.0.0", MISSING));
        assert!(drops("pip uninstall -y requests", "ERROR: requests==2.31 conflicts"));
        let peer = "npm error Could not resolve dependency:\nnpm error peer react-lite@\"^2.0.0\" from ui-kit@3.0.0";
        assert!(drops("npm uninstall ui-kit", peer));
        // No version beside it, but a failure about dependencies.
        let dep = "error: failed to select a version for the requirement `widget-core = \"^2\"`\nrequired by package `app v0.1.0`";
        assert!(drops("cargo remove widget-core", dep));
    }

    #[test]
    fn other_removals_and_other_packages_are_not() {
        // Installing is the fix, not a removal.
        assert!(!drops("npm install", MISSING));
        // A package the failure never printed.
        assert!(!drops("npm uninstall left-pad", MISSING));
        // Inside a longer name only.
        assert!(!drops("npm uninstall helpers", MISSING));
        // A path is no package (`git rm` of a file the failure printed).
        assert!(!drops("git rm src/app.js", "error: src/app.js: conflict"));
        assert!(!drops("git rm ./notes.md", "notes.md"));
        // A stale object the failure named, taken away: the fix, not a requirement dropped.
        let in_use = "docker: Error response from daemon: Conflict. The container name \"/web\" is already in use";
        assert!(!drops_named_requirement(
            &seg("docker run --name web nginx"),
            &seg("docker rm web"),
            in_use
        ));
        let exists = "Error from server (AlreadyExists): pods \"web\" already exists";
        assert!(!drops_named_requirement(
            &seg("kubectl create -f pod.yaml"),
            &seg("kubectl delete pod web"),
            exists
        ));
        // The failing command was the removal: confirming it is the fix.
        let asked = "Proceed (Y/n)? ERROR: Exception: EOFError; Found existing installation: requests 2.31";
        assert!(!drops_named_requirement(
            &seg("pip uninstall requests"),
            &seg("pip uninstall -y requests"),
            asked
        ));
    }
}
