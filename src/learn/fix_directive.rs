//! The directive of one fix group: what the supporting sessions did, in words and as
//! shell — a listing then a substitute, another program, a flag dropped, fix steps, or a
//! variant retry — with placeholders where the sessions differed ([`render`]).
//!
//! Why apart from [`crate::learn::candidates`]: clustering decides *which* sessions are one
//! lesson; this decides how that lesson is said, and must never copy one session's private
//! values (its branch, its crate folder) into a standing rule.

use crate::evidence::head_chars;
use crate::learn::directive::{DirectiveAction, DirectiveSource};
use crate::learn::episodes::{Episode, Prepared};
use crate::learn::render;

fn quote_cmd(s: &str) -> String {
    format!("`{}`", head_chars(s, 80).replace('`', "'"))
}

/// (directive, source, commands the gates look at, the action directive evidence checks)
/// for the fix group `eps` (episode indices), whose most recent recovered episode is
/// `last_ei`; `label` names the failing command.
pub fn directive_for(
    episodes: &[Episode],
    eps: &[usize],
    last_ei: usize,
    label: &str,
    prep: &Prepared,
) -> (String, DirectiveSource, Vec<String>, Option<DirectiveAction>) {
    let last = &episodes[last_ei];
    let retry = quote_cmd(label);
    let retry_text = last
        .retry_idx
        .and_then(|k| prep.norms[k].primary().map(|s| s.text()))
        .unwrap_or_default();
    if let Some(l) = &last.listing {
        (
            format!(
                "list what exists with {}, then run that instead of retrying {retry}",
                quote_cmd(&l.text)
            ),
            DirectiveSource::Substitution,
            vec![l.text.clone(), retry_text],
            None,
        )
    } else if let Some(p) = &last.substitute {
        (
            format!("use {} instead of {}", quote_cmd(p), quote_cmd(&last.raw_program)),
            DirectiveSource::Substitution,
            vec![retry_text],
            None,
        )
    } else if !last.variant.is_empty() && last.variant.iter().all(|w| w.starts_with("without:")) {
        let dropped: Vec<String> = last
            .variant
            .iter()
            .map(|w| w.trim_start_matches("without:").to_string())
            .collect();
        (
            format!("retry {retry} without {}", quote_cmd(&render::quote_words(&dropped))),
            DirectiveSource::Variant,
            vec![retry_text],
            None,
        )
    } else if !last.steps.is_empty() {
        // The gates see the concrete commands; the directive shows the fix as the
        // group's sessions share it ([`render`]: placeholders where they differ).
        let steps: Vec<String> = last.steps.iter().map(|s| s.text.clone()).collect();
        let group: Vec<&Episode> = std::iter::once(last)
            .chain(
                eps.iter()
                    .rev()
                    .filter(|&&ei| ei != last_ei && episodes[ei].steps.len() == last.steps.len())
                    .map(|&ei| &episodes[ei]),
            )
            .collect();
        let listed = (0..last.steps.len())
            .map(|i| {
                // The step's words as the shell parsed them (quoting removed),
                // looked up in the normalised record rather than stored per step.
                let spellings: Vec<&[String]> = group
                    .iter()
                    .filter_map(|e| {
                        let st = &e.steps[i];
                        prep.norms[st.idx]
                            .segments
                            .iter()
                            .find(|g| g.text() == st.text)
                            .map(|g| g.words.as_slice())
                    })
                    .collect();
                quote_cmd(&render::render(&render::anti_unify(&spellings)))
            })
            .collect::<Vec<_>>()
            .join(", then ");
        let s0 = &last.steps[0];
        let act = DirectiveAction::Step {
            domain: s0.domain.clone(),
            action: s0.action.clone(),
            flags: s0.flags.iter().filter(|f| !f.contains('=')).cloned().collect(),
        };
        (
            format!("run {listed}, then retry {retry}"),
            DirectiveSource::Fix,
            steps,
            Some(act),
        )
    } else {
        let flags = render::quote_words(&last.variant);
        let cmd = last
            .retry_idx
            .and_then(|k| prep.norms[k].primary().map(|s| s.text()))
            .unwrap_or_default();
        (
            format!("retry {retry} with {}", quote_cmd(&flags)),
            DirectiveSource::Variant,
            vec![cmd],
            Some(DirectiveAction::AddFlags(last.variant.clone())),
        )
    }
}
