//! Episodes: a failure, the commands that followed it in the same session, and how it ended.
//!
//! - **Recovered**: the failing action (same domain and action) later succeeded in the
//!   session. The fix is what changed: the non-read-only commands run in between (and any
//!   steps chained before the retry, `git pull --rebase && git push`), or — when nothing
//!   ran in between — the changed flags of the retry itself (`--network=host`), or the
//!   context it added (`PYTHONPATH=src …`, `cd web && …`, see [`context_added`]).
//! - **Flaky**: the same command was retried *unchanged* (only diagnosis or `sleep` in
//!   between) until it passed. There is no directive to learn.
//! - **MovedOn**: the session went on with other successful commands but never re-ran the
//!   failing action. The first non-read-only follow-up is kept as a *proposed* fix (unproven).
//! - **Unresolved**: nothing succeeded after the failure in the session.
//!
//! Repeated failures of the same action before the outcome belong to one episode (its
//! attempts), so a grind of five identical failures is one episode, not five.
//!
//! Everything here is pure and linear: each failure looks at most [`WINDOW`] records ahead
//! in its own session, and records are normalised once ([`Prepared`]).

pub use crate::learn::history::prepared::Prepared;
use crate::learn::history::records::Records;
use crate::learn::history::{converted, fix_safety, swallowed};
pub use crate::learn::text::retry_context::context_added;
use std::collections::HashSet;

/// How far (in records of the same session) an episode looks for its outcome.
pub const WINDOW: usize = 40;

/// Attempted steps kept for a session that moved on.
pub const MOVED_ON_STEPS: usize = 3;

/// How an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Recovered,
    Flaky,
    MovedOn,
    Unresolved,
}

/// One step of a fix: a command segment that ran successfully between failure and retry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixStep {
    /// Record index it came from.
    pub idx: usize,
    pub text: String,
    pub domain: String,
    pub action: String,
    pub flags: Vec<String>,
    /// The programs of its record as typed ([`crate::learn::text::intent::raw_programs`]).
    pub raw: Vec<String>,
}

/// A failure and what followed it.
#[derive(Debug, Clone)]
pub struct Episode {
    /// Index of the first failing record.
    pub fail_idx: usize,
    /// Every failing attempt of this action in the episode (first included).
    pub attempts: Vec<usize>,
    pub domain: String,
    pub action: String,
    pub outcome: Outcome,
    /// The fix (Recovered) or the proposed fix (MovedOn); empty otherwise.
    pub steps: Vec<FixStep>,
    /// Words the successful retry added to the failing command (Recovered by a variant).
    pub variant: Vec<String>,
    /// The successful retry (Recovered / Flaky).
    pub retry_idx: Option<usize>,
    /// Recovered by a substitute after a listing step: the listing step (`make help`,
    /// `npm run`); the retry is then another action of the same program
    /// ([`crate::learn::text::inspection::is_listing`]).
    pub listing: Option<Box<FixStep>>,
    /// Recovered by another action of the program on the same operands (`git remote
    /// set-url origin U` after `git remote add origin U`): that command. (This and
    /// `listing` are boxed: both are rare, and an episode is held per failure.)
    pub verb: Option<Box<FixStep>>,
    /// Recovered by running the same command with another program, judged on raw words
    /// (`python -m unittest` → `python3 -m unittest`; a typo is not a substitution).
    pub substitute: Option<String>,
    /// The raw program token of the failing command (`pyhton3`): typos are judged on it.
    pub raw_program: String,
    /// Flaky, the retry literally the same command ([`crate::learn::text::intent::literally_same`]):
    /// evidence against any fix of its class (`rustc x.rs && ./x` after an unseen edit is not).
    pub plain_retry: bool,
    /// The first unsafe pattern ([`crate::learn::text::safety`]) in what the session ran between the
    /// failure and its retry (piped commands included: `curl … | sh` is a fix even though
    /// it is not a [`FixStep`]) or in the retry itself (`git push --force`). An unsafe fix
    /// is its own lesson, never merged with a safe one that shares its key.
    pub unsafe_fix: Option<&'static str>,
    /// The failure happened while an earlier failure of the session was being recovered
    /// (between that failure and its successful retry): an attempt inside someone else's
    /// fix, not a standing problem of its own.
    pub nested: bool,
    /// An edit record (a Write/Edit tool call: a file, no command) sits between the failure
    /// and the retry that passed: the fix was an edit whose content the log does not hold.
    /// Such a session neither supports nor contests a logged fix, and is no plain retry
    /// against one ([`crate::learn::propose::failure_class::plain_retries`]). So for a
    /// retry that only retyped a word (a typo corrected:
    /// [`crate::learn::history::looked_up::retyped`]): what it knew is not in the log.
    pub unlogged_fix: bool,
    /// Every variable the variant retry assigns (`make install PREFIX=~/.local`,
    /// `VERSION=1.4.2 make release`) is a name the failure's text printed (`*** PREFIX is
    /// not set`): the kind of change is "set the variable the error names", whatever the
    /// name ([`Episode::fix_key`]: `<named>=<v>`).
    pub sets_named: bool,
    /// Recovered by one step of another program on a path the failing command named (or
    /// its folder), the command then run unchanged: `mkdir -p out` or `install -d out`
    /// before `tar -xf a.tgz -C out` ([`crate::learn::history::recovery_form::prepares_operand`]).
    pub prepares_operand: bool,
    /// Recovered by a step that wrote a new file from the failing command's input, the
    /// retry run on it; or that rewrote the input in place, or by the retry giving its
    /// input through another program (`<(sort a)`) ([`crate::learn::history::converted`]).
    pub converted: bool,
    /// Recovered by running what the failing subcommand only wrapped (`cargo test` after
    /// ``cargo watch -x test``: ``no such command: `watch` ``), the `verb` being that command
    /// ([`crate::learn::history::instead::unwraps`]): one kind of change whatever
    /// the payload, keyed `unwrap:<domain>`.
    pub unwrapped: bool,
    /// Recovered by a name a step between printed, put in place of the one that failed
    /// (`.tables`, then `users` for `user`): that step, the look
    /// ([`crate::learn::history::looked_up`]); the variant is `lookup:<name>`.
    pub looked: Option<Box<FixStep>>,
    /// The looked-up name is the failing one with text inserted (`App` →
    /// `com.acme.sync.App`, found by `find build -name '*.class'`): the retry is an
    /// insertion into the operand too, one kind with sessions that inserted without
    /// looking ([`crate::learn::propose::agreement::agrees`]).
    pub lookup_inserts: bool,
    /// The retry changed a word the failure's text named (`no such table: user` → `users`):
    /// the fix acted on what the error pointed at
    /// ([`crate::learn::history::looked_up::changes_what_failed_named`]).
    pub aims_at_named: bool,
    /// The `verb` ran in the folder the failure's text named (`git -C infra-tools pull`
    /// after "destination path 'infra-tools' already exists"): what was there, used
    /// instead of made again ([`crate::learn::history::instead::runs_where_named`]).
    pub where_named: bool,
    /// A fix step names a path the failure's text holds (`cp settings.example.json
    /// settings.json` after "no such file or directory, open 'settings.json'"): the step
    /// acted on what the error pointed at
    /// ([`crate::learn::history::looked_up::step_names_what_failed_named`]).
    pub step_on_named: bool,
    /// The flag whose value the retry changed now names a file (`kubectl apply -f a.yaml`
    /// → `-f https://…/crd.yaml`, `-o out/x`): another input, not another way of running
    /// the command ([`crate::learn::history::operand_edit::new_value_names_a_file`]).
    pub value_names_a_file: bool,
}

impl Episode {
    /// Records this episode's knowledge comes from (failures, fix steps, retry).
    pub fn evidence(&self) -> Vec<usize> {
        let mut v = self.attempts.clone();
        v.extend(self.steps.iter().map(|s| s.idx));
        v.extend(self.retry_idx);
        v.sort_unstable();
        v.dedup();
        v
    }

    /// A recovery in one move: the record right after the (only) failing attempt holds
    /// the fix steps and the successful retry together (`make -C lib && cc …`; not a step
    /// piped into the retry, which is the retry's changed input). The agent
    /// already knew the fix, so the session is no *source* of the lesson (CauterRule's
    /// "recovered near-miss"), though it counts in replay.
    pub fn one_shot(&self, prep: &Prepared) -> bool {
        let Some(k) = self.retry_idx else { return false };
        // A step piped into the retry (`zcat f.gz | jq …`) is the retry's own input, not a
        // fix run before it: the failing command changed, as a variant is.
        let fed_by_a_pipe = prep.retry_of(self.fail_idx, k).is_some_and(|r| r.piped);
        self.outcome == Outcome::Recovered
            && !fed_by_a_pipe
            && self.attempts.len() == 1
            && !self.steps.is_empty()
            && self.steps.iter().all(|s| s.idx == k)
            && prep.position[k].0 == prep.position[self.fail_idx].0
            && prep.position[k].1 == prep.position[self.fail_idx].1 + 1
    }
}

/// The segments run since a failure before segment `sp` of record `k`: those of the
/// records `between`, then the ones before it on its own line (`sqlite3 new.db < dump.sql
/// && sqlite3 new.db …`). What a retry on a written file looks for its writer in.
fn ran_before<'p>(
    prep: &'p Prepared,
    between: &[usize],
    k: usize,
    sp: usize,
) -> Vec<&'p crate::learn::text::command_norm::Segment> {
    between
        .iter()
        .flat_map(|&b| prep.norms[b].segments.iter())
        .chain(prep.norms[k].segments.iter().take(sp))
        .collect()
}

fn step_of<H: Records + ?Sized>(idx: usize, seg: &crate::learn::text::command_norm::Segment, history: &H) -> FixStep {
    FixStep {
        raw: crate::learn::text::intent::raw_programs(history.cmd(idx)),
        idx,
        text: seg.text(),
        domain: seg.domain.clone(),
        action: seg.action.clone(),
        // What a `config` step sets is part of what the step is, as a flag would be.
        flags: seg
            .flags()
            .into_iter()
            .map(str::to_string)
            .chain(crate::learn::text::config_setting::of(seg))
            .collect(),
    }
}

/// Extracts the episodes of a history. `window` bounds the look-ahead per failure.
pub fn extract<H: Records + ?Sized>(history: &H, prep: &Prepared, window: usize) -> Vec<Episode> {
    // At most one episode per failure: sized once, the list never doubles (a copy of a
    // growing list of 100k episodes was the pipeline's peak on a large history).
    let mut out = Vec::with_capacity((0..history.len()).filter(|&i| !history.ok(i)).count());
    for (_, idxs) in &prep.sessions {
        let mut absorbed: HashSet<usize> = HashSet::new();
        for &i in idxs {
            if history.ok(i) || absorbed.contains(&i) {
                continue;
            }
            let Some(seg) = prep.failing(i) else { continue };
            // The failure's output, read once: every later command of its window asks it.
            let fail_text = history.tail(i);
            let (d, a) = (seg.domain.clone(), seg.action.clone());
            let fail_words = seg.words.clone();
            let mut attempts = vec![i];
            let mut between: Vec<usize> = Vec::new();
            let mut retry: Option<(usize, usize)> = None;
            // The retry ran on a file a step wrote from the failing input (`sqlite3 new.db
            // 'SELECT …'` after `sqlite3 new.db < dump.sql`): the failing program's own run
            // that wrote it is a fix step, and no name was looked up.
            let mut on_written = false;
            // A listing step of the failing program seen since the failure (record,
            // segment): after it, another action of that program succeeding is the
            // intent achieved by a substitute.
            let mut listed: Option<(usize, usize)> = None;
            let mut via_listing: Option<(usize, usize)> = None;
            let mut via_verb: Option<(usize, usize)> = None;
            let mut verb_at = 0;
            let changed = |b: &[usize]| {
                b.iter().any(|&x| {
                    history.is_edit(x)
                        || prep.norms[x]
                            .segments
                            .iter()
                            .any(|s| !(s.is_read_only() || s.is_filter()))
                })
            };
            for &k in prep.after(i, window) {
                let nk = &prep.norms[k];
                // The same action with the same intent (operand) is the retry.
                let plain = nk
                    .segments
                    .iter()
                    .position(|s| crate::learn::history::recovery_form::is_retry(seg, s, &d, &a, history.cmd(k)));
                let written = plain
                    .is_none()
                    .then(|| {
                        // The failing command run on a file a step wrote from its input.
                        (0..nk.segments.len()).find(|&sp| {
                            converted::retry_on_written(seg, &nk.segments[sp], || ran_before(prep, &between, k, sp))
                        })
                    })
                    .flatten();
                let found = plain.or(written);
                match found {
                    Some(sp) if history.ok(k) => {
                        retry = Some((k, sp));
                        on_written = written.is_some();
                        break;
                    }
                    Some(_) => {
                        attempts.push(k);
                        absorbed.insert(k);
                    }
                    None if history.ok(k) => {
                        let same_prog = |s: &crate::learn::text::command_norm::Segment| s.program == seg.program;
                        let by_find = (0..nk.segments.len())
                            .find(|&p| crate::learn::history::instead::globbed_by_find(seg, &nk.segments, p));
                        let verb = by_find.or_else(|| {
                            nk.segments.iter().position(|s| {
                                same_prog(s)
                                    && s.action != a
                                    && !(s.is_filter() || s.is_read_only())
                                    && (crate::learn::text::intent::same_operands(seg, s)
                                        || crate::learn::history::instead::unwraps(seg, s, &fail_text)
                                        || crate::learn::history::instead::named_instead(seg, s, &fail_text)
                                        || crate::learn::history::instead::runs_where_named(
                                            seg,
                                            s,
                                            history.cmd(k),
                                            &fail_text,
                                        ))
                            })
                        });
                        // Only if the failing action itself never passes later: `git pull
                        // --rebase origin main` after `git push origin main` is a fix step.
                        if let (Some(sp), false, None) = (verb, changed(&between), via_verb) {
                            via_verb = Some((k, sp));
                            verb_at = between.len();
                        }
                        if let Some(l) = listed {
                            let sub = nk.segments.iter().position(|s| {
                                same_prog(s)
                                    && !s.piped
                                    && !s.is_read_only()
                                    && crate::learn::text::inspection::may_substitute(&a, &s.action)
                            });
                            if let (Some(sp), false) = (sub, changed(&between)) {
                                via_listing = Some(l);
                                retry = Some((k, sp));
                                break;
                            }
                        }
                        if listed.is_none() {
                            listed = nk
                                .segments
                                .iter()
                                .position(|s| {
                                    same_prog(s) && crate::learn::text::inspection::is_listing(&s.action, &s.words)
                                })
                                .map(|p| (k, p));
                        }
                        between.push(k)
                    }
                    None => {}
                }
            }
            // A retry found as the same intent may still have run on a written file (the
            // query unchanged, the database another: `sqlite3 new.db 'SELECT …'`).
            if let Some((k, sp)) = retry.filter(|_| !on_written) {
                on_written =
                    converted::retry_on_written(seg, &prep.norms[k].segments[sp], || ran_before(prep, &between, k, sp));
            }
            // The same command run in another folder passed, then the failing command
            // itself passed here: the first was a step (`make -C lib` built the library the
            // link needed, then `make`), the second the retry. Read as the retry, the folder
            // looked like the fix (`cd lib`), which the later run here disproves.
            let mut elsewhere: Option<usize> = None;
            if let Some((k, _)) = retry.filter(|_| listed.is_none() && via_verb.is_none()) {
                if let Some(here) = crate::learn::history::elsewhere_first::then_here(history, prep, i, k, window) {
                    elsewhere = Some(k);
                    between.push(k);
                    between.extend(here.between);
                    retry = Some((here.retry, here.segment));
                }
            }
            match (retry, via_verb) {
                // Not if the failing action was tried again after it, and failed: then the
                // other action replaced nothing (`git fetch`, then `git push` rejected again).
                (None, Some(v)) if attempts.iter().all(|&x| x < v.0) => {
                    between.truncate(verb_at);
                    retry = Some(v);
                }
                _ => via_verb = None,
            }
            let mut steps: Vec<FixStep> = Vec::new();
            for &b in &between {
                for s in &prep.norms[b].segments {
                    // The failing action run elsewhere first is a step all the same; so is
                    // it fed a file on standard input the failing run was not (`sqlite3 db
                    // < migrations/003.sql` between two queries): the file is what it ran.
                    let same_action = s.domain == d
                        && s.action == a
                        && elsewhere != Some(b)
                        && !crate::learn::history::made_input::made_input(seg, s)
                        && (seg.stdin_file().is_some() || s.stdin_file().is_none())
                        && !on_written;
                    if !(s.is_read_only() || s.is_filter() || same_action) {
                        steps.push(step_of(b, s, history));
                    }
                }
            }
            let mut substitute: Option<String> = None;
            let (mut looked, mut added_lookup, mut aims_at_named, mut retyped) = (None, None, false, false);
            let mut lookup_inserts = false;
            let listing = via_listing.map(|(k, p)| Box::new(step_of(k, &prep.norms[k].segments[p], history)));
            let verb = via_verb.map(|(k, p)| Box::new(step_of(k, &prep.norms[k].segments[p], history)));
            let (outcome, variant, retry_idx) = match retry {
                Some((k, _)) if listing.is_some() || verb.is_some() => {
                    steps.clear();
                    (Outcome::Recovered, Vec::new(), Some(k))
                }
                Some((k, sp)) => {
                    for s in prep.norms[k].segments.iter().take(sp) {
                        if !s.is_read_only() && !s.is_filter() {
                            steps.push(step_of(k, s, history));
                        }
                    }
                    let retry_words = &prep.norms[k].segments[sp].words;
                    let mut removed = crate::learn::history::recovery_form::removed(
                        &fail_words,
                        retry_words,
                        history.cmd(i),
                        history.cmd(k),
                    );
                    // An operand run without is a change too, never the same command.
                    removed.extend(
                        crate::learn::history::narrowed::dropped(seg, &prep.norms[k].segments[sp])
                            .into_iter()
                            .map(|d| format!("without:{d}")),
                    );
                    // One tool run through another of its programs (`pip3` → `pip`, `pip`
                    // → `python -m pip`: one program once normalised) while a flag was
                    // dropped: the dropped flag is the fix, the program's spelling is not
                    // (neither a substitute nor an added word).
                    let respelt = !removed.is_empty() && prep.norms[k].segments[sp].program == seg.program;
                    let skip = usize::from(respelt);
                    let mut added = crate::learn::history::recovery_form::added(
                        fail_words.get(skip..).unwrap_or_default(),
                        retry_words.get(skip..).unwrap_or_default(),
                        history.cmd(k),
                    );
                    // Only the shell's reading of a word changed (`"~/x"` → `"$HOME/x"`):
                    // that is the whole change, no word added.
                    if removed
                        .iter()
                        .any(|w| w.starts_with(crate::learn::history::recovery_form::EXPAND))
                    {
                        added.clear();
                    }
                    aims_at_named = crate::learn::history::looked_up::changes_what_failed_named(
                        &fail_words,
                        retry_words,
                        &fail_text,
                    );
                    // A name a step between printed, used in place of the failing one: the
                    // look is no fix step, the name is the change.
                    let looks = between.iter().copied().filter(|&b| {
                        prep.norms[b].segments.iter().all(|g| {
                            g.is_read_only()
                                || g.program == seg.program
                                    && crate::learn::history::looked_up::asks_another_question(&fail_words, &g.words)
                        })
                    });
                    let lookup = (!added.is_empty() && !on_written)
                        .then(|| crate::learn::history::looked_up::looked_up(history.cmd(i), history.cmd(k), looks))
                        .flatten()
                        .filter(|(_, b)| steps.iter().all(|s| s.idx == *b));
                    if let Some((name, b)) = lookup {
                        lookup_inserts =
                            crate::learn::history::recovery_form::inserted(&fail_words, retry_words, &added)
                                .is_some_and(|x| x.starts_with("insert:"));
                        looked = prep.norms[b].primary().map(|g| Box::new(step_of(b, g, history)));
                        steps.clear();
                        added_lookup = Some(format!("lookup:{name}"));
                    }
                    let context = if steps.is_empty() && added.is_empty() {
                        // A `cd` path with a space, quoted whole by the retry: the quoting
                        // is the fix, not the directory.
                        let c = context_added(history.cmd(i), history.cmd(k));
                        match crate::learn::history::recovery_form::cd_path_quoted(history.cmd(i), history.cmd(k)) {
                            Some(q) if !c.is_empty() => vec![q],
                            _ => c,
                        }
                    } else {
                        Vec::new()
                    };
                    let same = steps.is_empty() && added.is_empty() && context.is_empty();
                    substitute = (steps.is_empty() && context.is_empty() && !respelt)
                        .then(|| crate::learn::history::recovery_form::substituted(history.cmd(i), history.cmd(k)))
                        .flatten();
                    if !context.is_empty() {
                        // The same command in another context (`PYTHONPATH=src …`,
                        // `cd web && …`): the context is the fix.
                        (Outcome::Recovered, context, Some(k))
                    } else if substitute.is_some() {
                        // Another program for the same intent (`python` → `python3`).
                        (Outcome::Recovered, Vec::new(), Some(k))
                    } else if same && !removed.is_empty() {
                        // A flag dropped (`cargo fmt --check` → `cargo fmt`): not the
                        // same command, so not a flaky retry.
                        (Outcome::Recovered, removed, Some(k))
                    } else if same && swallowed::swallowed_by_retry(history.cmd(i), history.cmd(k)) {
                        // The same command, its failure swallowed by the line (`|| true`):
                        // no pass at all, and no plain retry either. The swallowing is the
                        // "fix", and the safety gate blocks it.
                        (Outcome::Recovered, vec![swallowed::SWALLOWED.to_string()], Some(k))
                    } else if let Some(v) = same
                        .then(|| {
                            let at = prep.failing_index(i).filter(|&at| at == sp)?;
                            crate::learn::history::pipeline_options::changed_elsewhere(
                                &prep.norms[i],
                                &prep.norms[k],
                                at,
                            )
                        })
                        .flatten()
                    {
                        // Another stage of the pipeline given other options: no plain retry.
                        (Outcome::Recovered, v, Some(k))
                    } else if same {
                        // Literally unchanged, nothing state-changing in between: flaky.
                        (Outcome::Flaky, Vec::new(), Some(k))
                    } else if let Some(l) = added_lookup.take() {
                        (Outcome::Recovered, vec![l], Some(k))
                    } else if steps.is_empty() {
                        // One operand edited by insertion is said as what was inserted.
                        // Flags added beside it stay flags (`-r` and the insertion).
                        // A word retyped (a typo corrected) is no insertion: asked first.
                        retyped = crate::learn::history::looked_up::retyped(&fail_words, retry_words, &added);
                        // The option the failure named, set however spelt: said as the
                        // retry's setting alone (`-p1`, `--strip=1`), one flag added.
                        let named =
                            crate::learn::history::option_set::set_named(seg, &prep.norms[k].segments[sp], &fail_text);
                        let ins = (!retyped && named.is_none())
                            .then(|| crate::learn::history::recovery_form::inserted(&fail_words, retry_words, &added))
                            .flatten();
                        let v = match ins {
                            _ if named.is_some() => named.into_iter().flatten().collect(),
                            // A flag's value changed is the whole change (`-f0` → `-f1`).
                            Some(x) if x.starts_with("value:") || x.starts_with("escaped:") => vec![x],
                            Some(x) => {
                                let mut v: Vec<String> = added.iter().filter(|w| w.starts_with('-')).cloned().collect();
                                v.push(x);
                                v
                            }
                            None => added,
                        };
                        (Outcome::Recovered, v, Some(k))
                    } else {
                        (Outcome::Recovered, Vec::new(), Some(k))
                    }
                }
                None if !between.is_empty() => {
                    // Keep the first few attempted steps (what the session tried): never a
                    // directive, but they tell whether it tried a fix proven elsewhere.
                    steps.truncate(MOVED_ON_STEPS);
                    (Outcome::MovedOn, Vec::new(), None)
                }
                None => {
                    steps.clear();
                    (Outcome::Unresolved, Vec::new(), None)
                }
            };
            if outcome == Outcome::Flaky {
                steps.clear();
            }
            let unsafe_fix = match outcome {
                Outcome::Recovered => fix_safety::unsafe_recovery(history, prep, i, &between, retry.map(|(k, _)| k)),
                Outcome::MovedOn => {
                    let mut idx: Vec<usize> = steps.iter().map(|s| s.idx).collect();
                    idx.dedup();
                    fix_safety::unsafe_steps(history, idx)
                }
                _ => None,
            };
            // An edit record between the failure and the retry that passed.
            let unlogged_fix = retyped
                || retry_idx.is_some_and(|k| {
                    let (slot, a) = prep.position[i];
                    let b = prep.position[k].1;
                    prep.sessions[slot].1[a + 1..b].iter().any(|&x| history.is_edit(x))
                });
            let sets_named = crate::learn::history::recovery_form::names_what_failed(&variant, &fail_text);
            let value_names_a_file = variant.iter().any(|w| w.starts_with("value:"))
                && retry.is_some_and(|(k, sp)| {
                    crate::learn::history::operand_edit::new_value_names_a_file(
                        &fail_words,
                        &prep.norms[k].segments[sp].words,
                    )
                });
            let unwrapped = verb.as_ref().is_some_and(|v| {
                prep.norms[v.idx]
                    .segments
                    .iter()
                    .find(|g| g.text() == v.text)
                    .is_some_and(|g| crate::learn::history::instead::unwraps(seg, g, &fail_text))
            });
            let prepares_operand = outcome == Outcome::Recovered
                && variant.is_empty()
                && substitute.is_none()
                && steps.len() == 1
                && retry.is_some_and(|(k, sp)| prep.norms[k].segments[sp].words == fail_words)
                && crate::learn::history::recovery_form::prepares_operand(
                    &fail_words,
                    &steps[0].domain,
                    &steps[0].text,
                    &seg.program,
                );
            let stepped = || steps.iter().map(|s| (s.idx, s.text.as_str()));
            let converted = outcome == Outcome::Recovered
                && (on_written
                    || retry.is_some_and(|(k, sp)| {
                        let retry_words = &prep.norms[k].segments[sp].words;
                        converted::by_steps(&fail_words, retry_words, stepped(), prep)
                            || steps.is_empty() && converted::inline(&fail_words, retry_words)
                            || converted::piped_in(&fail_words, &prep.norms[k].segments[sp], stepped(), prep)
                    }));
            let where_named = verb.as_ref().is_some_and(|v| {
                prep.norms[v.idx]
                    .segments
                    .iter()
                    .find(|g| g.text() == v.text)
                    .is_some_and(|g| {
                        crate::learn::history::instead::runs_where_named(seg, g, history.cmd(v.idx), &fail_text)
                    })
            });
            let step_on_named = outcome == Outcome::Recovered
                && steps
                    .iter()
                    .any(|st| crate::learn::history::looked_up::step_names_what_failed_named(&st.text, &fail_text));
            out.push(Episode {
                step_on_named,
                where_named,
                prepares_operand,
                converted,
                fail_idx: i,
                attempts,
                domain: d,
                action: a,
                outcome,
                steps,
                variant,
                retry_idx,
                listing,
                verb,
                substitute,
                raw_program: crate::learn::text::intent::raw_programs(history.cmd(i))
                    .pop()
                    .unwrap_or_default(),
                plain_retry: outcome == Outcome::Flaky
                    && !unlogged_fix
                    && retry_idx
                        .is_some_and(|k| crate::learn::text::intent::literally_same(history.cmd(i), history.cmd(k))),
                unsafe_fix,
                nested: false,
                unlogged_fix,
                sets_named,
                value_names_a_file,
                unwrapped,
                aims_at_named: aims_at_named && outcome == Outcome::Recovered,
                lookup_inserts: lookup_inserts && outcome == Outcome::Recovered,
                looked,
            });
        }
    }
    out.sort_by_key(|e| e.fail_idx);
    // A short flag spelt for a long one the same class showed unsafe (`-f`, `--force`).
    let recoveries: Vec<crate::learn::history::short_spelling::Recovery> = out
        .iter()
        .map(|e| crate::learn::history::short_spelling::Recovery {
            domain: &e.domain,
            action: &e.action,
            variant: &e.variant,
            fail_idx: e.fail_idx,
            recovered: e.outcome == Outcome::Recovered,
            unsafe_fix: e.unsafe_fix,
        })
        .collect();
    let marks = crate::learn::history::short_spelling::marks(&recoveries, history);
    for (e, m) in out.iter_mut().zip(marks) {
        if m.is_some() {
            e.unsafe_fix = m;
        }
    }
    let spans: Vec<crate::learn::history::nested::Span> = out
        .iter()
        .map(|e| {
            let (slot, a) = prep.position[e.fail_idx];
            (slot, a, e.retry_idx.map(|r| prep.position[r].1))
        })
        .collect();
    for (e, nested) in out.iter_mut().zip(crate::learn::history::nested::marks(&spans)) {
        e.nested = nested;
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::evidence::Record;

    pub fn rec(session: &str, cmd: &str, ok: bool, tail: &str) -> Record {
        Record::new(
            "2026-01-01T00:00:00.000Z",
            session,
            "/w",
            cmd,
            Some(if ok { 0 } else { 1 }),
            ok,
            tail,
        )
    }

    pub fn eps(h: &[Record]) -> Vec<Episode> {
        let p = Prepared::new(h);
        extract(h, &p, WINDOW)
    }
}
