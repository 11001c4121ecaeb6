//! Per-file snapshots of passing runs, kept in user state so the close guard can name the
//! file that changed after a pass (the record itself carries only the hash, sealed).
//!
//! `${XDG_STATE_HOME:-~/.local/state}/fable/trees/<project key>/<tree>`, 0600, written
//! atomically, the newest [`KEEP`] per project kept. A snapshot is trusted only when its
//! files hash to the sealed `tree` ([`crate::evidence::tree_check::Now`] checks): editing one
//! cannot make changed files look unchanged. Format: a header line `fable-tree 2`, then
//! per file and folder `size mtime_ns ctime_ns ino path` ended by NUL (a path holds any
//! byte but NUL; folders' paths end in `/`).

use crate::evidence::tree::{Snapshot, Stat};
use std::path::{Path, PathBuf};

/// How many snapshots a project keeps (a stop checks the newest passes).
pub const KEEP: usize = 12;
const HEADER: &str = "fable-tree 2";
/// The most a snapshot is read (200,000 files of ordinary path length fit).
const MAX_BYTES: u64 = 64 << 20;

/// This project's snapshot folder, when a state folder can be named.
pub fn dir(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<PathBuf> {
    crate::session_state::user_state_dir(get).map(|d| d.join("trees").join(crate::fingerprint::project_key(fable_dir)))
}

/// The bytes of a snapshot.
pub fn encode(s: &Snapshot) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + s.files.len() * 64);
    out.extend_from_slice(format!("{HEADER}\n").as_bytes());
    for (p, st) in s.files.iter().chain(&s.dirs) {
        push_record(&mut out, p, st);
    }
    out
}

/// One record: the numbers as `Display` writes them, without `fmt` (10,000 per save).
fn push_record(out: &mut Vec<u8>, path: &str, st: &Stat) {
    use crate::evidence::tree::push_int;
    push_int(out, false, st.size);
    out.push(b' ');
    push_int(out, st.mtime_ns < 0, st.mtime_ns.unsigned_abs());
    out.push(b' ');
    push_int(out, st.ctime_ns < 0, st.ctime_ns.unsigned_abs());
    out.push(b' ');
    push_int(out, false, st.ino);
    out.push(b' ');
    out.extend_from_slice(path.as_bytes());
    out.push(0);
}

/// A stored snapshot read in place: paths borrowed from the file's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View<'a> {
    pub files: Vec<(&'a str, Stat)>,
    pub dirs: Vec<(&'a str, Stat)>,
}

/// A snapshot as [`encode`] writes it — files then folders, each list strictly sorted,
/// every number written as `Display` writes it — read without copying a path, and the
/// hash of its files ([`crate::evidence::tree::hash_files`], computed from the stored
/// digits: they are the hashed ones). `None` for anything else, which the close guard
/// then treats as a missing snapshot (a change is still seen, unnamed). [`decode`] took
/// a third of the close guard's instructions on 10,000 files, the hash's formatting
/// another tenth.
pub fn view(bytes: &[u8]) -> Option<(View<'_>, String)> {
    use sha2::Digest;
    let body_at = HEADER.len() + 1;
    if bytes.get(..body_at)? != format!("{HEADER}\n").as_bytes() {
        return None;
    }
    let body = &bytes[body_at..];
    // One check for every path: the records split at ASCII bytes.
    let text = std::str::from_utf8(body).ok()?;
    if body.last().is_some_and(|b| *b != 0) {
        return None;
    }
    let mut v = View {
        files: Vec::with_capacity(body.len() / 56),
        dirs: Vec::new(),
    };
    let mut h = sha2::Sha256::new();
    let mut buf: Vec<u8> = Vec::with_capacity(64 << 10);
    let mut at = 0;
    while at < body.len() {
        let start = at;
        let size = canonical(body, &mut at, false)?;
        let mtime_ns = canonical(body, &mut at, true)?;
        let ctime_ns = canonical(body, &mut at, true)?;
        let ino = canonical(body, &mut at, false)?;
        let end = at + body[at..].iter().position(|b| *b == 0)?;
        let path = &text[at..end];
        let st = Stat {
            size: u64::try_from(size).ok()?,
            mtime_ns: i64::try_from(mtime_ns).ok()?,
            ctime_ns: i64::try_from(ctime_ns).ok()?,
            ino: u64::try_from(ino).ok()?,
        };
        let list = if path.ends_with('/') { &mut v.dirs } else { &mut v.files };
        if path.is_empty() || list.last().is_some_and(|(p, _)| *p >= path) {
            return None;
        }
        list.push((path, st));
        if !path.ends_with('/') {
            if !v.dirs.is_empty() {
                return None;
            }
            // The hashed bytes: path, NUL, the four numbers as stored, newline.
            buf.extend_from_slice(path.as_bytes());
            buf.push(0);
            buf.extend_from_slice(&body[start..at - 1]);
            buf.push(b'\n');
            if buf.len() >= 60 << 10 {
                h.update(&buf);
                buf.clear();
            }
        }
        at = end + 1;
    }
    h.update(&buf);
    Some((v, crate::evidence::tree::tree_hex(h)))
}

/// The number at `*at` followed by one space, moving `at` past both; only as
/// `Display` writes one (no sign but a `-` where `signed`, no leading zero, no `-0`).
fn canonical(b: &[u8], at: &mut usize, signed: bool) -> Option<i128> {
    let neg = signed && b.get(*at) == Some(&b'-');
    let first = *at + usize::from(neg);
    let mut i = first;
    let mut v: u64 = 0;
    // Eight digits at a time while eight are there (a time has 19): the digit loop was
    // most of the parse.
    while let Some(w) = b.get(i..i + 8).and_then(|c| c.try_into().ok()).map(u64::from_le_bytes) {
        if !eight_digits(w) {
            break;
        }
        v = v.checked_mul(100_000_000)?.checked_add(parse_eight(w))?;
        i += 8;
    }
    while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        i += 1;
    }
    let digits = i - first;
    if digits == 0 || (b[first] == b'0' && (digits > 1 || neg)) || b.get(i) != Some(&b' ') {
        return None;
    }
    *at = i + 1;
    let v = i128::from(v);
    Some(if neg { -v } else { v })
}

/// True when the eight bytes of `w` (read little-endian) are all ASCII digits.
fn eight_digits(w: u64) -> bool {
    let a = w.wrapping_add(0x4646_4646_4646_4646);
    let b = w.wrapping_sub(0x3030_3030_3030_3030);
    (a | b) & 0x8080_8080_8080_8080 == 0
}

/// The value of eight ASCII digits read little-endian (first digit in the low byte), as
/// the standard library's float parser does it.
fn parse_eight(mut w: u64) -> u64 {
    const MASK: u64 = 0x0000_00FF_0000_00FF;
    const MUL1: u64 = 0x000F_4240_0000_0064;
    const MUL2: u64 = 0x0000_2710_0000_0001;
    w -= 0x3030_3030_3030_3030;
    w = (w * 10) + (w >> 8);
    let a = (w & MASK).wrapping_mul(MUL1);
    let b = ((w >> 16) & MASK).wrapping_mul(MUL2);
    u64::from((a.wrapping_add(b) >> 32) as u32)
}

/// A snapshot from its bytes; `None` when they are not one.
pub fn decode(bytes: &[u8]) -> Option<Snapshot> {
    let nl = bytes.iter().position(|b| *b == b'\n')?;
    if &bytes[..nl] != HEADER.as_bytes() {
        return None;
    }
    let mut out = Snapshot::default();
    for rec in bytes[nl + 1..].split(|b| *b == 0).filter(|r| !r.is_empty()) {
        // Four numbers, each followed by one space, then the path (parsed by hand: the
        // close guard reads 10,000 of these per stop).
        let mut at = 0;
        let mut num = || -> Option<i128> {
            let end = at + rec[at..].iter().position(|b| *b == b' ')?;
            let n = parse_int(&rec[at..end])?;
            at = end + 1;
            Some(n)
        };
        let (size, mtime, ctime, ino) = (num()?, num()?, num()?, num()?);
        let path = std::str::from_utf8(&rec[at..]).ok()?.to_string();
        let st = Stat {
            size: u64::try_from(size).ok()?,
            mtime_ns: i64::try_from(mtime).ok()?,
            ctime_ns: i64::try_from(ctime).ok()?,
            ino: u64::try_from(ino).ok()?,
        };
        if path.ends_with('/') {
            out.dirs.push((path, st));
        } else {
            out.files.push((path, st));
        }
    }
    Some(out)
}

/// A decimal integer as `str::parse::<i128>` reads it (an optional sign, digits).
fn parse_int(b: &[u8]) -> Option<i128> {
    let (neg, digits) = match b {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, b),
    };
    if digits.is_empty() {
        return None;
    }
    // 64-bit arithmetic (every field fits in a u64 or an i64); longer is no field.
    let mut v: u64 = 0;
    for d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    let v = i128::from(v);
    Some(if neg { -v } else { v })
}

/// Saves a snapshot under its hash (best effort) and drops all but the newest [`KEEP`].
/// Written again when it exists: the same files may sit in folders whose stats moved (an
/// ignored file came and went), and the newest folder stats keep the Stop on its fast path.
pub fn save(dir: &Path, s: &Snapshot, tree: &str) {
    save_bytes(dir, tree, &encode(s));
}

fn save_bytes(dir: &Path, tree: &str, bytes: &[u8]) {
    let path = dir.join(tree);
    if crate::session_state::mkdir_private(dir).is_err() {
        return;
    }
    let _ = crate::atomic_file::write(&path, bytes, crate::atomic_file::Perms::Private, false);
    // What stops learnt since the previous save is older than these folder stats.
    let _ = std::fs::remove_file(crate::evidence::tree_moved::path(dir, tree));
    prune(dir);
}

fn prune(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut all: Vec<(std::time::SystemTime, PathBuf)> = rd
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.len() == 32 && n.bytes().all(|b| b.is_ascii_hexdigit()))
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if all.len() <= KEEP {
        return;
    }
    all.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (_, p) in all.into_iter().skip(KEEP) {
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_file(p.with_extension("moved"));
        // Its watcher, if any, exits at its next look (`tree_watch`); its lock goes now.
        let _ = std::fs::remove_file(p.with_extension("wlock"));
    }
}

/// The snapshot saved under `tree`, if any.
pub fn load(dir: &Path, tree: &str) -> Option<Snapshot> {
    decode(&read(dir, tree)?)
}

/// The bytes of the snapshot saved under `tree`, if any (for [`view`]).
pub fn read(dir: &Path, tree: &str) -> Option<Vec<u8>> {
    if tree.len() != 32 || !tree.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    read_private(&dir.join(tree), MAX_BYTES)
}

/// The newest pass's snapshot, as the next pass starts from it ([`pass_tree`]).
const LAST: &str = "last";
const LAST_HEADER: &str = "fable-last 1";

/// Which snapshot the next pass may start from, and what git's choice of files hung on
/// when it was taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Last {
    pub tree: String,
    /// git listed the files (else the walk did).
    pub git: bool,
    /// The stats of the files that decide which files git lists ([`ignore_inputs`]).
    pub keys: Vec<(String, Stat)>,
}

/// What decides which files git lists besides the folders' entries: the index (tracked
/// files), the repository's and the user's ignore files and configuration (which may
/// name another excludes file). A missing file is all zeros; outside git only `.git`
/// itself counts (a `git init` makes the listing git's).
pub fn ignore_inputs(root: &Path, git: bool, get: impl Fn(&str) -> Option<String>) -> Vec<(String, Stat)> {
    let mut paths = vec![root.join(".git")];
    if git {
        let dot = root.join(".git");
        paths.extend(["index", "info/exclude", "config"].map(|f| dot.join(f)));
        paths.push(PathBuf::from("/etc/gitconfig"));
        if let Some(home) = get("HOME").filter(|h| !h.is_empty()) {
            paths.push(Path::new(&home).join(".gitconfig"));
        }
        let config = get("XDG_CONFIG_HOME")
            .filter(|x| Path::new(x).is_absolute())
            .map(PathBuf::from)
            .or_else(|| {
                get("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|h| Path::new(&h).join(".config"))
            });
        if let Some(c) = config {
            paths.extend(["git/config", "git/ignore"].map(|f| c.join(f)));
        }
    }
    let zero = Stat {
        size: 0,
        mtime_ns: 0,
        ctime_ns: 0,
        ino: 0,
    };
    paths
        .into_iter()
        .map(|p| {
            let st = std::fs::symlink_metadata(&p).map_or(zero, |m| {
                use std::os::unix::fs::MetadataExt;
                let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
                Stat {
                    size: m.size(),
                    mtime_ns: ns(m.mtime(), m.mtime_nsec()),
                    ctime_ns: ns(m.ctime(), m.ctime_nsec()),
                    ino: m.ino(),
                }
            });
            (p.to_string_lossy().into_owned(), st)
        })
        .collect()
}

fn encode_last(l: &Last) -> Vec<u8> {
    let mut out = format!("{LAST_HEADER}\n{}\n{}\n", l.tree, if l.git { "git" } else { "walk" }).into_bytes();
    for (p, st) in &l.keys {
        out.extend_from_slice(format!("{} {} {} {} ", st.size, st.mtime_ns, st.ctime_ns, st.ino).as_bytes());
        out.extend_from_slice(p.as_bytes());
        out.push(0);
    }
    out
}

fn decode_last(bytes: &[u8]) -> Option<Last> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.splitn(4, '\n');
    if lines.next()? != LAST_HEADER {
        return None;
    }
    let tree = lines.next()?.to_string();
    let git = match lines.next()? {
        "git" => true,
        "walk" => false,
        _ => return None,
    };
    let mut keys = Vec::new();
    for rec in lines.next().unwrap_or("").split('\0').filter(|r| !r.is_empty()) {
        keys.push(crate::evidence::tree::stat_record(rec)?);
    }
    Some(Last { tree, git, keys })
}

/// The newest pass's [`Last`], if any.
pub fn load_last(dir: &Path) -> Option<Last> {
    let bytes = read_private(&dir.join(LAST), 64 << 10)?;
    decode_last(&bytes)
}

fn read_private(path: &Path, max: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .ok()?;
    let mut bytes = Vec::with_capacity(f.metadata().map_or(0, |m| m.len().min(max) as usize));
    f.take(max).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The `tree` of a passing run: the project's files now, hashed, with the snapshot saved
/// in `dir` for the close guard. Starts from the previous pass's snapshot when git's
/// inputs are as they were ([`Last`]) and lists only the folders that moved
/// ([`refresh`](crate::evidence::tree_refresh::refresh)); otherwise, or when a
/// `.gitignore` moved, takes the full listing. Either way the files are the ones a full
/// listing would count, each `stat`ed now. `None` when no snapshot can be taken.
pub fn pass_tree(root: &Path, dir: Option<&Path>, get: impl Fn(&str) -> Option<String>) -> Option<String> {
    pass_tree_counted(root, dir, get).map(|(tree, _)| tree)
}

/// [`pass_tree`], and how many files it counts (a watcher is worth starting only on
/// many: [`crate::evidence::tree_watch`]).
pub fn pass_tree_counted(
    root: &Path,
    dir: Option<&Path>,
    get: impl Fn(&str) -> Option<String>,
) -> Option<(String, usize)> {
    use crate::evidence::tree_refresh::{refresh_from, Names};
    let last = dir.and_then(load_last);
    let reused = last.as_ref().and_then(|l| {
        // Inputs first: a change while the files are listed shows at the next pass.
        let keys = ignore_inputs(root, l.git, &get);
        if keys != l.keys {
            return None;
        }
        // Read in place, as the close guard reads it ([`view`]).
        let bytes = read(dir?, &l.tree)?;
        let prev = view(&bytes).filter(|(_, h)| *h == l.tree)?.0;
        let now = refresh_from(
            root,
            &prev.files,
            &prev.dirs,
            if l.git { Names::Git } else { Names::Walk },
        )?;
        fn ignores<P: AsRef<str>>(files: &[(P, Stat)]) -> Vec<(&str, Stat)> {
            files
                .iter()
                .map(|(p, s)| (p.as_ref(), *s))
                .filter(|(p, _)| *p == ".gitignore" || p.ends_with("/.gitignore"))
                .collect()
        }
        (!l.git || ignores(&prev.files) == ignores(&now.files)).then(|| {
            let same = now.dirs.len() == prev.dirs.len()
                && now.dirs.iter().zip(&prev.dirs).all(|(a, b)| a.0 == b.0 && a.1 == b.1);
            (now, keys, l.git, same)
        })
    });
    let (snap, keys, git, same_dirs) = match reused {
        Some(r) => r,
        None => {
            // Which inputs count depends on the listing: stat both sets' worth first.
            let git_keys = ignore_inputs(root, true, &get);
            let walk_keys = ignore_inputs(root, false, &get);
            let (snap, git) = crate::evidence::tree::take_listed(root)?;
            (snap, if git { git_keys } else { walk_keys }, git, false)
        }
    };
    let tree = snap.hash();
    if let Some(dir) = dir {
        let unchanged = same_dirs && last.as_ref().is_some_and(|l| l.tree == tree);
        if !unchanged {
            save(dir, &snap, &tree);
            let l = Last {
                tree: tree.clone(),
                git,
                keys,
            };
            let _ = crate::atomic_file::write(
                &dir.join(LAST),
                &encode_last(&l),
                crate::atomic_file::Perms::Private,
                false,
            );
        }
    }
    Some((tree, snap.files.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_tree_is_the_full_listings_whatever_changed() {
        use crate::evidence::tree::take;
        let t = tempfile::tempdir().unwrap();
        let (root, store) = (t.path().join("p"), t.path().join("store"));
        let home = t.path().join("home").to_string_lossy().into_owned();
        let get = |k: &str| (k == "HOME").then(|| home.clone());
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.py"), "a").unwrap();
        std::fs::write(root.join("x.log"), "x").unwrap();
        std::fs::write(root.join("y.log"), "y").unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        let git = |args: &[&str]| crate::evidence::tree::git_for_test(&root, args);
        git(&["init", "-q"]);
        git(&["add", "-A"]);
        let append = |p: &str, text: &str| {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().append(true).open(root.join(p)).unwrap();
            f.write_all(text.as_bytes()).unwrap();
        };
        type Step<'a> = (&'a str, Box<dyn Fn() + 'a>);
        let steps: Vec<Step> = vec![
            ("first pass", Box::new(|| {})),
            ("nothing", Box::new(|| {})),
            ("in-place edit", Box::new(|| append("src/a.py", "b"))),
            (
                "new ignored file",
                Box::new(|| std::fs::write(root.join("z.log"), "z").unwrap()),
            ),
            ("un-ignored in place", Box::new(|| append(".gitignore", "!x.log\n"))),
            ("force-added", Box::new(|| git(&["add", "-f", "y.log"]))),
            (
                "new file",
                Box::new(|| std::fs::write(root.join("src/b.py"), "b").unwrap()),
            ),
        ];
        let mut trees = Vec::new();
        for (what, change) in steps {
            std::thread::sleep(std::time::Duration::from_millis(15));
            change();
            let tree = pass_tree(&root, Some(&store), get).unwrap();
            let full = take(&root).unwrap();
            assert_eq!(tree, full.hash(), "{what}");
            assert_eq!(load(&store, &tree).map(|s| s.files), Some(full.files), "{what}");
            assert_eq!(load_last(&store).map(|l| l.tree), Some(tree.clone()), "{what}");
            trees.push(tree);
        }
        assert_eq!(trees[0], trees[1], "nothing changed, nothing new");
        assert_eq!(trees[2], trees[3], "an ignored file is not the code");
        assert!(trees.windows(2).skip(3).all(|w| w[0] != w[1]), "{trees:?}");
        assert_ne!(trees[1], trees[2]);
        // A `last` that names no stored snapshot, or junk, is a full listing again.
        std::fs::write(store.join(LAST), b"junk").unwrap();
        assert_eq!(pass_tree(&root, Some(&store), get), Some(take(&root).unwrap().hash()));
        assert_eq!(pass_tree(&root, None, get), Some(take(&root).unwrap().hash()));
    }

    #[test]
    fn round_trips_odd_paths_and_keeps_the_newest() {
        let s = Snapshot {
            files: vec![
                (
                    "a b\nc.py".into(),
                    Stat {
                        size: 3,
                        mtime_ns: -5,
                        ctime_ns: 7,
                        ino: 9,
                    },
                ),
                (
                    "z".into(),
                    Stat {
                        size: 0,
                        mtime_ns: 1,
                        ctime_ns: 2,
                        ino: 3,
                    },
                ),
            ],
            dirs: vec![(
                "./".into(),
                Stat {
                    size: 4096,
                    mtime_ns: 8,
                    ctime_ns: 8,
                    ino: 2,
                },
            )],
        };
        assert_eq!(decode(&encode(&s)), Some(s.clone()));
        assert_eq!(decode(b"junk"), None);
        // Read in place: the same lists and the same hash.
        let bytes = encode(&s);
        let (v, h) = view(&bytes).unwrap();
        assert_eq!(h, s.hash());
        let owned = |l: &[(&str, Stat)]| l.iter().map(|(p, st)| (p.to_string(), *st)).collect::<Vec<_>>();
        assert_eq!((owned(&v.files), owned(&v.dirs)), (s.files.clone(), s.dirs.clone()));
        // What `encode` does not write is not read in place (decode still reads some).
        let body = |recs: &[&str]| {
            format!(
                "{HEADER}\n{}",
                recs.iter().map(|r| format!("{r}\0")).collect::<String>()
            )
        };
        for bad in [
            &["1 2 3 4 b", "1 2 3 4 a"][..],  // unsorted
            &["1 2 3 4 a", "1 2 3 4 a"][..],  // twice
            &["1 2 3 4 d/", "1 2 3 4 a"][..], // a file after a folder
            &["+1 2 3 4 a"][..],              // a sign
            &["01 2 3 4 a"][..],              // a leading zero
            &["1 -0 3 4 a"][..],              // minus zero
            &["1 2 3 4 "][..],                // no path
        ] {
            assert_eq!(view(body(bad).as_bytes()), None, "{bad:?}");
        }
        assert!(decode(body(&["+1 2 3 4 a"]).as_bytes()).is_some());
        // Every length of number, each digit in each place, and the extremes.
        let mut nums: Vec<i128> = vec![0, i128::from(i64::MIN), i128::from(i64::MAX), i128::from(u64::MAX)];
        let mut x: u64 = 1;
        for _ in 0..20 {
            nums.extend([x, x - 1, x.wrapping_mul(7) / 3, x / 9 * 8 + 3].map(i128::from));
            x = x.saturating_mul(10);
        }
        for n in nums {
            for signed in [false, true] {
                let text = format!("{n} ");
                let mut at = 0;
                let want = (n >= 0 || signed)
                    && if signed {
                        i64::try_from(n).is_ok() || n == i128::from(i64::MAX) + 1
                    } else {
                        u64::try_from(n).is_ok()
                    };
                let got = canonical(text.as_bytes(), &mut at, signed);
                if want || got.is_some() {
                    assert_eq!(got, Some(n), "{text:?} signed={signed}");
                    assert_eq!(at, text.len());
                }
                assert!(canonical(format!("0{n} ").as_bytes(), &mut 0, signed).is_none() || n < 0);
            }
        }
        assert_eq!(canonical(b"18446744073709551616 ", &mut 0, false), None);
        assert_eq!(canonical(b"12345678x ", &mut 0, false), None);
        assert_eq!(canonical(b"123456789 ", &mut 0, false), Some(123_456_789));
        assert_eq!(view(format!("{HEADER}\n1 2 3 4 a").as_bytes()), None, "no final NUL");
        let two = body(&["0 -5 7 9 a", "1 2 3 4 d/"]);
        let (v, h) = view(two.as_bytes()).unwrap();
        assert_eq!((v.files.len(), v.dirs.len()), (1, 1));
        assert_eq!(h, decode(body(&["0 -5 7 9 a"]).as_bytes()).unwrap().hash());
        for bad in [
            "1 2 3 x",
            "1 2 3 4",
            "a 2 3 4 p",
            "1 2 3 -4 p",
            "- 2 3 4 p",
            "1  2 3 4 p",
        ] {
            assert_eq!(decode(format!("{HEADER}\n{bad}\0").as_bytes()), None, "{bad}");
        }
        for n in ["0", "-5", "+7", "18446744073709551615", "-9223372036854775808"] {
            assert_eq!(parse_int(n.as_bytes()), n.parse::<i128>().ok(), "{n}");
        }
        assert_eq!(parse_int(b"18446744073709551616"), None, "no field is that long");
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("trees");
        let h = s.hash();
        save(&d, &s, &h);
        assert_eq!(load(&d, &h), Some(s.clone()));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(d.join(&h)).unwrap().permissions().mode() & 0o777,
            0o600
        );
        for i in 0..KEEP + 3 {
            std::fs::write(d.join(format!("{i:032x}")), b"x").unwrap();
        }
        save(&d, &Snapshot::default(), &Snapshot::default().hash());
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), KEEP);
        assert!(load(&d, "../x").is_none());
    }
}
