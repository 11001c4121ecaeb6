//! A name looked up, then used; a name retyped (a typo); and a change aimed at what the
//! error named.
//!
//! Why its own concept (issue 34, item 1, "a renamed operand that an intervening step
//! produced"): `sqlite3 app.db "SELECT * FROM user"` fails with `no such table: user`, the
//! session runs `sqlite3 app.db .tables` (which prints `orders  tags  users`) and then the
//! query with `users`. The retry changed one name after a look at the data: the fix is
//! "look the name up, then use the one it printed", whatever the name was (`user` → `users`, `Users_tbl` → `users`, `tag` → `tags`). Keyed as one
//! kind of change (`lookup:<v>`), never by the session's table.
//!
//! And the evidence such a change carries: when the words the retry changed are words the
//! failure's own text named (`no such table: user`, `Cannot index array with string
//! "name"`, `ambiguous argument 'feat/x'`), the fix acted on what the error pointed at — a
//! mechanism the log shows, like a step naming the failing script
//! ([`crate::learn::propose::necessity::targets_subject`]).

/// The words of a text, split at anything but letters, digits, `_`, `-`, `.` and `/`, with
/// leading and trailing dots dropped (`.name` is `name`; `users.json` stays whole).
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')))
        .map(|t| t.trim_matches('.'))
        .filter(|t| !t.is_empty())
}

/// A failing operand whose text is a query or script (`"SELECT * FROM user LIMIT 5"`,
/// `-c 'import x'`): it holds a blank.
fn is_script(w: &str) -> bool {
    w.contains(char::is_whitespace)
}

/// Is `later` a *look* on the failing command's data rather than its retry? For a program
/// without subcommands run on the same subject (`sqlite3 app.db …`), a query or script
/// operand of the failure replaced by words that share none of its words (`.tables` for
/// `SELECT * FROM user LIMIT 5`), or that ask another thing (another first word) sharing
/// fewer than half of them (`.schema tasks` for `SELECT name, due_date FROM tasks`: only the
/// table's name): another question asked of the same data, not the failing one asked again. (`SELECT * FROM users LIMIT 5` shares most of its
/// words: a retry with one name changed.)
pub fn asks_another_question(fail_words: &[String], later_words: &[String]) -> bool {
    let scripts: Vec<&String> = fail_words
        .iter()
        .skip(1)
        .filter(|w| is_script(w) && !later_words.contains(w))
        .collect();
    if scripts.is_empty() {
        return false;
    }
    let later: Vec<&str> = later_words
        .iter()
        .skip(1)
        .filter(|w| !fail_words.contains(w))
        .flat_map(|w| tokens(w))
        .collect();
    // What the script asks, its first word (`SELECT`, `.schema`): another one, with a name
    // or two in common, is another question about the same thing.
    let verb = |w: &str| tokens(w).next().map(str::to_ascii_lowercase);
    let asked = later_words
        .iter()
        .skip(1)
        .find(|w| !fail_words.contains(w))
        .and_then(|w| verb(w));
    scripts.iter().all(|s| {
        let own: std::collections::BTreeSet<&str> = tokens(s).collect();
        let shared = own.iter().filter(|t| later.contains(t)).count();
        shared == 0 || (shared * 2 < own.len() && verb(s) != asked)
    })
}

/// The one name the retry put in place of another, after a *look* between the failure and
/// the retry: `users` for `SELECT * FROM user` → `SELECT * FROM users` after `sqlite3 app.db
/// .tables`. `looks`: the records between that only looked (another question asked of the
/// same data, [`asks_another_question`], or a read-only command). Returns (the name, the
/// first look). `None` when the retry changed more than one word, put in a word the
/// failing command already had or a short one (under 3 characters), or nothing looked
/// between (then a name changed by a letter or two is a retyped typo, [`retyped`]).
///
/// What the look printed is not asked: the compact history the hook learns from keeps no
/// output of a passing command ([`crate::learn::history::records`]), and the learner must
/// learn the same from it as from the records.
pub fn looked_up(fail_cmd: &str, retry_cmd: &str, looks: impl IntoIterator<Item = usize>) -> Option<(String, usize)> {
    let before: Vec<&str> = tokens(fail_cmd).collect();
    let mut new = tokens(retry_cmd).filter(|t| !before.contains(t));
    let name = new.next()?;
    // A flag is no name a look printed (`-q` → `-oq`: an option added to a cluster).
    if new.next().is_some() || name.chars().count() < 3 || name.starts_with('-') {
        return None;
    }
    // Exactly one failing word is gone: the name replaced.
    let after: Vec<&str> = tokens(retry_cmd).collect();
    if before.iter().filter(|t| !after.contains(t)).count() != 1 {
        return None;
    }
    looks.into_iter().next().map(|k| (name.to_string(), k))
}

/// Did the retry only *retype* one operand word — a typo corrected (`feat/xd` →
/// `feat/dx`, `fat/ex` → `feat/ex`)? The one failing operand gone and the one word put in
/// its place differ by at most two letter or digit edits, a letter among them (digits
/// alone are a value chosen: `2018` → `2021`), and no punctuation (a quote, a
/// slash or a bracket put in is a change of form, [`crate::learn::history::recovery_form::inserted`]),
/// both 3 characters or more. What the session knew when it retyped is not in the log: such
/// a session neither supports nor contests a fix (issue 34, item 2). A name a step
/// printed is a lookup instead ([`looked_up`], asked first).
pub fn retyped(fail_words: &[String], retry_words: &[String], added: &[String]) -> bool {
    let new: Vec<&String> = added.iter().filter(|w| !w.starts_with('-')).collect();
    let gone: Vec<&String> = fail_words
        .iter()
        .skip(1)
        .filter(|w| !w.is_empty() && !w.starts_with('-') && !retry_words.contains(w))
        .collect();
    let ([new], [old]) = (new.as_slice(), gone.as_slice()) else {
        return false;
    };
    if added.len() != 1 || old.chars().count() < 3 || new.chars().count() < 3 {
        return false;
    }
    let (o, n): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
    let (p, s) = crate::learn::history::edit_span::shared_ends(&o, &n);
    let changed: Vec<char> = o[p..o.len() - s].iter().chain(&n[p..n.len() - s]).copied().collect();
    // A letter changed: digits alone are a value chosen (`2018` → `2021`, a port), not a typo.
    changed.iter().all(|c| c.is_alphanumeric())
        && changed.iter().any(|c| c.is_alphabetic())
        && crate::learn::text::intent::edit_distance(old, new, 2) <= 2
}

/// Did the retry change words the failure's text named? A failing operand gone from the
/// retry, one of whose words (3 characters or more, not the program's) the error output
/// holds as a word: `user` in `no such table: user`, `name` in `Cannot index array with
/// string "name"`, `feat/x` in `ambiguous argument 'feat/x'`.
pub fn changes_what_failed_named(fail_words: &[String], retry_words: &[String], fail_text: &str) -> bool {
    let program = fail_words.first().map(String::as_str).unwrap_or("");
    let said: Vec<&str> = tokens(fail_text).collect();
    fail_words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-') && !retry_words.contains(w))
        .flat_map(|w| tokens(w))
        .any(|t| t.chars().count() >= 3 && t != program && said.contains(&t))
}

/// Does a fix step name a path the failure's text holds whole: an operand with a `/` or
/// a `.` in it, three characters or more, that the text has with no path character on
/// either side (`settings.json` in "open 'settings.json'", `config/local.json` in "Could
/// not open config/local.json: No such file")? The step acted on what the error pointed
/// at, a mechanism the log shows. Not a name inside a longer one (`a.json` in
/// `data.json`), not a flag.
pub fn step_names_what_failed_named(step_text: &str, fail_text: &str) -> bool {
    let paths = || {
        step_text
            .split_whitespace()
            .skip(1)
            .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
            .filter(|w| !w.starts_with('-') && w.chars().count() >= 3 && (w.contains('/') || w.contains('.')))
    };
    paths().any(|w| crate::learn::text::names::holds_whole(fail_text, w, false)) || {
        // A path to the very thing the failure quoted by name: `cargo add --path ../mathx`
        // after "unresolved import `mathx`", `npm install ./packages/utils` after "Cannot
        // find module '@acme/utils'". Its last part is the name.
        let last = |w: &str| w.trim_end_matches('/').rsplit('/').next().unwrap_or("").to_string();
        let named: Vec<String> = crate::learn::text::names::quoted_words(fail_text)
            .into_iter()
            .map(last)
            .filter(|n| n.chars().count() >= 3)
            .collect();
        paths().filter(|w| w.contains('/')).any(|w| named.contains(&last(w)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        crate::learn::text::command_norm::normalize(s)
            .primary()
            .unwrap()
            .words
            .clone()
    }

    #[test]
    fn a_step_on_the_path_the_failure_named() {
        let open = "Error: ENOENT: no such file or directory, open 'settings.json'";
        assert!(step_names_what_failed_named(
            "cp settings.example.json settings.json",
            open
        ));
        let jq = "jq: error: Could not open config/local.json: No such file or directory";
        assert!(step_names_what_failed_named(
            "cp -n config/local.example.json config/local.json",
            jq
        ));
        let py = "FileNotFoundError: [Errno 2] No such file or directory: 'out/report.csv'.";
        assert!(step_names_what_failed_named("mkdir -p out && touch out/report.csv", py));
        // A path to what the failure quoted by name.
        let rust = "error[E0432]: unresolved import `mathx`\n --> src/main.rs:1:5";
        assert!(step_names_what_failed_named("cargo add --path ../mathx", rust));
        assert!(step_names_what_failed_named("cargo add mathx --path ../mathx/", rust));
        let node = "Error: Cannot find module '@acme/utils'";
        assert!(step_names_what_failed_named("npm install ./packages/utils", node));
        // The quoted name bare (no path), another path, a name too short: none.
        assert!(!step_names_what_failed_named("cargo add mathx", rust));
        assert!(!step_names_what_failed_named("cargo add --path ../mathlib", rust));
        assert!(!step_names_what_failed_named("cp a/x b/y", "cannot stat 'x'"));
        // A name inside a longer one, a word without a path's shape, a flag: none.
        assert!(!step_names_what_failed_named("cp x.example a.json", "open 'data.json'"));
        assert!(!step_names_what_failed_named(
            "git fetch origin",
            "fatal: 'origin' does not appear"
        ));
        assert!(!step_names_what_failed_named(
            "npm install --prefix=.json",
            "open '.json'"
        ));
    }

    #[test]
    fn a_look_at_the_same_data_is_no_retry() {
        let fail = w(r#"sqlite3 app.db "SELECT * FROM user LIMIT 5""#);
        assert!(asks_another_question(&fail, &w("sqlite3 app.db .tables")));
        assert!(asks_another_question(&fail, &w("sqlite3 app.db .schema")));
        // Only the table's name shared: another question about it.
        let due = w(r#"sqlite3 -header todo.db "SELECT name, due_date FROM tasks""#);
        assert!(asks_another_question(&due, &w("sqlite3 todo.db '.schema tasks'")));
        // One name changed in the query: the retry.
        assert!(!asks_another_question(
            &fail,
            &w(r#"sqlite3 app.db "SELECT * FROM users LIMIT 5""#)
        ));
        assert!(!asks_another_question(
            &fail,
            &w(r#"sqlite3 app.db "SELECT id FROM users""#)
        ));
        // No query in the failing command: nothing to replace.
        assert!(!asks_another_question(&w("jq .name a.json"), &w("jq keys a.json")));
    }

    #[test]
    fn a_name_changed_after_a_look_is_looked_up() {
        let fail = r#"sqlite3 app.db "SELECT * FROM user LIMIT 5""#;
        assert_eq!(
            looked_up(fail, r#"sqlite3 app.db "SELECT * FROM users LIMIT 5""#, [7]),
            Some(("users".to_string(), 7))
        );
        assert_eq!(
            looked_up(
                r#"sqlite3 app.db "SELECT * FROM Users_tbl LIMIT 5""#,
                r#"sqlite3 app.db "SELECT * FROM users LIMIT 5""#,
                [7, 9]
            ),
            Some(("users".to_string(), 7)),
            "replaced by another word altogether"
        );
        // No look between; two words changed; a word added, none gone; nothing changed.
        assert_eq!(
            looked_up(fail, r#"sqlite3 app.db "SELECT * FROM users LIMIT 5""#, []),
            None
        );
        assert_eq!(
            looked_up(fail, r#"sqlite3 app.db "SELECT id FROM users LIMIT 5""#, [7]),
            None
        );
        assert_eq!(
            looked_up(fail, r#"sqlite3 app.db "SELECT * FROM user LIMIT 5" users"#, [7]),
            None
        );
        assert_eq!(
            looked_up(fail, r#"sqlite3 app.db "SELECT * FROM user LIMIT 5""#, [7]),
            None
        );
    }

    #[test]
    fn a_word_retyped_is_a_typo_not_a_fix() {
        let t = |f: &str, r: &str| {
            let (f, r) = (w(f), w(r));
            let added: Vec<String> = r.iter().filter(|x| !f.contains(x)).cloned().collect();
            retyped(&f, &r, &added)
        };
        assert!(t("git log feat/xd", "git log feat/dx"), "letters swapped");
        assert!(t("git log fat/ex", "git log feat/ex"), "a letter put back");
        assert!(t("npm run biuld", "npm run build"));
        // A change of form, a longer edit, a flag added, a short word: no typo.
        assert!(!t("git log feat/x", "git log origin/feat/x"));
        assert!(!t(
            "sqlite3 a.db \"SELECT 1 WHERE n = bob\"",
            "sqlite3 a.db \"SELECT 1 WHERE n = 'bob'\""
        ));
        assert!(!t("git checkout master", "git checkout main"));
        assert!(!t("npm run biuld", "npm run -s build"));
        assert!(!t("cp ab out", "cp abc out"));
        assert!(
            !t("rustc --edition 2018 a.rs", "rustc --edition 2021 a.rs"),
            "a value chosen"
        );
        assert!(!t("curl localhost:8080/x", "curl localhost:8081/x"));
    }

    #[test]
    fn a_change_to_what_the_error_named_is_aimed_at_it() {
        let t = |f: &str, r: &str, e: &str| changes_what_failed_named(&w(f), &w(r), e);
        assert!(t(
            r#"sqlite3 a.db "SELECT * FROM user""#,
            r#"sqlite3 a.db "SELECT * FROM users""#,
            "Error: in prepare, no such table: user"
        ));
        assert!(t(
            "jq '.name' u.json",
            "jq '.[].name' u.json",
            r#"jq: error (at u.json:1): Cannot index array with string "name""#
        ));
        assert!(t(
            "git log feat/x",
            "git log origin/feat/x",
            "fatal: ambiguous argument 'feat/x'"
        ));
        // The error names something else; a flag added with the operands kept.
        assert!(!t(
            "cp dir out",
            "cp -r dir2 out",
            "cp: -r not specified; omitting directory 'x'"
        ));
        assert!(!t(
            "cp dir out",
            "cp -r dir out",
            "cp: -r not specified; omitting directory 'dir'"
        ));
    }
}
