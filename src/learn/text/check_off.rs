//! A word that names a check and turns it off: `--skip-lint`, `--no-verify-ssl`,
//! `--disable-openapi-validation`, `--insecure-skip-tls-verify`, `--validate=false`,
//! `-Dcheckstyle.skip=true`, `SKIP_PREFLIGHT_CHECK=true`, `CARGO_HTTP_CHECK_REVOKE=false`.
//!
//! Why a grammar and not a list: every tool spells its own switch, and the safety gate's
//! list of flags ([`crate::learn::text::safety`]) only knows the ones someone wrote down.
//! An agent in a hurry reaches for whichever switch the tool's `--help` offers, and an
//! unknown one went ungated and contested the real fix. Tools name these switches the same
//! way: a word that turns something off (`no`, `skip`, `ignore`, `disable`, `without`,
//! `insecure`, `bypass`, `allow`, …) and the thing (`verify`, `check`, `validation`,
//! `lint`, `hooks`, `ssl`, `integrity`, `signature`, `strict`, `sandbox`, …), or the thing
//! set to `false`. The two short lists are of English words, not of tools.
//!
//! Not a check: a tool's look at its own freshness (`--disable-pip-version-check`,
//! `--no-update-check`), a checkout (`--no-checkout`: whole parts are compared), a value
//! that switches something on. An audit is no check here: `npm install --no-audit` drops a
//! report that fails nothing (and is how half the npm docs' examples install).

/// Words that turn what follows off.
const OFF: &[&str] = &[
    "no",
    "skip",
    "ignore",
    "disable",
    "without",
    "insecure",
    "bypass",
    "allow",
    "unsafe",
    "dangerously",
    "nocheck",
    "noverify",
    "omit",
];

/// The things a check is, as a part of an option's name.
const CHECKS: &[&str] = &[
    "verify",
    "verification",
    "check",
    "checks",
    "checking",
    "validate",
    "validation",
    "lint",
    "linter",
    "linting",
    "hook",
    "hooks",
    "integrity",
    "signature",
    "signatures",
    "signing",
    "gpg",
    "ssl",
    "tls",
    "cert",
    "certs",
    "certificate",
    "certificates",
    "strict",
    "sandbox",
    "security",
    "checksum",
    "checksums",
    "hash",
    "hashes",
    "typecheck",
    "preflight",
    "sanity",
    "enforcer",
    "policy",
    "guard",
    "protection",
];

/// Parts before a check that make it a nag about the tool itself, not a guard of the work.
const NAGS: &[&str] = &["version", "update", "upgrade", "release", "news"];

/// Does a configuration value switch its setting on (`1`, `true`, `yes`, `on`, quoted or
/// not, any case)? The one reading of a switch's value the learner shares.
pub fn switched_on(v: &str) -> bool {
    matches!(
        v.trim_matches(['"', '\'']).to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// Does a configuration value switch its setting off (`false`, `0`, `off`, `no`)?
pub fn switched_off(v: &str) -> bool {
    matches!(
        v.trim_matches(['"', '\'']).to_ascii_lowercase().as_str(),
        "false" | "0" | "off" | "no"
    )
}

/// Words a guard's setting is named by: what it forbids or demands (`receive.denyCurrentBranch`,
/// `clean.requireForce`, `receive.denyNonFastForwards`, `push.refuseUnsigned`).
const GUARDS: &[&str] = &[
    "deny", "refuse", "require", "forbid", "reject", "prevent", "protect", "block",
];

/// Is a setting named as a guard: its last part (`denyCurrentBranch` of
/// `receive.denyCurrentBranch`; `require-force`) starts with what it forbids or demands?
pub fn guard_setting(key: &str) -> bool {
    if !crate::learn::text::tables::on(crate::learn::text::tables::Table::Safety) {
        return false;
    }
    let last = key.rsplit('.').next().unwrap_or(key);
    let first = split_camel(last, vec![last.to_ascii_lowercase()])
        .first()
        .map(|p| p.split(['-', '_']).next().unwrap_or("").to_string())
        .unwrap_or_default();
    GUARDS.contains(&first.as_str())
}

/// A value that lets through what a guard stops: [`switched_off`], or `ignore`, `warn`,
/// `allow`, `permit`, `none` (git's own words for `receive.deny*`: "set it to 'ignore' or
/// 'warn' … however, this is not recommended").
pub fn lets_through(v: &str) -> bool {
    switched_off(v)
        || matches!(
            v.trim_matches(['"', '\'']).to_ascii_lowercase().as_str(),
            "ignore" | "warn" | "allow" | "permit" | "none"
        )
}

/// A check's value that turns it off: [`switched_off`], or `none`/`disable(d)`.
fn falsy(v: &str) -> bool {
    switched_off(v)
        || matches!(
            v.trim_matches(['"', '\'']).to_ascii_lowercase().as_str(),
            "none" | "disable" | "disabled"
        )
}

/// A value that keeps a named switch on: [`switched_on`], or none given (`SKIP_X=`).
fn truthy(v: &str) -> bool {
    v.trim_matches(['"', '\'']).is_empty() || switched_on(v)
}

fn is_check(part: &str) -> bool {
    CHECKS.contains(&part) || part.len() > 4 && part.ends_with("lint")
}

/// Does this one word (a flag, a property, an assignment) turn a check off?
pub fn turns_check_off(word: &str) -> bool {
    let word = word.trim_matches(['`', '"', '\'', ',', ';', '(', ')']);
    // The option's name and the value it is given, if any.
    let (name, value) = match word.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (word, None),
    };
    let flag = name.starts_with('-');
    let property = name.starts_with("-D") && !name.starts_with("--");
    let assignment = !flag && !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !(flag || assignment) || name.len() < 4 {
        return false;
    }
    let name = if property {
        &name[2..]
    } else {
        name.trim_start_matches('-')
    };
    let parts: Vec<String> = name
        .split(['-', '_', '.'])
        .filter(|p| !p.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    // `skipTests`, `noVerify`: each camel-case word is its own part.
    let parts = split_camel(name, parts);
    let checks: Vec<usize> = parts
        .iter()
        .enumerate()
        .filter(|(i, p)| is_check(p) && !(*i > 0 && NAGS.contains(&parts[i - 1].as_str())))
        .map(|(i, _)| i)
        .collect();
    // A build property that skips a plugin (`-Dcheckstyle.skip=true`, `-Denforcer.skip`):
    // the plugins of a build are the checks its project chose, whatever each is called.
    if property && parts.iter().any(|p| p == "skip") && value.is_none_or(truthy) {
        return true;
    }
    let Some(&first_check) = checks.first() else {
        return false;
    };
    let negated = parts[..first_check].iter().any(|p| OFF.contains(&p.as_str()))
        || parts
            .iter()
            .any(|p| matches!(p.as_str(), "skip" | "disable" | "disabled" | "off"));
    match value {
        // `--skip-lint`, `--no-verify-ssl`: the name turns it off.
        None => flag && negated,
        // `--skip-lint=true`, `SKIP_PREFLIGHT_CHECK=true`; `--validate=false`,
        // `-Dcheckstyle.skip=true`, `X_VERIFY=0`.
        Some(v) => negated && truthy(v) || !negated && falsy(v),
    }
}

/// `skipTests` → `skip`, `tests`; other parts kept lower-cased as they are.
fn split_camel(name: &str, lower: Vec<String>) -> Vec<String> {
    if !name.chars().any(|c| c.is_ascii_uppercase()) || name.chars().all(|c| !c.is_ascii_lowercase()) {
        return lower;
    }
    let mut out = Vec::new();
    for raw in name.split(['-', '_', '.']).filter(|p| !p.is_empty()) {
        let mut cur = String::new();
        for c in raw.chars() {
            if c.is_ascii_uppercase() && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            cur.push(c.to_ascii_lowercase());
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

/// The first word of a text that turns a check off.
pub fn first_in(text: &str) -> Option<&str> {
    text.split(|c: char| c.is_whitespace() || c == '`')
        .find(|w| turns_check_off(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_named_and_turned_off_is_found() {
        for w in [
            "--skip-lint",
            "--no-verify-ssl",
            "--disable-openapi-validation",
            "--insecure-skip-tls-verify",
            "--ignore-certificate-errors",
            "--no-strict-optional",
            "--skip-sanity-check",
            "--no-hooks",
            "--without-checks",
            "--validate=false",
            "--strict=false",
            "--skip-lint=true",
            "-Dcheckstyle.skip=true",
            "-Denforcer.skip",
            "-Dgpg.skip",
            "-DskipChecks",
            "SKIP_PREFLIGHT_CHECK=true",
            "DISABLE_ESLINT_PLUGIN=true",
            "CARGO_HTTP_CHECK_REVOKE=false",
            "GIT_SSL_VERIFY=0",
        ] {
            assert!(turns_check_off(w), "{w}");
        }
    }

    #[test]
    fn a_nag_a_checkout_or_a_check_switched_on_is_not() {
        for w in [
            "--disable-pip-version-check",
            "--no-update-check",
            "--no-checkout",
            "--check",
            "--strict",
            "--verify",
            "--no-cache",
            "--ignore-case",
            "--skip-existing",
            "--validate=true",
            "--strict=error",
            "SKIP_BUILD=1",
            "STRICT=1",
            "--allow-empty",
            "--no-color",
            "--no-audit",
            "-Dversion=1.2",
            "--hash=sha256:abc",
            "src/check_off.rs",
        ] {
            assert!(!turns_check_off(w), "{w}");
        }
    }

    #[test]
    fn found_in_a_directive_text() {
        assert_eq!(
            first_in("retry `helm install` with `--disable-openapi-validation`"),
            Some("--disable-openapi-validation")
        );
        assert_eq!(first_in("retry `pip install` with `--no-cache-dir`"), None);
    }
}
