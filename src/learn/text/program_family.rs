//! A program's family: the name a command line's first word stands for (basename,
//! version suffix stripped: `/usr/bin/python3.11` → `python`, `gcc-12` → `gcc`) and the
//! domain it belongs to (`cc`/`gcc`/`clang` are one C compiler driver, `pip`/`uv`/`python`
//! one Python toolchain).
//!
//! Why apart: a class must not split by which spelling of a program ran it (`gcc` in two
//! sessions, `cc` in two: two clusters below the recurrence minimum). The name is
//! derived mechanically; the domain is a hand-written table (`--tables` row `domains`),
//! a fact about tools that no command line shows.

/// `python3.11` → `python`, `pip3` → `pip`, `/usr/bin/git` → `git`.
pub(crate) fn program_name(w: &str) -> String {
    let base = w.rsplit('/').next().unwrap_or(w);
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    // A version after a dash is a version too (`gcc-12`, `clang-15`), a word is not (`g++`).
    let trimmed = match trimmed.strip_suffix('-') {
        Some(t) if trimmed.len() < base.len() => t,
        _ => trimmed,
    };
    let name = if trimmed.is_empty() { base } else { trimmed };
    match name {
        "py" => "python".to_string(),
        n if n.ends_with(".sh") => base.to_string(),
        n => n.to_string(),
    }
}

/// Whether a rule's stored domain is the domain `now` of a failure: the same, any (empty),
/// or a program's name that is now part of a family (`gcc`, `clang`, `nodejs`: a rule
/// learned before the family existed still matches). [`domain_of`] maps every domain name
/// to itself, so applying it to a stored domain only ever joins a family.
pub fn same_domain(stored: &str, now: &str) -> bool {
    stored.is_empty() || stored == now || domain_of(stored) == now
}

/// Whether a rule stored with `domain` and, learned across programs, `domains` is shown
/// for a failure in domain `now`: its domain gate ([`same_domain`]), and then one of its
/// programs' (a rule seen with `cat`, `rm` and `wc` is not shown for `git`).
pub fn applies_to(domain: &str, domains: &[String], now: &str) -> bool {
    same_domain(domain, now) && (domains.is_empty() || domains.iter().any(|d| same_domain(d, now)))
}

/// Program → domain. Unknown programs are their own domain.
pub fn domain_of(program: &str) -> String {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Domains) {
        return program.to_string();
    }
    let d = match program {
        "git" => "git",
        "gh" => "github",
        "cargo" | "rustc" | "rustup" | "cargo-nextest" => "cargo",
        "npm" | "yarn" | "pnpm" | "node" | "nodejs" | "bun" | "deno" | "tsc" | "jest" | "vitest" | "eslint" => "npm",
        // One C/C++ compiler driver, whichever name ran it: `cc` is `gcc` on Linux, `clang`
        // on macOS; the same undefined reference is one class, not one per spelling.
        "cc" | "gcc" | "clang" | "c++" | "g++" | "clang++" | "tcc" => "cc",
        "python" | "pip" | "uv" | "poetry" | "pipenv" | "conda" | "pdm" | "hatch" | "mypy" | "ruff" | "alembic" => {
            "python"
        }
        "pytest" | "py.test" | "tox" | "nox" => "pytest",
        "docker" | "docker-compose" | "podman" | "buildah" => "docker",
        "kubectl" | "helm" | "minikube" | "kind" | "k9s" | "kustomize" => "kubectl",
        "terraform" | "tofu" | "terragrunt" => "terraform",
        "go" | "gofmt" => "go",
        "mvn" | "gradle" | "java" | "javac" => "java",
        "bundle" | "gem" | "ruby" | "rake" | "rails" => "ruby",
        "psql" | "pg_dump" | "pg_restore" | "createdb" => "postgres",
        "mysql" | "mysqldump" => "mysql",
        "redis-cli" => "redis",
        "ssh" | "scp" | "sftp" | "ssh-add" | "ssh-keygen" => "ssh",
        "curl" | "wget" | "http" | "https" | "httpie" | "xh" | "web_fetch" | "http_fetch" | "fetch" => "http",
        "bash" | "sh" | "zsh" | "dash" => "shell",
        "make" | "cmake" | "ninja" => "make",
        "aws" => "aws",
        "gcloud" => "gcloud",
        "selenium" | "playwright" | "browser" | "puppeteer" => "browser",
        p if p.ends_with(".sh") => "shell",
        p => p,
    };
    d.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One program family, one domain, whichever spelling ran it (version, path, alias).
    #[test]
    fn a_program_family_is_one_domain() {
        for w in ["cc", "gcc-12", "/usr/bin/clang-15", "g++", "clang++"] {
            assert_eq!(domain_of(&program_name(w)), "cc", "{w}");
        }
        for (w, d) in [
            ("nodejs", "npm"),
            ("pip3", "python"),
            (".venv/bin/python3.11", "python"),
        ] {
            assert_eq!(domain_of(&program_name(w)), d, "{w}");
        }
        assert_eq!(program_name("g++"), "g++", "a word is no version");
        assert_eq!(program_name("python3-config"), "python3-config");
    }

    /// A domain name is its own domain, so a stored domain read through `domain_of` can
    /// only join a family; a rule stored under a program's name still matches its family.
    #[test]
    fn a_stored_domain_maps_to_itself_or_joins_its_family() {
        for d in [
            "git",
            "github",
            "cargo",
            "npm",
            "cc",
            "python",
            "pytest",
            "docker",
            "kubectl",
            "terraform",
            "go",
            "java",
            "ruby",
            "postgres",
            "mysql",
            "redis",
            "ssh",
            "http",
            "shell",
            "make",
            "aws",
            "gcloud",
            "browser",
        ] {
            assert_eq!(domain_of(d), d, "{d}");
        }
        assert!(same_domain("gcc", "cc") && same_domain("nodejs", "npm") && same_domain("", "git"));
        assert!(!same_domain("cc", "gcc") && !same_domain("git", "cc"));
    }

    /// A rule learned across programs is shown for its programs only; any other rule as
    /// its domain says.
    #[test]
    fn a_rule_across_programs_applies_to_its_programs() {
        let seen = vec!["cat".to_string(), "rm".to_string(), "gcc".to_string()];
        assert!(applies_to("", &seen, "rm") && applies_to("", &seen, "cc"));
        assert!(!applies_to("", &seen, "ls") && !applies_to("", &seen, "git"));
        assert!(applies_to("git", &[], "git") && applies_to("", &[], "ls"));
        assert!(!applies_to("git", &seen, "rm"), "its domain still gates");
    }
}
