#!/usr/bin/env python3
"""Validate field-test corpus folders against shared/docs/formats.md §1 (evidence record)
and §2 (corpus format).

Usage: python3 scripts/check_corpora.py DIR [--min-trajectories N] [--min-per-class N]

Every sub-folder of DIR that holds a corpus.json is a corpus. A corpus passes when
corpus.json has name/kind/description (kind in promotion|rejection|pool), every line of
trajectories.jsonl parses and has id/records/expected_rule/label with the right types
(and, when present, the optional `class`: a non-empty string, the failure class),
every record has the required §1 fields with the right types (optional fields checked
when present), `ts` is RFC 3339 UTC with milliseconds and does not go backwards within a
trajectory, ids are unique, and (with --min-trajectories, default 30) there are at least
that many trajectories (with --min-per-class N, every `class` of a promotion corpus has
at least N). Prints each problem (up to 8 per corpus), then "N passed, N failed".
Python 3.11 stdlib only. Exit status 1 when any corpus fails.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
KINDS = {"promotion", "rejection", "pool"}
REQ = {"v": (int,), "ts": (str,), "session": (str,), "cwd": (str,), "cmd": (str,), "exit": (int, type(None)),
       "ok": (bool,), "tail": (str,)}
OPT = {"event": (str,), "tool_use_id": (str,), "agent": (str,), "ms": (int,), "trust": (str,)}


def is_type(v, types) -> bool:
    # bool is a subclass of int: reject it where an int is wanted
    if isinstance(v, bool) and bool not in types:
        return False
    return isinstance(v, types)


def check_record(r, where: str, errs: list[str], warns: list[str]) -> None:
    if not isinstance(r, dict):
        errs.append(f"{where}: record is not an object")
        return
    for k, ty in REQ.items():
        if k == "session" and k not in r:
            continue  # §2: a record without session belongs to the trajectory id
        if k not in r:
            errs.append(f"{where}: missing required field `{k}`")
        elif not is_type(r[k], ty):
            errs.append(f"{where}: `{k}` has type {type(r[k]).__name__}")
    for k, ty in OPT.items():
        if k in r and not is_type(r[k], ty):
            errs.append(f"{where}: optional `{k}` has type {type(r[k]).__name__}")
    if r.get("v") != 1 and "v" in r:
        errs.append(f"{where}: v={r.get('v')!r}, expected 1")
    if isinstance(r.get("ts"), str) and not TS_RE.match(r["ts"]):
        errs.append(f"{where}: ts {r['ts']!r} is not RFC 3339 UTC with milliseconds")
    for k in ("cmd", "tail"):
        if isinstance(r.get(k), str) and len(r[k]) > 4000:
            errs.append(f"{where}: `{k}` longer than 4,000 chars ({len(r[k])})")
    if "trust" in r and r["trust"] != "untrusted":
        warns.append(f"{where}: trust={r['trust']!r} (only 'untrusted' is defined)")
    if isinstance(r.get("event"), str) and isinstance(r.get("ok"), bool):
        if r["event"] == "PostToolUse" and not r["ok"] or r["event"] == "PostToolUseFailure" and r["ok"]:
            warns.append(f"{where}: event {r['event']} disagrees with ok={r['ok']}")


def check_corpus(d: Path, min_n: int, min_class: int = 0) -> tuple[list[str], list[str], dict]:
    errs: list[str] = []
    warns: list[str] = []
    info = {"n": 0, "records": 0, "kind": None, "classes": {}}
    try:
        meta = json.loads((d / "corpus.json").read_text())
    except Exception as e:  # noqa: BLE001
        return [f"corpus.json unreadable: {e}"], warns, info
    if not isinstance(meta, dict):
        return ["corpus.json is not an object"], warns, info
    for k in ("name", "kind", "description"):
        if not isinstance(meta.get(k), str):
            errs.append(f"corpus.json: `{k}` missing or not a string")
    info["kind"] = meta.get("kind")
    if meta.get("kind") not in KINDS:
        errs.append(f"corpus.json: kind {meta.get('kind')!r} not in {sorted(KINDS)}")
    tf = d / "trajectories.jsonl"
    if not tf.exists():
        return errs + ["trajectories.jsonl missing"], warns, info
    ids: set = set()
    with_rule = 0
    for ln, line in enumerate(tf.read_text().splitlines(), 1):
        if not line.strip():
            continue
        where = f"line {ln}"
        try:
            t = json.loads(line)
        except json.JSONDecodeError as e:
            errs.append(f"{where}: malformed JSON ({e.msg})")
            continue
        if not isinstance(t, dict):
            errs.append(f"{where}: trajectory is not an object")
            continue
        info["n"] += 1
        tid = t.get("id")
        if not isinstance(tid, str) or not tid:
            errs.append(f"{where}: `id` missing or not a non-empty string")
        elif tid in ids:
            errs.append(f"{where}: duplicate id {tid!r}")
        else:
            ids.add(tid)
            where = f"{tid}"
        if "label" not in t or not isinstance(t["label"], str):
            errs.append(f"{where}: `label` missing or not a string")
        if "class" in t:  # optional: the failure class, for per-class field-test reports
            if not isinstance(t["class"], str) or not t["class"].strip():
                errs.append(f"{where}: optional `class` must be a non-empty string")
            else:
                info["classes"][t["class"]] = info["classes"].get(t["class"], 0) + 1
        if "expected_rule" not in t:
            errs.append(f"{where}: `expected_rule` missing (must be an object or null)")
        else:
            er = t["expected_rule"]
            if er is not None:
                if not isinstance(er, dict) or not all(isinstance(er.get(k), str) for k in ("trigger", "directive")):
                    errs.append(f"{where}: expected_rule must be {{trigger, directive}} strings or null")
                else:
                    with_rule += 1
                    if meta.get("kind") != "promotion":
                        warns.append(f"{where}: expected_rule in a {meta.get('kind')} corpus")
        recs = t.get("records")
        if not isinstance(recs, list):
            errs.append(f"{where}: `records` missing or not a list")
            continue
        if not recs:
            warns.append(f"{where}: no records")
        prev = None
        for i, r in enumerate(recs):
            check_record(r, f"{where} rec {i}", errs, warns)
            info["records"] += 1
            ts = r.get("ts") if isinstance(r, dict) else None
            if isinstance(ts, str) and TS_RE.match(ts):
                if prev is not None and ts < prev:
                    errs.append(f"{where} rec {i}: ts {ts} earlier than previous {prev}")
                prev = ts
            if isinstance(r, dict) and isinstance(r.get("session"), str) and isinstance(tid, str) \
                    and r["session"] not in (tid, ""):
                warns.append(f"{where} rec {i}: session {r['session']!r} differs from trajectory id")
    info["with_rule"] = with_rule
    if min_class and meta.get("kind") == "promotion":
        for c, n in sorted(info["classes"].items()):
            if n < min_class:
                errs.append(f"class {c!r}: only {n} trajectories (< {min_class})")
    if min_n and info["n"] < min_n:
        errs.append(f"only {info['n']} trajectories (< {min_n})")
    if meta.get("kind") == "promotion" and with_rule == 0:
        warns.append("promotion corpus without any expected_rule (extraction figures will be null)")
    return errs, warns, info


def main() -> int:
    ap = argparse.ArgumentParser(description="Validate field-test corpora (formats.md §1-§2).")
    ap.add_argument("dir")
    ap.add_argument("--min-trajectories", type=int, default=30,
                    help="fail a corpus with fewer trajectories (0 disables; default 30)")
    ap.add_argument("--min-per-class", type=int, default=0,
                    help="fail a promotion corpus whose `class` has fewer trajectories (default 0: off)")
    ap.add_argument("--show", type=int, default=8, help="problems shown per corpus")
    a = ap.parse_args()
    root = Path(a.dir)
    corpora = sorted(p.parent for p in root.glob("*/corpus.json"))
    if (root / "corpus.json").exists():
        corpora.insert(0, root)
    if not corpora:
        print(f"no corpus folders under {root}")
        return 1
    passed = failed = 0
    for d in corpora:
        errs, warns, info = check_corpus(d, a.min_trajectories, a.min_per_class)
        status = "PASS" if not errs else "FAIL"
        print(f"{status} {d.name:40s} kind={info.get('kind')!s:9s} n={info['n']:3d} "
              f"w/rule={info.get('with_rule', 0):3d} records={info['records']:4d} "
              f"errors={len(errs)} warnings={len(warns)}"
              + (f" classes={len(info['classes'])}" if info.get("classes") else ""))
        for e in errs[:a.show]:
            print(f"    error: {e}")
        if len(errs) > a.show:
            print(f"    ... {len(errs) - a.show} more errors")
        for w in warns[:min(3, a.show)]:
            print(f"    warning: {w}")
        if len(warns) > 3:
            print(f"    ... {len(warns) - 3} more warnings")
        if errs:
            failed += 1
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
