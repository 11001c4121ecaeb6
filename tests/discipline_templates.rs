//! The templates: their frontmatter, their required content, and that a fresh ledger made
//! from the template is in the "starting" state (no cards, so the stop is not blocked).

mod common_discipline;
use common_discipline::*;

const LEDGER: &str = include_str!("../templates/LEDGER.template.md");
const SKILL: &str = include_str!("../templates/SKILL.md");
const VERIFIER: &str = include_str!("../templates/VERIFIER_PROMPT.md");
const SPEC: &str = include_str!("../templates/SPEC.template.md");
const PROGRESS: &str = include_str!("../templates/PROGRESS.template.md");

#[test]
fn fresh_ledger_from_the_template_has_no_cards_or_directives() {
    let l = fable::discipline::ledger::parse(LEDGER);
    assert!(l.cards.is_empty(), "{:?}", l.cards);
    assert_eq!(l.mode, fable::discipline::ledger::Mode::Full);
    assert!(!l.replay && !l.is_paused() && l.tier.is_none() && l.routing.is_none());
    let p = Proj::new();
    p.ledger(LEDGER);
    assert_eq!(stop_code(&p.stop()), 0);
    // A card appended under "## Cards" counts.
    p.ledger(&format!("{LEDGER}- [ ] 1. real card — acceptance: `make test`\n"));
    assert_eq!(stop_code(&p.stop()), 2);
    p.ledger(&format!("{LEDGER}MODE: light\n- [ ] 1. real card\n"));
    assert_eq!(stop_code(&p.stop()), 0, "a MODE line appended by the user takes effect");
}

#[test]
fn skill_frontmatter_and_content() {
    assert!(SKILL.starts_with("---\nname: fable\ndescription: "));
    for must in [
        "attribution ladder",
        "Harness",
        "Deployment",
        "Product",
        "MODE: light",
        "Information isolation",
        "-- evidence:",
        "-- tried:",
        "PAUSED:",
        "REPLAY: on",
        "fable trust",
    ] {
        assert!(SKILL.contains(must), "SKILL.md lacks {must}");
    }
}

#[test]
fn verifier_prompt_isolates_and_has_a_verdict_format() {
    for must in [
        "only",
        "SPEC excerpt",
        "no expected verdict",
        "at least as strong",
        "different lenses",
        "VERDICT: pass | fail",
        "NOT VERIFIED",
    ] {
        assert!(VERIFIER.contains(must), "VERIFIER_PROMPT.md lacks {must}");
    }
}

#[test]
fn spec_and_progress_templates_lint_as_expected() {
    assert!(fable::discipline::lint::SOURCE_TAGS.iter().any(|t| SPEC.contains(t)));
    for must in [
        "## Goal",
        "## Approach",
        "## Task cards",
        "Acceptance:",
        "## Decisions log",
    ] {
        assert!(SPEC.contains(must), "{must}");
    }
    for must in ["## Done", "## In flight", "## Decisions", "## Gotchas"] {
        assert!(PROGRESS.contains(must), "{must}");
    }
}
