//! `fable lint` (ancestor test_guards: Lint) and `fable status`.

mod common_discipline;
use common_discipline::*;
use serde_json::Value;

fn clean(p: &Proj) {
    p.write("docs/SPEC.md", "# Spec\nDecision: use serde [measured]\n");
    p.ledger("- [ ] 1. loader — acceptance: `cargo test loader`\n- [x] 0. scaffold -- evidence: `cargo build` -> ok, 0 warnings\n- [~] 9. docs -- deferred: not this round\n");
}

// ---- ancestor test_guards: Lint (5) ----

#[test]
fn clean_project_exits_zero() {
    let p = Proj::new();
    clean(&p);
    let o = p.cli(&["lint"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("0 finding(s)"));
}

#[test]
fn violations_exit_one_with_exactly_three_findings() {
    let p = Proj::new();
    p.write("docs/SPEC.md", "# Spec without tags\n");
    p.ledger("- [ ] 1. loader\n- [x] 0. scaffold -- evidence: done\n- [~] 9. docs -- deferred: not now\n");
    let o = p.cli(&["lint", "--project", p.root.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    // SPEC without tags, open card without acceptance, closed card without evidence.
    assert_eq!(out.lines().filter(|l| l.starts_with("FINDING")).count(), 3, "{out}");
    assert!(
        out.contains("FINDING  .fable/LEDGER.md:1:") && out.contains("FINDING  docs/SPEC.md:"),
        "{out}"
    );
}

/// Outside a project lint says so and exits 4, as every project command does: a clean
/// exit there would read as "checked, nothing found" (issue 13).
#[test]
fn non_project_is_not_clean() {
    let p = Proj::bare();
    let o = p.cli(&["lint"]);
    assert_eq!(code(&o), 4);
    assert!(stderr(&o).contains("not a fable project"), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
}

#[test]
fn deferral_without_reason_is_flagged() {
    let p = Proj::new();
    clean(&p);
    p.ledger("- [~] 9. docs\n- [~] 8. more -- deferred: x\n");
    let o = p.cli(&["lint", "--json"]);
    assert_eq!(code(&o), 1);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = v["findings"].as_array().unwrap();
    assert_eq!(f.len(), 2, "{v}");
    assert!(f.iter().all(|x| x["message"].as_str().unwrap().contains("deferred")));
}

#[test]
fn missing_ledger_and_spec_are_findings() {
    let p = Proj::new();
    let o = p.cli(&["lint"]);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o).lines().filter(|l| l.starts_with("FINDING")).count(), 2);
}

// ---- fable status ----

#[test]
fn status_json_reports_the_discipline_state() {
    let p = Proj::new();
    p.ledger("MODE: light\nREPLAY: on\n- [ ] 1. a\n- [x] 2. b -- evidence: `pytest -q` -> 3 passed\n- [x] 3. c -- evidence: `make` -> built\n- [~] 4. d -- deferred: later\n");
    p.log(&[("pytest -q", 0, true), ("make", 2, false)]);
    for _ in 0..2 {
        p.hook("fable-fail-streak", failure("st-1", "make", 2));
    }
    let o = p.cli(&["status", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["mode"], "light");
    assert_eq!(v["replay"], true);
    assert_eq!(v["trusted"], false);
    assert_eq!(
        (
            v["cards"]["open"].as_u64(),
            v["cards"]["closed"].as_u64(),
            v["cards"]["deferred"].as_u64()
        ),
        (Some(1), Some(2), Some(1))
    );
    let u = v["uncorroborated"].as_array().unwrap();
    assert_eq!(u.len(), 1);
    assert!(u[0]["message"].as_str().unwrap().contains("`make`"));
    assert_eq!(v["streak"]["count"], 2);
    assert_eq!(v["last"].as_array().unwrap().len(), 2);
    assert_eq!(v["last"][0]["cmd"], "make", "newest first");
}

#[test]
fn status_human_fits_one_screen() {
    let p = Proj::new();
    p.ledger("PAUSED: user asked for a hotfix\n- [ ] 1. a\n");
    for i in 0..20 {
        p.log(&[(&format!("echo {i}"), 0, true)]);
    }
    let o = p.cli(&["status", "--project", p.root.to_str().unwrap()]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    assert!(
        out.contains("PAUSED: user asked for a hotfix") && out.contains("1 open"),
        "{out}"
    );
    assert!(out.lines().count() <= 24, "{out}");
    assert!(out.contains("echo 19") && !out.contains("echo 10"), "{out}");
}

#[test]
fn status_outside_a_project() {
    let p = Proj::bare();
    let o = p.cli(&["status", "--json"]);
    assert_eq!(code(&o), 4);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"], "not_a_project");
    assert_eq!(v["path"], p.root.to_str().unwrap());
}
