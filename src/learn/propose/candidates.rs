//! Candidates: episodes clustered by tool and failure signature (the failure class, not
//! the subcommand); one candidate per (cluster, fix), with a trigger in words and a
//! directive taken from what actually fixed it.
//!
//! - Cluster key: `domain|primary anchor` (or the masked template when the failure has no
//!   anchor), [`Prepared::cluster_key`]: `cargo build` and `cargo test` failing alike are
//!   one class, so recurrence and support add up across them. Paraphrases of one failure
//!   share the canonical anchor.
//! - Within a cluster, recovered episodes are grouped by their fix key
//!   ([`Episode::fix_key`]); each group is a candidate whose directive names the fix
//!   ("run `git pull --rebase`, then retry `git push`"). Only a group with at least one
//!   *recovered* episode (the failing action succeeded after the fix) makes a directive:
//!   what a session that moved on tried is never a directive; it supports a proven fix
//!   it agrees with, or (an unresolved attempt, see [`crate::learn`]) a known-remedy
//!   template. An unsafe fix is its own group ([`group_key`]) and never contests a safe
//!   one (the contest counts allowed fixes only).
//! - Unresolved episodes (nothing succeeded after the failure) make a *pack* candidate
//!   whose directive comes from the curated core pack of well-known remedies keyed by
//!   anchor ([`remedy`], [`crate::learn::propose::core_pack`]; when the pack is on), else a *template*
//!   candidate with the "do not retry unchanged" fallback. They never join an observed
//!   fix.
//! - Each candidate also carries what the gates in [`crate::learn`] need: how many of the
//!   cluster's recovered episodes agree with it (contested fixes), whether the cluster has
//!   unresolved failures, whether its template is a known remedy.
//! - Flaky episodes are never support: there is no directive to learn from them.
//! - Dedup is by key (`cluster||fix`): identical candidates from several sessions, passes
//!   or an extractor merge ([`dedup`]).

use crate::evidence::head_chars;
use crate::learn::history::episodes::{Episode, Outcome, Prepared};
use crate::learn::propose::agreement::{agrees, agrees_with_a_spelling, influenced, seg_agrees, unresolved_attempt};
use crate::learn::propose::render::quote_cmd;

pub use crate::learn::propose::failure_class::failure_class;
use crate::learn::text::signature::describe_anchor;
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use crate::learn::propose::core_pack::remedy;
pub use crate::learn::propose::directive::{DirectiveAction, DirectiveSource};

/// One candidate rule before replay.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub key: String,
    pub cluster: String,
    pub domain: String,
    /// A class across programs ([`crate::learn::propose::cross_program`]): the domains it
    /// was seen in (its `domain` is then empty). Empty otherwise.
    pub domains: Vec<String>,
    /// The clusters such a class unites (empty otherwise).
    pub member_clusters: Vec<String>,
    pub action: String,
    /// `git push`; the domain (`cargo`) when the class's failures ran several actions.
    pub label: String,
    /// Every action the class's failures ran (the matcher treats them as one command).
    pub actions: Vec<String>,
    pub anchors: Vec<String>,
    pub template: String,
    pub trigger: String,
    pub directive: String,
    pub source: DirectiveSource,
    /// Commands the directive recommends (safety and trust gates look at these).
    pub directive_cmds: Vec<String>,
    pub directive_action: Option<DirectiveAction>,
    /// Indices into the episode list: the support (episodes consistent with the directive).
    pub episodes: Vec<usize>,
    /// The fix this directive came from was unsafe (see [`Episode::unsafe_fix`]).
    pub unsafe_fix: Option<&'static str>,
    /// Recovered episodes in the candidate's failure cluster (every fix, safe or not).
    pub recovered_in_cluster: usize,
    /// Distinct working fixes among them.
    pub fix_keys_in_cluster: usize,
    /// Same-class failures that cleared on a plain retry (flaky episodes, nothing
    /// state-changing in between): evidence that the failure passes without any fix.
    pub cleared_plainly: usize,
    /// Same-class sessions the same kind of fix cured, done unsafely (`gzip --force`
    /// beside `gzip -f`): no support, no contest, but evidence the failure does not clear
    /// by itself ([`crate::learn::propose::necessity`]).
    pub cured_unsafely: usize,
    /// Every recovered episode it stands on acted on the failing command's subject
    /// ([`crate::learn::propose::necessity::targets_subject`]).
    pub targeted: bool,
    /// How many of the cluster's recovered episodes agree with this directive (`None`: a
    /// template that names no command, not comparable).
    pub covered: Option<usize>,
    /// The class's recovered episodes that agree with this directive (what `covered`
    /// counts): a class across programs unites them ([`crate::learn::propose::cross_program`]).
    pub covering: Vec<usize>,
    /// How many recoveries spelt the fix exactly this way (its own fix key): of two
    /// spellings of one lesson, the one more sessions wrote is the one said
    /// ([`crate::learn::judge::same_lesson`]).
    pub spelt_so: usize,
    /// The cluster has unresolved failures (then they are the support, and self-resolved
    /// episodes only corroborate).
    pub class_unresolved: bool,
    /// A directive from the core pack (not the generic fallback).
    pub remedy_known: bool,
}

fn trigger_text(label: &str, anchors: &[String], template: &str) -> String {
    match anchors.first() {
        Some(a) => format!("`{label}` {}", describe_anchor(a)),
        None => {
            let first = template.split(" | ").next().unwrap_or("");
            format!("`{label}` fails with \"{}\"", head_chars(first, 80))
        }
    }
}

/// The grouping key of an episode's fix: [`Episode::fix_key`], split off when the fix was
/// unsafe (`chmod 777` and `chmod +x` share `steps:chmod chmod`; they are not one lesson).
pub fn group_key(e: &Episode) -> String {
    match e.unsafe_fix {
        Some(p) => format!("{}|unsafe:{p}", e.fix_key()),
        None => e.fix_key(),
    }
}

/// A recovery a fix may be taught from: it cured the failure, safely, by what the log shows.
fn taught(e: &Episode) -> bool {
    e.outcome == Outcome::Recovered && e.unsafe_fix.is_none() && !e.unlogged_fix
}

/// What every taught recovery of a group (`eps`) shares of `per_recovery` (the options or
/// values each gave): none when the group has none.
fn shared_by(eps: &[usize], episodes: &[Episode], per_recovery: &[BTreeSet<String>]) -> BTreeSet<String> {
    let group: Vec<BTreeSet<String>> = eps
        .iter()
        .filter(|&&ei| taught(&episodes[ei]))
        .map(|&ei| per_recovery[ei].clone())
        .collect();
    crate::learn::propose::shared_option::common(&group)
}

/// Builds candidates from episodes; `core`: apply the core pack
/// ([`crate::learn::propose::core_pack`]) to unresolved failures with a known anchor. Pure.
pub fn build(episodes: &[Episode], prep: &Prepared, core: bool) -> Vec<Candidate> {
    let remedy = |a: &str| if core { remedy(a) } else { None };
    // cluster → fix key → episode indices (BTreeMap: deterministic order).
    let mut clusters: BTreeMap<String, BTreeMap<String, Vec<usize>>> = BTreeMap::new();
    // Every episode's group key, computed once (agreement checks compare them often).
    let keys: Vec<String> = episodes
        .iter()
        .map(|e| {
            if e.outcome == Outcome::Flaky {
                String::new()
            } else {
                group_key(e)
            }
        })
        .collect();
    // Every safe recovery's options and values new to its failing command, computed once
    // ([`crate::learn::propose::shared_option`], [`crate::learn::propose::shared_value`]).
    let per_recovery = |new: fn(&Episode, &Prepared) -> BTreeSet<String>| -> Vec<BTreeSet<String>> {
        episodes
            .iter()
            .map(|e| if taught(e) { new(e, prep) } else { BTreeSet::new() })
            .collect()
    };
    let options = per_recovery(crate::learn::propose::shared_option::new_options);
    let values = per_recovery(crate::learn::propose::shared_value::new_values);
    for (ei, e) in episodes.iter().enumerate() {
        if e.outcome == Outcome::Flaky {
            continue;
        }
        clusters
            .entry(prep.cluster_key(e.fail_idx))
            .or_default()
            .entry(keys[ei].clone())
            .or_default()
            .push(ei);
    }
    // The contest is judged per failure class ([`failure_class`]).
    // Class → (recovered episodes, working fixes by key).
    let class_of = |cluster: &str, fixes: &BTreeMap<String, Vec<usize>>| -> String {
        let e = fixes.values().next().and_then(|v| v.first()).map(|&ei| &episodes[ei]);
        match e {
            Some(e) => failure_class(cluster, &e.domain, prep.sigs[e.fail_idx].primary()),
            None => format!("cluster:{cluster}"),
        }
    };
    let mut classes: HashMap<String, (Vec<usize>, BTreeMap<String, usize>)> = HashMap::new();
    let unsafe_cures = crate::learn::propose::failure_class::unsafe_cures(episodes, prep);
    for (cluster, fixes) in &clusters {
        let entry = classes.entry(class_of(cluster, fixes)).or_default();
        for (key, eps) in fixes {
            // Only allowed fixes contest: a fix the safety gate blocks (force-push,
            // `chmod 777`) is its own blocked candidate, and one poisoned session must
            // not make the safe fix "contested". Nor does a session whose fix is not in the
            // log (an edit record between the failure and the pass): what it did is unknown.
            for &ei in eps.iter().filter(|&&ei| {
                let e = &episodes[ei];
                taught(e) && !influenced(e, prep)
            }) {
                entry.0.push(ei);
                *entry.1.entry(key.clone()).or_default() += 1;
            }
        }
    }
    let plain = crate::learn::propose::failure_class::plain_retries(episodes, prep);
    let mut out = Vec::new();
    for (cluster, fixes) in clusters {
        let cleared_plainly = plain.get(&class_of(&cluster, &fixes)).copied().unwrap_or(0);
        let (class_recovered, class_fixes) = &classes[&class_of(&cluster, &fixes)];
        let any = fixes.values().next().and_then(|v| v.first()).copied().unwrap_or(0);
        let e0 = &episodes[any];
        let sig = &prep.sigs[e0.fail_idx];
        // Anchors: the primary, plus anchors present in at least two thirds of the failures.
        let all: Vec<usize> = fixes.values().flatten().copied().collect();
        // The class may span subcommands: its label is then the tool, and every action
        // it ran is "the same command" for the matcher.
        let mut actions: Vec<String> = all.iter().map(|&ei| episodes[ei].action.clone()).collect();
        actions.sort();
        actions.dedup();
        let programs: std::collections::BTreeSet<&str> = all.iter().map(|&ei| episodes[ei].domain.as_str()).collect();
        let named_over = prep.named.get(&e0.fail_idx).filter(|_| programs.len() > 1);
        let label = if let Some(named) = named_over {
            // The step the error named, run before several programs: the class is that step's.
            named.clone()
        } else if actions.len() > 1 {
            prep.failing(e0.fail_idx).map(|s| s.program.clone()).unwrap_or_default()
        } else {
            prep.failing(e0.fail_idx).map(|s| s.label()).unwrap_or_default()
        };
        let mut anchors: Vec<String> = sig.primary().map(|a| vec![a.to_string()]).unwrap_or_default();
        if !anchors.is_empty() {
            for a in sig.anchors.iter().skip(1) {
                let n = all
                    .iter()
                    .filter(|&&ei| prep.sigs[episodes[ei].fail_idx].anchors.contains(a))
                    .count();
                if n * 3 >= all.len() * 2 && !anchors.contains(a) {
                    anchors.push(a.clone());
                }
            }
        }
        let template = sig.template.clone();
        let trigger = trigger_text(&label, &anchors, &template);
        // The class's recovered episodes (the fixes that worked) and the cluster's
        // unresolved ones.
        let recovered: &Vec<usize> = class_recovered;
        let recovered_here: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&ei| episodes[ei].outcome == Outcome::Recovered && episodes[ei].unsafe_fix.is_none())
            .collect();
        let fix_keys = class_fixes.len();
        // A session that tried something else and moved on already followed the generic
        // fallback's advice ("do not retry unchanged"): its attempt supports only a known
        // remedy.
        let has_remedy = anchors.first().and_then(|a| remedy(a)).is_some();
        let template_cmds: Vec<String> = anchors
            .first()
            .and_then(|a| remedy(a))
            .map(backticked)
            .unwrap_or_default();
        // Unresolved for support: nothing succeeded after the failure, or the session
        // tried a (safe) fix of its own but never got the failing action to succeed.
        // Not: a session that only looked and moved on (exploration), an unsafe attempt,
        // a failure nested inside the recovery of another one.
        let unresolved: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&ei| {
                let e = &episodes[ei];
                !e.nested
                    && e.unsafe_fix.is_none()
                    && !influenced(e, prep)
                    && (e.outcome == Outcome::Unresolved
                        || e.outcome == Outcome::MovedOn
                            && !e.steps.is_empty()
                            && has_remedy
                            && unresolved_attempt(e, prep, &template_cmds))
            })
            .collect();
        // The class "has unresolved failures" (which then demotes its self-resolved
        // episodes to corroboration) when one of them did not even try a fix that worked
        // elsewhere in the cluster: an attempt that includes every step of a proven fix
        // (`sed …`, then `cargo run` instead of `cargo build`) is not a standing failure.
        let proven = |e: &Episode| {
            recovered_here.iter().any(|&ri| {
                let r = &episodes[ri];
                !r.steps.is_empty()
                    && r.steps
                        .iter()
                        .all(|rs| e.steps.iter().any(|s| s.domain == rs.domain && s.action == rs.action))
            })
        };
        let class_unresolved = unresolved.iter().any(|&ei| {
            let e = &episodes[ei];
            e.outcome == Outcome::Unresolved || !proven(e)
        });
        // A class whose error named a wrapper or a step the line ran (`sudo: command not
        // found` before `make`, `chown`, `chmod`) holds several programs: its rule is
        // theirs, as a class across programs is ([`crate::learn::propose::cross_program`]).
        let spread = |eps: &[usize]| -> (String, Vec<String>) {
            let mut ds: Vec<String> = eps.iter().map(|&ei| episodes[ei].domain.clone()).collect();
            ds.sort();
            ds.dedup();
            if ds.len() > 1 && prep.named.contains_key(&e0.fail_idx) {
                (String::new(), ds)
            } else {
                (e0.domain.clone(), Vec::new())
            }
        };
        let base = |key: String, directive: String, source, cmds: Vec<String>, act, eps: Vec<usize>| {
            let (domain, domains) = spread(&eps);
            Candidate {
                key,
                cluster: cluster.clone(),
                domain,
                domains,
                member_clusters: Vec::new(),
                action: e0.action.clone(),
                label: label.clone(),
                actions: actions.clone(),
                anchors: anchors.clone(),
                template: template.clone(),
                trigger: trigger.clone(),
                directive,
                source,
                directive_cmds: cmds,
                directive_action: act,
                episodes: eps,
                unsafe_fix: None,
                recovered_in_cluster: recovered.len(),
                cured_unsafely: 0,
                fix_keys_in_cluster: fix_keys,
                cleared_plainly,
                targeted: false,
                covered: None,
                covering: Vec::new(),
                spelt_so: 0,
                class_unresolved,
                remedy_known: false,
            }
        };
        let mut fixed: Vec<Candidate> = Vec::new();
        for (fix, eps) in &fixes {
            // A directive only from a fix after which the failing action succeeded: a
            // group without a recovered episode (moved on, unresolved) proposes nothing.
            // A fix not in the log (an edit record before the pass) proposes nothing either.
            let Some(&last_ei) = eps
                .iter()
                .rev()
                .find(|&&ei| episodes[ei].outcome == Outcome::Recovered && !episodes[ei].unlogged_fix)
            else {
                continue;
            };
            // The most recent recovered episode of the group gives the concrete command text.
            let last = &episodes[last_ei];
            let (directive, source, cmds, act) =
                crate::learn::propose::fix_directive::directive_for(episodes, eps, last_ei, &label, prep);
            // Every spelling the group's recoveries gave its one flag, each a change a
            // session may have made with a flag of its own.
            let spellings: Vec<&[String]> = eps
                .iter()
                .map(|&ei| &episodes[ei])
                .filter(|e| taught(e))
                .map(|e| e.variant.as_slice())
                .collect();
            // The option every recovery of the group gave, new to its failing command
            // (`-fPIC`): a session that gave it elsewhere (a step, a build variable) did
            // the same thing ([`crate::learn::propose::shared_option`]).
            let shared = shared_by(eps, episodes, &options);
            let by_option = |ei: usize| options[ei].iter().any(|o| shared.contains(o));
            // The value every changed retry of the group gave (`stable`, as `+stable` or
            // `RUSTUP_TOOLCHAIN=stable`): a retry that gave it otherwise did the same thing.
            let shared_values = shared_by(eps, episodes, &values);
            let by_value = |ei: usize| values[ei].iter().any(|v| shared_values.contains(v));
            let agree = |ei: usize, act: Option<&DirectiveAction>| {
                agrees(&episodes[ei], &keys[ei], fix, act)
                    || agrees_with_a_spelling(&episodes[ei], fix, &spellings)
                    || by_option(ei)
                    || by_value(ei)
            };
            // Support: the cluster's episodes whose fix agrees with this one (recovered,
            // or the same step taken by a session that then moved on). Other fixes are
            // competing evidence.
            let support: Vec<usize> = if last.unsafe_fix.is_some() {
                eps.clone()
            } else {
                let mut v: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&ei| {
                        let e = &episodes[ei];
                        matches!(e.outcome, Outcome::Recovered | Outcome::MovedOn)
                            && !e.unlogged_fix
                            && agree(ei, act.as_ref())
                    })
                    .collect();
                v.sort_unstable();
                v
            };
            let covering: Vec<usize> = recovered
                .iter()
                .copied()
                .filter(|&ei| {
                    if last.unsafe_fix.is_some() {
                        agrees(&episodes[ei], &keys[ei], fix, None)
                    } else {
                        agree(ei, act.as_ref())
                    }
                })
                .collect();
            // A fix step only one session spelt this way is said as the sessions that
            // agree with it spelt it (`mkdir out` alone, `mkdir -p <dir>` by three that
            // agree with it: the most common spelling), never with that one session's
            // values. A group of several keeps its own spelling.
            let directive = if source == DirectiveSource::Fix && eps.len() == 1 && support.len() > 1 {
                crate::learn::propose::fix_directive::directive_for(episodes, &support, last_ei, &label, prep).0
            } else {
                directive
            };
            // Sessions that took the fix's other way (the step its flag automates) are
            // named beside it; so are sessions that spelt the step with other flags.
            let supporters = crate::learn::propose::directive::Supporters {
                episodes,
                support: &support,
                keys: &keys,
                fix,
                act: act.as_ref(),
                prep,
            };
            let directive = directive + &crate::learn::propose::fix_directive::steps_instead(&supporters);
            let otherwise = crate::learn::propose::step_said_otherwise::step_said_otherwise(&directive, &supporters);
            let directive = directive + &otherwise;
            // Sessions that gave the value another way are named beside it.
            let by_value_alone = support.iter().copied().filter(|&ei| {
                by_value(ei)
                    && !agrees(&episodes[ei], &keys[ei], fix, act.as_ref())
                    && !agrees_with_a_spelling(&episodes[ei], fix, &spellings)
                    && !by_option(ei)
            });
            let directive = crate::learn::propose::shared_value::said_otherwise(&directive, episodes, by_value_alone);
            let mut c = base(format!("{cluster}||{fix}"), directive, source, cmds, act, support);
            c.spelt_so = spellings.len();
            if let Some(said) = one_folders_programs(&c.episodes, episodes, prep) {
                // Each session ran another program of one folder (`./target/release/cfgdemo`,
                // `…/mathx`): said as the folder's, not the first session's (the rule
                // is no `cfgdemo` rule; the matcher never read the name).
                c.trigger = c.trigger.replacen(&format!("`{label}`"), &format!("`{said}`"), 1);
                c.directive = c
                    .directive
                    .replace(&format!("retry `{label}`"), &format!("retry `{said}`"));
            }
            c.unsafe_fix = last.unsafe_fix;
            c.covered = Some(covering.len());
            c.covering = covering;
            if last.unsafe_fix.is_none() {
                let k = (class_of(&cluster, &fixes), fix.clone());
                c.cured_unsafely = unsafe_cures.get(&k).copied().unwrap_or(0);
            }
            c.targeted = {
                let mut rec = c
                    .episodes
                    .iter()
                    .map(|&ei| &episodes[ei])
                    .filter(|e| e.outcome == Outcome::Recovered);
                rec.clone().next().is_some() && rec.all(|e| crate::learn::propose::necessity::targets_subject(e, prep))
            };
            fixed.push(c);
        }
        if class_unresolved {
            // Unresolved failures (nothing succeeded after them) support a template
            // directive: the remedy for a recognised anchor, else "do not retry unchanged".
            let known = anchors.first().and_then(|a| remedy(a));
            let directive = match known {
                Some(r) => r.to_string(),
                None => format!(
                    "do not retry {} unchanged: read the error and fix its cause first",
                    quote_cmd(&label)
                ),
            };
            let cmds: Vec<String> = backticked(&directive);
            // A curated remedy is the core pack's, said so in its key and source; the
            // fallback is the generic template.
            let (key, source) = match known {
                Some(_) => (
                    format!("{cluster}||pack:{}", crate::learn::propose::core_pack::CORE),
                    DirectiveSource::Pack,
                ),
                None => (format!("{cluster}||template"), DirectiveSource::Template),
            };
            let mut c = base(key, directive, source, Vec::new(), None, unresolved);
            c.remedy_known = known.is_some();
            // Agreement of the cluster's working fixes with the template's command, when
            // it names one (`git pull --rebase`); a template without a command is not
            // comparable with observed fixes.
            let norms: Vec<crate::learn::text::command_norm::CmdNorm> = cmds
                .iter()
                .map(|c| crate::learn::text::command_norm::normalize(c))
                .collect();
            c.covered = (!cmds.is_empty()).then(|| {
                recovered
                    .iter()
                    .filter(|&&ei| {
                        norms
                            .iter()
                            .filter_map(|n| n.primary())
                            .any(|seg| seg_agrees(&episodes[ei], seg))
                    })
                    .count()
            });
            fixed.push(c);
        }
        out.extend(fixed);
    }
    out
}

/// `./target/release/<name>` when the episodes ran programs by path, more than one, all
/// in one folder; `None` otherwise (one program, programs by name, several folders).
fn one_folders_programs(eps: &[usize], episodes: &[Episode], prep: &Prepared) -> Option<String> {
    let paths: std::collections::BTreeSet<&str> = eps
        .iter()
        .filter_map(|&ei| prep.failing(episodes[ei].fail_idx)?.words.first())
        .map(|w| w.as_str())
        .collect();
    let mut dirs = paths.iter().map(|p| p.rsplit_once('/').map(|(d, _)| d));
    let first = dirs.next()??;
    (paths.len() > 1 && !first.is_empty() && dirs.all(|d| d == Some(first))).then(|| format!("{first}/<name>"))
}

/// Merges candidates with the same key (episodes united). Keeps first-seen order.
pub fn dedup(cands: Vec<Candidate>) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for c in cands {
        match out.iter_mut().find(|o| o.key == c.key) {
            Some(o) => {
                o.episodes.extend(c.episodes);
                o.episodes.sort_unstable();
                o.episodes.dedup();
            }
            None => out.push(c),
        }
    }
    out
}

/// The backticked snippets of a text (commands a directive names).
pub fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .filter(|s| !s.trim().is_empty())
        .collect()
}
