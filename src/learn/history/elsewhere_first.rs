//! The failing command run in another folder first, then here: `make` fails to link
//! `-lgeo`, `make -C lib` passes, `make` passes. The run elsewhere was a step (it built the
//! library), the run here the retry.
//!
//! Why: a retry is the first later run of the failing intent that passes, and a run with a
//! folder flag (`-C`, `--prefix`, `--manifest-path`) or under `cd` is one (the folder may
//! be the fix: `npm --prefix web test` after `npm test` found no package.json). Read so,
//! the lesson was "run it in `lib`", which the very next run disproves: the same command,
//! unchanged, passed where it had failed. Then what ran in the other folder prepared it.

use crate::learn::history::prepared::Prepared;
use crate::learn::history::records::Records;

/// Where the run here is: the record, its segment, and the passing records between the
/// run elsewhere and it (steps, or looks).
pub struct Here {
    pub retry: usize,
    pub segment: usize,
    pub between: Vec<usize>,
}

/// For failure `i` whose first passing run of its intent is `k`: when `k` ran in another
/// folder (a folder flag the failing command did not have, or a `cd` before it) and a
/// later record of the session, within `window`, is the failing command literally again
/// and passed, with nothing failing between, that later run is the retry.
pub fn then_here<H: Records + ?Sized>(history: &H, prep: &Prepared, i: usize, k: usize, window: usize) -> Option<Here> {
    let fail = history.cmd(i);
    if !ran_elsewhere(fail, history.cmd(k)) {
        return None;
    }
    let mut between = Vec::new();
    for &k2 in prep.after(k, window) {
        if !history.ok(k2) {
            return None;
        }
        if crate::learn::text::intent::literally_same(fail, history.cmd(k2)) {
            let segment = prep.norms[k2]
                .primary()
                .and_then(|p| prep.norms[k2].segments.iter().position(|s| s == p))?;
            return Some(Here {
                retry: k2,
                segment,
                between,
            });
        }
        between.push(k2);
    }
    None
}

/// Did `retry` run in a folder `fail` did not: a folder flag of its own (`make -C lib`,
/// `npm --prefix web`), or a `cd` before it?
fn ran_elsewhere(fail: &str, retry: &str) -> bool {
    let flags = |c: &str| -> Vec<String> {
        c.split_whitespace()
            .filter(|w| crate::learn::text::inspection::dir_flag(w).is_some())
            .map(|w| w.split('=').next().unwrap_or(w).to_string())
            .collect()
    };
    let (f, r) = (flags(fail), flags(retry));
    r.iter().any(|x| !f.contains(x)) || !fail.trim_start().starts_with("cd ") && retry.trim_start().starts_with("cd ")
}
