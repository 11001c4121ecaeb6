//! The claim corpus (`tests/data/claims/phrases.tsv`): success claims in the phrasings
//! agents use, and non-claims (plans, conditions, questions, negations, descriptions,
//! near-misses) that must never ask for a backing run. Prints the false-positive and miss
//! counts with their denominators, and fails on any.

use fable::discipline::claim_phrases::find;
use fable::discipline::claims::Kind;

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Tests => "tests",
        Kind::Build => "build",
        Kind::Lint => "lint",
    }
}

#[test]
fn the_claim_corpus_has_no_false_positives_and_no_misses() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/claims/phrases.tsv")).unwrap();
    let (mut claims, mut nones) = (0, 0);
    let mut false_positives = Vec::new();
    let mut misses = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut cols = line.splitn(3, '\t');
        let (expect, kind, phrase) = (cols.next().unwrap(), cols.next().unwrap(), cols.next().unwrap());
        let found = find(phrase);
        match expect {
            "claim" => {
                claims += 1;
                match &found {
                    Some(c) if kind_name(c.kind) == kind => {}
                    other => misses.push(format!("{phrase:?} -> {other:?} (want {kind})")),
                }
            }
            "none" => {
                nones += 1;
                if let Some(c) = found {
                    false_positives.push(format!("{phrase:?} -> {c:?}"));
                }
            }
            e => panic!("bad expectation {e:?} in {line:?}"),
        }
    }
    println!(
        "claim corpus: {} of {claims} claims found, {} false positives of {nones} non-claims",
        claims - misses.len(),
        false_positives.len()
    );
    assert!(
        claims >= 60 && nones >= 30,
        "the corpus keeps at least 60 claims and 30 non-claims"
    );
    println!("misses:\n{}", misses.join("\n"));
    assert!(
        false_positives.is_empty(),
        "false positives:\n{}",
        false_positives.join("\n")
    );
    assert!(misses.is_empty(), "misses:\n{}", misses.join("\n"));
}
