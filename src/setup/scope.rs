//! Which settings file `fable install`/`uninstall` edit: the scope flags and their meaning.
//!
//! Kept apart from the installer so the flag convention (`--project DIR` for the folder, as
//! in every other command; `--scope` for the file) is read in one place.

use std::path::PathBuf;

/// Which settings file to edit, and in which project.
///
/// One convention with the other commands: `--project DIR` names the project (here it also
/// selects the shared project scope unless `--scope`/`--local` says otherwise), and
/// `--scope user|project|local` names the settings file. The older spellings stay working:
/// a bare `--project` (the project scope in the current directory), `--local`, `--user`,
/// and `--dir DIR` (hidden).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ScopeArgs {
    /// Which settings file: user = ${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json (the
    /// default); project = <DIR>/.claude/settings.json, shared through git and written
    /// portably (bare names on PATH, or under $CLAUDE_PROJECT_DIR); local =
    /// <DIR>/.claude/settings.local.json, not committed.
    #[arg(long, value_enum, value_name = "SCOPE", conflicts_with_all = ["user", "local"])]
    pub scope: Option<ScopeName>,
    /// The project folder (default: the current directory); alone, it selects --scope project.
    #[arg(long, value_name = "DIR", num_args = 0..=1, conflicts_with = "user")]
    pub project: Option<Option<PathBuf>>,
    /// Same as --scope user.
    #[arg(long, conflicts_with = "local")]
    pub user: bool,
    /// Same as --scope local.
    #[arg(long)]
    pub local: bool,
    /// Older spelling of --project DIR's folder.
    #[arg(long, value_name = "DIR", hide = true)]
    pub dir: Option<PathBuf>,
}

/// The values of `--scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScopeName {
    User,
    Project,
    Local,
}

impl ScopeArgs {
    /// The scope these flags choose: `--scope`, else `--local`/`--user`, else project when a
    /// project was named, else user.
    pub fn chosen(&self) -> Scope {
        match self.scope {
            Some(ScopeName::User) => Scope::User,
            Some(ScopeName::Project) => Scope::Project,
            Some(ScopeName::Local) => Scope::Local,
            None if self.local => Scope::Local,
            None if self.user => Scope::User,
            None if self.project.is_some() => Scope::Project,
            None => Scope::User,
        }
    }

    /// The project folder named by `--project DIR` or the hidden `--dir DIR`.
    pub fn folder(&self) -> Option<&PathBuf> {
        self.project.as_ref().and_then(|p| p.as_ref()).or(self.dir.as_ref())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    User,
    Project,
    Local,
}

impl Scope {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        }
    }
}
