//! Recovery by intent: how a later success relates to a failure, judged on the words the
//! agent actually typed.
//!
//! Why its own file: normalisation ([`crate::learn::text::command_norm`]) deliberately forgets
//! what does not change the subject (`python3 -m unittest` and `python -m unittest` are
//! both `unittest`; `cd web &&` and `PYTHONPATH=src` are housekeeping). That is right for
//! grouping failures, wrong for judging a retry: `python` → `python3` under `-m` looked
//! like an unchanged (flaky) retry, and a typo fixed (`pyhton3` → `python3`) looked like a
//! program substituted. These judgements read the raw words.

/// Edit distance (optimal string alignment) between two short words, capped: anything
/// beyond `cap` returns `cap + 1`.
pub fn edit_distance(a: &str, b: &str, cap: usize) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > cap {
        return cap + 1;
    }
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()].min(cap + 1)
}

/// The programs of a raw command line as typed, one per simple command: environment
/// assignments, `sudo`/`env`/`time`/`nohup`/`export` and `cd X` skipped, version suffixes
/// kept (`python3` stays `python3`), path prefixes dropped (`/usr/bin/git` → `git`).
pub fn raw_programs(cmd: &str) -> Vec<String> {
    let words: Vec<String> =
        shell_words::split(cmd).unwrap_or_else(|_| cmd.split_whitespace().map(str::to_string).collect());
    let mut out = Vec::new();
    let mut at_start = true;
    let mut skip_next = false;
    let mut wrapped: Option<&str> = None;
    for w in &words {
        if matches!(w.as_str(), "&&" | "||" | ";" | "|" | "&") {
            at_start = true;
            wrapped = None;
            continue;
        }
        if skip_next {
            skip_next = false;
            continue;
        }
        if !at_start {
            continue;
        }
        let assignment = w
            .split_once('=')
            .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        let wrapper = crate::learn::text::tables::on(crate::learn::text::tables::Table::Wrappers)
            && matches!(w.as_str(), "sudo" | "env" | "time" | "nohup" | "export" | "exec");
        if assignment || wrapper {
            wrapped = wrapper.then_some(w.as_str()).or(wrapped);
            continue;
        }
        // A wrapper's own flags (`sudo -u postgres`, `env -i`) are no program.
        if let Some(runner) = wrapped.filter(|_| w.starts_with('-')) {
            skip_next = crate::learn::text::wrappers::option_takes_value(runner, w);
            continue;
        }
        if w == "cd" {
            skip_next = true;
            continue;
        }
        out.push(w.rsplit('/').next().unwrap_or(w).trim_end_matches(';').to_string());
        at_start = false;
        wrapped = None;
    }
    out
}

/// Is the retry literally the failing command again? Same words, waiting (`sleep N`)
/// aside. `rustc main.rs && ./demo` after `rustc main.rs` is not: something was added, and
/// whatever cleared the failure (an edit the log does not show) was no plain retry.
pub fn literally_same(fail_cmd: &str, retry_cmd: &str) -> bool {
    let strip = |c: &str| -> Vec<String> {
        let words: Vec<String> =
            shell_words::split(c).unwrap_or_else(|_| c.split_whitespace().map(str::to_string).collect());
        let mut segs: Vec<Vec<String>> = vec![Vec::new()];
        for w in words {
            if matches!(w.as_str(), "&&" | ";") {
                segs.push(Vec::new());
            } else if let Some(last) = segs.last_mut() {
                last.push(w);
            }
        }
        segs.into_iter()
            .filter(|s| !s.is_empty() && s[0] != "sleep")
            .map(|s| s.join(" "))
            .collect()
    };
    strip(fail_cmd) == strip(retry_cmd)
}

/// A name without its version suffix: `python3.11` → `python`.
fn unversioned(p: &str) -> &str {
    let t = p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if t.is_empty() {
        p
    } else {
        t
    }
}

/// Is `to` a typo correction of `from` (judged on the raw program tokens)? A near
/// spelling (`pyhton3` → `python3`, `gti` → `git`: edit distance ≤ 2) is a typo; the
/// same name with another version (`python` → `python3`) is a substitution, not a typo.
pub fn is_typo(from: &str, to: &str) -> bool {
    let (a, b) = (unversioned(from), unversioned(to));
    a != b && a.len() >= 2 && b.len() >= 2 && edit_distance(a, b, 2) <= 2
}

/// The program the retry substituted for the failing one, judged on raw words: `Some
/// ("python3")` for `python -m unittest` → `python3 -m unittest`; `None` when the raw
/// programs are the same or the change is a typo.
///
/// Only for command lines of the same shape (as many simple commands, one program
/// changed): `rustc main.rs -o demo && ./demo` after `rustc main.rs -o demo` adds a step,
/// it does not substitute `demo` for `rustc`.
pub fn substituted(fail_cmd: &str, retry_cmd: &str) -> Option<String> {
    let (f, r) = (raw_programs(fail_cmd), raw_programs(retry_cmd));
    if f.len() != r.len() {
        return None;
    }
    let mut changed = f.iter().zip(&r).filter(|(a, b)| a != b);
    let (fp, rp) = changed.next()?;
    (changed.next().is_none() && !is_typo(fp, rp)).then(|| rp.clone())
}

/// What a command without subcommands runs: its first operand (`scripts/report.py` for
/// `python3 -u scripts/report.py`), or `-c` for inline code (`python3 -c '…'`, `node -e`).
/// `None` for a tool with a subcommand (its action says what it does) or no operand.
pub fn subject(seg: &crate::learn::text::command_norm::Segment) -> Option<&str> {
    if !seg.action.is_empty() {
        return None;
    }
    for w in seg.words.iter().skip(1) {
        match w.as_str() {
            "-c" | "-e" => return Some("-c"),
            w if w.starts_with('-') => continue,
            w => return Some(w.trim_start_matches("./")),
        }
    }
    None
}

/// Is `later` the failing command's intent again? For a tool without subcommands the same
/// operand: `python3 -c 'import sys; print(sys.path)'` after `python3 tools/backfill.py`
/// failed is a look at the interpreter, not a retry of the script — read as a retry, its
/// success "recovered" the failure with `-c` as the fix.
pub fn same_intent(
    fail: &crate::learn::text::command_norm::Segment,
    later: &crate::learn::text::command_norm::Segment,
) -> bool {
    match (subject(fail), subject(later)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// The operands of a subcommand: its non-flag words after the program and the action's
/// words (`origin`, `~/r.git` for `git remote add origin ~/r.git`).
pub fn operand_words(seg: &crate::learn::text::command_norm::Segment) -> Vec<&str> {
    operands(seg)
}

fn operands(seg: &crate::learn::text::command_norm::Segment) -> Vec<&str> {
    let action_words = seg.action.split(' ').filter(|w| !w.is_empty()).count();
    seg.words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .skip(action_words)
        .map(String::as_str)
        .collect()
}

/// Another action of the same program on the same operands: the intent done another way
/// (`git remote set-url origin U` after `git remote add origin U` said the remote exists).
/// Both need operands: `git status` after `git stauts` is no such substitute.
pub fn same_operands(
    fail: &crate::learn::text::command_norm::Segment,
    later: &crate::learn::text::command_norm::Segment,
) -> bool {
    let (a, b) = (operands(fail), operands(later));
    !fail.action.is_empty() && !later.action.is_empty() && !a.is_empty() && a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_programs_keep_what_was_typed() {
        assert_eq!(raw_programs("python3 -m unittest"), vec!["python3"]);
        assert_eq!(
            raw_programs("cd web && PYTHONPATH=. sudo /usr/bin/npm run build"),
            vec!["npm"]
        );
        assert_eq!(raw_programs("export X=1 && make test"), vec!["make"]);
        // A wrapper's flags and their values are no program.
        assert_eq!(raw_programs("sudo -u postgres psql -c 'select 1'"), vec!["psql"]);
        assert_eq!(raw_programs("env -i PATH=/usr/bin make"), vec!["make"]);
    }

    #[test]
    fn edit_distance_is_capped() {
        assert_eq!(edit_distance("pyhton", "python", 2), 1);
        assert_eq!(edit_distance("comit", "commit", 2), 1);
        assert!(edit_distance("make", "cargo", 2) > 2);
    }

    #[test]
    fn a_plain_retry_is_literal() {
        assert!(literally_same("pytest tests/", "sleep 5 && pytest  tests/"));
        assert!(!literally_same(
            "rustc main.rs -o demo",
            "rustc main.rs -o demo && ./demo"
        ));
        assert!(!literally_same("python -m unittest", "python3 -m unittest"));
    }

    #[test]
    fn typo_is_judged_on_raw_words() {
        assert!(
            is_typo("pyhton3", "python3"),
            "normalised both would differ in suffix only"
        );
        assert!(is_typo("gti", "git"));
        assert!(!is_typo("python", "python3"), "a version change is a substitution");
        assert!(!is_typo("make", "cargo"));
        assert_eq!(substituted("pyhton3 app.py", "python3 app.py"), None);
        assert_eq!(
            substituted("python -m unittest", "python3 -m unittest"),
            Some("python3".into())
        );
        assert_eq!(substituted("python -m unittest", "python -m unittest -v"), None);
        assert_eq!(
            substituted("rustc main.rs -o demo", "rustc main.rs -o demo && ./demo"),
            None
        );
    }

    #[test]
    fn another_verb_on_the_same_operands() {
        let seg = |c: &str| {
            crate::learn::text::command_norm::normalize(c)
                .primary()
                .unwrap()
                .clone()
        };
        let add = seg("git remote add origin ~/remotes/x.git");
        assert!(same_operands(&add, &seg("git remote set-url origin ~/remotes/x.git")));
        assert!(!same_operands(
            &add,
            &seg("git remote set-url upstream ~/remotes/x.git")
        ));
        assert!(!same_operands(&seg("git stauts"), &seg("git status")));
    }

    #[test]
    fn intent_is_the_operand() {
        let seg = |c: &str| {
            crate::learn::text::command_norm::normalize(c)
                .primary()
                .unwrap()
                .clone()
        };
        let fail = seg("python3 tools/backfill.py");
        assert!(same_intent(&fail, &seg("PYTHONPATH=. python3 tools/backfill.py")));
        assert!(same_intent(&seg("python -u check.py"), &seg("python3 -u check.py")));
        assert!(!same_intent(&fail, &seg("python3 -c 'import sys; print(sys.path)'")));
        assert!(!same_intent(&fail, &seg("python3 other.py")));
        assert!(same_intent(&seg("git push"), &seg("git push origin main")));
    }
}
