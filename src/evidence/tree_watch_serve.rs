//! The watcher itself, on Linux `inotify`: what it watches, what counts as a change, how
//! it answers. Why it exists and what it promises: [`crate::evidence::tree_watch`].
//!
//! It judges a change as the full listing would ([`crate::evidence::tree::take`]): a
//! stored file whose stats moved or that went; a new name, not excluded, that git does
//! not ignore (outside git: any new name not excluded); a folder holding counted files
//! moved or removed. Names git ignores (a test's log) and excluded folders (`target/`,
//! `__pycache__/`) are not changes, and a new folder git does not ignore is watched from
//! then on, its entries judged as new names. Anything it cannot judge — a full event
//! queue, a folder it cannot watch — it treats as a change.

use crate::evidence::tree::{excluded, stat_all, Stat, EXCLUDED_DIRS};
use crate::evidence::tree_check::{Now, Verdict};
use crate::evidence::tree_store;
use crate::evidence::tree_watch::{answer, at_socket, current_path, lock_path, question, socket_path, ARG, IDLE};
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::time::{Duration, Instant};

/// What a watched folder reports: its entries' writes, metadata, creation, removal and
/// renames, and its own removal or move.
const MASK: u32 = libc::IN_MODIFY
    | libc::IN_ATTRIB
    | libc::IN_CLOSE_WRITE
    | libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_ONLYDIR
    | libc::IN_DONT_FOLLOW
    | libc::IN_EXCL_UNLINK;

/// How often an idle watcher looks whether it is still wanted.
const TICK: Duration = Duration::from_secs(15);

/// A change to the counted files was seen (or cannot be ruled out): stop vouching.
#[derive(Debug)]
pub(crate) struct Changed;

/// Runs the watcher when `fable-evidence` was started as one ([`ARG`]); `None` for a hook
/// run. Never fails loudly: its stdio is closed.
pub fn main_if_asked() -> Option<u8> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(std::ffi::OsStr::new(ARG)) {
        return None;
    }
    let (Some(root), Some(store), Some(tree)) = (args.next(), args.next(), args.next()) else {
        return Some(2);
    };
    let get = |k: &str| std::env::var(k).ok();
    serve(Path::new(&root), Path::new(&store), &tree.to_string_lossy(), get);
    Some(0)
}

/// Watches `root` for tree `tree` of the snapshot folder `store`, answering the close
/// guard until the files change. Returns when it stops.
pub fn serve(root: &Path, store: &Path, tree: &str, get: impl Fn(&str) -> Option<String>) {
    // SAFETY: plain libc calls with constant arguments. Nothing of the hook's host is ours
    // to hold open (its pipes would keep it waiting), and a terminal's hangup is not ours.
    unsafe {
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
        libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
    }
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(lock) = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(lock_path(store, tree))
    else {
        return;
    };
    if lock.try_lock().is_err() {
        return; // this tree has its watcher
    }
    let Some(bytes) = tree_store::read(store, tree) else {
        return;
    };
    let Some((view, _)) = tree_store::view(&bytes).filter(|(_, h)| h == tree) else {
        return;
    };
    // Watches are the user's, shared with editors and file watchers: take at most a
    // quarter of them, or none (the stop then compares the files itself).
    if view.dirs.len() > watch_budget() {
        return;
    }
    let Some(mut w) = Watcher::new(root, &view.files) else {
        return;
    };
    for (d, _) in &view.dirs {
        if w.add(d).is_err() {
            return;
        }
    }
    // Every counted file sits in a watched folder, or nothing can be vouched for.
    let watched: HashSet<&str> = w.wds.values().map(String::as_str).collect();
    if !view.files.iter().all(|(p, _)| watched.contains(parent(p))) {
        return;
    }
    // The project's watcher from now on: an older tree's exits at its next tick.
    let _ = crate::atomic_file::write(
        &current_path(store),
        tree.as_bytes(),
        crate::atomic_file::Perms::Private,
        false,
    );
    // The watches stand: a change from here on is queued. One before is seen here.
    if Now::new(root, Some(store.to_path_buf()))
        .with_env(&get)
        .unwatched()
        .verdict(tree)
        != Verdict::Same
    {
        return;
    }
    let sock = socket_path(store, tree);
    let _ = std::fs::remove_file(&sock);
    let Ok(listener) = at_socket(store, tree, |p| UnixListener::bind(p)) else {
        return;
    };
    if listener.set_nonblocking(true).is_ok() {
        w.serve(&listener, store, tree);
    }
    let _ = std::fs::remove_file(&sock);
}

/// How many folders a watcher may watch: a quarter of the user's `inotify` watches
/// (`/proc/sys/fs/inotify/max_user_watches`; 8,192 on older kernels).
fn watch_budget() -> usize {
    let max = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .unwrap_or(8_192);
    max / 4
}

/// The folder a file sits in, as snapshots name folders (`./` for the root).
fn parent(p: &str) -> &str {
    match p.rfind('/') {
        Some(i) => &p[..=i],
        None => "./",
    }
}

/// Still wanted: the snapshot is kept and no other tree's watcher took the project.
fn wanted(store: &Path, tree: &str) -> bool {
    store.join(tree).exists() && std::fs::read(current_path(store)).is_ok_and(|c| c == tree.as_bytes())
}

pub(crate) struct Watcher<'a> {
    root: &'a Path,
    fd: OwnedFd,
    /// The watched folders by watch descriptor (`./`, others ending in `/`).
    wds: HashMap<i32, String>,
    /// The counted files as the pass saw them, and their paths sorted.
    files: HashMap<&'a str, Stat>,
    sorted: Vec<&'a str>,
    /// Names git ignores (folders end in `/`), so a log written again is not asked twice.
    ignored: HashSet<String>,
    /// New names not judged yet (project-relative).
    pending: Vec<String>,
}

impl<'a> Watcher<'a> {
    pub(crate) fn new(root: &'a Path, files: &[(&'a str, Stat)]) -> Option<Watcher<'a>> {
        // SAFETY: inotify_init1 takes flags only; a negative result is an error.
        let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK) };
        if fd < 0 {
            return None;
        }
        Some(Watcher {
            root,
            // SAFETY: `fd` was just opened and is owned here only.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            wds: HashMap::new(),
            files: files.iter().copied().collect(),
            sorted: files.iter().map(|(p, _)| *p).collect(),
            ignored: HashSet::new(),
            pending: Vec::new(),
        })
    }

    /// Watches the folder `dir` (`./` or ending in `/`).
    pub(crate) fn add(&mut self, dir: &str) -> Result<(), Changed> {
        let path = if dir == "./" {
            self.root.to_path_buf()
        } else {
            self.root.join(dir.trim_end_matches('/'))
        };
        let c = std::ffi::CString::new(path.into_os_string().into_encoded_bytes()).map_err(|_| Changed)?;
        // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
        let wd = unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), c.as_ptr(), MASK) };
        if wd < 0 {
            return Err(Changed);
        }
        self.wds.insert(wd, dir.to_string());
        Ok(())
    }

    fn serve(&mut self, listener: &UnixListener, store: &Path, tree: &str) {
        let mut asked = Instant::now();
        loop {
            let mut fds = [
                libc::pollfd {
                    fd: self.fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: listener.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // SAFETY: `fds` is a valid array of two pollfd for the call's duration.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, TICK.as_millis() as libc::c_int) };
            if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return;
            }
            if fds[0].revents != 0 && self.drain().is_err() {
                return;
            }
            if fds[1].revents != 0 {
                while let Ok((c, _)) = listener.accept() {
                    asked = Instant::now();
                    if self.reply(c, tree).is_err() {
                        return;
                    }
                }
            }
            if asked.elapsed() > IDLE || !wanted(store, tree) {
                return;
            }
        }
    }

    /// Answers one question: every event queued by now judged first.
    fn reply(&mut self, mut c: UnixStream, tree: &str) -> Result<(), Changed> {
        let want = question(tree);
        let _ = c.set_nonblocking(false);
        let _ = c.set_read_timeout(Some(Duration::from_millis(100)));
        let mut got = Vec::with_capacity(want.len());
        let _ = (&mut c).take(want.len() as u64).read_to_end(&mut got);
        if got != want.as_bytes() {
            return Ok(()); // not a question of ours: no answer
        }
        self.drain()?;
        let _ = c.write_all(answer(tree).as_bytes());
        Ok(())
    }

    /// Judges every queued event, then the new names.
    pub(crate) fn drain(&mut self) -> Result<(), Changed> {
        let mut buf = vec![0u8; 64 << 10];
        loop {
            // SAFETY: `buf` is valid for writes of its length.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 {
                match std::io::Error::last_os_error().kind() {
                    std::io::ErrorKind::Interrupted => continue,
                    std::io::ErrorKind::WouldBlock => break,
                    _ => return Err(Changed),
                }
            }
            if n == 0 {
                break;
            }
            let mut at = 0;
            let n = n as usize;
            while at + 16 <= n {
                let word = |i: usize| u32::from_ne_bytes(buf[at + i..at + i + 4].try_into().unwrap_or_default());
                let (wd, mask, len) = (word(0) as i32, word(4), word(12) as usize);
                let name = buf.get(at + 16..at + 16 + len).unwrap_or_default();
                let name = &name[..name.iter().position(|b| *b == 0).unwrap_or(name.len())];
                self.event(wd, mask, name)?;
                at += 16 + len;
            }
        }
        self.resolve()
    }

    /// True when counted files sit in folder `dir` or below it.
    fn holds_files(&self, dir: &str) -> bool {
        if dir == "./" {
            return !self.sorted.is_empty();
        }
        let i = self.sorted.partition_point(|p| *p < dir);
        self.sorted.get(i).is_some_and(|p| p.starts_with(dir))
    }

    fn event(&mut self, wd: i32, mask: u32, name: &[u8]) -> Result<(), Changed> {
        if mask & libc::IN_Q_OVERFLOW != 0 {
            return Err(Changed); // events were lost
        }
        let Some(dir) = self.wds.get(&wd).cloned() else {
            return Ok(());
        };
        if mask & (libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_UNMOUNT) != 0 {
            // The folder itself went: its files went with it (a move sends no event of theirs).
            return if self.holds_files(&dir) { Err(Changed) } else { Ok(()) };
        }
        if mask & libc::IN_IGNORED != 0 {
            self.wds.remove(&wd);
            return Ok(());
        }
        // A name that is not UTF-8 is never listed (the walk and git's listing skip it).
        let Ok(name) = std::str::from_utf8(name) else {
            return Ok(());
        };
        if name.is_empty() {
            return Ok(()); // the folder's own metadata
        }
        let rel = if dir == "./" {
            name.to_string()
        } else {
            format!("{dir}{name}")
        };
        if mask & libc::IN_ISDIR != 0 {
            if EXCLUDED_DIRS.contains(&name) || name.ends_with(".egg-info") {
                return Ok(());
            }
            if mask & (libc::IN_DELETE | libc::IN_MOVED_FROM) != 0 {
                return if self.holds_files(&format!("{rel}/")) {
                    Err(Changed)
                } else {
                    Ok(())
                };
            }
            if mask & (libc::IN_CREATE | libc::IN_MOVED_TO) != 0 {
                self.pending.push(rel);
            }
            return Ok(());
        }
        if excluded(&rel) {
            return Ok(());
        }
        if let Some(was) = self.files.get(rel.as_str()) {
            // Opened for writing and closed unchanged is no change: the stats decide.
            let now = stat_all(self.root, &[rel.as_str()]);
            return if now.len() == 1 && now[0].1 == *was {
                Ok(())
            } else {
                Err(Changed)
            };
        }
        self.pending.push(rel);
        Ok(())
    }

    /// Judges the new names: gone again, or ignored by git, is no change; a file that
    /// counts is one; a new folder that counts is watched and its entries judged.
    fn resolve(&mut self) -> Result<(), Changed> {
        while !self.pending.is_empty() {
            let mut batch = std::mem::take(&mut self.pending);
            batch.sort_unstable();
            batch.dedup();
            let watched: HashSet<&str> = self.wds.values().map(String::as_str).collect();
            let mut ask = Vec::new();
            for rel in batch {
                let Ok(m) = std::fs::symlink_metadata(self.root.join(&rel)) else {
                    continue; // came and went
                };
                let key = if m.is_dir() { format!("{rel}/") } else { rel };
                if watched.contains(key.as_str()) || self.ignored.contains(&key) {
                    continue;
                }
                // What `stat_all` keeps: regular files, links and folders to look into.
                if m.is_dir() || m.is_file() || m.file_type().is_symlink() {
                    ask.push(key);
                }
            }
            if ask.is_empty() {
                break;
            }
            // No answer from git (no work tree): every new name counts, as in the walk.
            let ignored = crate::evidence::tree_refresh::git_ignored(self.root, &ask, || ())
                .map(|(i, ())| i)
                .unwrap_or_default();
            for key in ask {
                if ignored.contains(&key) {
                    self.ignored.insert(key);
                } else if !key.ends_with('/') {
                    return Err(Changed);
                } else {
                    self.watch_new(&key)?;
                }
            }
        }
        Ok(())
    }

    /// A new folder whose files count: watched from now on, and what it already holds
    /// (written before the watch stood) judged as new names.
    fn watch_new(&mut self, dir: &str) -> Result<(), Changed> {
        self.add(dir)?;
        let rd = std::fs::read_dir(self.root.join(dir.trim_end_matches('/'))).map_err(|_| Changed)?;
        for e in rd.flatten() {
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && (EXCLUDED_DIRS.contains(&name.as_str()) || name.ends_with(".egg-info")) {
                continue;
            }
            let rel = format!("{dir}{name}");
            if is_dir || !excluded(&rel) {
                self.pending.push(rel);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "tree_watch_tests.rs"]
mod tests;
