//! The freshness watcher under the real Claude Code CLI (scripted mock API), in a git
//! project of 2,100 files — big enough that the evidence hook starts a watcher after a
//! pass. The session is not held up by it; it vouches for a pass when only an ignored
//! log was written after it (the close guard then never lists the files itself); and it
//! never vouches after `sed -i`: the stop is blocked, naming the file, as without it.

mod support;
use std::path::{Path, PathBuf};
use support::codex::{self, CodexSession};
use support::e2e::calc::*;
use support::e2e::*;
use support::harness::{available, Outcome, Session};

/// calc.py, its test, 2,100 more tracked files, one open card; committed.
fn session(name: &str) -> Session {
    Session::new(name)
        .file(".fable/LEDGER.md", OPEN)
        .file(".gitignore", "*.log\n")
        .file("calc.py", CALC)
        .file("test_calc.py", TEST)
        .pre("mkdir -p pad && for i in $(seq 1 2100); do echo $i > pad/f$i.txt; done")
        .pre("git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init")
}

/// Files of the session's snapshot folder whose names end in `ext`.
fn state_files(o: &Outcome, ext: &str) -> Vec<String> {
    files_in(&o.state(), ext)
}

fn files_in(state: &Path, ext: &str) -> Vec<String> {
    let trees = state.join("trees");
    let mut out = Vec::new();
    for d in std::fs::read_dir(&trees).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.ends_with(ext) {
                out.push(name);
            }
        }
    }
    out
}

/// The sockets listening in `state` once they are `want` (or after `secs` seconds): a
/// watcher starts a moment after its pass, and exits a moment after a change.
fn sockets_become(state: &Path, want: &[String], secs: u64) -> Vec<String> {
    let start = std::time::Instant::now();
    while files_in(state, ".sock") != want && start.elapsed() < std::time::Duration::from_secs(secs) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    files_in(state, ".sock")
}

/// Removes the project and checks its watchers go: they exit with the folder they watch,
/// instead of idling on for half an hour.
fn assert_watchers_end(proj: &PathBuf, state: &Path) {
    std::fs::remove_dir_all(proj).unwrap();
    assert_eq!(
        sockets_become(state, &[], 5),
        Vec::<String>::new(),
        "no watcher listens any more"
    );
}

#[test]
fn a_watched_pass_stays_fresh_through_an_ignored_log() {
    let Some(claude) = available() else { return };
    let o = session("watch-honest")
        .bash(RUN)
        .bash("sleep 2")
        .bash("echo log > run.log")
        .bash(&close_card())
        .text("All done: all tests pass.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 5, "allowed at once: {sent:#?}\n{}", o.debug());
    assert!(result(&o).contains("All done: all tests pass."), "{}", result(&o));
    // The hook started a watcher for the pass's tree…
    let pass = o
        .evidence()
        .into_iter()
        .find(|r| r["cmd"] == RUN)
        .expect("the pass is logged");
    let tree = pass["tree"].as_str().expect("the pass carries its tree").to_string();
    assert_eq!(state_files(&o, ".wlock"), vec![format!("{tree}.wlock")]);
    // …and it answered: the new log moved the root folder, so a stop that listed the
    // files itself would have saved the folders' new stats beside the snapshot.
    assert_eq!(state_files(&o, ".moved"), Vec::<String>::new());
    assert_eq!(state_files(&o, ".sock"), vec![format!("{tree}.sock")], "still watching");
    // `fable status` says so (the session's HOME names its state).
    let status = std::process::Command::new(support::harness::bin_dir().join("fable"))
        .args(["status", "--json"])
        .current_dir(o.proj())
        .env("HOME", o.state().ancestors().nth(3).unwrap())
        .env_remove("XDG_STATE_HOME")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(v["watched_tree"], tree, "{v}");
    std::fs::write(o.proj().join("calc.py"), "def add(a, b):\n    return b + a\n").unwrap();
    assert_eq!(
        sockets_become(&o.state(), &[], 5),
        Vec::<String>::new(),
        "an edit ends the watcher"
    );
    assert_watchers_end(&o.proj(), &o.state());
}

#[test]
fn a_watched_pass_is_stale_after_sed_and_the_stop_names_the_file() {
    let Some(claude) = available() else { return };
    let o = session("watch-sed")
        .bash(RUN)
        .bash("sleep 2")
        .bash("sed -i 's/a + b/a - b/' calc.py")
        .bash(&close_card())
        .text("All done.")
        .bash("sed -i 's/a - b/a + b/' calc.py")
        .bash(RUN)
        .text("Done after the rerun.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 8, "one block, then allowed: {sent:#?}\n{}", o.debug());
    assert!(
        sent[5].contains("calc.py changed after it: run it again"),
        "{}",
        sent[5]
    );
    assert!(result(&o).contains("Done after the rerun."), "{}", result(&o));
    // The first pass's watcher saw the sed and left; the rerun's watches on.
    let trees: Vec<String> = o
        .evidence()
        .iter()
        .filter(|r| r["cmd"] == RUN)
        .filter_map(|r| r["tree"].as_str().map(str::to_string))
        .collect();
    assert_eq!(trees.len(), 2, "two passes with their trees");
    // (The rerun's may still be starting: the session ended right after it.)
    let want = vec![format!("{}.sock", trees[1])];
    assert_eq!(sockets_become(&o.state(), &want, 10), want);
    assert_watchers_end(&o.proj(), &o.state());
}

/// The same under the real Codex CLI: the hook's watcher does not hold Codex up, vouches
/// through an ignored log, and ends with the project.
#[test]
fn codex_a_watched_pass_stays_fresh_through_an_ignored_log() {
    let Some(codex) = codex::available() else { return };
    let o = CodexSession::new("watch-honest")
        .known_model()
        .file(".fable/LEDGER.md", OPEN)
        .file(".gitignore", "*.log\n")
        .file("calc.py", CALC)
        .file("test_calc.py", TEST)
        .pre("mkdir -p pad && for i in $(seq 1 2100); do echo $i > pad/f$i.txt; done")
        .pre("git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init")
        .shell(RUN)
        .shell("sleep 2")
        .shell("echo log > run.log")
        .shell(&close_card())
        .text("All done: all tests pass.")
        .text("SHOULD NOT BE REACHED")
        .run(&codex);
    assert_eq!(o.rc, 0, "{}", o.debug());
    assert_eq!(
        o.last_message(),
        "All done: all tests pass.",
        "allowed at once: {}",
        o.debug()
    );
    let pass = o
        .evidence()
        .into_iter()
        .find(|r| r["cmd"] == RUN)
        .expect("the pass is logged");
    let tree = pass["tree"].as_str().expect("the pass carries its tree").to_string();
    assert_eq!(files_in(&o.state(), ".wlock"), vec![format!("{tree}.wlock")]);
    assert_eq!(
        files_in(&o.state(), ".moved"),
        Vec::<String>::new(),
        "the watcher answered"
    );
    assert_watchers_end(&o.proj(), &o.state());
}
