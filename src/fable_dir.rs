//! The one door to a project's `.fable/`: every read and write of the files under it goes
//! through here, because everything there may come from a stranger's clone.
//!
//! Each operation refuses what is not a regular file inside the project: the file itself
//! is opened with `O_NOFOLLOW` (a committed `evidence.jsonl -> ~/.bashrc` is never written
//! through, a dangling link never creates its target), every folder from `.fable`
//! down to it must be a real directory (not a link out of the repository), and reads are
//! bounded ([`Kind::cap`]): a ledger pointing at `/dev/zero`, or a 200 MB committed file,
//! costs one refusal, not gigabytes.
//!
//! - [`read`]: the whole file, at most its kind's cap, or `None` when it is absent;
//! - [`open_read`]: a bounded reader for streaming (log generations);
//! - [`append_line`]: one `write` of one line, starting with a newline when the file does
//!   not end in one (a torn line stays one malformed line, the next record is intact);
//! - [`replace_atomically`]: temp file + rename in the same folder, never through a link;
//! - [`open_lock`], [`ensure_dir`]: lock files and folders, same rules, 0600 / 0700.
//!
//! Refusals are `io::Error`s of kind `InvalidInput` whose message says what was refused
//! and why, so a hook prints one clear line and the decision that needed the file says so.

use crate::error::{IoContext, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path};

/// What a file under `.fable/` is, for its size cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `LEDGER.md`, `rules.json`, `RULES.md`, `learn.json`, `.gitignore`: written by a
    /// person or by fable, small.
    Document,
    /// A log generation: its rotation size plus slack (a record may push it past).
    LogGeneration { max_bytes: u64 },
    /// `state/*`: streaks, cursors, snapshots.
    State,
}

/// 1 MiB: far above any real ledger or rule store, far below what hurts a hook.
pub const DOCUMENT_CAP: u64 = 1 << 20;
/// State files are tiny; 256 KiB leaves room for a long session's snapshot.
pub const STATE_CAP: u64 = 256 << 10;

impl Kind {
    /// The most bytes a reader takes from a file of this kind.
    pub fn cap(self) -> u64 {
        match self {
            Kind::Document => DOCUMENT_CAP,
            // Slack: one record over the limit (rotation happens before the append that
            // would pass it, but a single record may be large).
            Kind::LogGeneration { max_bytes } => max_bytes.saturating_mul(2).max(64 << 10),
            Kind::State => STATE_CAP,
        }
    }
}

fn refused(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("refused {}: {why}", path.display()),
    )
}

/// True for an error this module raised to refuse a path (not an ordinary I/O failure).
pub fn is_refusal(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::InvalidInput && e.to_string().starts_with("refused ")
}

/// Checks every folder from the nearest `.fable` ancestor down to `path`'s parent is a
/// real directory. A path with no `.fable` ancestor is checked from its parent only.
/// Missing folders are fine (nothing to follow); a link or a non-directory is refused.
fn check_parents(path: &Path) -> io::Result<()> {
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    let mut dir = parent;
    loop {
        match fs::symlink_metadata(dir) {
            Ok(m) if m.file_type().is_symlink() => return Err(refused(dir, "it is a symbolic link")),
            Ok(m) if !m.is_dir() => return Err(refused(dir, "it is not a directory")),
            Ok(m) => check_owner(dir, &m)?,
            _ => {}
        }
        let at_root = dir.file_name().is_some_and(|n| n == ".fable")
            || !dir
                .components()
                .any(|c| matches!(c, Component::Normal(n) if n == ".fable"));
        if at_root {
            return Ok(());
        }
        match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => dir = p,
            _ => return Ok(()),
        }
    }
}

/// Opens `path` without following a link at its last component and checks it is a
/// regular file. `Ok(None)` when it does not exist.
fn open_nofollow(path: &Path, opts: &mut OpenOptions) -> io::Result<Option<File>> {
    check_parents(path)?;
    let f = match opts
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(refused(path, "it is a symbolic link")),
        Err(e) => return Err(e),
    };
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(refused(path, "it is not a regular file"));
    }
    check_owner(path, &m)?;
    // A second name for the same file may live anywhere: an `evidence.jsonl` hard-linked
    // to a file outside the project would receive this user's commands and output.
    if m.nlink() > 1 {
        return Err(refused(
            path,
            &format!(
                "it has {} hard links (remove the other names, or delete it and let fable recreate it)",
                m.nlink()
            ),
        ));
    }
    Ok(Some(f))
}

/// A file or folder under `.fable/` must be this user's and not writable by every user:
/// a `.fable/` planted by another account on a shared machine would otherwise receive
/// this user's commands and inject that account's cards.
pub fn check_owner(path: &Path, m: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if m.uid() != me {
        return Err(refused(
            path,
            &format!(
                "it is owned by another user (uid {}); fable uses only your own .fable/ (`chown` it, or remove it)",
                m.uid()
            ),
        ));
    }
    if m.mode() & 0o002 != 0 {
        return Err(refused(path, "it is writable by every user (`chmod o-w` it)"));
    }
    Ok(())
}

/// A bounded reader over a regular file: at most `kind.cap()` bytes, and `too_large`
/// says whether the file held more.
pub struct Bounded {
    pub reader: io::Take<File>,
    pub too_large: bool,
    /// The file's size when opened, capped: the buffer to read it into, reserved once
    /// (growing from 32 bytes took 14 reads and as many copies for a 150 KB rule store).
    pub len: usize,
}

/// Opens a file for a bounded read. `Ok(None)` when it does not exist.
pub fn open_read(path: &Path, kind: Kind) -> io::Result<Option<Bounded>> {
    let Some(f) = open_nofollow(path, OpenOptions::new().read(true))? else {
        return Ok(None);
    };
    let len = f.metadata()?.len();
    Ok(Some(Bounded {
        reader: f.take(kind.cap()),
        too_large: len > kind.cap(),
        len: usize::try_from(len.min(kind.cap())).unwrap_or(0),
    }))
}

/// Reads a whole file of `kind`; a file over its cap is refused (`InvalidInput`), not cut.
pub fn read(path: &Path, kind: Kind) -> io::Result<Option<Vec<u8>>> {
    let Some(mut b) = open_read(path, kind)? else {
        return Ok(None);
    };
    if b.too_large {
        return Err(refused(path, &format!("it is larger than {} bytes", kind.cap())));
    }
    // One byte over the size, so the read that finds the end needs no growth.
    let mut buf = Vec::with_capacity(b.len + 1);
    b.reader.read_to_end(&mut buf)?;
    Ok(Some(buf))
}

/// [`read`] as UTF-8 text (invalid sequences replaced, so a stray byte never hides a file).
pub fn read_string(path: &Path, kind: Kind) -> io::Result<Option<String>> {
    Ok(read(path, kind)?
        .map(|b| String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())))
}

/// The last `max` bytes of a regular file (never through a link); `Ok(None)` when absent.
/// The evidence journal reads the end of its live file to find the record to chain to.
pub fn read_tail(path: &Path, max: u64) -> io::Result<Option<Vec<u8>>> {
    let Some(mut f) = open_nofollow(path, OpenOptions::new().read(true))? else {
        return Ok(None);
    };
    let len = f.metadata()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(max)))?;
    let mut buf = Vec::with_capacity(usize::try_from(len.min(max)).unwrap_or(0) + 1);
    f.take(max).read_to_end(&mut buf)?;
    Ok(Some(buf))
}

/// Appends `line` (which ends in `\n`) in one `write`, creating the file 0600. When the
/// file does not end in a newline (a writer died mid-line, a disk filled), the write
/// starts with one, so the fragment stays one malformed line and this record is intact.
/// The caller holds whatever lock orders writers.
pub fn append_line(path: &Path, line: &[u8]) -> io::Result<u64> {
    let mut f = open_nofollow(
        path,
        OpenOptions::new().read(true).append(true).create(true).mode(0o600),
    )?
    .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "vanished while opening"))?;
    let len = f.metadata()?.len();
    let mut torn = false;
    if len > 0 {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::Start(len - 1))?;
        f.read_exact(&mut last)?;
        torn = last[0] != b'\n';
    }
    if torn {
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.push(b'\n');
        buf.extend_from_slice(line);
        f.write_all(&buf)?;
        Ok(len + 1)
    } else {
        f.write_all(line)?;
        Ok(len)
    }
}

/// Opens (creating, 0600) a lock file; never through a link.
pub fn open_lock(path: &Path) -> io::Result<File> {
    open_nofollow(
        path,
        OpenOptions::new().create(true).truncate(false).write(true).mode(0o600),
    )?
    .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "vanished while opening"))
}

/// Creates a folder (and its parents up to `.fable`), 0700 for the ones it makes; an
/// existing link or non-directory anywhere on the way is refused.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    check_parents(&dir.join("x"))?;
    match fs::symlink_metadata(dir) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(p) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                ensure_dir(p)?;
            }
            match fs::create_dir(dir) {
                Ok(()) => fs::set_permissions(dir, fs::Permissions::from_mode(0o700)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => check_parents(&dir.join("x")),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// Replaces `path` with `bytes` atomically (temp file in the same folder + rename), mode
/// 0600 unless the existing file has other permissions. An existing link or non-regular
/// file at `path` is refused, never replaced or written through. `durable` adds fsync of
/// the file and its folder (for what a person would miss: rules; not hot-path state).
pub fn replace_atomically(path: &Path, bytes: &[u8], durable: bool) -> Result<()> {
    let mode = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => return Err(refused(path, "it is a symbolic link")).at(path),
        Ok(m) if !m.is_file() => return Err(refused(path, "it is not a regular file")).at(path),
        Ok(m) => m.permissions().mode() & 0o777,
        Err(_) => 0o600,
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    ensure_dir(dir).at(dir)?;
    crate::atomic_file::replace_in(dir, path, bytes, Some(fs::Permissions::from_mode(mode)), durable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn project() -> (tempfile::TempDir, std::path::PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join(".fable");
        fs::create_dir(&d).unwrap();
        (t, d)
    }

    #[test]
    fn a_linked_file_is_never_read_or_written_through() {
        let (t, d) = project();
        let victim = t.path().join("victim");
        fs::write(&victim, "precious\n").unwrap();
        let log = d.join("evidence.jsonl");
        symlink(&victim, &log).unwrap();
        assert!(is_refusal(&append_line(&log, b"x\n").unwrap_err()));
        assert!(is_refusal(&read(&log, Kind::Document).unwrap_err()));
        assert!(replace_atomically(&log, b"y", false).is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
        assert!(fs::symlink_metadata(&log).unwrap().file_type().is_symlink());
    }

    #[test]
    fn a_dangling_link_does_not_create_its_target() {
        let (t, d) = project();
        let target = t.path().join("created");
        symlink(&target, d.join("evidence.jsonl")).unwrap();
        assert!(append_line(&d.join("evidence.jsonl"), b"x\n").is_err());
        assert!(open_lock(&d.join("evidence.jsonl")).is_err());
        assert!(!target.exists());
    }

    #[test]
    fn a_linked_folder_inside_fable_is_refused() {
        let (t, d) = project();
        let outside = t.path().join("outside");
        fs::create_dir(&outside).unwrap();
        symlink(&outside, d.join("state")).unwrap();
        assert!(is_refusal(&append_line(&d.join("state/s.json"), b"x\n").unwrap_err()));
        assert!(replace_atomically(&d.join("state/s.json"), b"{}", false).is_err());
        assert!(ensure_dir(&d.join("state/sub")).is_err());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
    }

    #[test]
    fn fable_itself_must_not_be_a_link() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        fs::create_dir(&outside).unwrap();
        symlink(&outside, t.path().join(".fable")).unwrap();
        assert!(append_line(&t.path().join(".fable/evidence.jsonl"), b"x\n").is_err());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
    }

    #[test]
    fn devices_and_oversized_files_are_refused_not_read() {
        let (_t, d) = project();
        symlink("/dev/zero", d.join("LEDGER.md")).unwrap();
        assert!(read(&d.join("LEDGER.md"), Kind::Document).is_err());
        let big = d.join("rules.json");
        let f = File::create(&big).unwrap();
        f.set_len(DOCUMENT_CAP + 1).unwrap();
        assert!(is_refusal(&read(&big, Kind::Document).unwrap_err()));
        assert_eq!(read(&d.join("absent"), Kind::Document).unwrap(), None);
    }

    #[test]
    fn an_append_after_a_torn_line_starts_a_new_line() {
        let (_t, d) = project();
        let log = d.join("evidence.jsonl");
        fs::write(&log, "{\"v\":1}\n{\"v\":1,\"cmd\":\"cut").unwrap();
        append_line(&log, b"{\"v\":1,\"cmd\":\"next\"}\n").unwrap();
        let text = fs::read_to_string(&log).unwrap();
        assert_eq!(text.lines().last(), Some("{\"v\":1,\"cmd\":\"next\"}"));
        assert_eq!(text.lines().count(), 3);
    }

    #[test]
    fn replace_is_private_by_default_and_keeps_existing_permissions() {
        let (_t, d) = project();
        let p = d.join("state/streak.json");
        replace_atomically(&p, b"{}", false).unwrap();
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(
            fs::metadata(d.join("state")).unwrap().permissions().mode() & 0o777,
            0o700
        );
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        replace_atomically(&p, b"{\"n\":1}", true).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"{\"n\":1}");
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o640);
    }
}
