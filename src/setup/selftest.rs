//! `fable selftest`, the pure half: the scripted session that exercises every gate, and
//! the judging of what the run left behind.
//!
//! Why a self-test under the user's own `claude`: `fable doctor` probes each hook with a
//! hand-made payload, which proves the binaries answer but not that the user's Claude Code
//! calls them, passes them what they expect, and acts on what they say. This plan runs the
//! real CLI against the built-in scripted model (the same harness as the end-to-end tests,
//! [`crate::harness`]) and decides each check from what the run observably left: the
//! evidence records, the requests the mock received (a Stop block is the next request's
//! new user content), and the CLI's final result. Nothing here is decided by the script
//! itself: a hook that does not fire changes the observations, and the check says so.
//!
//! The script, one main-loop step per model turn (the mock hands them out in order):
//!
//! | step | the model…                                   | what should happen                  |
//! |------|----------------------------------------------|-------------------------------------|
//! | 0    | runs [`FAIL_CMD`] (exits 3)                  | logged with exit 3                  |
//! | 1    | runs [`PASS_CMD`]                            | logged with exit 0                  |
//! | 2    | ends with [`CLAIM`], no test ever ran        | Stop blocked, reason in request 3   |
//! | 3    | closes card 1 citing [`CITED_CMD`], never run| —                                   |
//! | 4    | ends with [`DONE`]                           | Stop blocked, reason in request 5   |
//! | 5    | runs [`CITED_CMD`]                           | logged with exit 0                  |
//! | 6    | ends with [`DONE`] again                     | Stop allowed: no request 7          |
//! | 7    | [`UNREACHED`]                                | only when the last stop was blocked |
//!
//! The runner (I/O) is [`crate::setup::selftest_run`].

use serde_json::{json, Value};
use std::path::Path;

/// A command that fails with a distinctive exit status.
pub const FAIL_CMD: &str = "sh ./selftest-fail.sh";
/// The exit status [`FAIL_CMD`] ends with.
pub const FAIL_EXIT: i64 = 3;
/// A command that passes.
pub const PASS_CMD: &str = "sh ./selftest-pass.sh";
/// The command the closed card cites before it ever ran.
pub const CITED_CMD: &str = "sh ./check.sh";
/// A final message claiming a result no run of this round shows.
pub const CLAIM: &str = "All tests pass.";
/// The final message after closing the card (claims nothing itself).
pub const DONE: &str = "Card 1 is done.";
/// The text of the step the model reaches only when the last stop was blocked again.
pub const UNREACHED: &str = "selftest: reached only because the last stop was blocked";

pub const STEP_FAIL: u64 = 0;
pub const STEP_PASS: u64 = 1;
pub const STEP_CLAIM: u64 = 2;
pub const STEP_CITE: u64 = 3;
pub const STEP_CITE_STOP: u64 = 4;
pub const STEP_RUN_CITED: u64 = 5;
pub const STEP_DONE: u64 = 6;

/// The hook binaries the checks rely on.
pub const EVIDENCE: &str = "fable-evidence";
pub const CLOSE_GUARD: &str = "fable-close-guard";

/// The closed card, citing [`CITED_CMD`] with what it prints.
pub fn closed_card() -> String {
    format!("- [x] 1. checks pass -- evidence: `{CITED_CMD}` -> 12 passed")
}

/// The project the session starts in: an empty ledger (no open card to block a stop) and
/// the three scripts the model runs.
pub fn project_files() -> Vec<(&'static str, &'static str)> {
    vec![
        (".fable/LEDGER.md", "# Ledger\n"),
        ("selftest-fail.sh", "echo 'selftest: failing on purpose' >&2\nexit 3\n"),
        ("selftest-pass.sh", "echo 'selftest: passing'\n"),
        ("check.sh", "echo 12 passed\n"),
    ]
}

fn bash(cmd: &str) -> Value {
    json!({"tool_use": {"name": "Bash", "input": {"command": cmd, "description": "fable selftest"}}})
}

/// The mock's script ([`crate::harness::script`]), steps as in the module table.
pub fn script() -> Value {
    let ledger = format!(
        "printf '%s\\n' '# Ledger' '' {} > .fable/LEDGER.md",
        shell_words::quote(&closed_card())
    );
    json!({
        "steps": [
            bash(FAIL_CMD),
            bash(PASS_CMD),
            {"text": CLAIM},
            bash(&ledger),
            {"text": DONE},
            bash(CITED_CMD),
            {"text": DONE},
            {"text": UNREACHED},
        ],
        "default": {"text": UNREACHED},
    })
}

/// What the run left, as the judging reads it.
#[derive(Debug, Clone, Default)]
pub struct Observed {
    /// Evidence records (`.fable/evidence.jsonl`), oldest first.
    pub evidence: Vec<Value>,
    /// The main-loop requests the mock received (`step`, `new_user_content`), in order.
    pub requests: Vec<Value>,
    /// The CLI's exit status (124: timed out).
    pub rc: i32,
    /// The CLI's final result text, when it printed one.
    pub result: Option<String>,
    /// Hook binaries missing or not executable in the bin dir: (binary, why).
    pub broken: Vec<(String, String)>,
    /// Whether the transcripts hold fable's note that it let a stop through after its
    /// limit of blocks in a row: such a stop was not allowed on the evidence.
    pub let_through: bool,
}

/// The note fable leaves when it lets a stop through after too many blocks in a row.
pub const LET_THROUGH: &str = "fable: let this stop through after";

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
    /// The hook binary the check proves (the one to suspect when it fails).
    pub hook: Option<String>,
}

impl Check {
    pub fn to_json(&self) -> Value {
        json!({"name": self.name, "ok": self.ok, "detail": self.detail, "hook": self.hook})
    }
}

/// The check of the bin dir itself: every hook binary present and executable.
pub fn preflight(binaries: &[&str], broken: &[(String, String)], bin_dir: &Path) -> Check {
    if broken.is_empty() {
        return Check {
            name: "hook binaries present and executable",
            ok: true,
            detail: format!("all {} in {}", binaries.len(), bin_dir.display()),
            hook: None,
        };
    }
    let each: Vec<String> = broken.iter().map(|(b, why)| format!("{b} {why}")).collect();
    Check {
        name: "hook binaries present and executable",
        ok: false,
        detail: format!("{} in {}", each.join(", "), bin_dir.display()),
        hook: broken.first().map(|(b, _)| b.clone()),
    }
}

/// Every check of the session, in the order the report prints them.
pub fn judge(o: &Observed, bin_dir: &Path) -> Vec<Check> {
    let checks = vec![
        logged(
            o,
            "a failing command is logged with its exit code",
            FAIL_CMD,
            FAIL_EXIT,
            STEP_FAIL,
        ),
        logged(o, "a passing command is logged with exit 0", PASS_CMD, 0, STEP_PASS),
        citation_blocked(o),
        allowed_after_run(o),
        claim_checked(o),
    ];
    checks.into_iter().map(|c| blame(c, o, bin_dir)).collect()
}

/// The hooks a check relies on besides the one it names.
fn also_relies_on(name: &str) -> &'static [&'static str] {
    if name.starts_with("after the cited command ran") {
        &[EVIDENCE]
    } else {
        &[]
    }
}

/// A failed check whose hook (or a hook it relies on) is broken in the bin dir says so,
/// and names that hook: the precise cause beats the symptom.
fn blame(mut c: Check, o: &Observed, bin_dir: &Path) -> Check {
    if c.ok {
        return c;
    }
    let relied: Vec<&str> = c
        .hook
        .iter()
        .map(String::as_str)
        .chain(also_relies_on(c.name).iter().copied())
        .collect();
    if let Some((b, why)) = o.broken.iter().find(|(b, _)| relied.contains(&b.as_str())) {
        c.detail = format!("{b} {why} in {} ({})", bin_dir.display(), c.detail);
        c.hook = Some(b.clone());
    }
    c
}

/// The request the mock served with script step `step`.
fn request_at(o: &Observed, step: u64) -> Option<&Value> {
    o.requests.iter().find(|r| r["step"].as_u64() == Some(step))
}

/// Everything a request's new user content says, as plain text (text blocks, tool
/// results), so hook feedback can be searched and quoted.
pub fn sent_text(req: &Value) -> String {
    fn text_of(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(a) => a.iter().for_each(|x| text_of(x, out)),
            Value::Object(m) => {
                for k in ["text", "content"] {
                    if let Some(x) = m.get(k) {
                        text_of(x, out);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = String::new();
    text_of(&req["new_user_content"], &mut out);
    out
}

/// fable's reason in a Stop block sent to the model: of its `fable:` line and the indented
/// lines under it, the most specific (last) one that holds `needle`, trimmed and shortened;
/// its first line when none does; `None` when the text carries no Stop feedback from fable.
pub fn reason_excerpt(text: &str, needle: &str) -> Option<String> {
    let feedback = &text[text.find("Stop hook feedback")?..];
    let reason = &feedback[feedback.find("fable:")?..];
    let lines: Vec<&str> = reason
        .lines()
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with(' '))
        .map(|(_, l)| l)
        .collect();
    let line = lines
        .iter()
        .rev()
        .find(|l| l.contains(needle))
        .unwrap_or(&lines[0])
        .trim();
    // One sentence is enough to show whose reason it is.
    let line = match line.find(". ") {
        Some(i) => &line[..=i],
        None => line,
    };
    let mut s: String = line.chars().take(160).collect();
    if line.chars().count() > 160 {
        s.push('…');
    }
    Some(s)
}

/// Why the session never reached `step`, for a check that needed it.
fn not_reached(o: &Observed, step: u64) -> String {
    if o.requests.is_empty() {
        return format!(
            "claude made no request to the scripted model (exit {}); see claude.stderr in the kept run folder",
            o.rc
        );
    }
    let last = o.requests.iter().filter_map(|r| r["step"].as_u64()).max();
    let timed_out = if o.rc == 124 { " (claude timed out)" } else { "" };
    match last {
        Some(l) if l < step => format!(
            "not reached: the session ended at {}, before {}{timed_out}",
            step_label(l),
            step_label(step)
        ),
        _ => format!("the session never reached {}{timed_out}", step_label(step)),
    }
}

/// What the model does at a script step, for messages.
fn step_label(step: u64) -> String {
    match step {
        STEP_FAIL => format!("running `{FAIL_CMD}`"),
        STEP_PASS => format!("running `{PASS_CMD}`"),
        STEP_CLAIM => format!("the stop after \"{CLAIM}\""),
        STEP_CITE => "closing card 1".to_string(),
        STEP_CITE_STOP => "the stop after closing card 1".to_string(),
        STEP_RUN_CITED => format!("running `{CITED_CMD}`"),
        STEP_DONE => format!("the stop after running `{CITED_CMD}`"),
        _ => format!("script step {step}"),
    }
}

fn record_of<'a>(o: &'a Observed, cmd: &str) -> Option<&'a Value> {
    o.evidence.iter().find(|r| r["cmd"] == cmd)
}

/// Checks 1 and 2: the command the model ran at `step` has an evidence record with its
/// real exit status.
fn logged(o: &Observed, name: &'static str, cmd: &str, exit: i64, step: u64) -> Check {
    let hook = Some(EVIDENCE.to_string());
    // The model issues the command as the answer to request `step`; its result comes back
    // in the next one, after the PostToolUse hooks ran.
    let detail = match record_of(o, cmd) {
        Some(r) => {
            let (got, ok) = (r["exit"].as_i64(), r["ok"].as_bool());
            if got == Some(exit) && ok == Some(exit == 0) {
                return Check {
                    name,
                    ok: true,
                    detail: format!("`{cmd}` logged with exit {exit}"),
                    hook,
                };
            }
            format!("`{cmd}` logged with exit {:?}, ok {:?}; expected exit {exit}", got, ok)
        }
        None if request_at(o, step).is_none() => not_reached(o, step),
        None => format!("`{cmd}` ran but left no record in .fable/evidence.jsonl"),
    };
    Check {
        name,
        ok: false,
        detail,
        hook,
    }
}

/// Check 3: the stop after closing a card that cites a never-run command is blocked, and
/// fable's reason naming the command is what the model is sent next.
fn citation_blocked(o: &Observed) -> Check {
    let name = "a card citing a command never run is blocked at Stop";
    let hook = Some(CLOSE_GUARD.to_string());
    let detail = match (request_at(o, STEP_CITE_STOP), request_at(o, STEP_CITE_STOP + 1)) {
        (None, _) => not_reached(o, STEP_CITE_STOP),
        (Some(_), None) => "the stop after closing the card went through: no block reached the model".to_string(),
        (Some(_), Some(next)) => {
            let text = sent_text(next);
            match reason_excerpt(&text, CITED_CMD) {
                Some(r) if r.contains(CITED_CMD) => {
                    return Check {
                        name,
                        ok: true,
                        detail: format!("the model was sent: {r}"),
                        hook,
                    }
                }
                Some(r) => format!("blocked, but the reason does not name `{CITED_CMD}`: {r}"),
                None => "the model was re-invoked without fable's Stop feedback".to_string(),
            }
        }
    };
    Check {
        name,
        ok: false,
        detail,
        hook,
    }
}

/// Check 4: once the cited command ran (and passed), the next stop goes through.
fn allowed_after_run(o: &Observed) -> Check {
    let name = "after the cited command ran, the stop is allowed";
    let hook = Some(CLOSE_GUARD.to_string());
    let fail = |detail: String| Check {
        name,
        ok: false,
        detail,
        hook: hook.clone(),
    };
    let blocked_first =
        request_at(o, STEP_CITE_STOP + 1).is_some_and(|r| reason_excerpt(&sent_text(r), CITED_CMD).is_some());
    if request_at(o, STEP_DONE).is_none() {
        return fail(not_reached(o, STEP_DONE));
    }
    if !blocked_first {
        return fail("nothing to allow: the citation was never blocked".to_string());
    }
    match record_of(o, CITED_CMD) {
        Some(r) if r["exit"].as_i64() == Some(0) => {}
        Some(r) => return fail(format!("`{CITED_CMD}` logged with exit {}", r["exit"])),
        None => return fail(format!("`{CITED_CMD}` ran but left no evidence record")),
    }
    if let Some(next) = request_at(o, STEP_DONE + 1).or_else(|| o.requests.iter().find(|r| r["step"] == "default")) {
        let text = sent_text(next);
        let why = reason_excerpt(&text, CITED_CMD).unwrap_or_else(|| "the model was re-invoked".to_string());
        return fail(format!("blocked again: {why}"));
    }
    if o.let_through {
        return fail(
            "the stop went through only after fable's limit of blocks in a row, not on the evidence".to_string(),
        );
    }
    match &o.result {
        Some(r) if r.contains(DONE) => Check {
            name,
            ok: true,
            detail: format!("`{CITED_CMD}` logged with exit 0; the session ended with \"{DONE}\""),
            hook,
        },
        Some(r) => fail(format!("the session ended with another result: {:?}", head(r, 120))),
        None => fail(format!("claude printed no result (exit {})", o.rc)),
    }
}

/// Check 5: a final message claiming "All tests pass." with no test run behind it is
/// blocked, and the model is told why.
fn claim_checked(o: &Observed) -> Check {
    let name = "an unbacked claim in the final message is blocked";
    let hook = Some(CLOSE_GUARD.to_string());
    let detail = match (request_at(o, STEP_CLAIM), request_at(o, STEP_CLAIM + 1)) {
        (None, _) => not_reached(o, STEP_CLAIM),
        (Some(_), None) => format!("\"{CLAIM}\" with no test run was let through"),
        (Some(_), Some(next)) => {
            let text = sent_text(next);
            let claim = CLAIM.trim_end_matches('.');
            match reason_excerpt(&text, claim) {
                Some(r) if r.contains(claim) => {
                    return Check {
                        name,
                        ok: true,
                        detail: format!("the model was sent: {r}"),
                        hook,
                    }
                }
                Some(r) => format!("blocked, but the reason does not quote the claim: {r}"),
                None => "the model was re-invoked without fable's Stop feedback".to_string(),
            }
        }
    };
    Check {
        name,
        ok: false,
        detail,
        hook,
    }
}

fn head(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The whole report as one JSON document (`--json`).
pub fn report_json(
    checks: &[Check],
    claude: (&Path, Option<String>),
    bin_dir: &Path,
    isolation: &str,
    kept: Option<&Path>,
) -> Value {
    json!({
        "ok": checks.iter().all(|c| c.ok),
        "failing_hooks": suspects(checks),
        "claude": {"path": claude.0, "version": claude.1},
        "bin_dir": bin_dir,
        "isolation": isolation,
        "checks": checks.iter().map(Check::to_json).collect::<Vec<_>>(),
        "kept": kept,
    })
}

/// The text report's body, the same on every host: one line per check, the tally (naming
/// the failing hooks) and where a kept run is.
pub fn text_report(checks: &[Check], kept: Option<&std::path::Path>) -> String {
    let mut out: String = checks.iter().map(|c| line(c) + "\n").collect();
    let passed = checks.iter().filter(|c| c.ok).count();
    let suspects = suspects(checks);
    if suspects.is_empty() {
        out += &format!("{passed} of {} checks passed\n", checks.len());
    } else {
        out += &format!(
            "{passed} of {} checks passed; failing hook: {}\n",
            checks.len(),
            suspects.join(", ")
        );
    }
    if let Some(k) = kept {
        out += &format!("the run is kept in {}\n", k.display());
    }
    out
}

/// The hooks the failed checks name, each once, in report order: the ones to suspect.
pub fn suspects(checks: &[Check]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for h in checks.iter().filter(|c| !c.ok).filter_map(|c| c.hook.clone()) {
        if !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

/// One report line: `✓ name: detail` or `✗ name: detail`; a failed line names its hook
/// when the detail does not already.
pub fn line(c: &Check) -> String {
    let mark = if c.ok { "✓" } else { "✗" };
    match &c.hook {
        Some(h) if !c.ok && !c.detail.contains(h.as_str()) => format!("{mark} {}: {} (hook: {h})", c.name, c.detail),
        _ => format!("{mark} {}: {}", c.name, c.detail),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(step: Value, content: Value) -> Value {
        json!({"kind": "main", "step": step, "new_user_content": content})
    }

    fn feedback(msg: &str) -> Value {
        json!([{"type": "text", "text": format!("Stop hook feedback:\n[/x/fable-close-guard]: {msg}\n")}])
    }

    /// What an honest run of a working install leaves.
    fn green() -> Observed {
        let mut requests: Vec<Value> = (0..=STEP_DONE).map(|s| req(json!(s), json!([]))).collect();
        requests[(STEP_CLAIM + 1) as usize] = req(
            json!(STEP_CLAIM + 1),
            feedback("fable: your last message says \"All tests pass\", checked against this session's evidence log:"),
        );
        requests[(STEP_CITE_STOP + 1) as usize] = req(
            json!(STEP_CITE_STOP + 1),
            feedback("fable: card 1: `sh ./check.sh` is not backed by the evidence log"),
        );
        Observed {
            evidence: vec![
                json!({"cmd": FAIL_CMD, "exit": 3, "ok": false}),
                json!({"cmd": PASS_CMD, "exit": 0, "ok": true}),
                json!({"cmd": CITED_CMD, "exit": 0, "ok": true}),
            ],
            requests,
            rc: 0,
            result: Some(DONE.to_string()),
            broken: Vec::new(),
            let_through: false,
        }
    }

    #[test]
    fn a_working_run_passes_every_check() {
        let checks = judge(&green(), Path::new("/b"));
        assert!(checks.iter().all(|c| c.ok), "{checks:#?}");
        assert_eq!(checks.len(), 5);
    }

    #[test]
    fn a_missing_close_guard_fails_the_gate_checks_and_names_it() {
        // No close guard: the claim's stop goes through and the session ends there.
        let mut o = green();
        o.requests.truncate((STEP_CLAIM + 1) as usize);
        o.evidence.truncate(2);
        o.result = Some(CLAIM.to_string());
        o.broken = vec![(CLOSE_GUARD.to_string(), "missing".to_string())];
        let checks = judge(&o, Path::new("/b"));
        assert!(checks[0].ok && checks[1].ok, "{checks:#?}");
        for c in &checks[2..] {
            assert!(!c.ok, "{c:?}");
            assert_eq!(c.hook.as_deref(), Some(CLOSE_GUARD));
            assert!(c.detail.starts_with("fable-close-guard missing in /b"), "{}", c.detail);
        }
    }

    #[test]
    fn a_wrong_exit_code_or_no_record_fails_the_evidence_checks() {
        let mut o = green();
        o.evidence[0]["exit"] = json!(1);
        o.evidence.remove(1);
        let checks = judge(&o, Path::new("/b"));
        assert!(
            !checks[0].ok && checks[0].detail.contains("expected exit 3"),
            "{:?}",
            checks[0]
        );
        assert!(
            !checks[1].ok && checks[1].detail.contains("left no record"),
            "{:?}",
            checks[1]
        );
    }

    #[test]
    fn a_stop_blocked_again_after_the_run_fails_the_allow_check() {
        let mut o = green();
        o.requests
            .push(req(json!(STEP_DONE + 1), feedback("fable: card 1 still not backed")));
        let c = &judge(&o, Path::new("/b"))[3];
        assert!(!c.ok && c.detail.contains("blocked again: fable: card 1"), "{c:?}");
        // Let through after the block limit is not allowed on the evidence either.
        let mut o = green();
        o.let_through = true;
        let c = &judge(&o, Path::new("/b"))[3];
        assert!(!c.ok && c.detail.contains("limit of blocks"), "{c:?}");
    }

    #[test]
    fn a_re_invocation_without_fable_feedback_is_not_a_block() {
        let mut o = green();
        o.requests[(STEP_CITE_STOP + 1) as usize] =
            req(json!(STEP_CITE_STOP + 1), json!([{"type": "text", "text": "go on"}]));
        let checks = judge(&o, Path::new("/b"));
        assert!(!checks[2].ok && !checks[3].ok, "{checks:#?}");
    }

    #[test]
    fn no_request_at_all_says_claude_never_called_the_model() {
        let o = Observed {
            rc: 1,
            ..Observed::default()
        };
        let checks = judge(&o, Path::new("/b"));
        assert!(
            checks.iter().all(|c| !c.ok && c.detail.contains("made no request")),
            "{checks:#?}"
        );
    }

    #[test]
    fn the_excerpt_is_the_reason_line_naming_the_needle() {
        let text = "x\nStop hook feedback:\nfable: cited evidence is not backed:\n  line 3: \"1. a\"\n    `sh ./check.sh` has no run\nA citation must match.\n";
        assert_eq!(
            reason_excerpt(text, "sh ./check.sh").as_deref(),
            Some("`sh ./check.sh` has no run")
        );
        assert_eq!(
            reason_excerpt(text, "zzz").as_deref(),
            Some("fable: cited evidence is not backed:")
        );
        assert_eq!(reason_excerpt("fable: no feedback here", "fable"), None);
    }

    #[test]
    fn the_preflight_names_each_broken_binary() {
        let ok = preflight(&["a", "b"], &[], Path::new("/b"));
        assert!(ok.ok && ok.detail == "all 2 in /b");
        let bad = preflight(&["a", "b"], &[("b".into(), "not executable".into())], Path::new("/b"));
        assert_eq!((bad.ok, bad.hook.as_deref()), (false, Some("b")));
        assert_eq!(
            line(&bad),
            "✗ hook binaries present and executable: b not executable in /b"
        );
    }

    #[test]
    fn the_script_runs_the_commands_the_checks_look_for() {
        let s = script();
        assert_eq!(s["steps"][STEP_FAIL as usize]["tool_use"]["input"]["command"], FAIL_CMD);
        assert_eq!(s["steps"][STEP_PASS as usize]["tool_use"]["input"]["command"], PASS_CMD);
        assert_eq!(s["steps"][STEP_CLAIM as usize]["text"], CLAIM);
        assert!(s["steps"][STEP_CITE as usize]["tool_use"]["input"]["command"]
            .as_str()
            .unwrap()
            .contains(CITED_CMD));
        assert_eq!(
            s["steps"][STEP_RUN_CITED as usize]["tool_use"]["input"]["command"],
            CITED_CMD
        );
        assert_eq!(s["steps"][STEP_DONE as usize]["text"], DONE);
    }
}
