//! A trigger's text compiled once, at the moment its rule is sealed, so a failure hook
//! with 200 standing rules matches them without re-deriving any of them.
//!
//! Turning a trigger's prose into a [`TriggerSpec`] runs the signature masks (a dozen
//! regexes) and the anchor extractor over its text and normalises its backticked
//! command: measured at 3.7M instructions for the 40 rules of one domain, a fifth of a
//! fail-streak failure. None of it depends on the failure, only the vocabulary lookup
//! does, so the vocabulary-free part is stored with the rule (optional `compiled`
//! field, formats.md §3 keeps its shape) and covered by the rule's seal: a compiled form
//! that does not belong to the sealed text cannot be slipped in beside it.

use crate::learn::matching::matcher::{failure_terms, TriggerSpec, Vocab};
use serde::{Deserialize, Serialize};

/// The vocabulary-free part of a trigger spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompiledTrigger {
    /// The trigger text after the signature masks.
    pub masked: String,
    /// The command label (`cmd domain action`) whose terms are not failure terms.
    pub label: String,
    pub domain: String,
    pub action: String,
    pub anchors: Vec<String>,
    /// A trigger of several texts (`` `cc` fails with "A" or "B" ``): each compiled on its
    /// own ([`alternatives`]), so a failure is scored against the text it says. Optional in
    /// the stored form: absent for a trigger of one text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<CompiledTrigger>,
}

/// The joint between the texts of a trigger of several texts.
pub const OR: &str = "\" or \"";

/// The texts of a trigger that names several (`` `cc` fails with "A" or "B" ``, as
/// [`crate::learn::propose::one_program`] writes it), each as a trigger of its own, its
/// text unquoted so its words are terms (a quoted text is masked whole): `` `cc` fails
/// with A ``. Empty for any other trigger.
pub fn alternatives(trigger: &str) -> Vec<String> {
    let Some((head, texts)) = trigger.split_once(" fails with \"") else {
        return Vec::new();
    };
    let Some(texts) = texts.strip_suffix('"') else {
        return Vec::new();
    };
    let parts: Vec<&str> = texts.split(OR).collect();
    if parts.len() < 2 || !head.starts_with('`') {
        return Vec::new();
    }
    parts.iter().map(|t| format!("{head} fails with {t}")).collect()
}

/// Compiles a trigger: anchors come from the text itself, domain/action from the first
/// backticked command or the given domain.
pub fn compile(trigger: &str, domain: &str) -> CompiledTrigger {
    let cmd = trigger.split('`').nth(1).unwrap_or("");
    let norm = crate::learn::text::command_norm::normalize(cmd);
    let (d, a) = if !cmd.is_empty() && crate::learn::text::program_family::same_domain(domain, norm.domain()) {
        (norm.domain().to_string(), norm.action().to_string())
    } else {
        (domain.to_string(), String::new())
    };
    CompiledTrigger {
        masked: crate::learn::text::signature::mask_line(trigger),
        label: format!("{cmd} {d} {a}"),
        domain: d,
        action: a,
        anchors: crate::learn::text::signature::anchors(trigger),
        alternatives: alternatives(trigger).iter().map(|t| compile(t, domain)).collect(),
    }
}

impl CompiledTrigger {
    /// The spec in this vocabulary: only term lookups, no masks, no parsing.
    pub fn spec(&self, vocab: &mut Vocab) -> TriggerSpec {
        let terms = vocab.query(&self.masked);
        let label = vocab.query(&self.label);
        TriggerSpec {
            // A stored domain from before its program joined a family scores as the family.
            domain: crate::learn::text::program_family::domain_of(&self.domain),
            action: self.action.clone(),
            anchors: self.anchors.clone(),
            actions: Vec::new(),
            failure_terms: failure_terms(&terms, &label),
            alternatives: self.alternatives.iter().map(|a| a.spec(vocab)).collect(),
            terms,
            domains: Vec::new(),
        }
    }
}

/// Builds a trigger spec from free text (an imported rule, an extractor's proposal).
pub fn spec_from_text(trigger: &str, domain: &str, vocab: &mut Vocab) -> TriggerSpec {
    compile(trigger, domain).spec(vocab)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::matching::matcher::{record_text, score, RecordView, DEFAULT_THRESHOLD};
    use crate::learn::text::command_norm::normalize;
    use crate::learn::text::signature::signature;

    const NFF: &str = " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:o/r.git'\nhint: Updates were rejected because the remote contains work that you do not\n";

    #[test]
    fn score_is_bounded() {
        let mut vocab = Vocab::default();
        let spec = spec_from_text("`git push` is rejected as non-fast-forward", "git", &mut vocab);
        let n = normalize("git push");
        let s = signature(NFF);
        let t = vocab.add_doc(&record_text(&n, &s));
        let v = RecordView::new(&n, &s, t, false);
        let x = score(&spec, &v, &vocab.idf());
        assert!((0.0..=1.0).contains(&x) && x >= DEFAULT_THRESHOLD, "{x}");
    }

    #[test]
    fn a_stored_compiled_form_scores_exactly_as_the_text() {
        let trigger = "`cargo build` fails with error[E0432]: unresolved import `crate::foo` in src/lib.rs";
        let stored: CompiledTrigger =
            serde_json::from_str(&serde_json::to_string(&compile(trigger, "cargo")).unwrap()).unwrap();
        let n = normalize("cargo build --release");
        let s = signature("error[E0432]: unresolved import `crate::foo`\n --> src/lib.rs:3:5\n");
        let mut vocab = Vocab::default();
        let t = vocab.add_doc(&record_text(&n, &s));
        let v = RecordView::new(&n, &s, t, false);
        let from_text = spec_from_text(trigger, "cargo", &mut vocab);
        let from_store = stored.spec(&mut vocab);
        assert_eq!(from_text.terms, from_store.terms);
        assert_eq!(from_text.failure_terms, from_store.failure_terms);
        assert_eq!(from_text.anchors, from_store.anchors);
        assert!(!from_store.anchors.is_empty(), "the error code is an anchor");
        let idf = vocab.idf();
        assert_eq!(score(&from_text, &v, &idf), score(&from_store, &v, &idf));
        assert!(score(&from_store, &v, &idf) > 0.0);
    }

    /// A trigger of several texts compiles each on its own, and the stored form keeps
    /// them (absent from a trigger of one text, so older rules read the same).
    #[test]
    fn a_trigger_of_several_texts_keeps_each_text() {
        let two = "`cc` fails with \"error: c++ style comments are not allowed in iso c90\" or \"error: <q> loop initial declarations are only allowed in c99 or c11 mode\"";
        assert_eq!(
            alternatives(two),
            vec![
                "`cc` fails with error: c++ style comments are not allowed in iso c90",
                "`cc` fails with error: <q> loop initial declarations are only allowed in c99 or c11 mode",
            ]
        );
        let stored: CompiledTrigger =
            serde_json::from_str(&serde_json::to_string(&compile(two, "gcc")).unwrap()).unwrap();
        assert_eq!(stored, compile(two, "gcc"));
        assert_eq!(stored.alternatives.len(), 2);
        assert!(
            stored.alternatives[0].masked.contains("comments"),
            "{:?}",
            stored.alternatives[0]
        );
        let one = "`cc` fails with \"error: c++ style comments are not allowed in iso c90\"";
        assert!(alternatives(one).is_empty());
        assert!(!serde_json::to_string(&compile(one, "gcc"))
            .unwrap()
            .contains("alternatives"));
    }

    /// A rule learned on `gcc` fires on the same failure met through `cc` or a versioned
    /// `clang-15`: the program family is the domain on both sides (command_norm), so the
    /// matcher needs no family of its own and costs nothing more.
    #[test]
    fn a_rule_of_one_spelling_of_a_program_fires_on_another() {
        const LIBM: &str = "/usr/bin/ld: /tmp/ccStliE3.o: in function `main':\ncalc.c:(.text+0x50): undefined reference to `pow'\ncollect2: error: ld returned 1 exit status\n";
        let trigger = "`gcc` fails with undefined reference";
        let scored = |cmd: &str| {
            let mut vocab = Vocab::default();
            let (n, s) = (normalize(cmd), signature(LIBM));
            let t = vocab.add_doc(&record_text(&n, &s));
            let v = RecordView::new(&n, &s, t, false);
            let spec = spec_from_text(trigger, "", &mut vocab);
            score(&spec, &v, &vocab.idf())
        };
        let own = scored("gcc -O2 -o calc calc.c");
        assert!(own >= DEFAULT_THRESHOLD, "{own}");
        for cmd in ["cc -o calc calc.c", "clang-15 -o calc calc.c", "/usr/bin/gcc-12 calc.c"] {
            assert!((scored(cmd) - own).abs() < 1e-9, "{cmd}: {} vs {own}", scored(cmd));
        }
        // Another program meeting the same text is only the text, not the command.
        assert!(scored("make calc") < own - 0.1, "{} vs {own}", scored("make calc"));
    }
}
