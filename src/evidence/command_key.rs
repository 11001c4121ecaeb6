//! How a logged command is keyed: whitespace collapsed, and one leading `cd <dir> &&`
//! allowed on the logged side. Lives with the evidence because the outcome index files
//! each record under these keys as it is appended; corroboration looks citations up by
//! the same keys, so the two can never disagree.

/// Collapses runs of whitespace to one space and trims.
pub fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Strips one leading `cd <dir> &&` from a normalised command. Returns the directory
/// token as written and the rest.
pub fn strip_cd(cmd: &str) -> Option<(&str, &str)> {
    let rest = cmd.strip_prefix("cd")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start();
    let end = match rest.chars().next()? {
        q @ ('"' | '\'') => 1 + rest[1..].find(q)? + 1,
        _ => rest
            .find(|c: char| c.is_whitespace() || matches!(c, '&' | ';' | '|'))
            .unwrap_or(rest.len()),
    };
    if end == 0 {
        return None;
    }
    let (dir, after) = rest.split_at(end);
    let tail = after.trim_start().strip_prefix("&&")?.trim_start();
    (!tail.is_empty()).then_some((dir, tail))
}
