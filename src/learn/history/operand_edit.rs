//! One operand of the failing command edited by the retry, in the forms a session takes:
//! text put into it ([`insertion`]: `.name` → `.[].name`, `bob` → `'bob'`), a script
//! said another way ([`restated`]), a flag's value changed ([`value_changed`]), a name the
//! shell split at a blank given whole ([`joined`]), a name that starts with `-` kept
//! from being read as an option ([`dash_escaped`]).
//!
//! Why apart from [`crate::learn::history::recovery_form`]: these are pure comparisons of
//! two word lists, asked of every later command of a failure's window; the recovery forms
//! that need the segments, the line or the failure's text stay there.

/// The flag whose value the retry changed, all else kept in place: the word after a flag
/// (`jq --indent 8` → `--indent 4`, `cut -f 0,2` → `-f 1,2`), a short flag's attached value
/// (`cut -f0` → `-f1`, `-c0-3` → `-c1-3`) or a value after `=` (`--date=iso-8601` →
/// `--date=iso8601`, `-std=c89` → `-std=c99`), or a bare flag replaced by a flag with a
/// value ([`replaced_by_a_setting`]: `-ansi` → `-std=gnu99`). A value read as the subject made the retry
/// another intent (`8` against `4`), and the session no recovery. Not a script (a blank
/// inside: [`restated`]), not a flag put in place of a value, not bundled letters (`-la`
/// → `-lh` are other flags).
pub fn value_changed<'a>(fail_words: &'a [String], retry_words: &'a [String]) -> Option<&'a str> {
    if fail_words.len() != retry_words.len() {
        return None;
    }
    let mut diff = (1..fail_words.len()).filter(|&i| fail_words[i] != retry_words[i]);
    let (Some(i), None) = (diff.next(), diff.next()) else {
        return None;
    };
    let (old, new) = (fail_words[i].as_str(), retry_words[i].as_str());
    if old.contains(char::is_whitespace) || new.contains(char::is_whitespace) || old.is_empty() || new.is_empty() {
        return None;
    }
    let before = fail_words[i - 1].as_str();
    // After a flag that may take no value (`git log --oneline feat/x` → `origin/feat/x`),
    // an operand edited by insertion is no value. (A path may well be one: `-o out/x`.)
    // A directory flag's value is where it runs (`make -C a` → `-C b`: `cd <v>`, the
    // same kind as `cd b && make`), left to that key.
    let operand = insertion(old, new).is_some() || crate::learn::text::inspection::dir_flag(before).is_some();
    if !old.starts_with('-')
        && !new.starts_with('-')
        && before.starts_with('-')
        && before.len() > 1
        && !before.contains('=')
    {
        return (!operand).then_some(before);
    }
    if let (Some((fo, _)), Some((fn_, _))) = (old.split_once('='), new.split_once('=')) {
        return (fo == fn_ && fo.starts_with('-') && fo.len() > 1).then_some(fo);
    }
    if let Some(flag) = replaced_by_a_setting(old, new) {
        return Some(flag);
    }
    let attached = |w: &str| {
        let b = w.as_bytes();
        b.len() > 2 && b[0] == b'-' && b[1].is_ascii_alphabetic() && !b[2].is_ascii_alphabetic() && b[2] != b'-'
    };
    (attached(old) && attached(new) && old[..2] == new[..2]).then(|| &old[..2])
}

/// Where the one value the retry changed ([`value_changed`]) stands in its words: the
/// word that differs (`4` of `--indent 4`, `-f1`, `--date=iso8601`). `None` when the retry
/// changed no flag's value. One place for it: the fix key asks what the value is, the
/// directive says it.
pub fn changed_value_at(fail_words: &[String], retry_words: &[String]) -> Option<usize> {
    value_changed(fail_words, retry_words)?;
    (1..fail_words.len()).find(|&i| fail_words[i] != retry_words[i])
}

/// Does the one value the retry changed name a file: a path, a URL (`-f https://…/crd.yaml`,
/// `-f crd.yaml`, `--config=conf/a.toml`, `-o out/x`)? Then the change gave the command
/// another input, which a changed option (`-std=gnu99`) is not
/// ([`crate::learn::history::fix_key`]: not the kind "options changed").
pub fn new_value_names_a_file(fail_words: &[String], retry_words: &[String]) -> bool {
    changed_value_at(fail_words, retry_words).is_some_and(|i| {
        let new = &retry_words[i];
        let v = new.split_once('=').map_or(new.as_str(), |(_, v)| v);
        // A path, or a file name with an extension (`crd.yaml`; not `3.11`).
        let extension = v.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.starts_with(|c: char| c.is_ascii_alphabetic())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
        v.contains('/') || extension
    })
}

/// A bare flag replaced, in its place, by a flag that carries a value (`cc -ansi` →
/// `cc -std=gnu99`; GCC's `-ansi` is its `-std=c90`): the option at that position given
/// another value, the same kind of change as `-std=c89` → `-std=c99`. The issue's "the
/// same flag position changed"; no table says which flags are one option. Returns the new
/// flag's name. Not: a value-less flag put in (`-E` → `-P`: another flag, its own key),
/// a negation (`--no-…`: the opposite choice), a flag that had a value of its own (two
/// options, not one given another value).
fn replaced_by_a_setting<'a>(old: &str, new: &'a str) -> Option<&'a str> {
    let bare = old.starts_with('-') && old.len() > 1 && old != "--" && !old.contains('=');
    let (name, value) = new.split_once('=')?;
    let named = name.starts_with('-') && name.len() > 1 && name != "--" && !name.starts_with("--no-");
    (bare && named && !value.is_empty() && !old.starts_with("--no-")).then_some(name)
}

/// The name starting with `-` that the retry kept from being read as an option, all else
/// unchanged: `--` put before it (`cat -- -notes.txt`) or the name written from the
/// current folder (`rm ./-v2.log`). Both are POSIX's one answer to one failure (utility
/// syntax guideline 10: `--` ends the options; a path with a `/` is no option), so they
/// are one kind of fix whichever a session chose. Returns the name.
pub fn dash_escaped<'a>(fail_words: &'a [String], retry_words: &[String]) -> Option<&'a str> {
    let named = |w: &str| w.len() > 1 && w.starts_with('-') && w != "--";
    if fail_words.iter().any(|w| w == "--") {
        return None;
    }
    if fail_words.len() == retry_words.len() {
        let mut diff = (1..fail_words.len()).filter(|&i| fail_words[i] != retry_words[i]);
        let (Some(i), None) = (diff.next(), diff.next()) else {
            return None;
        };
        let old = fail_words[i].as_str();
        return (named(old) && retry_words[i].strip_prefix("./") == Some(old)).then_some(old);
    }
    let at = retry_words.iter().position(|w| w == "--")?;
    let without: Vec<&String> = retry_words
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != at)
        .map(|(_, w)| w)
        .collect();
    let same = at > 0 && without.len() == fail_words.len() && without.iter().zip(fail_words).all(|(a, b)| *a == b);
    same.then(|| fail_words[at..].iter().find(|w| named(w)).map(String::as_str))
        .flatten()
}

/// The operand the shell had split at a blank, given whole by the retry: `git add My
/// Notes.md` → `git add "My Notes.md"` (or `My\ Notes.md`). The retry's word is the
/// failing words from one place joined by a blank, and nothing else changed. Returns it.
pub fn joined<'a>(fail_words: &[String], retry_words: &'a [String]) -> Option<&'a String> {
    let (i, w) = retry_words
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, w)| w.contains(' ') && !w.starts_with('-'))?;
    let parts = w.split(' ').count();
    let at = fail_words.iter().position(|f| w.starts_with(f.as_str()))?;
    let spread = fail_words.get(at..at + parts)?;
    let same_rest = fail_words[..at] == retry_words[..i] && fail_words[at + parts..] == retry_words[i + 1..];
    (parts > 1 && spread.join(" ") == *w && same_rest).then_some(w)
}

/// The script operand a retry restated: the same flags and the same other operands, and
/// one operand that is a script (a jq filter, an awk or sed program, a query: it holds a
/// blank) said another way in a script again (`.[] | .job + ": " + .n` → `.[] |
/// "\(.job): \(.n)"`). The script is the program's subject, so a changed subject reads as
/// another intent; restated, it is the same intent fixed. Returns the new script. A look
/// (another question of the same data, sharing none of the script's words) is excluded by
/// the caller ([`crate::learn::history::looked_up::asks_another_question`]).
pub fn restated<'a>(fail_words: &'a [String], retry_words: &'a [String]) -> Option<&'a String> {
    let split =
        |w: &'a [String]| -> (Vec<&'a String>, Vec<&'a String>) { w.iter().skip(1).partition(|x| x.starts_with('-')) };
    let (ff, fo) = split(fail_words);
    let (rf, ro) = split(retry_words);
    if ff != rf || fo.len() != ro.len() {
        return None;
    }
    let mut changed = fo.iter().zip(&ro).filter(|(a, b)| a != b);
    let ((old, new), None) = (changed.next()?, changed.next()) else {
        return None;
    };
    let script = |w: &str| w.contains(char::is_whitespace);
    // The same computation said another way keeps every name the failing script used
    // (`.job`, `.duration`); a look at the same data keeps few (`.items | length` after
    // `.items[] | .name`): that is another question, and its passing fixes nothing.
    let names = |w: &str| -> Vec<String> {
        w.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|t| t.len() >= 2)
            .map(str::to_string)
            .collect()
    };
    let kept = names(old).iter().all(|t| names(new).contains(t));
    (script(old) && script(new) && kept && insertion(old, new).is_none()).then_some(*new)
}

/// The text put into `old` to make `new`: one piece inserted (`.name` → `.[].name`), or
/// the kept middle enclosed (`bob` → `'bob'`, `.env` → `map(.env)`). `None` when `new` is
/// not `old` with text put in, or only blanks were (a word split or joined is no edit). The
/// old word must be at least two bytes: a one-letter operand inside a longer word is
/// chance, not the same operand.
pub fn insertion(old: &str, new: &str) -> Option<Vec<String>> {
    // The cheap test first: asked of every later word for every failure in the window.
    if old.len() < 2 || old.len() >= new.len() || new.starts_with('-') {
        return None;
    }
    // By characters, never bytes: no slice may fall inside a character.
    let (o, n): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
    let (p, s) = crate::learn::history::edit_span::shared_ends(&o, &n);
    let mid_old: String = o[p..o.len() - s].iter().collect();
    let mid_new: String = n[p..n.len() - s].iter().collect();
    let pieces: Vec<String> = if mid_old.is_empty() {
        vec![mid_new]
    } else {
        // The kept middle inside the new middle: text before and after it.
        let (before, after) = mid_new.split_once(mid_old.as_str())?;
        [before, after]
            .into_iter()
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()
    };
    (!pieces.is_empty() && pieces.iter().all(|x| !x.trim().is_empty())).then_some(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    /// `--` before the name or the name written `./-x`: the name starting with `-` is
    /// returned; a flag dropped, a name renamed, or `--` that was there already is not this.
    #[test]
    fn a_name_kept_from_being_an_option_by_dashes_or_a_folder() {
        let esc = |f: &str, r: &str| dash_escaped(&w(f), &w(r)).map(str::to_string);
        assert_eq!(
            esc("cat -notes.txt", "cat -- -notes.txt").as_deref(),
            Some("-notes.txt")
        );
        assert_eq!(
            esc("mv --draft.md old.md", "mv -- --draft.md old.md").as_deref(),
            Some("--draft.md")
        );
        assert_eq!(esc("wc -l -x.csv", "wc -l ./-x.csv").as_deref(), Some("-x.csv"));
        assert_eq!(esc("wc -l -x.csv", "wc -l ./y.csv"), None, "another name");
        assert_eq!(esc("wc -l -x.csv", "wc ./-x.csv -l"), None, "more than the name moved");
        assert_eq!(
            esc("rm -- -a -b", "rm -- -a ./-b"),
            None,
            "the options were ended already"
        );
        assert_eq!(
            esc("grep -r x src", "grep -r -- x src"),
            None,
            "no name starts with `-` after it"
        );
    }
}
