//! `fable status` and `fable evidence show` say what the gate says of each record: an edit
//! is an edit (not `ERR exit ?`), a piped failing run whose summary shows a failure is
//! FAIL (not ok), a run that tested nothing is `none`, and the summary shown is every
//! test binary summed (not the doc-tests' closing "0 passed").

mod common_discipline;
use common_discipline::*;
use serde_json::json;

#[test]
fn status_and_evidence_show_use_the_gates_verdict() {
    let p = Proj::new();
    let root = p.root.to_string_lossy().into_owned();
    // A Write edit.
    let edit = json!({"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Write","cwd":root,
        "tool_input":{"file_path": format!("{root}/a.rs"),"content":"x"},"tool_response":{"success":true}});
    p.hook("fable-evidence", edit);
    // A piped failing cargo test: exit 0 through `tail`, its summary says 1 failed.
    p.ran(
        "cargo test 2>&1 | tail -5",
        "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s\n",
    );
    // A passing cargo test whose last line is the doc-tests' "0 passed".
    p.ran("cargo test", "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s\n\n   Doc-tests p\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.0s\n");
    p.ran("cargo test --help", "Usage: cargo test [OPTIONS]\n");
    let show = stdout(&p.cli(&["evidence", "show"]));
    let lines: Vec<&str> = show.lines().collect();
    assert_eq!(lines.len(), 4, "{show}");
    assert!(
        lines[0].contains(" edit ") && lines[0].contains("(edit)"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains(" FAIL ") && lines[1].contains("2 passed, 1 failed"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].contains(" ok ") && lines[2].contains("3 passed, 0 failed"),
        "{}",
        lines[2]
    );
    assert!(lines[3].contains(" none "), "{}", lines[3]);
    let st = stdout(&p.cli(&["status"]));
    assert!(!st.contains("ERR"), "{st}");
    assert!(
        st.contains("edit") && st.contains("FAIL") && st.contains("none"),
        "{st}"
    );
}
