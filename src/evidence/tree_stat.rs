//! The files' stats, taken fast: one `fstatat` per path from its open parent folder, on
//! all CPUs, and compared as they are taken.
//!
//! Why apart from [`crate::evidence::tree`]: at Stop this is the whole cost of freshness
//! (kernel time per file), so it is the part measured and tuned on its own; the listing,
//! hashing and diffing of snapshots read it and never the other way round.

use std::path::Path;

/// What is compared of one file: equal stats, same file as far as anyone can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
}

/// One difference between a pass's files and today's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Changed(String),
    Added(String),
    Removed(String),
}

impl Change {
    pub fn path(&self) -> &str {
        match self {
            Change::Changed(p) | Change::Added(p) | Change::Removed(p) => p,
        }
    }
}

/// `stat`s every path (on all cores: a syscall is the whole cost), keeping regular files
/// and links that exist; sorted by path.
pub fn stat_all<P: AsRef<str> + Sync>(root: &Path, paths: &[P]) -> Vec<(String, Stat)> {
    stat_kind(root, paths, false)
}

/// The folders' stats, sorted (missing ones left out).
pub fn stat_dirs<P: AsRef<str> + Sync>(root: &Path, dirs: &[P]) -> Vec<(String, Stat)> {
    stat_kind(root, dirs, true)
}

fn stat_kind<P: AsRef<str> + Sync>(root: &Path, paths: &[P], want_dirs: bool) -> Vec<(String, Stat)> {
    let mut out = par_blocks(paths, |block| {
        let mut at = None;
        block
            .iter()
            .filter_map(|p| {
                let p = p.as_ref();
                let (st, is_dir) = stat_at(root, &mut at, p)?;
                (is_dir == want_dirs).then(|| (p.to_string(), st))
            })
            .collect()
    });
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// What changed among `files` (sorted by path, as a snapshot stores them) since their
/// stats were taken: `Changed` when the stats differ, `Removed` when the path is gone or
/// no longer a file; in path order. The same answer as `tree::diff` of `files` against
/// [`stat_all`] of their paths, without building the second list: at Stop this runs on
/// every counted file, and cloning 10,000 paths to compare them cost more than the
/// comparison.
pub fn compare<P: AsRef<str> + Sync>(root: &Path, files: &[(P, Stat)]) -> Vec<Change> {
    par_blocks(files, |block| {
        let mut at = None;
        block
            .iter()
            .filter_map(|(p, was)| {
                let p = p.as_ref();
                match stat_at(root, &mut at, p) {
                    Some((st, false)) if st == *was => None,
                    Some((_, false)) => Some(Change::Changed(p.into())),
                    _ => Some(Change::Removed(p.into())),
                }
            })
            .collect()
    })
}

/// Items per unit of parallel work. Below two units everything runs on the calling
/// thread: a thread costs more than 1,000 `stat`s save.
pub(crate) const BLOCK: usize = 1024;

/// `each` over `items` in blocks of [`BLOCK`], on as many threads as there are CPUs to
/// run on (at most 8), the calling thread included; the results in `items`' order. The
/// threads take the next block as they finish one, so a thread the scheduler leaves
/// waiting (a loaded machine) does not hold the others up. A panic in `each` is raised
/// again here (the hook catches it: fail-open), never turned into missing results.
fn par_blocks<I: Sync, T: Send>(items: &[I], each: impl Fn(&[I]) -> Vec<T> + Sync) -> Vec<T> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = cpus().min(8).min(items.len() / BLOCK);
    if threads <= 1 {
        return each(items);
    }
    let blocks: Vec<&[I]> = items.chunks(BLOCK).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(b) = blocks.get(i) else { break };
            done.push((i, each(b)));
        }
        done
    };
    let mut parts = std::thread::scope(|s| {
        // A small stack: `each` is a loop of syscalls, and fewer pages to map.
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .stack_size(128 << 10)
                    .spawn_scoped(s, work)
                    .ok()
            })
            .collect();
        let mut parts = work();
        for h in helpers {
            parts.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        parts
    });
    parts.sort_unstable_by_key(|p| p.0);
    parts.into_iter().flat_map(|(_, v)| v).collect()
}

/// CPUs this process may run on (`sched_getaffinity`: one syscall, where
/// `available_parallelism` also reads the cgroup files).
fn cpus() -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `cpu_set_t` is plain data, filled by the call.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } == 0 {
            // SAFETY: `set` was filled above.
            return usize::try_from(unsafe { libc::CPU_COUNT(&set) }).unwrap_or(1).max(1);
        }
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(target_os = "linux")]
const DIR_FLAGS: libc::c_int = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
#[cfg(not(target_os = "linux"))]
const DIR_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;

/// `lstat` of `rel` (a file, or a folder ending in `/`; `./` is the root) looked up from
/// its open parent folder (`fstatat`), which `at` keeps between calls: paths come sorted,
/// so most share the previous one's folder. Resolving every path from `/` again was the
/// larger part of the cost (perf: `__d_lookup_rcu` and `link_path_walk`). Also says
/// whether it is a folder.
pub(crate) fn stat_at(root: &Path, at: &mut Option<(String, std::os::fd::OwnedFd)>, rel: &str) -> Option<(Stat, bool)> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    let trimmed = rel.strip_suffix('/').unwrap_or(rel);
    let (parent, name) = trimmed.rsplit_once('/').unwrap_or(("", trimmed));
    if at.as_ref().is_none_or(|(d, _)| d != parent) {
        *at = None;
        let dir = if parent.is_empty() {
            root.to_path_buf()
        } else {
            root.join(parent)
        };
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: a NUL-terminated path; the descriptor is owned from here on.
        let fd = unsafe { libc::open(c.as_ptr(), DIR_FLAGS) };
        if fd < 0 {
            return None;
        }
        // SAFETY: `fd` was just opened by us and is closed only by this owner.
        *at = Some((parent.to_string(), unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }));
    }
    let fd = at.as_ref()?.1.as_raw_fd();
    // The name NUL-terminated on the stack (an allocation per file showed in the profile);
    // a name longer than any file system allows takes the allocating way.
    if name.as_bytes().contains(&0) {
        return None;
    }
    let mut buf = [0u8; 256];
    let heap;
    let c_name: *const libc::c_char = if name.len() < buf.len() {
        buf[..name.len()].copy_from_slice(name.as_bytes());
        buf.as_ptr().cast()
    } else {
        heap = std::ffi::CString::new(name).ok()?;
        heap.as_ptr()
    };
    // SAFETY: `stat` is plain data, filled by the call; `fd` is an open folder; `c_name`
    // points at a NUL-terminated name that lives until the call returns.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatat(fd, c_name, &mut st, libc::AT_SYMLINK_NOFOLLOW) } != 0 {
        return None;
    }
    let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
    #[allow(clippy::unnecessary_cast)]
    let stat = Stat {
        size: st.st_size as u64,
        mtime_ns: ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
        ctime_ns: ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
        ino: st.st_ino as u64,
    };
    Some((stat, st.st_mode & libc::S_IFMT == libc::S_IFDIR))
}

/// One `size mtime_ns ctime_ns ino path` record (as `tree_store` writes it, the path last
/// so it may hold spaces), owned; also the record of the folders' and git inputs' stats
/// beside a snapshot (`tree_moved`).
pub fn stat_record(rec: &str) -> Option<(String, Stat)> {
    let mut it = rec.splitn(5, ' ');
    let mut num = || it.next()?.parse::<i64>().ok();
    let (size, mtime_ns, ctime_ns, ino) = (num()?, num()?, num()?, num()?);
    let st = Stat {
        size: u64::try_from(size).ok()?,
        mtime_ns,
        ctime_ns,
        ino: u64::try_from(ino).ok()?,
    };
    Some((it.next()?.to_string(), st))
}
