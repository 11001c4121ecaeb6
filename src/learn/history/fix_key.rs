//! The key of an episode's fix: which sessions did "the same fix" — the grouping every
//! candidate, contest and agreement stands on.
//!
//! Why apart from [`crate::learn::history::episodes`]: extracting what happened is one judgement,
//! deciding which of those happenings are one lesson (masked values, one kind of change
//! however spelt, every directory wrapper one fix) is another.

use crate::learn::history::episodes::Episode;

use crate::learn::text::retry_context::is_env_assignment;

impl Episode {
    /// The key of the fix, masked so that `-m 512m` and `-m 1g` are the same fix:
    /// `steps:git pull --rebase`, `variant:--network=host`, or `""` for none.
    pub fn fix_key(&self) -> String {
        if let Some(v) = &self.verb {
            if self.unwrapped {
                // The missing wrapper dropped: one kind, whatever it wrapped.
                return format!("unwrap:{}", v.domain);
            }
            return format!("verb:{} {}", v.domain, v.action);
        }
        if let Some(l) = &self.listing {
            return format!("substitute:{} {}", l.domain, l.action);
        }
        if let Some(p) = &self.substitute {
            // Every project environment's copy of a program is one fix (`.venv/bin/python`,
            // `.env/bin/python3`, `node_modules/.bin/eslint`): `<env>/bin/python`. The
            // failing program's own copy is `<self>`: `lintkit` run as `.venv/bin/lintkit`
            // and `docgen` as `.venv/bin/docgen` did one thing, whichever tool it was.
            let base = |x: &str| x.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').to_string();
            if crate::learn::text::wrappers::project_runner(p) {
                // Through the project's runner (`npx tidyjs` after `tidyjs` was not found):
                // the failing program's own copy too.
                return "substitution:<env>/bin/<self>".to_string();
            }
            return match p.rsplit_once("/bin/").or_else(|| p.rsplit_once("/.bin/")) {
                Some((_, prog)) if base(prog) == base(self.raw_program.rsplit('/').next().unwrap_or("")) => {
                    "substitution:<env>/bin/<self>".to_string()
                }
                Some((_, prog)) => format!("substitution:<env>/bin/{}", base(prog)),
                None => format!("substitution:{p}"),
            };
        }
        if self.converted {
            // The input converted and the retry run on the result: one fix whichever
            // program converted it.
            return CONVERTED.to_string();
        }
        if self.prepares_operand {
            // Every program that made the failing command's path ready is one fix.
            return PREPARES_OPERAND.to_string();
        }
        if !self.steps.is_empty() {
            let parts: Vec<String> = self.steps.iter().map(step_key).collect();
            // A proven fix and the same step proposed by a session that moved on are one
            // lesson: they share the key (the directive wording differs, not the lesson).
            return format!("steps:{}", parts.join(" && "));
        }
        if !self.variant.is_empty() {
            // Changed positional arguments (other versions, other files) are one kind of
            // fix; added flags are keyed by the flags themselves.
            // Every way of running it in another directory (`cd X &&`, `-C X`,
            // `--prefix X`, `--manifest-path X/Cargo.toml`) is one fix: `cd <v>`.
            let mut v: Vec<String> = Vec::new();
            let mut words = self.variant.iter();
            while let Some(w) = words.next() {
                // `--` only ends the options beside another change: `basename -a -- *.sql`
                // is `-a`. Alone it is the change (`cat -- -notes.txt`: a name that starts
                // with a dash read as a name).
                if w == "--" && self.variant.len() > 1 {
                    continue;
                }
                // A short flag with its number attached (`-m1`) is the flag and a value
                // (`-m 1`), as getopt reads it.
                if let Some(flag) = short_with_number(w) {
                    v.push(flag.to_string());
                    v.push("<args>".into());
                    continue;
                }
                // The program's own setting through its environment (`PIP_FIND_LINKS=dist`,
                // `npm_config_workspace=web`) is its long option (`--find-links dist`).
                if let Some(flag) = self.own_setting(w) {
                    v.push(flag);
                    v.push("<args>".into());
                    continue;
                }
                let long_value = w.starts_with("--") && w.contains('=');
                v.push(match crate::learn::text::inspection::dir_flag(w) {
                    Some(takes_value) => {
                        if takes_value {
                            words.next();
                        }
                        "cd <v>".into()
                    }
                    // An operand run without: one kind, whichever operand it was.
                    None if w
                        .strip_prefix("without:")
                        .is_some_and(|o| !o.is_empty() && !o.starts_with('-')) =>
                    {
                        "without:<v>".into()
                    }
                    None if w.starts_with("without:") => w.clone(),
                    None if w.starts_with("quote:") => "quote:<v>".into(),
                    // A `cd` path with a space quoted whole: one kind, whatever the path.
                    None if w.starts_with("spaced:") => "spaced:<v>".into(),
                    // One operand edited by insertion is one kind of change, whatever
                    // text each session put in (`.[].name`, `map(.name)` after `Cannot
                    // index array`): what was put in depends on the operand, and keyed
                    // by its text the class split into groups below the recurrence
                    // minimum. The directive says the most common text and names the others.
                    // A script operand restated is the same kind: one operand edited.
                    None if w.starts_with("insert:") || w.starts_with("rewrite:") => "insert:<v>".into(),
                    // A flag's value changed is one kind, whichever flag and value: what
                    // the error asked for is another value (`--indent 8` → `4`, `-f0` → `-f1`).
                    None if w.starts_with("value:") => "value:<v>".into(),
                    // A split operand quoted whole: one kind, whatever the path.
                    None if w.starts_with("joined:") => "joined:<v>".into(),
                    // A name kept from being read as an option, by `--` or `./`: one kind.
                    None if w.starts_with("escaped:") => "escaped:<v>".into(),
                    // A name looked up and used: one kind, whatever the name.
                    None if w.starts_with("lookup:") => "lookup:<v>".into(),
                    // The failure swallowed by the line: its own kind, never "other
                    // arguments" (which a safe fix may be, and would then share its block).
                    None if w == crate::learn::history::swallowed::SWALLOWED => w.clone(),
                    // GNU long options take their value either way (`--edition=2021`,
                    // `--edition 2021`): one spelling of one fix, keyed as the second.
                    None if long_value => {
                        let (flag, _) = w.split_once('=').unwrap_or((w, ""));
                        flag.to_string()
                    }
                    None if w.starts_with('-') => mask_value(w),
                    // The variable the failure named, whichever it was: one kind.
                    None if is_env_assignment(w) && self.sets_named => NAMED.into(),
                    None if is_env_assignment(w) => mask_value(w),
                    None if w.starts_with("cd ") => "cd <v>".into(),
                    None => "<args>".into(),
                });
                if long_value && v.last().is_none_or(|l| l != "cd <v>") {
                    v.push("<args>".into());
                }
            }
            v.sort();
            v.dedup();
            if let Some(kind) = one_flag_kind(&v) {
                return kind;
            }
            return format!("variant:{}", v.join(" "));
        }
        String::new()
    }
}

impl Episode {
    /// An environment assignment that sets the failing program's own option: the
    /// variable is the program's name, optionally `config`, then the option's name
    /// (`PIP_FIND_LINKS` for `pip`, `npm_config_workspace` for `npm`: the convention both
    /// tools, and many others, read their options by). Returns the long option,
    /// `--find-links`. No table of variables: the name says whose option it is.
    fn own_setting(&self, w: &str) -> Option<String> {
        if !is_env_assignment(w) {
            return None;
        }
        let name = w.split_once('=')?.0.to_ascii_lowercase();
        let base = |p: &str| {
            p.rsplit('/')
                .next()
                .unwrap_or(p)
                .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
                .to_string()
        };
        let programs = [
            base(&self.raw_program),
            self.domain.clone(),
            self.action.split(' ').next().unwrap_or("").to_string(),
        ];
        programs.iter().filter(|p| p.len() >= 2).find_map(|p| {
            let rest = name.strip_prefix(p.as_str())?.strip_prefix('_')?;
            let rest = rest.strip_prefix("config_").unwrap_or(rest);
            (rest.len() >= 2 && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .then(|| format!("--{}", rest.replace('_', "-")))
        })
    }
}

/// One step's part of a fix key: `make all cd <v>`. A step run in another folder is one
/// fix however the folder is named (`make -C lib`, `make --directory=lib`: `cd <v>`, as for
/// a variant) and whichever file it builds there: a target that is a file name (`make -C
/// lib libring.a`) is the folder's default build narrowed to one artifact, named by the
/// session (dev5's `c-link-library-not-built`, where it split one fix in two). A target
/// that is no file (`make -C lib clean`, `install`) is another action and keeps its key.
fn step_key(s: &crate::learn::history::episodes::FixStep) -> String {
    let mut f: Vec<String> = s
        .flags
        .iter()
        .map(|f| match crate::learn::text::inspection::dir_flag(f) {
            Some(_) => "cd <v>".to_string(),
            // The setting a `config` step sets is what it does, never a value to mask.
            None if f.starts_with(crate::learn::text::config_setting::MARK) => f.to_ascii_lowercase(),
            None => mask_value(f),
        })
        .collect();
    f.sort();
    f.dedup();
    let elsewhere = f.iter().any(|x| x == "cd <v>");
    let file_target = s.action.contains('.') || s.action.contains('/');
    let action = if elsewhere && file_target {
        crate::learn::text::command_norm::bare_action(&s.domain)
    } else {
        s.action.as_str()
    };
    format!("{} {} {}", s.domain, action, f.join(" ")).trim().to_string()
}

/// `-m1` → `-m`: one letter and a number, nothing else.
fn short_with_number(w: &str) -> Option<&str> {
    let b = w.as_bytes();
    (b.len() >= 3 && b[0] == b'-' && b[1].is_ascii_alphabetic() && b[2..].iter().all(u8::is_ascii_digit))
        .then(|| &w[..2])
}

/// `-m=512m` → `-m=<v>`, `512m` → `<v>`; flags without values unchanged.
fn mask_value(w: &str) -> String {
    if let Some((k, _)) = w.split_once('=') {
        return format!("{k}=<v>");
    }
    if w.starts_with('-') {
        return w.to_string();
    }
    if w.chars().any(|c| c.is_ascii_digit()) || w.contains('/') || w.contains('.') {
        return "<v>".to_string();
    }
    w.to_string()
}

/// The kind of change a variant made, when it is *one flag added* and nothing else
/// (`cp -r`, `cp -R`, `cp -a` after `cp: -r not specified`; `curl -g`/`--globoff`;
/// `grep -F`), or one flag with the same operands (`git push -u origin x` /
/// `--set-upstream origin x`; `--edition 2021` / `--edition=2021`): one kind of fix,
/// whatever flag spelt it. The sessions of a class that each made that change to the
/// failing command and then passed agree; the directive says the most common spelling and
/// names the others ([`crate::learn::propose::fix_directive`]). No table of synonyms: what
/// they share is the shape of the change. Not one kind: a bare flag and a flag with an
/// operand (other shapes), several flags, or a negation (`--no-rebase` against
/// `--rebase` is the opposite choice, not another spelling: a `--no-` flag keeps its own
/// key). An unsafe flag (`rm -rf`, `--no-verify`) is split off by its group key before any
/// agreement.
fn one_flag_kind(v: &[String]) -> Option<String> {
    let flag = |f: &String| f.starts_with('-') && f.len() > 1 && !f.contains('=') && f != "--";
    let mut flags = v.iter().filter(|w| flag(w));
    let (Some(f), None) = (flags.next(), flags.next()) else {
        return None;
    };
    if f.starts_with("--no-") || !v.iter().all(|w| w == f || w == "<args>") {
        return None;
    }
    Some(if v.len() == 1 {
        ONE_FLAG.to_string()
    } else {
        format!("{ONE_FLAG} <args>")
    })
}

/// A variant's assignment of the variable its failure named ([`Episode::sets_named`]).
pub const NAMED: &str = "<named>=<v>";

/// The fix key of a step that made the failing command's path ready
/// ([`Episode::prepares_operand`]), whichever program ran it.
pub const PREPARES_OPERAND: &str = "steps:<the failing operand made ready>";

/// The key of a step that converted the failing input, the retry run on its result
/// ([`crate::learn::history::converted`]).
pub const CONVERTED: &str = "steps:<the input converted, the retry run on the result>";

/// The fix key of every one-flag variant ([`one_flag_kind`]).
pub const ONE_FLAG: &str = "variant:<one flag>";

#[cfg(test)]
mod tests {
    use super::ONE_FLAG;
    use crate::learn::history::episodes::tests::rec;
    use crate::learn::history::episodes::{extract, Outcome, Prepared, WINDOW};

    fn keys(h: &[crate::evidence::Record]) -> Vec<String> {
        let p = Prepared::new(h);
        let e = extract(h, &p, WINDOW);
        assert!(e.iter().all(|e| e.outcome == Outcome::Recovered), "{e:#?}");
        e.iter().map(|e| e.fix_key()).collect()
    }

    #[test]
    fn one_flag_added_is_one_kind_of_change_whatever_its_spelling() {
        let cp = "cp: -r not specified; omitting directory 'x'";
        let h = vec![
            rec("a", "cp config backup/config", false, cp),
            rec("a", "cp -r config backup/config", true, ""),
            rec("b", "cp templates snap/templates", false, cp),
            rec("b", "cp -R templates snap/templates", true, ""),
            rec("c", "cp assets out/assets", false, cp),
            rec("c", "cp -a assets out/assets", true, ""),
            rec(
                "d",
                "curl -sS 'http://h/x?ids=[1,2]'",
                false,
                "curl: (3) bad range in URL",
            ),
            rec("d", "curl -sS --globoff 'http://h/x?ids=[1,2]'", true, "ok"),
        ];
        assert_eq!(keys(&h), vec![ONE_FLAG; 4]);
    }

    #[test]
    fn a_negation_two_flags_or_another_shape_are_their_own_kind() {
        let h = vec![
            rec(
                "a",
                "git pull",
                false,
                "fatal: Need to specify how to reconcile divergent branches.",
            ),
            rec("a", "git pull --no-rebase", true, "Merge made"),
            rec("b", "curl -sS https://h/", false, "curl: (60) SSL certificate problem"),
            rec("b", "curl -sS --cacert ca.pem https://h/", true, "ok"),
            rec("c", "grep -rn 'a(' src/", false, "grep: Unmatched ( or \\("),
            rec("c", "grep -rn -F -w 'a(' src/", true, "src/x:1:a("),
        ];
        let k = keys(&h);
        assert_eq!(k[0], "variant:--no-rebase", "the opposite choice keeps its key");
        assert_eq!(
            k[1],
            format!("{ONE_FLAG} <args>"),
            "a flag with its operand: not a bare flag"
        );
        assert!(!k[2].starts_with(ONE_FLAG), "two flags: {}", k[2]);
    }

    #[test]
    fn end_of_options_an_attached_number_and_a_programs_own_variable_are_spellings() {
        let merge = "error: commit 1a2b3c4 is a merge but no -m option was given.";
        let links = "ERROR: No matching distribution found for x";
        let script = "npm error Missing script: \"build\"";
        let h = vec![
            rec("a", "basename docs/*.md", false, "basename: extra operand 'docs/b.md'"),
            rec("a", "basename -a docs/*.md", true, "a.md"),
            rec("b", "basename m/*.sql", false, "basename: extra operand 'm/b.sql'"),
            rec("b", "basename -a -- m/*.sql", true, "a.sql"),
            rec("c", "git revert --no-edit merge-x", false, merge),
            rec("c", "git revert --no-edit -m1 merge-x", true, ""),
            rec("d", "git revert --no-edit merge-y", false, merge),
            rec("d", "git revert --no-edit -m 1 merge-y", true, ""),
            rec("e", ".venv/bin/pip install --no-index x", false, links),
            rec(
                "e",
                "PIP_FIND_LINKS=dist .venv/bin/pip install --no-index x",
                true,
                "Successfully installed x",
            ),
            rec("f", ".venv/bin/pip install --no-index x", false, links),
            rec(
                "f",
                ".venv/bin/pip install --no-index --find-links dist x",
                true,
                "Successfully installed x",
            ),
            rec("g", "npm run build", false, script),
            rec("g", "npm_config_workspace=web npm run build", true, "built"),
            rec("h", "npm run build", false, script),
            rec("h", "npm run build -w web", true, "built"),
            // Another program's variable is no option of this one.
            rec("i", "npm run build", false, script),
            rec("i", "NODE_ENV=production npm run build", true, "built"),
        ];
        let k = keys(&h);
        assert_eq!(k[0], ONE_FLAG, "`--` ends the options, it changes nothing");
        // Alone, `--` is the change: a name kept from being read as an option, one kind
        // with the name written from the current folder.
        let alone = vec![
            rec("z", "cat -notes.txt", false, "cat: invalid option -- 'n'"),
            rec("z", "cat -- -notes.txt", true, "x"),
            rec("y", "wc -l -x.csv", false, "wc: invalid option -- 'x'"),
            rec("y", "wc -l ./-x.csv", true, "1 ./-x.csv"),
        ];
        assert_eq!(
            keys(&alone),
            vec!["variant:escaped:<v>"; 2],
            "alone, `--` is the change"
        );
        assert_eq!(k[1], k[0]);
        assert_eq!(k[2], format!("{ONE_FLAG} <args>"), "-m1 is -m 1");
        assert_eq!(k[3], k[2]);
        assert_eq!(k[4], k[5], "PIP_FIND_LINKS=dist is --find-links dist");
        assert_eq!(k[6], k[7], "npm_config_workspace=web is -w web's long option");
        assert_eq!(k[8], "variant:NODE_ENV=<v>");
    }

    /// The failing program run from the project's own copy is one key whichever program
    /// (`<self>`); another program's copy keeps its name.
    #[test]
    fn the_failing_programs_own_copy_is_one_key_whichever_program() {
        let nf = |p: &str| format!("bash: {p}: command not found");
        let h = vec![
            rec("a", "lintkit src", false, &nf("lintkit")),
            rec("a", ".venv/bin/lintkit src", true, "ok"),
            rec("b", "mdcheck README.md", false, &nf("mdcheck")),
            rec("b", "node_modules/.bin/mdcheck README.md", true, "ok"),
            rec("c", "python3 -m tool x", false, "No module named tool"),
            rec("c", "venv/bin/python -m tool x", true, "ok"),
            rec("d", "pytest -q", false, &nf("pytest")),
            rec("d", ".venv/bin/python -m pytest -q", true, "ok"),
            rec("e", "tidyjs src", false, &nf("tidyjs")),
            rec("e", "npx tidyjs src", true, "ok"),
            rec("f", "bundlr --out dist", false, &nf("bundlr")),
            rec("f", "npm exec bundlr -- --out dist", true, "ok"),
            rec("g", "yarn test", false, "error Command \"test\" not found."),
            rec("g", "npm test", true, "ok"),
        ];
        let k = keys(&h);
        assert_eq!(k[..3], ["substitution:<env>/bin/<self>"; 3], "{k:?}");
        assert_ne!(k[3], k[0], "{k:?}");
        assert_eq!(k[4], k[0], "through the project's runner: {k:?}");
        assert_eq!(k[5], k[0], "through a package manager's exec: {k:?}");
        assert_ne!(k[6], k[0], "another package manager is no project copy: {k:?}");
    }

    #[test]
    fn a_tool_respelt_while_a_flag_was_dropped_is_the_dropped_flag() {
        let user = "ERROR: Can not perform a '--user' install. User site-packages are not visible in this virtualenv.";
        let h = vec![
            rec("a", "venv/bin/pip install --user -q ./libs/x", false, user),
            rec(
                "a",
                "venv/bin/python -m pip install -q ./libs/x",
                true,
                "Successfully installed x",
            ),
            rec("b", ".venv/bin/pip3 install --user -q ./libs/y", false, user),
            rec(
                "b",
                ".venv/bin/pip install -q ./libs/y",
                true,
                "Successfully installed y",
            ),
            rec("c", ".venv/bin/pip install --user -q ./libs/z", false, user),
            rec(
                "c",
                ".venv/bin/pip install -q ./libs/z",
                true,
                "Successfully installed z",
            ),
            // Another program, no flag dropped: still a substitute.
            rec("d", "python app.py", false, "bash: python: command not found"),
            rec("d", "python3 app.py", true, "ok"),
        ];
        let k = keys(&h);
        assert_eq!(k[..3], ["variant:without:--user"; 3], "{k:?}");
        assert!(k[3].starts_with("substitution:"), "{}", k[3]);
    }

    #[test]
    fn a_path_made_ready_by_any_program_is_one_fix_and_nothing_else_is() {
        let enoent = "tar: third_party/vendor: Cannot open: No such file or directory";
        let h = vec![
            rec("a", "tar xzf v.tgz -C third_party/vendor", false, enoent),
            rec("a", "mkdir -p third_party/vendor", true, ""),
            rec("a", "tar xzf v.tgz -C third_party/vendor", true, ""),
            rec("b", "tar -xf r.tgz --directory out/release", false, enoent),
            rec(
                "b",
                "install -d out/release && tar -xf r.tgz --directory out/release",
                true,
                "",
            ),
            // The folder of the operand.
            rec(
                "c",
                "mv a.txt out/a.txt",
                false,
                "mv: cannot move 'a.txt' to 'out/a.txt': No such file or directory",
            ),
            rec("c", "mkdir out", true, ""),
            rec("c", "mv a.txt out/a.txt", true, ""),
            // A step on another word, and a step of the failing program itself.
            rec(
                "d",
                "./target/release/x",
                false,
                "bash: ./target/release/x: No such file or directory",
            ),
            rec("d", "cargo build --release", true, "Finished"),
            rec("d", "./target/release/x", true, "ok"),
            rec("e", "git switch feat/x", false, "fatal: invalid reference: feat/x"),
            rec("e", "git branch feat/x", true, ""),
            rec("e", "git switch feat/x", true, "Switched to branch 'feat/x'"),
        ];
        let k = keys(&h);
        assert_eq!(k[..3], [super::PREPARES_OPERAND; 3], "{k:?}");
        assert_eq!(k[3], "steps:cargo build --release");
        assert_eq!(k[4], "steps:git branch");
    }

    #[test]
    fn a_script_restated_is_the_same_kind_as_one_inserted_into_and_a_look_is_no_retry() {
        let add = "jq: error (at s.json:1): string (\"a: \") and number (3) cannot be added";
        let h = vec![
            rec("a", r#"jq -r '.[] | .name + ": " + .count' s.json"#, false, add),
            rec(
                "a",
                r#"jq -r '.[] | .name + ": " + (.count | tostring)' s.json"#,
                true,
                "a: 3",
            ),
            rec("b", r#"jq -r '.[] | .job + ": " + .n' b.json"#, false, add),
            rec("b", r#"jq -r '.[] | "\(.job): \(.n)"' b.json"#, true, "a: 3"),
        ];
        let k = keys(&h);
        assert_eq!(k[0], "variant:insert:<v>");
        assert_eq!(k[1], k[0], "restated: one operand edited, as an insertion is");
        // The same data asked another question that keeps few of the script's names: a
        // look, not the failing script restated.
        let look = vec![
            rec("c", r#"jq -r '.[] | .name + ": " + .count' s.json"#, false, add),
            rec("c", r#"jq -r '.[] | .name' s.json"#, true, "a"),
        ];
        let p = Prepared::new(&look);
        let e = extract(&look, &p, WINDOW);
        assert_ne!(e[0].outcome, Outcome::Recovered, "{:#?}", e[0]);
    }

    #[test]
    fn a_flags_value_changed_is_one_kind_whatever_the_flag_and_its_spelling() {
        // jq's own words (they name no option: one that does is set, `option_set`).
        let indent = "jq: Cannot indent more than 7 characters";
        let fields = "cut: fields are numbered from 1";
        let h = vec![
            rec("a", "jq --indent 8 . package.json", false, indent),
            rec("a", "jq --indent 4 . package.json", true, "{}"),
            rec("b", "cut -f 0,2 hosts.tsv", false, fields),
            rec("b", "cut -f 1,2 hosts.tsv", true, "a\tb"),
            rec("c", "cut -d, -f0 users.csv", false, fields),
            rec("c", "cut -d, -f1 users.csv", true, "a"),
            rec(
                "d",
                "git log --date=iso-8601 -1",
                false,
                "fatal: unknown date format iso-8601",
            ),
            rec("d", "git log --date=iso8601 -1", true, "commit 1"),
        ];
        assert_eq!(keys(&h), vec!["variant:value:<v>"; 4]);
        // A bare flag replaced in its place by a flag with a value is that option given
        // another value (`-ansi` is GCC's `-std=c90`): one kind with `-std=c89` → `-std=c99`.
        let loop_decl = "error: 'for' loop initial declarations are only allowed in C99 or C11 mode";
        let std = vec![
            rec("f", "cc -ansi -o tool tool.c", false, loop_decl),
            rec("f", "cc -std=gnu99 -o tool tool.c", true, ""),
            rec("g", "gcc -std=c89 -o sum sum.c", false, loop_decl),
            rec("g", "gcc -std=c99 -o sum sum.c", true, ""),
        ];
        assert_eq!(keys(&std), vec!["variant:value:<v>"; 2]);
        // A flag without a value put in another's place is another flag; a negation put in
        // is the opposite choice: neither is a value given.
        let other = vec![
            rec("h", "grep -E 'a(b' notes.txt", false, "grep: Unmatched ( or \\("),
            rec("h", "grep -F 'a(b' notes.txt", true, "a(b"),
            rec("i", "git -c x=1 log --color --oneline", false, "fatal: bad config"),
            rec("i", "git -c x=1 log --no-color=always --oneline", true, "x"),
        ];
        let p = Prepared::new(&other);
        let e = extract(&other, &p, WINDOW);
        assert!(e.iter().all(|e| !e.fix_key().contains("value:")), "{e:#?}");
        // Other letters in a bundle are other flags, not a value.
        let ls = vec![
            rec(
                "e",
                "ls -la src",
                false,
                "ls: cannot access 'src': No such file or directory",
            ),
            rec("e", "ls -lh srcs", true, "x"),
        ];
        let p = Prepared::new(&ls);
        let e = extract(&ls, &p, WINDOW);
        assert!(e.iter().all(|e| !e.fix_key().starts_with("variant:value")), "{e:#?}");
    }

    #[test]
    fn a_name_the_shell_split_quoted_whole_is_one_kind_and_a_catch_all_is_unsafe() {
        let spec = |n: &str| format!("fatal: pathspec '{n}' did not match any files");
        let h = vec![
            rec("a", "git add My Notes.md", false, &spec("My")),
            rec("a", "git add \"My Notes.md\"", true, ""),
            rec("b", "git add Q3 report.txt", false, &spec("Q3")),
            rec("b", "git add Q3\\ report.txt", true, ""),
            rec("c", "git rm --cached design/Old Logo.svg", false, &spec("design/Old")),
            rec(
                "c",
                "git rm --cached 'design/Old Logo.svg'",
                true,
                "rm 'design/Old Logo.svg'",
            ),
        ];
        assert_eq!(keys(&h), vec!["variant:joined:<v>"; 3]);
        let all = vec![
            rec("d", "git add My Notes.md", false, &spec("My")),
            rec("d", "git add -A", true, ""),
        ];
        let p = Prepared::new(&all);
        let e = extract(&all, &p, WINDOW);
        assert_eq!(
            e[0].unsafe_fix,
            Some(crate::learn::history::fix_safety::WIDENED),
            "{e:#?}"
        );
    }

    #[test]
    fn operands_seen_from_the_folder_a_cd_prefix_entered_are_the_same_operands() {
        let open = "Error: cannot open \"tables.sql\"";
        let h = vec![
            rec("a", "sqlite3 app.db '.read db/schema.sql'", false, open),
            rec("a", "cd db && sqlite3 ../app.db '.read schema.sql'", true, "0"),
            rec("b", "sqlite3 dev.db '.read sql/init.sql'", false, open),
            rec("b", "cd sql && sqlite3 ../dev.db '.read init.sql'", true, "0"),
            rec(
                "c",
                "python3 scripts/main.py",
                false,
                "FileNotFoundError: [Errno 2] No such file or directory: 'data.csv'",
            ),
            rec("c", "cd scripts && python3 main.py", true, "ok"),
        ];
        assert_eq!(keys(&h), vec!["variant:cd <v>"; 3]);
    }

    #[test]
    fn a_long_option_takes_its_value_either_way() {
        let e = "error[E0670]: `async fn` is not permitted in Rust 2015";
        let h = vec![
            rec("a", "rustc main.rs", false, e),
            rec("a", "rustc --edition 2021 main.rs", true, ""),
            rec("b", "rustc src/main.rs", false, e),
            rec("b", "rustc --edition=2021 src/main.rs", true, ""),
            rec(
                "c",
                "git push",
                false,
                "fatal: The current branch x has no upstream branch.",
            ),
            rec("c", "git push -u origin x", true, ""),
            rec(
                "d",
                "git push",
                false,
                "fatal: The current branch y has no upstream branch.",
            ),
            rec("d", "git push --set-upstream origin y", true, ""),
        ];
        let k = keys(&h);
        assert_eq!(k[0], k[1]);
        assert_eq!(k[0], format!("{ONE_FLAG} <args>"));
        assert_eq!(k[2], k[3], "-u and --set-upstream: one kind, no synonym table");
    }

    #[test]
    fn setting_the_variable_the_error_named_is_one_kind_whatever_the_name() {
        let h = vec![
            rec("a", "make install", false, "Makefile:2: *** PREFIX is not set.  Stop."),
            rec("a", "make install PREFIX=~/.local", true, "ok"),
            rec("b", "make release", false, "Makefile:2: *** VERSION is not set.  Stop."),
            rec("b", "VERSION=1.4.2 make release", true, "ok"),
            // A variable the error did not name is that variable's own fix.
            rec("c", "make deploy", false, "Makefile:2: *** ENV is not set.  Stop."),
            rec("c", "make deploy DEBUG=1", true, "ok"),
        ];
        let k = keys(&h);
        assert_eq!(k[0], format!("variant:{}", super::NAMED));
        assert_eq!(k[1], k[0]);
        assert_eq!(k[2], "variant:DEBUG=<v>");
    }
}
