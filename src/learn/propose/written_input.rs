//! The input a step wrote, the retry run on it: how a directive says a conversion.
//!
//! Why: a session that converts its input (`iconv -f latin1 -t utf8 f.csv > f.utf8.csv`,
//! then `python3 load.py f.utf8.csv`) fixed the failure with two things, the step and
//! the new name. Said as "run `iconv -f latin1 -t utf8 f.csv`, then retry `python`", the
//! rule told the agent to print the converted text and run the same failing command again.
//! The step keeps where it read and wrote (its redirections), and the retry is said with
//! the file the step wrote in place of the one that failed.

use crate::learn::history::episodes::{Episode, Prepared};
use crate::learn::text::command_norm::Segment;

/// The failing segment and the retry's segment of the same program, when the retry ran
/// on a file a step of the fix wrote from the failing input
/// ([`crate::learn::history::converted`], [`Episode::converted`]).
pub fn ran_on_written<'a>(e: &Episode, prep: &'a Prepared) -> Option<(&'a Segment, &'a Segment)> {
    e.converted.then(|| fail_and_retry(e, prep)).flatten()
}

/// A recovered session's failing segment and its retry's segment of the same program.
pub fn fail_and_retry<'a>(e: &Episode, prep: &'a Prepared) -> Option<(&'a Segment, &'a Segment)> {
    let fail = prep.failing(e.fail_idx)?;
    let retry = prep.norms[e.retry_idx?]
        .segments
        .iter()
        .find(|g| g.program == fail.program)?;
    Some((fail, retry))
}

/// How a steps directive says its retry: `retry `python``, or, when the group's sessions
/// ran it on the file a step wrote, `retry `python` on the file it wrote: `python3 <script>
/// <file>`` (the retry as they typed it, what varies a placeholder).
pub fn then_retry(group: &[&Episode], retry: &str, prep: &Prepared) -> String {
    let on_written: Vec<Vec<String>> = group
        .iter()
        .filter_map(|e| ran_on_written(e, prep).map(|(f, r)| (e, f, r)))
        // Rewritten in place, the retry is the failing command as it was.
        .filter(|(_, f, r)| f.words != r.words)
        .map(|(e, _, r)| (e, r))
        .map(|(e, r)| crate::learn::propose::render::as_typed(std::slice::from_ref(&e.raw_program), &r.words))
        .collect();
    if on_written.is_empty() {
        return format!("retry {retry}");
    }
    let spelled: Vec<&[String]> = on_written.iter().map(Vec::as_slice).collect();
    let said = crate::learn::propose::render::render(&crate::learn::propose::render::anti_unify(&spelled));
    format!(
        "retry {retry} on the file it wrote: `{}`",
        crate::evidence::head_chars(&said, 80).replace('`', "'")
    )
}

/// The reference of a conversion group: the most recent episode of its most common
/// shape, a step (`sort -o a a`, `iconv … > b`) or inline (`comm <(sort a) <(sort b)`).
pub fn reference(episodes: &[Episode], eps: &[usize], last_ei: usize) -> usize {
    let inline = |ei: &usize| episodes[*ei].converted && episodes[*ei].steps.is_empty();
    let n_inline = eps.iter().filter(|ei| inline(ei)).count();
    let want_inline = 2 * n_inline >= eps.len();
    if inline(&last_ei) == want_inline {
        return last_ei;
    }
    eps.iter()
        .rev()
        .copied()
        .find(|ei| episodes[*ei].converted && inline(ei) == want_inline)
        .unwrap_or(last_ei)
}

/// How an inline conversion is said: `retry `comm` with its input converted on the way:
/// `comm -12 <(sort <file>) <(sort <file>)``, the retries as typed, what varies a
/// placeholder; sessions that converted by a step first are named.
pub fn inline_directive(episodes: &[Episode], eps: &[usize], retry: &str, prep: &Prepared) -> String {
    let group: Vec<&Episode> = eps.iter().map(|&ei| &episodes[ei]).filter(|e| e.converted).collect();
    let typed: Vec<Vec<String>> = group
        .iter()
        .filter(|e| e.steps.is_empty())
        .filter_map(|e| fail_and_retry(e, prep).map(|(_, r)| (e, r)))
        .map(|(e, r)| crate::learn::propose::render::as_typed(std::slice::from_ref(&e.raw_program), &r.words))
        .collect();
    // `<(sort a.txt)` is split `<(sort`, `a.txt)`: its closing parenthesis a word of its
    // own, so the file aligns as a file; both said as the shell reads them, unquoted.
    let typed: Vec<Vec<String>> = typed
        .into_iter()
        .map(|t| {
            let mut out: Vec<String> = t
                .into_iter()
                .flat_map(|w| match w.strip_suffix(')').filter(|x| !x.is_empty()) {
                    Some(x) => vec![x.to_string(), ")".to_string()],
                    None => vec![w],
                })
                .collect();
            // The line's last parenthesis is not kept on its last word.
            let open = out.iter().filter(|w| w.starts_with("<(")).count();
            if open > out.iter().filter(|w| *w == ")").count() {
                out.push(")".to_string());
            }
            out
        })
        .collect();
    let spelled: Vec<&[String]> = typed.iter().map(Vec::as_slice).collect();
    use crate::learn::propose::render::{anti_unify, render, Tok};
    let said = anti_unify(&spelled)
        .into_iter()
        .map(|t| match t {
            Tok::Literal(w) if w.starts_with("<(") || w == ")" => w,
            t => render(&[t]),
        })
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" )", ")");
    let stepped = group.iter().filter(|e| !e.steps.is_empty()).count();
    let also = if stepped > 0 {
        " (also seen: the input converted by a step first, the command then run on the result)"
    } else {
        ""
    };
    format!(
        "retry {retry} with its input converted on the way: `{}`{also}",
        crate::evidence::head_chars(&said, 80).replace('`', "'")
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::learn::history::episodes::tests::rec;
    use crate::learn::history::episodes::{extract, WINDOW};

    /// The retry on the file the step wrote (by `>` or by `-o`) is found; a retry on the
    /// same file after a step that wrote another is not.
    pub(crate) const BAD: &str = "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 3";

    /// a converts by `>`, b by `-o`, both run on the new file; c writes another file and
    /// runs the old one again.
    pub(crate) fn converted() -> Vec<crate::evidence::Record> {
        let bad = BAD;
        vec![
            rec("a", "python3 load.py c.csv", false, bad),
            rec("a", "iconv -f latin1 -t utf8 c.csv > c.utf8.csv", true, ""),
            rec("a", "python3 load.py c.utf8.csv", true, "3 rows"),
            rec("b", "python3 load.py d.csv", false, bad),
            rec("b", "iconv -f latin1 -t utf8 -o d8.csv d.csv", true, ""),
            rec("b", "python3 load.py d8.csv", true, "3 rows"),
            rec("c", "python3 load.py e.csv", false, bad),
            rec("c", "iconv -f latin1 -t utf8 e.csv > other.csv", true, ""),
            rec("c", "python3 load.py e.csv", true, "3 rows"),
        ]
    }

    #[test]
    fn the_retry_on_the_file_a_step_wrote() {
        let h = converted();
        let p = Prepared::new(&h);
        let e = extract(&h, &p, WINDOW);
        let found: Vec<bool> = e.iter().map(|e| ran_on_written(e, &p).is_some()).collect();
        assert_eq!(found, vec![true, true, false], "{e:#?}");
    }
}
