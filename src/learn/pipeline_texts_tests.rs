//! One cause in several texts of one program, through the whole pipeline: two texts
//! whose every recovery gave one option another value are one class, said as both texts
//! and matched apart ([`crate::learn::propose::one_program`]). (Its own file: the
//! pipeline's tests are at their size limit.)

use crate::evidence::Record;
use crate::learn::history::episodes::tests::rec;
use crate::learn::judge::config::LearnConfig;
use crate::learn::matching::compiled_trigger::spec_from_text;
use crate::learn::matching::matcher::{record_text, score, RecordView, Vocab, DEFAULT_THRESHOLD};
use crate::learn::pipeline::run_pipeline;
use crate::learn::text::command_norm::normalize;
use crate::learn::text::signature::signature;

const FOR_LOOP: &str = "src/sum.c:4:5: error: 'for' loop initial declarations are only allowed in C99 or C11 mode\n    4 |     for (int i = 0; i < 4; i++) s += i;\n";
const COMMENT: &str =
    "main.c:3:16: error: C++ style comments are not allowed in ISO C90\n    3 |     int s = 5; // the answer\n";
const UNDEFINED: &str = "/usr/bin/ld: /tmp/cc94sCw9.o: in function `main':\nmain.c:(.text+0x31): undefined reference to `total'\ncollect2: error: ld returned 1 exit status\n";

/// A session that failed with `text` under `-std=<from>` and passed with `-std=<to>`.
fn session(h: &mut Vec<Record>, s: &str, from: &str, to: &str, text: &str) {
    h.push(rec(s, &format!("gcc -std={from} -o app {s}.c"), false, text));
    h.push(rec(s, &format!("gcc -std={to} -o app {s}.c"), true, ""));
}

/// The accepted rules: (trigger, directive).
fn accepted(h: &[Record]) -> Vec<(String, String)> {
    run_pipeline(h, &LearnConfig::default())
        .candidates
        .into_iter()
        .filter(|l| l.rule.accepted == Some(true))
        .map(|l| (l.rule.trigger, l.rule.directive))
        .collect()
}

/// Does the trigger, as a stored rule compiles it, fire on `gcc` failing with `text`?
fn fires(trigger: &str, text: &str) -> bool {
    let mut vocab = Vocab::default();
    let (n, s) = (normalize("gcc -std=c89 -o tool tool.c"), signature(text));
    let t = vocab.add_doc(&record_text(&n, &s));
    let v = RecordView::new(&n, &s, t, false);
    let spec = spec_from_text(trigger, "gcc", &mut vocab);
    score(&spec, &v, &vocab.idf()) >= DEFAULT_THRESHOLD
}

/// Two sessions of each text, each below the three a changed command needs: alone, each
/// text is `self_resolved` and nothing is learned; one class by the option (`-std`) every
/// recovery changed, one rule said as both texts. Stored, it fires on either text and not
/// on another failure of the program (a link error).
#[test]
fn two_texts_one_option_changed_are_one_rule_said_as_both() {
    let mut h = Vec::new();
    session(&mut h, "a", "c89", "c99", FOR_LOOP);
    session(&mut h, "b", "c90", "c11", COMMENT);
    session(&mut h, "c", "c89", "gnu99", FOR_LOOP);
    session(&mut h, "d", "c89", "c99", COMMENT);
    let rules = accepted(&h);
    assert_eq!(rules.len(), 1, "{rules:#?}");
    let (trigger, directive) = &rules[0];
    assert!(
        trigger.contains("loop initial declarations")
            && trigger.contains("\" or \"")
            && trigger.contains("c++ style comments"),
        "{trigger}"
    );
    assert!(directive.contains("`-std`"), "{directive}");
    assert!(fires(trigger, FOR_LOOP) && fires(trigger, COMMENT), "{trigger}");
    assert!(!fires(trigger, UNDEFINED), "{trigger}");
}

/// A text met once does not join: two sessions of one text and one of another are no
/// class (the second text does not recur), and the first alone is below the minimum.
#[test]
fn a_text_met_once_joins_no_class() {
    let mut h = Vec::new();
    session(&mut h, "a", "c89", "c99", FOR_LOOP);
    session(&mut h, "b", "c89", "c11", FOR_LOOP);
    session(&mut h, "c", "c90", "c99", COMMENT);
    assert!(accepted(&h).is_empty(), "{:#?}", accepted(&h));
}

/// A flag added is no option's value changed: two texts whose recoveries each added a
/// flag (a kind of change any failure may share) stay apart.
#[test]
fn a_flag_added_joins_no_texts() {
    let mut h = Vec::new();
    for (s, text) in [("a", FOR_LOOP), ("b", COMMENT), ("c", FOR_LOOP), ("d", COMMENT)] {
        h.push(rec(s, &format!("gcc -o app {s}.c"), false, text));
        h.push(rec(s, &format!("gcc -Wno-error -o app {s}.c"), true, ""));
    }
    assert!(accepted(&h).is_empty(), "{:#?}", accepted(&h));
}
