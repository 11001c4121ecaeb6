//! Canonical spellings of flags: one fix typed two ways is one fix.
//!
//! Why its own file: a fix is keyed by its flags ([`crate::learn::history::episodes::Episode::fix_key`]),
//! so `git push -u origin x` and `git push --set-upstream origin x` were two fixes that
//! contested each other in one failure class. Only synonyms the tool itself documents.

/// The long spelling of a short flag, for the tool and action it belongs to.
pub fn canonical_flag<'a>(domain: &str, action: &str, flag: &'a str) -> &'a str {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Spellings) {
        return flag;
    }
    match (domain, action, flag) {
        ("git", "push", "-u") => "--set-upstream",
        ("git", "push", "-f") => "--force",
        ("git", "push" | "pull" | "commit", "-q") => "--quiet",
        ("git", "checkout" | "switch" | "stash push" | "stash pop", "-q") => "--quiet",
        ("cargo", _, "-q") => "--quiet",
        _ => flag,
    }
}

/// `git switch …` in `git checkout`'s words: `-c`/`--create` → `-b`, `-C`/`--force-create`
/// → `-B`, `--discard-changes` → `-f` (git-switch(1) documents each as the same).
pub fn switch_as_checkout(words: Vec<String>) -> Vec<String> {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Spellings) {
        return words;
    }
    let mut seen = false;
    words
        .into_iter()
        .map(|w| {
            let out = match w.as_str() {
                "switch" if !seen => "checkout",
                "-c" | "--create" if seen => "-b",
                "-C" | "--force-create" if seen => "-B",
                "--discard-changes" if seen => "-f",
                _ => {
                    return w;
                }
            };
            seen = true;
            out.to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synonyms_are_per_tool() {
        assert_eq!(canonical_flag("git", "push", "-u"), "--set-upstream");
        assert_eq!(canonical_flag("git", "push", "--set-upstream"), "--set-upstream");
        assert_eq!(
            canonical_flag("npm", "install", "-u"),
            "-u",
            "another tool's -u is its own"
        );
        assert_eq!(canonical_flag("git", "commit", "-u"), "-u");
    }
}
