//! The index path ([`crate::learn::store::rule_index`]) against the full parse: what the hooks
//! show must not change by a character, and no index an agent can write may show more.

use super::*;
use crate::learn::history::episodes::tests::rec;
use crate::learn::store::rule_index;
use crate::learn::store::rules::tests::rule;
use crate::learn::store::rules::Store;

struct Fixture {
    _d: tempfile::TempDir,
    p: Project,
    state: String,
    key: Key,
}

impl Fixture {
    fn new() -> Fixture {
        let d = tempfile::tempdir().unwrap();
        let state = d.path().join("state").to_string_lossy().into_owned();
        let key = crate::evidence::seal::user_key(|k| (k == "XDG_STATE_HOME").then(|| state.clone())).unwrap();
        let p = Project::at(d.path().join("proj"));
        std::fs::create_dir_all(&p.fable_dir).unwrap();
        Fixture { _d: d, p, state, key }
    }

    fn get(&self) -> impl Fn(&str) -> Option<String> + '_ {
        |k: &str| (k == "XDG_STATE_HOME").then(|| self.state.clone())
    }

    fn scope(&self) -> PathBuf {
        crate::learn::store::rule_seal::scope(&self.p.fable_dir)
    }

    /// `n` rules: every status, four domains (one empty), sealed here, sealed for
    /// another project, unsealed, curated, ties in `prevented` and `rank`.
    fn store(&self, n: usize) -> Vec<Rule> {
        let (scope, foreign) = (self.scope(), PathBuf::from("/elsewhere/.fable"));
        let triggers = [
            ("git", "`git push` is rejected as non-fast-forward", "non-fast-forward"),
            (
                "cargo",
                "`cargo build` fails with error[E0432]: unresolved import",
                "E0432",
            ),
            (
                "",
                "`npm ci` fails with ERESOLVE unable to resolve dependency tree",
                "ERESOLVE",
            ),
            ("npm", "`npm test` fails with ELIFECYCLE", "ELIFECYCLE"),
        ];
        let rules: Vec<Rule> = (0..n)
            .map(|i| {
                let status = ["promoted", "promoted", "candidate", "promoted", "retired", "blocked"][i % 6];
                let mut r = rule(&format!("k{i}"), status);
                let (domain, trigger, anchor) = triggers[i % 4];
                r.id = format!("R-{i}");
                r.domain = domain.into();
                r.trigger = trigger.into();
                r.anchors = vec![anchor.into()];
                r.action = (i % 8 == 0).then(|| "push".to_string());
                // A signature widens a rule's terms (unsealed; read from the store).
                if i % 9 == 0 {
                    r.signature = Some(format!("npm ERR! code <N> unable to resolve step {i}"));
                }
                r.directive = format!("do step {i} \u{1b}[1m first");
                r.prevented = (i % 5) as u64;
                r.rank = (i % 3 != 0).then_some((i % 4) as f64 / 4.0);
                if i % 7 == 3 {
                    r.origin = Some("pack:core".into());
                }
                // Matched by the compiled trigger's anchors alone.
                if i % 10 == 5 {
                    r.anchors.clear();
                }
                match i % 5 {
                    0..=2 => crate::learn::store::rule_seal::seal(&mut r, &self.key, &scope),
                    3 => crate::learn::store::rule_seal::seal(&mut r, &self.key, &foreign),
                    _ => {}
                }
                // A seal made before triggers were compiled (it still holds): its anchors
                // are known only from the rule's own, or not at all.
                if (i % 10 == 7 || i % 20 == 5) && r.compiled.take().is_some() && i % 5 <= 2 {
                    let anchors = r.anchors.join("\u{1f}");
                    let action = r.action.clone().unwrap_or_default();
                    let fields = [&r.id, &r.domain, &r.trigger, &r.directive, &action, &anchors];
                    let fields: Vec<&str> = fields.iter().map(|s| s.as_str()).collect();
                    r.seal = Some(self.key.mac_fields(&scope, &fields));
                }
                r
            })
            .collect();
        Store::new(&self.p.fable_dir).save(&rules).unwrap();
        rules
    }

    fn index(&self) -> Option<rule_index::Index> {
        rule_index::read(&self.p.fable_dir, &self.key, &self.scope())
            .unwrap()?
            .index
    }

    /// What the hooks show: SessionStart at two sizes, and a failure of each domain.
    /// `whole`: with the index removed before each call, so each parses the store whole
    /// (and writes the index, removed again after the last call).
    fn show(&self, whole: bool) -> Vec<Option<String>> {
        let failures = [
            rec(
                "s",
                "git push origin main",
                false,
                " ! [rejected] main -> main (non-fast-forward)",
            ),
            rec(
                "s",
                "cargo build",
                false,
                "error[E0432]: unresolved import `crate::foo`",
            ),
            rec(
                "s",
                "npm ci",
                false,
                "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
            ),
            rec("s", "npm test", false, "npm ERR! code ELIFECYCLE"),
            rec(
                "s",
                "npm test",
                false,
                "npm ERR! code ELIFECYCLE\nunable to resolve step",
            ),
            rec("s", "make", false, "make: *** [all] Error 2"),
        ];
        let index = rule_index::path(&self.p.fable_dir);
        let clear = || {
            if whole {
                let _ = std::fs::remove_file(&index);
            }
        };
        let mut out = Vec::new();
        for max in [8, 2] {
            clear();
            out.push(session_context(&self.p, max, self.get()));
        }
        for f in &failures {
            clear();
            out.push(failure_context(&self.p, f, self.get()));
        }
        clear();
        out
    }

    fn shown(&self) -> Vec<Option<String>> {
        self.show(false)
    }

    /// The hooks' output with the store parsed whole for every call.
    fn shown_whole(&self) -> Vec<Option<String>> {
        self.show(true)
    }
}

#[test]
fn the_index_shows_exactly_what_the_full_parse_shows() {
    for n in [0, 1, 7, 40, 200] {
        let f = Fixture::new();
        f.store(n);
        let whole = f.shown_whole();
        // The first hook after a change parses whole and writes the index ...
        assert_eq!(f.shown(), whole, "{n} rules, rebuilding");
        let ix = f.index().expect("a valid index after a full parse");
        // ... which lists the promoted rules with a seal (5 in every 6 are promoted or
        // not, 3 in 5 of them sealed here, 1 in 5 for another project).
        let listed = f.store(n).iter().filter(|r| r.head().listed()).count();
        f.shown_whole();
        f.shown();
        assert_eq!(f.index().map(|i| i.entries.len()), Some(listed), "{n} rules");
        assert_eq!(f.shown(), whole, "{n} rules, through the index");
        if n >= 40 {
            assert!(whole[0].as_deref().unwrap().contains("(up to "), "{whole:?}");
            assert!(whole[2..].iter().filter(|s| s.is_some()).count() >= 3, "{whole:?}");
        }
        assert_eq!(ix.order.len(), ix.entries.len());
    }
}

#[test]
fn a_stale_malformed_or_foreign_index_is_ignored() {
    let f = Fixture::new();
    f.store(40);
    let whole = f.shown_whole();
    f.shown();
    let index_path = rule_index::path(&f.p.fable_dir);
    let good = std::fs::read(&index_path).unwrap();
    // Malformed: cut, garbage, a flipped byte under the MAC, another key's MAC.
    let text = String::from_utf8(good.clone()).unwrap();
    let (mac, body) = text.split_once('\n').unwrap();
    let flipped = format!("{mac}\n{}", body.replacen("store ", "store 1", 1));
    let other = crate::evidence::seal::Key::from_bytes([7; 32]);
    let foreign = format!(
        "{}\n{body}",
        other.mac_fields(&f.scope(), &["fable-rule-index 2", body])
    );
    for bad in [
        &good[..good.len() / 2],
        b"garbage\n\xff",
        flipped.as_bytes(),
        foreign.as_bytes(),
    ] {
        std::fs::write(&index_path, bad).unwrap();
        assert!(f.index().is_none());
        assert_eq!(f.shown(), whole);
        assert!(f.index().is_some(), "rewritten by the reader");
    }
    // Stale: a hand edit of the store in place, same size, mtime set back: the ctime
    // moved (after the clock tick the save fell in).
    std::thread::sleep(std::time::Duration::from_millis(50));
    let store = f.p.fable_dir.join("rules.json");
    let before = std::fs::metadata(&store).unwrap();
    let edited = std::fs::read_to_string(&store)
        .unwrap()
        .replacen("\"promoted\"", "\"retired\"", 1);
    let edited = edited.replacen("\"reason\": \"pass\"", "\"reason\": \"passx\"", 1);
    assert_eq!(edited.len() as u64, before.len());
    {
        use std::io::Write;
        let mut w = std::fs::OpenOptions::new().write(true).open(&store).unwrap();
        w.write_all(edited.as_bytes()).unwrap();
        w.set_modified(before.modified().unwrap()).unwrap();
    }
    assert!(f.index().is_none(), "the edit makes the index stale");
    let after = f.shown();
    assert_ne!(after, whole, "retiring R-0 changes what is shown");
    assert_eq!(after, f.shown_whole());
}

#[test]
fn a_forged_index_entry_shows_nothing_the_full_parse_would_not() {
    let f = Fixture::new();
    let rules = f.store(40);
    let whole = f.shown_whole();
    let bytes = std::fs::read(f.p.fable_dir.join("rules.json")).unwrap();
    let m = std::fs::metadata(f.p.fable_dir.join("rules.json")).unwrap();
    let id = rule_index::Identity::of(&m);
    // Even with this user's key (which the agent does not have): an index that lists a
    // candidate as promoted, or a rule whose seal is not the one in the store.
    // R-20 is a candidate that would sort after the rules shown, so a listing taken on
    // trust would count it in "up to N more".
    let mut forged = rules.clone();
    assert_eq!((forged[20].status.as_str(), forged[20].prevented), ("candidate", 0));
    forged[20].status = "promoted".into();
    forged[20].seal = Some("0".repeat(64));
    forged[0].seal = Some("1".repeat(64));
    let heads: Vec<_> = forged.iter().map(Rule::head).collect();
    let text = rule_index::build(&bytes, &heads, id, &f.key, &f.scope()).unwrap();
    std::fs::write(rule_index::path(&f.p.fable_dir), text).unwrap();
    assert!(f.index().is_some(), "the forged index verifies");
    // The same rules, and nothing else, at start and at every failure. The count of
    // rules left unchecked ("up to N more") is taken from the index: only an index
    // made with the key can move it, and by one here.
    let no_count = |v: Vec<Option<String>>| -> Vec<Vec<String>> {
        v.into_iter()
            .map(|s| {
                s.unwrap_or_default()
                    .lines()
                    .filter(|l| !l.starts_with("(up to"))
                    .map(String::from)
                    .collect()
            })
            .collect()
    };
    let forged_shown = f.shown();
    assert_eq!(no_count(forged_shown.clone()), no_count(whole.clone()));
    assert!(
        forged_shown[0].as_deref().unwrap().contains("(up to 6 more"),
        "{forged_shown:?}"
    );
    assert!(whole[0].as_deref().unwrap().contains("(up to 5 more"), "{whole:?}");
    // A store whose spans no longer match its rules (one rule fewer): no index at all.
    assert!(rule_index::build(&bytes, &heads[1..], id, &f.key, &f.scope()).is_none());
}

/// With a valid index the store's bytes are read only when a rule is needed, and they are
/// the index's only if the store kept the identity the index was checked against.
#[test]
fn the_store_read_after_its_index_must_still_be_the_indexed_one() {
    let f = Fixture::new();
    f.store(40);
    let whole = f.shown_whole();
    f.shown();
    let store = f.p.fable_dir.join("rules.json");
    let bytes = std::fs::read(&store).unwrap();
    let read = || rule_index::read(&f.p.fable_dir, &f.key, &f.scope()).unwrap().unwrap();
    let mut snap = read();
    assert!(
        snap.index.is_some() && snap.bytes.is_empty(),
        "index first, bytes unread"
    );
    assert!(snap.fill() && snap.bytes == bytes && snap.identity.is_some());
    // The store rewritten between the index check and the read: what was read is
    // returned for the full parse, with no identity (no index used or written for it).
    let mut snap = read();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let edited = String::from_utf8(bytes.clone())
        .unwrap()
        .replacen("\"promoted\"", "\"retired\"", 1);
    std::fs::write(&store, &edited).unwrap();
    assert!(!snap.fill());
    assert_eq!((snap.bytes.as_slice(), snap.identity), (edited.as_bytes(), None));
    // The hooks then agree with the full parse of the new store.
    assert_eq!(f.shown(), f.shown_whole());
    assert_ne!(f.shown(), whole);
}
