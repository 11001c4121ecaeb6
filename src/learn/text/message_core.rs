//! The clause a failure's masked line ends on: what it says is missing or wrong, with
//! the name as a placeholder, whoever said it. `error: in prepare, no such column: <name>`
//! (the `sqlite3` shell) and `sqlite3.operationalerror: no such column: <name>` (Python's
//! binding to the same library) both say `no such column`.
//!
//! Why: one cause met through two programs is worded inside two different frames (a
//! shell's `Error: in prepare,`, a language's exception class), so neither the whole
//! text nor an anchor is shared, and each program's share of the class stayed below the
//! recurrence minimum. The clause the library itself wrote survives both frames. Issue
//! 34: "merge clusters whose texts say the same thing". Used by
//! [`crate::learn::propose::cross_program`], which merges only agreeing fixes.

/// The fewest words a clause needs to say something (`error: <q>` says nothing).
const MIN_WORDS: usize = 3;

/// The clauses of a template's lines (` | ` between lines) that end on a name, masked or
/// not: for `… no such column: <name>` or `… no such column: email`, `no such column`. A
/// clause is the words between the last `:`, `,` or `;` before the name and it, all of
/// them plain words, three or more.
pub fn clauses(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in template.split(" | ") {
        let line = line.trim().to_ascii_lowercase();
        let Some((head, last)) = line.rsplit_once(": ") else {
            continue;
        };
        // The name: a placeholder once masked (`<name>`), one word before (`email`).
        let name = last.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            continue;
        }
        let clause = head.rsplit([':', ',', ';']).next().unwrap_or(head).trim();
        let words: Vec<&str> = clause.split_whitespace().collect();
        let plain = words
            .iter()
            .all(|w| w.chars().all(|c| c.is_ascii_alphabetic() || c == '\''));
        if words.len() >= MIN_WORDS && plain {
            let c = words.join(" ");
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_clause_inside_two_programs_frames() {
        assert_eq!(
            clauses("error: in prepare, no such column: <name> | ^--- error here"),
            vec!["no such column"]
        );
        assert_eq!(
            clauses("Traceback (most recent call last): | sqlite3.OperationalError: no such column: status"),
            vec!["no such column"]
        );
    }

    #[test]
    fn a_short_clause_or_no_placeholder_says_nothing() {
        assert!(clauses("error: <q>").is_empty());
        assert!(clauses("fatal: bad object: <q>").is_empty());
        assert!(clauses("error: no such column here").is_empty());
        assert!(clauses("error: in prepare, no such column: two words").is_empty());
        assert!(clauses("error: cannot open 3 files: <path>").is_empty());
    }
}
