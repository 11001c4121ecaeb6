//! At Stop: are the project's files still as a passing run left them?
//!
//! [`Now`] answers once per tree and stop. The stored folders' stats tell whether any
//! file was added or removed since the snapshot (a folder's mtime moves with its
//! entries); when none was, only the stored files are `stat`ed and compared; otherwise
//! only the folders that moved are read again and git is asked about their new names
//! ([`refresh`](crate::evidence::tree_refresh::refresh)), and the full listing is taken only when that cannot answer (no stored
//! snapshot, no git work tree with new names). (Walking the folders' names instead cost
//! 8-10 ms on 10,000 files here, their `stat`s 0.4 ms; the full listing after one new
//! ignored file cost 40 ms.)
//! The stored snapshot is trusted only when its files hash to the sealed `tree`.

use crate::evidence::tree::{compare, diff, stat_all, take, Change, Snapshot, Stat};
use crate::evidence::tree_refresh::{relist_while, Names, Relisted};
use crate::evidence::{tree_moved, tree_store};
use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The stop-time view of the project, computed at most once per stop and per tree.
pub struct Now {
    root: PathBuf,
    store: Option<PathBuf>,
    /// `HOME` and `XDG_CONFIG_HOME`, which name git's user configuration: without them
    /// ([`Now::with_env`]) no earlier answer of git's is reused.
    env: Option<[Option<String>; 2]>,
    full: OnceCell<Option<Snapshot>>,
    /// Ask the project's watcher first ([`crate::evidence::tree_watch`]); off with
    /// `FABLE_WATCH=off`, and in the watcher's own check.
    watch: bool,
    memo: RefCell<HashMap<String, Verdict>>,
}

/// Are the files as a tree saw them?
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Same,
    /// Changed, with what changed (sorted by path).
    Changed(Vec<Change>),
    /// Changed, but the pass's per-file snapshot is gone: what changed cannot be named.
    ChangedUnnamed,
    /// The files cannot be read now (fail-open: the time-based rule decides).
    Unknown,
}

impl Now {
    /// `store` is this project's folder of per-file snapshots ([`tree_store::dir`]).
    pub fn new(root: &Path, store: Option<PathBuf>) -> Now {
        Now {
            root: root.to_path_buf(),
            store,
            env: None,
            full: OnceCell::new(),
            watch: true,
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// Lets a stop reuse git's earlier answers about ignored names while git's inputs
    /// (named partly by `HOME` and `XDG_CONFIG_HOME`) keep their stats.
    pub fn with_env(mut self, get: impl Fn(&str) -> Option<String>) -> Now {
        self.env = Some([get("HOME"), get("XDG_CONFIG_HOME")]);
        self.watch = crate::evidence::tree_watch::enabled(&get);
        self
    }

    /// Checks the files itself, never asking a watcher (the watcher's own first check).
    pub fn unwatched(mut self) -> Now {
        self.watch = false;
        self
    }

    /// The stats of git's inputs besides the folders ([`tree_store::ignore_inputs`]).
    fn git_inputs(&self) -> Option<Vec<(String, Stat)>> {
        let [home, xdg] = self.env.as_ref()?;
        let get = |k: &str| match k {
            "HOME" => home.clone(),
            "XDG_CONFIG_HOME" => xdg.clone(),
            _ => None,
        };
        Some(tree_store::ignore_inputs(&self.root, true, get))
    }

    fn full(&self) -> Option<&Snapshot> {
        self.full.get_or_init(|| take(&self.root)).as_ref()
    }

    /// True when every folder the snapshot walked has the stats it had: no file was
    /// added, removed or renamed anywhere the listing looks.
    #[cfg(test)]
    fn no_entry_changed(&self, s: &Snapshot) -> bool {
        let names: Vec<String> = s.dirs.iter().map(|(p, _)| p.clone()).collect();
        !s.dirs.is_empty() && crate::evidence::tree::stat_dirs(&self.root, &names) == s.dirs
    }

    /// Saves what a stop that found the files unchanged learnt, when it learnt anything:
    /// folders that moved since `was`, ignored names git was asked about. Earlier answers
    /// about names in folders not read again are kept.
    fn remember(
        &self,
        tree: &str,
        was: &[(&str, Stat)],
        r: Relisted,
        known: &HashSet<&str>,
        keys: Option<Vec<(String, Stat)>>,
    ) {
        let Some(d) = &self.store else { return };
        let same = |a: &(String, Stat), b: &(&str, Stat)| a.0 == b.0 && a.1 == b.1;
        let moved = r.dirs.len() != was.len() || !r.dirs.iter().zip(was).all(|(a, b)| same(a, b));
        let new_answer = r.ignored.iter().any(|p| !known.contains(p.as_str()));
        if !moved && !new_answer {
            return;
        }
        let read_again = |p: &str| {
            let parent = p.rsplit_once('/').map_or("./".to_string(), |(d, _)| format!("{d}/"));
            let before = was.binary_search_by(|(q, _)| (*q).cmp(parent.as_str()));
            let now = r.dirs.binary_search_by(|(q, _)| q.as_str().cmp(parent.as_str()));
            match (before, now) {
                (Ok(i), Ok(j)) => was[i].1 != r.dirs[j].1,
                _ => true,
            }
        };
        let mut ignored = r.ignored;
        ignored.extend(known.iter().filter(|p| !read_again(p)).map(|p| p.to_string()));
        ignored.sort_unstable();
        ignored.dedup();
        let m = tree_moved::Moved {
            keys: keys.unwrap_or_default(),
            dirs: r.dirs,
            ignored,
        };
        tree_moved::save(d, tree, &m);
    }

    /// Whether the files are still as tree `tree` saw them.
    pub fn verdict(&self, tree: &str) -> Verdict {
        if let Some(v) = self.memo.borrow().get(tree) {
            return v.clone();
        }
        let v = self.decide(tree);
        self.memo.borrow_mut().insert(tree.to_string(), v.clone());
        v
    }

    fn decide(&self, tree: &str) -> Verdict {
        // A live watcher saw every change since it checked this tree itself: it vouches.
        if self.watch
            && self
                .store
                .as_deref()
                .is_some_and(|d| crate::evidence::tree_watch::vouches(d, &self.root, tree))
        {
            return Verdict::Same;
        }
        let bytes = self.store.as_deref().and_then(|d| tree_store::read(d, tree));
        // Trusted only when its files hash to the sealed tree. Read in place: at Stop this
        // is every counted file, and the owned decode cost more than the `stat`s' user time.
        let stored = bytes
            .as_deref()
            .and_then(tree_store::view)
            .filter(|(_, h)| h == tree)
            .map(|(v, _)| v);
        // The listing again, from the stored one: only folders that moved are read.
        // What stops learnt since the snapshot was saved: the folders' stats then, and
        // git's answers while its inputs keep their stats (read before git is asked).
        let moved = self.store.as_deref().and_then(|d| tree_moved::load(d, tree));
        let keys = self.git_inputs();
        let known: HashSet<&str> = match (&moved, &keys) {
            (Some(m), Some(k)) if m.keys == *k => m.ignored.iter().map(String::as_str).collect(),
            _ => HashSet::new(),
        };
        // The stored files are compared in place while git judges new names, if any.
        let relisted = stored.as_ref().and_then(|s| {
            let dirs: Vec<(&str, Stat)> = match &moved {
                Some(m) => m.dirs.iter().map(|(p, st)| (p.as_str(), *st)).collect(),
                None => s.dirs.clone(),
            };
            relist_while(&self.root, &s.files, &dirs, Names::Git, &known, || {
                compare(&self.root, &s.files)
            })
            .map(|(r, changes)| (dirs, r, changes))
        });
        if let Some((dirs, r, mut changes)) = relisted {
            // The new names are all added.
            if !r.added.is_empty() {
                changes.extend(
                    stat_all(&self.root, &r.added)
                        .into_iter()
                        .map(|(p, _)| Change::Added(p)),
                );
                changes.sort_unstable_by(|a, b| a.path().cmp(b.path()));
            }
            if changes.is_empty() {
                self.remember(tree, &dirs, r, &known, keys);
            }
            return if changes.is_empty() {
                Verdict::Same
            } else {
                Verdict::Changed(changes)
            };
        }
        match stored {
            Some(s) => match self.full() {
                Some(f) if f.hash() == tree => {
                    // The same files in folders that moved: the next stop takes the fast path.
                    if let Some(d) = &self.store {
                        tree_store::save(d, f, tree);
                    }
                    Verdict::Same
                }
                Some(f) => Verdict::Changed(diff(&s.files, &f.files)),
                None => Verdict::Unknown,
            },
            None => match self.full() {
                Some(f) if f.hash() == tree => Verdict::Same,
                Some(_) => Verdict::ChangedUnnamed,
                None => Verdict::Unknown,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(root: &Path, store: &Path) -> String {
        let s = take(root).unwrap();
        let h = s.hash();
        tree_store::save(store, &s, &h);
        h
    }

    #[test]
    fn a_stop_judges_as_a_full_listing_would_on_a_tree_the_threads_share() {
        let t = tempfile::tempdir().unwrap();
        let (root, store) = (t.path().join("p"), t.path().join("store"));
        for d in 0..5 {
            std::fs::create_dir_all(root.join(format!("src/d{d}"))).unwrap();
            for f in 0..500 {
                std::fs::write(root.join(format!("src/d{d}/f{f}.rs")), "x").unwrap();
            }
        }
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        let git = |args: &[&str]| crate::evidence::tree::git_for_test(&root, args);
        git(&["init", "-q"]);
        git(&["add", "-A"]);
        let pass = take(&root).unwrap();
        assert!(pass.files.len() > 2_048, "more than one thread's share");
        let h = saved(&root, &store);
        let tick = || std::thread::sleep(std::time::Duration::from_millis(15));
        type Step<'a> = (&'a str, Box<dyn Fn() + 'a>);
        let steps: Vec<Step> = vec![
            ("nothing", Box::new(|| {})),
            (
                "ignored file",
                Box::new(|| std::fs::write(root.join("run.log"), "l").unwrap()),
            ),
            (
                "ignored file again",
                Box::new(|| std::fs::write(root.join("src/d4/run.log"), "l").unwrap()),
            ),
            (
                "an ignored name force-added, a new ignored file beside it",
                Box::new(|| {
                    git(&["add", "-f", "run.log"]);
                    std::fs::write(root.join("b.log"), "l").unwrap();
                }),
            ),
            (
                "edit in the last block",
                Box::new(|| std::fs::write(root.join("src/d4/f99.rs"), "y").unwrap()),
            ),
            (
                "new files",
                Box::new(|| {
                    std::fs::write(root.join("src/d2/new.rs"), "n").unwrap();
                    std::fs::write(root.join("a.rs"), "n").unwrap();
                }),
            ),
            (
                "removed file",
                Box::new(|| std::fs::remove_file(root.join("src/d0/f1.rs")).unwrap()),
            ),
        ];
        let home = t.path().join("home").to_string_lossy().into_owned();
        let get = |k: &str| (k == "HOME").then(|| home.clone());
        let mut remembered = Vec::new();
        for (what, change) in steps {
            tick();
            change();
            let full = take(&root).unwrap();
            let changes = diff(&pass.files, &full.files);
            let want = if changes.is_empty() {
                Verdict::Same
            } else {
                Verdict::Changed(changes)
            };
            assert_eq!(
                Now::new(&root, Some(store.clone())).with_env(get).verdict(&h),
                want,
                "{what}"
            );
            if want == Verdict::Same {
                // The folders as they are now, and git's answers so far, were saved.
                // (Nothing saved while nothing moved.)
                let m = tree_moved::load(&store, &h).unwrap_or(tree_moved::Moved {
                    dirs: pass.dirs.clone(),
                    ..Default::default()
                });
                assert!(m.dirs == full.dirs, "{what}");
                remembered.push(m.ignored);
            }
        }
        assert_eq!(
            remembered,
            vec![
                vec![],
                vec!["run.log".to_string()],
                vec!["run.log".into(), "src/d4/run.log".into()]
            ]
        );
    }

    #[test]
    fn same_changed_added_and_a_forged_store() {
        let t = tempfile::tempdir().unwrap();
        let (root, store) = (t.path().join("p"), t.path().join("store"));
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/calc.py"), "x = 1\n").unwrap();
        let h = saved(&root, &store);
        assert_eq!(Now::new(&root, Some(store.clone())).verdict(&h), Verdict::Same);
        // A cache written after the pass changes a folder's stats, not the files.
        std::fs::create_dir_all(root.join("src/__pycache__")).unwrap();
        let now = Now::new(&root, Some(store.clone()));
        assert_eq!(now.verdict(&h), Verdict::Same);
        // …and the folders' new stats were saved: the next stop takes the fast path.
        let m = tree_moved::load(&store, &h).unwrap();
        assert!(now.no_entry_changed(&Snapshot {
            files: Vec::new(),
            dirs: m.dirs
        }));
        std::fs::write(root.join("src/calc.py"), "x = 2\n").unwrap();
        assert_eq!(
            Now::new(&root, Some(store.clone())).verdict(&h),
            Verdict::Changed(vec![Change::Changed("src/calc.py".into())])
        );
        let h = saved(&root, &store);
        std::fs::write(root.join("new.py"), "").unwrap();
        assert_eq!(
            Now::new(&root, Some(store.clone())).verdict(&h),
            Verdict::Changed(vec![Change::Added("new.py".into())])
        );
        // Without its stored snapshot, or with one that does not hash to the tree, the
        // change is still seen, unnamed.
        assert_eq!(Now::new(&root, None).verdict(&h), Verdict::ChangedUnnamed);
        let forged = Snapshot {
            files: vec![(
                "x".into(),
                Stat {
                    size: 0,
                    mtime_ns: 0,
                    ctime_ns: 0,
                    ino: 0,
                },
            )],
            dirs: Vec::new(),
        };
        std::fs::write(store.join(&h), tree_store::encode(&forged)).unwrap();
        assert_eq!(Now::new(&root, Some(store)).verdict(&h), Verdict::ChangedUnnamed);
    }
}
