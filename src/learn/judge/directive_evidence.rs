//! Directive evidence: does history show the directive *working*?
//!
//! Every validating system we know (CauterRule, ThumbGate, callusguard) counts a failure
//! as "prevented" when the trigger matches it; none checks that the directive led to
//! success. Here, for each failure the rule matches, we look ahead in its session: was the
//! directive's action taken (the step ran, or the retry carried the added flags), and did
//! the failing action then succeed (`worked`) or fail again (`failed`)? A directive that
//! failed more often than it worked is never promoted (`directive_fails`).

use crate::learn::history::episodes::Prepared;
use crate::learn::history::records::Records;
use crate::learn::judge::rule::DirectiveEvidence;
use crate::learn::propose::directive::DirectiveAction;

fn has_flags(words: &[String], flags: &[String]) -> bool {
    flags
        .iter()
        .all(|f| words.iter().any(|w| w == f || w.starts_with(&format!("{f}="))))
}

/// Measures directive evidence over the failures a rule matched.
pub fn measure<H: Records + ?Sized>(
    failures: &[usize],
    act: &DirectiveAction,
    history: &H,
    prep: &Prepared,
    window: usize,
) -> DirectiveEvidence {
    let mut ev = DirectiveEvidence::default();
    for &f in failures {
        let Some(fseg) = prep.failing(f) else { continue };
        let (d, a) = (fseg.domain.as_str(), fseg.action.as_str());
        let mut taken = false;
        for &k in prep.after(f, window) {
            let n = &prep.norms[k];
            match act {
                DirectiveAction::Step { domain, action, flags } => {
                    let step_at = n
                        .segments
                        .iter()
                        .position(|s| s.domain == *domain && s.action == *action && has_flags(&s.words, flags));
                    if !taken {
                        if let Some(p) = step_at {
                            taken = true;
                            ev.taken += 1;
                            // `step && retry` in one record: its status is the retry's.
                            if n.segments.iter().skip(p + 1).any(|s| s.domain == d && s.action == a) {
                                if history.ok(k) {
                                    ev.worked += 1;
                                } else {
                                    ev.failed += 1;
                                }
                                break;
                            }
                            continue;
                        }
                        if n.find(d, a).is_some() && history.ok(k) {
                            break; // resolved without the directive
                        }
                    } else if n.find(d, a).is_some() {
                        if history.ok(k) {
                            ev.worked += 1;
                        } else {
                            ev.failed += 1;
                        }
                        break;
                    }
                }
                DirectiveAction::AddFlags(flags) => {
                    if let Some(p) = n.find(d, a) {
                        if has_flags(&n.segments[p].words, flags) {
                            ev.taken += 1;
                            if history.ok(k) {
                                ev.worked += 1;
                            } else {
                                ev.failed += 1;
                            }
                            break;
                        }
                        if history.ok(k) {
                            break;
                        }
                    }
                }
            }
        }
    }
    ev
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::history::episodes::tests::rec;

    fn step() -> DirectiveAction {
        DirectiveAction::Step {
            domain: "git".into(),
            action: "pull".into(),
            flags: vec!["--rebase".into()],
        }
    }

    #[test]
    fn counts_worked_and_failed() {
        let h = vec![
            rec("a", "git push", false, "rejected"),
            rec("a", "git pull --rebase", true, ""),
            rec("a", "git push", true, ""),
            rec("b", "git push", false, "rejected"),
            rec("b", "git pull --rebase && git push", false, "rejected"),
            rec("c", "git push", false, "rejected"),
            rec("c", "git push", true, ""),
        ];
        let p = Prepared::new(&h);
        let ev = measure(&[0, 3, 5], &step(), &h, &p, 40);
        assert_eq!(
            ev,
            DirectiveEvidence {
                taken: 2,
                worked: 1,
                failed: 1
            }
        );
        assert!(!ev.negative());
        let ev2 = measure(&[3], &step(), &h, &p, 40);
        assert!(ev2.negative());
    }

    #[test]
    fn added_flags() {
        let h = vec![
            rec("a", "docker build .", false, "timeout"),
            rec("a", "docker build --network=host .", true, ""),
        ];
        let p = Prepared::new(&h);
        let ev = measure(
            &[0],
            &DirectiveAction::AddFlags(vec!["--network=host".into()]),
            &h,
            &p,
            40,
        );
        assert_eq!(
            ev,
            DirectiveEvidence {
                taken: 1,
                worked: 1,
                failed: 0
            }
        );
    }
}
