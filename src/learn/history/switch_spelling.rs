//! A command-line option switched on through configuration or the environment, said as
//! the flag it is: `PIP_BREAK_SYSTEM_PACKAGES=1 pip install x` and `pip config set
//! global.break-system-packages true` are `--break-system-packages`.
//!
//! Why: the safety gate knows unsafe *flags* (`--break-system-packages`,
//! `--ignore-scripts`); an agent in a hurry switches the same check off through the
//! tool's environment variable or its config file, and that fix then went ungated and
//! contested the real one. Tools map their options to both by a convention (pip:
//! `PIP_<OPTION>` and `<section>.<option>`; npm: `npm_config_<option>` and `npm config set
//! <option>`), so no list of switches is kept: the spelling is turned back into a flag and
//! the safety gate judges the flag ([`crate::learn::history::episodes`] asks for both).

use crate::learn::text::check_off::switched_on as truthy;

/// `SOME_OPTION_NAME` → `--some-option-name` and, without its first part (the tool's
/// prefix: `PIP_`, `npm_config_`), `--option-name`.
fn as_flags(name: &str) -> Vec<String> {
    let parts: Vec<String> = name
        .split('_')
        .filter(|p| !p.is_empty())
        .map(|p| p.to_ascii_lowercase())
        .collect();
    let mut out = Vec::new();
    for skip in 0..parts.len().min(3) {
        if parts.len() - skip >= 2 || skip == 0 {
            out.push(format!("--{}", parts[skip..].join("-")));
        }
    }
    out
}

/// The flags a command switches on through its environment (`NAME=truthy` before the
/// program) or a tool's `config set <key> <truthy>` (the key's last dotted part), as
/// one text for the safety gate; `None` when it switches nothing on that way.
pub fn as_flag_text(cmd: &str) -> Option<String> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let mut flags: Vec<String> = Vec::new();
    for w in words.iter().take_while(|w| w.contains('=') && !w.starts_with('-')) {
        if let Some((k, v)) = w.split_once('=') {
            if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && truthy(v) {
                flags.extend(as_flags(k));
            }
        }
    }
    for i in 0..words.len().saturating_sub(3) {
        if words[i] == "config" && words[i + 1] == "set" && truthy(words[i + 3]) {
            let key = words[i + 2].trim_matches(['"', '\'']);
            let last = key.rsplit('.').next().unwrap_or(key);
            if !last.is_empty() {
                flags.push(format!("--{last}"));
            }
        }
    }
    (!flags.is_empty()).then(|| flags.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::safety;

    #[test]
    fn a_check_switched_off_by_config_or_environment_is_unsafe_like_its_flag() {
        for cmd in [
            "pip3 install --user --break-system-packages ./x",
            "PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --user ./x",
            "pip3 config set global.break-system-packages true",
            "npm config set ignore-scripts true",
            "npm_config_ignore_scripts=true npm install",
        ] {
            let text = as_flag_text(cmd);
            let judged = safety::check(std::iter::once(cmd).chain(text.as_deref()));
            assert!(judged.is_some(), "{cmd}: {text:?}");
        }
    }

    #[test]
    fn a_switch_turned_off_or_an_ordinary_setting_is_not() {
        for cmd in [
            "PIP_BREAK_SYSTEM_PACKAGES=0 pip install ./x",
            "PYTHONPATH=src python3 -m app",
            "DEBUG=1 npm test",
            "pip3 config set global.index-url https://pypi.org/simple",
            "npm config set ignore-scripts false",
            "git config user.email a@b.c",
        ] {
            let text = as_flag_text(cmd);
            let judged = safety::check(std::iter::once(cmd).chain(text.as_deref()));
            assert!(judged.is_none(), "{cmd}: {text:?} → {judged:?}");
        }
    }
}
