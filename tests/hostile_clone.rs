//! A real `git clone` of a prepared repository whose committed links point outside it:
//! `fable init` refuses each link by name, writes nothing through it, exits non-zero;
//! and a project `fable init` opted in has a log from the start, so a card citing a
//! command that never ran blocks the first stop.

mod common_discipline;
use common_discipline::*;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Commits `links` (path in repo → target) into a fresh repository and clones it.
fn clone_with(p: &Proj, links: &[(&str, &Path)]) -> std::path::PathBuf {
    let upstream = p.home.join("upstream");
    fs::create_dir_all(&upstream).unwrap();
    git(&upstream, &["init", "-q"]);
    for (rel, target) in links {
        let at = upstream.join(rel);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        symlink(target, &at).unwrap();
    }
    git(&upstream, &["add", "-A"]);
    git(&upstream, &["commit", "-qm", "links"]);
    let clone = p.home.join("clone");
    git(
        &p.home,
        &["clone", "-q", upstream.to_str().unwrap(), clone.to_str().unwrap()],
    );
    clone
}

fn init_in(p: &Proj, dir: &Path) -> std::process::Output {
    p.cmd("fable").arg("init").arg("--dir").arg(dir).output().unwrap()
}

#[test]
fn a_committed_gitignore_link_is_refused_and_its_target_untouched() {
    let p = Proj::bare();
    let victim = p.home.join("victim.rc");
    fs::write(&victim, "export PRECIOUS=1\n").unwrap();
    let clone = clone_with(&p, &[(".fable/.gitignore", &victim)]);
    let o = init_in(&p, &clone);
    assert_ne!(code(&o), 0);
    assert!(
        stderr(&o).contains(".gitignore") && stderr(&o).contains("symbolic link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "export PRECIOUS=1\n");
}

#[test]
fn a_committed_fable_link_to_an_outside_folder_is_refused() {
    let p = Proj::bare();
    let outside = p.home.join("outside");
    fs::create_dir_all(&outside).unwrap();
    let clone = clone_with(&p, &[(".fable", &outside)]);
    let o = init_in(&p, &clone);
    assert_ne!(code(&o), 0);
    assert!(
        stderr(&o).contains(".fable") && stderr(&o).contains("symbolic link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        0,
        "init wrote into the linked folder"
    );
}

#[test]
fn committed_ledger_or_log_links_are_refused() {
    let p = Proj::bare();
    let victim = p.home.join("victim.rc");
    fs::write(&victim, "export PRECIOUS=1\n").unwrap();
    for rel in [".fable/LEDGER.md", ".fable/evidence.jsonl"] {
        let _ = fs::remove_dir_all(p.home.join("upstream"));
        let _ = fs::remove_dir_all(p.home.join("clone"));
        let clone = clone_with(&p, &[(rel, &victim)]);
        let o = init_in(&p, &clone);
        assert_ne!(code(&o), 0, "{rel}");
        assert!(stderr(&o).contains("symbolic link"), "{rel}: {}", stderr(&o));
        assert_eq!(fs::read_to_string(&victim).unwrap(), "export PRECIOUS=1\n", "{rel}");
    }
}

#[test]
fn after_init_a_never_run_citation_blocks_the_first_stop() {
    let p = Proj::bare();
    let o = init_in(&p, &p.root);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(p.fable().join("evidence.jsonl").is_file(), "init creates the log");
    p.ledger("- [x] 1. parser -- evidence: `cargo test` ran, 12 passed\n");
    let o = p.stop();
    assert_eq!(stop_code(&o), 2, "a citation of a command that never ran: {}", said(&o));
    assert!(said(&o).contains("cargo test"), "{}", said(&o));
}

fn install_in(p: &Proj, dir: &Path, extra: &[&str]) -> std::process::Output {
    // Project scope names the hooks by bare name, so their folder must be on PATH.
    // isolation: not spawned (only its folder is put on PATH; p.cmd isolates the run).
    let bins = assert_cmd::cargo::cargo_bin("fable").parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bins.display(), std::env::var("PATH").unwrap_or_default());
    p.cmd("fable")
        .env("PATH", path)
        .args(["install", "--project", "--claude-version", "2.1.332", "--dir"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn install_refuses_committed_backup_and_skill_links() {
    let p = Proj::bare();
    let victim = p.home.join("victim.rc");
    let original = "export PRECIOUS=1\n";
    for rel in [
        ".claude/settings.json.fable-backup",
        ".claude/skills/fable/SKILL.md",
        ".claude/settings.json",
    ] {
        fs::write(&victim, original).unwrap();
        let _ = fs::remove_dir_all(p.home.join("upstream"));
        let _ = fs::remove_dir_all(p.home.join("clone"));
        let upstream = p.home.join("upstream");
        fs::create_dir_all(upstream.join(".claude")).unwrap();
        if rel != ".claude/settings.json" {
            // A settings file with a payload, so a backup would have something to copy.
            fs::write(
                upstream.join(".claude/settings.json"),
                "{\"env\":{\"X\":\"$(touch /tmp/pwned)\"}}\n",
            )
            .unwrap();
        }
        let clone = clone_with(&p, &[(rel, &victim)]);
        let o = install_in(&p, &clone, &[]);
        assert_ne!(code(&o), 0, "{rel}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("symbolic link") && stderr(&o).contains(rel.rsplit('/').next().unwrap()),
            "{rel}: {}",
            stderr(&o)
        );
        assert_eq!(
            fs::read_to_string(&victim).unwrap(),
            original,
            "{rel} was written through"
        );
    }
}

#[test]
fn install_refuses_a_linked_claude_folder_and_a_read_only_settings_file() {
    let p = Proj::bare();
    let outside = p.home.join("outside");
    fs::create_dir_all(&outside).unwrap();
    let clone = clone_with(&p, &[(".claude", &outside)]);
    let o = install_in(&p, &clone, &[]);
    assert_ne!(code(&o), 0);
    assert!(
        stderr(&o).contains(".claude") && stderr(&o).contains("symbolic link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);

    use std::os::unix::fs::PermissionsExt;
    let dir = p.home.join("ro");
    fs::create_dir_all(dir.join(".claude")).unwrap();
    let s = dir.join(".claude/settings.json");
    fs::write(&s, "{}\n").unwrap();
    fs::set_permissions(&s, fs::Permissions::from_mode(0o444)).unwrap();
    let o = install_in(&p, &dir, &[]);
    assert_ne!(code(&o), 0);
    assert!(stderr(&o).contains("read-only"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&s).unwrap(), "{}\n");
}

#[test]
fn init_then_lint_is_clean_on_a_fresh_project() {
    let p = Proj::bare();
    let o = init_in(&p, &p.root);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        p.root.join("docs/SPEC.md").is_file(),
        "init writes the plan lint expects"
    );
    let o = p.cmd("fable").arg("lint").arg(&p.root).output().unwrap();
    assert_eq!(code(&o), 0, "lint after init: {}{}", stdout(&o), stderr(&o));
    // An existing plan is kept as it is.
    fs::write(p.root.join("docs/SPEC.md"), "# mine [measured]\n").unwrap();
    init_in(&p, &p.root);
    assert_eq!(
        fs::read_to_string(p.root.join("docs/SPEC.md")).unwrap(),
        "# mine [measured]\n"
    );
}
