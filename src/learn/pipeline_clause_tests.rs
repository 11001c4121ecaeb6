//! One cause met through two programs that frame it differently, through the whole
//! pipeline: the `sqlite3` shell's `Error: in prepare, no such column: x` and Python's
//! `sqlite3.OperationalError: no such column: x` say one clause, and the sessions that
//! applied the missing migration in either are one lesson. (Its own file: the pipeline's
//! tests are at their size limit.)

use crate::learn::history::episodes::tests::rec;
use crate::learn::judge::config::LearnConfig;
use crate::learn::pipeline::run_pipeline;

/// Two `sqlite3` sessions (an unanchored text: two are below its recurrence minimum of
/// three), one Python session, and one Python session that chained the fix and the retry
/// in one line (no source). No program's share stands alone; the clause they share makes
/// them one class, and the migration is learned for both programs.
#[test]
fn one_clause_in_two_programs_frames_is_one_class() {
    let shell = |c: &str| {
        format!("Error: in prepare, no such column: {c}\n  SELECT id, {c} FROM t\n             ^--- error here")
    };
    let python = |c: &str| {
        format!("Traceback (most recent call last):\n  File \"report.py\", line 9, in <module>\nsqlite3.OperationalError: no such column: {c}")
    };
    let mut h = Vec::new();
    for (s, col) in [("a", "email"), ("b", "due_date")] {
        let q = format!("sqlite3 app.db 'SELECT id, {col} FROM t'");
        h.push(rec(s, &q, false, &shell(col)));
        h.push(rec(
            s,
            &format!("sqlite3 app.db < migrations/003_add_{col}.sql"),
            true,
            "",
        ));
        h.push(rec(s, &q, true, "1|n/a"));
    }
    h.push(rec("c", "python3 report.py data/shop.db", false, &python("status")));
    h.push(rec(
        "c",
        "sqlite3 data/shop.db < migrations/003_add_status.sql",
        true,
        "",
    ));
    h.push(rec("c", "python3 report.py data/shop.db", true, "1 alpha"));
    h.push(rec("d", "python3 report.py db/billing.db", false, &python("currency")));
    h.push(rec(
        "d",
        "sqlite3 db/billing.db < migrations/003_add_currency.sql && python3 report.py db/billing.db",
        true,
        "1 alpha",
    ));
    let out = run_pipeline(&h, &LearnConfig::default());
    let r = crate::learn::pipeline_tests::only_accepted(&out);
    assert!(r.trigger.contains("no such column"), "{r:#?}");
    assert!(
        r.directive.contains("sqlite3") && r.directive.contains("migrations/"),
        "{r:#?}"
    );
    assert_eq!(r.domains, vec!["python".to_string(), "sqlite".to_string()]);
}

/// One program's two texts of one message, one inside the other's frame (`Error: file is
/// not a database`; `Error: in prepare, file is not a database (26)`), two sessions each
/// (each below the recurrence minimum of an unanchored text): one class, one rule.
#[test]
fn one_text_inside_another_of_the_same_program_is_one_class() {
    let mut h = Vec::new();
    for (s, text, db) in [
        ("a", "Error: in prepare, file is not a database (26)", "one"),
        ("b", "Error: in prepare, file is not a database (26)", "two"),
        ("c", "Error: file is not a database", "three"),
        ("d", "Error: file is not a database", "four"),
    ] {
        let q = |f: &str| format!("sqlite3 {f} 'SELECT count(*) FROM t'");
        h.push(rec(s, &q(&format!("{db}.sql")), false, text));
        h.push(rec(s, &format!("sqlite3 {db}.db < {db}.sql"), true, ""));
        h.push(rec(s, &q(&format!("{db}.db")), true, "3"));
    }
    let out = run_pipeline(&h, &LearnConfig::default());
    let r = crate::learn::pipeline_tests::only_accepted(&out);
    assert!(r.trigger.contains("database"), "{r:#?}");
    assert_eq!(r.support.len(), 4, "{r:#?}");
}
