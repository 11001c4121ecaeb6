//! A run of the failing program that made the failing command's input: `gcc -fPIC -c
//! src/counter.c -o obj/counter.o` between `gcc -shared -o libcounter.so obj/counter.o`
//! failing ("recompile with -fPIC") and the same link passing.
//!
//! Why: a program without subcommands (`gcc`, `cc`, `javac`) runs one "action", so any
//! other run of it between a failure and its retry read as the failing action run again —
//! no step — and the retry, unchanged, as a plain retry: a fix the log shows was counted
//! as the failure clearing by itself (dev6's `c-shared-object-needs-fpic`). What the run
//! wrote tells them apart: its output is the failing command's input.

use crate::learn::text::command_norm::Segment;

/// The file a run names as its output: `-o X`, `-oX`, `--output X`, `--output=X`, and the
/// single-dash long form some tools use (`openssl x509 … -out cert.pem`).
fn output_of(s: &Segment) -> Option<&str> {
    let w = &s.words;
    w.iter().enumerate().find_map(|(i, x)| match x.as_str() {
        "-o" | "--output" | "-out" | "--out" => w.get(i + 1).map(String::as_str),
        _ => x
            .strip_prefix("--output=")
            .or_else(|| x.strip_prefix("-o").filter(|v| !v.is_empty() && !v.starts_with('-'))),
    })
}

/// Did `step` (a run of the failing command's own program) write a file the failing
/// command `fail` reads: its output is one of `fail`'s operands, and not `fail`'s own
/// output? Then it made the input, and it is a fix step, not the failing action again.
pub fn made_input(fail: &Segment, step: &Segment) -> bool {
    let Some(out) = output_of(step) else { return false };
    let trim = |p: &str| p.trim_start_matches("./").to_string();
    let (out, own) = (trim(out), output_of(fail).map(trim));
    out.len() >= 2
        && own.as_deref() != Some(out.as_str())
        && fail.words.iter().skip(1).any(|w| !w.starts_with('-') && trim(w) == out)
}

#[cfg(test)]
mod tests {
    use super::made_input;

    fn seg(s: &str) -> crate::learn::text::command_norm::Segment {
        crate::learn::text::command_norm::normalize(s)
            .primary()
            .unwrap()
            .clone()
    }

    #[test]
    fn a_run_whose_output_the_failing_command_reads_made_its_input() {
        let link = seg("gcc -shared -o libcounter.so obj/counter.o");
        assert!(made_input(&link, &seg("gcc -fPIC -c src/counter.c -o obj/counter.o")));
        assert!(made_input(&link, &seg("gcc -c -fPIC -oobj/counter.o src/counter.c")));
        // The failing command's own output made again, another file, no output: no.
        assert!(!made_input(
            &link,
            &seg("gcc -shared -fPIC -o libcounter.so src/counter.c")
        ));
        assert!(!made_input(&link, &seg("gcc -c src/other.c -o obj/other.o")));
        assert!(!made_input(&link, &seg("gcc --version")));
        // A certificate issued again where the failing verify reads it.
        let verify = seg("openssl verify -CAfile ca.pem certs/server.pem");
        assert!(made_input(
            &verify,
            &seg("openssl x509 -req -in certs/server.csr -CA ca.pem -CAkey ca.key -out certs/server.pem -days 365")
        ));
        assert!(!made_input(
            &verify,
            &seg("openssl x509 -noout -enddate -in certs/server.pem")
        ));
    }
}
