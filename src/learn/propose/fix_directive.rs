//! The directive of one fix group: what the supporting sessions did, in words and as
//! shell — a listing then a substitute, another program, a flag dropped, fix steps, or a
//! variant retry — with placeholders where the sessions differed ([`render`]).
//!
//! Why apart from [`crate::learn::propose::candidates`]: clustering decides *which* sessions are one
//! lesson; this decides how that lesson is said, and must never copy one session's private
//! values (its branch, its crate folder) into a standing rule.

use crate::learn::history::episodes::{Episode, FixStep, Prepared};
use crate::learn::history::recovery_form::{EXPAND, UNWRAPPED};
use crate::learn::propose::directive::{DirectiveAction, DirectiveSource};
use crate::learn::propose::render;
use crate::learn::propose::render::quote_cmd;
use crate::learn::text::retry_context::VIA;

/// The words of one step of each episode of the group (`pick`: its fix verb, its look),
/// the most recent episode's first, as the sessions typed them.
fn step_spellings<'a>(
    episodes: &'a [Episode],
    eps: &[usize],
    last_ei: usize,
    prep: &'a Prepared,
    pick: impl Fn(&'a Episode) -> Option<&'a FixStep>,
) -> Vec<&'a [String]> {
    std::iter::once(&episodes[last_ei])
        .chain(eps.iter().filter(|&&ei| ei != last_ei).map(|&ei| &episodes[ei]))
        .filter_map(pick)
        .filter_map(|st| {
            prep.norms[st.idx]
                .segments
                .iter()
                .find(|g| g.text() == st.text)
                .map(|g| g.words.as_slice())
        })
        .collect()
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
    let last_ei = crate::learn::propose::written_input::reference(episodes, eps, last_ei);
    let last = &episodes[last_ei];
    let retry = quote_cmd(label);
    let retry_text = last
        .retry_idx
        .and_then(|k| prep.retry_of(last.fail_idx, k).map(|s| s.text()))
        .unwrap_or_default();
    if last.converted && last.steps.is_empty() {
        let text = crate::learn::propose::written_input::inline_directive(episodes, eps, &retry, prep);
        return (text, DirectiveSource::Fix, vec![retry_text], None);
    }
    if let Some(v) = &last.verb {
        // Said as the group's sessions share it: `git remote set-url <value> <file>`.
        let spellings = step_spellings(episodes, eps, last_ei, prep, |e| e.verb.as_deref());
        let failed = prep.failing(last.fail_idx).map(|s| s.label()).unwrap_or_default();
        if last.unwrapped {
            // The payload most sessions ran is said (`cargo test`), the others named;
            // the reference is a spelling of the most common length (most recent first).
            let mut spellings = spellings.clone();
            render::most_common_length_first(&mut spellings);
            let toks = render::anti_unify(&spellings);
            let (toks, others) = render::most_common_words(&spellings, toks, 1);
            let also: Vec<String> = others.iter().map(|(_, w)| quote_cmd(w)).collect();
            let also = render::also_said(&also);
            return (
                format!(
                    "run what the missing {} subcommand wraps directly: {}{also}",
                    quote_cmd(label.split(' ').next().unwrap_or(label)),
                    quote_cmd(&render::render(&toks))
                ),
                DirectiveSource::Substitution,
                vec![v.text.clone()],
                None,
            );
        }
        if last.where_named {
            // Said without any session's folder: the failure names it each time.
            let verb = prep.norms[v.idx]
                .segments
                .iter()
                .find(|g| g.text() == v.text)
                .map(|g| g.label())
                .unwrap_or_else(|| v.text.clone());
            // `cd` first, then the sessions' own directory flags (the folder masked).
            let cd = format!("cd <dir> && {verb}");
            let flagged = render::folder_flag_spellings(&spellings)
                .into_iter()
                .filter(|w| *w != cd);
            let ways: Vec<String> = std::iter::once(cd.clone())
                .chain(flagged)
                .map(|w| quote_cmd(&w))
                .collect();
            return (
                format!(
                    "the folder the failure names is already there: use {} in it instead of {} ({})",
                    quote_cmd(&verb),
                    quote_cmd(&failed),
                    ways.join(" or ")
                ),
                DirectiveSource::Substitution,
                vec![v.text.clone()],
                None,
            );
        }
        let said = render::render(&render::anti_unify(&spellings));
        (
            format!("use {} instead of {}", quote_cmd(&said), quote_cmd(&failed)),
            DirectiveSource::Substitution,
            vec![v.text.clone()],
            None,
        )
    } else if let Some(l) = &last.listing {
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
            {
                let (said, seen) = crate::learn::propose::environment_said::environment_said(episodes, eps, p);
                format!("use {said} instead of {}{seen}", quote_cmd(&last.raw_program))
            },
            DirectiveSource::Substitution,
            vec![retry_text],
            None,
        )
    } else if !last.variant.is_empty()
        && last.variant.iter().all(|w| {
            w.strip_prefix("without:")
                .is_some_and(|o| !o.is_empty() && !o.starts_with('-'))
        })
    {
        // An operand run without ([`crate::learn::history::narrowed`]): which one is the
        // session's own; the lesson is the one the error named.
        let example = quote_cmd(last.variant[0].trim_start_matches("without:"));
        let why = if last.unsafe_fix == Some(crate::learn::history::narrowed::DROPPED_WHAT_FAILED) {
            "the operand its findings were in"
        } else {
            "the operand the error named (it is not there)"
        };
        (
            format!("retry {retry} without {why}: here {example}"),
            DirectiveSource::Variant,
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
    } else if !last.variant.is_empty() && last.variant.iter().all(|w| w.starts_with("quote:")) {
        let q: Vec<&str> = last.variant.iter().map(|w| w.trim_start_matches("quote:")).collect();
        let text = format!(
            "retry {retry} with the pattern quoted so the shell does not expand it: {}",
            q.join(" ")
        );
        (text, DirectiveSource::Variant, vec![retry_text], None)
    } else if let Some(w) = last
        .variant
        .iter()
        .find_map(|w| w.strip_prefix(UNWRAPPED))
        .filter(|_| last.variant.len() == 1)
    {
        // The wrapper dropped: said as that, the command as the sessions ran it.
        let text = format!("run the command again without `{w}` in front of it");
        (text, DirectiveSource::Variant, vec![retry_text], None)
    } else if !last.variant.is_empty() && last.variant.iter().all(|w| w.starts_with(VIA)) {
        let text = crate::learn::propose::runner_said::runner_said(episodes, eps, last, &retry, label);
        (text, DirectiveSource::Variant, vec![retry_text], None)
    } else if !last.variant.is_empty() && last.variant.iter().all(|w| w.starts_with(EXPAND)) {
        let text = crate::learn::propose::expansion_said::expansion_said(episodes, eps, last, &retry);
        (text, DirectiveSource::Variant, vec![retry_text], None)
    } else if !last.variant.is_empty() && last.variant.iter().all(|w| w.starts_with("spaced:")) {
        // The shell split a path with a space: said as the quoting, never the folder.
        let text = format!(
            "quote the path given to `cd` (it holds a space), then retry {retry}: {}",
            quote_cmd(&format!("cd \"<dir>\" && {label}"))
        );
        (text, DirectiveSource::Variant, vec![retry_text], None)
    } else if let Some(look) = last
        .looked
        .as_ref()
        .filter(|_| last.variant.iter().all(|w| w.starts_with("lookup:")))
    {
        // The look said as the group's sessions spelt it (placeholders where they
        // differ), the name never: each session used the one its look printed.
        let spellings = step_spellings(episodes, eps, last_ei, prep, |e| e.looked.as_deref());
        let said = render::render(&render::anti_unify(&spellings));
        (
            format!(
                "look the name up with {}, then retry {retry} with the name it printed in place of the one the error named",
                quote_cmd(&said)
            ),
            DirectiveSource::Variant,
            vec![look.text.clone(), retry_text],
            None,
        )
    } else if !last.variant.is_empty()
        && last
            .variant
            .iter()
            .all(|w| w.starts_with("insert:") || w.starts_with("rewrite:"))
    {
        // What the group's sessions put into the operand: the most common text is said
        // (equals: the most recent), the others named; never the operands themselves.
        // Said as the operand it became, the name a placeholder (`origin/<name>`), when
        // every session's edit shows so; else as the text put in.
        let recovered = || {
            std::iter::once(last_ei)
                .chain(eps.iter().copied())
                .map(|ei| &episodes[ei])
                .filter(|e| e.outcome == crate::learn::history::episodes::Outcome::Recovered)
        };
        let shaped = recovered().all(|e| operand_shape(e, prep).is_some());
        let texts = if shaped {
            ranked(episodes, eps, last_ei, |e| operand_shape(e, prep).into_iter().collect())
        } else {
            inserted_texts(episodes, eps, last_ei)
        };
        let said = |t: &str| {
            let pieces: Vec<&str> = t.split('…').collect();
            match pieces.as_slice() {
                _ if shaped => format!("its operand as {}", quote_cmd(t)),
                [one] => format!("{} inserted into its operand", quote_cmd(one)),
                _ => format!("part of its operand enclosed in {}", quote_cmd(t)),
            }
        };
        let mut also: Vec<String> = texts.iter().skip(1).map(|t| quote_cmd(t)).collect();
        // Sessions that restated the script: said as such, never their script (their names).
        let restated = recovered().any(|e| e.variant.iter().any(|w| w.starts_with("rewrite:")));
        if restated && !texts.is_empty() {
            also.push("the script restated another way".to_string());
        }
        let also = render::also_said(&also);
        let text = match texts.first() {
            Some(t) => format!("retry {retry} with {}{also}", said(t)),
            None => format!("retry {retry} with its script operand restated another way"),
        };
        // As a change of words: a session that also added a flag of its own agrees.
        let act = DirectiveAction::AddFlags(last.variant.clone());
        (text, DirectiveSource::Variant, vec![retry_text], Some(act))
    } else if !last.variant.is_empty() && last.variant.iter().all(|w| w.starts_with("joined:")) {
        // The shell split a name at its blank: said as the quoting, never the name.
        let text = format!(
            "quote the name that holds a blank as one word, then retry {retry}: {}",
            quote_cmd(&format!("{label} \"<name with a blank>\""))
        );
        (text, DirectiveSource::Variant, vec![retry_text], None)
    } else if !last.variant.is_empty() && last.variant.iter().all(|w| w.starts_with("escaped:")) {
        // A name read as an option: said as the two ways, never the name.
        let text = format!(
            "a file name that starts with `-` is read as an option: put `--` before it (or write it `./<name>`), then retry {retry}: {}",
            quote_cmd(&format!("{label} -- <name>"))
        );
        (text, DirectiveSource::Variant, vec![retry_text], None)
    } else if !last.variant.is_empty()
        && eps
            .iter()
            .map(|&ei| &episodes[ei])
            .filter(|e| {
                e.outcome == crate::learn::history::episodes::Outcome::Recovered && e.fix_key() == last.fix_key()
            })
            .all(|e| e.variant.iter().all(|w| w.starts_with("value:")))
    {
        // Another value for a flag: said as the sessions gave it, most common first.
        let flag = last.variant[0].trim_start_matches("value:");
        let values = ranked(episodes, eps, last_ei, |e| value_given(e, prep).into_iter().collect());
        let also: Vec<String> = values.iter().skip(1).map(|v| quote_cmd(v)).collect();
        let also = render::also_said(&also);
        let text = match values.first() {
            Some(v) => format!(
                "retry {retry} with another value for {}: {}{also}",
                quote_cmd(flag),
                quote_cmd(v)
            ),
            None => format!("retry {retry} with another value for {}", quote_cmd(flag)),
        };
        let act = DirectiveAction::AddFlags(last.variant.clone());
        (text, DirectiveSource::Variant, vec![retry_text], Some(act))
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
                let typed: Vec<Vec<String>> = group
                    .iter()
                    .filter_map(|e| {
                        let st = &e.steps[i];
                        prep.norms[st.idx]
                            .segments
                            .iter()
                            .find(|g| g.text() == st.text)
                            .map(|g| {
                                let mut v = render::as_typed(&st.raw, &g.words);
                                v.extend(g.redirects.iter().cloned());
                                v
                            })
                    })
                    .collect();
                let spellings: Vec<&[String]> = typed.iter().map(Vec::as_slice).collect();
                // Said as most sessions spelt it (`mkdir -p <dir>` three times against
                // `mkdir out` once), never the newest session's alone; a step other
                // sessions ran with another program is named beside it.
                let said = |mut g: Vec<&[String]>| {
                    render::most_common_length_first(&mut g);
                    quote_cmd(&render::render(&render::anti_unify(&g)))
                };
                // A conversion is said in its most common shape, the others named.
                let grouped = if last.converted {
                    render::by_shape(&spellings)
                } else {
                    render::by_program(&spellings)
                };
                let mut groups = grouped.into_iter().map(said);
                let first = groups.next().unwrap_or_default();
                let also: Vec<String> = groups.collect();
                format!("{first}{}", render::also_said(&also))
            })
            .collect::<Vec<_>>()
            .join(", then ");
        let s0 = &last.steps[0];
        let act = DirectiveAction::Step {
            domain: s0.domain.clone(),
            action: s0.action.clone(),
            flags: s0.flags.iter().filter(|f| !f.contains('=')).cloned().collect(),
        };
        let then = crate::learn::propose::written_input::then_retry(&group, &retry, prep);
        (
            format!("run {listed}, then {then}"),
            DirectiveSource::Fix,
            steps,
            Some(act),
        )
    } else {
        // The added words as the group's sessions share them: `--manifest-path
        // <dir>/Cargo.toml`, `-C <dir>`, `cd <dir>` — never one session's folder. Sessions
        // spelling the fix another way (`cd X` against `--manifest-path X/Cargo.toml`, one
        // key) do not align word by word: the most common spelling is said, and what the
        // others show varies is a placeholder in it too.
        let lead: Vec<String> = label.split(' ').map(str::to_string).collect();
        let words = |e: &Episode| -> Vec<String> {
            let mut v = lead.clone();
            for w in &e.variant {
                match w.strip_prefix("cd ") {
                    Some(dir) => v.extend(["cd".to_string(), dir.to_string()]),
                    // A flag's value changed, beside sessions that added flags (one kind:
                    // options changed): said as the value given, `-std=gnu99`.
                    None if w.starts_with("value:") => match value_given(e, prep) {
                        Some(given) => v.extend(given.split(' ').map(str::to_string)),
                        None => v.push(w.trim_start_matches("value:").to_string()),
                    },
                    // A long option takes its value either way: said apart (`--output f`),
                    // unless the failing command gave it apart already (`--since -7d` →
                    // `--since=-7d`: the value joined is the change, said so).
                    None => match w.split_once('=') {
                        Some((f, val))
                            if f.starts_with("--")
                                && !val.is_empty()
                                && !prep.failing(e.fail_idx).is_some_and(|s| s.words.iter().any(|x| x == f)) =>
                        {
                            v.extend([f.to_string(), val.to_string()]);
                        }
                        _ => v.push(w.clone()),
                    },
                }
            }
            v
        };
        // `-a --` is `-a` (`--` ends the options), `--output=f` is `--output f`.
        let shape = |v: &[String]| -> Vec<String> {
            let flagged = v.iter().any(|w| w.starts_with('-') && w != "--");
            v.iter()
                .filter(|w| (w.starts_with('-') && !(flagged && *w == "--")) || *w == "cd")
                .map(|w| match w.split_once('=') {
                    Some((f, _)) if f.starts_with("--") => f.to_string(),
                    _ => w.clone(),
                })
                .collect()
        };
        let key = last.fix_key();
        let group: Vec<Vec<String>> = std::iter::once(last)
            .chain(
                eps.iter()
                    .filter(|&&ei| ei != last_ei)
                    .map(|&ei| &episodes[ei])
                    .filter(|e| e.outcome == crate::learn::history::episodes::Outcome::Recovered && e.fix_key() == key),
            )
            .map(words)
            .collect();
        let count = |sh: &[String]| group.iter().filter(|g| shape(g) == sh).count();
        let best = group
            .iter()
            .max_by_key(|g| count(&shape(g)))
            .cloned()
            .unwrap_or_default();
        let mut spelled: Vec<&[String]> = vec![best.as_slice()];
        // Every other session of the best shape, the ones that typed it identically
        // included: three sessions typing `run` are three, not one alone.
        let at = group.iter().position(|g| *g == best);
        spelled.extend(
            group
                .iter()
                .enumerate()
                .filter(|(i, g)| Some(*i) != at && shape(g) == shape(&best))
                .map(|(_, g)| g.as_slice()),
        );
        let mut toks = render::anti_unify(&spelled);
        if spelled.len() == 1 && group.len() > 1 {
            // Alone in its spelling: its values are one session's.
            toks = render::holes_for_values(&best, toks);
        }
        // Where the sessions differ but most of them typed one word (`npm run` twice,
        // `npm run-script` once), that word is the fix's common spelling: said, and the
        // others named, rather than a placeholder that says nothing.
        let (toks, spelt_otherwise) = render::most_common_words(&spelled, toks, lead.len());
        let flags = render::render(toks.get(lead.len()..).unwrap_or_default());
        let cmd = last
            .retry_idx
            .and_then(|k| prep.retry_of(last.fail_idx, k).map(|s| s.text()))
            .unwrap_or_default();
        let named = last.sets_named && key == format!("variant:{}", crate::learn::history::fix_key::NAMED);
        // A form the episode wrote beside typed words (`insert:-script` of `run-script`
        // beside `--`) is no shell: the retry is said as it was run.
        let formed = best.iter().any(|w| {
            crate::learn::history::fix_key::typed_in(w) != Some(w.as_str())
                && w != crate::learn::history::swallowed::SWALLOWED
        });
        let said = match flags.strip_prefix("cd ") {
            _ if formed && !cmd.is_empty() => format!("retry {retry} as {}", quote_cmd(&cmd)),
            // Each session set the variable its own failure named: said as that kind.
            _ if named => format!("retry {retry} with the variable the error names set: `<NAME>=<value>`"),
            // A longer limit for `timeout`: said as the sessions gave it, never a placeholder.
            _ if key == "variant:timeout <v>" => {
                let limits: Vec<String> = group.iter().filter_map(|g| g.get(lead.len()).cloned()).collect();
                let first = limits.first().cloned().unwrap_or_default();
                let others: Vec<String> = limits
                    .iter()
                    .skip(1)
                    .filter(|l| **l != first)
                    .map(|l| quote_cmd(l))
                    .collect();
                let also = render::also_said(&others);
                format!(
                    "retry {retry} with a longer time limit: {}{also}",
                    quote_cmd(&format!("{first} {label}"))
                )
            }
            // The directory was the problem: said as the shell runs it.
            Some(dir) => format!(
                "run {retry} in its directory: {}",
                quote_cmd(&format!("cd {dir} && {label}"))
            ),
            // Every word of the change differed between the sessions (`npm install
            // ./vendor/react-lite-2.1.0.tgz`, `npm i file:vendor/eslint-lite-8.57.0.tgz`):
            // placeholders alone (`<value> <file>`) say nothing, the retries as run do.
            None if render::only_holes(&flags) && !cmd.is_empty() => {
                let mut others: Vec<String> = Vec::new();
                for &ei in eps.iter().filter(|&&ei| ei != last_ei) {
                    let e = &episodes[ei];
                    let ran = e.retry_idx.and_then(|k| prep.retry_of(e.fail_idx, k).map(|s| s.text()));
                    if let Some(ran) = ran.filter(|r| *r != cmd && !others.contains(&quote_cmd(r))) {
                        others.push(quote_cmd(&ran));
                    }
                }
                others.truncate(2);
                format!(
                    "retry {retry} with the operands this failure needs, as here: {}{}",
                    quote_cmd(&cmd),
                    render::also_said(&others)
                )
            }
            None => format!(
                "retry {retry} with {}{}",
                quote_cmd(&flags),
                render::also_seen(&group, &best, shape, &spelt_otherwise)
            ),
        };
        (
            said,
            DirectiveSource::Variant,
            vec![cmd],
            Some(DirectiveAction::AddFlags(last.variant.clone())),
        )
    }
}

/// The texts a fix group's sessions inserted into the failing operand (`insert:` variants),
/// most common first, equals by recency (the most recent recovered session first); never
/// empty (`last_ei` is in the group).
fn inserted_texts(episodes: &[Episode], eps: &[usize], last_ei: usize) -> Vec<String> {
    ranked(episodes, eps, last_ei, |e| {
        e.variant
            .iter()
            .filter_map(|w| w.strip_prefix("insert:"))
            .map(str::to_string)
            .collect()
    })
}

/// What each recovered session of the group says (`key`), most common first, equals by
/// recency (the most recent recovered session first).
fn ranked(episodes: &[Episode], eps: &[usize], last_ei: usize, key: impl Fn(&Episode) -> Vec<String>) -> Vec<String> {
    let mut seen: Vec<(usize, usize, String)> = Vec::new();
    let order = std::iter::once(last_ei).chain(eps.iter().rev().copied().filter(|&ei| ei != last_ei));
    for (rank, ei) in order.enumerate() {
        let e = &episodes[ei];
        if e.outcome != crate::learn::history::episodes::Outcome::Recovered {
            continue;
        }
        for t in key(e) {
            match seen.iter_mut().find(|s| s.2 == t) {
                Some(s) => s.0 += 1,
                None => seen.push((1, rank, t)),
            }
        }
    }
    seen.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    seen.into_iter().map(|s| s.2).collect()
}

/// The flag and the value a session's retry gave it (`--indent 4`, `-f1`, `--date=iso8601`),
/// where its failure had another ([`crate::learn::history::operand_edit::changed_value_at`]).
fn value_given(e: &Episode, prep: &Prepared) -> Option<String> {
    let (fail, retry) = crate::learn::propose::written_input::fail_and_retry(e, prep)?;
    let i = crate::learn::history::operand_edit::changed_value_at(&fail.words, &retry.words)?;
    let v = &retry.words[i];
    Some(if v.starts_with('-') {
        v.clone()
    } else {
        format!("{} {v}", retry.words[i - 1])
    })
}

/// The operand a session's retry edited by insertion, said with the failing operand's
/// name as a placeholder: `origin/<name>` for `feat/x` → `origin/feat/x`, `.[].<name>` for
/// `.name` → `.[].name`, `map(.<name>)` for `.env` → `map(.env)`. `None` when the failing
/// operand is a query or script (`n = bob` → `n = 'bob'`: said as the text put in). The
/// names kept on either side of the insertion are masked: `<name>..origin/<name>`.
fn operand_shape(e: &Episode, prep: &Prepared) -> Option<String> {
    let (fail, retry) = crate::learn::propose::written_input::fail_and_retry(e, prep)?;
    let gone: Vec<&String> = fail
        .words
        .iter()
        .skip(1)
        .filter(|w| !w.is_empty() && !w.starts_with('-') && !retry.words.contains(w))
        .collect();
    let new: Vec<&String> = retry
        .words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-') && !fail.words.contains(w))
        .collect();
    let ([old], [new]) = (gone.as_slice(), new.as_slice()) else {
        return None;
    };
    if old.contains(char::is_whitespace) || new.contains(char::is_whitespace) {
        return None;
    }
    // The kept text on either side of what was put in, its names masked.
    let (o, n): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
    let (p, s) = crate::learn::history::edit_span::shared_ends(&o, &n);
    let mask = |t: &[char]| -> String {
        let mut out = String::new();
        let mut in_name = false;
        for &c in t {
            if c.is_alphanumeric() || matches!(c, '_' | '-' | '/') {
                if !in_name {
                    out.push_str("<name>");
                }
                in_name = true;
            } else {
                out.push(c);
                in_name = false;
            }
        }
        out
    };
    let (mid_old, mid_new) = (&o[p..o.len() - s], &n[p..n.len() - s]);
    let middle = if mid_old.is_empty() {
        mid_new.iter().collect::<String>()
    } else {
        // The kept middle inside the new one (`map(` … `)` around `.env`).
        let (mo, mn): (String, String) = (mid_old.iter().collect(), mid_new.iter().collect());
        let (before, after) = mn.split_once(mo.as_str())?;
        format!("{before}{}{after}", mask(mid_old))
    };
    Some(format!("{}{middle}{}", mask(&o[..p]), mask(&o[o.len() - s..])))
}

/// The step(s) some supporting sessions inserted by hand where the directive's flag does
/// it for them ([`crate::learn::propose::agreement::step_the_flag_does`]), named as the
/// other way of the same fix, with the step that undid it after the retry when one did
/// (`git stash pop` after `git stash`): ` (or: `git stash` before it, `git stash pop`
/// after)`. Empty when no session took that way.
pub fn steps_instead(g: &crate::learn::propose::directive::Supporters) -> String {
    let (Some(DirectiveAction::AddFlags(v)), prep) = (g.act, g.prep) else {
        return String::new();
    };
    let Some(flag) = v.iter().find(|w| w.starts_with('-')) else {
        return String::new();
    };
    let mut said: Vec<String> = Vec::new();
    for e in g.others() {
        let Some(st) = crate::learn::propose::agreement::step_the_flag_does(e, flag) else {
            continue;
        };
        let Some(words) = prep.norms[st.idx]
            .segments
            .iter()
            .find(|g| g.text() == st.text)
            .map(|g| g.words.clone())
        else {
            continue;
        };
        // The same program's step that continues the inserted one (`git stash pop`),
        // among the few records after the retry.
        let undone = e.retry_idx.and_then(|r| {
            let (slot, pos) = prep.position[r];
            prep.sessions[slot].1.iter().skip(pos + 1).take(3).find_map(|&k| {
                prep.norms[k]
                    .segments
                    .iter()
                    .find(|g| g.words.len() > words.len() && g.words.starts_with(&words))
                    .map(|g| g.words.clone())
            })
        });
        let text = match undone {
            Some(u) => format!(
                "{} before it, {} after",
                quote_cmd(&render::quote_words(&words)),
                quote_cmd(&render::quote_words(&u))
            ),
            None => format!("{} before it", quote_cmd(&render::quote_words(&words))),
        };
        if !said.contains(&text) {
            said.push(text);
        }
    }
    if said.is_empty() {
        return String::new();
    }
    format!(" (or: {})", said.join("; "))
}

#[cfg(test)]
mod tests {
    use crate::learn::propose::render;

    fn w(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn a_step_run_through_its_launcher_is_said_as_typed() {
        assert_eq!(
            render::as_typed(&w("python3"), &w("venv .venv")),
            w("python3 -m venv .venv")
        );
        assert_eq!(render::as_typed(&w("npx"), &w("tsc --noEmit")), w("npx tsc --noEmit"));
        // The program itself, or a line of several commands: the words as they are.
        assert_eq!(
            render::as_typed(&w("python3"), &w("python3 setup.py")),
            w("python3 setup.py")
        );
        assert_eq!(render::as_typed(&w("mkdir"), &w("mkdir out")), w("mkdir out"));
        assert_eq!(render::as_typed(&w("python3 venv"), &w("venv .venv")), w("venv .venv"));
    }
}
