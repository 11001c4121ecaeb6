#!/usr/bin/env python3
"""Converts the gitleaks rule set into `src/evidence/redact_rules.rs` (run once by hand).

    python3 scripts/gitleaks_rules.py path/to/gitleaks.toml [--version v8.30.1] [--source TEXT]

Why a generated Rust table and not the TOML itself: the hook must not parse 100 KB of TOML
on every record, and nothing may be downloaded at build time. The table is plain `static`
data; `src/evidence/redact_gitleaks.rs` compiles a rule's regex only when one of its
keywords occurs in the text.

Go RE2 and the Rust `regex` crate differ in a few places; this script translates them:
- `\\w`, `\\d`, `\\s` (and negations) are ASCII in Go and Unicode in Rust: they become the
  ASCII classes `[[:word:]]`, `[[:digit:]]`, `[\\t\\n\\f\\r ]` (inside a class `[:word:]` …),
  which also keeps compilation cheap (Unicode `\\w` is thousands of ranges);
- `\\b`/`\\B` are ASCII in Go: they become `(?-u:\\b)`/`(?-u:\\B)`;
- a `{` that does not start a repetition is a literal in Go and an error in Rust: escaped;
- the leading context `[\\w.-]{0,50}?` of gitleaks' generic-assignment rules only widens the
  reported match to the left (it is lazy and outside the secret group): dropped, which
  halves those regexes.
Rules are skipped (and listed in the generated header) when they have no regex (path-only
rules: nothing to match in a command or its output). Path conditions are dropped: we have
no file paths, and redacting too much is the safe side; allowlists that are path-only or
AND-ed with paths can never apply here and are left out. The unit test
`every_gitleaks_rule_compiles` prove every emitted regex compiles with the Rust crate.
Python 3.11+ standard library only.
"""
import argparse, pathlib, re, sys, tomllib

OUT = pathlib.Path(__file__).resolve().parent.parent / "src" / "evidence" / "redact_rules.rs"

IN_CLASS = {"w": "[:word:]", "W": "[:^word:]", "d": "[:digit:]", "D": "[:^digit:]",
            "s": r"\t\n\f\r ", "S": "[:^space:]"}
OUT_CLASS = {"w": "[[:word:]]", "W": "[^[:word:]]", "d": "[[:digit:]]", "D": "[^[:digit:]]",
             "s": r"[\t\n\f\r ]", "S": r"[^\t\n\f\r ]", "b": r"(?-u:\b)", "B": r"(?-u:\B)"}
REPEAT = re.compile(r"\{\d+(?:,\d*)?\}")


def translate(src):
    """Go RE2 syntax -> Rust regex syntax (see the module doc)."""
    src = re.sub(r"^(\(\?i\))?\[\\w\.-\]\{0,50\}\?", lambda m: m.group(1) or "", src)
    out, i, depth = [], 0, 0          # depth: 0 outside a class, >0 inside
    while i < len(src):
        c = src[i]
        if c == "\\" and i + 1 < len(src):
            n = src[i + 1]
            table = IN_CLASS if depth else OUT_CLASS
            out.append(table.get(n, c + n))
            i += 2
            continue
        if depth:
            if c == "[" and src.startswith("[:", i):           # [:alpha:] inside a class
                j = src.index(":]", i + 2) + 2
                out.append(src[i:j]); i = j; continue
            if c == "]" and not class_start:
                depth = 0
            out.append(c); class_start = False; i += 1
            continue
        if c == "[":
            depth, class_start = 1, True
            out.append(c); i += 1
            if src.startswith("^", i):
                out.append("^"); i += 1
            if src.startswith("]", i):                            # leading ] is a literal
                out.append(r"\]"); i += 1
            class_start = False
            continue
        if c == "{" and not REPEAT.match(src, i):
            out.append(r"\{"); i += 1; continue
        if c == "}":
            # a '}' that closes a repetition was consumed with its '{' below
            out.append(r"\}"); i += 1; continue
        if c == "{":
            m = REPEAT.match(src, i)
            out.append(m.group(0)); i = m.end(); continue
        out.append(c); i += 1
    return "".join(out)


def raw(s):
    """A Rust raw string literal for s."""
    h = 0
    while ('"' + "#" * h) in s:
        h += 1
    return "r" + "#" * h + '"' + s + '"' + "#" * h


def combine(regexes):
    return "|".join(f"(?:{translate(r)})" for r in regexes)


def allow_parts(rule):
    """Allowlist regexes by target (secret/match/line) and stopwords that can apply here."""
    parts = {"secret": [], "match": [], "line": []}
    stop = []
    for a in rule.get("allowlists", []):
        if a.get("condition", "OR").upper() == "AND" and (a.get("paths") or a.get("commits")):
            continue                                   # needs a path: never true for a record
        parts[a.get("regexTarget", "secret")].extend(a.get("regexes", []))
        stop.extend(s.lower() for s in a.get("stopwords", []))
    return {k: combine(v) for k, v in parts.items()}, stop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("toml")
    ap.add_argument("--version", default="v8.30.1")
    ap.add_argument("--source", default="the gitleaks repository, tag v8.30.1 (commit 83d9cd68, 2026-03-12)")
    a = ap.parse_args()
    cfg = tomllib.loads(pathlib.Path(a.toml).read_text())
    rules, skipped, stop_lists = [], [], []
    for r in cfg["rules"]:
        if not r.get("regex"):
            skipped.append((r["id"], "no regex (path-only rule)"))
            continue
        kws = sorted({k.lower() for k in r.get("keywords", [])})
        if not kws:
            skipped.append((r["id"], "no keywords"))          # none in v8.30.1; see the doc
            continue
        allow, stop = allow_parts(r)
        sw = "&[]"
        if stop:
            stop_lists.append(stop)
            sw = f"STOPWORDS_{len(stop_lists) - 1}"
        rules.append(
            "    GitleaksRule { "
            f"id: {raw(r['id'])}, keywords: &[{', '.join(raw(k) for k in kws)}], "
            f"regex: {raw(translate(r['regex']))}, secret_group: {int(r.get('secretGroup', 0))}, "
            f"entropy: {float(r.get('entropy', 0.0))}, allow_secret: {raw(allow['secret'])}, "
            f"allow_match: {raw(allow['match'])}, allow_line: {raw(allow['line'])}, stopwords: {sw} }},")
    g = cfg.get("allowlist", {})
    glob_re = combine(g.get("regexes", []))
    glob_stop = [s.lower() for s in g.get("stopwords", [])]
    total = len(cfg["rules"])
    head = [
        "//! GENERATED by `scripts/gitleaks_rules.py` from the gitleaks rule set — do not edit by",
        "//! hand; re-run the script on a newer `gitleaks.toml` instead.",
        "//!",
        f"//! Source: gitleaks {a.version} default config (`config/gitleaks.toml`), taken from",
        f"//! {a.source}.",
        "//! Gitleaks is Copyright (c) Zachary Rice, MIT licence: see `THIRD_PARTY.md` at the",
        "//! repository root for the notice and licence text, which must travel with this table.",
        "//!",
        f"//! Rules: {total} upstream, {len(rules)} converted, {len(skipped)} skipped:",
    ] + [f"//! - `{i}`: {why}" for i, why in skipped] + [
        "//!",
        "//! Regexes are translated from Go RE2 to Rust `regex` syntax (ASCII `\\w`/`\\d`/`\\s`/`\\b`,",
        "//! literal `{`); the unit test `every_gitleaks_rule_compiles` proves each one compiles.",
        "",
        "/// One gitleaks rule, in Rust `regex` syntax.",
        "pub struct GitleaksRule {",
        "    /// gitleaks' rule id: names a rule in test failures and when the table is updated.",
        "    #[cfg_attr(not(test), allow(dead_code))]",
        "    pub id: &'static str,",
        "    /// Lower-case literals; the regex is compiled only when one of them occurs in the text.",
        "    pub keywords: &'static [&'static str],",
        "    pub regex: &'static str,",
        "    /// Capture group holding the secret; 0 means the first non-empty group, else the match.",
        "    pub secret_group: usize,",
        "    /// A secret with less Shannon entropy (bits per char) is not one; 0 turns this off.",
        "    pub entropy: f64,",
        "    /// Allowlist alternations (empty: none), tested on the secret, the match, the line.",
        "    pub allow_secret: &'static str,",
        "    pub allow_match: &'static str,",
        "    pub allow_line: &'static str,",
        "    /// A secret containing one of these (lower-case) is a placeholder, not a secret.",
        "    pub stopwords: &'static [&'static str],",
        "}",
        "",
        "/// The global allowlist: a secret matching it is never a secret (templates, `${VAR}`, paths).",
        f"pub static GLOBAL_ALLOW: &str = {raw(glob_re)};",
        f"pub static GLOBAL_STOPWORDS: &[&str] = &[{', '.join(raw(s) for s in glob_stop)}];",
        "",
        "#[rustfmt::skip]",
        f"pub static RULES: [GitleaksRule; {len(rules)}] = [",
    ] + rules + ["];", ""]
    for n, stop in enumerate(stop_lists):
        head.append("#[rustfmt::skip]")
        head.append(f"static STOPWORDS_{n}: &[&str] = &[")
        for k in range(0, len(stop), 16):
            head.append("    " + ", ".join(raw(w) for w in stop[k:k + 16]) + ",")
        head.append("];")
    OUT.write_text("\n".join(head) + "\n")
    print(f"{OUT}: {len(rules)} of {total} rules converted, {len(skipped)} skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
