//! Hand-written secret forms of credential files, tool command lines and SaaS key prefixes:
//! what the gitleaks rule set (a scanner of committed files, keyed on provider names) does
//! not aim at. Each form is written from the tool's own documentation; the shapes with their
//! sources are in `tests/data/secret_shapes_docs.tsv`.
//!
//! Every pattern keeps the non-secret context (`<password>[REDACTED]</password>`) and is
//! gated by literal needles (or, for `.pgpass`, a byte scan), so a record without any of them
//! compiles nothing here.

use crate::evidence::redact_pattern::Pattern;

/// `redact::MASK` (not imported: `redact` uses this file).
const MASK: &str = "[REDACTED]";

/// A value after a flag or an `=`: quoted, or a bare word that is not a variable (`$X`) nor
/// the next flag.
macro_rules! value {
    () => {
        r#"(?:'[^'$][^']*'|"[^"$][^"]*"|[^\s'"$-][^\s'"]*)"#
    };
}

/// A `.pgpass` line's shape (`host:port:database:user:password`): a word without blanks or
/// quotes with four colons or more whose second field is a port or `*`. A byte scan cheap
/// enough to run on every record (compiler positions, `file:line:col:`, have three).
fn pgpass_shape(lower: &str) -> bool {
    lower
        .split(|c: char| c.is_ascii_whitespace() || c == '"' || c == '\'')
        .any(|w| {
            w.bytes().filter(|&c| c == b':').count() >= 4
                && w.split(':').nth(1).is_some_and(|p| {
                    p == "*" || (!p.is_empty() && p.len() <= 5 && p.bytes().all(|c| c.is_ascii_digit()))
                })
        })
}

pub static FORMS: [Pattern; 52] = [
    // JSON Web Keys: the private members of RSA (d p q dp dq qi), EC/OKP (d) and oct (k)
    // keys; the public ones (n e x y) stay.
    Pattern::new(
        &["kty"],
        r#"(\\?"(?:d|p|q|dp|dq|qi|k)\\?"\s*:\s*\\?")[A-Za-z0-9_\-]{16,}"#,
        "${1}[REDACTED]",
    ),
    // Secret XML elements: Maven settings.xml `<password>`, `<passphrase>`, and the like.
    Pattern::new(
        &["password>", "passphrase>", "secret>", "token>", "apikey>", "api-key>"],
        r"(?i)(<[A-Za-z0-9_.:\-]*(?:password|passphrase|secret|token|apikey|api-key)>)[^<\s$][^<]*(</)",
        "${1}[REDACTED]${2}",
    ),
    // NuGet.config packageSourceCredentials: `<add key="ClearTextPassword" value="…" />`.
    Pattern::new(
        &["\" value=", "\\\" value="],
        r#"(?i)(key\s*=\s*\\?"(?:ClearTextPassword|Password|ApiKey|Token|Secret|ClientSecret)\\?"\s+value\s*=\s*\\?")[^"\\]+"#,
        "${1}[REDACTED]",
    ),
    // Docker config.json `"auth": "<base64 user:pass>"`, .npmrc `_auth=`, yarnrc `npmAuthIdent:`.
    Pattern::new(
        &["\"auth", "auth\\\"", "_auth", "npmauthident"],
        r#"(?i)((?:\\?"auth\\?"|\b_auth|\bnpmAuthIdent)\\?["']?\s*[:=]\s*\\?["']?)[A-Za-z0-9+/=:]{8,}"#,
        "${1}[REDACTED]",
    ),
    // `npm config set //registry/:_authToken VALUE` (a space, not `=`).
    Pattern::new(
        &["config set"],
        r"(?i)(\bnpm\s+config\s+set\s+\S*_(?:auth|authtoken|password)\s+)\S+",
        "${1}[REDACTED]",
    ),
    // Kubernetes: kubeconfig `client-key-data:`, Secret `tls.key:` / `ssh-privatekey:`.
    Pattern::new(
        &["client-key-data", "tls.key", "ssh-privatekey"],
        r#"((?:client-key-data|tls\.key|ssh-privatekey)\\?["']?\s*:\s*\\?["']?)[A-Za-z0-9+/=]{20,}"#,
        "${1}[REDACTED]",
    ),
    // Any base64-encoded PEM private key (`LS0tLS1CRUdJTi…` is `-----BEGIN `).
    Pattern::new(
        &["ls0tls1crudjti"],
        r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]*(?:UFJJVkFURSBLRVk|BQUklWQVRFIEtFW|IFBSSVZBVEUgS0VZ)[A-Za-z0-9+/=]*",
        MASK,
    ),
    // A base64 Docker config (`.dockerconfigjson`, `{"auths":…`).
    Pattern::new(&["eyjhdxroc"], r"\beyJhdXRocyI6[A-Za-z0-9+/=]*", MASK),
    // .pgpass: `host:port:database:user:password` (a hostname with a letter or dot, or `*`).
    Pattern::new(
        &[],
        r#"(?m)((?:^|["'\s])(?:[A-Za-z0-9_\-]*[A-Za-z.][A-Za-z0-9._\-]*|\*):(?:[0-9]{1,5}|\*):[^:\s'"]+:[^:\s'"]+:)[^\s'"]+"#,
        "${1}[REDACTED]",
    )
    .gated(pgpass_shape),
    // Headers whose name does not say `token`/`key` where the assignment rule would see it.
    Pattern::new(
        &["x-jfrog-art-api", "x-honeycomb-team", "ocp-apim-subscription-key", "x-functions-key"],
        r"(?i)(\b(?:x-jfrog-art-api|x-honeycomb-team|ocp-apim-subscription-key|x-functions-key)\\?['\x22]?\s*:\s*)[^\s'\x22\\]{8,}",
        "${1}[REDACTED]",
    ),
    // `pass = x` (rclone), `pass_phrase=` (OCI), `passphrase=`, `psk=` (wpa_supplicant),
    // `private_key_id` (GCP service-account JSON).
    Pattern::new(
        &["pass =", "pass=", "pass:", "pass\\\":", "pass\":", "phrase", "psk", "private_key_id"],
        concat!(
            r#"(?i)(^|[^$A-Za-z0-9_.{\-])((?:[A-Za-z0-9_.\-]*[_.\-])?pass|[A-Za-z0-9_.\-]*(?:pass_?phrase|psk|private_key_id))"#,
            r#"(\s*=\s*|\\?["']?\s*:\s*\\?["']?)('[^'$][^']*'|"[^"$][^"]*"|[^$\s'",}&\\][^\s'",}&\\]*)"#
        ),
        "${1}${2}${3}[REDACTED]",
    ),
    // Single-dash flags (PowerShell, NuGet, Go-style): -Password X, -ApiKey X, -token=X.
    Pattern::new(
        &["-password", "-apikey", "-token", "-secret", "-clientsecret", "-accesstoken", "-pwd", "-passphrase"],
        concat!(
            r"(?i)(\s-(?:password|apikey|api-key|token|secret|clientsecret|accesstoken|pwd|passphrase)(?:[=:]|[ \t]+))",
            value!()
        ),
        "${1}[REDACTED]",
    ),
    // Long flags the generic flag rule does not name: --auth, --authkey, --pat, --pass, --body
    // of `gh secret set`.
    Pattern::new(
        &["--auth", "--pat", "--pass"],
        concat!(r"(?i)(--(?:auth|authkey|auth-key|pat|pass)(?:=|[ \t]+))", value!()),
        "${1}[REDACTED]",
    ),
    Pattern::new(
        &["secret set"],
        r#"(\bgh\s+secret\s+set\b[^\n|;&]*?\s(?:--body|-b)(?:=|[ \t]+))(?:'[^']*'|"[^"]*"|\S+)"#,
        "${1}[REDACTED]",
    ),
    // Tools whose `-p` is the password: az, oc, cf, mongo(sh), twine, conan, dotnet nuget.
    Pattern::new(
        &["az ", "oc ", "cf ", "mongo", "twine", "conan", "dotnet", "mysqlsh"],
        concat!(
            r"(\b(?:az|oc|cf|mongo|mongosh|twine|conan|dotnet|mysqlsh)\b[^\n|;&]*?\s(?:-p|--password)(?:=|[ \t]+))",
            value!()
        ),
        "${1}[REDACTED]",
    ),
    // `-P` of sqlcmd/bcp/zip/unzip, `-w` of the OpenLDAP tools, `-t` of codecov, 7-Zip `-pX`.
    Pattern::new(
        &["sqlcmd", "bcp", "zip"],
        concat!(r"(\b(?:sqlcmd|bcp|osql|zip|unzip)\b[^\n|;&]*?\s-P[ \t]+)", value!()),
        "${1}[REDACTED]",
    ),
    Pattern::new(
        &["ldap"],
        concat!(r"(\bldap[a-z]*\b[^\n|;&]*?\s-w[ \t]+)", value!()),
        "${1}[REDACTED]",
    ),
    Pattern::new(
        &["codecov"],
        concat!(r"(\bcodecov\b[^\n|;&]*?\s-t[ \t]+)", value!()),
        "${1}[REDACTED]",
    ),
    Pattern::new(&["7z"], r"(\b7z[a-z]?\b[^\n|;&]*?\s-p)\S+", "${1}[REDACTED]"),
    // `-auth user:token` (jenkins-cli), `-U user%pass` (smbclient), `-u user,pass` (lftp).
    Pattern::new(&["-auth "], r"(\s-auth\s+[^\s:]+:)\S+", "${1}[REDACTED]"),
    Pattern::new(
        &["smbclient", "rpcclient"],
        r"(\s(?:-U|--user)(?:=|\s+)[^\s%]+%)\S+",
        "${1}[REDACTED]",
    ),
    Pattern::new(&["lftp"], r"(\blftp\b[^\n|;&]*?\s-u\s+[^\s,]+,)\S+", "${1}[REDACTED]"),
    // Positional secrets: `cargo login T`, `cf auth U P`, `vault login T`, `snyk auth T`,
    // `ngrok config add-authtoken T`, `poetry|composer config http-basic.X U P`,
    // `composer config bearer.X T`, `bundle config set HOST U:P`, `aws configure set …`.
    Pattern::new(
        &["cargo login", "vault login", "snyk auth", "authtoken"],
        r"(\b(?:cargo\s+login|vault\s+login|snyk\s+auth|(?:add-)?authtoken)\s+)[^\s=\-$][^\s=]{7,}(\s|$)",
        "${1}[REDACTED]${2}",
    ),
    Pattern::new(&["cf auth"], r"(\bcf\s+auth\s+\S+\s+)\S+", "${1}[REDACTED]"),
    Pattern::new(
        &["http-basic."],
        r"(\b(?:poetry|composer)\s+config\s+(?:--?[a-z]+\s+)*http-basic\.\S+\s+\S+\s+)\S+",
        "${1}[REDACTED]",
    ),
    Pattern::new(
        &["composer config"],
        r"(\bcomposer\s+config\s+(?:--?[a-z]+\s+)*(?:bearer|gitlab-token|gitlab-oauth|github-oauth)\.\S+\s+)\S+",
        "${1}[REDACTED]",
    ),
    Pattern::new(
        &["gitlab-token", "gitlab-oauth", "github-oauth", "bitbucket-oauth", "bearer\""],
        r#"(\\?"(?:gitlab-token|gitlab-oauth|github-oauth|bearer)\\?"\s*:\s*\{\s*\\?"[^"\\]+\\?"\s*:\s*\\?")[^"\\]+"#,
        "${1}[REDACTED]",
    ),
    Pattern::new(
        &["bundle config"],
        r"(\bbundle\s+config\s+(?:set\s+)?(?:--?[a-z]+\s+)*\S+\.\S+\s+[^\s:]+:)\S+",
        "${1}[REDACTED]",
    ),
    Pattern::new(&["bundle_"], r"(\bBUNDLE_[A-Z0-9_]+__[A-Z0-9_]+=[^\s:]+:)\S+", "${1}[REDACTED]"),
    Pattern::new(
        &["aws configure"],
        r"(\baws\s+configure\s+set\s+(?:\S+\.)?(?:aws_secret_access_key|aws_session_token|aws_security_token)\s+)\S+",
        "${1}[REDACTED]",
    ),
    // A secret echoed into a login that reads it from stdin (through `base64 -d` or not).
    Pattern::new(
        &["password-stdin", "with-token", "token-stdin", "sudo -s", "chpasswd", "passwd --stdin"],
        concat!(
            r#"(\b(?:echo|printf)\s+(?:-[neE]+\s+)?(?:'%s[^']*'\s+|"%s[^"]*"\s+)?)('[^'$][^']*'|"[^"$][^"]*"|[^\s|'"$][^\s|]*)"#,
            r"(\s*\|[^\n]*?(?:--password-stdin|--with-token|--token-stdin|\bsudo\s+-S|\bchpasswd|\bpasswd\s+--stdin))"
        ),
        "${1}[REDACTED]${3}",
    ),
    Pattern::new(
        &["password-stdin"],
        r#"(--password-stdin\b[^\n]*?<<<\s*)('[^']*'|"[^"]*"|\S+)"#,
        "${1}[REDACTED]",
    ),
    // `echo -n 'user:pass' | base64` (building a Basic credential).
    Pattern::new(
        &["base64"],
        r#"(\becho\s+(?:-n\s+)?)('[^':$]+:[^']+'|"[^":$]+:[^"]+"|[^\s|'"$:]+:[^\s|'"]+)(\s*\|\s*base64\b)"#,
        "${1}[REDACTED]${3}",
    ),
    // A long token as the user part of a URL (`https://TOKEN@github.com`).
    Pattern::new(
        &["://"],
        r"\b([a-z][a-z0-9+.\-]*://)[A-Za-z0-9_\-]{20,}@",
        "${1}[REDACTED]@",
    ),
    // `az storage account keys list`: `"keyName": "key1", …, "value": "…"`.
    Pattern::new(
        &["keyname"],
        r#"("keyName"\s*:\s*"key\d"[^}]*?"value"\s*:\s*")[A-Za-z0-9+/=]{40,}"#,
        "${1}[REDACTED]",
    ),
    // Webhook URLs whose path is the secret: Microsoft Teams, Mattermost.
    Pattern::new(
        &["incomingwebhook"],
        r"(/IncomingWebhook/)[A-Za-z0-9]{32}/[0-9a-fA-F\-]{36}",
        "${1}[REDACTED]",
    ),
    Pattern::new(&["/hooks/"], r"(/hooks/)[a-z0-9]{26}\b", "${1}[REDACTED]"),
    // Prefixed SaaS keys and tokens (each prefix from the provider's documentation).
    Pattern::new(&["ya29."], r"\bya29\.[A-Za-z0-9_\-]{30,}", MASK),
    Pattern::new(&["1//0"], r"\b1//0[A-Za-z0-9_\-]{40,}", MASK),
    Pattern::new(&["gocspx-"], r"\bGOCSPX-[A-Za-z0-9_\-]{20,}", MASK),
    Pattern::new(&["00d"], r"\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{40,}", MASK),
    Pattern::new(&["sha256~"], r"\bsha256~[A-Za-z0-9_\-]{40,}", MASK),
    Pattern::new(&["cio"], r"\bcio[A-Za-z0-9]{32}\b", MASK),
    Pattern::new(&["oy2"], r"\boy2[a-z0-9]{43}\b", MASK),
    Pattern::new(&["aqaaancmnd8"], r"\bAQAAANCMnd8BFdERjHoAwE[A-Za-z0-9+/=]+", MASK),
    Pattern::new(&["iqojb3jpz2lux2vj"], r"\bIQoJb3JpZ2luX2Vj[A-Za-z0-9+/=]{50,}", MASK),
    Pattern::new(&["cmvmdgtuoj", "akcp"], r"\b(?:cmVmdGtuOj|AKCp)[A-Za-z0-9]{40,}", MASK),
    Pattern::new(&["key-"], r"\bkey-[0-9a-z]{32}\b", MASK),
    Pattern::new(&["-us"], r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", MASK),
    Pattern::new(
        &["re_", "rnd_", "sbp_", "sb_secret_", "ntn_", "gsk_", "r8_", "pplx-", "xai-", "figd_"],
        concat!(
            r"\b(?:re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}|rnd_[A-Za-z0-9]{32}|sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,}",
            r"|ntn_[0-9]{11}[A-Za-z0-9]{35}|gsk_[A-Za-z0-9]{52}|r8_[A-Za-z0-9]{37}|pplx-[A-Za-z0-9]{48}",
            r"|xai-[A-Za-z0-9]{80}|figd_[A-Za-z0-9_\-]{40,})"
        ),
        MASK,
    ),
    Pattern::new(
        &["hrku-", "sntry", "ops_eyj", "tskey-", "bkua_", "ccipat_", "lin_api_", "dp.", "pul-", "atatt3"],
        concat!(
            r"\b(?:HRKU-[A-Za-z0-9_\-]{20,}|sntry[su]_[A-Za-z0-9+/=_\-]{40,}|ops_eyJ[A-Za-z0-9+/=_\-]{50,}",
            r"|tskey-[a-z]+-[A-Za-z0-9]+-[A-Za-z0-9]{20,}|bkua_[a-f0-9]{40}|CCIPAT_[A-Za-z0-9]+_[a-f0-9]{40}",
            r"|lin_api_[A-Za-z0-9]{40}|dp\.(?:st|sa|ct|scim|audit)\.[A-Za-z0-9_.\-]{40,}|pul-[a-f0-9]{40}",
            r"|ATATT3[A-Za-z0-9_\-=]{100,})"
        ),
        MASK,
    ),
    Pattern::new(
        &["glsa_", "glc_", "nrak-", "pmak-", "fm1", "fm2", "fo1_", "nfp_", "squ_", "sqp_", "sqa_", "rubygems_"],
        concat!(
            r"\b(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|glc_[A-Za-z0-9+/=]{32,}|NRAK-[A-Z0-9]{27}",
            r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|(?:fm[12][ar]?|fo1)_[A-Za-z0-9+/=_\-]{40,}|nfp_[A-Za-z0-9]{36}",
            r"|sq[upa]_[a-f0-9]{40}|rubygems_[a-f0-9]{48})"
        ),
        MASK,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_gate_wants_a_port_in_the_second_field() {
        assert!(pgpass_shape("db.example.com:5432:appdb:app:pw"));
        assert!(pgpass_shape("x\n*:*:*:postgres:pw"));
        assert!(!pgpass_shape("PATH=/usr/bin:/bin:/usr/sbin:/sbin:/opt"));
        assert!(!pgpass_shape("https://a.example.com/x"));
        assert!(!pgpass_shape("src/main.rs:42:5: warning: unused"));
        assert!(pgpass_shape("echo 'h:6432:db:u:pw' >> ~/.pgpass"));
    }
}
