//! Command normalisation: a shell command line → its segments, each with a *domain*
//! (the tool family: `git`, `cargo`, `npm`, `python`, …) and an *action* (the subcommand:
//! `push`, `build`, `run build`, …).
//!
//! Why: a rule is about "`git push` is rejected", not about the exact string the agent
//! typed. Wrappers that do not change what runs are unwrapped (`sudo`, `env X=Y`, bare
//! `X=Y`, `time`, `nohup`, `timeout N`, `npx`, `uv run`, `poetry run`, `pipenv run`,
//! `python -m X`, `bash -c "…"`), and housekeeping segments (`cd dir`, `sleep N`,
//! `export X=Y`, `source …`) are not the command's subject. Parsing never fails: an
//! unbalanced quote falls back to whitespace splitting.

/// One simple command of a command line (`a && b | c` has three).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Basename of the program after unwrapping, version suffixes removed (`python3.11` → `python`).
    pub program: String,
    /// The tool family the program belongs to.
    pub domain: String,
    /// The subcommand (one or two words), or `""` for programs without subcommands.
    pub action: String,
    /// The words from the program on (wrappers removed).
    pub words: Vec<String>,
    /// True when a `sudo` wrapper was removed.
    pub sudo: bool,
    /// True when this segment came after a `|` (a filter such as `tail`).
    pub piped: bool,
    /// True when it redirects output into a file (`echo x >> Dockerfile` writes).
    pub writes: bool,
    /// Its file redirections (`<`, `>`, `>>` and their files), kept apart from the words
    /// that run: a directive says where a step read and wrote.
    pub redirects: Vec<String>,
}

impl Segment {
    /// `git push`, `npm run build`, `python`.
    pub fn label(&self) -> String {
        if self.action.is_empty() {
            self.program.clone()
        } else {
            format!("{} {}", self.program, self.action)
        }
    }

    /// The words joined back, e.g. `git pull --rebase`.
    pub fn text(&self) -> String {
        self.words.join(" ")
    }

    /// Flags (`-x`, `--long`, `--k=v`) of this segment, in order.
    pub fn flags(&self) -> Vec<&str> {
        self.words
            .iter()
            .skip(1)
            .filter(|w| w.starts_with('-'))
            .map(String::as_str)
            .collect()
    }

    /// The file it reads on standard input (`< dump.sql`), if any.
    pub fn stdin_file(&self) -> Option<&str> {
        self.redirects
            .chunks(2)
            .find(|p| p.len() == 2 && p[0] == "<")
            .map(|p| p[1].as_str())
    }

    /// A filter after a pipe (`| tail`, `| grep x`): it shapes output, it changes nothing.
    /// A shell or interpreter after a pipe runs what it is fed (`curl … | sh`): no filter —
    /// read as one, a retry after `curl … | sh` was a "plain retry". So does a database
    /// shell fed SQL (`cat dump.sql | sqlite3 app.db`): it runs the dump.
    pub fn is_filter(&self) -> bool {
        self.piped
            && !matches!(
                self.domain.as_str(),
                "shell" | "python" | "npm" | "ruby" | "perl" | "sqlite" | "psql" | "mysql"
            )
    }

    /// True for commands that only look (listing, reading, status): they are diagnosis,
    /// never the fix of a failure.
    pub fn is_read_only(&self) -> bool {
        crate::learn::text::read_only::only_looks(crate::learn::text::read_only::Looked {
            program: &self.program,
            domain: &self.domain,
            action: &self.action,
            words: &self.words,
            writes: self.writes,
        })
    }
}

/// A normalised command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmdNorm {
    /// Subject segments in order (housekeeping such as `cd`/`sleep` removed).
    pub segments: Vec<Segment>,
    /// The segments' words joined by ` && `: equal strings mean "the same command again".
    pub canonical: String,
}

impl CmdNorm {
    /// The main segment: the last one not piped into (`cd x && git push` → `git push`,
    /// `pytest | tail` → `pytest`): in a chain the earlier steps prepare the last. `None`
    /// for an empty command. Its place in the line: [`CmdNorm::primary_index`].
    pub fn primary(&self) -> Option<&Segment> {
        self.segments.get(self.primary_index()?)
    }

    pub fn primary_index(&self) -> Option<usize> {
        let last = self.segments.iter().rposition(|s| !s.piped);
        last.or((!self.segments.is_empty()).then_some(0))
    }

    pub fn domain(&self) -> &str {
        self.primary().map(|s| s.domain.as_str()).unwrap_or("")
    }

    pub fn action(&self) -> &str {
        self.primary().map(|s| s.action.as_str()).unwrap_or("")
    }

    /// `git push` for the primary segment.
    pub fn label(&self) -> String {
        self.primary().map(Segment::label).unwrap_or_default()
    }

    /// Index of the first segment with this domain and action.
    pub fn find(&self, domain: &str, action: &str) -> Option<usize> {
        self.segments
            .iter()
            .position(|s| s.domain == domain && s.action == action)
    }

    /// True when any segment runs with `sudo`.
    pub fn uses_sudo(&self) -> bool {
        self.segments.iter().any(|s| s.sudo)
    }
}

/// Programs whose first non-flag word is a subcommand.
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "yarn",
    "pnpm",
    "bun",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "tofu",
    "go",
    "pip",
    "uv",
    "poetry",
    "pipenv",
    "conda",
    "aws",
    "gh",
    "gcloud",
    "az",
    "bundle",
    "gem",
    "rustup",
    "systemctl",
    "brew",
    "apt",
    "apt-get",
    "make",
    "mvn",
    "gradle",
    "alembic",
    "dotnet",
    "composer",
    "minikube",
    "kind",
    "docker-compose",
    "deno",
    "flutter",
    "swift",
    "rake",
    "mix",
    "stack",
    "cabal",
    "nix",
    "just",
];

/// Subcommands that take a second word as part of the action (`npm run build`).
fn two_level(program: &str, first: &str) -> bool {
    matches!(
        (program, first),
        ("npm" | "yarn" | "pnpm" | "bun", "run")
            | (
                "docker" | "podman",
                "compose" | "container" | "image" | "buildx" | "volume" | "network"
            )
            | ("kubectl", "rollout" | "config" | "auth")
            | ("gh", _)
            | ("aws", _)
            | ("gcloud", _)
            | ("go", "mod")
            | ("git", "stash" | "remote" | "submodule" | "worktree")
            | ("cargo", "component")
    )
}

/// Splits a command line into simple commands at `&&`, `||`, `;`, `|`, `&` and newlines,
/// respecting quotes. Each piece is returned with whether it followed a pipe.
pub(crate) fn split_segments(cmd: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut piped = false;
    let chars: Vec<char> = cmd.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            } else if c == '\\' && q == '"' && i + 1 < chars.len() {
                cur.push(chars[i + 1]);
                i += 1;
            }
            i += 1;
            continue;
        }
        match c {
            '\'' | '"' | '`' => {
                quote = Some(c);
                cur.push(c);
            }
            '\\' if i + 1 < chars.len() => {
                cur.push(c);
                cur.push(chars[i + 1]);
                i += 1;
            }
            '&' | '|' | ';' | '\n' => {
                let double = i + 1 < chars.len() && chars[i + 1] == c;
                // `2>&1`, `&>`, `>&2`: redirections, not separators.
                let redirect = c == '&' && (cur.ends_with('>') || (i + 1 < chars.len() && chars[i + 1] == '>'));
                if redirect {
                    cur.push(c);
                } else {
                    if !cur.trim().is_empty() {
                        out.push((cur.trim().to_string(), piped));
                    }
                    cur.clear();
                    piped = c == '|' && !double;
                    if double {
                        i += 1;
                    }
                }
            }
            _ => cur.push(c),
        }
        i += 1;
    }
    if !cur.trim().is_empty() {
        out.push((cur.trim().to_string(), piped));
    }
    out
}

/// The action of a program run with no subcommand or target: `all` for `make` (its
/// default goal, by the convention every Makefile follows), else none.
pub fn bare_action(program: &str) -> &'static str {
    if program == "make" && crate::learn::text::tables::on(crate::learn::text::tables::Table::SubcommandPrograms) {
        "all"
    } else {
        ""
    }
}

/// Whether a program's action is a target it builds (`make test`), not a subcommand with
/// options of its own (`git worktree add`): its options are the program's, whichever
/// target they are given with.
pub fn action_is_a_target(program: &str) -> bool {
    program == "make"
}

/// The file redirections of a simple command's words: `… < in.csv > in.utf8.csv` →
/// `["<", "in.csv", ">", "in.utf8.csv"]`. Not `2>`, `&>` or `/dev/…`: what a directive
/// says of a step is where it read and wrote, which its words alone lose.
fn redirections(raw: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = raw.iter();
    while let Some(w) = it.next() {
        // A process substitution (`<(sort a.txt)`) is an operand, not a redirection.
        if w.starts_with("<(") || w.starts_with(">(") {
            continue;
        }
        let (op, target) = match w.as_str() {
            ">" | ">>" | "<" | "1>" => (w.trim_start_matches('1').to_string(), it.next().cloned()),
            _ => match w
                .strip_prefix(">>")
                .or_else(|| w.strip_prefix('>'))
                .or_else(|| w.strip_prefix('<'))
            {
                Some(t) if !t.is_empty() && !t.starts_with('&') => {
                    (w[..w.len() - t.len()].to_string(), Some(t.to_string()))
                }
                _ => continue,
            },
        };
        if let Some(t) = target.filter(|t| !t.starts_with("/dev/")) {
            out.extend([op, t]);
        }
    }
    out
}

/// `NAME=value`, `NAME+=value`, `NAME:=value`, `NAME?=value`: a variable make's command line
/// sets.
pub(crate) fn make_assignment(w: &str) -> bool {
    let Some((name, _)) = w.split_once('=') else {
        return false;
    };
    let name = name.trim_end_matches(['+', ':', '?']);
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn segment_from_words(mut words: Vec<String>, sudo: bool, piped: bool, writes: bool) -> Option<Segment> {
    let first = words.first()?;
    let mut program = program_name(first);
    // `bash deploy.sh` runs the script: the script is the subject.
    if matches!(program.as_str(), "bash" | "sh" | "zsh") {
        if let Some(script) = words.iter().skip(1).find(|w| !w.starts_with('-')) {
            program = program_name(script);
        }
    }
    if program == "docker-compose" {
        program = "docker".to_string();
    }
    // A program run by a relative path (`./bin/setup`, `scripts/deploy.sh`) is a project
    // script whatever its extension: one domain, so `bin/setup` and `ci/lint.sh` failing
    // alike are one class.
    // A program in an environment's `bin` (`.venv/bin/python3`, `node_modules/.bin/jest`)
    // is that program, not a script of the project.
    let env_copy = first.rsplit('/').nth(1).is_some_and(|d| matches!(d, "bin" | ".bin"))
        && first.split('/').next().is_some_and(|d| !matches!(d, "" | "." | "bin"));
    let local = first.contains('/') && !first.starts_with('/') && !first.starts_with('~') && !env_copy;
    let domain = match domain_of(&program) {
        d if local && d == program => "shell".to_string(),
        d => d,
    };
    let mut action = String::new();
    if crate::learn::text::tables::on(crate::learn::text::tables::Table::SubcommandPrograms)
        && SUBCOMMAND_PROGRAMS.contains(&program.as_str())
    {
        let mut rest = words.iter().skip(1).peekable();
        let mut first_word: Option<&String> = None;
        while let Some(w) = rest.next() {
            // `make CFLAGS=-fcommon`, `make CXXFLAGS+=-std=c++20`: a variable set on make's
            // command line is a setting, not its target.
            if program == "make" && make_assignment(w) {
                continue;
            }
            if w.starts_with('-') {
                // A flag's value is no subcommand: `git -C dir`, `make -f x`, and the
                // directory wrappers of any tool (`npm --prefix web run build`).
                if program == "git" && w == "-c"
                    || program == "make" && w == "-f"
                    || crate::learn::text::inspection::dir_flag(w) == Some(true)
                {
                    rest.next();
                }
                continue;
            }
            first_word = Some(w);
            break;
        }
        if let Some(a) = first_word {
            if words.first().map(|w| program_name(w)).as_deref() == Some("docker-compose") {
                action = format!("compose {a}");
            } else {
                action = a.clone();
                if two_level(&program, a) {
                    if let Some(b) = rest.find(|w| !w.starts_with('-')) {
                        action = format!("{a} {b}");
                    }
                }
            }
        }
        // One canonical spelling per action: bare `git stash` (flags only, `git stash -u`)
        // is `git stash push` (git's own definition), so the two spellings are one fix.
        if program == "git" && action == "stash" {
            action = "stash push".to_string();
        }
        // `git switch` is the branch half of `git checkout` (git's docs): one action, in
        // checkout's spelling (`-c` → `-b`), so `switch -c x` then `checkout x` is one fix.
        if program == "git" && action == "switch" {
            action = "checkout".to_string();
            words = crate::learn::text::spelling::switch_as_checkout(words);
        }
        if program == "npm" {
            action = crate::learn::text::spelling::npm_command(&action).to_string();
        }
        if action.is_empty() {
            action = bare_action(&program).to_string();
        }
        // Arguments that are paths, URLs or numbers are not subcommands.
        if action.contains('/') || action.contains("://") || action.chars().all(|c| c.is_ascii_digit()) {
            action.clear();
        }
    }
    Some(Segment {
        program,
        domain,
        action,
        words,
        sudo,
        piped,
        writes,
        redirects: Vec::new(),
    })
}

fn is_housekeeping(words: &[String]) -> bool {
    // Code fragments after a `;` (`x = f(); print(x)`) are not commands.
    if words.get(1).is_some_and(|w| w == "=") || words.first().is_some_and(|w| w.contains('(')) {
        return true;
    }
    match words.first().map(String::as_str) {
        Some("cd" | "pushd" | "popd" | "sleep" | "export" | "source" | "." | "set" | "unset" | "wait" | ":") => true,
        Some(w) => is_assignment(w) && words.len() == 1,
        None => true,
    }
}

fn normalize_into(cmd: &str, out: &mut Vec<Segment>, depth: usize) {
    for (piece, piped) in split_segments(cmd) {
        let piece = piece
            .trim_start_matches(['(', '{', '!', ' '])
            .trim_end_matches([')', '}', ' ']);
        // Redirections are not part of what runs, but writing a file is not read-only.
        let raw = words_of(piece);
        let redirects = redirections(&raw);
        let writes = raw.iter().enumerate().any(|(i, w)| {
            (w == ">" || w == ">>" || w == "1>" || w == "&>") && raw.get(i + 1).is_some_and(|t| !t.starts_with("/dev/"))
                || (w.starts_with('>') || w.starts_with("1>"))
                    && w.len() > 2
                    && !w.contains("/dev/")
                    && !w.contains('&')
        });
        let mut words: Vec<String> = Vec::new();
        let mut skip_next = false;
        for w in raw {
            if skip_next {
                skip_next = false;
                continue;
            }
            if matches!(w.as_str(), ">" | ">>" | "1>" | "2>" | "&>" | "<") {
                skip_next = true;
                continue;
            }
            if w.starts_with("2>") || w.starts_with('>') || w.starts_with("1>") || w.starts_with("&>") {
                continue;
            }
            words.push(w);
        }
        // `: > f` and a bare `> f` run nothing but empty the file: a step of its own (the
        // file the failure blamed emptied, [`crate::learn::history::blamed_file`]), not
        // housekeeping to drop.
        if (words.is_empty() || words == [":"]) && redirects.chunks(2).any(|p| p.len() == 2 && p[0] == ">") {
            words = vec![":".to_string()];
            if let Some(mut seg) = segment_from_words(words, false, piped, writes) {
                seg.redirects = redirects;
                out.push(seg);
            }
            continue;
        }
        if is_housekeeping(&words) {
            continue;
        }
        let (w, sudo, inner) = crate::learn::text::wrappers::unwrap_words(words);
        if let Some(inner) = inner {
            if depth < 4 {
                normalize_into(&inner, out, depth + 1);
            }
            continue;
        }
        if is_housekeeping(&w) {
            continue;
        }
        if let Some(mut seg) = segment_from_words(w, sudo, piped, writes) {
            seg.redirects = redirects;
            out.push(seg);
        }
    }
}

/// Does the command line run `program` as a housekeeping step (`cd`, `source`, …), which
/// [`normalize`] leaves out of its segments? Asked only of a failure whose error names
/// such a program (`learn::text::failing_program`).
pub fn runs_as_housekeeping(cmd: &str, program: &str) -> bool {
    split_segments(cmd).iter().any(|(piece, _)| {
        let words = words_of(piece.trim_start_matches(['(', '{', '!', ' ']));
        words.first().is_some_and(|w| w == program) && is_housekeeping(&words)
    })
}

/// The wrapper of [`crate::learn::text::wrappers::AS_ANOTHER_USER`] a command line runs a program through, if any
/// (`sudo` in `cd x && sudo make install`): normalisation drops it.
pub(crate) fn run_as_another_user(cmd: &str) -> Option<&'static str> {
    let segs = split_segments(cmd);
    crate::learn::text::wrappers::AS_ANOTHER_USER.into_iter().find(|w| {
        segs.iter()
            .any(|(piece, _)| piece.split_whitespace().next() == Some(*w))
    })
}

/// Normalises one command line. Never fails; an empty command has no segments.
pub fn normalize(cmd: &str) -> CmdNorm {
    let mut segments = Vec::new();
    normalize_into(cmd, &mut segments, 0);
    // The learner keeps one of these per record: a Vec grown by push holds room for four
    // segments where most commands have one (≈30 MB on a 100k-record history).
    segments.shrink_to_fit();
    let canonical = segments.iter().map(Segment::text).collect::<Vec<_>>().join(" && ");
    CmdNorm { segments, canonical }
}

pub use crate::learn::text::program_family::domain_of;
use crate::learn::text::program_family::program_name;
use crate::learn::text::wrappers::{is_assignment, words_of};

#[cfg(test)]
mod tests {
    use super::*;

    fn da(cmd: &str) -> (String, String) {
        let n = normalize(cmd);
        (n.domain().to_string(), n.action().to_string())
    }

    /// A package manager's `exec` runs the tool it names, with that tool's arguments
    /// (its `--` separator dropped wherever it stands).
    #[test]
    fn a_package_managers_exec_runs_the_tool() {
        for cmd in [
            "npm exec bundlr -- --out dist",
            "npm exec -- bundlr --out dist",
            "pnpm exec bundlr --out dist",
        ] {
            let n = normalize(cmd);
            assert_eq!(n.primary().unwrap().words, ["bundlr", "--out", "dist"], "{cmd}");
        }
        assert_eq!(
            crate::learn::text::wrappers::runner_exec("npm exec bundlr -- --out dist").as_deref(),
            Some("npm exec")
        );
        assert_eq!(crate::learn::text::wrappers::runner_exec("npm run build"), None);
        assert_eq!(da("npm run build"), ("npm".into(), "run build".into()));
    }

    #[test]
    fn plain_and_wrapped_commands() {
        assert_eq!(da("git push origin main"), ("git".into(), "push".into()));
        assert_eq!(da("sudo -u root git push"), ("git".into(), "push".into()));
        assert_eq!(
            da("env RUST_LOG=debug cargo test --lib"),
            ("cargo".into(), "test".into())
        );
        assert_eq!(da("FOO=1 BAR=2 npm run build"), ("npm".into(), "run build".into()));
        assert_eq!(da("npx jest --watch"), ("npm".into(), "".into()));
        assert_eq!(da("uv run pytest -q"), ("pytest".into(), "".into()));
        assert_eq!(da("poetry run python -m pytest tests/"), ("pytest".into(), "".into()));
        assert_eq!(
            da("python3 -m pip install requests"),
            ("python".into(), "install".into())
        );
        assert_eq!(da("bash -c 'cd /tmp && git status'"), ("git".into(), "status".into()));
        assert_eq!(
            da("cd /repo && git -C sub pull --rebase"),
            ("git".into(), "pull".into())
        );
        assert_eq!(
            da("timeout 30 docker compose up -d"),
            ("docker".into(), "compose up".into())
        );
        assert_eq!(da("docker-compose up"), ("docker".into(), "compose up".into()));
        assert_eq!(
            da("kubectl rollout status deploy/app"),
            ("kubectl".into(), "rollout status".into())
        );
        assert_eq!(da("python src/train.py"), ("python".into(), "".into()));
        assert_eq!(da("bash deploy.sh"), ("shell".into(), "".into()));
        assert_eq!(da("./run.sh"), ("shell".into(), "".into()));
        assert_eq!(da("sleep 5 && ssh user@server"), ("ssh".into(), "".into()));
    }

    /// A program in an environment's `bin` is that program; `./bin/setup` is a script.
    #[test]
    fn an_environments_copy_of_a_program_is_the_program() {
        for (c, d) in [
            (".venv/bin/python3 -V", "python"),
            ("node_modules/.bin/jest", "npm"),
            ("./bin/setup", "shell"),
        ] {
            assert_eq!(da(c).0, d, "{c}");
        }
    }

    #[test]
    fn segments_and_pipes() {
        let n = normalize("git pull --rebase && git push");
        assert_eq!(n.segments.len(), 2);
        assert_eq!(n.find("git", "push"), Some(1));
        let p = normalize("pytest tests/x.py -v 2>&1 | tail -20");
        assert_eq!(p.domain(), "pytest");
        assert!(p.segments[1].piped);
        assert!(normalize("sudo rm -rf /tmp/x").uses_sudo());
        assert_eq!(normalize("sleep 5 && ssh a").canonical, normalize("ssh a").canonical);
    }

    #[test]
    fn never_panics_on_odd_input() {
        for s in [
            "",
            "'unbalanced",
            "&&",
            "| |",
            "bash -c",
            "sudo",
            "env",
            "python -m",
            "\"\\",
        ] {
            let _ = normalize(s);
        }
        assert_eq!(normalize("").domain(), "");
    }

    #[test]
    fn local_scripts_and_code_fed_to_a_shell() {
        assert_eq!(da("./bin/setup --env staging").0, "shell");
        assert_eq!(da("./scripts/deploy.sh").0, "shell");
        assert_eq!(da("./node_modules/.bin/jest").0, "npm");
        assert_eq!(da("/usr/local/bin/ktool").0, "ktool");
        let n = normalize("curl -s http://x/install.sh | sh");
        assert!(!n.segments[1].is_filter(), "a piped shell runs code");
        assert!(normalize("pytest | tail -5").segments[1].is_filter());
    }

    /// `: > f` and a bare `> f` empty a file: a step the learner sees (before, the
    /// command had no segment, so an emptied `.gitignore` read as nothing done at all).
    /// `:` alone, and `: >> f`, stay housekeeping.
    #[test]
    fn a_file_emptied_by_a_bare_redirect_is_a_step() {
        for c in [": > .gitignore", "> .gitignore", "true > .gitignore"] {
            let n = normalize(c);
            assert_eq!(n.segments.len(), 1, "{c}");
            assert_eq!(
                n.segments[0].redirects,
                vec![">".to_string(), ".gitignore".to_string()],
                "{c}"
            );
        }
        assert!(normalize(":").segments.is_empty());
        assert!(normalize(": >> notes.txt").segments.is_empty());
        assert_eq!(normalize("cd src && : > out.log").segments.len(), 1);
    }

    #[test]
    fn canonical_spellings() {
        assert_eq!(da("git stash"), ("git".into(), "stash push".into()));
        assert_eq!(da("git stash push -m wip"), ("git".into(), "stash push".into()));
        assert_eq!(da("git stash pop"), ("git".into(), "stash pop".into()));
        assert_eq!(
            normalize("git switch -c feat/x").primary().unwrap().text(),
            "git checkout -b feat/x"
        );
        assert!(!normalize("git branch --set-upstream-to=origin/x")
            .primary()
            .unwrap()
            .is_read_only());
        assert!(normalize("git branch -a").primary().unwrap().is_read_only());
    }

    #[test]
    fn read_only_commands() {
        assert!(normalize("git status").primary().unwrap().is_read_only());
        assert!(normalize("pip list").primary().unwrap().is_read_only());
        assert!(!normalize("pip install torch").primary().unwrap().is_read_only());
        assert!(!normalize("git pull --rebase").primary().unwrap().is_read_only());
        assert!(!normalize("echo 'RUN x' >> Dockerfile")
            .primary()
            .unwrap()
            .is_read_only());
        assert!(normalize("echo hi > /dev/null").primary().unwrap().is_read_only());
        assert_eq!(normalize("cat a > b").primary().unwrap().words, vec!["cat", "a"]);
    }
}
