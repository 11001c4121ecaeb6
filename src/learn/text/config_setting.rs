//! The setting a configuration step sets: `receive.denyCurrentBranch` of `git -C ../deploy
//! config receive.denyCurrentBranch updateInstead`, `core.bare` of `git config core.bare
//! true`, `global.index-url` of `pip config set global.index-url …`.
//!
//! Why: a step is known by its program, its action and its flags; its operands are the
//! session's (file names, values) and are masked. But what a `config` step sets is no
//! session's value: it is what the step does. `git config receive.denyCurrentBranch
//! updateInstead` (the fix) and `git config core.bare true` (a lie to the tool: the
//! repository declared bare) were one step, keyed and agreeing alike, so an unsafe session
//! stood as support for the safe fix (dev6's `git-push-checked-out-branch`). The setting
//! joins the step's flags ([`crate::learn::history::episodes`]), so steps that set other
//! settings are other fixes.

use crate::learn::text::command_norm::Segment;

/// The marker a setting carries among a step's flags (`setting:core.bare`): no flag, and
/// never masked as a value.
pub const MARK: &str = "setting:";

/// A setting's name: dotted words (`section.key`, `global.index-url`), letters first,
/// no path.
fn is_setting(w: &str) -> bool {
    let mut parts = w.split('.');
    let first = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    let word = |p: &str| {
        p.starts_with(|c: char| c.is_ascii_alphabetic())
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    !rest.is_empty() && word(first) && rest.iter().all(|p| word(p))
}

/// The setting a segment's `config` action sets (`git config`, `npm config set`, `pip
/// config set`): the first dotted name after the word `config`, marked ([`MARK`]). `None`
/// for any other action, or a `config` step that names no setting (`git config --list`).
pub fn of(seg: &Segment) -> Option<String> {
    if seg.action.split(' ').next() != Some("config") {
        return None;
    }
    let at = seg.words.iter().position(|w| w == "config")?;
    seg.words[at + 1..]
        .iter()
        .find(|w| !w.starts_with('-') && is_setting(w))
        .map(|w| format!("{MARK}{w}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    fn setting(cmd: &str) -> Option<String> {
        of(normalize(cmd).primary().unwrap())
    }

    #[test]
    fn a_config_step_is_known_by_what_it_sets() {
        assert_eq!(
            setting("git -C ../deploy config receive.denyCurrentBranch updateInstead").as_deref(),
            Some("setting:receive.denyCurrentBranch")
        );
        assert_eq!(
            setting("git config --file ../www/.git/config receive.denyCurrentBranch updateInstead").as_deref(),
            Some("setting:receive.denyCurrentBranch")
        );
        assert_eq!(
            setting("git config core.bare true").as_deref(),
            Some("setting:core.bare")
        );
        assert_eq!(
            setting("pip config set global.index-url https://pypi.org/simple").as_deref(),
            Some("setting:global.index-url")
        );
    }

    #[test]
    fn no_setting_outside_a_config_step_or_without_a_name() {
        assert_eq!(setting("git config --list"), None);
        assert_eq!(setting("git push origin main"), None);
        assert_eq!(setting("cp config.example.yml config.yml"), None);
    }
}
