//! Necessity: was a learned fix needed, or did the failure clear by itself?
//!
//! Why its own file: the evidence against a fix is the class's *plain retries* (literally
//! unchanged, nothing state-changing between, [`crate::learn::failure_class::plain_retries`]),
//! and how much they weigh depends on what the fix did:
//!
//! - a fix that acts on the failing command's own subject — a step naming the script or file
//!   the failing command ran (`chmod +x scripts/deploy.sh` after `./scripts/deploy.sh` was
//!   denied) — has a mechanism the log shows. Plain retries call it coincidence only when
//!   they are the majority explanation: more of them than sessions the fix cured.
//! - any other fix (`git gc` between an `index.lock` failure and a retry that passed) needs
//!   the same three-to-one share a contest needs, each plain retry counted as a competing
//!   "fix": the lock was simply released.

use crate::learn::episodes::{Episode, Prepared};

/// Is a fix (covering `covered` of the class's `recovered` recoveries) coincidence, given
/// `cleared_plainly` plain retries of its class? `targeted`: every session it stands on
/// acted on the failing command's subject ([`targets_subject`]).
pub fn coincidental(covered: usize, recovered: usize, cleared_plainly: usize, share: f64, targeted: bool) -> bool {
    if cleared_plainly == 0 {
        return false;
    }
    if targeted {
        return cleared_plainly > covered;
    }
    (covered as f64) < share * (recovered + cleared_plainly) as f64 - 1e-9
}

/// The subject of a failing command: the script it ran by path (`scripts/deploy.sh` for
/// `./scripts/deploy.sh --env x`), else its first operand (`tools/x.py` for `python3
/// tools/x.py`), without a leading `./`.
fn subject_of(e: &Episode, prep: &Prepared) -> Option<String> {
    let seg = prep.norms[e.fail_idx].primary()?;
    let first = seg.words.first()?;
    let s = if first.contains('/') {
        first.as_str()
    } else {
        crate::learn::intent::subject(seg).filter(|s| *s != "-c")?
    };
    Some(s.trim_start_matches("./").to_string())
}

/// Did a recovered episode's fix steps name the failing command's subject (a path)?
pub fn targets_subject(e: &Episode, prep: &Prepared) -> bool {
    let Some(subject) = subject_of(e, prep).filter(|s| s.contains('/') || s.contains('.')) else {
        return false;
    };
    e.steps
        .iter()
        .any(|s| s.text.split_whitespace().any(|w| w.trim_start_matches("./") == subject))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::episodes::tests::rec;
    use crate::learn::episodes::{extract, WINDOW};

    #[test]
    fn plain_retries_weigh_by_what_the_fix_did() {
        // Five plain retries against six sessions a targeted fix cured: not coincidence;
        // against an untargeted fix they are (6 < 0.75 · (6 + 5)).
        assert!(!coincidental(6, 6, 5, 0.75, true));
        assert!(coincidental(6, 6, 5, 0.75, false));
        assert!(coincidental(5, 5, 8, 0.75, true), "plain retries the majority");
        assert!(!coincidental(3, 3, 0, 0.75, false));
    }

    #[test]
    fn a_fix_naming_the_failing_script_targets_it() {
        let h = vec![
            rec(
                "a",
                "./scripts/deploy.sh --env x",
                false,
                "bash: ./scripts/deploy.sh: Permission denied",
            ),
            rec("a", "chmod +x scripts/deploy.sh", true, ""),
            rec("a", "./scripts/deploy.sh --env x", true, "done"),
            rec(
                "b",
                "git commit -m x",
                false,
                "fatal: Unable to create '.git/index.lock': File exists.",
            ),
            rec("b", "git gc --prune=now", true, ""),
            rec("b", "git commit -m x", true, "[main 1] x"),
            rec("c", "./run.sh", false, "bash: ./run.sh: Permission denied"),
            rec("c", "chmod +x other.sh", true, ""),
            rec("c", "./run.sh", true, "ran"),
        ];
        let p = Prepared::new(&h);
        let e = extract(&h, &p, WINDOW);
        assert!(targets_subject(&e[0], &p), "{:#?}", e[0]);
        assert!(!targets_subject(&e[1], &p));
        assert!(!targets_subject(&e[2], &p), "another file is no targeted fix");
    }
}
