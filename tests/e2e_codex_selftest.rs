//! `fable selftest --host codex`'s checks (src/setup/selftest_codex*.rs) under the real
//! Codex CLI: green with the freshly built hooks, and red naming the hook when
//! `fable-close-guard` is missing from the bin dir.

mod support;
use fable::setup::selftest_codex_run::{binaries, checks};
use support::codex::available;
use support::harness::bin_dir;

fn work() -> std::path::PathBuf {
    tempfile::Builder::new()
        .prefix("fable-e2e-codex-selftest-")
        .tempdir()
        .unwrap()
        .keep()
}

#[test]
fn codex_selftest_is_green_with_the_built_hooks() {
    let Some(codex) = available() else { return };
    let bins = bin_dir();
    let started = std::time::Instant::now();
    let (all, isolation) = checks(&codex, &bins, &bins.join("fable"), &work()).expect("the session runs");
    eprintln!("took {:?}", started.elapsed());
    assert_eq!(all.len(), 6, "{all:#?}");
    assert!(all.iter().all(|c| c.ok), "{all:#?}\nisolation: {isolation}");
}

#[test]
fn codex_selftest_names_a_missing_close_guard() {
    let Some(codex) = available() else { return };
    let real = bin_dir();
    let partial = tempfile::tempdir().unwrap();
    for b in binaries().into_iter().filter(|b| *b != "fable-close-guard") {
        std::os::unix::fs::symlink(real.join(b), partial.path().join(b)).unwrap();
    }
    let (all, _) = checks(&codex, partial.path(), &real.join("fable"), &work()).expect("the session runs");
    let failed: Vec<_> = all.iter().filter(|c| !c.ok).collect();
    assert!(!failed.is_empty(), "{all:#?}");
    for c in &failed {
        assert_eq!(c.hook.as_deref(), Some("fable-close-guard"), "{c:?}");
    }
    assert!(
        all.iter().filter(|c| c.name.contains("logged with")).all(|c| c.ok),
        "fable-evidence still works: {all:#?}"
    );
}

/// The command a user types: `fable selftest --host codex --codex PATH --json`, through the
/// real `fable` binary — exit 0 and every check ok.
#[test]
fn the_command_line_dispatches_to_the_codex_selftest() {
    let Some(codex) = available() else { return };
    let out = std::process::Command::new(bin_dir().join("fable"))
        .args(["selftest", "--host", "codex", "--json", "--codex"])
        .arg(&codex)
        .output()
        .unwrap();
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    assert_eq!(doc["ok"], true, "{doc:#}");
    let checks = doc["checks"].as_array().unwrap();
    assert!(checks.len() >= 6 && checks.iter().all(|c| c["ok"] == true), "{doc:#}");
}
