//! Replacing a file atomically: a temp file in the same folder, then a rename, so a reader
//! (or a crash) sees the old file or the new one, never half of either. Every writer of
//! whole files in fable goes through here: settings, the rule store, the trust file, caches.

use crate::error::{IoContext, Result};
use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The permissions the new file gets.
#[derive(Debug, Clone, Copy)]
pub enum Perms<'a> {
    /// Those of the file it replaces (new files: the process default).
    Keep,
    /// Those of another file (e.g. a backup keeps its original's).
    Like(&'a Path),
    /// 0600: user-private state.
    Private,
}

/// Writes `bytes` to `path` atomically. A symlinked target (dotfile managers) is written
/// through, not replaced. `durable` adds fsync of the file and its folder: for files a
/// person would miss (settings, rules, trust), not for caches on a hook's hot path.
pub fn write(path: &Path, bytes: &[u8], perms: Perms, durable: bool) -> Result<()> {
    let real = match path.symlink_metadata() {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    };
    let dir = real
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).at(dir)?;
    let mode = match perms {
        Perms::Private => Some(fs::Permissions::from_mode(0o600)),
        Perms::Like(p) => fs::metadata(p).ok().map(|m| m.permissions()),
        Perms::Keep => fs::metadata(&real).ok().map(|m| m.permissions()),
    };
    replace_in(dir, &real, bytes, mode, durable)
}

/// The temp-file-then-rename step shared by every whole-file writer (here and in
/// [`crate::fable_dir::replace_atomically`]): a temp file created new (never through a
/// link) in `dir`, `mode` set, bytes written, optionally fsynced, renamed over `target`,
/// the folder fsynced; the temp file removed on any error.
pub fn replace_in(dir: &Path, target: &Path, bytes: &[u8], mode: Option<fs::Permissions>, durable: bool) -> Result<()> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.fable-tmp-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let result = (|| -> Result<()> {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)
            .at(&tmp)?;
        if let Some(m) = mode {
            f.set_permissions(m).at(&tmp)?;
        }
        f.write_all(bytes).at(&tmp)?;
        if durable {
            f.sync_all().at(&tmp)?;
        }
        fs::rename(&tmp, target).at(target)?;
        if durable {
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_keeps_or_sets_permissions_and_writes_through_links() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("a.json");
        write(&p, b"one", Perms::Private, true).unwrap();
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        write(&p, b"two", Perms::Keep, false).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        let link = t.path().join("link.json");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        write(&link, b"three", Perms::Keep, true).unwrap();
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&p).unwrap(), b"three");
        let leftovers = fs::read_dir(t.path()).unwrap().count();
        assert_eq!(leftovers, 2, "no temp file left behind");
    }
}
