//! What a directive is, below the modules that make it ([`crate::learn::propose::candidates`]) and
//! the ones that judge it ([`crate::learn::judge::directive_evidence`], [`crate::learn::judge::assess`]).

/// Where a directive came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectiveSource {
    /// Steps that ran between the failure and a successful retry.
    Fix,
    /// Flags the successful retry added (or dropped, or the directory it ran in).
    Variant,
    /// The intent achieved another way: another program (`python` → `python3`), or
    /// another action of the program found by a listing step (`make help` → `make check`).
    Substitution,
    /// The follow-up of a session that moved on (not proven by a retry).
    #[expect(
        dead_code,
        reason = "never built since learn/ went private (issue 34); kept by a pure move"
    )]
    Proposed,
    /// The generic fallback for unresolved failures ("do not retry unchanged"): no fix
    /// observed, nothing curated for the anchor.
    Template,
    /// A curated pack (the core pack, [`crate::learn::propose::core_pack`]): written by hand, not
    /// learned; replay-tested against the local history like an imported rule.
    Pack,
    /// An external extractor (`--extractor-cmd`).
    Extractor,
}

impl DirectiveSource {
    pub fn as_str(self) -> &'static str {
        match self {
            DirectiveSource::Fix => "fix",
            DirectiveSource::Variant => "variant",
            DirectiveSource::Substitution => "substitution",
            DirectiveSource::Proposed => "proposed",
            DirectiveSource::Template => "template",
            DirectiveSource::Pack => "pack",
            DirectiveSource::Extractor => "extractor",
        }
    }
}

/// The directive's action, for directive evidence: a step to run (domain, action and
/// required flags), or flags to add to the retried command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectiveAction {
    Step {
        domain: String,
        action: String,
        flags: Vec<String>,
    },
    AddFlags(Vec<String>),
}

/// A fix group's candidate as the sentences that name other ways beside its directive read
/// it ([`crate::learn::propose::fix_directive::steps_instead`],
/// [`crate::learn::propose::step_said_otherwise`]): the sessions that support it, every
/// episode's group key, its own key and action.
pub struct Supporters<'a> {
    pub episodes: &'a [crate::learn::history::episodes::Episode],
    pub support: &'a [usize],
    pub keys: &'a [String],
    pub fix: &'a str,
    pub act: Option<&'a DirectiveAction>,
    pub prep: &'a crate::learn::history::episodes::Prepared,
}

impl<'a> Supporters<'a> {
    /// The supporting episodes outside the fix group: the sessions that took another way.
    pub fn others(&self) -> impl Iterator<Item = &'a crate::learn::history::episodes::Episode> + '_ {
        self.support
            .iter()
            .filter(|&&ei| self.keys[ei] != self.fix)
            .map(|&ei| &self.episodes[ei])
    }
}
