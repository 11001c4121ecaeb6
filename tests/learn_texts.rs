//! One cause in several texts of one program, end to end through the binaries: `fable rules
//! extract` learns one rule said as both texts (docs/generalisation.md §52), stores each text
//! compiled under the seal, and the failure hook shows it for either text and not for another
//! failure of the program.

mod isolated;

use serde_json::{json, Value};
use std::path::Path;

const FOR_LOOP: &str = "src/sum.c:4:5: error: 'for' loop initial declarations are only allowed in C99 or C11 mode\n    4 |     for (int i = 0; i < 4; i++) s += i;\n";
const COMMENT: &str =
    "main.c:3:16: error: C++ style comments are not allowed in ISO C90\n    3 |     int s = 5; // the answer\n";
const UNDEFINED: &str = "/usr/bin/ld: /tmp/cc94sCw9.o: in function `main':\nmain.c:(.text+0x31): undefined reference to `total'\ncollect2: error: ld returned 1 exit status\n";

/// Four sessions, two of each text, each fixed by giving `-std` another value; sealed
/// into the project's evidence as a user vouches for a log.
fn project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join(".fable")).unwrap();
    let mut lines = Vec::new();
    for (s, (from, to, text)) in [
        ("c89", "c99", FOR_LOOP),
        ("c90", "c11", COMMENT),
        ("c89", "gnu99", FOR_LOOP),
        ("c89", "c99", COMMENT),
    ]
    .iter()
    .enumerate()
    {
        for (k, (cmd, ok, tail)) in [
            (format!("gcc -std={from} -o app s{s}.c"), false, *text),
            (format!("gcc -std={to} -o app s{s}.c"), true, ""),
        ]
        .iter()
        .enumerate()
        {
            lines.push(
                json!({"v":1,"ts":format!("2026-12-02T12:{:02}:{:02}.000Z", s, k),"session":format!("s{s}"),
                    "cwd":"/w","cmd":cmd,"exit": if *ok {0} else {1},"ok":ok,"tail":tail})
                .to_string(),
            );
        }
    }
    std::fs::write(d.path().join("history.jsonl"), lines.join("\n") + "\n").unwrap();
    isolated::seal_import(&d.path().join(".home"), d.path(), "history.jsonl");
    d
}

use isolated::fable_json as fable;

/// The failure hook's answer to `gcc` failing with `text` in `dir`.
fn failure_feedback(dir: &Path, text: &str) -> String {
    isolated::failure_hook(dir, "gcc -std=c89 -o tool tool.c", text)
}

#[test]
fn a_rule_of_two_texts_is_shown_for_either_and_for_nothing_else() {
    let d = project();
    fable(d.path(), &["rules", "extract", "--json"]);
    let rules: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join(".fable/rules.json")).unwrap()).unwrap();
    let promoted: Vec<&Value> = rules
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "promoted")
        .collect();
    assert_eq!(promoted.len(), 1, "{rules:#}");
    let r = promoted[0];
    let trigger = r["trigger"].as_str().unwrap();
    assert!(
        trigger.contains("loop initial declarations") && trigger.contains("c++ style comments"),
        "{r:#}"
    );
    assert_eq!(r["compiled"]["alternatives"].as_array().map(Vec::len), Some(2), "{r:#}");
    let id = r["id"].as_str().unwrap();
    for text in [COMMENT, FOR_LOOP] {
        let said = failure_feedback(d.path(), text);
        assert!(said.contains(&format!("Standing rule {id} applies")), "{text}: {said}");
    }
    let said = failure_feedback(d.path(), UNDEFINED);
    assert!(!said.contains("Standing rule"), "{said}");
}
