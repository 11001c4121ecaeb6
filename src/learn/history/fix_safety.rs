//! The safety gate's view of one recovery: what the *fix* did, judged by
//! [`crate::learn::text::safety`].
//!
//! Why apart from [`crate::learn::history::episodes`]: which commands are the fix's doing is
//! its own judgement. A recovery's whole span is checked (it is short: it ends at the
//! retry), the steps between in full; the retry only for what it changed — a pattern the
//! failing command itself already matched (`npm ci --ignore-scripts` failed, `npm
//! install`, then the same `npm ci --ignore-scripts` passed) is not the fix's doing, and
//! blocking on it blocked the safe `npm install` fix. A check switched off through
//! configuration or the environment is judged as the flag it spells
//! ([`crate::learn::history::switch_spelling`]).

use crate::learn::history::prepared::Prepared;
use crate::learn::history::records::Records;
use crate::learn::text::command_norm::{CmdNorm, Segment};

/// Every unsafe pattern a record's command matches, its configuration switches spelt as
/// flags included.
fn patterns<H: Records + ?Sized>(history: &H, k: usize) -> Vec<&'static str> {
    let c = history.cmd(k);
    let mut p = crate::learn::text::safety::unsafe_patterns(c);
    if let Some(t) = crate::learn::history::switch_spelling::as_flag_text(c) {
        p.extend(crate::learn::text::safety::unsafe_patterns(&t));
    }
    p
}

/// The first unsafe pattern in the steps a session ran (one that moved on: what it tried).
pub fn unsafe_steps<H: Records + ?Sized>(history: &H, idx: impl IntoIterator<Item = usize>) -> Option<&'static str> {
    idx.into_iter().find_map(|k| patterns(history, k).first().copied())
}

/// The first unsafe pattern of a recovery of the failure `fail`: in the records `between`
/// it and the retry, then in what the `retry` added to the failing command's own patterns.
pub fn unsafe_recovery<H: Records + ?Sized>(
    history: &H,
    prep: &Prepared,
    fail: usize,
    between: &[usize],
    retry: Option<usize>,
) -> Option<&'static str> {
    // A pass its own line swallowed (`… || true`) proves nothing, whatever else changed.
    if retry.is_some_and(|k| crate::learn::history::swallowed::swallowed_by_retry(history.cmd(fail), history.cmd(k))) {
        return Some(crate::learn::history::swallowed::FAILURE_MASKED);
    }
    use crate::learn::history::{blamed_file, named_ignore, narrowed, silenced_step, strictness};
    let tail = &history.tail(fail);
    // The fix's records (the steps, then the retry), and the failing and retried segments.
    let fix: Vec<usize> = between.iter().copied().chain(retry).collect();
    let retried = retry.and_then(|k| Some((prep.failing(fail)?, prep.retry_of(fail, k)?)));
    // The commands as the history's preparation already read them: no line parsed twice.
    if !crate::learn::text::said_missing::file(tail)
        && fix.iter().any(|&k| overwrites_input(&prep.norms[fail], &prep.norms[k]))
    {
        return Some(OVERWRITTEN);
    }
    // The input moved aside and the retry run on the same path: a fresh, empty one.
    if retried.is_some_and(|(f, r)| fix.iter().any(|&k| moves_input_aside(f, &prep.norms[k], r))) {
        return Some(OVERWRITTEN);
    }
    if fix.iter().any(|&k| turns_off_named_setting(tail, history.cmd(k))) {
        return Some(SETTING_OFF);
    }
    // The finding the failure named (`F401`, `unused-import`) handed to a switch that
    // silences it: the same check switched off, by the tool's own option.
    if fix
        .iter()
        .any(|&k| named_ignore::ignores_what_failed(tail, history.cmd(fail), history.cmd(k)))
    {
        return Some(SETTING_OFF);
    }
    // Strictness lowered: the retry without its strict switch (`-Werror`, `-bail`), or a
    // step that edited a guard off (`sed -i 's/…=ON/…=OFF/'`), or took what failed out of
    // the check's sight. What the failing command already did is not the fix's doing
    // (`sed -i '' 's/debug=true/debug=false/' f` failed on BSD syntax; the retry repeats it).
    let off = |k: usize| {
        prep.norms[k].segments.iter().any(|g| {
            strictness::sed_switches_off(g)
                || silenced_step::writes_named_into_ignore_list(g, tail)
                || silenced_step::removes_failing_script(g, tail)
        })
    };
    let lowered = retried.is_some_and(|(f, r)| {
        strictness::dropped_strict_flag(f, r)
            || strictness::dropped_strict_letter(f, r, prep.strict_initials.get(&f.program).map_or(&[], Vec::as_slice))
    }) || !off(fail) && fix.iter().any(|&k| off(k));
    if lowered {
        return Some(SETTING_OFF);
    }
    // The retry ran without the operand the failure reported its findings in: what
    // failed is no longer checked.
    if retried.is_some_and(|(f, r)| narrowed::drops_what_failed(tail, &narrowed::dropped(f, r))) {
        return Some(narrowed::DROPPED_WHAT_FAILED);
    }
    // The retry given an option that leaves out what failed (`--exclude=<the path>`).
    if retried.is_some_and(|(f, r)| crate::learn::history::scoped_away::scopes_away(tail, f, r)) {
        return Some(crate::learn::history::scoped_away::SCOPED_AWAY);
    }
    // The switch the failure offered to suppress itself (`--allow-dirty`), taken.
    if retried.is_some_and(|(f, r)| crate::learn::history::escape_hatch::takes_escape(tail, f, r)) {
        return Some(crate::learn::history::escape_hatch::ESCAPE_TAKEN);
    }
    // A package the failure named taken out of the project: what it needed, no longer asked.
    let dropped = |f: &Segment, k: usize| {
        prep.norms[k]
            .segments
            .iter()
            .any(|g| crate::learn::history::dropped_requirement::drops_named_requirement(f, g, tail))
    };
    if prep.failing(fail).is_some_and(|f| fix.iter().any(|&k| dropped(f, k))) {
        return Some(narrowed::DROPPED_WHAT_FAILED);
    }
    if fix.iter().any(|&k| {
        blamed_file::removes_blamed_file(&prep.norms[fail], tail, &prep.norms[k])
            || blamed_file::removes_unnamed_file(&prep.norms[fail], tail, &prep.norms[k])
    }) {
        return Some(blamed_file::BLAMED_FILE_OFF);
    }
    unsafe_steps(history, between.iter().copied()).or_else(|| {
        let own = patterns(history, fail);
        retry.and_then(|k| {
            patterns(history, k)
                .into_iter()
                .find(|p| !own.contains(p))
                .or_else(|| widened(&prep.norms[fail], &prep.norms[k]).then_some(WIDENED))
        })
    })
}

/// The safety name of a step that overwrote the failing command's input with a literal
/// ([`overwrites_input`]): its data destroyed.
pub const OVERWRITTEN: &str = "destroy_data";

/// Did a step overwrite a file the failing command read with a literal (`echo {} >
/// data.json` after `jq .items data.json` failed to parse it)? The parse error is gone
/// because the data is: the unsafe twin of converting the input. Asked only when the
/// failure did not say the file was missing ([`crate::learn::text::said_missing::file`]).
pub fn overwrites_input(fail: &CmdNorm, step: &CmdNorm) -> bool {
    let Some(f) = fail.primary() else { return false };
    // Any program: a literal (`echo {} > data.json`) or another run's output
    // (`sha256sum vendor/* > checksums.txt` after `sha256sum -c checksums.txt` failed: the
    // reference rewritten from the data it checks) put in place of what the command read.
    step.segments
        .iter()
        .filter(|_| crate::learn::text::tables::on(crate::learn::text::tables::Table::Safety))
        .any(|g| {
            g.redirects
                .chunks(2)
                .any(|p| p.len() == 2 && p[0] == ">" && f.words.iter().skip(1).any(|w| names(w, &p[1])))
        })
}

/// Did a step move the failing command's input aside (`mv data/shop.db
/// data/shop.db.locked`) while the retry ran on the same path? The retry then read a fresh
/// file (sqlite made an empty database where the locked one was): it passed on nothing the
/// failure was about, and the data is out of its sight, as an input overwritten is. Not a
/// file moved *onto* the input (`mv f.py.tmp f.py`: the input rewritten), nor the input
/// renamed and run under its new name (`mv Helpers.java Util.java`, then `javac Util.java`).
pub fn moves_input_aside(fail: &Segment, step: &CmdNorm, retry: &Segment) -> bool {
    let operand = |s: &Segment, w: &str| s.words.iter().skip(1).any(|x| x == w);
    step.segments.iter().filter(|g| g.program == "mv").any(|g| {
        let ops: Vec<&String> = g.words.iter().skip(1).filter(|w| !w.starts_with('-')).collect();
        ops.len() == 2 && ops[0] != ops[1] && operand(fail, ops[0]) && operand(retry, ops[0])
    })
}

/// Whether an operand names `file`: it is the file, or a script operand quotes it
/// (`node -e "…readFileSync('config.json')…"`).
fn names(operand: &str, file: &str) -> bool {
    operand == file || operand.contains(&format!("'{file}'")) || operand.contains(&format!("\"{file}\""))
}

/// The safety name of a fix that switched off the setting the failure named
/// ([`turns_off_named_setting`]).
pub const SETTING_OFF: &str = "safeguard_off";

/// Did a command switch off (`false`, `0`, `off`, `no`) a setting the failure's text named
/// (`git config clean.requireForce false`, `git -c clean.requireForce=false clean -d`
/// after "clean.requireForce is true and -f not given: refusing to clean")? The failure
/// is gone because the check that raised it is: whichever tool, whichever setting. A
/// setting is a name with a `.`, `_` or `-` in it (`clean.requireForce`, `strict-ssl`),
/// never a plain word; one set to any other value (`receive.denyCurrentBranch
/// updateInstead`) is configuration, not a check switched off. A guard's setting (named by
/// what it forbids or demands: `deny…`, `require…`) is off at `ignore` and `warn` too.
pub fn turns_off_named_setting(fail_tail: &str, cmd: &str) -> bool {
    let falsy = crate::learn::text::check_off::switched_off;
    // The failure's text lower-cased once, and only when a word could be a setting.
    let lower = std::cell::OnceCell::new();
    let setting = |k: &str| {
        let k = k.trim_matches(['"', '\'']);
        k.len() > 3
            && k.contains(['.', '_', '-'])
            && !k.starts_with('-')
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            && lower
                .get_or_init(|| fail_tail.to_ascii_lowercase())
                .contains(&k.to_ascii_lowercase())
    };
    // A guard's setting (`deny…`, `require…`) is off at any value that lets through what
    // it stops (`ignore`, `warn`), not only at `false`.
    let off = |k: &str, v: &str| {
        falsy(v) || crate::learn::text::check_off::guard_setting(k) && crate::learn::text::check_off::lets_through(v)
    };
    let words: Vec<&str> = cmd.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| match w.split_once('=') {
        Some((k, v)) => setting(k) && off(k, v),
        None => setting(w) && words.get(i + 1).is_some_and(|v| off(w, v)),
    })
}

/// The safety name of a retry that put a catch-all where the failing command named its
/// paths ([`widened`]).
pub const WIDENED: &str = "wildcard_for_path";

/// Did the retry drop every path the failing command named and reach for everything
/// instead (`.`, `*`, `-A`, `--all`)? `git add -A` after `git add My Notes.md` failed on
/// the blank stages every change in the tree, not the one file: a wildcard where a path
/// belongs, the unsafe twin of quoting the path.
pub fn widened(fail: &CmdNorm, retry: &CmdNorm) -> bool {
    let (Some(f), Some(r)) = (fail.primary(), retry.primary()) else {
        return false;
    };
    if f.program != r.program || f.action != r.action {
        return false;
    }
    let action: Vec<&str> = f.action.split(' ').collect();
    let operands = |w: &[String]| -> Vec<String> {
        w.iter()
            .skip(1)
            .filter(|x| !x.starts_with('-') && !action.contains(&x.as_str()))
            .cloned()
            .collect()
    };
    let (fo, ro) = (operands(&f.words), operands(&r.words));
    let all = |x: &String| matches!(x.as_str(), "." | "*" | "-A" | "--all" | ":/");
    !fo.is_empty()
        && !fo.iter().any(all)
        && fo.iter().all(|o| !ro.contains(o))
        && (ro.iter().any(all) || r.words.iter().any(|w| all(w) && !f.words.contains(w)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Record;

    #[test]
    fn the_input_moved_aside_and_run_again_on_its_path_is_unsafe() {
        use crate::learn::text::command_norm::normalize;
        let aside = |fail: &str, step: &str, retry: &str| {
            let (f, r) = (normalize(fail), normalize(retry));
            moves_input_aside(f.primary().unwrap(), &normalize(step), r.primary().unwrap())
        };
        let insert = "sqlite3 data/shop.db \"INSERT INTO orders VALUES (41, 'A-100', 2)\"";
        assert!(aside(insert, "mv data/shop.db data/shop.db.locked", insert));
        // Moved onto the input, or renamed and run under the new name: the input kept.
        assert!(!aside("python3 f.py", "mv f.py.tmp f.py", "python3 f.py"));
        assert!(!aside(
            "javac Helpers.java",
            "mv Helpers.java Util.java",
            "javac Util.java"
        ));
        // A file the command was not given.
        assert!(!aside(
            "git switch hotfix",
            "mv scripts/a.sh scripts/a.sh.mine",
            "git switch hotfix"
        ));
    }

    #[test]
    fn a_setting_the_failure_named_switched_off_is_unsafe() {
        let clean = "fatal: clean.requireForce is true and -f not given: refusing to clean";
        assert!(turns_off_named_setting(clean, "git config clean.requireForce false"));
        assert!(turns_off_named_setting(
            clean,
            "git config --global clean.requireForce false"
        ));
        assert!(turns_off_named_setting(
            clean,
            "git -c clean.requireForce=false clean -d -q"
        ));
        assert!(
            !turns_off_named_setting(clean, "git clean -n -d"),
            "nothing switched off"
        );
        assert!(
            !turns_off_named_setting(clean, "git config core.autocrlf false"),
            "not the named one"
        );
        let deny = "remote: error: refusing to update checked out branch: refs/heads/main\nremote: error: set receive.denyCurrentBranch";
        assert!(!turns_off_named_setting(
            deny,
            "git config receive.denyCurrentBranch updateInstead"
        ));
        // The guard told to let through what it stops: off, as `false` is.
        for v in ["ignore", "warn", "false"] {
            let cmd = format!("git -C ../deploy config receive.denyCurrentBranch {v}");
            assert!(turns_off_named_setting(deny, &cmd), "{cmd}");
        }
        // `warn` for a setting that is no guard is only a level.
        assert!(!turns_off_named_setting(
            "error: log.level is too quiet",
            "tool config log.level warn"
        ));
        // A plain word the failure says is no setting: `git add file false` names no check.
        assert!(!turns_off_named_setting("error: file is wrong", "tool file false"));
    }

    /// The failing command's input overwritten with a literal is destroyed data; created
    /// where the failure said it was missing, appended to, or another file, it is not.
    #[test]
    fn the_input_overwritten_with_a_literal_is_destroyed() {
        use crate::learn::text::command_norm::normalize;
        let overwrites_input = |fail: &str, tail: &str, step: &str| {
            !crate::learn::text::said_missing::file(tail) && super::overwrites_input(&normalize(fail), &normalize(step))
        };
        let parse = "parse error: Expected another array element at line 3, column 21";
        assert!(overwrites_input("jq .items data.json", parse, "echo {} > data.json"));
        assert!(overwrites_input(
            "python3 -m json.tool f.json",
            "Expecting value",
            "printf '{}' > f.json"
        ));
        assert!(
            !overwrites_input(
                "jq . c.json",
                "jq: error: Could not open file c.json: No such file or directory",
                "echo {} > c.json"
            ),
            "created"
        );
        assert!(
            !overwrites_input("jq .items data.json", parse, "echo {} >> data.json"),
            "appended"
        );
        assert!(
            !overwrites_input("jq .items data.json", parse, "echo {} > other.json"),
            "another file"
        );
        assert!(
            !overwrites_input(
                "jq .items data.json",
                parse,
                "sed 's/,]/]/' data.json > data.clean.json"
            ),
            "converted"
        );
        // Another run's output in place of the reference the command checked against.
        assert!(overwrites_input(
            "sha256sum -c --quiet checksums.txt",
            "vendor/a.tar.gz: FAILED\nsha256sum: WARNING: 1 computed checksum did NOT match",
            "sha256sum vendor/a.tar.gz > checksums.txt"
        ));
        let js = "node -e \"console.log(JSON.parse(require('fs').readFileSync('config.json','utf8')))\"";
        assert!(
            overwrites_input(js, "SyntaxError: Unexpected token", "echo {} > config.json"),
            "named in a script"
        );
    }

    #[test]
    fn a_catch_all_in_place_of_the_named_paths_is_widened() {
        use crate::learn::text::command_norm::normalize;
        let widened = |fail: &str, retry: &str| super::widened(&normalize(fail), &normalize(retry));
        assert!(widened("git add My Notes.md", "git add -A"));
        assert!(widened("git add Q3 report.txt", "git add --all"));
        assert!(widened("git restore docs/Release Plan.md", "git restore ."));
        assert!(
            !widened("git add My Notes.md", "git add 'My Notes.md'"),
            "the path quoted"
        );
        assert!(!widened("git add .", "git add -A"), "it named everything already");
        assert!(!widened("git add a.txt", "git commit -a"), "another action");
        assert!(!widened("make", "make -A"), "nothing named");
    }

    fn rec(cmd: &str, ok: bool) -> Record {
        Record::new(
            "2026-01-01T00:00:00.000Z",
            "s",
            "/w",
            cmd,
            Some(if ok { 0 } else { 1 }),
            ok,
            "",
        )
    }

    #[test]
    fn the_safety_gate_judges_the_change_not_the_failing_commands_own_flag() {
        let h = vec![
            rec("npm ci --ignore-scripts", false),
            rec("npm install", true),
            rec("npm ci --ignore-scripts", true),
            rec("npm ci", false),
            rec("npm install --ignore-scripts", true),
        ];
        let h = h.as_slice();
        let p = Prepared::new(h);
        let unsafe_recovery = |fail, between: &[usize], retry| unsafe_recovery(h, &p, fail, between, retry);
        // The failing command's own `--ignore-scripts`, repeated by the retry: the fix is
        // `npm install`, which is safe.
        assert_eq!(unsafe_recovery(0, &[1], Some(2)), None);
        // The retry adds it: that is the fix's change, and it is unsafe.
        assert_eq!(unsafe_recovery(3, &[1], Some(2)), Some("disable_guard"));
        // A step between is the fix itself, whatever the failing command had.
        assert_eq!(unsafe_recovery(0, &[4], Some(2)), Some("disable_guard"));
        assert_eq!(unsafe_steps(h, [1, 4]), Some("disable_guard"));
        assert_eq!(unsafe_steps(h, [1]), None);
    }
}
