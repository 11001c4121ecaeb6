//! External extractors: one extra candidate per failure cluster, proposed by a command
//! (`--extractor-cmd`), then judged by the same replay and gates as everything learned.
//!
//! Why apart from the pipeline: it is the one place the pipeline talks to the outside
//! (a child process), and it must stay optional — nothing depends on a proposal.

use crate::learn::history::episodes::{Episode, Outcome, Prepared};
use crate::learn::history::records::Records;
use crate::learn::propose::candidates::{backticked, Candidate, DirectiveSource};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::time::Duration;

pub(crate) fn extractor_candidates<H: Records + ?Sized>(
    base: &[Candidate],
    eps: &[Episode],
    history: &H,
    prep: &Prepared,
    proposer: Proposer,
) -> Vec<Candidate> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for c in base {
        if !seen.insert(c.cluster.as_str()) {
            continue;
        }
        let Some(&ei) = c.episodes.first() else { continue };
        let e = &eps[ei];
        let brief = EpisodeBrief {
            domain: c.domain.clone(),
            action: c.action.clone(),
            command: history.cmd(e.fail_idx).to_string(),
            output: history.tail(e.fail_idx).to_string(),
            signature: c.template.clone(),
            anchors: c.anchors.clone(),
            followups: prep
                .after(e.fail_idx, 5)
                .iter()
                .map(|&k| history.cmd(k).to_string())
                .collect(),
            outcome: outcome_name(e.outcome).to_string(),
        };
        let Some(p) = proposer(&brief) else { continue };
        if p.trigger.trim().is_empty() || p.directive.trim().is_empty() {
            continue;
        }
        let anchors = crate::learn::text::signature::anchors(&p.trigger);
        let norm_dir: String = crate::learn::matching::matcher::terms(&p.directive).join(" ");
        out.push(Candidate {
            key: format!("{}||x:{}", c.cluster, norm_dir),
            cluster: c.cluster.clone(),
            domain: c.domain.clone(),
            domains: c.domains.clone(),
            member_clusters: c.member_clusters.clone(),
            action: c.action.clone(),
            label: c.label.clone(),
            actions: c.actions.clone(),
            anchors,
            template: c.template.clone(),
            trigger: p.trigger.trim().to_string(),
            directive: p.directive.trim().to_string(),
            source: DirectiveSource::Extractor,
            directive_cmds: backticked(&p.directive),
            directive_action: None,
            episodes: base
                .iter()
                .filter(|o| o.cluster == c.cluster)
                .flat_map(|o| o.episodes.clone())
                .collect(),
            unsafe_fix: None,
            recovered_in_cluster: c.recovered_in_cluster,
            fix_keys_in_cluster: c.fix_keys_in_cluster,
            cleared_plainly: c.cleared_plainly,
            cured_unsafely: 0,
            targeted: false,
            covered: None,
            covering: Vec::new(),
            spelt_so: 0,
            class_unresolved: c.class_unresolved,
            remedy_known: false,
        });
    }
    out
}

/// Runs an external extractor command (`sh -c CMD`, the brief as JSON on stdin, a
/// `{trigger, directive}` JSON object expected on stdout). Any failure → no proposal.
pub fn command_proposer(cmd: &str, timeout: Duration) -> impl Fn(&EpisodeBrief) -> Option<Proposal> + '_ {
    move |brief| {
        use std::io::Write;
        use std::process::{Command, Stdio};
        use wait_timeout::ChildExt;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let input = serde_json::to_string(brief).ok()?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        match child.wait_timeout(timeout).ok()? {
            Some(_) => {}
            None => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
        let mut out = String::new();
        use std::io::Read;
        child.stdout.take()?.read_to_string(&mut out).ok()?;
        serde_json::from_str::<Proposal>(out.trim()).ok()
    }
}

/// An outcome's name in reports and in what an extractor sees (`moved_on`).
pub(crate) fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Recovered => "recovered",
        Outcome::Flaky => "flaky",
        Outcome::MovedOn => "moved_on",
        Outcome::Unresolved => "unresolved",
    }
}

/// A trigger/directive proposed by an external extractor for one cluster.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Proposal {
    pub trigger: String,
    pub directive: String,
}

/// What an external extractor sees of a cluster (JSON on its stdin).
#[derive(Debug, Clone, Serialize)]
pub struct EpisodeBrief {
    pub domain: String,
    pub action: String,
    pub command: String,
    pub output: String,
    pub signature: String,
    pub anchors: Vec<String>,
    pub followups: Vec<String>,
    pub outcome: String,
}

/// An external proposer of `{trigger, directive}` for a cluster (see [`crate::learn::command_proposer`]).
pub type Proposer<'a> = &'a dyn Fn(&EpisodeBrief) -> Option<Proposal>;
