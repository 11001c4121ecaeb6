//! Rendering a learned fix as a command a person (or agent) can run: valid shell, with
//! placeholders where the sessions differed.
//!
//! Why: a directive learned from several sessions is one fix spelled many ways
//! (`sed -i 's/\r$//' build.sh` here, `… deploy.sh` there). Copying the newest session's
//! text would teach its private values (its branch, its file, its author's e-mail) and,
//! joined back from parsed words, would not even be valid shell (`sed -i s/\r$// f`).
//! So the fix commands of the supporting sessions are *anti-unified* token by token: a
//! token the same in every session stays literal (shell-quoted with `shell-words`), one
//! that varies becomes a placeholder named for what it is (`<branch>`, `<script>`,
//! `<file>`, `<dir>`, `<n>`, `<value>`). A person's name (`git config user.name …`) and an
//! e-mail address are placeholders always, even when every session agrees. With a single
//! session nothing is known to be shared, so its private-looking values (absolute or home
//! paths, e-mails, names) are placeholders too.

/// A command as a directive quotes it: in backticks, its own backticks made quotes (a
/// backtick inside would end the quote early); past 100 characters cut at a word and
/// ended with `…`, never inside a word (`-out <fil` read as a command to type).
pub fn quote_cmd(s: &str) -> String {
    const MAX: usize = 100;
    let said = if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head = crate::evidence::head_chars(s, MAX);
        let cut = head.rfind(' ').filter(|&at| at > 0).map_or(head, |at| &head[..at]);
        format!("{cut} …")
    };
    format!("`{}`", said.replace('`', "'"))
}

/// One token of a rendered command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Literal(String),
    /// A placeholder name, without the angle brackets.
    Hole(&'static str),
    /// A placeholder inside a word whose ends every session shares:
    /// `--set-upstream-to=origin/<branch>`, `<dir>/Cargo.toml` (prefix, hole, suffix).
    Partial(String, &'static str, String),
}

/// Programs that run their first file argument (that argument is a `<script>`).
const INTERPRETERS: &[&str] = &[
    "bash", "sh", "zsh", "dash", "python", "python3", "node", "ruby", "perl", "chmod",
];
/// git subcommands whose positional argument names a branch.
const BRANCH_ACTIONS: &[&str] = &[
    "checkout", "switch", "push", "pull", "merge", "rebase", "branch", "fetch",
];
const SCRIPT_EXT: &[&str] = &[".sh", ".bash", ".py", ".js", ".mjs", ".ts", ".rb", ".pl", ".ps1"];

fn is_email(w: &str) -> bool {
    let Some((user, host)) = w.rsplit_once('@') else {
        return false;
    };
    !user.is_empty() && host.contains('.') && !host.starts_with('.') && !w.contains('/')
}

/// The value of `git config [--global] user.name|user.email VALUE` (position of VALUE).
fn identity_value(words: &[String]) -> Option<(usize, &'static str)> {
    if words.first().map(String::as_str) != Some("git") || words.get(1).map(String::as_str) != Some("config") {
        return None;
    }
    let key = words.iter().position(|w| w == "user.name" || w == "user.email")?;
    let hole = if words[key] == "user.name" { "name" } else { "email" };
    (key + 1 < words.len()).then_some((key + 1, hole))
}

/// The placeholder for a token at position `i` of `words` whose values (one per session)
/// are `values`.
fn hole_for(words: &[String], i: usize, values: &[&str]) -> &'static str {
    if values.iter().all(|v| is_email(v)) {
        return "email";
    }
    let program = words.first().map(String::as_str).unwrap_or("");
    let base = program.rsplit('/').next().unwrap_or(program);
    let ext = |v: &str| SCRIPT_EXT.iter().any(|e| v.ends_with(e));
    if i == 0 || (INTERPRETERS.contains(&base) && values.iter().all(|v| ext(v))) {
        return "script";
    }
    if values.iter().all(|v| v.parse::<f64>().is_ok()) {
        return "n";
    }
    if values
        .iter()
        .all(|v| v.strip_prefix(':').is_some_and(|p| p.parse::<u16>().is_ok()))
    {
        return "port";
    }
    let prev = i.checked_sub(1).and_then(|p| words.get(p)).map(String::as_str);
    if matches!(prev, Some("-m" | "--message")) {
        return "message";
    }
    if prev.and_then(crate::learn::text::inspection::dir_flag) == Some(true) || base == "cd" || prev == Some("cd") {
        return "dir";
    }
    if base == "sed"
        && values
            .iter()
            .all(|v| v.starts_with("s/") || v.contains(' ') || !v.contains('.'))
    {
        return "expr";
    }
    if base == "kubectl" {
        return "resource";
    }
    let after_dashes = words[..i].iter().any(|w| w == "--");
    if base == "git" && !after_dashes && words.get(1).is_some_and(|a| BRANCH_ACTIONS.contains(&a.as_str())) && i >= 2 {
        return "branch";
    }
    if values.iter().all(|v| v.ends_with('/')) || matches!(base, "cd" | "mkdir" | "ls" | "rmdir") {
        return "dir";
    }
    let file_like = |v: &str| {
        v.contains('/')
            || v.rsplit_once('.')
                .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty() && b.len() <= 5)
    };
    if values.iter().all(|v| file_like(v)) {
        return "file";
    }
    "value"
}

/// Where the spellings differ at a placeholder of the added words (positions from
/// `from`), the word most of them typed — at least two sessions and more than half — is
/// said instead of the placeholder (`npm run` ×2 against `npm run-script`: `run`), unless
/// it looks private (a path, an e-mail). Returns the tokens and the other words typed
/// there, with how many sessions typed each (most first), for the directive to name.
/// Only same-length spellings count, as in [`anti_unify`].
pub fn most_common_words(spellings: &[&[String]], mut toks: Vec<Tok>, from: usize) -> (Vec<Tok>, Vec<(usize, String)>) {
    let Some(reference) = spellings.first() else {
        return (toks, Vec::new());
    };
    // Of the reference's shape: its word count, and its flags where it has them (`git -C
    // <dir> config …` and `git config --file <f> …` have one count and two shapes: aligned
    // word by word they said `git <value> <value> <value> …`).
    let flag_at = |s: &[String], i: usize| s[i].starts_with('-') && s[i].len() > 1;
    let same: Vec<&[String]> = spellings
        .iter()
        .copied()
        .filter(|s| s.len() == reference.len() && (0..s.len()).all(|i| flag_at(s, i) == flag_at(reference, i)))
        .collect();
    let mut others = Vec::new();
    for (i, t) in toks.iter_mut().enumerate().skip(from) {
        // A person's name and an e-mail stay placeholders, however many sessions agree.
        if !matches!(t, Tok::Hole(h) if *h != "name" && *h != "email") || i >= reference.len() {
            continue;
        }
        let mut counts: Vec<(usize, &str)> = Vec::new();
        for s in &same {
            match counts.iter_mut().find(|c| c.1 == s[i]) {
                Some(c) => c.0 += 1,
                None => counts.push((1, s[i].as_str())),
            }
        }
        counts.sort_by_key(|c| std::cmp::Reverse(c.0));
        let (n, word) = counts[0];
        if n >= 2 && 2 * n > same.len() && !private_looking(word) && !is_email(word) {
            *t = Tok::Literal(word.to_string());
            others.extend(
                counts[1..]
                    .iter()
                    .filter(|(_, w)| !private_looking(w) && !is_email(w))
                    .map(|(k, w)| (*k, w.to_string())),
            );
        }
    }
    (toks, others)
}

/// The spellings of one step grouped by the program that ran it (`mkdir -p <dir>` and
/// `install -d <dir>`, one fix: [`crate::learn::history::episodes::Episode::prepares_operand`]):
/// the group most sessions ran first (the most recent among equals: `spellings` come most
/// recent first), then the others. Word by word, only one program's spellings align.
pub fn by_program<'a>(spellings: &[&'a [String]]) -> Vec<Vec<&'a [String]>> {
    let mut groups: Vec<Vec<&'a [String]>> = Vec::new();
    for &s in spellings {
        match groups.iter_mut().find(|g| g[0].first() == s.first()) {
            Some(g) => g.push(s),
            None => groups.push(vec![s]),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    groups
}

/// The spellings of one step grouped by program and shape (its flags, without their
/// values, and its redirections): a conversion's sessions spell it many ways (`iconv -f x
/// -t y f > g`, `iconv -f x -t y -o g f`, `iconv --from-code=x …`), and aligned word by word
/// across shapes they say nothing (`iconv -f <value> -t <value> <value> …`). Most common
/// shape first, as [`by_program`].
pub fn by_shape<'a>(spellings: &[&'a [String]]) -> Vec<Vec<&'a [String]>> {
    let shape = |s: &[String]| -> Vec<String> {
        s.iter()
            .take(1)
            .cloned()
            .chain(
                s.iter()
                    .filter(|w| w.starts_with('-') || matches!(w.as_str(), ">" | ">>" | "<"))
                    .map(|w| w.split('=').next().unwrap_or(w).to_string()),
            )
            .collect()
    };
    let mut groups: Vec<(Vec<String>, Vec<&'a [String]>)> = Vec::new();
    for &s in spellings {
        let k = shape(s);
        match groups.iter_mut().find(|g| g.0 == k) {
            Some(g) => g.1.push(s),
            None => groups.push((k, vec![s])),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.1.len()));
    groups.into_iter().map(|g| g.1).collect()
}

/// Puts first a spelling of the most common word count (the most recent among equals:
/// `spellings` comes most recent first), the reference [`anti_unify`] aligns the others
/// on: three `mkdir -p <dir>` and one `mkdir out` are said `mkdir -p <dir>`, not the
/// newest session's `mkdir out` with its private folder.
pub fn most_common_length_first(spellings: &mut Vec<&[String]>) {
    let count = |n: usize| spellings.iter().filter(|s| s.len() == n).count();
    if let Some(i) = (0..spellings.len()).max_by_key(|&i| (count(spellings[i].len()), usize::MAX - i)) {
        let r = spellings.remove(i);
        spellings.insert(0, r);
    }
}

/// A value private to one session when nothing else vouches for it: an absolute or home
/// path, an e-mail address.
fn private_looking(w: &str) -> bool {
    is_email(w) || w.starts_with('/') || w.starts_with("~/") || w.starts_with("/home/") || w.contains("/Users/")
}

/// Anti-unifies the word lists of one fix step across sessions (`spellings[0]` is the
/// reference: the most recent). Only spellings with the reference's word count take
/// part; the rest are another shape of the fix and say nothing token by token.
pub fn anti_unify(spellings: &[&[String]]) -> Vec<Tok> {
    let Some(reference) = spellings.first() else {
        return Vec::new();
    };
    // Of the reference's shape: its word count, and its flags where it has them (`git -C
    // <dir> config …` and `git config --file <f> …` have one count and two shapes: aligned
    // word by word they said `git <value> <value> <value> …`).
    let flag_at = |s: &[String], i: usize| s[i].starts_with('-') && s[i].len() > 1;
    let same: Vec<&[String]> = spellings
        .iter()
        .copied()
        .filter(|s| s.len() == reference.len() && (0..s.len()).all(|i| flag_at(s, i) == flag_at(reference, i)))
        .collect();
    let identity = identity_value(reference);
    reference
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let values: Vec<&str> = same.iter().map(|s| s[i].as_str()).collect();
            if let Some((_, hole)) = identity.filter(|(pos, _)| *pos == i) {
                return Tok::Hole(hole);
            }
            if values.iter().any(|v| is_email(v)) {
                return Tok::Hole("email");
            }
            let varies = values.iter().any(|v| *v != w);
            // Flags that differ are spellings, never a session's private value: the
            // reference's is said (`mkdir -p <dir>` for `-p` and `--parents`), not a hole.
            if varies
                && values
                    .iter()
                    .all(|v| v.starts_with('-') && v.len() > 1 && !v.contains('='))
            {
                return Tok::Literal(w.clone());
            }
            if varies {
                let (pre, suf) = shared_ends(&values);
                let middles: Vec<&str> = values.iter().map(|v| &v[pre.len()..v.len() - suf.len()]).collect();
                let whole = hole_for(reference, i, &values);
                if pre.is_empty() && suf.is_empty() || whole == "expr" {
                    Tok::Hole(whole)
                } else {
                    Tok::Partial(pre.to_string(), hole_for(reference, i, &middles), suf.to_string())
                }
            } else if same.len() == 1 && i > 0 && private_looking(w) {
                Tok::Hole(hole_for(reference, i, &values))
            } else {
                Tok::Literal(w.clone())
            }
        })
        .collect()
}

/// The literal operands of a single spelling (not the program, its action or flags) as
/// placeholders: the words are one session's values, where other sessions used others.
pub fn holes_for_values(words: &[String], toks: Vec<Tok>) -> Vec<Tok> {
    toks.into_iter()
        .enumerate()
        .map(|(i, t)| match t {
            // A variable set for the command (`LD_LIBRARY_PATH=lib`): its name is the fix,
            // its value the session's.
            Tok::Literal(w) if crate::learn::text::retry_context::is_env_assignment(&w) => {
                let (name, value) = w.split_once('=').unwrap_or((&w, ""));
                Tok::Partial(format!("{name}="), hole_for(words, i, &[value]), String::new())
            }
            Tok::Literal(w) if i >= 2 && !w.starts_with('-') && w != "cd" => Tok::Hole(hole_for(words, i, &[&w])),
            t => t,
        })
        .collect()
}

/// What every value of a varying word shares at its ends: a flag's `key=` and then whole
/// path components (`origin/`, `/Cargo.toml`), never part of a name. The middle stays
/// non-empty in every value.
fn shared_ends<'a>(values: &[&'a str]) -> (&'a str, &'a str) {
    let first = values[0];
    let key = match first.split_once('=') {
        // A flag's `--key=`, or a variable's `NAME=` set for the command.
        Some((k, _))
            if (k.starts_with('-') || crate::learn::text::retry_context::is_env_assignment(first))
                && values.iter().all(|v| v.split_once('=').is_some_and(|(x, _)| x == k)) =>
        {
            k.len() + 1
        }
        _ => 0,
    };
    let rest: Vec<&str> = values.iter().map(|v| &v[key..]).collect();
    let common_pre = rest.iter().skip(1).fold(rest[0].len(), |n, v| {
        rest[0]
            .bytes()
            .zip(v.bytes())
            .take(n)
            .take_while(|(a, b)| a == b)
            .count()
    });
    // Whole path components, or whole words of a value that holds several (`.timeout
    // 8000` against `.timeout 15000`: `.timeout `, the number the hole).
    let pre = rest[0][..common_pre].rfind(['/', ' ']).map_or(0, |p| p + 1);
    let common_suf = rest.iter().skip(1).fold(rest[0].len(), |n, v| {
        rest[0]
            .bytes()
            .rev()
            .zip(v.bytes().rev())
            .take(n)
            .take_while(|(a, b)| a == b)
            .count()
    });
    let tail = &rest[0][rest[0].len() - common_suf..];
    let suf = tail.find(['/', ' ']).map_or(0, |p| tail.len() - p);
    let fits = rest
        .iter()
        .all(|v| v.len() > pre + suf && v.is_char_boundary(pre) && v.is_char_boundary(v.len() - suf));
    if !fits {
        return (&first[..key], "");
    }
    (&first[..key + pre], &first[first.len() - suf..])
}

/// One word as the shell reads it back: bare when every character is inert
/// (`--prune=now`, `PYTHONPATH=src`, `react@18`), else `shell-words` quoting.
fn quote(w: &str) -> String {
    // A redirection a step's words carry (`> out.csv`) is said as the shell reads it.
    if matches!(w, ">" | ">>" | "<") {
        return w.to_string();
    }
    // An environment setting (`PERL5LIB="$PWD/lib"`) is said as one: its name bare, its
    // value as typed when it came quoted, in double quotes when it expands a variable
    // (single quotes would hand `$PWD` to the program unexpanded).
    if let Some((name, value)) = w.split_once('=').filter(|(n, v)| is_env_name(n) && !v.is_empty()) {
        let quoted = value.len() >= 2
            && (value.starts_with('"') && value.ends_with('"') || value.starts_with('\'') && value.ends_with('\''));
        if quoted {
            return w.to_string();
        }
        if value.contains('$') && !value.contains(['"', '\\', '`']) {
            return format!("{name}=\"{value}\"");
        }
        return format!("{name}={}", quote(value));
    }
    let inert = |c: char| c.is_ascii_alphanumeric() || "_-+=:,./@%^".contains(c);
    // A path from an environment variable (`$PWD/config/dev.env`, `${HOME}/bin`): the
    // session's shell expanded it, so it is said in double quotes. Single quotes would
    // hand the program `$PWD` itself. Only an upper-case name: a lower-case `$x` is as
    // likely a script's own variable (`jq '$x'`), which the shell must not touch.
    if expands_env_path(w) && w.chars().all(|c| inert(c) || "${}".contains(c)) {
        return format!("\"{w}\"");
    }
    // `~/remotes/x.git` as typed: quoted, the shell would not expand the `~`.
    let body = w.strip_prefix("~/").unwrap_or(w);
    if !body.is_empty() && body.chars().all(inert) {
        w.to_string()
    } else {
        shell_words::quote(w).into_owned()
    }
}

/// Does a word start with an upper-case environment variable (`$PWD`, `${HOME}`) and go on
/// as a path (`/…`) or end there?
fn expands_env_path(w: &str) -> bool {
    let Some(rest) = w.strip_prefix('$') else {
        return false;
    };
    let (name, tail) = match rest.strip_prefix('{') {
        Some(r) => match r.split_once('}') {
            Some((n, t)) => (n, t),
            None => return false,
        },
        None => {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            (&rest[..end], &rest[end..])
        }
    };
    is_env_name(name)
        && name.chars().all(|c| !c.is_ascii_lowercase())
        && (tail.is_empty() || tail.starts_with('/'))
        && !tail.contains('$')
}

/// A name the shell takes as a variable's: a letter or `_`, then letters, digits, `_`.
fn is_env_name(n: &str) -> bool {
    n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Renders tokens as one shell command: literals quoted only where the shell needs it,
/// placeholders as `<name>` (to be replaced before running).
pub fn render(toks: &[Tok]) -> String {
    toks.iter()
        .map(|t| match t {
            Tok::Literal(w) => quote(w),
            Tok::Hole(h) => format!("<{h}>"),
            // A value of several words is quoted whole, the hole inside: `'.timeout <n>'`.
            Tok::Partial(p, h, s) if p.contains(' ') || s.contains(' ') => {
                format!("'{}<{h}>{}'", p.replace('\'', "'\\''"), s.replace('\'', "'\\''"))
            }
            Tok::Partial(p, h, s) => {
                let q = |x: &str| if x.is_empty() { String::new() } else { quote(x) };
                format!("{}<{h}>{}", q(p), q(s))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Quotes a list of words as a shell command (no placeholders: flags of a variant).
pub fn quote_words(words: &[String]) -> String {
    let toks: Vec<Tok> = words
        .iter()
        .map(|w| {
            if is_email(w) {
                Tok::Hole("email")
            } else {
                Tok::Literal(w.clone())
            }
        })
        .collect();
    render(&toks)
}

/// A step's words as the session typed its launcher: normalisation runs `python3 -m venv
/// .venv` as `venv .venv` and `npx tsc` as `tsc` (the module or package is the tool), but
/// said that way the step does not run (`venv` is no program). `raw`: the record's
/// programs as typed ([`crate::learn::history::episodes::FixStep::raw`]); only a record of
/// one command is said back, and only for the launchers whose unwrapping loses no other
/// word (a Python interpreter with `-m`, `npx`/`bunx`/`pnpx`).
pub fn as_typed(raw: &[String], words: &[String]) -> Vec<String> {
    let (Some(prog), [_]) = (raw.first(), raw) else {
        return words.to_vec();
    };
    let base = |p: &str| p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').to_string();
    let Some(first) = words.first() else {
        return words.to_vec();
    };
    if base(first) == base(prog) {
        return words.to_vec();
    }
    let launcher: &[&str] = match base(prog).as_str() {
        "python" => &["-m"],
        "npx" | "bunx" | "pnpx" => &[],
        _ => return words.to_vec(),
    };
    std::iter::once(prog.as_str())
        .chain(launcher.iter().copied())
        .map(str::to_string)
        .chain(words.iter().cloned())
        .collect()
}

/// The spellings that ran in a folder by a directory flag (`git -C infra pull`), each
/// once, the folder masked: `git -C <dir> pull`. Spellings without one are left out.
pub fn folder_flag_spellings(spellings: &[&[String]]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for words in spellings {
        let mut said: Vec<&str> = Vec::new();
        let mut it = words.iter();
        while let Some(w) = it.next() {
            said.push(w);
            if crate::learn::text::inspection::dir_flag(w) == Some(true) && it.next().is_some() {
                said.push("<dir>");
            }
        }
        let way = said.join(" ");
        if said.contains(&"<dir>") && !out.contains(&way) {
            out.push(way);
        }
    }
    out
}

/// The other spellings a fix group's sessions used when the group is one kind of change
/// spelt several ways ([`crate::learn::history::fix_key::OPTIONS`]), and the other words
/// typed where a common one is said (`words`: (sessions, word)), most common first
/// (equals: the most recent first):
/// ` (also seen: `-R`, `-a`)`. Empty when every session spelt it alike.
pub(crate) fn also_seen(
    group: &[Vec<String>],
    best: &[String],
    shape: impl Fn(&[String]) -> Vec<String>,
    words: &[(usize, String)],
) -> String {
    let best = shape(best);
    let mut others: Vec<(usize, usize, String)> = Vec::new();
    // Other words typed where the common one is said ([`most_common_words`]).
    for (n, w) in words {
        others.push((*n, usize::MAX - 1 - others.len(), quote_words(std::slice::from_ref(w))));
    }
    for (i, g) in group.iter().enumerate() {
        let sh = shape(g);
        if sh == best || sh.is_empty() {
            continue;
        }
        let said = quote_words(&sh);
        match others.iter_mut().find(|o| o.2 == said) {
            Some(o) => o.0 += 1,
            None => others.push((1, i, said)),
        }
    }
    if others.is_empty() {
        return String::new();
    }
    others.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let list: Vec<String> = others.iter().map(|o| quote_cmd(&o.2)).collect();
    also_said(&list)
}

/// The other ways a directive names after its own, each already said (quoted):
/// ` (also seen: `-R`, `-a`)`; empty for none. One wording for every directive.
pub(crate) fn also_said(others: &[String]) -> String {
    if others.is_empty() {
        String::new()
    } else {
        format!(" (also seen: {})", others.join(", "))
    }
}

/// Is a rendered change nothing but placeholders (`<value> <file>`)? Every word differed
/// between the sessions, so the rendering says nothing a reader could act on.
pub(crate) fn only_holes(rendered: &str) -> bool {
    let mut depth = 0usize;
    let mut said = false;
    for ch in rendered.chars() {
        match ch {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 && !(ch.is_whitespace() || matches!(ch, '\'' | '"')) => said = true,
            _ => {}
        }
    }
    !rendered.trim().is_empty() && !said
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
