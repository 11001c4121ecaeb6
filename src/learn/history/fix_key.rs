//! The key of an episode's fix: which sessions did "the same fix" — the grouping every
//! candidate, contest and agreement stands on.
//!
//! Why apart from [`crate::learn::history::episodes`]: extracting what happened is one judgement,
//! deciding which of those happenings are one lesson (masked values, canonical flag
//! spellings, every directory wrapper one fix) is another.

use crate::learn::history::episodes::Episode;
use crate::learn::text::retry_context::is_env_assignment;

impl Episode {
    /// The key of the fix, masked so that `-m 512m` and `-m 1g` are the same fix:
    /// `steps:git pull --rebase`, `variant:--network=host`, or `""` for none.
    pub fn fix_key(&self) -> String {
        if let Some(v) = &self.verb {
            return format!("verb:{} {}", v.domain, v.action);
        }
        if let Some(l) = &self.listing {
            return format!("substitute:{} {}", l.domain, l.action);
        }
        if let Some(p) = &self.substitute {
            // Every project environment's copy of a program is one fix (`.venv/bin/python`,
            // `.env/bin/python3`): `<env>/bin/python`.
            return match p.rsplit_once("/bin/") {
                Some((_, prog)) => format!(
                    "substitution:<env>/bin/{}",
                    prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
                ),
                None => format!("substitution:{p}"),
            };
        }
        if !self.steps.is_empty() {
            let parts: Vec<String> = self
                .steps
                .iter()
                .map(|s| {
                    let mut f: Vec<String> = s.flags.iter().map(|f| mask_value(f)).collect();
                    f.sort();
                    f.dedup();
                    format!("{} {} {}", s.domain, s.action, f.join(" ")).trim().to_string()
                })
                .collect();
            // A proven fix and the same step proposed by a session that moved on are one
            // lesson: they share the key (the directive wording differs, not the lesson).
            return format!("steps:{}", parts.join(" && "));
        }
        if !self.variant.is_empty() {
            // Changed positional arguments (other versions, other files) are one kind of
            // fix; added flags are keyed by the flags themselves.
            // Every way of running it in another directory (`cd X &&`, `-C X`,
            // `--prefix X`, `--manifest-path X/Cargo.toml`) is one fix: `cd <v>`.
            let mut v: Vec<String> = Vec::new();
            let mut words = self.variant.iter();
            while let Some(w) = words.next() {
                v.push(match crate::learn::text::inspection::dir_flag(w) {
                    Some(takes_value) => {
                        if takes_value {
                            words.next();
                        }
                        "cd <v>".into()
                    }
                    None if w.starts_with("without:") => w.clone(),
                    None if w.starts_with("quote:") => "quote:<v>".into(),
                    None if w.starts_with('-') => mask_value(crate::learn::text::spelling::canonical_flag(
                        &self.domain,
                        &self.action,
                        w,
                    )),
                    None if is_env_assignment(w) => mask_value(w),
                    None if w.starts_with("cd ") => "cd <v>".into(),
                    None => "<args>".into(),
                });
            }
            v.sort();
            v.dedup();
            return format!("variant:{}", v.join(" "));
        }
        String::new()
    }
}

/// `-m=512m` → `-m=<v>`, `512m` → `<v>`; flags without values unchanged.
fn mask_value(w: &str) -> String {
    if let Some((k, _)) = w.split_once('=') {
        return format!("{k}=<v>");
    }
    if w.starts_with('-') {
        return w.to_string();
    }
    if w.chars().any(|c| c.is_ascii_digit()) || w.contains('/') || w.contains('.') {
        return "<v>".to_string();
    }
    w.to_string()
}
