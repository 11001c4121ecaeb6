//! The input converted: a step wrote a new file from the failing command's input, and the
//! retry ran on that file instead.
//!
//! Why its own kind of fix: `iconv … f.csv > f.utf8.csv`, `sed -z … data.json >
//! data.clean.json`, `perl -0pe … > x.clean.json` or a Python one-liner are one lesson
//! ("the input needs converting; convert it and run on the result"), whichever program
//! converted it. Keyed by the step's program they were three fixes of one session each,
//! and each other's competitors. So are the input rewritten in place (`sort -o a a`, the
//! command then run unchanged) and given through the program on the way (`comm <(sort
//! a) <(sort b)`): the same lesson in another shape.

use crate::learn::history::prepared::Prepared;
use crate::learn::text::command_norm::Segment;

/// [`ran_on_written`] for a recovery's fix steps (record index, segment text), read in
/// their normalised records.
pub fn by_steps<'a>(
    fail: &[String],
    retry: &[String],
    steps: impl Iterator<Item = (usize, &'a str)>,
    prep: &Prepared,
) -> bool {
    // Asked of every recovery: the cheap test first, the steps read only when it holds.
    let steps: Vec<(usize, &str)> = steps.collect();
    let rewrites = || {
        steps.iter().any(|(_, t)| {
            t.contains(" -o ")
                || t.contains(" --output")
                || t.contains(" -i")
                || t.contains(" --in-place")
                || t.starts_with("mv ")
                || t.starts_with("cp ")
        })
    };
    if fail.len() != retry.len() || fail == retry && !rewrites() {
        return false;
    }
    let segs: Vec<&Segment> = steps
        .iter()
        .flat_map(|&(idx, text)| prep.norms[idx].segments.iter().filter(move |g| g.text() == text))
        .collect();
    if fail == retry {
        return in_place(fail, &segs);
    }
    ran_on_written(fail, retry, &segs)
}

/// The input rewritten in place by a step, the failing command then run unchanged on it:
/// `sort -o deps-a.txt deps-a.txt` before `comm -13 deps-a.txt deps-b.txt` (a step whose
/// output, `-o X`, `--output X`, `--output=X`, is a file it also reads and the failing
/// command named); `sed -i 's/\t/    /g' stats.py` before `python3 stats.py` (the in-place
/// flag on a file the failing command named); `expand -t 4 f.py > f.tmp` then `mv f.tmp
/// f.py` (written beside it, moved or copied back).
pub fn in_place(fail: &[String], steps: &[&Segment]) -> bool {
    let operand = |x: &str| fail[1..].iter().any(|f| f == x && (f.contains('.') || f.contains('/')));
    // Edited where it lies (`sed -i 's/\t/    /g' stats.py`, `perl -pi -e … f`).
    let edited = steps.iter().any(|g| {
        // `-i`, `-i.bak`, `-pi`, `--in-place`: the in-place flag, alone or in a short
        // cluster; not `-in` (an input, `openssl x509 -in`), nor the failing program's own
        // run (that made its input: `made_input`).
        let flag = g.words.iter().skip(1).any(|w| {
            w == "-i"
                || w == "--in-place"
                || w.starts_with("--in-place=")
                || w.starts_with("-i.")
                || w.len() == 3
                    && w != "-in"
                    && w.starts_with('-')
                    && w[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && w.contains('i')
        });
        let own = fail
            .first()
            .is_some_and(|p| crate::learn::text::program_family::program_name(p) == g.program);
        flag && !own && g.words.iter().skip(1).any(|w| operand(w))
    });
    // Written beside, then moved or copied back over it (`expand -t 4 f.py > f.py.tmp`,
    // `mv f.py.tmp f.py`).
    let back = steps.windows(2).any(|p| {
        let wrote = p[0]
            .redirects
            .chunks(2)
            .find(|r| r.len() == 2 && r[0] == ">")
            .map(|r| r[1].as_str());
        let read = |f: &str| p[0].words.iter().skip(1).any(|w| w == f);
        matches!(p[1].program.as_str(), "mv" | "cp")
            && p[1].words.len() == 3
            && wrote == Some(p[1].words[1].as_str())
            && operand(&p[1].words[2])
            && read(&p[1].words[2])
    });
    edited
        || back
        || steps.iter().any(|g| {
            let out = g.words.iter().enumerate().find_map(|(i, w)| match w.as_str() {
                "-o" | "--output" => g.words.get(i + 1).map(String::as_str),
                w => w.strip_prefix("--output="),
            });
            out.is_some_and(|x| fail[1..].iter().any(|f| f == x) && g.words.iter().filter(|w| *w == x).count() >= 2)
        })
}

/// The input converted inline: the retry is the failing command with some of its
/// operands given through another program's output (`comm -12 <(sort a) <(sort b)` after
/// `comm -12 a b`), everything else as it was.
pub fn inline(fail: &[String], retry: &[String]) -> bool {
    let (mut i, mut j, mut subs) = (0, 0, 0);
    while j < retry.len() {
        if retry[j].starts_with("<(") {
            // The shell's words split it: `<(sort`, `a)`.
            let mut inner = String::new();
            while j < retry.len() {
                inner.push_str(&retry[j]);
                inner.push(' ');
                if retry[j].ends_with(')') {
                    break;
                }
                j += 1;
            }
            let body = inner.trim().trim_start_matches("<(").trim_end_matches(')');
            let words: Vec<&str> = body.split_whitespace().collect();
            if words.len() < 2 || fail.get(i).map(String::as_str) != words.last().copied() {
                return false;
            }
            subs += 1;
        } else if fail.get(i) != Some(&retry[j]) {
            return false;
        }
        i += 1;
        j += 1;
    }
    i == fail.len() && subs > 0
}

/// The input converted on the way in: the retry is the failing command without one of its
/// file operands, fed through a pipe by a step of the same line that read that file
/// (`zcat events.json.gz | jq -r '.[]'` after `jq -r '.[]' events.json.gz` failed;
/// `gzip -dc`, `gunzip -c`, `iconv -f latin1 x.csv | python3 load.py`): the same lesson as
/// a converted file, in the shape of a pipe.
pub fn piped_in<'a>(
    fail: &[String],
    retry: &Segment,
    steps: impl Iterator<Item = (usize, &'a str)>,
    prep: &Prepared,
) -> bool {
    if !retry.piped || retry.words.len() + 1 != fail.len() {
        return false;
    }
    let Some(gone) = (1..fail.len()).find(|&i| fail.get(i) != retry.words.get(i)) else {
        return false;
    };
    let file = &fail[gone];
    let rest_kept = fail[gone + 1..] == retry.words[gone..];
    let file_like = file.contains('.') || file.contains('/');
    rest_kept
        && file_like
        && !file.starts_with('-')
        && steps.into_iter().any(|(idx, text)| {
            prep.norms[idx]
                .segments
                .iter()
                .any(|g| g.text() == text && !g.piped && g.words.iter().skip(1).any(|w| w == file))
        })
}

/// A later run of the failing command on a file a step wrote from its input, all else as
/// it was (`sqlite3 restored.db 'SELECT …'` after `sqlite3 backup.sql 'SELECT …'` failed
/// with "file is not a database" and `sqlite3 restored.db < backup.sql` ran): the retry,
/// on the converted input. `steps`: the segments run since the failure, this line's too.
/// Asked of every later command when no plain retry is found: the cheap tests first.
pub fn retry_on_written<'a>(fail: &Segment, later: &Segment, steps: impl FnOnce() -> Vec<&'a Segment>) -> bool {
    later.program == fail.program
        && later.action == fail.action
        && later.words.len() == fail.words.len()
        && later.words != fail.words
        && ran_on_written(&fail.words, &later.words, &steps())
}

/// Whether the retry (`retry` words) ran on files steps (`steps`) wrote from the failing
/// command's (`fail` words) input: every changed word's new word a step's `>` target (or
/// one of its operands the failing command did not have), and its old word read by that
/// step (one of its operands, or its `<`). `sort a > a.s && sort b > b.s`, then `comm a.s
/// b.s` after `comm a b`: both inputs converted.
pub fn ran_on_written(fail: &[String], retry: &[String], steps: &[&Segment]) -> bool {
    if fail.len() != retry.len() {
        return false;
    }
    let mut diff = (1..fail.len()).filter(|&i| fail[i] != retry[i]).peekable();
    diff.peek().is_some() && diff.all(|i| wrote_from(&fail[i], &retry[i], fail, steps))
}

/// Did a step write `new` from `old` (a word of the failing command `fail`)? It read
/// `old` itself, or was fed it through a pipe by the step before it (`cat dump.sql |
/// sqlite3 new.db`).
fn wrote_from(old: &String, new: &String, fail: &[String], steps: &[&Segment]) -> bool {
    let reads =
        |g: &Segment| g.stdin_file() == Some(old.as_str()) || g.words.iter().skip(1).any(|w| w.contains(old.as_str()));
    steps.iter().enumerate().any(|(i, g)| {
        let pairs = || g.redirects.chunks(2).filter(|p| p.len() == 2);
        // A step that writes beside its input by the tool's convention, the input's last
        // suffix dropped (`gunzip -k export.json.gz` writes `export.json`).
        let beside = old
            .rsplit_once('.')
            .is_some_and(|(stem, ext)| stem == new && !ext.is_empty() && !ext.contains('/'));
        let wrote = pairs().any(|p| matches!(p[0].as_str(), ">" | ">>") && p[1] == *new)
            || g.words.iter().skip(1).any(|w| w == new) && !fail.contains(new)
            || beside && g.words.iter().skip(1).any(|w| w == old);
        let fed = g.piped && i > 0 && reads(steps[i - 1]);
        wrote && (reads(g) || fed)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        shell_words::split(s).unwrap()
    }

    #[test]
    fn an_input_given_through_another_programs_output() {
        let fail = w("comm -12 a.txt b.txt");
        assert!(inline(&fail, &w("comm -12 <(sort a.txt) <(sort b.txt)")));
        assert!(inline(&fail, &w("comm -12 <(sort -u a.txt) b.txt")));
        assert!(!inline(&fail, &w("comm -12 a.txt b.txt")), "nothing converted");
        assert!(!inline(&fail, &w("comm -12 <(sort c.txt) b.txt")), "another input");
        assert!(!inline(&fail, &w("comm -3 <(sort a.txt) b.txt")), "another flag too");
    }

    /// Both inputs renamed one way (`.sorted`) and each written by a step from its
    /// original: a retry, and a conversion; renamed two ways, or one not written, neither.
    #[test]
    fn every_input_converted_to_a_file_of_its_own() {
        use crate::learn::history::recovery_form::reappears;
        let norm = |s: &str| crate::learn::text::command_norm::normalize(s);
        let fail = norm("comm -3 a.txt b.txt");
        let retry = norm("comm -3 a.txt.sorted b.txt.sorted");
        let (f, r) = (fail.primary().unwrap(), retry.primary().unwrap());
        assert!(reappears(f, r, "comm -3 a.txt.sorted b.txt.sorted"));
        let mixed = norm("comm -3 a.txt.sorted b.txt.old");
        assert!(!reappears(
            f,
            mixed.primary().unwrap(),
            "comm -3 a.txt.sorted b.txt.old"
        ));
        let steps = norm("sort a.txt > a.txt.sorted && sort b.txt > b.txt.sorted");
        let segs: Vec<&Segment> = steps.segments.iter().collect();
        assert!(ran_on_written(&f.words, &r.words, &segs));
        assert!(
            !ran_on_written(&f.words, &r.words, &segs[..1]),
            "b.txt.sorted not written"
        );
    }

    #[test]
    fn an_input_rewritten_in_place() {
        let norm = |s: &str| crate::learn::text::command_norm::normalize(s);
        let fail = w("comm -13 a.txt b.txt");
        let sorted = norm("sort -o a.txt a.txt");
        let other = norm("sort -o a.sorted a.txt");
        assert!(in_place(&fail, &[sorted.primary().unwrap()]));
        assert!(!in_place(&fail, &[other.primary().unwrap()]), "wrote another file");
        assert!(!in_place(&w("comm -13 c.txt d.txt"), &[sorted.primary().unwrap()]));
        // Edited where it lies, or written beside and moved back over it.
        let py = w("python3 stats.py 3");
        let sed = norm("sed -i 's/\\t/    /g' stats.py");
        assert!(in_place(&py, &[sed.primary().unwrap()]));
        let perl = norm("perl -pi -e 's/\\t/    /g' stats.py");
        assert!(in_place(&py, &[perl.primary().unwrap()]));
        let (tmp, back) = (
            norm("expand -t 4 stats.py > stats.py.tmp"),
            norm("mv stats.py.tmp stats.py"),
        );
        assert!(in_place(&py, &[tmp.primary().unwrap(), back.primary().unwrap()]));
        let elsewhere = norm("sed -i 's/a/b/' other.py");
        assert!(!in_place(&py, &[elsewhere.primary().unwrap()]), "another file edited");
        // An input flag, and the failing program's own run (it made its input).
        let verify = w("openssl verify -CAfile ca.pem certs/server.pem");
        let issued = norm("openssl x509 -req -in certs/server.csr -CA ca.pem -out certs/server.pem");
        assert!(!in_place(&verify, &[issued.primary().unwrap()]));
        let kept = norm("mv stats.py.tmp stats.orig.py");
        assert!(
            !in_place(&py, &[tmp.primary().unwrap(), kept.primary().unwrap()]),
            "not moved back"
        );
    }
}
