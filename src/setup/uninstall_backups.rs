//! Which `.fable-backup` files beside a settings file `fable uninstall` removes.
//!
//! `fable install` keeps the file it replaces as `<file>.fable-backup`; after an uninstall
//! such a file is either litter or the user's data, and the difference is in its content,
//! not its name. A demanding user expects no trace of fable in `~/.claude` or a project
//! once it is uninstalled, and never to lose settings of their own. So a backup is removed
//! when it holds nothing the settings file does not hold now, apart from fable's own hooks:
//! the same bytes, the same settings once fable's entries are taken out, or fable's
//! entries alone. Any other backup (an earlier version of the user's settings, a file fable
//! cannot read) is kept and named, with why, so the user decides.

use crate::setup::registrations::Ownership;
use crate::setup::settings;
use serde_json::Value;

/// What to do with one backup, and why (the words the output uses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Remove(&'static str),
    Keep(&'static str),
}

/// Judges a backup's bytes against the settings file as the uninstall leaves it (`now`:
/// `None` when there is no file any more).
pub fn judge(backup: &[u8], now: Option<&[u8]>, own: &Ownership) -> Verdict {
    if now == Some(backup) {
        return Verdict::Remove("the same as the settings file now");
    }
    let Some(doc) = read(backup) else {
        return Verdict::Keep("not a settings file fable can read; look at it, then delete it if you do not need it");
    };
    let Ok((without_ours, summary)) = settings::uninstall_as(doc, own) else {
        return Verdict::Keep("not shaped like settings; look at it, then delete it if you do not need it");
    };
    let current = match now {
        Some(bytes) => match read(bytes) {
            Some(d) => d,
            None => return Verdict::Keep("the settings file now cannot be compared with it"),
        },
        None => Value::Object(serde_json::Map::new()),
    };
    let (a, b) = (normal(without_ours), normal(current));
    if a.as_object().is_some_and(|m| m.is_empty()) {
        return Verdict::Remove(if summary.removed.is_empty() {
            "it held no settings"
        } else {
            "it held only fable's hooks"
        });
    }
    if a == b {
        return if summary.removed.is_empty() {
            Verdict::Remove("the same settings as the file now")
        } else {
            Verdict::Remove("the settings file now, plus fable's hooks")
        };
    }
    Verdict::Keep("it holds settings that differ from the file now (an earlier version of yours?); delete it once you do not need it")
}

fn read(bytes: &[u8]) -> Option<Value> {
    let doc = settings::parse(std::str::from_utf8(bytes).ok()?).ok()?;
    settings::check_shape(&doc).ok()?;
    Some(doc)
}

/// An empty `hooks` object says nothing: `{"hooks": {}}` and `{}` are the same settings.
fn normal(mut doc: Value) -> Value {
    if let Some(top) = doc.as_object_mut() {
        if top
            .get("hooks")
            .and_then(Value::as_object)
            .is_some_and(|h| h.is_empty())
        {
            top.shift_remove("hooks");
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own() -> Ownership {
        Ownership::with_dirs(std::iter::empty())
    }

    const OURS: &str =
        r#""hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/b/fable-close-guard # fable"}]}]}"#;

    #[test]
    fn litter_goes_and_the_users_own_settings_stay() {
        let now = br#"{"model": "sonnet"}"#;
        assert!(matches!(judge(now, Some(now), &own()), Verdict::Remove(_)));
        let with_ours = format!(r#"{{"model": "sonnet", {OURS}}}"#);
        assert_eq!(
            judge(with_ours.as_bytes(), Some(now), &own()),
            Verdict::Remove("the settings file now, plus fable's hooks")
        );
        let only_ours = format!("{{{OURS}}}");
        assert_eq!(
            judge(only_ours.as_bytes(), None, &own()),
            Verdict::Remove("it held only fable's hooks")
        );
        assert_eq!(
            judge(only_ours.as_bytes(), Some(now), &own()),
            Verdict::Remove("it held only fable's hooks")
        );
        // Reformatted, or an empty hooks object: the same settings.
        assert!(matches!(
            judge(b"{\n  \"model\":\"sonnet\", \"hooks\": {}\n}", Some(now), &own()),
            Verdict::Remove(_)
        ));
        // The user's earlier settings, or a file that is not settings: kept.
        assert!(matches!(
            judge(br#"{"model": "opus"}"#, Some(now), &own()),
            Verdict::Keep(_)
        ));
        assert!(matches!(judge(br#"{"model": "opus"}"#, None, &own()), Verdict::Keep(_)));
        assert!(matches!(judge(b"not json", Some(now), &own()), Verdict::Keep(_)));
        // A user's own hook that is not fable's is the user's data.
        let theirs = br#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}"#;
        assert!(matches!(judge(theirs, None, &own()), Verdict::Keep(_)));
    }
}
