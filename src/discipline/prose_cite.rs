//! Commands named in prose: an evidence note without backticks
//! (`-- evidence: cargo test -> 12 passed`) that names a known runner is checked like a
//! backticked citation, so leaving the backticks off is no way around corroboration.

use crate::discipline::ledger::{normalize, Card, NoteKind};

/// The runner commands named in a card's evidence notes written without backticks, in
/// order, without duplicates.
pub fn prose_citations(card: &Card) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in card.notes_of(NoteKind::Evidence) {
        if n.body.contains('`') {
            continue;
        }
        if let Some(c) = prose_command(&n.body) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// The first known-runner command in prose: from a runner's program word up to the
/// first delimiter (`->`, `→`, `=>`, `—`, `:`, `;`, `,`, `(`, ` - `). Strict on purpose —
/// `make` counts only with a usual target (`make sure it works` is English), `npm`/`yarn`
/// only with `test`/`run` — because a false citation blocks a stop.
pub fn prose_command(text: &str) -> Option<String> {
    let cut = [
        "->", "→", "=>", "—", " - ", ":", ";", ",", "(", " and ", " then ", " which ", " with ",
    ];
    let words: Vec<&str> = text.split_whitespace().collect();
    for i in 0..words.len() {
        let w = words[i].trim_start_matches(['"', '\'', '(', '“']);
        let runner = matches!(
            w,
            "cargo"
                | "pytest"
                | "npm"
                | "pnpm"
                | "yarn"
                | "go"
                | "make"
                | "tox"
                | "mvn"
                | "gradle"
                | "./gradlew"
                | "jest"
                | "vitest"
                | "python"
                | "python3"
                | "just"
        );
        if !runner {
            continue;
        }
        let rest = words[i..].join(" ");
        // A runner named in quotes (`ran "python3 -m unittest" -> 3 passed`) ends at its
        // closing quote.
        let quote = words[i].chars().next().filter(|c| matches!(c, '"' | '\'' | '“'));
        let (rest, end) = match quote {
            Some(q) => {
                let close = if q == '“' { '”' } else { q };
                let inner = &rest[q.len_utf8()..];
                (inner.to_string(), inner.find(close).unwrap_or(inner.len()))
            }
            None => {
                let end = cut.iter().filter_map(|d| rest.find(d)).min().unwrap_or(rest.len());
                (rest, end)
            }
        };
        let cand = rest[..end].trim().trim_end_matches(['.', '!']).trim();
        let sub = cand.split_whitespace().nth(1).unwrap_or("");
        let plausible = match w {
            "make" | "just" => matches!(
                sub,
                "test" | "tests" | "check" | "build" | "lint" | "ci" | "all" | "release"
            ),
            "npm" | "pnpm" | "yarn" => matches!(sub, "test" | "run" | "t"),
            "cargo" => matches!(sub, "test" | "build" | "check" | "clippy" | "nextest" | "fmt" | "bench"),
            "go" => matches!(sub, "test" | "build" | "vet"),
            "python" | "python3" => cand.contains("-m pytest") || cand.contains("-m unittest"),
            _ => true,
        };
        if plausible && crate::discipline::claims::runner_kind(cand).is_some() {
            return Some(normalize(cand));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runners_in_prose_are_found() {
        assert_eq!(prose_command("cargo test -> 12 passed").as_deref(), Some("cargo test"));
        assert_eq!(
            prose_command("ran pytest -q tests/unit: 3 passed").as_deref(),
            Some("pytest -q tests/unit")
        );
        assert_eq!(prose_command("npm test, all green").as_deref(), Some("npm test"));
        assert_eq!(prose_command("make check → ok").as_deref(), Some("make check"));
        assert_eq!(
            prose_command("python3 -m pytest -x (4 passed)").as_deref(),
            Some("python3 -m pytest -x")
        );
        assert_eq!(
            prose_command("ran \"python3 -m unittest\" -> 3 passed").as_deref(),
            Some("python3 -m unittest")
        );
        assert_eq!(
            prose_command("ran “cargo test --lib”, all green").as_deref(),
            Some("cargo test --lib")
        );
    }

    #[test]
    fn english_is_not_a_command() {
        for t in [
            "make sure the header renders in both themes",
            "go to the settings page and check the toggle",
            "screenshot shows the new layout",
            "npm packages updated by hand",
            "cargo culting removed from the docs",
            "python script reviewed by the user",
        ] {
            assert_eq!(prose_command(t), None, "{t}");
        }
    }
}
