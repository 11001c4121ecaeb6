//! A script run through its language's interpreter: `python3 tools/gen.py --all` after
//! `./tools/gen.py --all` was denied is the failing intent again, by another program.
//!
//! Why apart from [`crate::learn::history::recovery_form`]: which retry is the same intent
//! is that file's; which program a script's language names is one fact of its own, read
//! by the directive as well ([`crate::learn::propose::fix_directive`]).

use crate::learn::text::command_norm::Segment;

/// The interpreter of a script by its file's extension (`python` for `gen.py`, `node` for
/// `cli.mjs`), as a program's normalised name; `None` for any other file.
pub fn language_of(path: &str) -> Option<&'static str> {
    match path.rsplit_once('.').map(|(_, e)| e) {
        Some("py") => Some("python"),
        Some("js" | "mjs" | "cjs") => Some("node"),
        Some("rb") => Some("ruby"),
        Some("pl") => Some("perl"),
        _ => None,
    }
}

/// Does `later` run the failing script, named by its path, as an interpreter's operand
/// with the same arguments (`python3 tools/gen.py --all` after `./tools/gen.py --all` was
/// denied; `node bin/cli.js` after `./bin/cli.js`)? The same intent, another program: the
/// interpreter is the substitute. The language is the file's extension (a shell script is
/// left to the shell's own reading: `bash x.sh` is `x.sh` run by its shell already).
pub fn through_interpreter(fail: &Segment, later: &Segment) -> bool {
    let Some(path) = fail.words.first().filter(|w| w.contains('/')) else {
        return false;
    };
    let path = path.trim_start_matches("./");
    // Only an interpreter of the script's own language: `ldd ./app` or `bash -x
    // ./bin/run.sh` look at the program (a look passes whatever failed).
    if language_of(path) != Some(later.program.as_str()) {
        return false;
    }
    let rest: Vec<&String> = later.words.iter().skip(1).skip_while(|w| w.starts_with('-')).collect();
    rest.first().is_some_and(|w| w.trim_start_matches("./") == path)
        && rest.len() == fail.words.len()
        && rest[1..].iter().zip(&fail.words[1..]).all(|(a, b)| *a == b)
}
