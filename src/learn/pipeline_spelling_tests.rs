//! Which spelling a learned rule says, through the whole pipeline: of two spellings of one
//! lesson (both accepted on the same sessions, one folded as `same_lesson`), the one more
//! sessions wrote stands. (Its own file: the pipeline's tests are at their size limit.)

use crate::learn::history::episodes::tests::rec;
use crate::learn::judge::config::LearnConfig;
use crate::learn::pipeline::run_pipeline;

/// The directives of the rules a history's pipeline accepts (default config).
fn accepted(h: &[crate::evidence::Record]) -> Vec<String> {
    run_pipeline(h, &LearnConfig::default())
        .candidates
        .into_iter()
        .filter(|l| l.rule.accepted == Some(true))
        .map(|l| l.rule.directive)
        .collect()
}

/// `-o f`, `--output f` and `--output=f` (three sessions) against `-of` (one session):
/// each changed only the command's options, so they are one fix key (options changed)
/// and one candidate on all four sessions. The spelling more sessions wrote is said
/// (`--output f` and `--output=f` are one spelling: a long option takes its value either
/// way), and the others are named. Before 2026-12-07 `-of` was a key of its own, accepted
/// on the same sessions and folded as `same_lesson`; before that, the tie went to the fix
/// key's name and the one session's `-opage.html` was said.
#[test]
fn of_two_spellings_of_one_lesson_the_more_common_is_said() {
    let says = "render: error: no output file given (use --output)";
    let mut h = Vec::new();
    for (s, fix) in [
        ("a", "render page.md -o page.html"),
        ("b", "render page.md --output page.html"),
        ("c", "render --output=page.html page.md"),
        ("d", "render page.md -opage.html"),
    ] {
        h.push(rec(s, "render page.md", false, says));
        h.push(rec(s, fix, true, ""));
    }
    let accepted = accepted(&h);
    assert_eq!(accepted.len(), 1, "{accepted:#?}");
    assert!(
        accepted[0].starts_with("retry `render` with `--output page.html` (also seen: "),
        "{accepted:?}"
    );
    assert!(accepted[0].contains("`-opage.html`"), "{accepted:?}");
}

/// CauterRule's near-miss corpus: three programs time out, and each session retries its
/// own command with an option of its own (`docker build --network=host`, `npm install
/// --prefer-offline`, `make test --timeout=60`). Each changed only its command's options,
/// one kind within a program; across programs that is no agreement unless the option is
/// the same. Without that, the three made one false rule "times out → retry with
/// `--network=host` (the same fix worked for docker, make, npm)".
#[test]
fn options_changed_across_programs_agree_only_on_the_same_option() {
    let h = vec![
        rec("a", "docker build -t myapp .", false, "ERROR: failed to solve: timeout"),
        rec(
            "a",
            "docker build --network=host -t myapp .",
            true,
            "Successfully built abc123",
        ),
        rec("b", "npm install", false, "npm ERR! network timeout"),
        rec("b", "npm install --prefer-offline", true, "added 42 packages"),
        rec("c", "make test", false, "TIMEOUT: job exceeded 30 minutes"),
        rec("c", "make test --timeout=60", true, "All tests passed (45 min)"),
    ];
    let accepted = accepted(&h);
    assert!(accepted.is_empty(), "{accepted:?}");
}

/// A quoted `~` reaches the program literally: sessions that unquoted it and sessions that
/// wrote `$HOME` made one fix (the shell now expands the path), said without any session's
/// own path, its other spellings named.
#[test]
fn a_path_the_shell_now_expands_is_one_lesson_said_without_the_path() {
    let gone = |p: &str| format!("FileNotFoundError: [Errno 2] No such file or directory: '{p}'");
    let mut h = Vec::new();
    for (s, script, path, fixed) in [
        ("a", "report.py --input", "~/exports/s.csv", "~/exports/s.csv"),
        ("b", "convert.py", "~/data/e.jsonl", "\"$HOME/data/e.jsonl\""),
        ("c", "load.py --config", "~/.config/l.toml", "~/.config/l.toml"),
    ] {
        h.push(rec(s, &format!("python3 {script} \"{path}\""), false, &gone(path)));
        h.push(rec(s, &format!("python3 {script} {fixed}"), true, "read 3 lines"));
    }
    let said = accepted(&h);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("where the shell expands it"), "{}", said[0]);
    assert!(said[0].contains("`~/…` (also seen: `\"$HOME/…\"`)"), "{}", said[0]);
    assert!(!said[0].contains("exports"), "{}", said[0]);
}

/// A runner's own options changed (`uv run --with <package>`): one fix whatever package,
/// said through the runner with the failing command; the same shape through `sudo` is
/// learned but blocked (running as root is no lesson to teach).
#[test]
fn a_runners_own_options_are_the_fix_said_through_the_runner() {
    let mut h = Vec::new();
    for (s, m) in [("a", "httpx"), ("b", "rich"), ("c", "httpx")] {
        let says = format!("ModuleNotFoundError: No module named '{m}'");
        h.push(rec(s, "uv run pytest -q", false, &says));
        h.push(rec(s, &format!("uv run --with {m} pytest -q"), true, "3 passed"));
    }
    let said = accepted(&h);
    assert_eq!(
        said,
        vec!["run `pytest` through `uv run --with <value> pytest`".to_string()]
    );

    let mut h = Vec::new();
    for s in ["a", "b", "c"] {
        h.push(rec(s, "npm install -g typescript", false, "npm error code EACCES"));
        h.push(rec(s, "sudo npm install -g typescript", true, "added 1 package"));
    }
    let out = run_pipeline(&h, &LearnConfig::default());
    let reasons: Vec<&str> = out.candidates.iter().map(|l| l.rule.reason.as_str()).collect();
    assert_eq!(
        reasons,
        vec!["blocked_by_safety"],
        "{:?}",
        out.candidates[0].rule.directive
    );
}

/// `sudo: command not found` before several programs (a container that runs as root): one
/// class, the wrapper's, whichever program it was to run; the fix is the command without it,
/// and the rule is shown for each program seen.
#[test]
fn sudo_missing_before_several_programs_is_one_lesson() {
    let missing = "bash: line 1: sudo: command not found";
    let mut h = Vec::new();
    for (s, cmd) in [
        ("a", "make install PREFIX=$HOME/.local"),
        ("b", "chown -R 1000:1000 data"),
        ("c", "chmod 600 ~/.ssh/deploy_key"),
    ] {
        h.push(rec(s, &format!("sudo {cmd}"), false, missing));
        h.push(rec(s, cmd, true, ""));
    }
    let out = run_pipeline(&h, &LearnConfig::default());
    let rule = out
        .candidates
        .iter()
        .find(|l| l.rule.accepted == Some(true))
        .expect("accepted");
    assert_eq!(
        rule.rule.directive,
        "run the command again without `sudo` in front of it"
    );
    assert!(rule.rule.trigger.starts_with("`sudo` fails"), "{}", rule.rule.trigger);
    assert_eq!(rule.rule.domains, vec!["chmod", "chown", "make"]);
}

/// Each session installed another package (`npm install ./vendor/a-2.0.0.tgz`, …): one kind
/// of change, every word of it different. Said as placeholders (`<value> <file>`) it told the
/// agent nothing; it is said as the retries ran.
#[test]
fn a_change_whose_every_word_differed_is_said_as_run() {
    let says = "npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree";
    let mut h = Vec::new();
    for (s, fix) in [
        ("a", "npm install ./vendor/alpha-lite-2.1.0.tgz"),
        ("b", "npm install file:vendor/beta-lite-3.3.0.tgz"),
        ("c", "npm install ./vendor/gamma-lite-7.8.5.tgz"),
    ] {
        h.push(rec(s, "npm install", false, says));
        h.push(rec(s, fix, true, "added 2 packages"));
    }
    let accepted = accepted(&h);
    assert_eq!(accepted.len(), 1, "{accepted:#?}");
    assert!(!accepted[0].contains("<value>"), "{}", accepted[0]);
    assert!(
        accepted[0].contains("`npm install ./vendor/gamma-lite-7.8.5.tgz`"),
        "{}",
        accepted[0]
    );
    assert!(
        accepted[0].contains(
            "(also seen: `npm install ./vendor/alpha-lite-2.1.0.tgz`, `npm install file:vendor/beta-lite-3.3.0.tgz`)"
        ),
        "{}",
        accepted[0]
    );
}
