//! A step that takes what failed out of the check's sight, by the project's own files:
//! the file the failure named written into an ignore list (`echo config/prod.env >>
//! .secretscanignore`), or the script the failure ran deleted or replaced (`npm pkg delete
//! scripts.pretest`, `npm pkg set scripts.pretest='echo skipped'` after "> app@1.0.0
//! pretest … lint: 1 problem"). A placeholder script (npm's default `test`: `echo "Error:
//! no test specified" && exit 1`) filled in with a real command is the fix, not that.
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
/// by name? A placeholder the project never filled in (`echo "Error: no test specified" &&
/// exit 1`, npm's default `test`) is no check: replacing it with a command that runs
/// something (`node --test`) is the fix, and only a replacement that cannot fail (`echo
/// ok`, `exit 0`, `true`) takes it out of sight.
pub fn removes_failing_script(step: &Segment, fail_tail: &str) -> bool {
    let edit = step
        .words
        .iter()
        .find(|w| matches!(w.as_str(), "delete" | "set" | "rm" | "unset"));
    let Some(edit) = edit else {
        return false;
    };
    step.words.iter().any(|w| {
        let (key, value) = w.split_once('=').unwrap_or((w, ""));
        let Some(name) = key.strip_prefix("scripts.") else {
            return false;
        };
        if name.len() < 2 || !crate::learn::text::names::holds_whole(fail_tail, name, false) {
            return false;
        }
        edit != "set" || !placeholder(fail_tail, name) || does_nothing(value)
    })
}

/// Is the script `name`, as the failure printed it (`> app@1.0.0 test`, then `> <its
/// command>`), only a message and a failing exit: a placeholder, not a check?
fn placeholder(fail_tail: &str, name: &str) -> bool {
    let mut lines = fail_tail.lines().map(str::trim);
    let Some(_) = lines
        .by_ref()
        .find(|l| l.starts_with("> ") && l.ends_with(&format!(" {name}")))
    else {
        return false;
    };
    let Some(script) = lines.find_map(|l| l.strip_prefix("> ")) else {
        return false;
    };
    let parts: Vec<&str> = script
        .split(['&', ';', '|'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let fails = |p: &str| {
        p.strip_prefix("exit ")
            .is_some_and(|n| n.trim().parse::<i32>().is_ok_and(|n| n != 0))
    };
    parts.iter().any(|p| fails(p))
        && parts
            .iter()
            .all(|p| fails(p) || p.starts_with("echo ") || p.starts_with("printf "))
}

/// A command that cannot fail and checks nothing: empty, `echo …`, `printf …`, `true`,
/// `:`, `exit 0`, alone or chained.
fn does_nothing(value: &str) -> bool {
    let value = value.trim_matches(['"', '\'']);
    value.split(['&', ';', '|']).all(|p| {
        let words: Vec<&str> = p.split_whitespace().collect();
        words.is_empty()
            || matches!(words.first(), Some(&("echo" | "printf")))
            || words == ["exit"]
            || crate::learn::history::swallowed::no_op(&words)
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

    #[test]
    fn a_placeholder_script_filled_in_is_the_fix_but_not_with_a_no_op() {
        let npm =
            "\n> notifier@1.0.0 test\n> echo \"Error: no test specified\" && exit 1\n\nError: no test specified\n";
        assert!(!removes_failing_script(
            &seg("npm pkg set scripts.test=\"node --test\""),
            npm
        ));
        assert!(!removes_failing_script(
            &seg("npm pkg set 'scripts.test=node --test test/'"),
            npm
        ));
        assert!(removes_failing_script(
            &seg("npm pkg set scripts.test=\"echo ok\""),
            npm
        ));
        assert!(removes_failing_script(&seg("npm pkg set scripts.test='exit 0'"), npm));
        assert!(removes_failing_script(&seg("npm pkg delete scripts.test"), npm));
        // A real check replaced, whatever with: out of sight as before.
        let lint = "\n> app@1.0.0 pretest\n> eslint src\n\n/app/src/a.js\n  1:1  error  x\n";
        assert!(removes_failing_script(
            &seg("npm pkg set scripts.pretest='eslint src/ok.js'"),
            lint
        ));
    }
}
