//! One cause met through several programs: a class across programs, learned when no
//! program's share stands alone.
//!
//! Why: a failure class is scoped to its program's domain ([`failure_class`]), so the
//! same cause met by `python`, `node` and `jq` (a config file that is not there yet, fixed
//! by copying it from its example), or by `cat`, `rm` and `wc` (a file name that starts
//! with `-`), splits into one cluster per program, each below the recurrence minimum,
//! and nothing is learned from four sessions that did the same thing. Merging the
//! clusters themselves would let `ENOENT` fixed by `cp` in one program contest `ENOENT`
//! fixed by `pip install` in another; so the merge is of *agreeing fixes* only:
//!
//! - the failures say the same thing: they share an anchor (not an environment one, whose
//!   class already spans programs), or their one-line text is the same once each
//!   program's own `prog: ` prefix is dropped (`cat: invalid option -- <q>` and
//!   `wc: invalid option -- <q>`);
//! - every recovery of each member agrees with the reference fix (the member with most
//!   sessions): the same step (`cp <x>.example.json <x>`), the same kind of change
//!   (`--` inserted, a part of an operand quoted);
//! - the members are in two domains or more, and not all of them stand on their own
//!   (counted in source sessions, as the judge counts: a one-shot chain is none). A member
//!   that stands alone joins the class of those that do not (`make -C lib` learned for
//!   `make` also cured `cc`'s "cannot find -lx" once): its own rule is then the same
//!   lesson and is folded into the class's ([`crate::learn::judge::same_lesson`]), so the
//!   agent sees it once. (Until 2026-12-07 a standing member blocked the merge, and the
//!   programs beside it learned nothing: dev5's `cc` sessions.)
//!
//! The merged candidate's domain is empty ("any program": what the hooks already read it
//! as) and its `domains` name the programs it was seen with; replay and the hooks use
//! those. Its contest spans its members' classes: a different fix in any of them counts
//! against it. The members stay candidates of their own (each still `self_resolved`).

use crate::learn::history::episodes::{Episode, Prepared};
use crate::learn::propose::agreement::agrees;
use crate::learn::propose::candidates::{group_key, Candidate};
use crate::learn::propose::directive::DirectiveSource;
use crate::learn::propose::failure_class::{failure_class, ENVIRONMENT_ANCHORS};
use std::collections::{BTreeMap, BTreeSet};

/// The key of a program run from the project's own copy (`.venv/bin/<it>`,
/// `node_modules/.bin/<it>`), whichever program ([`Episode::fix_key`]).
const SELF_COPY: &str = "substitution:<env>/bin/<self>";

/// The joint of the texts in the key of a class of several texts of one program
/// (`cross:texts:A ‖ B`, [`crate::learn::propose::one_program`]): no masked text holds it.
pub const TEXTS: &str = " \u{2016} ";

/// What a failure says, program aside: its anchors (environment anchors excepted) and
/// its one-line text without the program's own `prog: ` prefix.
fn says(c: &Candidate) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = c
        .anchors
        .iter()
        .filter(|a| !ENVIRONMENT_ANCHORS.contains(&a.as_str()))
        .map(|a| format!("anchor:{a}"))
        .collect();
    if let Some((_, text)) = c.cluster.split_once("|tpl:") {
        if !text.contains(" | ") {
            out.insert(format!("text:{}", without_own_prefix(text, c)));
        }
    }
    // The clause its lines end on, inside any program's frame (`no such column` of the
    // `sqlite3` shell's and of Python's `OperationalError`).
    for clause in crate::learn::text::message_core::clauses(&c.template) {
        out.insert(format!("clause:{clause}"));
    }
    out
}

/// `cat: invalid option -- <q>` → `invalid option -- <q>` when `cat` is the failing
/// program (its domain or its label's first word); any other text unchanged.
fn without_own_prefix<'a>(text: &'a str, c: &Candidate) -> &'a str {
    let own = [c.domain.as_str(), c.label.split(' ').next().unwrap_or("")];
    match text.split_once(": ") {
        Some((p, rest)) if own.contains(&p) && !p.is_empty() => rest,
        _ => text,
    }
}

/// Whether a failure of cluster `own` (`domain|anchor` or `domain|tpl:text`, with its
/// `anchors`) belongs to the class across programs `cross` (`cross:anchor:X` or
/// `cross:text:T`) seen in `domains`: how a stored rule finds its support again.
pub fn member(cross: &str, own: &str, domains: &[String], anchors: &[String], template: &str) -> bool {
    let Some(said) = cross.strip_prefix("cross:") else {
        return false;
    };
    let (domain, rest) = own.split_once('|').unwrap_or((own, ""));
    if !domains.iter().any(|d| d == domain) {
        return false;
    }
    match said.split_once(':') {
        Some(("anchor", a)) => anchors.iter().any(|x| x == a),
        Some(("clause", c)) => crate::learn::text::message_core::clauses(template)
            .iter()
            .any(|x| x == c),
        Some(("text", t)) => rest
            .strip_prefix("tpl:")
            .is_some_and(|x| x.split_once(": ").map_or(x, |(p, r)| if p == domain { r } else { x }) == t),
        // Texts of one program joined by the option they changed ([`crate::learn::propose::one_program`]).
        Some(("texts", list)) => rest
            .strip_prefix("tpl:")
            .is_some_and(|x| list.split(TEXTS).any(|t| t == x)),
        // Texts of one program that share these words ([`crate::learn::propose::one_program`]).
        Some(("words", w)) => rest.strip_prefix("tpl:").is_some_and(|x| {
            let own = words(x);
            w.split(' ').all(|t| own.contains(t))
        }),
        _ => false,
    }
}

/// The terms of a masked one-line text, its placeholders (`<q>`, `<path>`) left out: what
/// texts of one program share ([`crate::learn::propose::one_program`]).
pub fn words(text: &str) -> BTreeSet<String> {
    let mut plain = String::with_capacity(text.len());
    let mut depth = 0;
    for ch in text.chars() {
        match ch {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => plain.push(ch),
            _ => {}
        }
    }
    crate::learn::matching::terms::terms(&plain).into_iter().collect()
}

/// A learned, safe fix observed in this history (not a pack or template directive), of a
/// kind that says what changed: "an operand changed" (`variant:<args>`) agrees with any
/// other operand change, which across programs says nothing.
pub(crate) fn observed(c: &Candidate) -> bool {
    fix_of(c) != "variant:<args>" && observed_fix(c)
}

fn observed_fix(c: &Candidate) -> bool {
    matches!(
        c.source,
        DirectiveSource::Fix | DirectiveSource::Variant | DirectiveSource::Substitution
    ) && c.unsafe_fix.is_none()
        && !c.domain.is_empty()
        && !c.covering.is_empty()
}

/// The fix part of a candidate's key (`cluster||fix`).
pub(crate) fn fix_of(c: &Candidate) -> &str {
    c.key.split_once("||").map_or("", |(_, f)| f)
}

/// Distinct sessions among episodes.
pub(crate) fn sessions(eps: &[usize], episodes: &[Episode], prep: &Prepared) -> usize {
    eps.iter()
        .map(|&ei| prep.position[episodes[ei].fail_idx].0)
        .collect::<BTreeSet<_>>()
        .len()
}

/// The merged candidates for `cands` (appended by the caller). `stands_alone`: whether a
/// candidate has the recurrence to be accepted on its own (the judge's minimum). Pure.
pub fn merge(
    cands: &[Candidate],
    episodes: &[Episode],
    prep: &Prepared,
    stands_alone: impl Fn(&Candidate, usize) -> bool,
) -> Vec<Candidate> {
    let pool: Vec<usize> = (0..cands.len()).filter(|&i| observed(&cands[i])).collect();
    // What each says, once, and who says each thing: a reference meets only the
    // candidates that share a text with it (a large history has many candidates).
    let said: BTreeMap<usize, BTreeSet<String>> = pool.iter().map(|&i| (i, says(&cands[i]))).collect();
    let mut sayers: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (&i, texts) in &said {
        for t in texts {
            sayers.entry(t.as_str()).or_default().push(i);
        }
    }
    // References: most sessions first, then by key (deterministic).
    let mut refs = pool.clone();
    refs.sort_by_key(|&i| {
        (
            std::cmp::Reverse(sessions(&cands[i].covering, episodes, prep)),
            cands[i].key.clone(),
        )
    });
    let mut used: BTreeSet<usize> = BTreeSet::new();
    let mut out = Vec::new();
    for &r in &refs {
        if used.contains(&r) {
            continue;
        }
        let rc = &cands[r];
        let text = &said[&r];
        let agrees_all = |c: &Candidate| agrees_with(c, rc, episodes);
        let others: BTreeSet<usize> = text.iter().flat_map(|t| sayers[t.as_str()].iter().copied()).collect();
        let mut members = vec![r];
        for o in others {
            let c = &cands[o];
            if o != r && !used.contains(&o) && !members.iter().any(|&m| cands[m].domain == c.domain) && agrees_all(c) {
                members.push(o);
            }
        }
        if !a_class(&members, cands, episodes, prep, &stands_alone) {
            continue;
        }
        used.extend(members.iter().copied());
        out.push(merged(cands, &members, text, episodes, prep));
    }
    out
}

/// Does every recovery `c` stands on agree with the reference `rc`'s fix? Across
/// programs a changed option agrees only when it is the same option: the kind "options
/// changed" ([`crate::learn::history::fix_key::OPTIONS`]) is one fix within a program,
/// where `-r`, `-R` and `-a` are its spellings, but `docker build --network=host`, `npm
/// install --prefer-offline` and `make test --timeout=60` after three timeouts are three
/// fixes (CauterRule's near-miss corpus, where they made one false rule).
pub(crate) fn agrees_with(c: &Candidate, rc: &Candidate, episodes: &[Episode]) -> bool {
    let options = fix_of(rc).starts_with(crate::learn::history::fix_key::OPTIONS) && c.domain != rc.domain;
    let theirs: BTreeSet<String> = rc.covering.iter().flat_map(|&ei| option_names(&episodes[ei])).collect();
    c.covering.iter().all(|&ei| {
        agrees(
            &episodes[ei],
            &group_key(&episodes[ei]),
            fix_of(rc),
            rc.directive_action.as_ref(),
        ) && (!options || option_names(&episodes[ei]).iter().any(|o| theirs.contains(o)))
    })
}

/// The options a variant changed, by name: `--network` for `--network=host`, `-std` for a
/// value changed (`value:-std`), `-D_GNU_SOURCE` as typed.
fn option_names(e: &Episode) -> Vec<String> {
    e.variant
        .iter()
        .map(|w| w.trim_start_matches("value:"))
        .filter(|w| w.starts_with('-') && *w != "--")
        .map(|w| w.split_once('=').map_or(w, |(f, _)| f).to_string())
        .collect()
}

/// Are `members` a class to merge: two or more, not all with the recurrence to stand
/// alone (counted in source sessions: a member whose second session was a one-shot does
/// not stand alone).
pub(crate) fn a_class(
    members: &[usize],
    cands: &[Candidate],
    episodes: &[Episode],
    prep: &Prepared,
    stands_alone: &impl Fn(&Candidate, usize) -> bool,
) -> bool {
    // Its sources, as the judge counts them: a one-shot recovery is none.
    let sources = |c: &Candidate| -> Vec<usize> {
        c.episodes
            .iter()
            .copied()
            .filter(|&ei| !episodes[ei].one_shot(prep))
            .collect()
    };
    members.len() >= 2
        && !members
            .iter()
            .all(|&m| stands_alone(&cands[m], sessions(&sources(&cands[m]), episodes, prep)))
}

/// The candidate standing for `members` (the first is the reference).
pub(crate) fn merged(
    cands: &[Candidate],
    members: &[usize],
    text: &BTreeSet<String>,
    episodes: &[Episode],
    prep: &Prepared,
) -> Candidate {
    let rc = &cands[members[0]];
    let all = |f: fn(&Candidate) -> &Vec<usize>| -> Vec<usize> {
        let set: BTreeSet<usize> = members.iter().flat_map(|&m| f(&cands[m]).iter().copied()).collect();
        set.into_iter().collect()
    };
    let mut domains: Vec<String> = members.iter().map(|&m| cands[m].domain.clone()).collect();
    domains.sort();
    // The shared text: an anchor all members have if any, else the reference's text.
    let shared: BTreeSet<String> = members.iter().skip(1).fold(text.clone(), |acc, &m| {
        acc.intersection(&says(&cands[m])).cloned().collect()
    });
    let said = shared
        .iter()
        .find(|s| s.starts_with("anchor:"))
        .or_else(|| shared.iter().next())
        .or_else(|| text.iter().next())
        .cloned()
        .unwrap_or_default();
    let (anchors, template) = match said.split_once(':') {
        Some(("anchor", a)) => {
            let mut v = vec![a.to_string()];
            v.extend(
                rc.anchors
                    .iter()
                    .filter(|x| *x != a && members.iter().all(|&m| cands[m].anchors.contains(x)))
                    .cloned(),
            );
            (v, rc.template.clone())
        }
        Some((_, t)) => (Vec::new(), t.to_string()),
        None => (Vec::new(), rc.template.clone()),
    };
    let programs: Vec<String> = domains.iter().map(|d| format!("`{d}`")).collect();
    // No program in the trigger (its domains say which): every word of it is the
    // failure's, as the matcher weighs it (a word no failure carries, such as "command",
    // would be the rarest term in the history and outweigh the failure's own text).
    let trigger = match anchors.first() {
        Some(a) => crate::learn::text::signature::describe_anchor(a),
        None => format!("fails with \"{}\"", crate::evidence::head_chars(&template, 80)),
    };
    let covering = all(|c| &c.covering);
    // Steps are said as all the members' sessions spelt them (what differs a
    // placeholder), never as the reference's one session: its file names are not the
    // next failure's (`cp settings.example.json settings.json` for a missing `config.json`).
    let directive = match covering.iter().max() {
        Some(&last) if fix_of(rc).starts_with("steps:") && covering.len() > 1 => {
            crate::learn::propose::fix_directive::directive_for(episodes, &covering, last, &rc.label, prep).0
        }
        _ => rc.directive.clone(),
    };
    // Said of the failing command, whichever program it is; the programs are named.
    let directive = directive.replace(&format!("retry `{}`", rc.label), "retry the failing command");
    // Each program run from the project's own copy: said as that, never as one tool's path.
    let directive = if fix_of(rc) == SELF_COPY {
        let mut seen: Vec<String> = Vec::new();
        for p in covering.iter().filter_map(|&ei| episodes[ei].substitute.as_deref()) {
            let p = if crate::learn::text::wrappers::project_runner(p) {
                format!("`{}`", crate::learn::text::wrappers::runner_invocation(p))
            } else {
                format!("`{}`", p.trim_start_matches("./"))
            };
            if !seen.contains(&p) && seen.len() < 4 {
                seen.push(p);
            }
        }
        format!(
            "run the failing program's own copy in the project, not the one on `PATH`: `<env>/bin/<program>` (seen: {})",
            seen.join(", ")
        )
    } else {
        directive
    };
    let directive = format!("{directive} (the same fix worked for {})", programs.join(", "));
    // Each member's class counted once (two members may share an environment class).
    let mut classes: BTreeMap<String, &Candidate> = BTreeMap::new();
    for &m in members {
        let c = &cands[m];
        classes
            .entry(failure_class(
                &c.cluster,
                &c.domain,
                c.anchors.first().map(String::as_str),
            ))
            .or_insert(c);
    }
    let recovered: usize = classes.values().map(|c| c.recovered_in_cluster).sum();
    Candidate {
        key: format!("cross:{said}||{}", fix_of(rc)),
        cluster: format!("cross:{said}"),
        domain: String::new(),
        domains,
        member_clusters: members.iter().map(|&m| cands[m].cluster.clone()).collect(),
        label: String::new(),
        actions: {
            let s: BTreeSet<String> = members.iter().flat_map(|&m| cands[m].actions.iter().cloned()).collect();
            s.into_iter().collect()
        },
        anchors,
        template,
        trigger,
        directive,
        episodes: all(|c| &c.episodes),
        covered: Some(covering.len()),
        fix_keys_in_cluster: if recovered > covering.len() { 2 } else { 1 },
        covering,
        recovered_in_cluster: recovered,
        cleared_plainly: classes.values().map(|c| c.cleared_plainly).sum(),
        cured_unsafely: members.iter().map(|&m| cands[m].cured_unsafely).sum(),
        targeted: members.iter().all(|&m| cands[m].targeted),
        class_unresolved: members.iter().any(|&m| cands[m].class_unresolved),
        ..rc.clone()
    }
}
