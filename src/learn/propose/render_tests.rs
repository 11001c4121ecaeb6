//! Rendering as shell: placeholders, quoting, cuts (apart: `render.rs` is at its size limit).

use super::*;

fn w(s: &str) -> Vec<String> {
    shell_words::split(s).unwrap()
}

fn au(cmds: &[&str]) -> String {
    let v: Vec<Vec<String>> = cmds.iter().map(|c| w(c)).collect();
    let refs: Vec<&[String]> = v.iter().map(Vec::as_slice).collect();
    render(&anti_unify(&refs))
}

#[test]
fn a_long_command_is_cut_at_a_word() {
    let long = "openssl x509 -req -in <file> -CA <file> -CAkey <file> -CAcreateserial -out <file> -days <n> -sha256 -extfile <file>";
    let q = quote_cmd(long);
    assert!(q.ends_with(" …`"), "{q}");
    assert!(q.contains("-out <file>"), "{q}");
    assert!(!q.contains("<fil`"), "{q}");
    assert_eq!(quote_cmd("git pull --rebase"), "`git pull --rebase`");
    assert_eq!(quote_cmd("echo `date`"), "`echo 'date'`");
}

#[test]
fn one_step_by_two_programs_is_grouped_by_program_and_a_flag_is_never_a_hole() {
    let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
    let (a, b, c) = (w("install -d out/a"), w("mkdir -p x/y"), w("install -d out/b"));
    let d = w("mkdir --parents z/w");
    let groups = by_program(&[&a, &b, &c, &d]);
    assert_eq!(groups.len(), 2);
    assert_eq!(
        groups[0],
        vec![a.as_slice(), c.as_slice()],
        "the most recent of two equal groups first"
    );
    assert_eq!(render(&anti_unify(&groups[1])), "mkdir -p <dir>");
}

#[test]
fn an_environment_setting_is_said_as_the_shell_reads_it() {
    let q = |w: &str| quote_words(&[w.to_string()]);
    assert_eq!(q("PKG_CONFIG_PATH=build/lib"), "PKG_CONFIG_PATH=build/lib");
    // Its value expands a variable: double quotes, never single ones.
    assert_eq!(q("PERL5LIB=$PWD/lib"), "PERL5LIB=\"$PWD/lib\"");
    // Typed quoted: as typed, not quoted again whole.
    assert_eq!(q("PERL5LIB=\"$PWD/lib\""), "PERL5LIB=\"$PWD/lib\"");
    assert_eq!(q("CFLAGS=-O2 -fPIC"), "CFLAGS='-O2 -fPIC'");
    // Not a variable's name: the word quoted whole, as before.
    assert_eq!(q("a b=c"), "'a b=c'");
}

#[test]
fn a_path_from_an_environment_variable_is_said_so_the_shell_expands_it() {
    let q = |w: &str| quote_words(&[w.to_string()]);
    // `ln -sf "$PWD/config/dev.env" …` had been said `'$PWD/config/dev.env'`: a link to a
    // file named `$PWD`.
    assert_eq!(q("$PWD/config/dev.env"), "\"$PWD/config/dev.env\"");
    assert_eq!(q("${HOME}/bin"), "\"${HOME}/bin\"");
    assert_eq!(q("$HOME"), "\"$HOME\"");
    // A script's own variable, or more than a path: quoted whole as before.
    assert_eq!(q("$x"), "'$x'");
    assert_eq!(q("$PWD/a b"), "'$PWD/a b'");
    assert_eq!(q("$HOMEx/$Y"), "'$HOMEx/$Y'");
}

#[test]
fn a_value_of_several_words_keeps_the_words_all_share() {
    let v = |ws: &[&str]| -> Vec<String> { ws.iter().map(|w| w.to_string()).collect() };
    let a = v(&["sqlite", ".timeout 8000"]);
    let b = v(&["sqlite", ".timeout 15000"]);
    assert_eq!(render(&anti_unify(&[&a, &b])), "sqlite '.timeout <n>'");
    // Words that differ whole stay one hole.
    let c = v(&["sqlite", "PRAGMA busy_timeout"]);
    assert_eq!(render(&anti_unify(&[&a, &c])), "sqlite <value>");
}

#[test]
fn varying_parts_become_placeholders_shared_parts_stay() {
    assert_eq!(
        au(&["git checkout -b feature/login", "git checkout -b fix/typo"]),
        "git checkout -b <branch>"
    );
    assert_eq!(au(&["bash build.sh", "bash deploy.sh"]), "bash <script>");
    assert_eq!(au(&["mkdir -p out/a", "mkdir -p out/b"]), "mkdir -p out/<dir>");
    assert_eq!(
        au(&[
            "git branch --set-upstream-to=origin/hotfix/x",
            "git branch --set-upstream-to=origin/feat/dark-mode"
        ]),
        "git branch --set-upstream-to=origin/<branch>"
    );
    assert_eq!(
        au(&[
            "cargo test --manifest-path tiler/Cargo.toml",
            "cargo test --manifest-path rust/slugify/Cargo.toml"
        ]),
        "cargo test --manifest-path <dir>/Cargo.toml"
    );
    assert_eq!(
        au(&["git switch feature-a", "git switch feature-b"]),
        "git switch <branch>",
        "no part of a name"
    );
    assert_eq!(
        au(&["npm install react@18", "npm install react@18"]),
        "npm install react@18"
    );
    assert_eq!(au(&["git pull --rebase", "git pull --rebase"]), "git pull --rebase");
    assert_eq!(
        au(&["kubectl scale --replicas 3 d", "kubectl scale --replicas 5 d"]),
        "kubectl scale --replicas <n> d"
    );
    // One word count, two shapes (a flag where the other has a word): only the
    // reference's shape takes part, never `git <value> <value> <value> …`.
    assert_eq!(
        au(&[
            "git -C ../deploy config receive.denyCurrentBranch updateInstead",
            "git config --file ../www/.git/config receive.denyCurrentBranch updateInstead",
            "git -C ../site config receive.denyCurrentBranch updateInstead",
        ]),
        "git -C ../<dir> config receive.denyCurrentBranch updateInstead"
    );
}

#[test]
fn names_and_emails_are_always_placeholders() {
    assert_eq!(
        au(&["git config user.name 'Jane Doe'", "git config user.name 'Jane Doe'"]),
        "git config user.name <name>"
    );
    assert_eq!(
        au(&["git config --global user.email jane@example.com"]),
        "git config --global user.email <email>"
    );
    assert_eq!(au(&["npm login --email a@b.io"]), "npm login --email <email>");
    // One session: its home path is not known to be shared.
    assert_eq!(au(&["cp /home/jane/.env.example .env"]), "cp <file> .env");
}

#[test]
fn renders_valid_shell() {
    assert_eq!(
        au(&["git commit -m 'fix: a b'", "git commit -m 'fix: a b'"]),
        "git commit -m 'fix: a b'"
    );
    assert_eq!(
        au(&["sed -i 's/\\r$//' a.sh", "sed -i 's/\\r$//' b.sh"]),
        "sed -i 's/\\r$//' <file>"
    );
    assert_eq!(au(&["git gc --prune=now"]), "git gc --prune=now");
    assert_eq!(au(&["sed -i s/a/b/ f.rs", "sed -i s/c/d/ f.rs"]), "sed -i <expr> f.rs");
    assert_eq!(
        au(&["git checkout -- a.py", "git checkout -- b.py"]),
        "git checkout -- <file>"
    );
    assert_eq!(
        au(&["git commit -m one", "git commit -m two"]),
        "git commit -m <message>"
    );
    assert_eq!(au(&["lsof -i :8000", "lsof -i :8080"]), "lsof -i <port>");
    assert_eq!(
        au(&[
            "git remote set-url origin ~/r/a.git",
            "git remote set-url origin ~/r/b.git"
        ]),
        "git remote set-url origin ~/r/<file>",
        "a home path keeps its ~ unquoted"
    );
}

/// The CRLF fix, rendered, does what it says when a person fills in the placeholder
/// and runs it through `sh -c`.
#[test]
fn crlf_directive_round_trips_through_sh() {
    let cmd = au(&["sed -i 's/\\r$//' build.sh", "sed -i 's/\\r$//' scripts/deploy.sh"]);
    assert_eq!(cmd, "sed -i 's/\\r$//' <file>");
    let dir = std::env::temp_dir().join(format!("fable-crlf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("x y.sh");
    std::fs::write(&f, "echo one\r\necho two\r\n").unwrap();
    let filled = cmd.replace("<file>", &shell_words::quote(f.to_str().unwrap()));
    let st = std::process::Command::new("sh")
        .arg("-c")
        .arg(&filled)
        .status()
        .unwrap();
    assert!(st.success(), "{filled}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "echo one\necho two\n");
    let out = std::process::Command::new("sh").arg(&f).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "one\ntwo\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_variable_set_for_the_command_keeps_its_name() {
    // Each session its own value: the variable's name is the fix, said.
    let (a, b) = (w("LD_LIBRARY_PATH=lib ./app"), w("LD_LIBRARY_PATH=./lib ./app"));
    let spelled: Vec<&[String]> = vec![&a, &b];
    let said = render(&anti_unify(&spelled));
    assert!(said.starts_with("LD_LIBRARY_PATH=<"), "{said}");
    // One session alone in its spelling: its value is a hole, the name stays.
    let one = w("LD_LIBRARY_PATH=$PWD/lib ./report --verbose");
    let said = render(&holes_for_values(&one, anti_unify(&[&one])));
    assert!(said.starts_with("LD_LIBRARY_PATH=<"), "{said}");
}

#[test]
fn the_word_most_sessions_typed_is_said_and_the_others_named() {
    let (a, b, c) = (w("npm run"), w("npm run-script"), w("npm run"));
    let spelled: Vec<&[String]> = vec![&a, &b, &c];
    let (toks, others) = most_common_words(&spelled, anti_unify(&spelled), 1);
    assert_eq!(render(&toks), "npm run");
    assert_eq!(others, vec![(1, "run-script".to_string())]);
    // No majority (each session its own value): the placeholder stays.
    let (a, b, c) = (w("jq --arg a 1"), w("jq --arg b 2"), w("jq --arg c 3"));
    let spelled: Vec<&[String]> = vec![&a, &b, &c];
    let (toks, others) = most_common_words(&spelled, anti_unify(&spelled), 1);
    assert_eq!(render(&toks), "jq --arg <value> <n>");
    assert!(others.is_empty());
    // A home path typed twice is still private.
    let (a, b) = (w("cp -r x ~/backup"), w("cp -r x ~/backup"));
    let c = w("cp -r x /srv/b");
    let spelled: Vec<&[String]> = vec![&a, &b, &c];
    let (toks, _) = most_common_words(&spelled, anti_unify(&spelled), 1);
    assert!(!render(&toks).contains("backup"), "{}", render(&toks));
}

#[test]
fn a_change_of_placeholders_alone_says_nothing() {
    assert!(only_holes("<value> <file>"));
    assert!(only_holes("'<value>'"));
    assert!(!only_holes("--arg <value> <value>"));
    assert!(!only_holes("src/<file>"));
    assert!(!only_holes(""));
}
