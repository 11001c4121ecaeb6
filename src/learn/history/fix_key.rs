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
                // make's `NAME+=value` (and `:=`, `?=`) sets the variable as `NAME=value` does.
                let plain;
                let w = match w.split_once('=') {
                    Some((name, value))
                        if name.ends_with(['+', ':', '?']) && crate::learn::text::command_norm::make_assignment(w) =>
                    {
                        plain = format!("{}={value}", name.trim_end_matches(['+', ':', '?']));
                        &plain
                    }
                    _ => w,
                };
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
                // `npm_config_workspace=web`) is its long option (`--find-links dist`) —
                // unless the failure named the variable: then it is that kind, whatever its
                // name looks like (`BUILD_COMMIT=dev cargo build` after "environment
                // variable `BUILD_COMMIT` not defined" is no `cargo build --commit`).
                let named_here = is_env_assignment(w) && self.sets_named;
                if let Some(flag) = self.own_setting(w).filter(|_| !named_here) {
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
                    // The wrapper dropped (`sudo`): its own kind, named.
                    None if w.starts_with(crate::learn::history::recovery_form::UNWRAPPED) => w.clone(),
                    // A word the shell now expands (`~` unquoted, `$HOME` for `~`): one
                    // kind, whichever spelling.
                    None if w.starts_with(crate::learn::history::recovery_form::EXPAND) => "expand:<v>".into(),
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
                    // A runner's own options, whatever their values (`uv run --with <v>`).
                    None if w.starts_with(crate::learn::text::retry_context::VIA) => w
                        .split_whitespace()
                        .enumerate()
                        .map(|(i, x)| {
                            let runner = i == 0 || x == "run";
                            if runner || x.starts_with('-') {
                                x
                            } else {
                                "<v>"
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                    // Another time limit, whatever it was (`timeout 60s`, `timeout 2m`).
                    None if w.starts_with("timeout ") => "timeout <v>".into(),
                    None => "<args>".into(),
                });
                if long_value && v.last().is_none_or(|l| l != "cd <v>") {
                    v.push("<args>".into());
                }
            }
            v.sort();
            v.dedup();
            if let Some(kind) = options_kind(&v, self.value_names_a_file) {
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

/// The kind of change a variant made, when it changed only the failing command's
/// *options*: flags added (`cp -r`, `cp -R`, `cp -a` after `cp: -r not specified`; `curl
/// -g`/`--globoff`; `grep -F -w`), a flag with its operand (`git push -u origin x` /
/// `--set-upstream origin x`; `--edition 2021` / `--edition=2021`), or a flag's value
/// changed (`gcc -std=c99` → `-std=gnu99`, beside `-D_DEFAULT_SOURCE` added after "`M_PI`
/// undeclared"): one kind of fix, whatever flag spelt it. The sessions of a class that
/// each changed how the failing command runs, and then passed, agree; the directive says
/// the most common spelling and names the others
/// ([`crate::learn::propose::fix_directive`]). No table of synonyms: what they share is
/// the place of the change, the command's options (issue 34: "the same flag position
/// changed"). Until 2026-12-07 a bare flag, a flag with an operand, two flags and a value
/// changed were four kinds, and two sessions of each contested each other (dev2's `gcc`,
/// 2 against 2). Across programs the flag itself must be the same
/// ([`crate::learn::propose::cross_program`]): `--network=host` for `docker` is no
/// spelling of `--timeout=60` for `make`.
///
/// Not this kind: a negation (`--no-rebase` against `--rebase` is the opposite choice, not
/// another spelling: a `--no-` flag keeps its own key), a flag's value changed to a file
/// (`kubectl apply -f a.yaml` → `-f https://…/crd.yaml`: another input, not another way
/// of running it: `value_names_a_file`), a directory (`cd <v>`), operands alone. An unsafe
/// flag (`rm -rf`, `--no-verify`) is split off by its group key before any agreement.
fn options_kind(v: &[String], value_names_a_file: bool) -> Option<String> {
    let flag = |f: &String| f.starts_with('-') && f.len() > 1 && f != "--";
    let value = |f: &String| f == "value:<v>" && !value_names_a_file;
    let changed = v.iter().any(|w| flag(w) || value(w));
    let only_options = v.iter().all(|w| flag(w) || value(w) || w == "<args>");
    let negation = v.iter().any(|w| w.starts_with("--no-"));
    (changed && only_options && !negation).then(|| OPTIONS.to_string())
}

/// A variant's assignment of the variable its failure named ([`Episode::sets_named`]).
pub const NAMED: &str = "<named>=<v>";

/// The fix key of a step that made the failing command's path ready
/// ([`Episode::prepares_operand`]), whichever program ran it.
pub const PREPARES_OPERAND: &str = "steps:<the failing operand made ready>";

/// The key of a step that converted the failing input, the retry run on its result
/// ([`crate::learn::history::converted`]).
pub const CONVERTED: &str = "steps:<the input converted, the retry run on the result>";

/// The fix key of every variant that changed only the failing command's options
/// ([`options_kind`]).
pub const OPTIONS: &str = "variant:<options changed>";

/// What a variant's word says was typed: the word itself, or the text a form the episode
/// wrote carries (`insert:[].` → `[].`, `value:-std=c99` → `-std=c99`, `via:npx -p x` →
/// `npx -p x`); `None` for a form that adds nothing typed (an operand dropped, a wrapper
/// dropped, a directory changed, a failure swallowed). A reader of what the retry gave
/// ([`crate::learn::propose::shared_value`]) reads this, never the form's own name.
pub fn typed_in(w: &str) -> Option<&str> {
    const CARRYING: [&str; 8] = [
        "quote:", "spaced:", "insert:", "rewrite:", "value:", "joined:", "escaped:", "lookup:",
    ];
    let carrying = CARRYING.iter().chain(&[
        crate::learn::history::recovery_form::EXPAND,
        crate::learn::text::retry_context::VIA,
    ]);
    if let Some(c) = carrying.into_iter().find_map(|f| w.strip_prefix(f)) {
        return Some(c);
    }
    let adds_nothing = w.starts_with("without:")
        || w == "cd <v>"
        || w.starts_with(crate::learn::history::recovery_form::UNWRAPPED)
        || w == crate::learn::history::swallowed::SWALLOWED;
    (!adds_nothing).then_some(w)
}
