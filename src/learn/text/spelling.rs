//! Equivalent spellings of one *command* that no change of shape shows: `git switch -c X`
//! is `git checkout -b X` (another subcommand and another flag at once).
//!
//! Why its own file, and why so short: a fix is keyed by the kind of change it made
//! ([`crate::learn::history::episodes::Episode::fix_key`]), so one flag added however it is
//! spelt (`git push -u`/`--set-upstream`, `cp -r`/`-R`/`-a`, `--edition=2021`/`--edition
//! 2021`) is one fix without a list of synonyms. Until 2026-12-06 a table of flag synonyms
//! per tool lived here (`-u` = `--set-upstream`, `-q` = `--quiet`, `-f` = `--force`); the
//! kind-of-change key made it decide nothing on any corpus, and it was removed. What stays
//! is what the shape cannot see: a subcommand renamed together with its flags, and a
//! tool's documented aliases of its commands (`npm i` is `npm install`). Only synonyms the
//! tool itself documents.

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

/// An npm command in its canonical name: `i`, `add`, `isntall` → `install`, `t` → `test`,
/// `run-script` → `run`, `clean-install` → `ci`, `rm`, `un` → `uninstall` (the aliases
/// `npm help <command>` lists for each). `npm i x` and `npm install x` are one fix step.
pub fn npm_command(action: &str) -> &str {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Spellings) {
        return action;
    }
    match action {
        "i" | "in" | "ins" | "inst" | "insta" | "instal" | "isnt" | "isnta" | "isntal" | "isntall" | "add" => "install",
        "t" | "tst" => "test",
        "run-script" | "rum" | "urn" => "run",
        "clean-install" | "ic" | "install-clean" | "isntall-clean" => "ci",
        "un" | "unlink" | "remove" | "rm" | "r" => "uninstall",
        a => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn npm_aliases_are_their_command() {
        assert_eq!(npm_command("i"), "install");
        assert_eq!(npm_command("run-script"), "run");
        assert_eq!(npm_command("install"), "install");
        assert_eq!(npm_command("start"), "start");
    }

    #[test]
    fn switch_is_said_in_checkouts_words() {
        assert_eq!(switch_as_checkout(w("switch -c feat/x")), w("checkout -b feat/x"));
        assert_eq!(switch_as_checkout(w("switch --force-create x")), w("checkout -B x"));
        assert_eq!(
            switch_as_checkout(w("checkout -c x")),
            w("checkout -c x"),
            "-c is switch's, not checkout's"
        );
    }
}
