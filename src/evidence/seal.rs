//! Sealed records: evidence only this machine's hook could have written.
//!
//! The log lives in the project, so anything can write to it: the agent with `echo >>`, a
//! Write-tool rewrite, a commit from upstream, records copied from another machine. What
//! none of those has is a secret that never enters a repository: a per-user key in
//! fable's private state folder (`${XDG_STATE_HOME:-~/.local/state}/fable/key`, 0600,
//! created on first use). The hook seals each record with HMAC-SHA256 under that key,
//! over the project's `.fable/` path and the record's exact bytes, and links it to the
//! previous sealed record (`chain`: the first 16 hex digits of that record's MAC), so a
//! removed record shows as a break. Only sealed records corroborate a citation or
//! qualify a command for replay.
//!
//! The sealed line is the record's JSON with `,"mac":"<64 hex>"` inserted before the
//! closing brace: the MAC covers every byte before it, so a verifier needs no canonical
//! re-serialisation and outside tools still read an ordinary record with two optional
//! fields (`chain`, `mac`; `formats.md` §1 allows adding optional fields).
//!
//! What this does not stop: a process running as the same user can read the key. The
//! PreToolUse log guard makes the plain attempts visible; SECURITY.md says the rest.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::io::Read;
use std::path::{Path, PathBuf};

type HmacSha256 = Hmac<Sha256>;

/// Length of the key in bytes.
const KEY_LEN: usize = 32;
/// Hex digits of the previous MAC kept in `chain`.
pub const CHAIN_LEN: usize = 16;
/// The suffix a sealed line ends with: `,"mac":"` + 64 hex + `"}`.
const MAC_OPEN: &str = ",\"mac\":\"";
const MAC_HEX: usize = 64;

/// The per-user sealing key.
#[derive(Clone)]
pub struct Key([u8; KEY_LEN]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(…)")
    }
}

/// Where the key lives, when a state folder can be named.
pub fn key_path(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    crate::session_state::user_state_dir(get).map(|d| d.join("key"))
}

impl Key {
    /// A key from raw bytes (tests, and the reader below).
    pub fn from_bytes(b: [u8; KEY_LEN]) -> Key {
        Key(b)
    }

    /// Reads the key at `path`; `None` when it is absent or not a private regular file
    /// of exactly the key's length (a key anyone else could have written is no key).
    pub fn read(path: &Path) -> Option<Key> {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        let f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .ok()?;
        let m = f.metadata().ok()?;
        if !m.is_file() || m.len() != KEY_LEN as u64 || m.mode() & 0o077 != 0 {
            return None;
        }
        let mut b = [0u8; KEY_LEN];
        (&f).read_exact(&mut b).ok()?;
        Some(Key(b))
    }

    /// Reads the key, creating it first when absent. Creation is race-free: the bytes go
    /// to a private temp file that is hard-linked into place, which fails if another
    /// hook won the race, and then everyone reads the winner's key.
    pub fn load_or_create(path: &Path) -> std::io::Result<Key> {
        if let Some(k) = Key::read(path) {
            return Ok(k);
        }
        if path.symlink_metadata().is_ok() {
            return Err(std::io::Error::other(format!(
                "{} exists but is not a private 32-byte file (mode 0600); move it away and fable makes a new key",
                path.display()
            )));
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        crate::session_state::mkdir_private(dir).map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut b = [0u8; KEY_LEN];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
        let tmp = dir.join(format!(".key.{}.tmp", std::process::id()));
        {
            use std::io::Write;
            use std::os::unix::fs::OpenOptionsExt;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&tmp)?;
            f.write_all(&b)?;
            f.sync_all()?;
        }
        let linked = std::fs::hard_link(&tmp, path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(Key(b)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Key::read(path).ok_or_else(|| std::io::Error::other(format!("{} is not a usable key", path.display())))
            }
            Err(e) => Err(e),
        }
    }

    fn mac(&self, scope: &Path, body: &[u8]) -> String {
        let mut m = HmacSha256::new_from_slice(&self.0).expect("HMAC takes any key length");
        let scope = scope.as_os_str().as_encoded_bytes();
        m.update(&(scope.len() as u64).to_le_bytes());
        m.update(scope);
        m.update(body);
        hex(&m.finalize().into_bytes())
    }

    /// A MAC over several text fields (each length-prefixed, so no two field lists give
    /// the same bytes): how a rule promoted on this machine is marked as such.
    pub fn mac_fields(&self, scope: &Path, fields: &[&str]) -> String {
        let mut body = Vec::new();
        for f in fields {
            body.extend_from_slice(&(f.len() as u64).to_le_bytes());
            body.extend_from_slice(f.as_bytes());
        }
        self.mac(scope, &body)
    }

    /// True when `mac` is [`Key::mac_fields`] of these fields.
    pub fn verify_fields(&self, scope: &Path, fields: &[&str], mac: &str) -> bool {
        constant_time_eq(self.mac_fields(scope, fields).as_bytes(), mac.as_bytes())
    }

    /// Seals a serialised record line (`{…}` with or without its newline): returns the
    /// line with the MAC inserted before the closing brace, newline-terminated.
    pub fn seal(&self, scope: &Path, line: &str) -> String {
        let body = line.trim_end_matches('\n');
        let open = body.strip_suffix('}').unwrap_or(body);
        let mac = self.mac(scope, format!("{open}}}").as_bytes());
        format!("{open}{MAC_OPEN}{mac}\"}}\n")
    }

    /// The verified MAC of a sealed line, or `None` when the line carries no MAC or one
    /// that this key did not make for this scope.
    pub fn verify(&self, scope: &Path, line: &[u8]) -> Option<String> {
        let (body_open, mac) = split_sealed(line)?;
        let mut body = Vec::with_capacity(body_open.len() + 1);
        body.extend_from_slice(body_open);
        body.push(b'}');
        let want = self.mac(scope, &body);
        constant_time_eq(want.as_bytes(), mac).then_some(want)
    }
}

/// Splits `{…,"mac":"<hex>"}` into the part before `,"mac"` and the hex digits.
fn split_sealed(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let rest = line.strip_suffix(b"\"}")?;
    if rest.len() < MAC_HEX + MAC_OPEN.len() {
        return None;
    }
    let (head, mac) = rest.split_at(rest.len() - MAC_HEX);
    let open = head.strip_suffix(MAC_OPEN.as_bytes())?;
    mac.iter().all(u8::is_ascii_hexdigit).then_some((open, mac))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Lower-case hex by table: a `write!` per byte was a tenth of verifying 200 rule seals.
fn hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push(DIGITS[usize::from(x >> 4)] as char);
        s.push(DIGITS[usize::from(x & 0xf)] as char);
    }
    s
}

/// The `chain` value that links a record to the sealed record whose MAC is `prev_mac`.
pub fn chain_of(prev_mac: &str) -> String {
    prev_mac.chars().take(CHAIN_LEN).collect()
}

/// The `chain` and `mac` values of a line, read from its last bytes without parsing
/// (not verified): lets a reader follow the chain over lines it does not otherwise read.
pub fn parts(line: &[u8]) -> Option<(Option<&[u8]>, &[u8])> {
    let (open, mac) = split_sealed(line)?;
    const CHAIN_OPEN: &[u8] = b",\"chain\":\"";
    let chain = open
        .strip_suffix(b"\"")
        .filter(|h| h.len() >= CHAIN_LEN + CHAIN_OPEN.len())
        .and_then(|h| {
            let (head, c) = h.split_at(h.len() - CHAIN_LEN);
            head.ends_with(CHAIN_OPEN).then_some(c)
        });
    Some((chain, mac))
}

/// Follows the chain over a log's lines in order, from each line's last bytes: a sealed
/// line whose `chain` is not the previous sealed line's MAC marks a removed or changed
/// record. Lines without a MAC (torn, hand-written) are not links and are passed over.
#[derive(Debug, Default)]
pub struct ChainWalk {
    /// The previous sealed line's MAC (hex digits; kept inline: this runs on every line).
    prev: Option<[u8; MAC_HEX]>,
    /// Where the chain broke: (file, 1-based line).
    pub breaks: Vec<(PathBuf, usize)>,
}

impl ChainWalk {
    /// Takes the next line; true when the chain breaks at it.
    pub fn step(&mut self, file: &Path, lineno: usize, line: &[u8]) -> bool {
        let Some((chain, mac)) = parts(line) else { return false };
        let broke = match (&self.prev, chain) {
            (Some(prev), Some(c)) => !prev.starts_with(c),
            (Some(_), None) => true,
            // The oldest kept record links to one that rotation dropped: a start.
            (None, _) => false,
        };
        let mut m = [0u8; MAC_HEX];
        m.copy_from_slice(mac);
        self.prev = Some(m);
        if broke {
            self.breaks.push((file.to_path_buf(), lineno));
        }
        broke
    }

    /// True when the last sealed line is not the newest record this machine sealed (the
    /// end of the log was cut). Unknown head: nothing to compare.
    pub fn cut_before(&self, head: Option<&str>) -> bool {
        match (head, &self.prev) {
            (Some(h), Some(p)) => h.as_bytes() != &p[..],
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

/// The sealing side of a journal: the key and the file, in user state, that remembers
/// the MAC of the newest record sealed for this project. A record removed from the end
/// of the log leaves no gap in the file, but it does leave the head pointing at it: the
/// next record chains to the head, so the gap shows, and a reader compares the head with
/// the last record it finds.
#[derive(Debug, Clone)]
pub struct Sealer {
    pub key: Key,
    pub head: Option<PathBuf>,
}

impl Sealer {
    /// The writer's sealer: the key is created on first use.
    pub fn for_user(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Result<Sealer, String> {
        let head = head_path(&get, fable_dir);
        Ok(Sealer {
            key: user_key(get)?,
            head,
        })
    }

    /// A reader's sealer: only an existing key (no key, nothing verifies).
    pub fn existing(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<Sealer> {
        let head = head_path(&get, fable_dir);
        Some(Sealer {
            key: existing_key(get)?,
            head,
        })
    }

    /// The MAC of the newest record sealed for this project, as remembered.
    pub fn read_head(&self) -> Option<String> {
        let text = std::fs::read_to_string(self.head.as_ref()?).ok()?;
        let t = text.trim();
        (t.len() == MAC_HEX && t.bytes().all(|b| b.is_ascii_hexdigit())).then(|| t.to_string())
    }

    /// Remembers `mac` as the newest (best effort: without it only the end-of-log check
    /// is lost, never a record).
    pub fn write_head(&self, mac: &str) {
        let Some(p) = &self.head else { return };
        if let Some(dir) = p.parent() {
            let _ = crate::session_state::mkdir_private(dir);
        }
        let _ = crate::session_state::overwrite_small(p, mac.as_bytes());
    }
}

/// `<state>/fable/heads/<hash of the canonical .fable path>`.
fn head_path(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<PathBuf> {
    let key = crate::fingerprint::project_key(fable_dir);
    crate::session_state::user_state_dir(get).map(|d| d.join("heads").join(key))
}

/// The key a hook or command uses: read or created in the user's state folder. The
/// error says why no key could be had (the log then holds unsealed records, which
/// corroborate nothing — the close guard says so).
pub fn user_key(get: impl Fn(&str) -> Option<String>) -> Result<Key, String> {
    let path = key_path(get).ok_or("neither XDG_STATE_HOME nor HOME is set, so fable has no key")?;
    Key::load_or_create(&path).map_err(|e| format!("fable's key {}: {e}", path.display()))
}

/// The key if it already exists (readers never create one: no key, nothing verifies).
pub fn existing_key(get: impl Fn(&str) -> Option<String>) -> Option<Key> {
    key_path(get).and_then(|p| Key::read(&p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_two_lower_case_digits_per_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let want: String = all.iter().map(|x| format!("{x:02x}")).collect();
        assert_eq!(hex(&all), want);
    }

    fn key(b: u8) -> Key {
        Key::from_bytes([b; KEY_LEN])
    }

    #[test]
    fn seal_verifies_only_under_the_same_key_scope_and_bytes() {
        let k = key(1);
        let line = r#"{"v":1,"cmd":"cargo test","exit":0,"ok":true,"tail":""}"#;
        let sealed = k.seal(Path::new("/p/.fable"), line);
        assert!(sealed.starts_with(r#"{"v":1,"cmd":"cargo test","exit":0,"ok":true,"tail":"","mac":""#));
        assert!(sealed.ends_with("\"}\n"));
        let v: serde_json::Value = serde_json::from_str(&sealed).unwrap();
        assert_eq!(v["cmd"], "cargo test");
        assert!(k.verify(Path::new("/p/.fable"), sealed.as_bytes()).is_some());
        assert!(key(2).verify(Path::new("/p/.fable"), sealed.as_bytes()).is_none());
        assert!(k.verify(Path::new("/q/.fable"), sealed.as_bytes()).is_none());
        let altered = sealed.replace("\"exit\":0", "\"exit\":1");
        assert!(k.verify(Path::new("/p/.fable"), altered.as_bytes()).is_none());
        assert!(k.verify(Path::new("/p/.fable"), line.as_bytes()).is_none());
        assert!(k.verify(Path::new("/p/.fable"), b"").is_none());
    }

    #[test]
    fn key_is_created_once_private_and_refused_when_not_private() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("state/fable/key");
        let a = Key::load_or_create(&p).unwrap();
        let b = Key::load_or_create(&p).unwrap();
        assert_eq!(a.0, b.0);
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(Key::read(&p).is_none());
        assert!(
            Key::load_or_create(&p).is_err(),
            "a readable key is not replaced silently"
        );
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        assert!(Key::read(&link).is_none());
    }

    #[test]
    fn chain_takes_a_prefix_and_parts_read_it_back() {
        assert_eq!(chain_of(&"ab".repeat(32)), "abababababababab");
        let k = key(3);
        let line = format!(r#"{{"v":1,"cmd":"x","chain":"{}"}}"#, chain_of(&"cd".repeat(32)));
        let sealed = k.seal(Path::new("/p"), &line);
        let (chain, mac) = parts(sealed.as_bytes()).unwrap();
        assert_eq!(chain, Some(&b"cdcdcdcdcdcdcdcd"[..]));
        assert_eq!(
            std::str::from_utf8(mac).unwrap(),
            k.verify(Path::new("/p"), sealed.as_bytes()).unwrap()
        );
        let first = k.seal(Path::new("/p"), r#"{"v":1,"cmd":"x"}"#);
        assert_eq!(parts(first.as_bytes()).unwrap().0, None);
        assert!(parts(br#"{"v":1}"#).is_none());
    }
}
