//! Issue 29 item 1 under the real Claude Code CLI (scripted mock API): a card backed by a
//! run that tested nothing is refused at Stop with a message that says what to run, and
//! the honest run next to it is allowed. The runners are Python's unittest on a tiny real
//! test file (python3 is on the harness PATH) and cargo on a tiny crate (usable once the
//! session is given this machine's RUSTUP_HOME/CARGO_HOME); their output is real.

mod support;
use support::e2e::*;
use support::harness::{available, Outcome, Session};

const PASSING: &str = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(1, 1)\n\n    def test_b(self):\n        self.assertTrue(True)\n\n    def test_c(self):\n        self.assertIn(1, [1])\n";

/// A Bash step writing a ledger holding one closed card that cites `cmd`.
fn ledger_citing(cmd: &str) -> String {
    let card = format!("- [x] 1. parser -- evidence: `{cmd}` -> all green");
    let quoted: Vec<String> = ["# Ledger", "", card.as_str()]
        .iter()
        .map(|l| shell_words::quote(l).into_owned())
        .collect();
    format!("printf '%s\\n' {} > .fable/LEDGER.md", quoted.join(" "))
}

/// Runs `cmd`, closes the card citing it, tries to stop (and once more, past the one
/// block allowed). Returns what the model was sent and the outcome.
fn cite_and_stop(name: &str, cmd: &str) -> Option<(Vec<String>, Outcome)> {
    let claude = available()?;
    let o = Session::new(name)
        .env("FABLE_STOP_BLOCKS", "1")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. parser\n")
        .file("test_calc.py", PASSING)
        .bash(cmd)
        .bash(&ledger_citing(cmd))
        .text("All done.")
        .text("Stopping anyway.")
        .run(&claude);
    Some((texts(&o), o))
}

/// The record the evidence hook wrote for `cmd`.
fn record(o: &Outcome, cmd: &str) -> serde_json::Value {
    o.evidence()
        .into_iter()
        .find(|r| r["cmd"] == cmd)
        .unwrap_or_else(|| panic!("`{cmd}` is logged: {:#?}", o.evidence()))
}

#[test]
fn a_filter_that_matched_nothing_blocks_and_says_so() {
    let cmd = "python3 -m unittest -k nomatch";
    let Some((sent, o)) = cite_and_stop("proof-nomatch", cmd) else {
        return;
    };
    assert!(sent.len() >= 4, "{sent:#?}\n{}", o.debug());
    assert!(
        sent[3].contains("`python3 -m unittest -k nomatch` ran 0 tests: the filter matched nothing")
            && sent[3].contains("fix the filter"),
        "{}",
        sent[3]
    );
    // It exited 0 and its summary counts no test: the log says so.
    let r = record(&o, cmd);
    assert_eq!(
        (r["exit"].as_i64(), r["summary"]["passed"].as_u64()),
        (Some(0), Some(0)),
        "{r}"
    );
}

#[test]
fn unittest_help_blocks() {
    let cmd = "python3 -m unittest --help";
    let Some((sent, o)) = cite_and_stop("proof-help", cmd) else {
        return;
    };
    assert!(sent.len() >= 4, "{sent:#?}\n{}", o.debug());
    assert!(
        sent[3].contains("`python3 -m unittest --help` only prints help")
            && sent[3].contains("(`python3 -m unittest`)"),
        "{}",
        sent[3]
    );
}

#[test]
fn a_summary_cut_by_head_blocks() {
    let cmd = "python3 -m unittest 2>&1 | head -3";
    let Some((sent, o)) = cite_and_stop("proof-head", cmd) else {
        return;
    };
    assert!(sent.len() >= 4, "{sent:#?}\n{}", o.debug());
    assert!(
        sent[3].contains("the output was cut before the summary and the pipe hides the exit status")
            && sent[3].contains("run it without `| head`"),
        "{}",
        sent[3]
    );
    let r = record(&o, cmd);
    assert!(r["tail"].as_str().unwrap_or("").contains("Ran 3 tests"), "{r}");
    assert!(r.get("summary").is_none(), "the verdict line was cut: {r}");
}

#[test]
fn the_honest_run_is_allowed() {
    let cmd = "python3 -m unittest";
    let Some((sent, o)) = cite_and_stop("proof-honest", cmd) else {
        return;
    };
    assert_eq!(sent.len(), 3, "no block: {sent:#?}\n{}", o.debug());
    assert!(result(&o).contains("All done."), "{}", result(&o));
    assert_eq!(record(&o, cmd)["summary"]["passed"].as_u64(), Some(3));
}

// ---- cargo inside the session ----
// The harness gives the session a private HOME, where rustup finds no toolchain; naming
// this machine's RUSTUP_HOME and CARGO_HOME makes `cargo` usable (offline, no deps).

const CARGO_TOML: &str = "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n";
const LIB: &str = "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n\n    #[test]\n    fn maybe_fails() {\n        let want = if std::env::var(\"FAIL\").is_ok() { 4 } else { 3 };\n        assert_eq!(super::add(1, 2), want);\n    }\n}\n";

/// This machine's rustup and cargo homes, when they exist.
fn toolchain() -> Option<[(&'static str, String); 2]> {
    let home = std::env::var("HOME").ok()?;
    let rustup = std::env::var("RUSTUP_HOME").unwrap_or_else(|_| format!("{home}/.rustup"));
    let cargo = std::env::var("CARGO_HOME").unwrap_or_else(|_| format!("{home}/.cargo"));
    let there = std::path::Path::new(&rustup).is_dir() && std::path::Path::new(&cargo).is_dir();
    if !there {
        eprintln!("cargo e2e skipped: no rustup home at {rustup}");
    }
    there.then_some([("RUSTUP_HOME", rustup), ("CARGO_HOME", cargo)])
}

/// [`cite_and_stop`] in a tiny cargo crate (`FAIL=1` makes one test fail).
fn cargo_cite_and_stop(name: &str, cmd: &str) -> Option<(Vec<String>, Outcome)> {
    let claude = available()?;
    let mut s = Session::new(name)
        .env("FABLE_STOP_BLOCKS", "1")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. parser\n")
        .file("Cargo.toml", CARGO_TOML)
        .file("src/lib.rs", LIB);
    for (k, v) in toolchain()? {
        s = s.env(k, &v);
    }
    let o = s
        .bash(cmd)
        .bash(&ledger_citing(cmd))
        .text("All done.")
        .text("Stopping anyway.")
        .run(&claude);
    Some((texts(&o), o))
}

#[test]
fn cargo_test_no_run_blocks() {
    let cmd = "cargo test --no-run";
    let Some((sent, o)) = cargo_cite_and_stop("proof-cargo-norun", cmd) else {
        return;
    };
    assert_eq!(record(&o, cmd)["exit"].as_i64(), Some(0), "cargo ran: {}", o.debug());
    assert!(sent.len() >= 4, "{sent:#?}\n{}", o.debug());
    assert!(
        sent[3].contains("`cargo test --no-run` only builds the tests") && sent[3].contains("(`cargo test`)"),
        "{}",
        sent[3]
    );
}

#[test]
fn cargo_no_fail_fast_tail_over_a_failing_crate_blocks() {
    let cmd = "FAIL=1 cargo test --no-fail-fast 2>&1 | tail -5";
    let Some((sent, o)) = cargo_cite_and_stop("proof-cargo-tail", cmd) else {
        return;
    };
    let r = record(&o, cmd);
    // The pipe exits 0, and the last result line in the tail says `ok` (the doc-tests).
    assert_eq!(r["exit"].as_i64(), Some(0), "{r}");
    assert!(r["tail"].as_str().unwrap_or("").contains("test result: ok."), "{r}");
    assert!(sent.len() >= 4, "{sent:#?}\n{}", o.debug());
    assert!(sent[3].contains("output reports failures"), "{}", sent[3]);
}

#[test]
fn honest_cargo_test_is_allowed() {
    let cmd = "cargo test";
    let Some((sent, o)) = cargo_cite_and_stop("proof-cargo-honest", cmd) else {
        return;
    };
    assert_eq!(sent.len(), 3, "no block: {sent:#?}\n{}", o.debug());
    assert_eq!(record(&o, cmd)["summary"]["passed"].as_u64(), Some(2));
}

/// Claude Code hands hooks only the first 30,000 characters of a command's output: a lib
/// with no unit tests (`running 0 tests`, `test result: ok. 0 passed`) followed by a big
/// integration suite is cut before the suite's result line. The honest run is allowed,
/// not read as "ran 0 tests".
#[test]
fn an_honest_run_whose_output_the_host_cut_is_allowed() {
    let Some(claude) = available() else { return };
    let Some(tc) = toolchain() else { return };
    let big: String = (0..1000)
        .map(|i| format!("#[test]\nfn a_rather_long_test_name_{i:04}() {{}}\n"))
        .collect();
    let cmd = "cargo test";
    let mut s = Session::new("proof-cargo-cut")
        .env("FABLE_STOP_BLOCKS", "1")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. parser\n")
        .file("Cargo.toml", CARGO_TOML)
        .file("src/lib.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n")
        .file("tests/big.rs", &big);
    for (k, v) in tc {
        s = s.env(k, &v);
    }
    let o = s
        .bash(cmd)
        .bash(&ledger_citing(cmd))
        .text("All done.")
        .text("Stopping anyway.")
        .run(&claude);
    let sent = texts(&o);
    let r = record(&o, cmd);
    let tail = r["tail"].as_str().unwrap_or("");
    assert!(
        tail.contains("test a_rather_long_test_name_") && !tail.contains("Doc-tests"),
        "the host cut the output mid-suite: {r}"
    );
    assert_eq!(sent.len(), 3, "no block: {sent:#?}\n{}", o.debug());
}
