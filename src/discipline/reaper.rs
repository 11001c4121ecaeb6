//! The reaper: when a replayed command is over — it exited, or its time ran out — nothing
//! it started may outlive it.
//!
//! A process group is not enough. A command leaves its group with `setsid`, `setsid -f`,
//! `setpgid` (Python, Perl), `timeout` (which makes its own group) or a double fork with
//! `setsid`; measured before this file existed, 7 of 15 such variants outlived the replay
//! timeout, some still holding the output pipe. So on Linux the replaying process becomes
//! a **child subreaper** ([`prepare`]) before it spawns: an orphaned descendant is then
//! re-parented to us instead of to init, and stays findable as a descendant. After the
//! command ([`sweep`]) the group is killed, then every descendant found by a scan of
//! `/proc/*/stat` (parent-pid chains rooted at our pid) is sent `SIGKILL` and reaped,
//! round after round, until none is left or [`SWEEP_BOUND`] passes. `SIGKILL` because
//! a process may ignore `SIGTERM` or have stopped itself (`SIGSTOP`): neither survives it.
//! The scan reads every `/proc/<pid>/stat` rather than `/proc/<pid>/task/<tid>/children`,
//! which only exists on kernels built with `CONFIG_PROC_CHILDREN` (not all are).
//!
//! **Scope.** [`Reap::Descendants`] kills every descendant of this process, not only the
//! ones the replay started: telling them apart is not possible in general (orphans lose
//! their lineage when re-parented, and pids are reused). That is right for the processes
//! that replay — the Stop hook and `fable replay` — which have no other children while a
//! replay runs; a caller that shares its process with children of its own (a test harness
//! running tests on parallel threads) uses [`Reap::Group`].
//!
//! **What still escapes.** Work handed to a process outside our tree (`systemd-run`,
//! `at`, an already running tmux server, `docker run -d`) and a new PID namespace. Between
//! a scan and its kill, a descendant that is not our child can exit and be reaped by its
//! own parent, and its pid be reused: the window is microseconds, and our own children
//! (which orphans become) cannot be reused before we reap them.
//!
//! On other unixes there is no subreaper: [`Reap::Descendants`] falls back to the group
//! kill, so a command that leaves its group can outlive the replay there.

use std::time::Duration;
#[cfg(target_os = "linux")]
use std::time::Instant;

/// How long [`sweep`] keeps finding and killing descendants before it gives up (a
/// process in uninterruptible sleep cannot die at once; a fork loop keeps making more).
pub const SWEEP_BOUND: Duration = Duration::from_secs(2);

/// Which processes a sweep may kill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reap {
    /// Only the command's process group.
    Group,
    /// The group, then every descendant of this process (Linux; elsewhere the group only).
    Descendants,
}

/// What a sweep did: for messages and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Swept {
    /// Distinct descendants sent `SIGKILL` (group members killed by the group kill
    /// before the scan are not counted).
    pub killed: usize,
    /// Descendants still present when the bound passed (0 when the sweep finished).
    pub left: usize,
}

/// One line of `/proc/<pid>/stat`, the fields the sweep needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proc {
    pub pid: i32,
    pub ppid: i32,
    /// `Z`: dead, waiting for its parent to reap it; signalling it does nothing.
    pub zombie: bool,
}

/// Parses `/proc/<pid>/stat`: `pid (comm) state ppid …`. The command name may hold
/// spaces and parentheses, so the fields after it are found from the **last** `)`.
pub fn parse_stat(text: &str) -> Option<Proc> {
    let open = text.find(" (")?;
    let close = text.rfind(')')?;
    let pid = text[..open].trim().parse().ok()?;
    let mut rest = text.get(close + 1..)?.split_whitespace();
    let state = rest.next()?;
    let ppid = rest.next()?.parse().ok()?;
    Some(Proc {
        pid,
        ppid,
        zombie: state == "Z",
    })
}

/// Every process whose parent chain reaches `root` (not `root` itself), parents before
/// their children. A chain that loops (a torn read of a changing table) ends.
pub fn descendants_of(root: i32, procs: &[Proc]) -> Vec<Proc> {
    let mut out: Vec<Proc> = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for p in procs.iter().filter(|p| p.ppid == parent && p.pid != root) {
            if !out.iter().any(|o| o.pid == p.pid) {
                out.push(*p);
                frontier.push(p.pid);
            }
        }
    }
    out
}

/// Readies this process to sweep with `reap`: for [`Reap::Descendants`] on Linux it
/// becomes a child subreaper (idempotent, and inherited by nothing: children do not get
/// it). Call before spawning. Returns whether orphans will now come to us.
pub fn prepare(reap: Reap) -> bool {
    #[cfg(target_os = "linux")]
    if reap == Reap::Descendants {
        // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes integer arguments only and
        // sets a flag on the calling process; no memory is read or written.
        return unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
    }
    let _ = reap;
    false
}

/// Kills a whole process group; a group already gone is not an error.
pub fn kill_group(pgid: u32) {
    if let Ok(p) = i32::try_from(pgid) {
        if p > 1 {
            // SAFETY: kill(2) with a negative pid signals the group; no memory is touched.
            unsafe {
                libc::kill(-p, libc::SIGKILL);
            }
        }
    }
}

/// After a command is over: kills its group (`pgid`), then, for [`Reap::Descendants`] on
/// Linux, every descendant of this process until none is left or `bound` passes. The
/// command's own `sh` must already have been waited for: this reaps any child of ours.
pub fn sweep(pgid: u32, reap: Reap, bound: Duration) -> Swept {
    kill_group(pgid);
    #[cfg(target_os = "linux")]
    if reap == Reap::Descendants {
        return sweep_descendants(bound);
    }
    let _ = (reap, bound);
    Swept::default()
}

#[cfg(target_os = "linux")]
fn sweep_descendants(bound: Duration) -> Swept {
    let me = std::process::id() as i32;
    let deadline = Instant::now() + bound;
    let mut killed: Vec<i32> = Vec::new();
    loop {
        reap_exited();
        let found = descendants_of(me, &scan_proc());
        if found.is_empty() {
            return Swept {
                killed: killed.len(),
                left: 0,
            };
        }
        for p in found.iter().filter(|p| !p.zombie) {
            // SAFETY: kill(2) takes integers only; a pid that has just exited is ESRCH.
            unsafe {
                libc::kill(p.pid, libc::SIGKILL);
            }
            if !killed.contains(&p.pid) {
                killed.push(p.pid);
            }
        }
        if Instant::now() >= deadline {
            return Swept {
                killed: killed.len(),
                left: found.len(),
            };
        }
        // A killed process takes a moment to exit, and its orphans to be re-parented.
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Reaps every child of ours that has exited, without blocking.
#[cfg(target_os = "linux")]
fn reap_exited() {
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) writes only the status integer we own; WNOHANG never blocks.
        let r = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if r <= 0 {
            return;
        }
    }
}

/// Every process in `/proc` (processes that vanish mid-scan are skipped).
#[cfg(target_os = "linux")]
fn scan_proc() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let name = e.ok()?.file_name();
        let name = name.to_str()?;
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        parse_stat(&std::fs::read_to_string(format!("/proc/{name}/stat")).ok()?)
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_awkward_names() {
        let p = parse_stat("4242 (sleep) S 17 4242 4242 0 -1 4194560 …").unwrap();
        assert_eq!(
            p,
            Proc {
                pid: 4242,
                ppid: 17,
                zombie: false
            }
        );
        let p = parse_stat("9 (a) b) (c) Z 3 9 9 0").unwrap();
        assert_eq!((p.pid, p.ppid, p.zombie), (9, 3, true));
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("12 (x) S"), None);
    }

    #[test]
    fn descendants_follow_parent_chains_only() {
        let p = |pid, ppid| Proc {
            pid,
            ppid,
            zombie: false,
        };
        // 1 ← 10 ← 11 ← 12 ; 10 ← 13 ; 1 ← 20 (a sibling of ours) ; 12 ↔ 30 loop junk.
        let table = [
            p(1, 0),
            p(10, 1),
            p(11, 10),
            p(12, 11),
            p(13, 10),
            p(20, 1),
            p(30, 12),
            p(12, 30),
        ];
        let mut d: Vec<i32> = descendants_of(10, &table).iter().map(|p| p.pid).collect();
        d.sort();
        assert_eq!(d, vec![11, 12, 13, 30]);
        assert!(descendants_of(20, &table).is_empty());
        // The root never counts itself, even through a loop back to it.
        assert!(!descendants_of(12, &table).iter().any(|p| p.pid == 12));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn stat_of_this_process_parses() {
        let me = std::fs::read_to_string("/proc/self/stat").unwrap();
        let p = parse_stat(&me).unwrap();
        assert_eq!(p.pid, std::process::id() as i32);
        assert!(!p.zombie);
    }
}
