//! The other spellings of a fix's step among the sessions that agree with it, named beside
//! the directive: "run `git branch -M main`, then retry `git push` (also seen: `git branch
//! -m`)".
//!
//! Why: one step inserted agrees whatever its flags, short of an opposite choice
//! ([`crate::learn::propose::agreement::agrees`]). The directive is said as the group's
//! sessions spelt it; a session that spelt the step another way must still find its way
//! in the rule, and the agent learns the step's other spellings work too. Said as the
//! program, its subcommand and the flags (values and operands are that session's own).

use crate::learn::propose::directive::{DirectiveAction, Supporters};
use crate::learn::propose::render;

/// The shell's reserved words (POSIX, and bash's `select`, `function`, `time`): a step that
/// starts with one is shell syntax, not a program with flags.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in", "select",
    "function", "time", "!", "{", "}",
];

/// ` (also seen: `git branch -m`)`, said after `directive`, for the supporting sessions
/// outside the fix group ([`Supporters::others`]) whose step at the directive's program and
/// subcommand is spelt with other flags; empty when none is.
pub fn step_said_otherwise(directive: &str, g: &Supporters) -> String {
    let (Some(DirectiveAction::Step { domain, action, flags }), prep) = (g.act, g.prep) else {
        return String::new();
    };
    let bare = |f: &str| f.split('=').next().unwrap_or(f).to_string();
    // The flags the directive says: its step's, and those of the spelling it was said in
    // (a bare `mkdir` step said as `mkdir -p <dir>`, as those agreeing spelt it).
    let own: Vec<String> = flags
        .iter()
        .map(|f| bare(f))
        .chain(
            // The directive's commands: every other piece between backticks.
            directive.split('`').skip(1).step_by(2).flat_map(|c| {
                c.split(' ')
                    .filter(|w| w.starts_with('-'))
                    .map(&bare)
                    .collect::<Vec<_>>()
            }),
        )
        .collect();
    let said_already = |f: &String| own.iter().any(|o| crate::learn::propose::agreement::same_flag(o, f));
    let mut said: Vec<String> = Vec::new();
    for e in g.others() {
        let Some(seg) = e
            .steps
            .iter()
            .filter(|s| &s.domain == domain && &s.action == action)
            .find_map(|s| prep.norms[s.idx].segments.iter().find(|g| g.text() == s.text))
        else {
            continue;
        };
        // A spelling with only some of the directive's flags (`ssh-keygen -t -N -f` beside
        // `-q -t … -N … -f`) is the directive said shorter: nothing to name. Nor is a shell
        // loop's test (`while [ -e …`): its words are no program's flags.
        let theirs: Vec<String> = seg.flags().into_iter().map(bare).collect();
        if theirs.iter().all(said_already) || RESERVED.contains(&seg.program.as_str()) {
            continue;
        }
        let text = render::quote_cmd(&spelling(seg));
        if !said.contains(&text) {
            said.push(text);
        }
    }
    render::also_said(&said)
}

/// A step said as its program, subcommand and flags in the order typed, every other word
/// a placeholder and trailing ones dropped: `git -C <v> config`, `ln -sfn`, `git commit
/// -m`. (`git config -C` would name a flag of `config` that `-C` is not.)
fn spelling(seg: &crate::learn::text::command_norm::Segment) -> String {
    let action: Vec<&str> = seg.action.split(' ').filter(|w| !w.is_empty()).collect();
    let mut said: Vec<String> = vec![seg.program.clone()];
    for w in seg.words.iter().skip(1) {
        said.push(match w.split_once('=') {
            _ if !w.starts_with('-') && action.contains(&w.as_str()) => w.clone(),
            Some((f, _)) if f.starts_with('-') => format!("{f}=<v>"),
            None if w.starts_with('-') => w.clone(),
            _ => "<v>".to_string(),
        });
    }
    while said.len() > 1 && said.last().is_some_and(|w| w == "<v>") {
        said.pop();
    }
    said.join(" ")
}
