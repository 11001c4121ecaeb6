//! A line that only reports a child's exit status — make's `make: *** [Makefile:4: server]
//! Error 1`, the compiler driver's `collect2: error: ld returned 1 exit status` — and the
//! line above it that says why.
//!
//! Why: such a line reads as an error and became the failure's whole signature, the same
//! for every recipe and every link that fails: dev7's stale objects (`app: protocol
//! mismatch: …` above make's report) and multiple definitions (`/usr/bin/ld: …: multiple
//! definition of `x'` above collect2's) were one text with every other make failure, and
//! their rules were judged generic. What the child printed last before the report is the
//! failure; the report stays beside it.

/// Whether a line only reports an exit status: it ends with `Error <n>` (make, `(ignored)`
/// after it too) or with `returned <n> exit status`.
pub fn is_exit_report(line: &str) -> bool {
    // `<head><word> <digits>`: the last blank-separated word a number, after `word`.
    let number_after = |text: &str, word: &str| {
        text.rsplit_once(' ')
            .is_some_and(|(head, n)| head.ends_with(word) && !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let l = line.trim().trim_end_matches(" (ignored)");
    number_after(l, " Error")
        || l.strip_suffix(" exit status")
            .is_some_and(|h| number_after(h, " returned"))
}

/// The line the child printed last before the first exit report among `lines`, when it
/// says something in a tool's shape (`name: message`) and is no report itself.
pub fn cause_above<'a>(lines: &[&'a str]) -> Option<&'a str> {
    let at = lines.iter().position(|l| is_exit_report(l))?;
    let above = *lines[..at].last()?;
    (above.contains(": ") && !is_exit_report(above)).then_some(above)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_reports_are_known_by_their_shape() {
        assert!(is_exit_report("make: *** [Makefile:4: server] Error 1"));
        assert!(is_exit_report("make: [Makefile:11: test] Error 1 (ignored)"));
        assert!(is_exit_report("collect2: error: ld returned 1 exit status"));
        assert!(!is_exit_report(
            "error: could not compile `app` due to 2 previous errors"
        ));
        assert!(!is_exit_report("Error: ENOENT"));
    }

    #[test]
    fn the_cause_is_the_line_above_the_first_report() {
        let lines = [
            "cc -O2 -Wall -o app src/main.o src/peer.o",
            "./app --self-test",
            "app: protocol mismatch: client speaks v4, peer module built for v3",
            "make: *** [Makefile:11: test] Error 1",
        ];
        assert_eq!(
            cause_above(&lines),
            Some("app: protocol mismatch: client speaks v4, peer module built for v3")
        );
        // A command echoed above the report says nothing.
        assert_eq!(
            cause_above(&["./app --self-test", "make: *** [Makefile:11: test] Error 1"]),
            None
        );
    }
}
