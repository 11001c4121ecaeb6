//! The anchor gate of [`super::ranked_in`] (a rule whose anchors share none of the
//! failure's is passed over before its spec is built) against ranking every rule: the
//! same rules, scores and order, on the corpora's failures and triggers.

use super::*;
use crate::learn::history::episodes::tests::rec;
use crate::learn::matching::compiled_trigger::compile;
use crate::learn::store::rules::tests::rule;

/// Every failing record (`cmd`, `tail`, `ok: false`) and every `trigger` text of the corpora.
fn corpus_failures_and_triggers() -> (Vec<Record>, Vec<String>) {
    let (mut failures, mut triggers) = (Vec::new(), Vec::new());
    crate::learn::text::mask_engine::corpus_objects(|o| {
        if let (Some(cmd), Some(tail), Some(false)) = (
            o.get("cmd").and_then(|x| x.as_str()),
            o.get("tail").and_then(|x| x.as_str()),
            o.get("ok").and_then(|x| x.as_bool()),
        ) {
            failures.push(rec("s", cmd, false, tail));
        }
        if let Some(t) = o.get("trigger").and_then(|x| x.as_str()) {
            triggers.push(t.to_string());
        }
    });
    (failures, triggers)
}

/// Rules as the learner writes them (trigger from a failure's signature, its anchors) and
/// from the corpora's triggers, in every shape `ranked_in` reads: own anchors with a
/// compiled trigger, compiled anchors only, no compiled trigger (an older seal), an
/// action, a signature, the empty domain.
fn rules_from(failures: &[Record], triggers: &[String]) -> Vec<Rule> {
    let mut texts: Vec<(String, String)> = Vec::new();
    for f in failures.iter().step_by(7).take(90) {
        let n = normalize(&f.cmd);
        let s = signature(&f.tail);
        let t = format!("`{}` fails with {}", f.cmd, s.template);
        texts.push((n.domain().to_string(), t));
    }
    for t in triggers.iter().step_by(5).take(60) {
        let cmd = t.split('`').nth(1).unwrap_or("");
        texts.push((normalize(cmd).domain().to_string(), t.clone()));
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, (domain, trigger))| {
            let mut r = rule(&format!("g{i}"), "promoted");
            r.id = format!("R-{i}");
            r.domain = if i % 11 == 4 { String::new() } else { domain };
            let c = compile(&trigger, &r.domain);
            r.anchors = match i % 4 {
                0 | 1 => c.anchors.clone(),
                2 => Vec::new(),
                _ => vec!["EOTHER".into(), c.anchors.first().cloned().unwrap_or_default()],
            };
            r.compiled = (i % 5 != 3).then_some(c);
            r.action = (i % 6 == 1).then(|| "push".to_string());
            r.signature = (i % 9 == 2).then(|| "unable to resolve <q>".to_string());
            r.trigger = trigger;
            r
        })
        .collect()
}

#[test]
fn the_anchor_gate_keeps_every_rule_that_reaches_the_threshold() {
    let (failures, triggers) = corpus_failures_and_triggers();
    assert!(
        failures.len() > 300 && triggers.len() > 50,
        "{} {}",
        failures.len(),
        triggers.len()
    );
    let rules = rules_from(&failures, &triggers);
    let (mut matched, mut passed_over, mut compared) = (0usize, 0usize, 0usize);
    for f in failures.iter().step_by(3).take(400) {
        let norm = normalize(&f.cmd);
        let sig = signature(&f.tail);
        // Every rule's score, ungated (a threshold no score is below).
        let all = ranked_in(&rules, &norm, &sig, f64::NEG_INFINITY, false, NamesHere::all());
        for t in [0.2, NO_ANCHOR_CAP, NO_ANCHOR_CAP + 1e-9, 0.45, 0.55] {
            let want: Vec<(usize, f64)> = all.iter().copied().filter(|(_, s)| *s >= t).collect();
            assert_eq!(
                ranked_in(&rules, &norm, &sig, t, true, NamesHere::all()),
                want,
                "{} / {t}",
                f.cmd
            );
            compared += 1;
            if t == 0.45 {
                matched += want.len();
                passed_over += rules
                    .iter()
                    .filter(|r| r.domain.is_empty() || r.domain == norm.domain())
                    .filter(|r| {
                        crate::learn::store::rule_index::match_anchors(
                            &r.anchors,
                            r.compiled.as_ref().map(|c| c.anchors.as_slice()),
                        )
                        .is_some_and(|a| anchors_rule_out(a, &sig.anchors, t))
                    })
                    .count();
            }
        }
    }
    // Not vacuous: rules matched, and rules were passed over.
    assert!(
        matched > 50 && passed_over > 500,
        "{matched} matched, {passed_over} passed over"
    );
    eprintln!("{compared} rankings, {matched} matches at 0.45, {passed_over} rules passed over");
}

/// The rules a history makes acceptable, learned with the default settings.
fn accepted_rules(h: &[Record]) -> Vec<Rule> {
    crate::learn::pipeline::run_pipeline(h, &crate::learn::judge::config::LearnConfig::default())
        .candidates
        .into_iter()
        .filter(|l| l.rule.accepted == Some(true))
        .map(|l| l.rule)
        .collect()
}

/// `rules` ranked at a failure of `cmd` saying `tail`, run in the folder `dir`.
fn ranked_in_folder(rules: &[Rule], dir: &std::path::Path, cmd: &str, tail: &str) -> Vec<(usize, f64)> {
    let mut f = rec("z", cmd, false, tail);
    f.cwd = dir.to_string_lossy().into_owned();
    ranked(rules, &f, crate::learn::matching::matcher::DEFAULT_THRESHOLD)
}

/// A rule learned from names split at a blank (`git add My Notes.md` → pathspec 'My'),
/// whose fix quotes the name whole, reaches a failure only where a split name exists on
/// disk: before, its masked text scored 0.96 on `git add missing.txt` and told the agent
/// to quote a name that holds no blank. Learned from four real-shaped sessions; the
/// failure's folder is a real temporary one.
#[test]
fn a_rule_that_joins_a_split_name_applies_only_where_one_exists() {
    let spec = |w: &str| format!("fatal: pathspec '{w}' did not match any files");
    let mut h = Vec::new();
    for (s, q) in [
        ("a", "'My Notes.md'"),
        ("b", "\"My Notes.md\""),
        ("c", "My\\ Notes.md"),
        ("d", "'My Notes.md'"),
    ] {
        h.push(rec(s, "git add My Notes.md", false, &spec("My")));
        h.push(rec(s, &format!("git add {q}"), true, ""));
    }
    let joined = accepted_rules(&h);
    assert!(
        joined.len() == 1 && crate::learn::matching::split_name::needs_split_name(joined[0].key.as_deref()),
        "{joined:#?}"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Old Report.md"), "x").unwrap();
    let at = |cmd: &str, w: &str| ranked_in_folder(&joined, dir.path(), cmd, &spec(w));
    assert_eq!(at("git add Old Report.md", "Old").len(), 1, "a split name that exists");
    assert!(at("git add missing.txt", "missing.txt").is_empty(), "one whole name");
    assert!(at("git add New Plan.md", "New").is_empty(), "pieces of no name on disk");
}

/// A rule learned from file names that start with `-` (`cat -notes.txt` → "invalid option
/// -- 'o'"), whose fix keeps such a name a name, reaches a failure only where such a file
/// is: before, its masked text scored 0.94 on `cat -z notes.txt`, a flag mistyped, and told
/// the agent its option was a file name.
#[test]
fn a_rule_that_keeps_a_dash_name_a_name_applies_only_where_one_exists() {
    let bad = |p: &str, o: char| format!("{p}: invalid option -- '{o}'\nTry '{p} --help' for more information.");
    let h = vec![
        rec("a", "cat -notes.txt", false, &bad("cat", 'o')),
        rec("a", "cat -- -notes.txt", true, "a line"),
        rec("b", "rm -v2.log", false, &bad("rm", '2')),
        rec("b", "rm ./-v2.log", true, ""),
        rec("c", "wc -l -x.csv", false, &bad("wc", 'x')),
        rec("c", "wc -l ./-x.csv", true, "1 ./-x.csv"),
        rec("d", "cat -draft.md", false, &bad("cat", 'r')),
        rec("d", "cat ./-draft.md", true, "a line"),
        rec("e", "rm -v5.log", false, &bad("rm", '5')),
        rec("e", "rm -- -v5.log", true, ""),
    ];
    let dashed = accepted_rules(&h);
    assert!(
        dashed.len() == 1 && crate::learn::matching::dash_name::needs_dash_name(dashed[0].key.as_deref()),
        "{dashed:#?}"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("-plan.txt"), "x").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    let at = |cmd: &str, o: char| ranked_in_folder(&dashed, dir.path(), cmd, &bad(cmd.split(' ').next().unwrap(), o));
    assert_eq!(at("cat -plan.txt", 'p').len(), 1, "a dash name that exists");
    assert!(at("cat -z notes.txt", 'z').is_empty(), "a flag mistyped");
    assert!(at("wc -q notes.txt", 'q').is_empty(), "a flag mistyped");
}
