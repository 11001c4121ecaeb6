//! The crate's error type: every failure names the file or input it concerns and,
//! where there is one, what the user can do about it.
//!
//! It also owns the `fable` command's exit codes, so a condition has one wording and one
//! code whichever subcommand meets it (issue 13: "no `.fable/`" used to exit 0 in two
//! commands and 1 in the rest, worded three ways).

use std::path::{Path, PathBuf};

/// The `fable` command's exit codes; the README's Commands table documents them.
pub mod exit {
    /// Done, and nothing was found wrong.
    pub const OK: i32 = 0;
    /// Findings (lint, verify), failures (replay), or an error that is not one below.
    pub const FAILURE: i32 = 1;
    /// The command line is wrong: clap's own usage errors (clap exits 2), a `--project`
    /// that is missing or not a directory; and `fable replay` refusing an untrusted project.
    pub const USAGE: i32 = 2;
    /// `fable fieldtest --gate`: a rejection corpus accepted a rule.
    pub const GATE: i32 = 3;
    /// The folder has no `.fable/` at or above it: fable is opt-in per project, so a script
    /// looping over repositories can tell "not opted in" from "broken".
    pub const NOT_A_PROJECT: i32 = 4;
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: invalid JSON ({source}); fix or remove the file, nothing was changed", path.display())]
    BadJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// No `.fable/` at or above the folder (the canonical path discovery started from).
    #[error("not a fable project: no .fable/ folder at or above {} (run `fable init` there to opt in)", .0.display())]
    NotAProject(PathBuf),
    /// A project folder given on the command line that does not exist.
    #[error("no such directory: {}", .0.display())]
    NoSuchDir(PathBuf),
    /// A project folder given on the command line that is a file (or other non-directory).
    #[error("not a directory: {} (pass the project folder, not a file in it)", .0.display())]
    NotADir(PathBuf),
    #[error("{0}")]
    Msg(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    pub fn msg(m: impl Into<String>) -> Error {
        Error::Msg(m.into())
    }

    /// The `fable` command's exit code for this error (see [`exit`]).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::NotAProject(_) => exit::NOT_A_PROJECT,
            Error::NoSuchDir(_) | Error::NotADir(_) => exit::USAGE,
            _ => exit::FAILURE,
        }
    }

    /// A stable name for `--json` error reports (`{"error": <kind>, …}`).
    pub fn kind(&self) -> &'static str {
        match self {
            Error::NotAProject(_) => "not_a_project",
            Error::NoSuchDir(_) => "no_such_directory",
            Error::NotADir(_) => "not_a_directory",
            _ => "failed",
        }
    }

    /// The error as a `--json` command reports it on stdout: kind, message, and the
    /// path when the error is about one.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({"error": self.kind(), "message": self.to_string()});
        match self {
            Error::NotAProject(p)
            | Error::NoSuchDir(p)
            | Error::NotADir(p)
            | Error::Io { path: p, .. }
            | Error::BadJson { path: p, .. } => {
                v["path"] = serde_json::json!(p);
            }
            Error::Msg(_) => {}
        }
        v
    }
}

/// Attaches a path to an `io::Result`, so errors say which file failed.
pub trait IoContext<T> {
    fn at(self, path: impl AsRef<Path>) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: impl AsRef<Path>) -> Result<T> {
        self.map_err(|e| Error::io(path, e))
    }
}
