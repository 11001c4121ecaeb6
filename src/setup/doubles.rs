//! The one-registration rule: each fable hook is registered in one place.
//!
//! Claude Code merges the user, project and local settings and every enabled plugin, and
//! runs identical command strings once but different ones each time (claude-code-hooks.md).
//! fable writes absolute paths in user and local scope, bare names or
//! `$CLAUDE_PROJECT_DIR/…` in the shared project scope, `${CLAUDE_PLUGIN_ROOT}/…` in the
//! plugin: registered in two of them, every hook runs twice — each command logged twice,
//! each failure counted twice, each stop judged twice (issue 30). The hooks guard against
//! a copy delivered twice, but a double registration is still a mistake to fix where it
//! was made: `fable install` refuses it (naming the place to keep and the command that
//! moves it, `--replace`), and `fable doctor` names one that exists.
//!
//! Pure except [`read`]: which files to look at is the caller's business.

use crate::setup::registrations::{self, Ownership};
use crate::setup::settings::OurEntry;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One fable hook found in a settings (or plugin hooks) file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub event: String,
    pub matcher: Option<String>,
    pub binary: &'static str,
    pub command: String,
}

/// fable's hooks in one place Claude Code reads.
#[derive(Debug, Clone)]
pub struct Registered {
    /// `user`, `project`, `local` or `plugin`.
    pub scope: &'static str,
    pub file: PathBuf,
    /// The `fable install` / `uninstall` flags that address this scope (empty for a plugin).
    pub flags: String,
    pub hooks: Vec<Entry>,
}

/// Reads fable's entries from `file` (none when it is missing or unreadable). `own` is
/// `None` for a plugin's hooks.json, whose fable-named commands are fable's by place.
pub fn read(scope: &'static str, file: PathBuf, flags: String, own: Option<&Ownership>) -> Registered {
    let doc = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| crate::setup::settings::parse(&t).ok())
        .unwrap_or(Value::Null);
    let mut hooks = Vec::new();
    for (event, groups) in doc.get("hooks").and_then(Value::as_object).into_iter().flatten() {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group.get("matcher").and_then(Value::as_str).map(str::to_string);
            for e in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                let Some(command) = e.get("command").and_then(Value::as_str) else {
                    continue;
                };
                let ours = own.is_none_or(|o| o.owns(command));
                if let Some(binary) = registrations::our_binary(command).filter(|_| ours) {
                    hooks.push(Entry {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        binary,
                        command: command.to_string(),
                    });
                }
            }
        }
    }
    Registered {
        scope,
        file,
        flags,
        hooks,
    }
}

/// `${CLAUDE_CONFIG_DIR:-$HOME/.claude}` from this process's environment.
pub fn config_dir() -> Option<PathBuf> {
    let get = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    get("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| get("HOME").map(|h| PathBuf::from(h).join(".claude")))
}

/// The install flags of a scope (`user`, `project` or `local`) whose settings file is
/// `settings` (`<DIR>/.claude/settings*.json` for the project scopes).
pub fn flags_for(scope: &str, settings: &Path) -> String {
    match settings.parent().and_then(Path::parent) {
        Some(dir) if scope != "user" => project_flags(scope, dir),
        _ => "--user".to_string(),
    }
}

/// Every other place Claude Code would read fable's hooks from, next to the settings
/// file `target` of `scope`: user settings, the other project scope of the same folder
/// (for user scope: of the project around the current directory), and fable plugins.
pub fn others_for(scope: &str, target: &Path, own: &Ownership, plugin_dirs: &[PathBuf]) -> Vec<Registered> {
    let config = config_dir();
    let mut out = Vec::new();
    let same = |f: &Path| f == target || crate::setup::portable::same_file(f, target);
    if let Some(c) = &config {
        let f = c.join("settings.json");
        if !same(&f) {
            out.push(read("user", f, "--user".into(), Some(own)));
        }
    }
    let dir = match scope {
        "user" => std::env::current_dir().ok().map(|cwd| {
            let cwd = cwd.canonicalize().unwrap_or(cwd);
            crate::project::find_from(&cwd).map_or(cwd, |p| p.root)
        }),
        _ => target.parent().and_then(Path::parent).map(Path::to_path_buf),
    };
    if let Some(d) = dir {
        for (name, file) in [("project", "settings.json"), ("local", "settings.local.json")] {
            let f = d.join(".claude").join(file);
            if !same(&f) {
                out.push(read(name, f, project_flags(name, &d), Some(own)));
            }
        }
    }
    for p in crate::setup::plugin::roots(config.as_deref(), plugin_dirs) {
        out.push(read("plugin", p.join("hooks").join("hooks.json"), String::new(), None));
    }
    out
}

/// Whether `command` runs what `other` runs by the same string (Claude Code runs it once).
fn same_string(a: &str, b: &str) -> bool {
    registrations::mark(a.trim()) == registrations::mark(b.trim())
}

/// Whether adding `ours` next to `other` would run some hook twice: the same event,
/// matcher and binary under a different command string.
pub fn would_double(ours: &[OurEntry], other: &Registered) -> bool {
    ours.iter().any(|o| {
        other.hooks.iter().any(|h| {
            h.event == o.event
                && h.matcher == o.matcher
                && registrations::our_binary(&o.command) == Some(h.binary)
                && !same_string(&o.command, &h.command)
        })
    })
}

/// `--project DIR` (quoted) as the install flags of a project folder.
pub fn project_flags(scope: &str, dir: &Path) -> String {
    let d = shell_words::quote(&dir.to_string_lossy()).into_owned();
    match scope {
        "local" => format!("--local --project {d}"),
        _ => format!("--project {d}"),
    }
}

/// `name (file)`.
pub fn place(r: &Registered) -> String {
    let what = match r.scope {
        "plugin" => "the fable plugin".to_string(),
        s => format!("{s} settings"),
    };
    format!("{what} ({})", r.file.display())
}

/// Why `fable install <here_flags>` (into `here`) was refused, and the ways out.
pub fn refusal(here: &str, here_file: &Path, here_flags: &str, doubles: &[&Registered]) -> String {
    let places: Vec<String> = doubles.iter().map(|r| place(r)).collect();
    let mut s = format!(
        "refused: fable's hooks are already registered in {}; registering them in {here} settings ({}) as well \
         would run every hook twice (each command logged twice, each failure counted twice, each stop \
         judged twice). Keep one registration:",
        places.join(" and "),
        here_file.display()
    );
    let scopes: Vec<&&Registered> = doubles.iter().filter(|r| r.scope != "plugin").collect();
    let plugin = doubles.iter().any(|r| r.scope == "plugin");
    if !scopes.is_empty() {
        let names: Vec<&str> = scopes.iter().map(|r| r.scope).collect();
        s.push_str(&format!(
            "\n  - keep {}: nothing to do",
            names
                .iter()
                .map(|n| format!("the {n} one"))
                .collect::<Vec<_>>()
                .join(" and ")
        ));
        if !plugin {
            s.push_str(&format!(
                "\n  - move it to {here} settings: `fable install {here_flags} --replace` (removes it from {})",
                names.join(" and ")
            ));
        }
    }
    if plugin {
        s.push_str(
            "\n  - keep the plugin: nothing to do (the plugin registers every hook)\
             \n  - use settings instead: disable the plugin (`/plugin disable fable` in Claude Code, or stop \
             passing --plugin-dir), then run this again",
        );
        for r in &scopes {
            s.push_str(&format!(
                "\n  - the plugin and {} both run the hooks now: `fable uninstall {}`",
                place(r),
                r.flags
            ));
        }
    }
    s
}

/// The doctor's problem text for a hook set registered in several places: what runs
/// twice and the exact commands that leave one registration.
pub fn doctor_message(regs: &[&Registered]) -> String {
    let places: Vec<String> = regs.iter().map(|r| place(r)).collect();
    let scopes: Vec<&&Registered> = regs.iter().filter(|r| r.scope != "plugin").collect();
    let plugin = regs.iter().any(|r| r.scope == "plugin");
    let mut fixes: Vec<String> = Vec::new();
    if plugin {
        fixes.extend(scopes.iter().map(|r| format!("`fable uninstall {}`", r.flags)));
        let fix = fixes.join(" and ");
        return format!(
            "fable's hooks are registered in {} under different commands, so every hook runs twice (each command \
             logged twice, each failure counted twice). Keep the plugin: run {fix}; or keep the settings: disable \
             the plugin (`/plugin disable fable`, or stop passing --plugin-dir)",
            places.join(" and ")
        );
    }
    for keep in &scopes {
        let others: Vec<String> = scopes
            .iter()
            .filter(|r| r.scope != keep.scope)
            .map(|r| format!("`fable uninstall {}`", r.flags))
            .collect();
        fixes.push(format!(
            "keep {}: {} (or `fable install {} --replace`)",
            keep.scope,
            others.join(" and "),
            keep.flags
        ));
    }
    format!(
        "fable's hooks are registered in {} under different commands, so every hook runs twice (each command \
         logged twice, each failure counted twice). Keep one registration — {}",
        places.join(" and "),
        fixes.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(scope: &'static str, command: &str) -> Registered {
        Registered {
            scope,
            file: PathBuf::from(format!("/{scope}.json")),
            flags: format!("--{scope}"),
            hooks: vec![Entry {
                event: "Stop".into(),
                matcher: None,
                binary: "fable-close-guard",
                command: command.into(),
            }],
        }
    }

    fn ours(command: &str) -> Vec<OurEntry> {
        vec![OurEntry {
            event: "Stop".into(),
            matcher: None,
            command: command.into(),
            timeout: 180,
        }]
    }

    #[test]
    fn only_a_different_command_for_the_same_hook_doubles() {
        let user = reg("user", "/opt/bin/fable-close-guard # fable");
        assert!(
            !would_double(&ours("/opt/bin/fable-close-guard"), &user),
            "one string runs once"
        );
        assert!(would_double(&ours("fable-close-guard"), &user));
        let mut sub = ours("fable-close-guard");
        sub[0].event = "SubagentStop".into();
        assert!(!would_double(&sub, &user));
    }

    #[test]
    fn messages_name_the_places_and_the_commands() {
        let user = reg("user", "/x/fable-close-guard");
        let r = refusal(
            "project",
            Path::new("/p/.claude/settings.json"),
            "--project /p",
            &[&user],
        );
        assert!(r.contains("user settings (/user.json)"), "{r}");
        assert!(r.contains("`fable install --project /p --replace`"), "{r}");
        let plugin = reg("plugin", "\"${CLAUDE_PLUGIN_ROOT}/target/release/fable-close-guard\"");
        let r = refusal("user", Path::new("/u"), "--user", &[&plugin]);
        assert!(r.contains("disable the plugin") && !r.contains("--replace"), "{r}");
        let m = doctor_message(&[&plugin, &user]);
        assert!(m.contains("`fable uninstall --user`"), "{m}");
        let project = reg("project", "fable-close-guard");
        let m = doctor_message(&[&user, &project]);
        assert!(
            m.contains("keep user: `fable uninstall --project`") && m.contains("`fable install --user --replace`"),
            "{m}"
        );
    }
}
