//! The failing command's intent done by another action of its program, run instead of a
//! retry (the session then moved on): the action the failure's text names
//! ([`named_instead`]: `npm install` after `npm ci` said it needs what `npm install`
//! makes), the payload of a missing subcommand run directly ([`unwraps`]: `cargo test`
//! after ``no such command: `watch` ``), or another action run in the folder the failure
//! named ([`runs_where_named`]: `git -C x pull` after "destination path 'x' already
//! exists"), or the failing program run by `find` on the files its glob named
//! ([`globbed_by_find`]: `find d -name '*.tmp' -delete` after `rm d/*.tmp` met "Argument
//! list too long").
//!
//! Why apart from [`crate::learn::history::recovery_form`]: a retry keeps the failing
//! action and changes how it runs; these replace the action, and are found among the
//! passing commands that are no retry ([`crate::learn::history::episodes`]: `Episode::verb`).

use crate::learn::history::recovery_form::cd_prefixes;
use crate::learn::text::command_norm::Segment;

/// Another action of the program, run instead of one that takes no operands, that the
/// failure's text names as a word (`npm ci` fails saying `npm ci` needs what `npm
/// install` makes; `npm install`, and the session moves on): the action the tool pointed
/// to. Only actions without operands on either side (the operand-keeping form is
/// [`crate::learn::text::intent::same_operands`]), only a word of four letters or more,
/// and never the failing action's own word.
pub fn named_instead(fail: &Segment, later: &Segment, fail_text: &str) -> bool {
    let word = later.action.split(' ').next().unwrap_or("");
    if later.program != fail.program || fail.action.is_empty() || word.len() < 4 || later.action == fail.action {
        return false;
    }
    let bare = |s: &Segment| crate::learn::text::intent::operand_words(s).is_empty();
    // The text is read last, and only then: this is asked of every passing command in a
    // failure's window.
    bare(fail)
        && bare(later)
        && fail_text
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .any(|w| w.eq_ignore_ascii_case(word))
}

/// Another action of the program run in the folder the failure's text named: `git -C
/// infra-tools pull` or `cd infra-tools && git pull` after `git clone` said "destination
/// path 'infra-tools' already exists". The tool said what is there; the session used it
/// instead of making it again, and moved on. Only a folder given by a `cd X &&` before the
/// command or by the command's directory flag, and only a name the failure's text quotes
/// whole (`'X'`, `"X"`, `` `X` ``, `‘X’`): a folder the text merely contains is chance.
pub fn runs_where_named(fail: &Segment, later: &Segment, later_line: &str, fail_text: &str) -> bool {
    // The cheap tests first: this is asked of every passing command after a failure.
    if later.program != fail.program || later.action.is_empty() || later.action == fail.action {
        return false;
    }
    let mut places: Vec<String> = cd_prefixes(later_line);
    let mut words = later.words.iter();
    while let Some(w) = words.next() {
        if crate::learn::text::inspection::dir_flag(w) == Some(true) {
            places.extend(words.next().cloned());
        }
    }
    places
        .iter()
        .map(|p| p.trim_start_matches("./").trim_end_matches('/'))
        .filter(|p| p.len() >= 2)
        .any(|p| quoted_whole(fail_text, p))
}

/// Does `text` hold `name` quoted whole, in any of the quotes tools use (`'X'`, `"X"`,
/// `` `X` ``, `‘X’`)? The cheap test first: asked of every passing command after a failure.
fn quoted_whole(text: &str, name: &str) -> bool {
    text.contains(name)
        && [('`', '`'), ('\'', '\''), ('"', '"'), ('‘', '’')]
            .iter()
            .any(|(o, c)| text.contains(&format!("{o}{name}{c}")))
}

/// Does `later` run what the failing subcommand only wrapped? The failure's text names
/// the failing subcommand as unknown, quoted (cargo's ``no such command: `watch` ``),
/// and the later command is the same program with another subcommand whose words all
/// appear, in order, among the words the failing one was given (`cargo watch -x test`
/// → `cargo test`, `cargo watch -x 'test -q'` → `cargo test -q`, `cargo make test` →
/// `cargo test`): the missing plugin dropped, its payload run directly. A word the text
/// merely mentions unquoted, or a later command with a word of its own, is not it.
pub fn unwraps(fail: &Segment, later: &Segment, fail_text: &str) -> bool {
    let Some(sub) = fail.words.get(1).filter(|w| !w.starts_with('-') && w.len() >= 2) else {
        return false;
    };
    // The cheap tests first: this is asked of every passing command after a failure.
    if later.program != fail.program || later.words.get(1) == Some(sub) || later.words.len() < 2 {
        return false;
    }
    if !quoted_whole(fail_text, sub) {
        return false;
    }
    let given: Vec<&str> = fail.words[2..].iter().flat_map(|w| w.split_whitespace()).collect();
    let mut rest = given.iter();
    later.words[1..].iter().all(|w| rest.any(|g| g == w))
}

/// Does the line `line` run the failing program on the files the failing command's glob
/// named, through `find` (its segment `at`)? `rm d/*.tmp` → `find d -name '*.tmp' -delete`,
/// `… -exec rm -f {} +`, `find d -name '*.o' -print0 | xargs -0 rm`. The glob's folder is
/// `find`'s start and its last part the `-name` pattern; the program is the one `find`
/// hands the files to (`-delete` is `rm`'s own). The shell expanded the glob into more
/// words than a command line holds, or not where the files were: `find` walks them itself.
/// A `find` that only lists the files is a look, not this.
pub fn globbed_by_find(fail: &Segment, line: &[Segment], at: usize) -> bool {
    let Some(find) = line.get(at).filter(|s| s.program == "find") else {
        return false;
    };
    let globbed = fail
        .words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-') && w.contains('*'));
    let walks = |w: &String| {
        let (dir, pattern) = w.rsplit_once('/').unwrap_or((".", w));
        let dir = if dir.is_empty() { "/" } else { dir };
        let start = find
            .words
            .get(1)
            .is_some_and(|d| d.trim_end_matches('/') == dir.trim_end_matches('/'));
        let named = find
            .words
            .windows(2)
            .any(|p| matches!(p[0].as_str(), "-name" | "-iname") && p[1] == pattern);
        start && named
    };
    if !globbed.into_iter().any(walks) {
        return false;
    }
    let own = &fail.program;
    let deletes = own == "rm" && find.words.iter().any(|w| w == "-delete");
    let execs = find
        .words
        .windows(2)
        .any(|p| matches!(p[0].as_str(), "-exec" | "-execdir") && &p[1] == own);
    let fed = line
        .iter()
        .skip(at + 1)
        .any(|s| s.piped && s.program == "xargs" && s.words.iter().skip(1).any(|w| w == own));
    deletes || execs || fed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    #[test]
    fn the_glob_handed_to_find() {
        let by_find = |fail: &str, later: &str| {
            let (f, l) = (normalize(fail), normalize(later));
            globbed_by_find(f.primary().unwrap(), &l.segments, 0)
        };
        assert!(by_find(
            "rm .cache/thumbs/*.tmp",
            "find .cache/thumbs -name '*.tmp' -delete"
        ));
        assert!(by_find("rm -f logs/*.log", "find logs/ -name '*.log' -exec rm -f {} +"));
        assert!(by_find(
            "rm build/obj/*.o",
            "find build/obj -name '*.o' -print0 | xargs -0 rm"
        ));
        assert!(by_find("gzip logs/*.log", "find logs -name '*.log' -exec gzip {} +"));
        // A look at the files, another folder, another pattern, another program: no.
        assert!(!by_find("rm logs/*.log", "find logs -name '*.log'"));
        assert!(!by_find("rm logs/*.log", "find tmp -name '*.log' -delete"));
        assert!(!by_find("rm logs/*.log", "find logs -name '*.txt' -delete"));
        assert!(!by_find("gzip logs/*.log", "find logs -name '*.log' -delete"));
        assert!(!by_find("rm logs/app.log", "find logs -name 'app.log' -delete"));
    }

    #[test]
    fn another_action_in_the_folder_the_failure_quoted() {
        let text = "fatal: destination path 'infra-tools' already exists and is not an empty directory.";
        let at = |fail: &str, later: &str| {
            let (f, l) = (normalize(fail), normalize(later));
            runs_where_named(f.primary().unwrap(), l.primary().unwrap(), later, text)
        };
        assert!(at("git clone ~/r/infra-tools.git", "git -C infra-tools pull"));
        assert!(at(
            "git clone ~/r/infra-tools.git",
            "cd infra-tools && git pull --ff-only"
        ));
        assert!(at("git clone ~/r/infra-tools.git", "git -C ./infra-tools/ fetch"));
        // Another folder, the same action, no folder at all: none of them.
        assert!(!at("git clone ~/r/infra-tools.git", "git -C tools pull"));
        assert!(!at(
            "git clone ~/r/infra-tools.git",
            "cd infra-tools && git clone ~/r/x.git"
        ));
        assert!(!at("git clone ~/r/infra-tools.git", "git pull"));
        // A folder the text holds only inside a longer quoted name is not the one it named.
        assert!(!at("git clone ~/r/infra-tools.git", "git -C infra pull"));
    }

    #[test]
    fn the_payload_of_a_missing_subcommand_run_directly() {
        let n = |c: &str| {
            crate::learn::text::command_norm::normalize(c)
                .primary()
                .unwrap()
                .clone()
        };
        let missing = "error: no such command: `watch`\n\nhelp: a command with a similar name exists: `fetch`";
        assert!(unwraps(&n("cargo watch -x test"), &n("cargo test"), missing));
        assert!(unwraps(&n("cargo watch -x 'test -q'"), &n("cargo test -q"), missing));
        assert!(unwraps(
            &n("cargo make test"),
            &n("cargo test"),
            "error: no such command: `make`"
        ));
        // Not named by the failure, a word of its own, another program: no.
        assert!(!unwraps(
            &n("cargo watch -x test"),
            &n("cargo test"),
            "error: could not compile"
        ));
        assert!(!unwraps(&n("cargo watch -x test"), &n("cargo test --release"), missing));
        assert!(!unwraps(&n("cargo watch -x test"), &n("make test"), missing));
    }
}
