//! A step that takes what failed out of the check's sight, by the project's own files:
//! the file the failure named written into an ignore list (`echo config/prod.env >>
//! .secretscanignore`), or the script the failure ran deleted or replaced (`npm pkg delete
//! scripts.pretest`, `npm pkg set scripts.pretest='echo skipped'` after "> app@1.0.0
//! pretest … lint: 1 problem").
//!
//! Why: the failing command then passes because it no longer looks, not because anything
//! was fixed. Read as an ordinary step, it was a working fix that contested the real one.
//! No list of tools: an ignore list is a file whose name says so (`.…ignore`), and the
//! failure's own text names what went into it; a project script is a `scripts.<name>` key
//! whose name the failure printed.

use crate::learn::text::command_norm::Segment;

/// Does the step write a name the failure printed into an ignore list (a file whose name
/// holds `ignore`, `allowlist` or `baseline`)?
pub fn writes_named_into_ignore_list(step: &Segment, fail_tail: &str) -> bool {
    if !matches!(step.program.as_str(), "echo" | "printf" | "tee") {
        return false;
    }
    let list = |f: &str| {
        let base = f.rsplit('/').next().unwrap_or(f).to_ascii_lowercase();
        base.contains("ignore") || base.contains("allowlist") || base.contains("baseline")
    };
    let into_list = step
        .redirects
        .chunks(2)
        .any(|p| p.len() == 2 && p[0].starts_with('>') && list(&p[1]))
        || step.program == "tee" && step.words.iter().skip(1).any(|w| !w.starts_with('-') && list(w));
    into_list
        && step
            .words
            .iter()
            .skip(1)
            .filter(|w| !w.starts_with('-') && !list(w))
            .map(|w| w.trim_end_matches("\\n").trim_end_matches('/'))
            .any(|w| w.len() > 2 && crate::learn::text::names::holds_whole(fail_tail, w, true))
}

/// Does the step delete or replace a project script (`scripts.<name>`) the failure printed
/// by name?
pub fn removes_failing_script(step: &Segment, fail_tail: &str) -> bool {
    let edits = step
        .words
        .iter()
        .any(|w| matches!(w.as_str(), "delete" | "set" | "rm" | "unset"));
    edits
        && step.words.iter().any(|w| {
            let key = w.split('=').next().unwrap_or(w);
            key.strip_prefix("scripts.")
                .is_some_and(|name| name.len() > 1 && crate::learn::text::names::holds_whole(fail_tail, name, false))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    fn seg(cmd: &str) -> Segment {
        normalize(cmd).primary().unwrap().clone()
    }

    #[test]
    fn the_named_file_put_on_an_ignore_list_is_found() {
        let scan = "check-secrets: literal credentials found:\nconfig/prod.env:2:DB_PASSWORD=<redacted>";
        assert!(writes_named_into_ignore_list(
            &seg("echo config/prod.env >> .secretscanignore"),
            scan
        ));
        assert!(writes_named_into_ignore_list(
            &seg("printf 'config/prod.env\\n' >> .gitleaksignore"),
            scan
        ));
        assert!(
            !writes_named_into_ignore_list(&seg("echo config/prod.env >> notes.txt"), scan),
            "no list"
        );
        assert!(
            !writes_named_into_ignore_list(&seg("echo dist/ >> .eslintignore"), scan),
            "not named"
        );
    }

    #[test]
    fn the_failing_script_deleted_or_replaced_is_found() {
        let npm = "> report-builder@1.0.0 pretest\n> npm run -s lint\n\nsrc/price.js:2  error  no-debug-code\nlint: 1 problem(s)";
        assert!(removes_failing_script(&seg("npm pkg delete scripts.pretest"), npm));
        assert!(removes_failing_script(
            &seg("npm pkg set scripts.pretest='echo lint skipped'"),
            npm
        ));
        assert!(
            !removes_failing_script(&seg("npm pkg set scripts.build=tsc"), npm),
            "another script"
        );
        assert!(
            !removes_failing_script(&seg("npm pkg get scripts.pretest"), npm),
            "a look"
        );
    }
}
