//! Secret redaction for commands and output before they are written anywhere.
//!
//! The evidence log lives in the project folder; an agent's commands and their output
//! routinely carry tokens (`curl -H "Authorization: Bearer …"`, `.env` dumps, `git remote
//! -v` with credentials). Every pattern here replaces the secret with `[REDACTED]` and
//! keeps the surrounding text, so a record still reads naturally.

use regex::Regex;
use std::sync::OnceLock;

pub const MASK: &str = "[REDACTED]";

struct Pattern {
    re: Regex,
    /// Replacement; `$1`-style groups keep the non-secret prefix.
    with: &'static str,
}

fn patterns() -> &'static [Pattern] {
    static P: OnceLock<Vec<Pattern>> = OnceLock::new();
    P.get_or_init(|| {
        let p = |re: &str, with: &'static str| Pattern {
            re: Regex::new(re).expect("redaction pattern compiles"),
            with,
        };
        vec![
            // PEM private keys, whole block; an unterminated block (cut tail) to the end.
            p(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)", "[REDACTED PRIVATE KEY]"),
            // Authorization headers (Bearer, Basic, token) — keep the header name.
            p(r"(?i)(authorization\s*[:=]\s*(?:bearer|basic|token)?\s*)[A-Za-z0-9._~+/=\-]{6,}", "${1}[REDACTED]"),
            p(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/\-]{16,}=*", "${1}[REDACTED]"),
            // Provider token shapes.
            p(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b", MASK),
            p(r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b", MASK),
            p(r"\bgithub_pat_[A-Za-z0-9_]{20,255}\b", MASK),
            p(r"\bglpat-[A-Za-z0-9_\-]{20,}\b", MASK),
            p(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", MASK),
            p(r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{20,}", MASK),
            p(r"\bAIza[0-9A-Za-z_\-]{35}\b", MASK),
            p(r"\bnpm_[A-Za-z0-9]{36}\b", MASK),
            // user:password@ in URLs — keep scheme and host.
            p(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s:@]+:[^/\s@]+@", "${1}[REDACTED]@"),
            // Flags: --password X, --token=X, --api-key X.
            p(r"(?i)(--(?:password|passwd|token|secret|api[-_]?key|access[-_]?key)(?:=|\s+))(?:'[^']*'|\x22[^\x22]*\x22|[^\s'\x22]+)", "${1}[REDACTED]"),
            // Assignments: PASSWORD=x, api_key = "x", secret: x (key-like names only).
            p(r#"(?i)\b([A-Za-z0-9_.\-]*(?:password|passwd|pwd|token|secret|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?)[A-Za-z0-9_]*)(\s*=\s*|"?\s*:\s*"?)('[^']*'|"[^"]*"|[^\s'",}&]+)"#, "${1}${2}[REDACTED]"),
        ]
    })
}

/// Redacts every secret pattern in `text`.
pub fn redact(text: &str) -> String {
    let mut out = std::borrow::Cow::Borrowed(text);
    for p in patterns() {
        if p.re.is_match(&out) {
            out = std::borrow::Cow::Owned(p.re.replace_all(&out, p.with).into_owned());
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
