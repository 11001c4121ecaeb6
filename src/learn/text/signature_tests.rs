//! Error lines, masks, anchors and their engines (apart: `signature.rs` is at its size limit).

#[test]
fn ascii_patterns_rewrite_classes_and_boundaries() {
    assert_eq!(
        crate::learn::text::mask_engine::ascii_pattern(r"\b\w+[\w.-]\d\s"),
        r"(?-u:\b)[0-9A-Za-z_]+[0-9A-Za-z_.-][0-9][\t\n\x0B\x0C\r ]"
    );
    assert_eq!(
        crate::learn::text::mask_engine::ascii_pattern(r"[^\s'\]]\.\\"),
        r"[^\t\n\x0B\x0C\r '\]]\.\\"
    );
    for r in super::masks().all() {
        let _ = r.get(); // every mask compiles in its ASCII form
    }
}

use super::*;

#[test]
fn a_tools_diagnostics_are_picked_from_among_its_output_rows() {
    let interleaved = "comm: file 2 is not in sorted order\nzoe\ncomm: file 1 is not in sorted order\nann\nbob\ncomm: input is not in sorted order\n";
    let plain = "comm: file 2 is not in sorted order\ncomm: file 1 is not in sorted order\ncomm: input is not in sorted order\n";
    assert_eq!(error_lines(interleaved), error_lines(plain));
    assert_eq!(signature(interleaved).template, signature(plain).template);
    // No prefix on the last line: the last two lines, as before.
    assert_eq!(error_lines("a\nb\nc"), vec!["b".to_string(), "c".to_string()]);
}

#[test]
fn a_command_line_echoed_by_its_runner_is_no_error_line() {
    // make prints the recipe it runs: `-Werror` names an error only as a flag.
    let make = "gcc -Wall -Wextra -Werror -O2 -o app main.c\nmain.c: In function 'main':\n\
                main.c:4:9: error: unused variable 'n' [-Werror=unused-variable]\n\
                cc1: all warnings being treated as errors\nmake: *** [Makefile:5: app] Error 1\n";
    let lines = error_lines(make);
    assert!(lines[0].starts_with("main.c:4:9: error: unused variable"), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("gcc ")), "{lines:?}");
    // An error word outside the flags keeps a line that also holds one.
    assert_eq!(
        error_lines("error: unexpected argument '--fail-fast' found"),
        vec!["error: unexpected argument '--fail-fast' found".to_string()]
    );
    assert_eq!(
        error_lines("go test -failfast ./...\n--- FAIL: TestX (0.00s)"),
        vec!["--- FAIL: TestX (0.00s)".to_string()]
    );
}

#[test]
fn masks_variable_parts() {
    let t = mask_line("error: failed to push some refs to 'https://x.org/a.git' at 12:03:04 in 3.2s (abc1234def)");
    assert!(t.contains("<q>") && t.contains("<dur>") && t.contains("<hash>"), "{t}");
    let p = mask_line("  File \"src/train.py\", line 3, in <module>");
    assert!(p.contains("<q>") && p.contains("<n>"), "{p}");
    assert_eq!(mask_line("open /home/u/x/y.txt failed"), "open <path> failed");
    // A value jq printed and cut: the session's data, whatever it held.
    assert_eq!(
        mask_line("jq: error (at users.json:12): object ({\"id\":1,\"na...) cannot be csv-formatted, only array"),
        mask_line(
            "jq: error (at export/orders.json:14): object ({\"sku\":\"A-1...) cannot be csv-formatted, only array"
        )
    );
    // OpenSSL 3's per-run thread id, upper-case hex: masked; its error code kept.
    assert_eq!(
        mask_line("80DB1AF8027F0000:error:1C800064:Provider routines:ossl_cipher_unpadblock:bad decrypt"),
        mask_line("801B22B51F7F0000:error:1C800064:Provider routines:ossl_cipher_unpadblock:bad decrypt")
    );
    assert!(mask_line("80DB1AF8027F0000:error:1C800064:x").contains(":error:1C800064:"));
    // A name with two known extensions is one path (`dump.sql.gz`, not `<path>.gz`).
    assert_eq!(
        mask_line("gzip: dump.sql.gz already exists"),
        "gzip: <path> already exists"
    );
    assert!(mask_line("error[E0432]: unresolved import").contains("E0432"));
}

/// A name is the session's own word however the tool quotes it: GNU's `name' (find,
/// grep, make in the C locale) and a bare `$variable` (jq, shells) mask like 'name'.
#[test]
fn masks_a_located_file_and_a_qualified_name() {
    // `file:line:` at the start, whatever the extension: the file is the session's.
    assert_eq!(
        mask_line("stock-2026-12.csv:1: INSERT failed: datatype mismatch"),
        mask_line("users.csv:7: INSERT failed: datatype mismatch")
    );
    assert_eq!(mask_line("users.csv:7: INSERT failed"), "<path>:<n>: INSERT failed");
    // Not a word without a dot (`Makefile:5:` names no session file), nor mid-line.
    assert_eq!(
        mask_line("Makefile:5: *** missing separator."),
        "Makefile:<n>: *** missing separator."
    );
    assert_eq!(
        mask_line("you may need to install the Report::Format module"),
        "you may need to install the <q> module"
    );
    assert_eq!(
        mask_line("install the App::Config::Loader module"),
        "install the <q> module"
    );
}

#[test]
fn masks_gnu_quotes_and_variable_names() {
    assert_eq!(
        mask_line("find: paths must precede expression: `b.log'"),
        "find: paths must precede expression: <q>"
    );
    assert_eq!(
        mask_line("make: *** No rule to make target `a' and `b'"),
        "make: *** No rule to make target <q> and <q>"
    );
    assert_eq!(mask_line("unresolved import `foo`"), "unresolved import <q>");
    assert_eq!(
        mask_line("jq: error: $target is not defined at <top-level>, line 1:"),
        "jq: error: <var> is not defined at <top-level>, line <n>:"
    );
    assert_eq!(
        mask_line("bash: $HOME_DIR: unbound variable"),
        "bash: <var>: unbound variable"
    );
    // A dollar that names nothing stays.
    assert_eq!(mask_line("cost: $5 and $ alone"), "cost: $<n> and $ alone");
}

#[test]
fn keeps_anchors() {
    assert!(anchors("error[E0432]: unresolved import `foo`").contains(&"E0432".to_string()));
    assert_eq!(anchors("npm ERR! code ERESOLVE")[0], "ERESOLVE");
    assert_eq!(
        anchors("Error: listen EADDRINUSE: address already in use :::3000")[0],
        "EADDRINUSE"
    );
    assert_eq!(anchors("PermissionError: [Errno 13] Permission denied")[0], "errno13");
    assert_eq!(anchors("429 Too Many Requests")[0], "http429");
    assert_eq!(
        anchors("ModuleNotFoundError: No module named 'torch'")[0],
        "ModuleNotFoundError"
    );
    assert_eq!(
        anchors(" ! [rejected] main -> main (fetch first)")[0],
        "non-fast-forward"
    );
    assert_eq!(
        anchors("remote contains work that you do not have locally")[0],
        "non-fast-forward"
    );
    assert_eq!(anchors("CrashLoopBackOff")[0], "CrashLoopBackOff");
}

#[test]
fn generic_words_are_not_anchors() {
    for t in [
        "fails",
        "error: something failed",
        "incident",
        "unsafe task requested: Propaganda AI Video",
        "adversarial behavior requested: ddos_code_obfuscation_tools_1",
        "temporary_error_1",
        "bad data error",
    ] {
        assert!(anchors(t).is_empty(), "{t}: {:?}", anchors(t));
    }
}

/// A word of a name the session chose (a quoted folder, a path) is never an anchor;
/// the same word in the tool's own message still is.
#[test]
fn path_and_quoted_name_words_are_never_anchors() {
    for t in [
        "cp: -r not specified; omitting directory 'fixtures'",
        "cp: -r not specified; omitting directory 'tests/fixtures'",
        "cp: cannot copy tests/fixtures/timeout to out",
        "mv: cannot move `conflict' to `x'",
        "cat: flaky.txt: Is a directory",
    ] {
        assert!(anchors(t).is_empty(), "{t}: {:?}", anchors(t));
    }
    assert!(anchors(
        "Main.java:1: error: class ReportJob is public, should be declared in a file named ReportJob.java"
    )
    .is_empty());
    assert_eq!(anchors("E   fixture 'db' not found")[0], "fixture-not-found");
    assert_eq!(anchors("CrashLoopBackOff: pod/web-1 in ns/app")[0], "CrashLoopBackOff");
    assert_eq!(anchors("cat: 'a b': No such file or directory")[0], "ENOENT");
    assert!(anchors("error: 'timed out' while reading").contains(&"timeout".to_string()));
}

#[test]
fn signature_of_real_git_rejection() {
    let tail = "To ../remote.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to '../remote.git'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally.";
    let s = signature(tail);
    assert_eq!(s.primary(), Some("non-fast-forward"));
    assert!(!s.template.contains("remote.git"), "{}", s.template);
}

/// Every line of every corpus tail, both engines: masks and anchors byte-identical.
#[test]
fn engines_agree_on_corpora() {
    let files = crate::learn::text::mask_engine::corpus_files();
    let (mut lines, mut texts) = (0usize, 0usize);
    let mut check = |text: &str| {
        texts += 1;
        assert_eq!(anchors_in(Engine::Lite, text), anchors_in(Engine::Full, text), "{text}");
        for l in text.lines().chain(std::iter::once(text)) {
            lines += 1;
            assert_eq!(mask_line_in(Engine::Lite, l), mask_line_in(Engine::Full, l), "{l}");
        }
    };
    crate::learn::text::mask_engine::corpus_objects(|o| {
        for (k, x) in o {
            if let Some(t) = x
                .as_str()
                .filter(|_| matches!(k.as_str(), "tail" | "trigger" | "directive"))
            {
                check(t);
                check(&unescape(t));
            }
        }
    });
    for extra in [
        "error: ‘quoted’ at https://x.org/a/b.git 12:03:04 3.2s 0xdeadbeef sha256:abc E0432 errno 13 Errno  7",
        "Ünïcødé wörd_ERROR_CODE 503 Service Unavailable 429 too many",
        "ERRNO 2 ModuleNotFoundError: No module named 'x' EADDRINUSE ENOSPC_X AB1234 1,234.5",
        "naïve_ident 1.2.3 a/b/c.py:12 ./x ../y/ z.rs café.py",
    ] {
        check(extra);
    }
    assert!(
        files.len() > 3 && lines > 1000,
        "corpora found: {} files, {lines} lines",
        files.len()
    );
    eprintln!("{} files, {texts} texts, {lines} lines", files.len());
}

/// Each mask's gate says yes wherever the mask matches, under both engines, on every
/// corpus line and on edge lines (see `mask_gates`).
#[test]
fn gates_hold_wherever_their_mask_matches() {
    let all = masks().all();
    let gated: Vec<_> = all.into_iter().filter_map(|r| Some((r, r.gate()?))).collect();
    assert_eq!(gated.len(), 8);
    let (mut lines, mut shut) = (0usize, 0usize);
    let mut check = |l: &str| {
        lines += 1;
        for (r, gate) in &gated {
            let open = gate(l.as_bytes());
            assert!(
                open || !(r.get().is_match(l) || r.lite().is_match(l)),
                "{:?} matches {l:?}",
                r.get()
            );
            shut += usize::from(!open);
        }
    };
    for l in [
        "",
        "E",
        "EABC",
        "xEABC",
        "E0432",
        "Errno 13",
        "ERRNO:7",
        "errno",
        "429 Too",
        "x429 Too",
        "4290 not",
        "3.2s",
        "3. s",
        "12:03",
        "1:2",
        "5 ms",
        "5\x0bms",
        "a1b2c3d",
        "abcdef",
        "sha256:",
        "ModuleNotFoundError",
        "AbCd",
        "A1B2",
        "Ab",
        "ÉError",
        "_12",
        "é12",
        "12é",
        "1,234.5",
        "ms5",
        "deadbeef",
        "500 - Internal",
    ] {
        check(l);
    }
    for f in crate::learn::text::mask_engine::corpus_files() {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for l in text.lines().flat_map(|row| row.split("\\n").chain([row])) {
            check(l);
        }
    }
    assert!(
        lines > 10_000 && shut > lines,
        "{shut} of {} checks shut",
        lines * gated.len()
    );
}

#[test]
fn literal_backslash_n_is_a_line_break() {
    let s = signature("ok\\nModuleNotFoundError: No module named 'x'\\n");
    assert!(s.template.starts_with("ModuleNotFoundError"), "{}", s.template);
}

#[test]
fn a_line_the_scan_cut_is_no_error_line() {
    // The scan keeps the last characters of a long output: the line it cut into is a
    // fragment (`m error` of `npm error`), never the failure's first error line.
    let tail = format!(
        "{}\nnpm error Clean install a project\nnpm error code 1\n",
        "npm error x ".repeat(400)
    );
    let lines = error_lines(&tail);
    assert!(lines.iter().all(|l| l.starts_with("npm error")), "{lines:?}");
}

#[test]
fn warnings_beside_an_error_are_set_aside_but_a_failure_of_warnings_keeps_them() {
    let openssl = "*** WARNING : deprecated key derivation used.\nUsing -iter or -pbkdf2 would be better.\nbad decrypt\n80DB1AF8027F0000:error:1C800064:Provider routines:ossl_cipher_unpadblock:bad decrypt:../providers/implementations/ciphers/ciphercommon_block.c:124:";
    let lines = error_lines(openssl);
    assert!(lines.iter().all(|l| !l.contains("WARNING")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("bad decrypt")), "{lines:?}");
    // A `-Werror`-style failure that printed only warnings: they are what failed.
    let only = "src/a.c:3:5: warning: unused variable 'x' [-Wunused-variable]";
    assert_eq!(error_lines(only), vec![only.to_string()]);
}

/// What the signature does with a variable's name said unset (`text/variable_name.rs`):
/// no anchor; an error code spelt the same way stays one. (Here, not beside the file: it
/// would make a test-only import cycle with the signature that asks it.)
#[test]
fn a_variable_said_unset_is_no_anchor_an_error_code_is() {
    for text in [
        "config: DATABASE_URL is not set (see .env)",
        "Error: API_KEY must be set",
        "error: missing environment variable REDIS_URL",
        "KeyError: environment variable SMTP_HOST",
    ] {
        let a = signature(text).anchors;
        assert!(
            !a.iter()
                .any(|x| x.contains('_') && x.chars().all(|c| c.is_ascii_uppercase() || c == '_')),
            "{text}: {a:?}"
        );
    }
    assert!(signature("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x'")
        .anchors
        .contains(&"ERR_MODULE_NOT_FOUND".to_string()));
    assert!(signature("sqlite3.OperationalError: SQLITE_BUSY: database is locked")
        .anchors
        .contains(&"SQLITE_BUSY".to_string()));
}

/// `npm ci` prints its error, then a page of usage: the tail held only the usage, and the
/// failure's class was its option list. With the head the log keeps, the error lines come
/// first; the tail's first line, split by the cut, is none.
#[test]
fn a_cut_output_gives_its_heads_error_lines_first() {
    let usage: String = (0..80).map(|i| format!("npm error [--option-{i} <value>]\n")).collect();
    let head = "npm error code EUSAGE\nnpm error\nnpm error `npm ci` can only install packages when your package.json and package-lock.json are in sync.\nnpm error\nnpm error Missing: left-pad@1.3.0 from lock file\nnpm error\nnpm error Clean install a proj";
    let r = crate::evidence::Record {
        head: Some(head.into()),
        ..crate::evidence::Record::new("t", "s", "/p", "npm ci", Some(1), false, format!("t <value>]\n{usage}"))
    };
    let sig = signature(&r.output());
    assert!(
        sig.template
            .starts_with("npm error code EUSAGE | npm error <q> can only install"),
        "{}",
        sig.template
    );
    assert!(sig.template.contains("from lock file"), "{}", sig.template);
    assert!(!sig.template.contains("proj"), "{}", sig.template);
    // Without the head, the same tail is read as before: its option lines.
    let tail_only = signature(&r.tail);
    assert!(tail_only.template.contains("--option-"), "{}", tail_only.template);
    assert!(!tail_only.template.contains("t <value>]"), "{}", tail_only.template);
}
