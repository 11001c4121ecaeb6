//! Redaction measured end to end: every shape of `tests/data/secret_shapes.tsv` and
//! `tests/data/secret_shapes_docs.tsv` (fake values in real formats; the second file names the
//! documentation page of each shape) goes through the real `fable-evidence` binary in four
//! placements — as the command, inside a success's stdout, inside a failure's error text, and
//! as a config file the command writes (`cat > FILE <<'EOF'`) — so each shape also lands in
//! the field it does not naturally live in (a `curl -u` in output, a `Set-Cookie:` in a
//! command). No secret may survive into `.fable/evidence.jsonl`; ordinary lines must come
//! through untouched. `cargo test --test redaction_table -- --nocapture` prints the table
//! `docs/redaction.md` quotes.

use assert_cmd::Command;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

const PLACEMENTS: [&str; 4] = ["command", "stdout", "error", "file"];

struct Shape {
    /// Which data file the shape comes from.
    set: &'static str,
    name: String,
    sample: String,
    secret: String,
}

const SETS: [(&str, &str); 2] = [
    ("secret_shapes.tsv", include_str!("data/secret_shapes.tsv")),
    ("secret_shapes_docs.tsv", include_str!("data/secret_shapes_docs.tsv")),
];

fn shapes() -> Vec<Shape> {
    let mut out = Vec::new();
    for (set, text) in SETS {
        for l in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() == 3 || f.len() == 4, "bad row {l:?}");
            out.push(Shape {
                set,
                name: f[0].into(),
                sample: f[1].replace("<NL>", "\n"),
                secret: f[2].replace("<NL>", "\n"),
            });
        }
    }
    out
}

/// A temp project (`.git/` bounds discovery, `.fable/` opts in) with HOME and the XDG
/// folders inside it, so nothing of the user's own state is read or written.
fn project() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("proj");
    fs::create_dir_all(root.join(".git")).unwrap();
    fs::create_dir_all(root.join(".fable")).unwrap();
    (t, root)
}

fn payload(cwd: &Path, placement: &str, id: &str, sample: &str) -> String {
    let base = json!({"session_id":"s1","transcript_path":"/t.jsonl","cwd":cwd,"tool_name":"Bash","tool_use_id":id});
    let mut v = base;
    match placement {
        "command" => {
            v["hook_event_name"] = json!("PostToolUse");
            v["tool_input"] = json!({ "command": sample });
            v["tool_response"] = json!({"stdout":"done","stderr":"","interrupted":false,"isImage":false});
        }
        "stdout" => {
            v["hook_event_name"] = json!("PostToolUse");
            v["tool_input"] = json!({"command":"./scripts/setup.sh"});
            v["tool_response"] = json!({"stdout": format!("setting up\n{sample}\nall set"),"stderr":"","interrupted":false,"isImage":false});
        }
        "file" => {
            v["hook_event_name"] = json!("PostToolUse");
            v["tool_input"] = json!({ "command": format!("cat > ./config <<'EOF'\n{sample}\nEOF") });
            v["tool_response"] = json!({"stdout":"","stderr":"","interrupted":false,"isImage":false});
        }
        _ => {
            v["hook_event_name"] = json!("PostToolUseFailure");
            v["tool_input"] = json!({"command":"make deploy"});
            v["error"] = json!(format!("Exit code 1\nconnecting\n{sample}\nerror: deploy failed"));
            v["is_interrupt"] = json!(false);
        }
    }
    v.to_string()
}

/// Runs every `(id, placement, sample)` through `fable-evidence` in one project and returns
/// each record's raw line and its `cmd` + `tail`, by tool_use_id.
fn log_all(items: &[(String, &str, &str)]) -> HashMap<String, (String, String)> {
    let (_t, root) = project();
    for (id, placement, sample) in items {
        Command::cargo_bin("fable-evidence")
            .unwrap()
            .current_dir(&root)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", root.join(".home"))
            .env("XDG_STATE_HOME", root.join(".xdg-state"))
            .env("XDG_CONFIG_HOME", root.join(".xdg-config"))
            .env("FABLE_CONFIG_DIR", root.join(".xdg-config/fable"))
            .write_stdin(payload(&root, placement, id, sample))
            .assert()
            .success();
    }
    let log = fs::read_to_string(root.join(".fable/evidence.jsonl")).unwrap();
    let mut out = HashMap::new();
    for line in log.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let id = v["tool_use_id"].as_str().unwrap().to_string();
        let text = format!("{}\n{}", v["cmd"].as_str().unwrap(), v["tail"].as_str().unwrap());
        out.insert(id, (line.to_string(), text));
    }
    assert_eq!(out.len(), items.len(), "one record per call");
    out
}

#[test]
fn no_secret_shape_survives_in_any_placement() {
    let shapes = shapes();
    for (set, _) in SETS {
        let n = shapes.iter().filter(|s| s.set == set).count();
        assert!(n >= 100, "only {n} shapes in {set}");
    }
    let mut items = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        for p in PLACEMENTS {
            items.push((format!("toolu_{i}_{p}"), p, s.sample.as_str()));
        }
    }
    let logged = log_all(&items);
    let mut survivors = Vec::new();
    println!("| shape | {} |", PLACEMENTS.join(" | "));
    println!("|---|---|---|---|---|");
    for (i, s) in shapes.iter().enumerate() {
        let cells: Vec<&str> = PLACEMENTS
            .iter()
            .map(|p| {
                let (line, text) = &logged[&format!("toolu_{i}_{p}")];
                let json_secret = serde_json::to_string(&s.secret).unwrap();
                if text.contains(&s.secret) || line.contains(json_secret.trim_matches('"')) {
                    survivors.push(format!("{}: {} in {p}: {text:?}", s.set, s.name));
                    "**survives**"
                } else {
                    "masked"
                }
            })
            .collect();
        if cells.iter().any(|c| *c != "masked") {
            println!("| {} | {} |", s.name, cells.join(" | "));
        }
    }
    for (set, _) in SETS {
        let n = shapes.iter().filter(|s| s.set == set).count();
        let lost = survivors.iter().filter(|s| s.starts_with(&format!("{set}:"))).count();
        println!(
            "{set}: {n} shapes x {} placements = {} records: {lost} survivors",
            PLACEMENTS.len(),
            n * PLACEMENTS.len()
        );
    }
    assert!(
        survivors.is_empty(),
        "{} survivors:\n{}",
        survivors.len(),
        survivors.join("\n")
    );
}

/// Ordinary lines an agent's commands and output are full of, most of the later ones chosen to
/// sit close to a secret's shape (`tokens:`, `key:`, `$DB_PASSWORD`, a SHA-256, an `env` dump
/// with `PWD=`, a `.pgpass`-like `file:line:col:` list); none may be masked.
const HARMLESS: [&str; 61] = [
    "git log --oneline -3\n116378d README and own ledger\n3594ec8 A repository's learn.json",
    "commit 3594ec8f6a1d2b9c7e5f4a3b2c1d0e9f8a7b6c5d",
    "Author: Jane Doe <jane@example.com>",
    "request id 8f14e45f-ceea-467f-a0a6-3f2b1c9d8e7a completed in 12ms",
    "cargo test -p mycrate --lib -- --nocapture",
    "ls -la\ndrwxr-xr-x  5 user user 4096 Jan  1 12:00 src\n-rw-r--r--  1 user user  512 Jan  1 12:00 Cargo.toml",
    "mysql -h db.internal -u root -e 'show databases'",
    "mysql -h db.internal -u root -p",
    "docker run --rm -u 1000:1000 -p 8080:80 -v $PWD:/app node:20 npm test",
    "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/left-padx",
    "test result: ok. 42 passed; 0 failed; 0 ignored; finished in 0.31s",
    "error[E0432]: unresolved import `crate::foo::bar`\n --> src/lib.rs:3:5",
    "Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\nKeyError: 'user_id'",
    "sha256:4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b",
    "Downloaded serde v1.0.229\nCompiling regex v1.11.1",
    "PASS src/components/Login.test.tsx (2.1 s)\n  ✓ shows the password field (35 ms)",
    "export PATH=$HOME/.cargo/bin:$PATH",
    "curl -sSf https://sh.rustup.rs | sh -s -- -y",
    "kubectl get pods -n kube-system -o wide",
    "ssh -i ~/.ssh/id_ed25519 deploy@10.0.0.5 'systemctl status app'",
    "grep -rn \"TODO\" src/ | wc -l",
    "python3 -m pytest tests/ -k 'not slow' -q",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
    "git push origin feature/login-form\nTo github.com:acme/app.git\n * [new branch] feature/login-form -> feature/login-form",
    "Set up the key bindings in settings.json, then restart the editor.",
    "the api returned 200 OK with 3 items",
    "password reset email sent to the user",
    "go test ./... -run TestAuth -count=1",
    "terraform plan -var-file=prod.tfvars -out=plan.bin",
    "Fetching https://github.com/rust-lang/crates.io-index",
    "Total tokens: 1234, prompt tokens: 1000",
    "cache key: v1-linux-cargo-8f14e45fceea167a",
    "{\"tokenizer\": \"gpt2\", \"max_tokens\": 4096}",
    "\"secret_name\": \"db-credentials\"",
    "export TOKEN_TTL=3600\nPASSWORD_MIN_LENGTH=12",
    "api_version=v2 api_key_header=X-API-Key",
    "password=\"$DB_PASSWORD\"",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "kubectl get secret db -o jsonpath='{.data.password}'",
    "The key fingerprint is SHA256:abcdEFGHijklMNOPqrstUVWXyz0123456789+/abc.",
    "git checkout -b feature/token-refresh\n--> src/auth/token.rs:42:9",
    "image: ghcr.io/acme/app@sha256:4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b",
    "$ env\nSHELL=/bin/bash\nPWD=/home/x\nOLDPWD=/home/x/src\nHOME=/home/x\nSSH_AUTH_SOCK=/tmp/ssh-XXXXb2/agent.4242\nGIT_ASKPASS=/usr/lib/git-core/git-gui--askpass\nXAUTHORITY=/home/x/.Xauthority\nLANG=C.UTF-8",
    "PWD=/home/x",
    "cd \"$OLDPWD\" && echo $PWD",
    "git commit -m \"fix password reset\"",
    "git commit -m \"Rotate the token on refresh\"\n[main 1a2b3c4] Rotate the token on refresh",
    "src/main.rs:42:5:warning:unused",
    "app.py:10:80: E501 line too long (88 > 79 characters)",
    "2026-12-06 02:41:20:123 INFO request ok",
    "echo hello | base64",
    "echo $GITHUB_TOKEN | gh auth login --with-token",
    "cat ~/.pgpass | wc -l",
    "docker login ghcr.io -u ci --password-stdin < token.txt",
    "kubectl config view --minify --raw -o jsonpath='{.users[0].user.token}'",
    "npm config get //registry.npmjs.org/:_authToken",
    "{\"kty\":\"RSA\",\"n\":\"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw\",\"e\":\"AQAB\",\"kid\":\"2011-04-29\"}",
    "export GOOGLE_APPLICATION_CREDENTIALS=/home/x/.config/gcloud/application_default_credentials.json",
    "client-certificate-data: DATA+OMITTED\nclient-key-data: DATA+OMITTED\ntoken: REDACTED",
    "aws configure set region eu-west-1",
    "X-RateLimit-Remaining: 4999",
];

#[test]
fn ordinary_lines_are_not_masked() {
    let mut items = Vec::new();
    for (i, s) in HARMLESS.iter().enumerate() {
        for p in ["command", "stdout"] {
            items.push((format!("toolu_{i}_{p}"), p, *s));
        }
    }
    let logged = log_all(&items);
    let mut masked = Vec::new();
    for (id, _, sample) in &items {
        let (_, text) = &logged[id];
        if text.contains("[REDACTED") {
            masked.push(format!("{id}: {sample:?} -> {text:?}"));
        }
    }
    println!(
        "{} harmless lines x 2 placements: {} masked",
        HARMLESS.len(),
        masked.len()
    );
    assert!(masked.is_empty(), "over-redacted:\n{}", masked.join("\n"));
}
