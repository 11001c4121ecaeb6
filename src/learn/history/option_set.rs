//! The option the failure's text named, set by the retry: `patch -p0 < x.diff` →
//! `patch -p1 < x.diff`, `patch < x.diff` → `patch -p1 -i x.diff`, `patch -p0 -i x.diff`
//! → `patch --strip=1 < x.diff`, after "Perhaps you used the wrong -p or --strip option?".
//!
//! Why: the three are one fix (set the strip level the tool asked about), but read word by
//! word they were three kinds of change — a value changed, two flags added, a long flag
//! added — and three sessions of one class split three ways never agreed. What makes them
//! one is what the tool said ([`crate::learn::text::named_options`]: which option, in which
//! spellings) and one shell fact: a file fed on standard input and the same file named on
//! the line (`< x` against `-i x`) are the same input.
//!
//! Said as the retry's setting alone (`-p1`, `--strip=1`): one flag added, one kind of fix
//! however spelt ([`crate::learn::history::fix_key`]), as when the option was not there
//! before (`git revert -m1` and `--mainline=1` after "no -m option was given").

use crate::learn::text::command_norm::Segment;

/// The two lines' words with their input said one way: a file one of them reads on
/// standard input and the other names on the line (with the flag before it that the
/// first line lacks, `-i`) is dropped from the second. Other words unchanged. `None` when
/// both read other files on standard input: other inputs.
fn input_aligned(fail: &Segment, retry: &Segment) -> Option<(Vec<String>, Vec<String>)> {
    let drop_named = |words: &[String], other: &[String], file: &str| -> Vec<String> {
        let Some(at) = words.iter().skip(1).position(|w| w == file).map(|p| p + 1) else {
            return words.to_vec();
        };
        let flag_before = at >= 2 && words[at - 1].starts_with('-') && !other.contains(&words[at - 1]);
        let from = if flag_before { at - 1 } else { at };
        words[..from].iter().chain(&words[at + 1..]).cloned().collect()
    };
    let (f, r) = (fail.words.clone(), retry.words.clone());
    Some(match (fail.stdin_file(), retry.stdin_file()) {
        (Some(x), None) => {
            let r2 = drop_named(&r, &f, x);
            (f, r2)
        }
        (None, Some(x)) => {
            let f2 = drop_named(&f, &r, x);
            (f2, r)
        }
        (Some(x), Some(y)) if x != y => return None,
        _ => (f, r),
    })
}

/// The value a word (and the word after it) sets for one of `spellings`: `-p1`, `-p 1`,
/// `--strip=1`, `--strip 1`. Returns the value and how many words it took.
fn setting(words: &[String], i: usize, spellings: &[String]) -> Option<(String, usize)> {
    let w = words[i].as_str();
    for s in spellings {
        if let Some(v) = w.strip_prefix(s.as_str()) {
            if let Some(v) = v.strip_prefix('=').filter(|v| !v.is_empty()) {
                return Some((v.to_string(), 1));
            }
            if v.is_empty() {
                let next = words.get(i + 1).filter(|n| !n.starts_with('-'))?;
                return Some((next.clone(), 2));
            }
            // An attached value: short names only (`-p1`), never a longer long name
            // (`--stripe` is not `--strip` with `e`).
            if s.len() == 2 && !v.starts_with(|c: char| c.is_ascii_alphabetic()) {
                return Some((v.to_string(), 1));
            }
        }
    }
    None
}

/// The line's words without the option's settings, and its last setting as typed (`-p1`;
/// `--strip 1`: two words) with the value it sets.
fn without_option(words: &[String], spellings: &[String]) -> (Vec<String>, Option<(Vec<String>, String)>) {
    let (mut rest, mut last) = (Vec::new(), None);
    let mut i = 0;
    while i < words.len() {
        match (i > 0).then(|| setting(words, i, spellings)).flatten() {
            Some((v, n)) => {
                last = Some((words[i..i + n].to_vec(), v));
                i += n;
            }
            None => {
                rest.push(words[i].clone());
                i += 1;
            }
        }
    }
    (rest, last)
}

/// The retry's setting (`-p1`, `--strip=1`, `--strip 1`) of the option the failure's text
/// named, when that is the whole change: every other word the same once the input is
/// said one way, and the value new (none before, or another). One flag added, whichever
/// spelling and whether the option was there before: the key of one flag added
/// ([`crate::learn::history::fix_key`]). `None` otherwise.
pub fn set_named(fail: &Segment, retry: &Segment, tail: &str) -> Option<Vec<String>> {
    let (f, r) = input_aligned(fail, retry)?;
    crate::learn::text::named_options::named(tail)
        .into_iter()
        .find_map(|spellings| {
            let (f_rest, before) = without_option(&f, &spellings);
            let (r_rest, (typed, after)) = match without_option(&r, &spellings) {
                (rest, Some(set)) => (rest, set),
                (_, None) => return None,
            };
            let sorted = |mut v: Vec<String>| {
                if let Some(operands) = v.get_mut(1..) {
                    operands.sort();
                }
                v
            };
            let changed = before.is_none_or(|(_, v)| v != after);
            (changed && sorted(f_rest) == sorted(r_rest)).then_some(typed)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    const ASKED: &str = "can't find file to patch at input line 3\nPerhaps you used the wrong -p or --strip option?";

    fn set(fail: &str, retry: &str, tail: &str) -> Option<String> {
        let (f, r) = (normalize(fail), normalize(retry));
        set_named(&f.segments[0], &r.segments[0], tail).map(|w| w.join(" "))
    }

    #[test]
    fn the_named_option_set_in_any_spelling_is_one_change() {
        for (fail, retry, typed) in [
            ("patch -p0 < fix.diff", "patch -p1 < fix.diff", "-p1"),
            ("patch < fix.diff", "patch -p1 -i fix.diff", "-p1"),
            ("patch -p0 -i usage.patch", "patch --strip=1 < usage.patch", "--strip=1"),
            ("patch < fix.diff", "patch --strip 1 < fix.diff", "--strip 1"),
            ("patch -i fix.diff", "patch -p 1 -i fix.diff", "-p 1"),
        ] {
            assert_eq!(set(fail, retry, ASKED).as_deref(), Some(typed), "{fail} → {retry}");
        }
    }

    #[test]
    fn not_when_the_text_names_no_option_or_more_changed() {
        // The text names no option: no telling which change was the one asked for.
        assert_eq!(set("patch < fix.diff", "patch -p1 < fix.diff", "patching failed"), None);
        // Another input as well: not the same command with the option set.
        assert_eq!(set("patch < fix.diff", "patch -p1 < other.diff", ASKED), None);
        // Another flag as well.
        assert_eq!(set("patch < fix.diff", "patch -p1 --force < fix.diff", ASKED), None);
        // The same value again: nothing set.
        assert_eq!(set("patch -p1 < fix.diff", "patch --strip=1 < fix.diff", ASKED), None);
        // An option the text did not name.
        assert_eq!(set("patch < fix.diff", "patch -F3 < fix.diff", ASKED), None);
    }
}
