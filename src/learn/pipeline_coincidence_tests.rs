//! The coincidence test end to end: a fix aimed at what the failure pointed at (its
//! file, a path to the name it quoted) is no coincidence against one plain retry; the same
//! step aimed elsewhere is (its own file: the pipeline's tests are at their size limit).

use crate::learn::pipeline_tests::{learned, only_accepted};

/// A config missing, created from its example by a step that names the file the error
/// named, in three sessions; one session looked and its unchanged retry passed (the file
/// came from elsewhere). The step acted on what the error pointed at: not coincidence. Its
/// honest counterpart: a step that names no such file (`make setup`) against the same
/// plain retry stays coincidence.
#[test]
fn a_step_on_the_file_the_error_named_is_no_coincidence() {
    use crate::learn::history::episodes::tests::rec;
    let missing = |f: &str| format!("FileNotFoundError: [Errno 2] No such file or directory: '{f}'");
    let history = |fix: &dyn Fn(&str) -> String| {
        let mut h = Vec::new();
        for (s, f) in [("a", "config.json"), ("b", "settings.json"), ("c", "local.json")] {
            h.push(rec(s, "python3 app.py", false, &missing(f)));
            h.push(rec(s, &fix(f), true, ""));
            h.push(rec(s, "python3 app.py", true, "port 8080"));
        }
        h.push(rec("d", "python3 app.py", false, &missing("config.json")));
        h.push(rec("d", "ls", true, "app.py\nconfig.example.json"));
        h.push(rec("d", "python3 app.py", true, "port 8080"));
        h
    };
    let named = history(&|f: &str| format!("cp {}.example.json {f}", f.trim_end_matches(".json")));
    let out = learned(&named);
    let rule = only_accepted(&out);
    assert!(rule.directive.contains("cp "), "{rule:#?}");
    let unnamed = history(&|_: &str| "make setup".to_string());
    let out = learned(&unnamed);
    let setup = out
        .candidates
        .iter()
        .find(|l| l.rule.directive.contains("make setup"))
        .unwrap_or_else(|| panic!("{:#?}", out.candidates));
    assert_eq!(setup.rule.reason, "coincidental", "{:#?}", setup.rule);
}

/// A path to what the failure quoted by name (`cargo add --path ../mathx` after "unresolved
/// import `mathx`") acted on what the error pointed at: one session whose unchanged build
/// passed after a look is no coincidence against three. A path to anything else is.
#[test]
fn a_path_to_the_name_the_error_quoted_is_no_coincidence() {
    use crate::learn::history::episodes::tests::rec;
    let unresolved = |c: &str| format!("error[E0432]: unresolved import `{c}`\n --> src/main.rs:1:5");
    let history = |fix: &dyn Fn(&str) -> String| {
        let mut h = Vec::new();
        for (s, c) in [("a", "mathx"), ("b", "geo_core"), ("c", "textfmt")] {
            h.push(rec(s, "cargo build", false, &unresolved(c)));
            h.push(rec(s, &fix(c), true, "Adding (local) to dependencies"));
            h.push(rec(s, "cargo build", true, "Finished"));
        }
        h.push(rec("d", "cargo build", false, &unresolved("units")));
        h.push(rec("d", "cat Cargo.toml", true, "[package]"));
        h.push(rec("d", "cargo build", true, "Finished"));
        h
    };
    let out = learned(&history(&|c: &str| format!("cargo add --path ../{c}")));
    let rule = only_accepted(&out);
    assert!(rule.directive.contains("cargo add --path"), "{rule:#?}");
    let out = learned(&history(&|_: &str| "cargo add --path ../vendored".to_string()));
    let other = out
        .candidates
        .iter()
        .find(|l| l.rule.directive.contains("cargo add"))
        .unwrap_or_else(|| panic!("{:#?}", out.candidates));
    assert_eq!(other.rule.reason, "coincidental", "{:#?}", other.rule);
}

/// Three sessions, three variables said unset (`DATABASE_URL`, `REDIS_URL`,
/// `API_BASE_URL`), each fixed by loading the env file (`node --env-file=.env …`). Keyed on
/// the variable's name, each was a class of one session (`self_resolved`); the name is the
/// session's own, so they are one class and one rule. (Here beside the coincidence tests:
/// the pipeline's own tests are at their size limit.)
#[test]
fn a_variable_said_unset_is_the_sessions_name_not_the_class() {
    use crate::learn::history::episodes::tests::rec;
    let mut h = Vec::new();
    for (s, var, script) in [
        ("a", "DATABASE_URL", "server.js"),
        ("b", "REDIS_URL", "worker.js"),
        ("c", "API_BASE_URL", "src/index.js"),
    ] {
        let unset = format!("config: {var} is not set (see .env)");
        h.push(rec(s, &format!("node {script}"), false, &unset));
        h.push(rec(s, &format!("node --env-file=.env {script}"), true, "listening"));
    }
    let out = learned(&h);
    let rule = only_accepted(&out);
    assert!(rule.directive.contains("--env-file"), "{rule:#?}");
    assert_eq!(rule.support.len(), 3, "{rule:#?}");
}
