//! A watcher that vouches, at Stop, that the project's files are still as a pass left them
//! — so the close guard need not `stat` every file.
//!
//! Why: freshness compares every counted file's stats with the pass's snapshot
//! ([`crate::evidence::tree_check`]). That is one `fstatat` per file, kernel time: on
//! 10,000 files 18 ms of wall clock here, more than `git status` spends on the same tree
//! (29 ms) only because it is tuned; no design that looks at every file at Stop meets a
//! 10 ms budget. So the looking moves to the time between the pass and the stop, where
//! nobody waits.
//!
//! How: after the evidence hook logged a passing run on at least [`MIN_FILES`] counted
//! files, it starts `fable-evidence --fable-watch ROOT STORE TREE` in its own process
//! group, stdio closed ([`spawn`]). The watcher ([`crate::evidence::tree_watch_serve`],
//! Linux `inotify`) watches every folder the snapshot walked, *then* runs the close
//! guard's own full check once (a change between the pass and the watches shows there),
//! and listens on `STORE/TREE.sock`. The close guard asks ([`vouches`]): the watcher first
//! reads every event the kernel queued — a change made before the stop began is queued by
//! then — and answers `same TREE` only when none touched a counted file (a stored file's
//! stats moved, or a new name git does not ignore appeared). On anything else it closes
//! the socket and exits, and the guard does the full check as before, which names the
//! change. No answer, a slow answer (over [`ASK_TIMEOUT`]), no watcher, an answer from a
//! process that is not this installation's `fable-evidence` run by this user: the full
//! check. A watcher never makes a stop pass that the full check would block; at worst it
//! is absent and the stop is as slow as before.
//!
//! Bounded: one watcher per project and tree (a lock), none for small projects, none
//! when `FABLE_WATCH=off`; it exits when its tree changes, when another tree's watcher
//! of the project starts, when the snapshot is pruned, when the project folder goes, and
//! after [`IDLE`] without a question. Its socket sits in the user's state folder (0700),
//! which the log guard already keeps the agent's commands out of.

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

/// The first argument that makes `fable-evidence` a watcher instead of a hook.
pub const ARG: &str = "--fable-watch";

/// Fewer counted files than this and no watcher is started: the full check costs a few
/// ms at most (one `fstatat` per file, ~1–2 µs each).
pub const MIN_FILES: usize = 2_048;

/// How long the close guard waits for the watcher's answer before checking itself.
pub const ASK_TIMEOUT: Duration = Duration::from_millis(150);

/// A watcher with no question for this long exits (a later stop does the full check).
pub const IDLE: Duration = Duration::from_secs(30 * 60);

/// The binary the watcher must be: the evidence hook installed beside the asker.
/// (`evidence::logger::HOOK_NAME`, which starts it; named here, not used, as the logger
/// uses this file.)
const WATCHER_BIN: &str = "fable-evidence";

/// False when the user turned watchers off (`FABLE_WATCH=off|0|no`).
pub fn enabled(get: impl Fn(&str) -> Option<String>) -> bool {
    get("FABLE_WATCH").is_none_or(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "0" | "no"))
}

/// The watcher's socket, lock and the project's current-watcher note, in the snapshot
/// folder ([`crate::evidence::tree_store::dir`]).
pub fn socket_path(store: &Path, tree: &str) -> std::path::PathBuf {
    store.join(format!("{tree}.sock"))
}

/// Runs `f` with a name for `tree`'s socket that fits a socket address (108 bytes): the
/// path itself when short, else the same file through `/proc/self/fd/N/`, an open handle
/// on the snapshot folder (a deep `XDG_STATE_HOME` or a temporary `HOME` is often longer).
pub(crate) fn at_socket<T>(
    store: &Path,
    tree: &str,
    f: impl FnOnce(&Path) -> std::io::Result<T>,
) -> std::io::Result<T> {
    let full = socket_path(store, tree);
    if full.as_os_str().len() < 100 {
        return f(&full);
    }
    use std::os::fd::AsRawFd;
    let dir = std::fs::File::open(store)?;
    f(&Path::new(&format!("/proc/self/fd/{}", dir.as_raw_fd())).join(format!("{tree}.sock")))
}

pub(crate) fn lock_path(store: &Path, tree: &str) -> std::path::PathBuf {
    store.join(format!("{tree}.wlock"))
}

/// Names the tree whose watcher is the project's current one (older ones exit).
pub(crate) fn current_path(store: &Path) -> std::path::PathBuf {
    store.join("watching")
}

/// The question and the only answer that vouches.
pub(crate) fn question(tree: &str) -> String {
    format!("same? {tree}\n")
}

pub(crate) fn answer(tree: &str) -> String {
    format!("same {tree}\n")
}

/// Starts a watcher for the pass's `tree` of `files` counted files, unless one holds the
/// tree already, the project is small, watchers are off, or this is not Linux. Best
/// effort: a watcher that cannot start leaves the full check to the stop.
pub fn spawn(root: &Path, store: &Path, tree: &str, files: usize, get: impl Fn(&str) -> Option<String>) {
    if !cfg!(target_os = "linux") || files < MIN_FILES || !enabled(&get) || held(store, tree) {
        return;
    }
    let Ok(exe) = std::env::current_exe() else { return };
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    // Its own process group: a host that kills the hook's group on a timeout, or a
    // terminal's hangup, does not reach it. `process_group` keeps std on `posix_spawn`.
    let _ = Command::new(exe)
        .arg(ARG)
        .arg(root)
        .arg(store)
        .arg(tree)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
}

/// True when a watcher holds `tree`'s lock now.
fn held(store: &Path, tree: &str) -> bool {
    let Ok(f) = std::fs::File::open(lock_path(store, tree)) else {
        return false;
    };
    match f.try_lock() {
        Ok(()) => {
            let _ = f.unlock();
            false
        }
        Err(_) => true,
    }
}

/// True when this installation's watcher, run by this user on this project's `root` and
/// snapshot folder `store`, vouches that the files are as `tree` saw them. Anything else
/// — no watcher, a timeout, a stranger on the socket, a watcher of another folder (a copy
/// of the project as it was) — is false, and the caller checks the files itself.
pub fn vouches(store: &Path, root: &Path, tree: &str) -> bool {
    if !cfg!(target_os = "linux") || tree.len() != 32 || !tree.bytes().all(|b| b.is_ascii_hexdigit()) {
        return false;
    }
    let Ok(mut s) = at_socket(store, tree, |p| std::os::unix::net::UnixStream::connect(p)) else {
        return false;
    };
    if !peer_is_watcher(&s, &[ARG.as_ref(), root.as_os_str(), store.as_os_str(), tree.as_ref()]) {
        return false;
    }
    if s.set_read_timeout(Some(ASK_TIMEOUT)).is_err() || s.set_write_timeout(Some(ASK_TIMEOUT)).is_err() {
        return false;
    }
    if s.write_all(question(tree).as_bytes()).is_err() {
        return false;
    }
    let want = answer(tree);
    let mut got = Vec::with_capacity(want.len());
    let _ = (&mut s).take(want.len() as u64 + 1).read_to_end(&mut got);
    got == want.as_bytes()
}

/// The process at the other end runs as this user, is the `fable-evidence` binary beside
/// this one (same device and inode), not a look-alike listening on the path, and was
/// started with exactly `args` (after its own name).
#[cfg(target_os = "linux")]
fn peer_is_watcher(s: &std::os::unix::net::UnixStream, args: &[&std::ffi::OsStr]) -> bool {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::io::AsRawFd;
    let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for writes of the sizes given.
    let rc = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    // SAFETY: geteuid has no preconditions.
    if rc != 0 || cred.pid <= 0 || cred.uid != unsafe { libc::geteuid() } {
        return false;
    }
    let Some(mine) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join(WATCHER_BIN)))
        .and_then(|p| std::fs::metadata(p).ok())
    else {
        return false;
    };
    let same_bin = std::fs::metadata(format!("/proc/{}/exe", cred.pid))
        .is_ok_and(|m| m.dev() == mine.dev() && m.ino() == mine.ino());
    same_bin && std::fs::read(format!("/proc/{}/cmdline", cred.pid)).is_ok_and(|c| cmdline_is(&c, args))
}

/// True when a `/proc/PID/cmdline` (NUL-separated) is any program name and then exactly
/// `args`.
fn cmdline_is(c: &[u8], args: &[&std::ffi::OsStr]) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let mut got = c.split(|b| *b == 0);
    got.next().is_some() && args.iter().all(|a| got.next() == Some(a.as_bytes())) && got.all(|rest| rest.is_empty())
}

#[cfg(not(target_os = "linux"))]
fn peer_is_watcher(_: &std::os::unix::net::UnixStream, _: &[&std::ffi::OsStr]) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stranger_on_the_socket_does_not_vouch() {
        // A same-user process listening where the watcher would, answering what the watcher
        // answers: it is not the `fable-evidence` beside this binary, so no vouching.
        let t = tempfile::tempdir().unwrap();
        let tree = "0123456789abcdef0123456789abcdef";
        let l = std::os::unix::net::UnixListener::bind(socket_path(t.path(), tree)).unwrap();
        let h = std::thread::spawn(move || {
            if let Ok((mut c, _)) = l.accept() {
                let mut q = [0u8; 64];
                let _ = c.read(&mut q);
                let _ = c.write_all(answer(tree).as_bytes());
            }
        });
        assert!(!vouches(t.path(), t.path(), tree));
        h.join().unwrap();
        // No socket at all, or a name that is not a tree: no.
        assert!(!vouches(t.path(), t.path(), "fedcba9876543210fedcba9876543210"));
        assert!(!vouches(t.path(), t.path(), "../x"));
    }

    #[test]
    fn a_socket_deep_in_the_state_folder_is_reached() {
        let t = tempfile::tempdir().unwrap();
        let store = t.path().join("a".repeat(60)).join("b".repeat(60));
        std::fs::create_dir_all(&store).unwrap();
        let tree = "0123456789abcdef0123456789abcdef";
        assert!(socket_path(&store, tree).as_os_str().len() > 108);
        let l = at_socket(&store, tree, |p| std::os::unix::net::UnixListener::bind(p)).unwrap();
        assert!(socket_path(&store, tree).exists(), "bound where the full path names");
        let c = at_socket(&store, tree, |p| std::os::unix::net::UnixStream::connect(p));
        assert!(c.is_ok() && l.accept().is_ok());
    }

    #[test]
    fn only_a_watcher_of_this_root_and_store_counts() {
        use std::ffi::OsStr;
        let want = [OsStr::new(ARG), OsStr::new("/p"), OsStr::new("/s"), OsStr::new("t")];
        assert!(cmdline_is(b"/bin/fable-evidence\0--fable-watch\0/p\0/s\0t\0", &want));
        for other in [
            &b"/bin/fable-evidence\0--fable-watch\0/copy-of-p\0/s\0t\0"[..],
            b"/bin/fable-evidence\0--fable-watch\0/p\0/s\0t\0extra\0",
            b"/bin/fable-evidence\0--fable-watch\0/p\0/s\0",
            b"",
        ] {
            assert!(!cmdline_is(other, &want), "{}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn off_means_off() {
        assert!(enabled(|_| None));
        for v in ["off", "0", "no", " OFF "] {
            assert!(!enabled(|_| Some(v.to_string())), "{v}");
        }
        assert!(enabled(|_| Some("on".to_string())));
    }
}
