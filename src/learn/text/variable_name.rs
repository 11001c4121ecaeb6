//! An upper-case snake word of an error line that names a variable, not an error code:
//! `DATABASE_URL` in "config: DATABASE_URL is not set".
//!
//! Why its own file: the signature reads such words as codes (`ERR_MODULE_NOT_FOUND`,
//! `SQLITE_BUSY`) and keys a failure's class on them; a variable's name is the session's own
//! choice, and keyed on it one cause split into a class per variable (dev5's env-file class,
//! four sessions, four classes of one).

/// Is the upper-case snake word at `a..b` of `text` a variable's name rather than an error
/// code: the text says it is unset or required (`DATABASE_URL is not set`, `API_KEY must be
/// set`, `missing environment variable REDIS_URL`), or refers to it (`$HOME_DIR`, `${X_Y}`)?
/// The name is the session's own, like a quoted name: keyed on it, one cause ("a variable
/// is not set") split into a class per variable. An error code is said as a code
/// (`ERR_MODULE_NOT_FOUND`, `SQLITE_BUSY`), never "is not set".
pub fn names_a_variable(text: &str, a: usize, b: usize) -> bool {
    const UNSET_AFTER: &[&str] = &[
        " is not set",
        " not set",
        " is unset",
        " is required",
        " must be set",
        " is missing",
        " is empty",
        " is undefined",
        " is not defined",
        " not defined",
        " environment variable",
    ];
    const UNSET_BEFORE: &[&str] = &["environment variable ", "env var ", "variable "];
    let after = text[b..].to_ascii_lowercase();
    let before = text[..a].to_ascii_lowercase();
    UNSET_AFTER.iter().any(|p| after.starts_with(p))
        || UNSET_BEFORE.iter().any(|p| before.ends_with(p))
        || before.ends_with('$')
        || before.ends_with("${")
}
