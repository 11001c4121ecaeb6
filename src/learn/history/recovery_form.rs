//! Recovery recognised by structure, not by tables: a later passing command is the
//! failing command again when the same program (by basename, so `.venv/bin/python` is
//! `python3`) runs and every operand of the failure reappears in it, in order — whatever
//! flags were added, dropped or changed around them (`rustc --edition 2021 main.rs` after
//! `rustc main.rs`, `jq --arg who ann '…$who…' f` after `jq '…$who…' f`), a word inserted
//! before them (`npm run build` after `npm build`), or an empty operand dropped
//! (`sed -i 's/a/b/' f` after BSD's `sed -i '' 's/a/b/' f`).
//!
//! Why apart from [`crate::learn::history::episodes`]: which later command is "the same intent"
//! is one judgement with its own cases; the episode only asks it. Every operand must
//! reappear, the subcommand's word included: `git pull --rebase origin main` is not a
//! retry of `git push origin main` (it is a fix step), and `python3 -c '…'` is not a
//! retry of `python3 tools/x.py` (a look at the interpreter).

use crate::learn::text::command_norm::Segment;

pub use crate::learn::history::operand_edit::{dash_escaped, insertion, joined, restated, value_changed};

/// The words after the program that are neither flags nor empty: what the command acts on.
fn operands(seg: &Segment) -> Vec<&str> {
    seg.words
        .iter()
        .skip(1)
        .filter(|w| !w.is_empty() && !w.starts_with('-'))
        .map(String::as_str)
        .collect()
}

/// The directories a command line changes into before its command (`cd scripts && …`,
/// `(cd tools && …)`), as `dir/` prefixes.
pub(crate) fn cd_prefixes(line: &str) -> Vec<String> {
    crate::learn::text::retry_context::context_added("", line)
        .into_iter()
        .filter_map(|c| c.strip_prefix("cd ").map(|d| format!("{}/", d.trim_end_matches('/'))))
        .collect()
}

/// Is the later word `x` the failing word `w`: the same, or — after `cd dir &&` on the
/// later line — the same path seen from `dir`: `w` is `dir/x` (`python3 scripts/main.py`
/// → `cd scripts && python3 main.py`), or `x` climbs back to it (`app.db` → `../app.db`
/// after `cd db`); inside a script operand, word by word (`'.read db/schema.sql'` →
/// `'.read schema.sql'`).
fn same_word(w: &str, x: &str, cds: &[String]) -> bool {
    w == x || cds.iter().any(|d| rebased(w, x, d))
}

/// `w` seen from the folder `d` (`db/`, `db/schema/`) is `x`.
fn rebased(w: &str, x: &str, d: &str) -> bool {
    let up = "../".repeat(
        d.trim_end_matches('/')
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .count(),
    );
    let one = |w: &str, x: &str| {
        w == x || w.strip_prefix(d) == Some(x) || !w.starts_with('/') && x.strip_prefix(up.as_str()) == Some(w)
    };
    if one(w, x) {
        return true;
    }
    let (ws, xs): (Vec<&str>, Vec<&str>) = (w.split(' ').collect(), x.split(' ').collect());
    ws.len() > 1 && ws.len() == xs.len() && ws.iter().zip(&xs).all(|(a, b)| one(a, b))
}

/// A relative file name with a letter-led extension (`server.js`, `main.py`), not a
/// path from the root or home, nor a flag.
fn file_name(w: &str) -> bool {
    !w.starts_with(['/', '~', '-'])
        && w.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && !stem.ends_with('/')
                && ext.len() <= 5
                && ext.starts_with(|c: char| c.is_ascii_alphabetic())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// Does `later` (on the line `later_line`) run the failing command's program on all of its
/// operands, in order? Needs at least one operand: a bare `npm ci` and `npm install`
/// share nothing to see. A flag and the word after it that both lines hold side by side
/// are one option wherever it stands ([`moved_options`]): its word is no operand to find in
/// order (`c++ -o calc main.cpp` → `c++ main.cpp math.cpp -o calc`).
pub fn reappears(fail: &Segment, later: &Segment, later_line: &str) -> bool {
    if fail.program != later.program {
        return false;
    }
    let all = operands(fail);
    if all.is_empty() {
        return false;
    }
    // Every operand is a value of an option kept whole: all of them reappeared.
    let (fail_values, later_values) = moved_options(&fail.words, &later.words);
    let need: Vec<&str> = all
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !fail_values.contains(i))
        .map(|(_, w)| w)
        .collect();
    let cds = cd_prefixes(later_line);
    let later_words: Vec<&String> = later
        .words
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, _)| !later_values.contains(i))
        .map(|(_, w)| w)
        .collect();
    let mut at = 0;
    // One operand may come back edited by insertion (`jq '.name' f` → `jq '.[].name' f`,
    // `map(.name)`): the same operand, text put into it ([`insertion`]). More than one
    // only when each got the same text (`a.txt b.txt` → `a.txt.sorted b.txt.sorted`: the
    // inputs renamed one way, as a conversion names what it writes).
    let mut edit: Option<Vec<String>> = None;
    need.iter().all(|w| {
        let exact = later_words[at..]
            .iter()
            .position(|x| same_word(w, x, &cds) || in_its_directory(w, x));
        let found = exact.or_else(|| {
            later_words[at..].iter().position(|x| match (insertion(w, x), &edit) {
                (Some(p), None) => {
                    edit = Some(p);
                    true
                }
                (Some(p), Some(e)) => p == *e,
                (None, _) => false,
            })
        });
        found.inspect(|p| at += p + 1).is_some()
    })
}

/// The option pairs both word lists hold: a flag (no `=`) and the non-flag word right
/// after it, side by side in each (`-o calc`), wherever they stand. Returns the places of
/// those words: in `fail` as indices into its operands ([`operands`]), in `later` as
/// indices into its words. Whether the flag takes a value is not known (no table of
/// flags); a pair kept whole in both is the same option either way, and an operand that
/// only sat after a flag in one of them is still looked for.
fn moved_options(fail: &[String], later: &[String]) -> (Vec<usize>, Vec<usize>) {
    let option = |w: &[String], i: usize| {
        let (f, v) = (&w[i], &w[i + 1]);
        f.len() > 1 && f.starts_with('-') && f != "--" && !f.contains('=') && !v.is_empty() && !v.starts_with('-')
    };
    let (mut in_fail, mut in_later) = (Vec::new(), Vec::new());
    for i in 1..fail.len().saturating_sub(1) {
        if !option(fail, i) {
            continue;
        }
        let Some(j) = (1..later.len().saturating_sub(1))
            .find(|&j| later[j] == fail[i] && later[j + 1] == fail[i + 1] && !in_later.contains(&(j + 1)))
        else {
            continue;
        };
        // The value's place among the failing command's operands.
        let place = fail[1..=i + 1]
            .iter()
            .filter(|w| !w.is_empty() && !w.starts_with('-'))
            .count()
            - 1;
        in_fail.push(place);
        in_later.push(j + 1);
    }
    (in_fail, in_later)
}

/// Is the later word `x` the failing file name `w` named from its directory (`node
/// server.js` → `node src/server.js`: the file where it is)? A retry, whose change is then
/// the directory put before it ([`inserted`]). Not `./` alone (`tar xzf a.tgz
/// ./index.html` after `index.html`): the current folder is no other place, and the change
/// is the text put in (an archive stores its members as `./<name>`).
fn in_its_directory(w: &str, x: &str) -> bool {
    // The cheap test first: asked of every later word for every failure in the window.
    x.strip_suffix(w)
        .is_some_and(|d| d.len() > 1 && d.ends_with('/') && !d.starts_with('-') && d != "./")
        && file_name(w)
}

/// Is `later` (on the line `later_line`) a retry of the failing segment (of domain `d`,
/// action `a`)? The same action on the same intent
/// ([`crate::learn::text::intent::same_intent`]) — but not another question asked of the
/// same data (`sqlite3 app.db .tables` after a failing query on `app.db`:
/// [`crate::learn::history::looked_up::asks_another_question`]) — or its operands reappearing.
pub fn is_retry(fail: &Segment, later: &Segment, d: &str, a: &str, later_line: &str) -> bool {
    if asks_for_help(fail, later) {
        return false;
    }
    later.domain == d
        && later.action == a
        && (crate::learn::text::intent::same_intent(fail, later)
            || restated(&fail.words, &later.words).is_some()
            || value_changed(&fail.words, &later.words).is_some()
            // The words the shell split at a blank, given whole (`python3 'My Notes.py'`
            // after `python3 My Notes.py`): the subject is the joined name, not another.
            // Its rule reaches only lines that hold such a name
            // ([`crate::learn::matching::split_name`]).
            || joined(&fail.words, &later.words).is_some())
        && !(a.is_empty() && crate::learn::history::looked_up::asks_another_question(&fail.words, &later.words))
        || reappears(fail, later, later_line)
}

/// Did `later` ask the program about itself (`--help`, `--list`, `--version`:
/// [`crate::learn::text::inspection::asks_about_itself`]) where the failing command did not?
/// A look at the tool (`xargs --help`, `cargo test -- --list`), never the retry: it passes
/// whatever the failure was.
fn asks_for_help(fail: &Segment, later: &Segment) -> bool {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Listings) {
        return false;
    }
    let asks = |s: &Segment| {
        s.words
            .iter()
            .any(|w| crate::learn::text::inspection::asks_about_itself(w))
    };
    asks(later) && !asks(fail)
}

/// The words the retry added to the failing words; an operand rebased under the retry's
/// `cd dir &&` (`main.py` for `scripts/main.py`) is not added: the context is the change.
pub fn added(fail_words: &[String], retry_words: &[String], retry_line: &str) -> Vec<String> {
    let cds = cd_prefixes(retry_line);
    retry_words
        .iter()
        .filter(|x| !fail_words.iter().any(|w| same_word(w, x, &cds)))
        .cloned()
        .collect()
}

/// What the retry changed in place of adding: flags dropped (`without:--check`), empty
/// operands dropped (`without:` with the empty word, shown `''`: the BSD `sed -i ''` suffix
/// GNU sed reads as a script), and globs quoted that the shell expanded before
/// (`quote:'*.py'` for `find . -name '*.py'` after `find . -name *.py`), and words the
/// failing line quoted that the shell now expands (`expand:~/x.csv` after `"~/x.csv"`).
pub fn removed(fail_words: &[String], retry_words: &[String], fail_cmd: &str, retry_cmd: &str) -> Vec<String> {
    let mut out: Vec<String> = quoted(fail_cmd, retry_cmd);
    out.extend(unwrapped(fail_cmd, retry_cmd));
    out.extend(
        crate::learn::text::shell_expansion::now_expanded(fail_cmd, retry_cmd)
            .into_iter()
            .map(|w| format!("{EXPAND}{w}")),
    );
    for w in fail_words {
        let gone = !retry_words.contains(w);
        if gone && w.is_empty() {
            // `without:` and the empty word: rendered as `''`, the operand as typed.
            out.push("without:".to_string());
        } else if gone && w.starts_with('-') && w != "--" {
            out.push(format!("without:{w}"));
        }
    }
    out.dedup();
    out
}

/// Is the fix one step of another program whose operands are all paths the failing
/// command named, or their folders (`mkdir -p third_party/vendor`, `install -d
/// third_party/vendor` before `tar -xzf v.tgz -C third_party/vendor`; `mkdir -p out`
/// before `mv a.txt out/a.txt`)? Then the kind of fix is "make that path ready", whichever
/// program made it: the sessions that spelt it with `mkdir` and with `install` agree.
/// Not: a step of the failing program itself (`git branch x` before `git switch x`), a
/// step on any other word (`cargo build` before `./target/release/x`), several steps.
/// `step_domain` and `step_text` are those of the fix's one step.
pub fn prepares_operand(fail_words: &[String], step_domain: &str, step_text: &str, program: &str) -> bool {
    if step_domain == program {
        return false;
    }
    let trim = |w: &str| w.trim_start_matches("./").trim_end_matches('/').to_string();
    let mut named: Vec<String> = Vec::new();
    for w in fail_words.iter().skip(1).filter(|w| !w.starts_with('-')) {
        let mut p = trim(w);
        while !p.is_empty() && !named.contains(&p) {
            named.push(p.clone());
            p = p.rsplit_once('/').map(|(dir, _)| dir.to_string()).unwrap_or_default();
        }
    }
    let operands: Vec<String> = step_text
        .split_whitespace()
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .map(trim)
        .collect();
    !operands.is_empty() && operands.iter().all(|o| o.len() >= 2 && named.contains(o))
}

/// The program the retry substituted: a project environment's copy first
/// ([`environment_program`]), else another program by name
/// ([`crate::learn::text::intent::substituted`]).
pub fn substituted(fail_cmd: &str, retry_cmd: &str) -> Option<String> {
    environment_program(fail_cmd, retry_cmd).or_else(|| {
        let by_name = crate::learn::text::intent::substituted(fail_cmd, retry_cmd)?;
        // Through a package manager's `exec` (`npm exec bundlr`): that runner, not `npm`.
        let exec = crate::learn::text::wrappers::runner_exec(retry_cmd).filter(|r| r.starts_with(&by_name));
        Some(exec.unwrap_or(by_name))
    })
}

/// The same program through a project environment the failing line did not use: a
/// relative `…/bin/` path (`.venv/bin/python app.py`) or an activated environment
/// (`source .env/bin/activate && python3 …`). Returns that environment's program as a path
/// (`.venv/bin/python`, `.env/bin/python3`): activating puts exactly that first on `PATH`.
pub fn environment_program(fail_cmd: &str, retry_cmd: &str) -> Option<String> {
    let env_of = |line: &str| -> Option<String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            let at_start = i == 0 || matches!(words[i - 1], "&&" | ";" | "(");
            if at_start && matches!(*w, "source" | ".") {
                if let Some(dir) = words.get(i + 1).and_then(|a| a.strip_suffix("/bin/activate")) {
                    let prog = words.iter().skip(i + 2).find(|x| !matches!(**x, "&&" | ";"))?;
                    return Some(format!("{dir}/bin/{}", prog.rsplit('/').next().unwrap_or(prog)));
                }
            }
            // A Python environment's `bin/`, or npm's project-local `node_modules/.bin/`:
            // the project's own copy of a program, not the one on `PATH`.
            let local_bin =
                w.contains("/bin/") || w.starts_with("node_modules/.bin/") || w.contains("/node_modules/.bin/");
            if at_start && !w.starts_with('/') && !w.starts_with('~') && local_bin {
                return Some(w.trim_start_matches("./").to_string());
            }
        }
        None
    };
    match (env_of(fail_cmd), env_of(retry_cmd)) {
        (None, Some(p)) => Some(p),
        _ => None,
    }
}

/// The wrapper a retry ran without (`sudo make install` → `make install`), said
/// `unwrapped:sudo`: its own kind of fix (`Episode::fix_key`).
pub const UNWRAPPED: &str = "unwrapped:";

/// `unwrapped:<wrapper>` when the failing line ran its programs through `sudo` or `doas`
/// and the retry ran the same programs without it.
fn unwrapped(fail_cmd: &str, retry_cmd: &str) -> Option<String> {
    use crate::learn::text::command_norm::run_as_another_user;
    let wrapper = run_as_another_user(fail_cmd).filter(|_| run_as_another_user(retry_cmd).is_none())?;
    // The same programs, a look chained before them aside (`whoami && chmod 600 key`).
    let (f, r) = (
        crate::learn::text::intent::raw_programs(fail_cmd),
        crate::learn::text::intent::raw_programs(retry_cmd),
    );
    (!f.is_empty() && r.ends_with(&f)).then(|| format!("{UNWRAPPED}{wrapper}"))
}

/// A word the shell now expands where the failing line kept it literal (the retry's
/// spelling follows): one kind of fix, whatever the word (`Episode::fix_key`).
pub const EXPAND: &str = "expand:";

/// Words of the retry's line that the failing line had unquoted and the retry quotes or
/// escapes (`'*.py'`, `"*.md"`, `\\*.log`) where the shell would have expanded them.
fn quoted(fail_cmd: &str, retry_cmd: &str) -> Vec<String> {
    let (f, r): (Vec<&str>, Vec<&str>) = (
        fail_cmd.split_whitespace().collect(),
        retry_cmd.split_whitespace().collect(),
    );
    if f.len() != r.len() {
        return Vec::new();
    }
    let bare = |w: &str| w.replace(['\'', '"', '\\'], "");
    let glob = |w: &str| w.contains(['*', '?', '[']);
    f.iter()
        .zip(&r)
        .filter(|(a, b)| a != b && glob(a) && !a.contains(['\'', '"', '\\']) && bare(a) == bare(b))
        .map(|(_, b)| format!("quote:{b}"))
        .collect()
}

/// An operand the retry *edited by insertion*: the one operand that disappeared reappears
/// inside the one word the retry added, with text put in (`feature/x` → `origin/feature/x`;
/// the shell-eaten `name = bob` → `name = 'bob'`). Said as `insert:` and the inserted
/// pieces joined by `…` (`insert:origin/`, `insert:'…'`): what each session put in; the
/// kind of change is the insertion, whatever text (`Episode::fix_key`). `None` when the change
/// is not one operand edited by one or two insertions. A file name given the directory it
/// sits in (`node server.js` → `node src/server.js`) is the same kind of change as running
/// it from there (`cd src && node server.js`), as `--manifest-path X/Cargo.toml` is `cd X`:
/// said `cd src`, one fix with the sessions that changed directory. A remote put before a
/// branch (`feature/x` → `origin/feature/x`: no file name) stays an insertion.
pub fn inserted(fail_words: &[String], retry_words: &[String], added: &[String]) -> Option<String> {
    if let Some(name) = dash_escaped(fail_words, retry_words) {
        // A name read as an option, kept a name: `--` or `./` (`Episode::fix_key`).
        return Some(format!("escaped:{name}"));
    }
    if let Some(path) = joined(fail_words, retry_words) {
        // Words the shell split, quoted whole: the quoting is the fix (`Episode::fix_key`).
        return Some(format!("joined:{path}"));
    }
    if let Some(flag) = value_changed(fail_words, retry_words) {
        // A flag's value changed: one kind, whichever value (`Episode::fix_key`).
        return Some(format!("value:{flag}"));
    }
    // Flags added beside the edit (`jq -r '.[] | .v' f` after `jq '.v' f`) are kept apart
    // by the caller: the one other word is the edited operand.
    let words: Vec<&String> = added.iter().filter(|w| !w.starts_with('-')).collect();
    let [new] = words.as_slice() else { return None };
    let gone: Vec<&String> = fail_words
        .iter()
        .skip(1)
        .filter(|w| !w.is_empty() && !w.starts_with('-') && !retry_words.contains(w))
        .collect();
    let [old] = gone.as_slice() else { return None };
    if let Some(script) = restated(fail_words, retry_words) {
        // The script said another way: one edit of one operand, as an insertion is.
        return Some(format!("rewrite:{script}"));
    }
    if old.len() >= new.len() {
        return None;
    }
    if in_its_directory(old, new) {
        let dir = new[..new.len() - old.len()].trim_end_matches('/');
        return Some(format!("cd {dir}"));
    }
    insertion(old, new).map(|pieces| format!("insert:{}", pieces.join("…")))
}

/// Does every variable a variant assigns (at least one) appear as a word of the
/// failure's text? (`PREFIX=~/.local` after `*** PREFIX is not set.`)
pub fn names_what_failed(variant: &[String], tail: &str) -> bool {
    let names: Vec<&str> = variant
        .iter()
        .filter(|w| crate::learn::text::retry_context::is_env_assignment(w))
        .filter_map(|w| w.split_once('=').map(|(k, _)| k))
        .collect();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    !names.is_empty()
        && names.iter().all(|n| {
            tail.match_indices(n)
                .any(|(at, _)| !tail[..at].ends_with(word) && !tail[at + n.len()..].starts_with(word))
        })
}

/// The directory a failing line's `cd` was given as several words (`cd test data && …`:
/// a path holding a space, split by the shell into `cd: too many arguments`) and the retry
/// gave as one (`cd "test data"`, `cd 'My Project'`, `cd Q1\ reports`): the fix is the
/// quoting of that path, not the directory. Said as `spaced:<the path>`; `None` when the
/// retry's `cd` operand holds no space or the failing line's words after `cd` are not it.
pub fn cd_path_quoted(fail_cmd: &str, retry_cmd: &str) -> Option<String> {
    let retry = shell_words::split(retry_cmd).ok()?;
    let dir = retry
        .iter()
        .position(|w| w == "cd")
        .and_then(|i| retry.get(i + 1))
        .filter(|d| d.contains(' '))?;
    let fail: Vec<&str> = fail_cmd.split_whitespace().collect();
    let at = fail.iter().position(|w| *w == "cd")?;
    let spread: Vec<&str> = fail[at + 1..]
        .iter()
        .take_while(|w| !matches!(**w, "&&" | "||" | ";" | "|"))
        .map(|w| w.trim_end_matches(';'))
        .collect();
    (spread.len() > 1 && spread.join(" ") == *dir).then(|| format!("spaced:{dir}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    fn retry(fail: &str, later: &str) -> bool {
        let (f, l) = (normalize(fail), normalize(later));
        let (f, l) = (f.primary().unwrap(), l.primary().unwrap());
        is_retry(f, l, &f.domain, &f.action, later)
    }

    /// A name the shell split, given whole, is the same intent for a program whose
    /// operand is its subject too (`python3`, `wc`), not only for one with subcommands.
    /// Another name, or the pieces given whole with a word changed, is not.
    #[test]
    fn a_split_name_given_whole_is_a_retry_of_any_program() {
        assert!(retry("python3 My Notes.py", "python3 'My Notes.py'"));
        assert!(retry("python3 My Notes.py", "python3 My\\ Notes.py"));
        assert!(retry("wc -l Old Report.txt", "wc -l \"Old Report.txt\""));
        assert!(retry("git add My Notes.md", "git add 'My Notes.md'"));
        assert!(!retry("python3 My Notes.py", "python3 'Your Notes.py'"));
        assert!(!retry("python3 My Notes.py", "python3 other.py"));
    }

    #[test]
    fn a_flag_with_a_value_added_before_the_operand_is_a_retry() {
        assert!(retry("rustc main.rs -o app", "rustc --edition 2021 main.rs -o app"));
        assert!(retry(
            "jq '.[] | select(.k == $who) | .id' users.json",
            "jq --arg who \"ann\" '.[] | select(.k == $who) | .id' users.json"
        ));
    }

    #[test]
    fn an_option_moved_whole_is_no_operand_out_of_order() {
        // `-o calc` moved to the end with a source added: the same build, its output
        // named where it now stands (the subject read `calc` as the first operand).
        assert!(retry(
            "c++ -o calc src/main.cpp",
            "c++ src/main.cpp src/math.cpp -o calc"
        ));
        assert!(retry("gcc -O2 -o app main.c", "gcc main.c util.c -O2 -o app"));
        // Only option words, kept whole: still the same command.
        assert!(retry("docgen --strict docs", "./.venv/bin/docgen --strict docs"));
        // The option kept, the operand changed: another file, no retry.
        assert!(!retry("c++ -o calc src/main.cpp", "c++ src/other.cpp -o calc"));
        // The option's word changed: not a pair both hold, so its word is still looked for.
        assert!(!retry("c++ -o calc src/main.cpp", "c++ src/main.cpp -o tool"));
    }

    #[test]
    fn a_word_inserted_before_the_operands_is_a_retry() {
        assert!(retry("npm build", "npm run build"));
        assert!(retry("npm format", "npm run -s format"));
        assert!(retry("make deploy", "make ENV=staging deploy"));
    }

    #[test]
    fn the_same_program_through_another_path_is_a_retry() {
        assert!(retry("python3 app.py", "./.venv/bin/python -u app.py"));
        assert!(retry("rustc x.rs", "/usr/bin/rustc --edition 2021 x.rs"));
    }

    #[test]
    fn an_empty_operand_dropped_is_a_retry_and_said() {
        assert!(retry("sed -i '' 's/a/b/' f.ini", "sed -i 's/a/b/' f.ini"));
        let w = |s: &str| normalize(s).primary().unwrap().words.clone();
        let rm = |a: &str, b: &str| removed(&w(a), &w(b), a, b);
        assert_eq!(rm("sed -i '' -e 's/a/b/' f", "sed -i -e 's/a/b/' f"), vec!["without:"]);
        assert_eq!(rm("cargo fmt --check", "cargo fmt"), vec!["without:--check"]);
    }

    #[test]
    fn an_operand_rebased_under_a_cd_prefix_is_a_retry_in_that_directory() {
        assert!(retry("python3 scripts/main.py", "cd scripts && python3 main.py"));
        assert!(retry("python3 tools/main.py", "(cd tools && python3 main.py)"));
        // Without the `cd`, `main.py` is another file.
        assert!(!retry("python3 tools/main.py", "python3 main.py"));
        let w = |s: &str| normalize(s).primary().unwrap().words.clone();
        let line = "cd etl && python3 run.py";
        assert!(added(&w("python3 etl/run.py"), &w(line), line).is_empty());
        assert_eq!(
            added(&w("python3 run.py"), &w("python3 -u run.py"), "python3 -u run.py"),
            vec!["-u"]
        );
    }

    #[test]
    fn the_same_program_from_a_project_environment_is_said_as_that_path() {
        let e = environment_program;
        assert_eq!(
            e("python3 app.py", ".venv/bin/python app.py").as_deref(),
            Some(".venv/bin/python")
        );
        assert_eq!(
            e("python3 app.py", "./.venv/bin/python app.py").as_deref(),
            Some(".venv/bin/python")
        );
        assert_eq!(
            e("python3 t/s.py", "source .env/bin/activate && python3 t/s.py").as_deref(),
            Some(".env/bin/python3")
        );
        assert_eq!(
            e("python3 r.py", ". venv/bin/activate && python r.py").as_deref(),
            Some("venv/bin/python")
        );
        // An absolute path is the system's program; an environment already used is no change.
        assert_eq!(e("python3 app.py", "/usr/bin/python3 app.py"), None);
        assert_eq!(e(".venv/bin/python app.py", ".venv/bin/python -u app.py"), None);
    }

    #[test]
    fn a_glob_quoted_is_a_recovery_and_said() {
        let w = |s: &str| normalize(s).primary().unwrap().words.clone();
        let rm = |a: &str, b: &str| removed(&w(a), &w(b), a, b);
        assert_eq!(rm("find . -name *.py", "find . -name '*.py'"), vec!["quote:'*.py'"]);
        assert_eq!(rm("find . -name *.md", "find . -name \"*.md\""), vec!["quote:\"*.md\""]);
        assert_eq!(
            rm("find . -name *.log -type f", "find . -name \\*.log -type f"),
            vec!["quote:\\*.log"]
        );
        // Quoting a plain word changes nothing the shell did: no recovery form.
        assert!(rm("git commit -m wip", "git commit -m 'wip'").is_empty());
    }

    #[test]
    fn another_action_or_another_operand_is_no_retry() {
        assert!(!retry("git push origin main", "git pull --rebase origin main"));
        assert!(!retry("python3 tools/x.py", "python3 -c 'import sys'"));
        assert!(!retry("npm ci", "npm install"));
        assert!(!retry("node server.js", "deno server.js"));
    }

    #[test]
    fn an_operand_edited_by_insertion_is_a_retry() {
        // `Cannot index array`: the filter edited, the file the same (issue 34: the
        // learner saw no recovery at all).
        assert!(retry("jq '.name' users.json", "jq '.[].name' users.json"));
        assert!(retry("jq -r .env d.json", "jq 'map(.env)' d.json"));
        assert!(retry("jq '.version' p.json", "jq -r '.[] | .version' p.json"));
        // Only one operand edited, the others back as they were; a one-letter operand
        // inside a longer word is chance; text removed is no insertion.
        assert!(!retry("jq '.name' a.json", "jq '.[].name' b.json"));
        assert!(!retry("jq '.a.b' a.json", "jq '.x.a.b' xa.json.1"));
        assert!(!retry("cp a b", "cp xa yb"));
        assert!(!retry("cat notes.txt.bak", "cat notes.txt"));
    }

    #[test]
    fn an_operand_edited_by_insertion_is_said_as_what_was_inserted() {
        let ins = |fail: &str, later: &str| {
            let (f, l) = (normalize(fail), normalize(later));
            let (fw, lw) = (&f.primary().unwrap().words, &l.primary().unwrap().words);
            inserted(fw, lw, &added(fw, lw, later))
        };
        assert_eq!(
            ins("git log --oneline feat/x", "git log --oneline origin/feat/x").as_deref(),
            Some("insert:origin/")
        );
        assert_eq!(
            ins("git diff main..fix/y", "git diff main..origin/fix/y").as_deref(),
            Some("insert:origin/"),
            "the same insertion inside a range"
        );
        // The shell ate the double quotes; the retry puts single ones inside.
        assert_eq!(
            ins(
                r#"sqlite3 a.db "SELECT 1 FROM t WHERE n = "bob"""#,
                r#"sqlite3 a.db "SELECT 1 FROM t WHERE n = 'bob'""#
            )
            .as_deref(),
            Some("insert:'…'")
        );
        // Another operand altogether, a flag added, or text removed: no insertion.
        assert_eq!(ins("git log feat/x", "git log main"), None);
        assert_eq!(ins("cp a b", "cp -r a b"), None);
        assert_eq!(ins("cat notes.txt.bak", "cat notes.txt"), None);
        assert_eq!(ins("echo é", "echo éé"), Some("insert:é".to_string()), "by characters");
        // A flag added beside the edit is the caller's: the one other word is the edit.
        assert_eq!(
            ins("jq '.version' p.json", "jq -r '.[] | .version' p.json").as_deref(),
            Some("insert:[] | .")
        );
    }

    #[test]
    fn a_cd_path_quoted_whole_is_the_quoting_not_the_directory() {
        for retry in [
            "cd \"test data\" && cat x.txt",
            "cd 'test data' && cat x.txt",
            "cd test\\ data && cat x.txt",
        ] {
            assert_eq!(
                cd_path_quoted("cd test data && cat x.txt", retry).as_deref(),
                Some("spaced:test data"),
                "{retry}"
            );
        }
        // Another directory, or one word all along: the directory is the fix.
        assert_eq!(
            cd_path_quoted("cd test data && cat x.txt", "cd 'other dir' && cat x.txt"),
            None
        );
        assert_eq!(cd_path_quoted("cat x.txt", "cd web && cat x.txt"), None);
        assert_eq!(cd_path_quoted("cd a && make", "cd b && make"), None);
    }

    #[test]
    fn a_file_given_its_directory_is_running_it_from_there() {
        let w = |s: &str| -> Vec<String> { s.split(' ').map(str::to_string).collect() };
        let ins = |f: &str, r: &str, a: &str| inserted(&w(f), &w(r), &[a.to_string()]);
        assert_eq!(
            ins("node server.js", "node src/server.js", "src/server.js").as_deref(),
            Some("cd src")
        );
        assert_eq!(
            ins("node cli.js --port 0", "node lib/bin/cli.js --port 0", "lib/bin/cli.js").as_deref(),
            Some("cd lib/bin")
        );
        // A remote before a branch, a version, text inside a name: insertions still.
        assert_eq!(
            ins(
                "git checkout feature/x",
                "git checkout origin/feature/x",
                "origin/feature/x"
            )
            .as_deref(),
            Some("insert:origin/")
        );
        assert_eq!(
            ins("git checkout v1.2", "git checkout origin/v1.2", "origin/v1.2").as_deref(),
            Some("insert:origin/")
        );
        assert_eq!(ins("cat a.txt", "cat ba.txt", "ba.txt").as_deref(), Some("insert:b"));
    }
}
