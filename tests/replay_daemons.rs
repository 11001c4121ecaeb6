//! Replay kills everything it started: 17 ways a command can daemonise (the group-leaving
//! ones — `setsid`, `setsid -f`, `setpgid` from Python and Perl, `timeout`, double fork +
//! `setsid` — outlived the old process-group kill), each cited on a closed card whose
//! logged run passed, replayed through the real Stop hook with a short timeout. After the
//! hook returns, every process the command started must be gone (a zombie counts as gone).
//! Survivors found are killed, so a failing run leaves no daemons behind.
#![cfg(target_os = "linux")]

mod common_discipline;
use common_discipline::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// The long-lived process: writes its own pid to `$1`, stops itself when `$2` is `stop`,
/// then becomes `sleep 30` (same pid, same folder).
const DAEMON: &str = "echo $$ > \"$1\"\n[ \"$2\" = stop ] && kill -STOP $$\nexec sleep 30\n";
/// The per-command replay timeout, seconds.
const TIMEOUT: &str = "1.5";

struct Variant {
    name: &'static str,
    /// The command, with `{p}` for the pid file's stem (one per variant, so several can
    /// share a project) and `{py}` for a Python interpreter.
    template: &'static str,
    /// Pid files it writes besides `{p}.pid` (stems).
    extra: &'static [&'static str],
    /// Whether its replay passes (else it runs past the timeout).
    passes: bool,
    needs: &'static [&'static str],
}

/// Waits until the daemon wrote its pid, so the replay cannot end before it exists.
const W: &str = "until [ -s {p}.pid ]; do sleep 0.02; done";

fn variants() -> Vec<Variant> {
    let v = |name, template, passes, needs| Variant {
        name,
        template,
        extra: &[],
        passes,
        needs,
    };
    vec![
        v("plain_background", "sh ./d.sh {p}.pid & W", true, &[]),
        v("nohup", "nohup sh ./d.sh {p}.pid >/dev/null 2>&1 & W", true, &["nohup"]),
        v("setsid", "setsid sh ./d.sh {p}.pid >/dev/null 2>&1 & W", true, &["setsid"]),
        v("setsid_fork", "setsid -f sh ./d.sh {p}.pid >/dev/null 2>&1; W", true, &["setsid"]),
        // `true &&`: a backticked span starting with `(` is not a citation to the ledger.
        v(
            "double_fork_setsid",
            "true && ( ( setsid sh ./d.sh {p}.pid >/dev/null 2>&1 & ) & ); W",
            true,
            &["setsid"],
        ),
        v("nested_sh_background", "sh -c 'sh ./d.sh {p}.pid &' & W", true, &[]),
        v("disown", "bash -c 'sh ./d.sh {p}.pid >/dev/null 2>&1 & disown'; W", true, &["bash"]),
        v(
            "python_fork_setsid",
            "{py} -c 'import os,sys; os.fork() and sys.exit(0); os.setsid(); os.execvp(\"sh\", [\"sh\", \"./d.sh\", \"{p}.pid\"])' >/dev/null 2>&1; W",
            true,
            &["python3"],
        ),
        v(
            "python_setpgid",
            "{py} -c 'import os,sys; os.fork() and sys.exit(0); os.setpgid(0, 0); os.execvp(\"sh\", [\"sh\", \"./d.sh\", \"{p}.pid\"])'; W",
            true,
            &["python3"],
        ),
        v(
            "perl_setpgrp",
            "perl -e 'fork and exit; setpgrp(0, 0); exec \"sh\", \"./d.sh\", \"{p}.pid\"'; W",
            true,
            &["perl"],
        ),
        v(
            "perl_posix_setsid",
            "perl -MPOSIX -e 'fork and exit; POSIX::setsid(); exec \"sh\", \"./d.sh\", \"{p}.pid\"' >/dev/null 2>&1; W",
            true,
            &["perl"],
        ),
        v(
            "ignores_term_past_timeout",
            "setsid sh -c 'trap \"\" TERM HUP INT; exec sh ./d.sh {p}.pid' >/dev/null 2>&1 & W; trap '' TERM; sleep 30",
            false,
            &["setsid"],
        ),
        v("exec_past_timeout", "exec sh ./d.sh {p}.pid", false, &[]),
        v("holds_stdout", "echo started; setsid sh ./d.sh {p}.pid & W", true, &["setsid"]),
        v(
            "double_fork_closed_stdio",
            "true && ( setsid sh -c 'exec 0<&- 1>&- 2>&-; exec sh ./d.sh {p}.pid' & ); W",
            true,
            &["setsid"],
        ),
        Variant {
            extra: &["{p}t"],
            ..v(
                "timeout_background",
                "timeout 100 sh ./d.sh {p}.pid & echo $! > {p}t.pid; W",
                true,
                &["timeout"],
            )
        },
        v("stopped_itself", "setsid sh ./d.sh {p}.pid stop >/dev/null 2>&1 & W", true, &["setsid"]),
    ]
}

/// A real Python interpreter (a pyenv shim does not work under the test's private HOME).
fn python() -> Option<String> {
    let o = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    let exe = String::from_utf8_lossy(&o.stdout).trim().to_string();
    (o.status.success() && !exe.is_empty()).then_some(exe)
}

fn have(tool: &str) -> bool {
    if tool == "python3" {
        return python().is_some();
    }
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

impl Variant {
    fn command(&self, stem: &str) -> String {
        self.template
            .replace(" W", &format!(" {W}"))
            .replace("{p}", stem)
            .replace("{py}", &python().unwrap_or_else(|| "python3".into()))
    }

    fn pid_files(&self, stem: &str) -> Vec<String> {
        let mut v = vec![format!("{stem}.pid")];
        v.extend(self.extra.iter().map(|e| format!("{}.pid", e.replace("{p}", stem))));
        v
    }

    fn missing(&self) -> Option<&'static str> {
        self.needs.iter().copied().find(|t| !have(t))
    }
}

fn replay_ledger(cites: &[String]) -> String {
    let mut s = String::from("REPLAY: on\n");
    for (i, c) in cites.iter().enumerate() {
        s.push_str(&format!("- [x] {}. card -- evidence: `{c}` -> passed\n", i + 1));
    }
    s
}

fn project(cmds: &[String]) -> Proj {
    let p = Proj::new();
    p.write("d.sh", DAEMON);
    p.ledger(&replay_ledger(cmds));
    // Logged with a test summary in their output: replay re-runs checks only.
    let root = p.root.to_string_lossy().into_owned();
    for c in cmds {
        let payload = serde_json::json!({"session_id":"s","cwd":root,"hook_event_name":"PostToolUse","tool_name":"Bash",
            "tool_input":{"command":c},"tool_response":{"stdout":"Ran 1 test in 0.001s\n\nOK\n","stderr":"","interrupted":false}});
        assert_eq!(code(&p.hook("fable-evidence", payload)), 0);
    }
    p.trust();
    p
}

/// Whether `pid` is a live process of this test (its folder is the project's: a pid
/// reused by someone else's process is not ours to judge or kill).
fn survives(pid: i32, root: &Path) -> bool {
    !process_gone(pid) && std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == root)
}

/// The pids the command wrote that are still alive right after the hook returned (the
/// reaper waits for every death before it returns), and the files never written. A
/// survivor still alive a second later is a real daemon (not one still dying): the
/// message says which; all are killed.
fn survivors(p: &Proj, files: &[String]) -> (Vec<i32>, Vec<String>) {
    let mut alive = Vec::new();
    let mut missing = Vec::new();
    for f in files {
        match std::fs::read_to_string(p.root.join(f))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            Some(pid) if survives(pid, &p.root) => alive.push(pid),
            Some(_) => {}
            None => missing.push(f.clone()),
        }
    }
    if !alive.is_empty() {
        std::thread::sleep(Duration::from_secs(1));
        let lasting: Vec<i32> = alive.iter().copied().filter(|&pid| survives(pid, &p.root)).collect();
        eprintln!("survivors right after the replay: {alive:?}; still alive 1 s later: {lasting:?}");
        for pid in lasting {
            // SAFETY: kill(2) with integers only; `survives` checked it is our daemon.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    (alive, missing)
}

fn check(name: &str) {
    let all = variants();
    let v = all.iter().find(|v| v.name == name).unwrap();
    if let Some(tool) = v.missing() {
        eprintln!("skipped {name}: {tool} is not installed");
        return;
    }
    let cmd = v.command("d");
    let p = project(std::slice::from_ref(&cmd));
    let t = Instant::now();
    let o = p.stop_env(&[("FABLE_REPLAY_TIMEOUT", TIMEOUT)]);
    let took = t.elapsed();
    let (alive, missing) = survivors(&p, &v.pid_files("d"));
    assert!(alive.is_empty(), "{name}: {alive:?} outlived the replay of `{cmd}`");
    assert!(
        missing.is_empty(),
        "{name}: the daemon never wrote {missing:?}: {}",
        said(&o)
    );
    assert_eq!(stop_code(&o), if v.passes { 0 } else { 2 }, "{name}: {}", said(&o));
    if !v.passes {
        assert!(said(&o).contains("timed out after 1.5s"), "{name}: {}", said(&o));
    }
    assert!(took < Duration::from_secs(8), "{name}: the Stop hook took {took:?}");
}

#[test]
fn plain_background() {
    check("plain_background");
}
#[test]
fn nohup() {
    check("nohup");
}
#[test]
fn setsid() {
    check("setsid");
}
#[test]
fn setsid_fork() {
    check("setsid_fork");
}
#[test]
fn double_fork_setsid() {
    check("double_fork_setsid");
}
#[test]
fn nested_sh_background() {
    check("nested_sh_background");
}
#[test]
fn disown() {
    check("disown");
}
#[test]
fn python_fork_setsid() {
    check("python_fork_setsid");
}
#[test]
fn python_setpgid() {
    check("python_setpgid");
}
#[test]
fn perl_setpgrp() {
    check("perl_setpgrp");
}
#[test]
fn perl_posix_setsid() {
    check("perl_posix_setsid");
}
#[test]
fn ignores_term_past_timeout() {
    check("ignores_term_past_timeout");
}
#[test]
fn exec_past_timeout() {
    check("exec_past_timeout");
}
#[test]
fn holds_stdout() {
    check("holds_stdout");
}
#[test]
fn double_fork_closed_stdio() {
    check("double_fork_closed_stdio");
}
#[test]
fn timeout_background() {
    check("timeout_background");
}
#[test]
fn stopped_itself() {
    check("stopped_itself");
}

/// Every variant has a test above, and together through `fable replay`: one project,
/// one pid file each, 0 survivors, and a daemon holding the pipe does not hold the replay.
#[test]
fn all_variants_through_fable_replay() {
    let all: Vec<Variant> = variants().into_iter().filter(|v| v.missing().is_none()).collect();
    assert!(all.len() >= 12, "too few tools to run the variants here");
    let stems: Vec<String> = (0..all.len()).map(|i| format!("v{i}")).collect();
    let cmds: Vec<String> = all.iter().zip(&stems).map(|(v, s)| v.command(s)).collect();
    let p = project(&cmds);
    let t = Instant::now();
    let o = p
        .cmd("fable")
        .env("FABLE_REPLAY_TIMEOUT", TIMEOUT)
        .args(["replay", "--json"])
        .output()
        .unwrap();
    let took = t.elapsed();
    let files: Vec<String> = all.iter().zip(&stems).flat_map(|(v, s)| v.pid_files(s)).collect();
    let (alive, missing) = survivors(&p, &files);
    assert!(alive.is_empty(), "{} survivors: {alive:?}", alive.len());
    assert!(missing.is_empty(), "never written: {missing:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), all.len(), "{v}");
    for (r, var) in results.iter().zip(&all) {
        assert_eq!(r["passed"], var.passes, "{}: {r}", var.name);
        assert_eq!(r["ran"].as_str(), r["cmd"].as_str(), "{}", var.name);
    }
    let timeouts = all.iter().filter(|v| !v.passes).count() as f64;
    let bound = Duration::from_secs_f64(timeouts * 1.5 + 1.0 * all.len() as f64);
    assert!(took < bound, "fable replay took {took:?} (bound {bound:?})");
    eprintln!("{} variants, 0 survivors, fable replay took {took:?}", all.len());
}
