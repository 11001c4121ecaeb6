//! FNV-1a, 64-bit: a stable fingerprint of bytes, the same on every machine and Rust
//! version (std's hashers promise neither). Used for note identities and per-project keys.

/// FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A stable, file-name-safe key per project: FNV-1a of the canonical `.fable/` path, as
/// 16 hex digits. Names fable's per-project files in user state (log markers, chain
/// heads, notable stops), so one project always finds its own.
pub fn project_key(fable_dir: &std::path::Path) -> String {
    let canon = fable_dir.canonicalize().unwrap_or_else(|_| fable_dir.to_path_buf());
    format!("{:016x}", fnv1a(canon.as_os_str().as_encoded_bytes()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_vectors() {
        assert_eq!(super::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
