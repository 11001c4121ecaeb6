//! The README's tour is true: every `$` line of its ```console blocks runs, in order, in one
//! scratch project with the freshly built binaries first on `PATH`, and what it prints must
//! match the lines under it (`[..]` stands for any text within a line). A README whose
//! example outputs drift from what the binaries print fails the test command.

use std::path::Path;
use std::process::Command;

/// `(command, expected output lines)` for every `$` line of every console block.
fn steps(readme: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_console = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_console = !in_console && line.trim() == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        match line.strip_prefix("$ ") {
            Some(cmd) => out.push((cmd.to_string(), Vec::new())),
            None => {
                if let Some(last) = out.last_mut() {
                    last.1.push(line.to_string());
                }
            }
        }
    }
    out
}

/// True when `actual` matches `pattern`, where `[..]` matches any run of characters.
fn matches(pattern: &str, actual: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == actual;
    }
    let Some(rest) = actual.strip_prefix(parts[0]) else {
        return false;
    };
    let mut rest = rest;
    for (i, part) in parts.iter().enumerate().skip(1) {
        if i == parts.len() - 1 {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn the_readme_tour_prints_what_it_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let steps = steps(&readme);
    assert!(steps.len() >= 6, "the tour has its steps: {}", steps.len());
    let bins = assert_cmd::cargo::cargo_bin("fable").parent().unwrap().to_path_buf();
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("proj");
    let home = t.path().join("home");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let path = format!("{}:{}", bins.display(), std::env::var("PATH").unwrap_or_default());
    for (cmd, expected) in steps {
        let out = Command::new("bash")
            .arg("-c")
            .arg(&cmd)
            .current_dir(&proj)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", t.path().join("state"))
            .env("XDG_CONFIG_HOME", t.path().join("config"))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        let actual = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        let actual: Vec<&str> = actual.lines().collect();
        let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
        assert_eq!(
            actual.len(),
            expected.len(),
            "`{cmd}` printed:\n{}\nthe README says:\n{}",
            actual.join("\n"),
            expected.join("\n")
        );
        for (e, a) in expected.iter().zip(&actual) {
            assert!(matches(e, a), "`{cmd}`:\n  README: {e}\n  actual: {a}");
        }
    }
}

#[test]
fn wildcards_match_within_a_line_only() {
    assert!(matches("a [..] c", "a bbb c"));
    assert!(matches("[..]/x", "/tmp/q/x"));
    assert!(!matches("a [..] c", "a b d"));
    assert!(matches("plain", "plain"));
}

/// Every relative link in the README and in docs/ points at a file that exists, and the
/// README stays short with set-up near the top.
#[test]
fn readme_links_resolve_and_it_stays_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "md") {
            files.push(e.path());
        }
    }
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, _) in text.match_indices("](") {
            let target = text[i + 2..].split(')').next().unwrap_or("");
            if target.starts_with("http") || target.starts_with('#') || target.is_empty() {
                continue;
            }
            let target = target.split('#').next().unwrap();
            let resolved = f.parent().unwrap().join(target);
            assert!(resolved.exists(), "{}: broken link {target}", f.display());
        }
    }
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.lines().count() <= 300,
        "README is {} lines",
        readme.lines().count()
    );
    let setup = readme.lines().position(|l| l == "## Set up").expect("a set-up section");
    assert!(setup < 60, "set-up starts at line {setup}");
    assert!(
        !readme.contains("issue 1") && !readme.contains(&format!("{}/shared", "..")),
        "no issue numbers, nothing beside the repo"
    );
}
