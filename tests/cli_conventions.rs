//! Conventions every `fable` subcommand keeps for a person at a terminal.

mod common_discipline;
use common_discipline::*;
use std::io::Read;
use std::process::Stdio;

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let p = Proj::new();
    let lines: String = (0..3000)
        .map(|i| {
            format!(
                "{{\"v\":1,\"ts\":\"2026-01-01T00:00:00.000Z\",\"session\":\"s\",\"cwd\":\"/\",\"cmd\":\"echo {i} {}\",\"exit\":0,\"ok\":true,\"tail\":\"\"}}\n",
                "x".repeat(80)
            )
        })
        .collect();
    std::fs::write(p.fable().join("evidence.jsonl"), lines).unwrap();
    for args in [&["evidence", "show"][..], &["evidence", "show", "--json"][..]] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fable"))
            .args(args)
            .current_dir(&p.root)
            .env("HOME", &p.home)
            .env("XDG_STATE_HOME", p.state_home())
            .env("XDG_CONFIG_HOME", p.home.join("xdg-config"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
        drop(child.stdout.take()); // the reader goes away, like `| head -c 16`
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let status = child.wait().unwrap();
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        assert_ne!(status.code(), Some(101), "{args:?} panicked");
    }
}
