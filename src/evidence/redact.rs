//! Secret redaction for commands and output before they are written anywhere.
//!
//! The evidence log lives in the project folder; an agent's commands and their output
//! routinely carry tokens (`curl -H "Authorization: Bearer …"`, `.env` dumps, `git remote
//! -v` with credentials). Every pattern here replaces the secret with `[REDACTED]` and
//! keeps the surrounding text, so a record still reads naturally.

use regex::Regex;
use std::sync::OnceLock;

pub const MASK: &str = "[REDACTED]";

/// A secret pattern with cheap literal needles: the regex is compiled (once per process)
/// only when a needle occurs in the text. Most command output holds no needle at all, and
/// compiling every pattern up front costs milliseconds — more than the whole hook budget.
struct Pattern {
    /// Lower-case literals, one of which any match must contain.
    needles: &'static [&'static str],
    source: &'static str,
    /// Replacement; `${1}`-style groups keep the non-secret prefix.
    with: &'static str,
    re: OnceLock<Option<Regex>>,
}

impl Pattern {
    const fn new(needles: &'static [&'static str], source: &'static str, with: &'static str) -> Pattern {
        Pattern {
            needles,
            source,
            with,
            re: OnceLock::new(),
        }
    }

    fn regex(&self) -> Option<&Regex> {
        self.re.get_or_init(|| Regex::new(self.source).ok()).as_ref()
    }
}

static PATTERNS: [Pattern; 14] = [
    // PEM private keys, whole block; an unterminated block (cut tail) to the end.
    Pattern::new(
        &["private key-----"],
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
        "[REDACTED PRIVATE KEY]",
    ),
    // Authorization headers (Bearer, Basic, token) — keep the header name.
    Pattern::new(
        &["authorization"],
        r"(?i)(authorization\s*[:=]\s*(?:bearer|basic|token)?\s*)[A-Za-z0-9._~+/=\-]{6,}",
        "${1}[REDACTED]",
    ),
    Pattern::new(
        &["bearer"],
        r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/\-]{16,}=*",
        "${1}[REDACTED]",
    ),
    // Provider token shapes.
    Pattern::new(
        &["akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"],
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b",
        MASK,
    ),
    Pattern::new(
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b",
        MASK,
    ),
    Pattern::new(&["github_pat_"], r"\bgithub_pat_[A-Za-z0-9_]{20,255}\b", MASK),
    Pattern::new(&["glpat-"], r"\bglpat-[A-Za-z0-9_\-]{20,}\b", MASK),
    Pattern::new(&["xox"], r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", MASK),
    Pattern::new(&["sk-"], r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{20,}", MASK),
    Pattern::new(&["aiza"], r"\bAIza[0-9A-Za-z_\-]{35}\b", MASK),
    Pattern::new(&["npm_"], r"\bnpm_[A-Za-z0-9]{36}\b", MASK),
    // user:password@ in URLs — keep scheme and host.
    Pattern::new(
        &["://"],
        r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s:@]+:[^/\s@]+@",
        "${1}[REDACTED]@",
    ),
    // Flags: --password X, --token=X, --api-key X.
    Pattern::new(
        &["--pass", "--token", "--secret", "--api", "--access"],
        r#"(?i)(--(?:password|passwd|token|secret|api[-_]?key|access[-_]?key)(?:=|\s+))(?:'[^']*'|"[^"]*"|[^\s'"]+)"#,
        "${1}[REDACTED]",
    ),
    // Assignments: PASSWORD=x, api_key = "x", secret: x (key-like names only).
    Pattern::new(
        &["pass", "pwd", "token", "secret", "key", "credential"],
        r#"(?i)\b([A-Za-z0-9_.\-]*(?:password|passwd|pwd|token|secret|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?)[A-Za-z0-9_]*)(\s*=\s*|"?\s*:\s*"?)('[^']*'|"[^"]*"|[^\s'",}&]+)"#,
        "${1}${2}[REDACTED]",
    ),
];

/// Redacts every secret in `text`: the gitleaks rule set first (precise provider shapes,
/// masking only the secret), then the hand-written forms above.
pub fn redact(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    match crate::evidence::redact_gitleaks::mask_secrets(text, &lower, MASK) {
        Some(masked) => hand_written(&masked, masked.to_ascii_lowercase()),
        None => hand_written(text, lower),
    }
}

/// The hand-written patterns alone; `lower` is `text` lower-cased (ASCII).
fn hand_written(text: &str, mut lower: String) -> String {
    let mut out = std::borrow::Cow::Borrowed(text);
    for p in &PATTERNS {
        if !p.needles.iter().any(|n| lower.contains(n)) {
            continue;
        }
        let Some(re) = p.regex() else { continue };
        if re.is_match(&out) {
            out = std::borrow::Cow::Owned(re.replace_all(&out, p.with).into_owned());
            lower = out.to_ascii_lowercase();
        }
    }
    out.into_owned()
}

#[cfg(test)]
mod tests {
    use super::redact;

    fn hidden(input: &str, secret: &str) {
        let out = redact(input);
        assert!(!out.contains(secret), "{secret:?} survived in {out:?}");
        assert!(out.contains("[REDACTED"), "no mask in {out:?}");
    }

    #[test]
    fn redacts_every_documented_kind() {
        hidden("aws s3 ls # AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE");
        hidden(
            "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        );
        hidden(
            "GITHUB_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijkl",
            "github_pat_11ABCDEFG0123456789_abcdefghijkl",
        );
        hidden(
            "glab auth login --token glpat-abcdefghij0123456789",
            "glpat-abcdefghij0123456789",
        );
        hidden("SLACK=xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij");
        hidden(
            "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuv123",
            "sk-proj-abcdefghijklmnopqrstuv123",
        );
        hidden(
            "ANTHROPIC=sk-ant-api03-abcdefghijklmnopqrstuvwx",
            "sk-ant-api03-abcdefghijklmnopqrstuvwx",
        );
        hidden(
            "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig' https://api",
            "eyJhbGciOiJIUzI1NiJ9",
        );
        hidden("mysql --password=hunter2secret -u root", "hunter2secret");
        hidden("DB_PASSWORD=hunter2 ./run", "hunter2");
        hidden("{\"api_key\": \"abc123xyz\"}", "abc123xyz");
        hidden("secret=s3cr3t&x=1", "s3cr3t");
        hidden(
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
            "MIIEowIBAAKCAQEA",
        );
        hidden(
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA (cut",
            "b3BlbnNzaC1rZXktdjEAAAAA",
        );
        hidden("git push https://alice:pa55word@example.com/r.git", "pa55word");
        hidden(
            "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "npm_abcdefghij",
        );
    }

    #[test]
    fn every_pattern_compiles_and_its_needle_is_lower_case() {
        for p in &super::PATTERNS {
            assert!(p.regex().is_some(), "{} does not compile", p.source);
            assert!(
                p.needles.iter().all(|n| *n == n.to_ascii_lowercase()),
                "{:?}",
                p.needles
            );
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for s in [
            "error[E0432]: unresolved import `foo::bar`",
            "SyntaxError: Unexpected token '<'",
            "To ../remote.git\n ! [rejected]        main -> main (fetch first)",
            "cargo test --workspace",
            "https://example.com/path?x=1",
        ] {
            assert_eq!(redact(s), s);
        }
        let out = redact("git push https://alice:pa55word@example.com/r.git");
        assert_eq!(out, "git push https://[REDACTED]@example.com/r.git");
    }
}
