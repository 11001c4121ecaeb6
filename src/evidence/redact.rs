//! Secret redaction for commands and output before they are written anywhere.
//!
//! The evidence log lives in the project folder; an agent's commands and their output
//! routinely carry tokens (`curl -H "Authorization: Bearer …"`, `.env` dumps, `git remote
//! -v` with credentials). Every pattern here replaces the secret with `[REDACTED]` and
//! keeps the surrounding text, so a record still reads naturally.
//!
//! Two halves: the gitleaks rule set (`redact_gitleaks`, provider shapes kept upstream) and
//! the hand-written forms below (shell command lines, headers, config lines: what a file
//! scanner does not aim at). Both run on bytes with Unicode off — every secret format is
//! ASCII, and Unicode classes and case folding would multiply what each compiled regex costs.

use crate::evidence::redact_forms::FORMS;
use crate::evidence::redact_pattern::{apply, Pattern};
use regex::bytes::Captures;

pub const MASK: &str = "[REDACTED]";

/// The assignment rule's exceptions: `PWD=`/`OLDPWD=` (the shell's directories, in every
/// `env` dump), a credentials *file* path (`GOOGLE_APPLICATION_CREDENTIALS=/…/key.json`),
/// and what tools print instead of a secret (`token: REDACTED`, `DATA+OMITTED`, `****`).
fn not_a_secret(c: &Captures) -> bool {
    let (name, value) = (&c[2], &c[4]);
    let v = value.strip_prefix(b"\"").unwrap_or(value);
    let v = v.strip_prefix(b"'").unwrap_or(v);
    name == b"PWD"
        || name == b"OLDPWD"
        || (name.to_ascii_lowercase().ends_with(b"credentials") && (v.starts_with(b"/") || v.starts_with(b"~/")))
        || v.starts_with(b"REDACTED")
        || v.starts_with(b"DATA+OMITTED")
        || (v.len() >= 3 && v.iter().all(|&b| b == b'*'))
}

static PATTERNS: [Pattern; 32] = [
    // PEM and PGP private keys, whole block; an unterminated block (cut tail) to the end.
    Pattern::new(
        &["private key"],
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        "[REDACTED PRIVATE KEY]",
    ),
    // A key body whose BEGIN line was cut off (the tail keeps the last 4000 characters):
    // the base64 run (also JSON-escaped, `\n`) right before an END line.
    Pattern::new(
        &["-----end"],
        r"[A-Za-z0-9+/=\\\r\n]{40,}-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
        "[REDACTED PRIVATE KEY]",
    ),
    // Authorization headers (Bearer, Basic, token) — keep the header name.
    Pattern::new(
        &["authorization"],
        r"(?i)(authorization\s*[:=]\s*(?:bearer|basic|token|bot|sso-key|ssws)?\s*)[A-Za-z0-9._~+/=:\-]{6,}",
        "${1}[REDACTED]",
    ),
    Pattern::new(
        &["bearer"],
        r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/\-]{16,}=*",
        "${1}[REDACTED]",
    ),
    // Cookie and Set-Cookie values (headers, curl -b/--cookie, JSON header dumps).
    Pattern::new(
        &["cookie"],
        r#"(?i)(\b(?:set-)?cookie\\?["']?\s*[:=]\s*\\?["']?)[^"'\\\r\n]+"#,
        "${1}[REDACTED]",
    ),
    Pattern::new(
        &["-b "],
        r#"(\bcurl\s(?:.*?\s)?-b\s+)(?:'[^']*'|"[^"]*"|\S+)"#,
        "${1}[REDACTED]",
    ),
    // Provider token shapes the gitleaks rules gate on context but a bare token still is one.
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
    Pattern::new(
        &["sk_", "rk_", "pk_live", "whsec_"],
        r"\b(?:[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{20,})",
        MASK,
    ),
    Pattern::new(&["sg."], r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}", MASK),
    Pattern::new(&["hvs.", "hvb."], r"\bhv[sb]\.[A-Za-z0-9_\-]{20,}", MASK),
    Pattern::new(&["aiza"], r"\bAIza[0-9A-Za-z_\-]{35}\b", MASK),
    Pattern::new(&["npm_"], r"\bnpm_[A-Za-z0-9]{36}\b", MASK),
    // A bare JWT: header and payload are base64url JSON objects, so both start with `eyJ`.
    Pattern::new(
        &["eyj"],
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*",
        MASK,
    ),
    // Azure storage / Service Bus connection strings and SAS query signatures.
    Pattern::new(
        &["accountkey=", "sharedaccess", "sig="],
        r#"(?i)(\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=|[?&;]sig=)[^;&\s'"]+"#,
        "${1}[REDACTED]",
    ),
    // user:password@ in URLs — keep scheme and host.
    Pattern::new(
        &["://"],
        r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s:@]*:[^/\s@]+@",
        "${1}[REDACTED]@",
    ),
    // curl/wget `-u user:pass` / `--user user:pass` — keep the user. A purely numeric second
    // half is left alone (`docker run -u 1000:1000` in the same text is a uid:gid).
    Pattern::new(
        &["curl", "wget", "--user"],
        r#"(\s(?:-u|--user|--proxy-user)(?:=|\s*))(['"]?[^\s:'"-][^\s:'"]*):[^\s'"]*[^\s'"0-9][^\s'"]*"#,
        "${1}${2}:[REDACTED]",
    ),
    // MySQL/MariaDB clients: `-pSECRET` (and, as people also write it, `-p SECRET`).
    Pattern::new(
        &["mysql", "mariadb"],
        r#"(\b(?:mysql|mariadb)[a-z_-]*\b[^\n|;&]*?\s-p)([ \t]*)(?:'[^']*'|"[^"]*"|[^\s'"-]\S*)"#,
        "${1}${2}[REDACTED]",
    ),
    // Password flags of tools whose short flag is the password: docker/podman/helm login -p,
    // sshpass -p, redis-cli -a.
    Pattern::new(
        &["login", "sshpass", "redis-cli"],
        r#"(\b(?:(?:docker|podman|nerdctl|buildah|skopeo|helm|oras)\b[^\n|;&]*?\blogin\b[^\n|;&]*?\s-p|sshpass\s+-p|redis-cli\b[^\n|;&]*?\s-a)(?:=|\s*))(?:'[^']*'|"[^"]*"|[^\s'"]+)"#,
        "${1}[REDACTED]",
    ),
    // `htpasswd -b FILE USER PASSWORD` (batch mode takes the password on the command line).
    Pattern::new(
        &["htpasswd"],
        r"(\bhtpasswd\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*b[A-Za-z]*\s+(?:-[A-Za-z]+\s+)*\S+\s+\S+\s+)\S+",
        "${1}[REDACTED]",
    ),
    // Telegram bot tokens (`bot123456789:AA…`) and Discord webhook tokens.
    Pattern::new(&[":aa"], r"\d{8,10}:AA[A-Za-z0-9_\-]{32,33}\b", MASK),
    Pattern::new(
        &["/webhooks/"],
        r"(/api/webhooks/\d+/)[A-Za-z0-9_\-]{30,}",
        "${1}[REDACTED]",
    ),
    // .netrc: `machine HOST login USER password SECRET` (one line or several).
    Pattern::new(
        &["machine", "default"],
        r"(\b(?:machine\s+\S+|default)\s+(?:(?:login|account)\s+\S+\s+)*password\s+)\S+",
        "${1}[REDACTED]",
    ),
    // openssl's `-passin pass:SECRET` / `-passout pass:SECRET`.
    Pattern::new(&["pass:"], r"(\bpass:)\S+", "${1}[REDACTED]"),
    // Flags: --password X, --token=X, --api-key X, --http-password=X, --client-secret X.
    Pattern::new(
        &[
            "password",
            "passwd",
            "token",
            "secret",
            "api-key",
            "api_key",
            "apikey",
            "access-key",
            "access_key",
        ],
        r#"(?i)(--[a-z-]*(?:password|passwd|token|secret|api[-_]?key|access[-_]?key)(?:=|[ \t]+))(?:'[^']*'|"[^"]*"|[^\s'"-][^\s'"]*)"#,
        "${1}[REDACTED]",
    ),
    // Assignments: PASSWORD=x, api_key = "x", secret: x, {\"password\":\"x\"} (JSON inside a
    // JSON string). Not `$PWD:`, `="$DB_PASSWORD"` or `${{ secrets.X }}` (a variable is no
    // secret), nor `max_tokens:` or `TOKEN_TTL=` (only names that end in what they hold).
    Pattern::new(
        &["passw", "pwd", "token", "secret", "key", "credential", "private", "auth"],
        r#"(?i)(^|[^$A-Za-z0-9_.{\-])([A-Za-z0-9_.\-]*(?:password|passwd|pwd|token|secret|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?|auth[_\-]?key|client[_\-]?secret)(?:[_.\-]?(?:key|base|value|string|str|b64|base64|hash|hex|raw|plain|secret|token))*[0-9]*)(\s*=\s*|\\?["']?\s*:\s*\\?["']?)('[^'$][^']*'|"[^"$][^"]*"|[^$\s'",{}\[&\\][^\s'",}&\\]*)"#,
        "${1}${2}${3}[REDACTED]",
    )
    .keeping(not_a_secret),
    // Upper-case environment names that say what they hold: FOO_KEY=, FOO_PAT=, FOO_PASS=,
    // FOO_AUTH=, FOO_PRIVATE=, FOO_CREDS= (the assignment rule above needs longer words).
    Pattern::new(
        &["_key", "_pat", "_pass", "_auth", "private", "_cred", "_sig"],
        r#"\b([A-Z][A-Z0-9_]*(?:_KEY|_PAT|_PASS|_AUTH|PRIVATE[A-Z0-9_]*|_CREDS?|_SIG)=)('[^']*'|"[^"]*"|[^\s'"]+)"#,
        "${1}[REDACTED]",
    ),
    // Hugging Face, DigitalOcean, Docker Hub, PyPI, Shopify, Databricks: prefixed tokens whose
    // gitleaks rules need context words.
    Pattern::new(
        &["hf_", "dop_v1_", "dckr_pat_", "pypi-ag", "shpat_", "shpss_", "dapi"],
        r"\b(?:hf_[A-Za-z0-9]{30,}|do[opr]_v1_[a-f0-9]{64}|dckr_pat_[A-Za-z0-9_\-]{20,}|pypi-AgE[A-Za-z0-9_\-]{50,}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|dapi[a-f0-9]{32}(?:-\d)?)\b",
        MASK,
    ),
];

/// Redacts every secret in `text`: the gitleaks rule set first (precise provider shapes,
/// masking only the secret), then the hand-written command-line and context forms above.
pub fn redact(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    match crate::evidence::redact_gitleaks::mask_secrets(text, &lower, MASK) {
        Some(masked) => hand_written(&masked, masked.to_ascii_lowercase()),
        None => hand_written(text, lower),
    }
}

/// The hand-written patterns alone (the general forms here, then the credential-file,
/// command-line and prefix forms of `redact_forms`); `lower` is `text` lower-cased (ASCII).
fn hand_written(text: &str, lower: String) -> String {
    let once = apply(&PATTERNS, text, lower);
    let lower = once.to_ascii_lowercase();
    apply(&FORMS, &once, lower)
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
    fn non_ascii_text_stays_whole_around_a_mask() {
        let out = redact("Passwort geändert ✓ password=pässwörd1 weiter — café");
        assert_eq!(out, "Passwort geändert ✓ password=[REDACTED] weiter — café");
        let out = redact("ключ: ghp_abcdefghijklmnopqrstuvwxyz0123456789 — готово");
        assert_eq!(out, "ключ: [REDACTED] — готово");
    }

    #[test]
    fn every_pattern_compiles_and_its_needle_is_lower_case() {
        for p in super::PATTERNS.iter().chain(&super::FORMS) {
            assert!(p.regex().is_some(), "{} does not compile", p.source());
            assert!(
                p.needles().iter().all(|n| *n == n.to_ascii_lowercase()),
                "{:?}",
                p.needles()
            );
        }
    }

    /// The keyword gate holds: records with no secret (the benchmark's and other everyday
    /// ones) open no hand-written pattern, so the hook compiles none of their regexes.
    #[test]
    fn ordinary_records_open_no_gate() {
        for t in [
            "cargo test --workspace",
            "Exit code 101\nerror[E0432]: unresolved import `crate::foo`\n --> src/lib.rs:3:5",
            &"ok\n".repeat(50),
            "test result: ok. 42 passed; 0 failed; 0 ignored; finished in 0.31s",
            "git status\nOn branch main\nnothing to commit, working tree clean",
            "HOME=/home/x\nSHELL=/bin/bash\nLANG=C.UTF-8",
            "src/main.rs:42:5: warning: unused variable",
        ] {
            let lower = t.to_ascii_lowercase();
            let pairs = crate::evidence::bigrams::Bigrams::of(&lower);
            let open: Vec<&str> = super::PATTERNS
                .iter()
                .chain(&super::FORMS)
                .filter(|p| p.opens(&lower, &pairs))
                .map(|p| p.source())
                .collect();
            assert!(open.is_empty(), "{t:?} opens {open:?}");
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

    /// Which half catches what, over the shapes of `tests/data/secret_shapes*.tsv` (printed
    /// for docs/redaction.md; `tests/redaction_table.rs` asserts the whole, through the binary).
    #[test]
    fn coverage_of_each_half() {
        for shapes in [
            include_str!("../../tests/data/secret_shapes.tsv"),
            include_str!("../../tests/data/secret_shapes_docs.tsv"),
        ] {
            let (mut n, mut by_gitleaks, mut by_hand, mut missed) = (0, 0, 0, Vec::new());
            let mut without_forms = 0;
            for l in shapes.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
                let f: Vec<String> = l.split('\t').map(|s| s.replace("<NL>", "\n")).collect();
                let (sample, secret) = (&f[1], &f[2]);
                let lower = sample.to_ascii_lowercase();
                let g = crate::evidence::redact_gitleaks::mask_secrets(sample, &lower, super::MASK)
                    .is_some_and(|o| !o.contains(secret.as_str()));
                let h = !super::hand_written(sample, lower).contains(secret.as_str());
                let lower = sample.to_ascii_lowercase();
                let old =
                    !crate::evidence::redact_pattern::apply(&super::PATTERNS, sample, lower).contains(secret.as_str());
                without_forms += (g || old) as usize;
                n += 1;
                by_gitleaks += g as usize;
                by_hand += h as usize;
                if !(g || h) {
                    missed.push(format!("{}: {}", f[0], super::redact(sample)));
                }
            }
            println!(
                "{n} shapes: gitleaks rules alone mask {by_gitleaks}, hand-written alone {by_hand}, together {} (without redact_forms: {without_forms})",
                n - missed.len()
            );
            assert!(missed.is_empty(), "missed:\n{}", missed.join("\n"));
        }
    }
}
