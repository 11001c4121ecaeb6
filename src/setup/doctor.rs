//! `fable doctor`: is fable really running in Claude Code here, and if not, why and what to do.
//!
//! Why a doctor: every way a hook can break is silent. Claude Code treats a missing binary,
//! a crash or a hang as a non-blocking error and tells the model nothing; a 2.0.55 ignores a
//! whole settings file over one unknown event; a hook registered in two scopes under two
//! spellings runs twice (identical command strings run once, claude-code-hooks.md); a stale
//! copy on `PATH` is what a bare-name project entry runs. The doctor looks at every scope
//! Claude Code merges — user, project, local, and a fable plugin when one is detectable —
//! lists fable's hooks per event, resolves and probes each one
//! ([`crate::setup::doctor_probe`]), and checks the lot against the Claude Code version.
//!
//! Exit 0 when nothing is wrong, 1 when anything is (each problem says what to do). Notes
//! are facts that need no action. `--project DIR` picks the project whose scopes are
//! checked (default: found from the current directory); outside a project only user scope
//! is checked, which is not an error: fable may be installed before any project opts in.

use crate::error::{exit, Error, Result};
use crate::project_arg::ProjectArg;
use crate::setup::claude_version::{self, Detected};
use crate::setup::doctor_probe::{self, Answer, Resolution, Sandbox};
use crate::setup::doctor_report::{matcher_text, not_run_note, print_report, scope_json, Hook, Problem, Scope};
use crate::setup::doctor_trust;
use crate::setup::install;
use crate::setup::install_state;
use crate::setup::portable::{same_file, which};
use crate::setup::registrations::{self, Ownership};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    #[command(flatten)]
    pub codex: crate::setup::codex_hooks::HostArg,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// The Claude Code program to ask for its version (default: $FABLE_CLAUDE_BIN, else `claude`).
    #[arg(long, value_name = "PATH")]
    pub claude: Option<PathBuf>,
    /// A fable plugin folder Claude Code loads with `claude --plugin-dir DIR` (nothing on
    /// disk records that flag): checked as a plugin scope.
    #[arg(long, value_name = "DIR")]
    pub plugin_dir: Vec<PathBuf>,
    /// Also probe hook programs fable did not install on this machine (a repository's own
    /// `fable-*`): by default they are listed as not run ([`crate::setup::doctor_trust`]).
    #[arg(long)]
    pub run_project_hooks: bool,
}

/// What `check_hook` needs to decide whether it may run a program.
struct Policy<'a> {
    root: Option<&'a Path>,
    exe_dir: Option<PathBuf>,
    /// `--run-project-hooks`.
    run_all: bool,
}

/// `fable doctor`.
pub fn run(a: &DoctorArgs) -> Result<i32> {
    let mut notes: Vec<String> = Vec::new();
    let mut problems: Vec<Problem> = Vec::new();
    let root = project_root(&a.project, &mut notes)?;
    let program = claude_version::claude_program(
        a.claude.as_deref().map(Path::as_os_str),
        std::env::var_os("FABLE_CLAUDE_BIN"),
    );
    let detected = claude_version::read_version(&program, claude_version::VERSION_TIMEOUT);
    version_notes(&detected, &mut notes);

    let sandbox = match Sandbox::new() {
        Ok(s) => Some(s),
        Err(e) => {
            notes.push(format!(
                "could not create a temporary folder to probe the hooks in ({e}); checked only that they resolve"
            ));
            None
        }
    };
    let state = install_state::path_from_env()
        .map(|p| install_state::load(&p))
        .unwrap_or_default();
    let own = install::ownership(&state, &[]);
    let mut cache: ProbeCache = HashMap::new();
    let policy = Policy {
        root: root.as_deref(),
        exe_dir: std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf)),
        run_all: a.run_project_hooks,
    };
    let mut scopes = Vec::new();
    for (name, file, flags, plugin_root) in scope_files(root.as_deref(), &a.plugin_dir, &mut notes) {
        let mut vars: Vec<(&str, &Path)> = Vec::new();
        if let Some(r) = root.as_deref() {
            vars.push(("CLAUDE_PROJECT_DIR", r));
        }
        if let Some(p) = plugin_root.as_deref() {
            vars.push(("CLAUDE_PLUGIN_ROOT", p));
        }
        let ownership = if plugin_root.is_some() { None } else { Some(&own) };
        let mut scope = read_scope(name, file, flags, ownership);
        for h in &mut scope.hooks {
            check_hook(h, &vars, sandbox.as_ref(), &mut cache, &state, &policy);
        }
        scopes.push(scope);
    }
    find_problems(&scopes, &detected, &mut problems, &mut notes);
    not_run_note(&scopes, &mut notes);

    if a.json {
        let report = json!({
            "healthy": problems.is_empty(),
            "claude_version": detected.version().map(|v| v.to_string()),
            "claude_version_source": detected.source(),
            "project": root,
            "scopes": scopes.iter().map(scope_json).collect::<Vec<_>>(),
            "problems": problems.iter().map(|p| json!({"kind": p.kind, "message": p.message})).collect::<Vec<_>>(),
            "notes": notes,
        });
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        print_report(&detected, &scopes, &problems, &notes);
    }
    Ok(if problems.is_empty() { exit::OK } else { exit::FAILURE })
}

/// The project whose scopes to check: discovered as the hooks discover it. Outside a
/// project, none (user scope only); a folder named with `--project` that has no `.fable/`
/// is still checked (its `.claude/` settings apply there), with a note.
fn project_root(arg: &ProjectArg, notes: &mut Vec<String>) -> Result<Option<PathBuf>> {
    match arg.resolve() {
        Ok(p) => Ok(Some(p.root)),
        Err(Error::NotAProject(start)) if arg.project.is_some() => {
            notes.push(format!(
                "{} is not a fable project (no .fable/ at or above it): fable's hooks stay inert there until \
                 `fable init`; its .claude settings were checked anyway",
                start.display()
            ));
            Ok(Some(start))
        }
        Err(Error::NotAProject(start)) => {
            notes.push(format!(
                "not inside a fable project (no .fable/ at or above {}): checked user settings only; pass \
                 --project DIR to check a project's settings too",
                start.display()
            ));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

fn version_notes(detected: &Detected, notes: &mut Vec<String>) {
    match detected {
        Detected::Unknown(why) => notes.push(format!(
            "could not read the Claude Code version ({why}); version checks were skipped. Pass --claude PATH \
             to name the program"
        )),
        _ => {
            let v = detected.version().expect("known");
            if !claude_version::knows_event(Some(v), "PostToolUseFailure") {
                notes.push(format!(
                    "Claude Code {v} fires no hook for a failed Bash command (PostToolUseFailure came in {}): \
                     failures are neither logged as evidence nor counted by the fail-streak guard. Upgrade \
                     (`claude update`), then run `fable install` again",
                    claude_version::POST_TOOL_USE_FAILURE_SINCE
                ));
            }
        }
    }
}

/// `(scope, file, install flags, plugin root)` for every file Claude Code would merge here.
fn scope_files(
    root: Option<&Path>,
    plugin_dirs: &[PathBuf],
    notes: &mut Vec<String>,
) -> Vec<(&'static str, PathBuf, String, Option<PathBuf>)> {
    let mut out = Vec::new();
    let config = install::claude_config_dir(std::env::var_os("CLAUDE_CONFIG_DIR"), std::env::var_os("HOME"));
    match &config {
        Some(c) => out.push(("user", c.join("settings.json"), "--user".to_string(), None)),
        None => notes.push("neither HOME nor CLAUDE_CONFIG_DIR is set: user settings not checked".to_string()),
    }
    if let Some(r) = root {
        let here = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok());
        let dir = if here.as_deref() == Some(r) {
            String::new()
        } else {
            format!(" {}", shell_words::quote(&r.to_string_lossy()))
        };
        let claude = r.join(".claude");
        out.push(("project", claude.join("settings.json"), format!("--project{dir}"), None));
        out.push((
            "local",
            claude.join("settings.local.json"),
            if dir.is_empty() {
                "--local".to_string()
            } else {
                format!("--local --project{dir}")
            },
            None,
        ));
    }
    for p in crate::setup::plugin::roots(config.as_deref(), plugin_dirs) {
        out.push(("plugin", p.join("hooks").join("hooks.json"), String::new(), Some(p)));
    }
    out
}

/// Reads one file and lists fable's hooks in it. `own` is `None` for a plugin's hooks.json,
/// whose fable-named commands are fable's by where they live.
fn read_scope(name: &'static str, file: PathBuf, flags: String, own: Option<&Ownership>) -> Scope {
    let mut scope = Scope {
        name,
        exists: file.exists(),
        file,
        error: None,
        events: Vec::new(),
        hooks: Vec::new(),
        flags,
    };
    let doc = match install::read_settings(&scope.file) {
        Ok(Some((_, doc))) => doc,
        Ok(None) => return scope,
        Err(e) => {
            scope.error = Some(e.to_string());
            return scope;
        }
    };
    let Some(events) = doc.get("hooks").and_then(Value::as_object) else {
        return scope;
    };
    for (event, groups) in events {
        scope.events.push(event.clone());
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group.get("matcher").and_then(Value::as_str).map(str::to_string);
            for entry in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                let Some(command) = entry.get("command").and_then(Value::as_str) else {
                    continue;
                };
                let ours = match own {
                    Some(o) => o.owns(command),
                    None => registrations::our_binary(command).is_some(),
                };
                let Some(binary) = registrations::our_binary(command).filter(|_| ours) else {
                    continue;
                };
                scope.hooks.push(Hook {
                    event: event.clone(),
                    matcher: matcher.clone(),
                    binary,
                    command: command.to_string(),
                    resolved: None,
                    status: "missing",
                    detail: String::new(),
                    millis: None,
                });
            }
        }
    }
    scope
}

/// Answers by program, event and matcher: one probe serves every scope registering it.
type ProbeCache = HashMap<(PathBuf, String, Option<String>), Answer>;

/// Resolves a hook's program and, when it resolves, probes it (once per program and event).
fn check_hook(
    h: &mut Hook,
    vars: &[(&str, &Path)],
    sandbox: Option<&Sandbox>,
    cache: &mut ProbeCache,
    state: &install_state::Installs,
    policy: &Policy,
) {
    let path_env = std::env::var_os("PATH");
    let (program, args) = match doctor_probe::resolve(&h.command, vars, path_env.as_deref()) {
        Resolution::Found { program, args } => (program, args),
        Resolution::Missing(why) => {
            h.status = "missing";
            h.detail = why;
            return;
        }
        Resolution::NotExecutable(p) => {
            h.detail = format!("{}: not executable", p.display());
            h.status = "not_executable";
            h.resolved = Some(p);
            return;
        }
    };
    h.resolved = Some(program.clone());
    let recorded = state.recorded_hash(&program);
    let change = recorded.and_then(|want| install_state::binary_change(&program, want));
    // The doctor runs only what fable put on this machine: never the repository's code.
    let may = doctor_trust::decide(&doctor_trust::Facts {
        program: &program,
        root: policy.root,
        recorded: recorded.is_some() && change.is_none(),
        plugin_root: vars.iter().find(|(k, _)| *k == "CLAUDE_PLUGIN_ROOT").map(|(_, v)| *v),
        bin_dirs: &state.all_bin_dirs(),
        exe_dir: policy.exe_dir.as_deref(),
    });
    let repository = may == doctor_trust::May::Repository;
    if may != doctor_trust::May::Run && !policy.run_all && (repository || change.is_none()) {
        h.status = "not_run";
        h.detail = format!("{} (--run-project-hooks runs it)", may.why());
        return;
    }
    // A binary fable installed and recorded must still be that binary; a changed one is
    // not run (the doctor runs nothing but what fable installed).
    if let Some(why) = change.filter(|_| !(repository && policy.run_all)) {
        h.status = "changed";
        h.detail = format!("{}: {why}", program.display());
        return;
    }
    let Some(sandbox) = sandbox else {
        h.status = "resolves";
        h.detail = "found (not probed)".to_string();
        return;
    };
    let key = (program.clone(), h.event.clone(), h.matcher.clone());
    let answer = cache.entry(key).or_insert_with(|| {
        let payload = doctor_probe::payload(&h.event, h.matcher.as_deref(), &sandbox.project());
        let extra: Vec<(&str, &Path)> = vars
            .iter()
            .filter(|(k, _)| *k == "CLAUDE_PLUGIN_ROOT")
            .copied()
            .collect();
        doctor_probe::probe(&program, &args, &h.event, &payload, sandbox, &extra)
    });
    h.status = if answer.ok { "answers" } else { "fails" };
    h.detail = answer.detail.clone();
    h.millis = Some(answer.millis);
}

fn install_cmd(s: &Scope) -> String {
    if s.name == "plugin" {
        "rebuild the plugin (`cargo build --release` in its folder)".to_string()
    } else {
        format!("run `fable install {}`", s.flags)
    }
}

fn where_(s: &Scope) -> String {
    format!("{} ({})", s.name, s.file.display())
}

fn find_problems(scopes: &[Scope], detected: &Detected, problems: &mut Vec<Problem>, notes: &mut Vec<String>) {
    let mut add = |kind, message: String| problems.push(Problem { kind, message });
    for s in scopes {
        if let Some(e) = &s.error {
            add("unreadable", format!("{} cannot be read: {e}", s.name));
        }
        for h in s.hooks.iter().filter(|h| h.status == "changed") {
            add(
                "changed_binary",
                format!(
                    "{} on {}{} in {} is not the binary fable installed: {}. Put the real one back (./install.sh \
                     rebuilds and copies it), then {} to register and record it again",
                    h.binary,
                    h.event,
                    matcher_text(&h.matcher),
                    where_(s),
                    h.detail,
                    install_cmd(s)
                ),
            );
        }
        for h in s.hooks.iter().filter(|h| !h.ok() && h.status != "changed") {
            add(
                "hook",
                format!(
                    "{} on {}{} in {} does not work: {}. Put the binary back, or {} to re-register the installed one",
                    h.binary,
                    h.event,
                    matcher_text(&h.matcher),
                    where_(s),
                    h.detail,
                    install_cmd(s)
                ),
            );
        }
    }
    // An event an old Claude Code does not know makes it drop the whole file (2.0.55).
    if let Some(v) = detected.version() {
        for s in scopes {
            for e in s.events.iter().filter(|e| !claude_version::knows_event(Some(v), e)) {
                let since = claude_version::event_since(e)
                    .map(|x| x.to_string())
                    .unwrap_or_default();
                add(
                    "unknown_event",
                    format!(
                        "{} names the {e} event, which Claude Code {v} does not know (added in {since}); such an \
                         old version ignores the whole file, so none of its hooks run. Upgrade Claude Code \
                         (`claude update`), or {} (it leaves the event out)",
                        where_(s),
                        install_cmd(s)
                    ),
                );
            }
        }
    }
    // A partial registration: what `fable install` would write for this version, missing.
    if let Ok(builtin) = registrations::builtin() {
        let (expected, _) = install::select_for_version(&builtin, detected.version());
        for s in scopes.iter().filter(|s| s.name != "plugin" && !s.hooks.is_empty()) {
            for r in &expected {
                let present = s
                    .hooks
                    .iter()
                    .any(|h| h.event == r.event && h.matcher == r.matcher && h.binary == r.binary);
                if present {
                    continue;
                }
                let text = format!(
                    "{} is not registered for {}{} in {}",
                    r.binary,
                    r.event,
                    matcher_text(&r.matcher),
                    where_(s)
                );
                if detected.version().is_none() && r.event == "PostToolUseFailure" {
                    notes.push(format!(
                        "{text} (right for Claude Code older than 2.0.56; the version is unknown)"
                    ));
                } else {
                    add(
                        "incomplete",
                        format!("{text}; {} to register every hook", install_cmd(s)),
                    );
                }
            }
        }
    }
    path_problems(scopes, &mut add);
    duplicate_problems(scopes, &mut add, notes);
    let checked: Vec<String> = scopes.iter().map(where_).collect();
    if scopes.iter().all(|s| s.hooks.is_empty()) {
        add(
            "not_installed",
            format!(
                "no fable hooks are registered in {}; {}run `fable install` (user settings) or `fable install \
                 --project` (this project, shared)",
                if checked.is_empty() {
                    "any settings file".to_string()
                } else {
                    checked.join(", ")
                },
                // Built in a plugin folder: Claude Code may load it with --plugin-dir, which
                // nothing on disk records, and an install on top would run every hook twice.
                crate::setup::plugin::exe_plugin_root()
                    .map(|p| format!(
                        "if Claude Code loads the fable plugin this fable was built in (`claude --plugin-dir {0}`), \
                         nothing needs installing: check it with `fable doctor --plugin-dir {0}`; otherwise ",
                        p.display()
                    ))
                    .unwrap_or_default()
            ),
        );
    }
}

/// A `fable-*` on PATH that is not the file a settings entry runs by path: two copies,
/// and a bare-name (project) entry runs the PATH one.
fn path_problems(scopes: &[Scope], add: &mut impl FnMut(&'static str, String)) {
    let path_env = std::env::var_os("PATH");
    let mut seen: Vec<(String, PathBuf)> = Vec::new();
    // A plugin runs its own build by path: a copy on PATH is not what it runs.
    for s in scopes.iter().filter(|s| s.name != "plugin") {
        for h in &s.hooks {
            let Some(resolved) = &h.resolved else { continue };
            let by_path = registrations::program_word(&h.command).is_some_and(|w| w.contains('/'));
            if !by_path || seen.contains(&(h.binary.to_string(), resolved.clone())) {
                continue;
            }
            seen.push((h.binary.to_string(), resolved.clone()));
            if let Some(on_path) = which(h.binary, path_env.as_deref()) {
                if !same_file(&on_path, resolved) {
                    add(
                        "path_mismatch",
                        format!(
                            "{} on PATH is {}, but {} runs {}: two copies, maybe of different versions. Remove \
                             the stale one, or run `fable install {} --bin-dir DIR` with the folder you mean",
                            h.binary,
                            on_path.display(),
                            where_(s),
                            resolved.display(),
                            s.flags
                        ),
                    );
                }
            }
        }
    }
}

/// Event, matcher, binary: what makes two registrations the same hook.
type HookKey<'a> = (String, Option<String>, &'a str);

/// The same hook (event, matcher, binary) in two scopes: Claude Code runs identical
/// command strings once, different ones each time, so the hook runs twice.
fn duplicate_problems(scopes: &[Scope], add: &mut impl FnMut(&'static str, String), notes: &mut Vec<String>) {
    let mut by_hook: Vec<(HookKey, Vec<(&Scope, &str)>)> = Vec::new();
    for s in scopes {
        for h in &s.hooks {
            let key = (h.event.clone(), h.matcher.clone(), h.binary);
            match by_hook.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push((s, &h.command)),
                None => by_hook.push((key, vec![(s, &h.command)])),
            }
        }
    }
    // One problem per set of places that double up, naming every hook that runs twice.
    let mut doubled: Vec<(Vec<&Scope>, Vec<String>)> = Vec::new();
    for ((event, matcher, binary), regs) in by_hook {
        let mut places: Vec<&Scope> = Vec::new();
        for (s, _) in &regs {
            if !places.iter().any(|p| std::ptr::eq(*p, *s)) {
                places.push(s);
            }
        }
        if places
            .iter()
            .map(|s| s.name)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            < 2
        {
            continue;
        }
        let mut commands: Vec<&str> = regs.iter().map(|(_, c)| *c).collect();
        commands.sort_unstable();
        commands.dedup();
        let what = format!("{binary} runs twice on {event}{}", matcher_text(&matcher));
        if commands.len() == 1 {
            let names: Vec<&str> = places.iter().map(|s| s.name).collect();
            notes.push(format!(
                "{binary} on {event}{} is registered in {}; the commands are identical, so Claude Code runs it once",
                matcher_text(&matcher),
                names.join(" and ")
            ));
            continue;
        }
        match doubled
            .iter_mut()
            .find(|(p, _)| p.len() == places.len() && p.iter().zip(&places).all(|(a, b)| std::ptr::eq(*a, *b)))
        {
            Some((_, hooks)) => hooks.push(what),
            None => doubled.push((places, vec![what])),
        }
    }
    for (places, hooks) in doubled {
        let regs: Vec<crate::setup::doubles::Registered> = places
            .iter()
            .map(|s| crate::setup::doubles::Registered {
                scope: s.name,
                file: s.file.clone(),
                flags: s.flags.clone(),
                hooks: Vec::new(),
            })
            .collect();
        let refs: Vec<&crate::setup::doubles::Registered> = regs.iter().collect();
        add(
            "duplicate",
            format!("{}. {}", hooks.join(", "), crate::setup::doubles::doctor_message(&refs)),
        );
    }
}
