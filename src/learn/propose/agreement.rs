//! Agreement between episodes and fixes: does a session's fix agree with a directive, and
//! is a session that moved on an unresolved attempt or a failure it resolved itself?
//!
//! Why apart from [`crate::learn::propose::candidates`]: these are the judgements support is made
//! of — which sessions a rule may stand on — and they are tested on their own.

use crate::learn::history::episodes::{Episode, Prepared};
use crate::learn::propose::directive::DirectiveAction;
use std::collections::BTreeSet;

pub(crate) use crate::learn::text::intent::edit_distance;

/// Is a session that moved on after trying steps an *unresolved attempt* (support for the
/// cluster's pack rule), rather than a failure it resolved itself? Self-resolved (not
/// support) when it corrected a typo (a step's program or subcommand is a near-spelling
/// of the failing one: `pyhton` → `python3`, `git comit` → `git commit`) or took the
/// pack's own remedy (`git add`, then `git commit`, after a merge conflict: the agent
/// already knew the fix).
pub(crate) fn unresolved_attempt(e: &Episode, prep: &Prepared, template_cmds: &[String]) -> bool {
    let Some(fail) = prep.failing(e.fail_idx) else {
        return true;
    };
    let base = |p: &str| p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').to_string();
    // Judged on the raw words first: `pyhton3 -m pytest` → `python3 -m pytest` normalises
    // to `pyhton` → `pytest`, which no longer looks like a typo.
    let raw_typo = e.steps.iter().any(|s| {
        s.raw
            .iter()
            .any(|r| crate::learn::text::intent::is_typo(&e.raw_program, r))
    });
    let typo = raw_typo
        || e.steps.iter().any(|s| {
            let Some(seg) = prep.norms[s.idx].segments.iter().find(|g| g.text() == s.text) else {
                return false;
            };
            let (fp, sp) = (base(&fail.program), base(&seg.program));
            let near = |x: &str, y: &str| x != y && x.len() >= 2 && edit_distance(x, y, 2) <= 2;
            near(&fp, &sp) || (fp == sp && !fail.action.is_empty() && near(&fail.action, &seg.action))
        });
    let took_remedy = template_cmds.iter().any(|c| step_agrees(e, c));
    !(typo || took_remedy)
}

/// Does an episode's fix agree with a fix candidate: the same group key, or (step fixes)
/// a safe step with the directive's domain and action whose flags make no opposite choice
/// ([`opposed`]: `git config --global user.email …` agrees with `git config user.email …`,
/// `git branch -m` with `git branch -M`; `git pull --no-rebase` does not agree with `git
/// pull --rebase`).
pub(crate) fn agrees(e: &Episode, e_key: &str, key: &str, act: Option<&DirectiveAction>) -> bool {
    if e_key == key {
        return true;
    }
    if e.unsafe_fix.is_some() {
        return false;
    }
    match act {
        // The step the flag does for you, inserted by hand (`git stash` before the retry
        // against `--autostash`): one fix spelt as a flag or as a step.
        Some(DirectiveAction::AddFlags(v)) if key.starts_with(crate::learn::history::fix_key::OPTIONS) => {
            one_option_given_a_value(&e.variant, v)
                || v.iter()
                    .find(|w| w.starts_with('-'))
                    .is_some_and(|f| step_the_flag_does(e, f).is_some() || the_change_and_a_flag(e, v))
        }
        Some(DirectiveAction::AddFlags(v)) => {
            one_option_given_a_value(&e.variant, v) || the_change_and_a_flag(e, v) || looked_up_an_insertion(e, v)
        }
        // The step run instead of the retry (`npm install` after `npm ci` failed, and the
        // session moved on: `Episode::verb`) is the step run before it.
        Some(DirectiveAction::Step { domain, action, flags }) => e
            .steps
            .iter()
            .chain(e.verb.as_deref())
            .any(|s| &s.domain == domain && &s.action == action && !opposed(flags, &s.flags)),
        _ => false,
    }
}

/// Do two spellings of one step make opposite choices: one flag the other's `--no-` form
/// (`git pull --rebase` against `--no-rebase`), or a `config` step setting another setting
/// (`core.bare` is no `receive.denyCurrentBranch`)? Anything else is one step spelt
/// stronger, quieter or shorter (`git branch -M` beside `-m`, `git commit --no-edit` beside
/// `-m <msg>`, `ln -sfn` beside `ln -sfr`): the same step inserted, the kind of change the
/// sessions agree on (issue 34), each spelling still judged by the safety gate on its own.
fn opposed(a: &[String], b: &[String]) -> bool {
    let negates = |x: &String, y: &String| x.strip_prefix("--no-").is_some_and(|r| y.strip_prefix("--") == Some(r));
    let mark = crate::learn::text::config_setting::MARK;
    let settings = |v: &[String]| -> BTreeSet<String> {
        v.iter()
            .filter(|f| f.starts_with(mark))
            .map(|f| f.to_ascii_lowercase())
            .collect()
    };
    settings(a) != settings(b) || a.iter().any(|x| b.iter().any(|y| negates(x, y) || negates(y, x)))
}

/// Did the session insert into the failing operand, as the directive does, by a name a
/// look printed (`find build -name '*.class'`, then `com.acme.sync.App` for `App`)? One
/// kind of change (an insertion, whatever was inserted: `fix_key`), found by looking.
/// Only this way round: a lookup directive names the look, and a session that inserted
/// without one did not take it.
fn looked_up_an_insertion(e: &Episode, v: &[String]) -> bool {
    e.lookup_inserts && !v.is_empty() && v.iter().all(|w| w.starts_with("insert:"))
}

/// Does a session agree with a one-flag fix through another of the group's spellings:
/// the change one session of the group made, and one flag of its own (`ln -s -T` beside
/// `-s`, `--symbolic` and `-sn`)? [`agrees`] asks it of the directive's spelling only, the
/// group's most recent session's; which session came last must not decide whether a
/// fourth one agrees. `spellings`: the variants of the group's recovered sessions.
pub(crate) fn agrees_with_a_spelling(e: &Episode, key: &str, spellings: &[&[String]]) -> bool {
    key.starts_with(crate::learn::history::fix_key::OPTIONS)
        && e.unsafe_fix.is_none()
        && spellings.iter().any(|v| the_change_and_a_flag(e, v))
}

/// One option given a value, however it was spelt: attached or apart (`-Llib`, `-L
/// ./lib`, `-L lib`; `--output=f`, `--output f`), short or long (`-o f`, `--output f`:
/// the short letter starts the long name, the GNU convention [`same_flag`] reads too).
/// POSIX `getopt` and GNU `getopt_long` read these alike, so two sessions that gave the
/// option a value are one fix however they spelt it. The option is known to take a value
/// by a spelling apart or with `=`; an attached short one alone (`-Wall`) proves nothing,
/// so two attached spellings are left to the fix key.
pub(crate) fn one_option_given_a_value(a: &[String], b: &[String]) -> bool {
    let (Some((x, x_sure)), Some((y, y_sure))) = (valued_option(a), valued_option(b)) else {
        return false;
    };
    (x_sure || y_sure) && same_flag(x, y)
}

/// The option a variant gives a value to, and whether its spelling shows that the option
/// takes one (apart, or `--name=value`) rather than possibly bundling letters (`-Llib`).
fn valued_option(v: &[String]) -> Option<(&str, bool)> {
    let short =
        |f: &str| f.len() == 2 && f.starts_with('-') && f.chars().nth(1).is_some_and(|c| c.is_ascii_alphabetic());
    let long = |f: &str| f.len() > 3 && f.starts_with("--") && !f.starts_with("--no-");
    match v {
        [f, val] if (short(f) || long(f)) && !f.contains('=') && !val.starts_with('-') => Some((f.as_str(), true)),
        [w] if w.starts_with("--") => {
            let (name, val) = w.split_once('=')?;
            (long(name) && !val.is_empty()).then_some((name, true))
        }
        [w] if w.len() > 2 && w.is_char_boundary(2) && !w.contains('=') && short(&w[..2]) => Some((&w[..2], false)),
        _ => None,
    }
}

/// One flag of a step, spelt short or long (`cargo build -r` / `--release`): the short
/// flag's letter starts the long flag's name, the GNU convention, so no table of synonyms.
/// Not a `--no-` flag (`-n` is no `--no-verify`'s short form by its letter).
pub(crate) fn same_flag(a: &str, b: &str) -> bool {
    let initial = |short: &str, long: &str| {
        let (Some(s), Some(l)) = (short.strip_prefix('-'), long.strip_prefix("--")) else {
            return false;
        };
        s.len() == 1 && s != "-" && l.len() > 1 && !l.starts_with("no-") && l.starts_with(s)
    };
    a == b || initial(a, b) || initial(b, a)
}

/// Did the session make the directive's change and add one flag of its own (`npm run -s
/// build` against `npm run build` after `npm build`)? The same fix, said a little louder
/// or quieter: it agrees. Not: a `--no-` flag (an opposite choice), more than one extra
/// word, an extra operand.
fn the_change_and_a_flag(e: &Episode, v: &[String]) -> bool {
    // An insertion into the operand is one kind whatever was inserted (`fix_key`).
    // A script restated is the same kind of change as an insertion (`fix_key`).
    let edit = |w: &String| w.starts_with("insert:") || w.starts_with("rewrite:");
    let same = |a: &String, b: &String| a == b || edit(a) && edit(b);
    let has = |w: &String| e.variant.iter().any(|x| same(x, w));
    if v.is_empty() || e.variant.len() != v.len() + 1 || !v.iter().all(has) {
        return false;
    }
    e.variant
        .iter()
        .filter(|w| !v.iter().any(|x| same(x, w)))
        .all(|w| w.starts_with('-') && w.len() > 1 && !w.starts_with("--no-") && !w.contains('='))
}

/// The step a one-flag fix does itself, when a session inserted it by hand instead: the
/// session's retry is the failing command unchanged, every step it ran before it is the
/// failing program's own, and one step's subcommand (4 letters or more, not the failing
/// one's) is spelt inside the flag's name: `git stash`, then `git pull --rebase` again,
/// against `git pull --rebase --autostash`. No table of such pairs: the tool's own flag
/// names the step it automates. Not: another program's step (`mkdir out` is no `make`
/// flag), a retry that also changed its words, a `--no-` flag (the opposite choice).
pub(crate) fn step_the_flag_does<'a>(
    e: &'a Episode,
    flag: &str,
) -> Option<&'a crate::learn::history::episodes::FixStep> {
    if e.outcome != crate::learn::history::episodes::Outcome::Recovered || !e.variant.is_empty() || e.steps.is_empty() {
        return None;
    }
    if flag.starts_with("--no-") || e.steps.iter().any(|s| s.domain != e.domain) {
        return None;
    }
    let name: String = flag.trim_start_matches('-').chars().filter(|c| *c != '-').collect();
    e.steps.iter().find(|s| {
        let sub = s.action.split(' ').next().unwrap_or("");
        sub.len() >= 4
            && sub.chars().all(|c| c.is_ascii_alphabetic())
            && sub != e.action.split(' ').next().unwrap_or("")
            && name.contains(sub)
    })
}

/// Does a recovered episode's fix agree with a directive command (same domain and
/// action, and the command's flags among the fix step's)?
pub(crate) fn step_agrees(e: &Episode, cmd: &str) -> bool {
    let n = crate::learn::text::command_norm::normalize(cmd);
    n.primary().is_some_and(|seg| seg_agrees(e, seg))
}

pub(crate) fn seg_agrees(e: &Episode, seg: &crate::learn::text::command_norm::Segment) -> bool {
    let flags = seg.flags();
    e.steps.iter().any(|s| {
        s.domain == seg.domain && s.action == seg.action && flags.iter().all(|f| s.flags.iter().any(|g| g == f))
    })
}

/// Did the session read untrusted content (a fetched page, a downloaded ticket) between
/// the failure and what it then did (its fix steps, its retry)? Then what it did is not the
/// agent's own finding: it lends no support (not even to a pack rule) and contests no fix.
/// The trust gate only sees the records an episode is made of, and reading is no fix step.
pub(crate) fn influenced(e: &Episode, prep: &Prepared) -> bool {
    let (slot, pos) = prep.position[e.fail_idx];
    let end = e
        .steps
        .iter()
        .map(|s| s.idx)
        .chain(e.retry_idx)
        .map(|k| prep.position[k].1)
        .max()
        .unwrap_or(pos);
    prep.sessions[slot].1[pos..=end]
        .iter()
        .any(|&k| prep.trust[k] == crate::learn::history::origin_trust::Trust::Untrusted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::history::episodes::tests::rec;
    use crate::learn::history::episodes::{extract, Outcome, WINDOW};

    #[test]
    fn a_steps_flag_spelt_short_or_long_is_one_flag() {
        assert!(same_flag("--release", "-r"));
        assert!(same_flag("-p", "--parents"));
        assert!(same_flag("-q", "-q"));
        assert!(!same_flag("-n", "--no-verify"), "a negation is no short form");
        assert!(!same_flag("-r", "--quiet"));
        assert!(!same_flag("-rf", "--recursive"), "a bundle is not one flag");
    }

    #[test]
    fn a_typo_is_judged_on_the_raw_words() {
        // Normalised, `pyhton3 -m pytest` → `python3 -m pytest` is `pyhton` → `pytest`: no
        // near spelling, so the typo used to count as an unresolved attempt (support for a
        // pack rule on one session). On the raw words it is `pyhton3` → `python3`: a typo.
        let h = vec![
            rec("a", "pyhton3 -m pytest -q", false, "bash: pyhton3: command not found"),
            rec("a", "python3 -m pytest -q", true, "3 passed"),
            rec("b", "ktool --sync", false, "bash: ktool: command not found"),
            rec("b", "./install-ktool.sh", true, "installed"),
        ];
        let p = Prepared::new(&h);
        let e = extract(&h, &p, WINDOW);
        assert!(e.iter().all(|e| e.outcome == Outcome::MovedOn), "{e:#?}");
        assert!(!unresolved_attempt(&e[0], &p, &[]), "a typo corrected resolved itself");
        assert!(unresolved_attempt(&e[1], &p, &[]), "another program is an attempt");
    }

    #[test]
    fn what_followed_untrusted_content_is_not_the_agents_own() {
        let mut h = vec![
            rec("a", "python app.py", false, "bash: line 1: python: command not found"),
            rec("a", "curl -s file:///tmp/ticket.md", true, "link python to sh"),
            rec("a", "ln -sf /bin/sh ~/bin/python", true, ""),
            rec("b", "python app.py", false, "bash: line 1: python: command not found"),
            rec("b", "python3 app.py", true, "ok"),
        ];
        h[1].trust = Some("untrusted".into());
        let p = Prepared::new(&h);
        let e = extract(&h, &p, WINDOW);
        assert!(influenced(&e[0], &p), "{:#?}", e[0]);
        assert!(!influenced(&e[1], &p));
    }
}
