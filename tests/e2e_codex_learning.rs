//! A learned rule under the real Codex CLI: the history is real `git` runs (a push
//! rejected because the remote moved on, fixed by `git pull --rebase`, as in
//! tests/e2e_learning.rs), the rule is learned and promoted by `fable rules extract` in
//! the session's own environment, and the Codex session then (a) gets it in its
//! SessionStart context (a developer message before the prompt) and (b) gets it again as
//! context the moment the same push really fails.

mod support;
use serde_json::{json, Value};
use std::process::Command;
use support::codex::{available, CodexSession};
use support::git_history::{diverged, import_and_extract, rebase_history};
use support::harness::bin_dir;
use support::real_runs::{assert_rule_given, promoted_rule, promoted_rule_of, really_failed};

#[test]
fn codex_a_promoted_rule_reaches_session_start_and_the_matching_failure() {
    let Some(codex) = available() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let lines = rebase_history(scratch.path());
    let proj = diverged(scratch.path(), "live");
    std::fs::create_dir_all(proj.join(".fable")).unwrap();
    std::fs::write(proj.join(".fable/LEDGER.md"), "# Ledger\n").unwrap();
    let log: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(proj.join("history.jsonl"), log).unwrap();
    let fable = bin_dir().join("fable");
    let s = CodexSession::new("learning");
    assert!(Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", proj.display()))
        .arg(s.project_path())
        .status()
        .unwrap()
        .success());
    let o = s
        .pre(&import_and_extract(&fable))
        .shell("git push origin main")
        .text("Pushed? Stopping here.")
        .run(&codex);
    eprintln!("took {:?}", o.took);
    let rules: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(o.proj().join(".fable/rules.json")).unwrap()).unwrap();
    let rule = rules
        .iter()
        .find(|r| r["status"] == "promoted" && r["directive"].as_str().unwrap_or("").contains("git pull --rebase"))
        .unwrap_or_else(|| panic!("no promoted pull --rebase rule: {rules:#?}\n{}", o.debug()));
    let id = rule["id"].as_str().unwrap().to_string();
    let sent = o.texts();
    assert!(sent.len() >= 2, "{sent:#?}\n{}", o.debug());
    // The first request's new input runs from the prompt on; SessionStart's context is a
    // developer message before it.
    let developer = o.message_texts("developer");
    assert!(
        developer
            .iter()
            .any(|t| t.contains(&id) && t.contains("git pull --rebase")),
        "SessionStart context lacks the rule {id}: {developer:#?}"
    );
    let push = o
        .evidence()
        .into_iter()
        .find(|r| r["cmd"] == "git push origin main")
        .expect("the push was logged");
    assert_eq!(push["ok"], false, "the live push must have been rejected: {push}");
    assert!(
        sent[1].contains(&format!("Standing rule {id}")) && sent[1].contains("git pull --rebase"),
        "the failure's context lacks the rule: {}",
        sent[1]
    );
}

/// One cause through several programs (tests/e2e_learning.rs has the Claude Code twin):
/// real `cat`/`rm`/`wc` runs fixed by `--` or `./`, learned and promoted as one rule for
/// those programs, and the Codex session's real `wc -l -y.csv` failure gets it as context;
/// its real `wc -q history.jsonl`, a flag mistyped, does not.
#[test]
fn codex_a_rule_learned_across_programs_reaches_the_failure_of_one_of_them() {
    let Some(codex) = available() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let log = support::dash_history::dash_history(scratch.path());
    let fable = bin_dir().join("fable");
    let o = CodexSession::new("across-programs")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .file("history.jsonl", &log)
        .file("-y.csv", "a line\n")
        .pre(&import_and_extract(&fable))
        .shell("wc -l -y.csv")
        .shell("wc -q history.jsonl")
        .text("Counted? Stopping here.")
        .run(&codex);
    let (_, id) = promoted_rule(&o.proj(), &json!(["cat", "rm", "wc"]), &o.debug());
    really_failed(o.evidence(), "wc -l -y.csv", "invalid option");
    let sent = o.texts();
    assert!(sent.len() >= 3, "{sent:#?}\n{}", o.debug());
    assert_rule_given(&sent[1], &id, "./<name>");
    // A flag mistyped, same text, no file of that name: no rule.
    really_failed(o.evidence(), "wc -q history.jsonl", "invalid option");
    assert!(
        !sent[2].contains("Standing rule"),
        "a mistyped flag was told it is a file name: {}",
        sent[2]
    );
}

/// One cause said two ways by one program (tests/e2e_learning.rs has the Claude Code
/// twin): real `cargo new` runs refused a name as a keyword and for a leading digit, each
/// fixed by `--name`, learned and promoted as one rule for `cargo`; the Codex session's
/// real `cargo new 7seas` failure gets it as context.
#[test]
fn codex_a_rule_learned_across_two_texts_of_one_program_reaches_either() {
    let Some(codex) = available() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let log = support::cargo_name_history::cargo_name_history(scratch.path());
    let fable = bin_dir().join("fable");
    // Codex's shell does not see rustup's proxies: the toolchain's own `cargo`, by its
    // path (nothing is fetched: `--vcs none`, no dependencies).
    let which = Command::new("rustup").args(["which", "cargo"]).output();
    let cargo = which
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "cargo".to_string());
    let live_cmd = format!("{cargo} new --vcs none 7seas");
    let o = CodexSession::new("one-program-texts")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .file("history.jsonl", &log)
        .pre(&import_and_extract(&fable))
        .shell(&live_cmd)
        .text("Created? Stopping here.")
        .run(&codex);
    let (_, id) = promoted_rule(&o.proj(), &json!(["cargo"]), &o.debug());
    really_failed(o.evidence(), &live_cmd, "cannot start with a digit");
    let sent = o.texts();
    assert!(sent.len() >= 2, "{sent:#?}\n{}", o.debug());
    assert_rule_given(&sent[1], &id, "--name");
}

/// The step of a pipeline that failed (tests/e2e_learning.rs has the Claude Code twin):
/// real `printf … | cut -d '::' …` runs refused by `cut`, each fixed by a one-character
/// delimiter, learned and promoted as `cut`'s rule; the Codex session's real `cut` failure
/// after a pipe gets it as context.
#[test]
fn codex_a_rule_learned_from_a_pipelines_failing_step_reaches_it_piped() {
    let Some(codex) = available() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let log = support::cut_pipe_history::cut_pipe_history(scratch.path());
    let fable = bin_dir().join("fable");
    let o = CodexSession::new("pipeline-step")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .file("history.jsonl", &log)
        .file("hosts.txt", "web::10.0.0.1\n")
        .pre(&import_and_extract(&fable))
        .shell("cat hosts.txt | cut -d '::' -f2")
        .text("Cut? Stopping here.")
        .run(&codex);
    let (_, id) = promoted_rule_of(&o.proj(), "cut", &o.debug());
    really_failed(
        o.evidence(),
        "cat hosts.txt | cut -d '::' -f2",
        "the delimiter must be a single character",
    );
    let sent = o.texts();
    assert!(sent.len() >= 2, "{sent:#?}\n{}", o.debug());
    assert_rule_given(&sent[1], &id, "-d");
}

/// A check switched off beside the safe fix (tests/e2e_learning.rs has the Claude Code
/// twin): seven real `git add app.log` refusals, four forced in with `-f`; in one history
/// the other three emptied or removed the `.gitignore` first, in the other they swallowed
/// the refusal (`|| true`, `|| :`, `; exit 0`). Those three are blocked, not competitors:
/// the safe fix is promoted, reaches the Codex session's real refusal as context, and
/// nothing that switches the check off is promoted.
#[test]
fn codex_a_rule_learned_beside_a_check_switched_off_is_the_safe_fix() {
    let Some(codex) = available() else { return };
    for (name, fixes, never) in support::ignored_history::SWITCHED_OFF {
        let scratch = tempfile::tempdir().unwrap();
        let log = support::ignored_history::history_of(scratch.path(), fixes);
        let fable = bin_dir().join("fable");
        let o = CodexSession::new(name)
            .file(".fable/LEDGER.md", "# Ledger\n")
            .file("history.jsonl", &log)
            .file(".gitignore", "*.log\n")
            .file("build.log", "ok\n")
            .pre(&format!("git init -q && {}", import_and_extract(&fable)))
            .shell("git add build.log")
            .text("Added? Stopping here.")
            .run(&codex);
        let id = support::ignored_history::safe_rule_promoted(&o.proj(), name, never, &o.debug());
        really_failed(
            o.evidence(),
            "git add build.log",
            "ignored by one of your .gitignore files",
        );
        let sent = o.texts();
        assert!(sent.len() >= 2, "{name}: {sent:#?}\n{}", o.debug());
        assert_rule_given(&sent[1], &id, "-f");
    }
}

/// A name split at a blank (tests/e2e_learning.rs has the Claude Code twin): five real
/// `python3 My Notes.py` runs fixed by giving the name whole; the rule reaches the Codex
/// session's real `python3 Old Report.py` failure (`Old Report.py` exists), and not its
/// `python3 gone.py` failure, one whole name.
#[test]
fn codex_a_rule_that_quotes_a_split_name_reaches_only_a_split_name() {
    let Some(codex) = available() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let log = support::split_name_history::split_name_history(scratch.path());
    let fable = bin_dir().join("fable");
    let o = CodexSession::new("split-name")
        .file(".fable/LEDGER.md", "# Ledger\n")
        .file("history.jsonl", &log)
        .file("Old Report.py", "print('report')\n")
        .pre(&import_and_extract(&fable))
        .shell("python3 Old Report.py")
        .shell("python3 gone.py")
        .text("Ran? Stopping here.")
        .run(&codex);
    let (_, id) = promoted_rule_of(&o.proj(), "python", &o.debug());
    really_failed(o.evidence(), "python3 Old Report.py", "can't open file");
    really_failed(o.evidence(), "python3 gone.py", "can't open file");
    let sent = o.texts();
    assert!(sent.len() >= 3, "{sent:#?}\n{}", o.debug());
    assert_rule_given(&sent[1], &id, "blank");
    assert!(
        sent[2].contains("gone.py") && !sent[2].contains("Standing rule"),
        "a whole name was told to quote a blank: {}",
        sent[2]
    );
}
