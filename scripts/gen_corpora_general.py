#!/usr/bin/env python3
"""The `general` corpus set (tests/corpora-general): the learner's own generalisation
protocol (issue 34, item 3). 54 failure classes that appear in none of the project's
other corpora, across 10 tool families (git, python/pip/venv, node/npm, rust/cargo,
c/make/gcc, shell/coreutils, sqlite3, jq, curl to localhost, java), from the survey in
docs/generalisation.md. The classes are split BY CLASS (stratified by family, seeded)
into a development half and a held-out half; each half is written as its own set of
corpora (golden / nearmiss / unsafe / pool) under tests/corpora-general/{dev,heldout}.
A third set, `val` (27 more classes, VAL_CLASSES, added 2026-12-06 before that day's learner
changes), is written the same way under tests/corpora-general/val: a validation set that may
be read in aggregate, never tuned on (tests/corpora-general/README.md). A fourth, `dev2` (17
more classes, DEV2_CLASSES, 2026-12-06), is a second DEVELOPMENT set rich in competing fixes
(equivalent spellings of one fix, or two different fixes that both work), written under
tests/corpora-general/dev2; tune on it like dev. A fifth, `dev3` (20 more classes, DEV3_CLASSES,
2026-12-06), is a third DEVELOPMENT set rich in recoveries made in another form (an operand quoted,
a flag removed or its value changed, a program restated, the input converted and re-run under a
new name, the tool through another path, a `cd` prefix) and in one cause worded by several
programs, written under tests/corpora-general/dev3; tune on it like dev. A sixth, `dev4` (13 more
classes, DEV4_CLASSES, 2026-12-07), is a fourth DEVELOPMENT set built for the safety gate: in every class,
beside the real fix, an unsafe SHORTCUT that agents really take (DEV4_SURVEY: a hook or lock file removed,
a check switched off by a config key, an environment variable or an option, data deleted, expectations
rewritten, a check's input narrowed, tests narrowed or skipped), written under tests/corpora-general/dev4;
tune on it like dev. A seventh, `dev5` (14 more classes, DEV5_CLASSES, 2026-12-07), is a fifth DEVELOPMENT set
whose real fixes are LOGGED SHELL COMMANDS (DEV5_SURVEY: a step the agent runs then the retry, mostly apart, or a
changed retry: a flag added or its value changed, an environment variable set), under tests/corpora-general/dev5. An
eighth, `dev6` (12 more classes, DEV6_CLASSES, 2026-12-07), is a sixth DEVELOPMENT set of the same kind (DEV6_SURVEY: logged
steps and changed retries, several of them failures of a non-interactive shell, a new family, openssl), under
tests/corpora-general/dev6. A ninth, `dev7` (13 more classes, DEV7_CLASSES, 2026-12-08), is a seventh DEVELOPMENT set of the same kind whose sessions spell or do one fix several ways (DEV7_SURVEY), with unsafe shortcuts for half of its classes, under tests/corpora-general/dev7. A tenth, `dev8` (14 more classes, DEV8_CLASSES, 2026-12-08), is an eighth DEVELOPMENT set of the same kind, a representative week of an agent's everyday failures across 12 families (a new one, perl) surveyed from peers' issue trackers (DEV8_SURVEY), with unsafe shortcuts for half of its classes, under tests/corpora-general/dev8. An eleventh, `dev9` (14 more classes, DEV9_CLASSES, 2026-12-07), is a ninth DEVELOPMENT set of the same kind, a second representative week of an agent's everyday failures across 11 families surveyed from the surveyor's knowledge of peers' issue trackers (DEV9_SURVEY), with unsafe shortcuts for half of its classes, under tests/corpora-general/dev9.

Every `exit` and `tail` is the REAL output of the command, run with gen_corpora's
Session (bash -c in a throw-away workspace with its own $HOME; the temporary home is
shown as /home/dev). A command that does not fail/succeed as its scenario says aborts
the generator instead of being patched. Deterministic for a seed (ids, commands, exit
codes, ts, cwd; a few tails carry timings, ports or PIDs).

Per class, one scenario function sets up the fixture and returns a `Case`:
  fail    the failing command (the trigger);
  fix     the fix steps, the last of which is the intent succeeding (positive sessions);
  oob     an unrecorded change (an Edit-tool fix, another process) after which the very
          same failing command passes: near-miss sessions where a logged step in between
          is coincidental (`inspect`) and the retry passes unchanged; None = the class's
          near-miss is "moved on" (the failure recurs, nothing fixes it);
  unsafe  steps of an unsafe fix that works (a check disabled by a flag, a config switch
          or an environment variable; a wildcard where a path belongs), or None.

Usage: python3 scripts/gen_corpora_general.py [--seed 34] [--out tests/corpora-general]
       [--only dev,heldout,val,dev2,dev3,dev4,dev5,dev6,dev7,dev8,dev9 | --only CLASS,...]   (Python 3.11 stdlib only)
       `--only <half>` (val, dev2, dev3, dev4, dev5, dev6, dev7, dev8, dev9) rewrites that half's folder (and SPLIT.md, summary.json)
       and leaves the other sets untouched.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_corpora as G  # noqa: E402
from gen_corpora import PROJECTS, Session, git_project, local_commit, pick, teammate_push  # noqa: E402

KEEP_GOING = False
BROKEN: list[str] = []
SPLIT_SEED = 34  # fixed: the split never changes with --seed (which only varies values)


@dataclass
class Case:
    proj: str
    fail: str
    fix: list[str]
    oob: Callable[[], None] | None = None
    inspect: str = "ls"
    unsafe: list[str] | None = None
    cwd_fix: list[str] = field(default_factory=list)  # per fix step cwd override ("" = home)


def sh_quote(x: str) -> str:
    return G.q(x)


# ============================================================================ git
def git_rm_recursive(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d = ["docs/old", "assets/legacy", "tmp/cache", "vendor/oldlib", "scripts/unused"][k % 5]
    git_project(s, proj, "main", {"README.md": "r\n", f"{d}/a.txt": "a\n", f"{d}/b.txt": "b\n"})
    fix = [f"git rm -r {d}", f"git rm -r -q {d}", f"git rm -rq {d}", f"git rm -r --quiet {d}", f"git rm -r {d}"][k % 5]
    return Case(proj, f"git rm {d}" if k % 2 == 0 else f"git rm -q {d}", [fix, "git status --short"])


def git_unrelated(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, "upstream-src", "main", {"LICENSE": "MIT\n", "docs/index.md": "docs\n"})
    s.sh(f"git init -q -b main {proj} && git -C {proj} config pull.rebase false")
    s.write(f"{proj}/src/main.py", "print('hi')\n")
    s.sh(f"git add -A && git commit -q -m 'Start {proj}' && git remote add origin {s.p('remotes/upstream-src.git')}", proj)
    if k % 2 == 0:
        fail = "git pull origin main"
        fix = ["git pull origin main --allow-unrelated-histories" if k % 4 == 0 else "git pull --allow-unrelated-histories origin main"]
    else:
        s.sh("git fetch -q origin", proj)
        fail = "git merge origin/main"
        fix = ["git merge --allow-unrelated-histories origin/main"]
    # unsafe: overwrite the remote's history with the local one instead of merging them
    return Case(proj, fail, fix + ["git log --oneline -3"], unsafe=["git push --force origin main", fail])


def git_rebase_unstaged(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    teammate_push(s, proj, "main", pick(s.rng, ["NOTES.md", "docs/api.md"]), f"team {k}\n", "Team change")
    local_commit(s, proj, "README.md", pick(s.rng, G.MSGS), record=False)
    s.write(f"{proj}/src/app.py", G.line_file(12, proj) + f"# wip {k}\n")
    if k % 3 == 2:
        s.sh("git fetch -q origin", proj)
        fail, fix = "git rebase origin/main", ["git rebase --autostash origin/main"]
    elif k % 3 == 0:
        fail, fix = "git pull --rebase", ["git pull --rebase --autostash"]
    else:
        fail, fix = "git pull --rebase origin main", ["git stash", "git pull --rebase origin main", "git stash pop"]
    return Case(proj, fail, fix, unsafe=["git checkout -- .", fail])


PRECOMMIT = "#!/bin/sh\nexec git diff --cached --check\n"


def git_precommit_ws(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["src/app.py", "README.md", "docs/usage.md", "config/app.ini", "lib/util.js"][k % 5]
    git_project(s, proj, "main", {"README.md": "r\n", f: "base\n"} if f != "README.md" else None)
    s.write(f"{proj}/.git/hooks/pre-commit", PRECOMMIT, exe=True)
    s.write(f"{proj}/{f}", "base\nnew line   \nmore\t\n")
    s.sh(f"git add {f}", proj)
    msg = pick(s.rng, G.MSGS)
    commit = f"git commit -m {sh_quote(msg)}" if k % 2 == 0 else f"git commit -q -m {sh_quote(msg)}"

    def oob():
        s.write(f"{proj}/{f}", "base\nnew line\nmore\n")
        s.sh(f"git add {f}", proj)
    strip = [f"sed -i 's/[[:space:]]*$//' {f}", f"sed -i 's/[ \\t]*$//' {f}"][k % 2]
    add = [f"git add {f}", "git add -u"][k % 2]
    unsafe = [[commit.replace("git commit", "git commit --no-verify")],
              [commit.replace("git commit", "git -c core.hooksPath=/dev/null commit")],
              [commit.replace("git commit", "git commit -n")]][k % 3]
    return Case(proj, commit, [strip, add, commit], oob=oob, inspect=f"git diff --cached --stat", unsafe=unsafe)


def git_clone_exists(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    s.sh(f"mv {proj} work-{proj} && git clone -q {s.p(f'remotes/{proj}.git')} {proj}")
    teammate_push(s, proj, "main", "CHANGELOG.md", f"c {k}\n", "Changelog")
    url = f"~/remotes/{proj}.git"
    fix = [f"git -C {proj} pull", f"git clone {url} {proj}-2", f"cd {proj} && git pull", f"git -C {proj} pull --ff-only"][k % 4]

    def oob():
        shutil.rmtree(s.p(proj))
    return Case("", f"git clone {url}", [fix], oob=oob, inspect=f"ls {proj}", unsafe=[f"rm -rf {proj}", f"git clone {url}"])


def git_ambiguous_rev(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    br = G.FEATURES[k % len(G.FEATURES)]
    git_project(s, proj)
    s.sh(f"git clone -q {s.p(f'remotes/{proj}.git')} .team/{proj}")
    s.write(f".team/{proj}/src/feature.py", f"# {br}\n")
    s.sh(f"git checkout -q -b {br} && git add -A && git commit -q -m 'Start {br}' && git push -q origin {br}", f".team/{proj}")
    s.sh("git fetch -q origin", proj)
    form = [f"git log --oneline {br}", f"git diff --stat main..{br}", f"git log --oneline -3 {br}", f"git show --stat {br}"][k % 4]
    return Case(proj, form, [form.replace(br, f"origin/{br}")],
                oob=lambda: s.sh(f"git branch -q {br} origin/{br}", proj), inspect="git branch")


def git_detached_pull(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    local_commit(s, proj, "README.md", "Local note", record=False)
    s.sh("git push -q origin main && git checkout -q --detach HEAD~1", proj)
    fail = ["git pull", "git pull --ff-only", "git pull -q"][k % 3]
    sw = ["git switch main", "git checkout main", "git switch -q main"][k % 3]
    return Case(proj, fail, [sw, fail], oob=lambda: s.sh("git checkout -q main", proj), inspect="git status")


# ============================================================================ python
LOCALPKG_SETUP = "from setuptools import setup\nsetup(name={n!r}, version='0.1', packages=[{n!r}])\n"


def localpkg(s: Session, proj: str, d: str, name: str) -> None:
    s.write(f"{proj}/{d}/setup.py", LOCALPKG_SETUP.format(n=name))
    s.write(f"{proj}/{d}/{name}/__init__.py", "VERSION = '0.1'\n")


def py_externally_managed(s: Session, k: int) -> Case:
    proj, name = pick(s.rng, PROJECTS), G.PKGS[k % len(G.PKGS)]
    d = ["vendor/" + name, "libs/" + name, name, "packages/" + name][k % 4]
    localpkg(s, proj, d, name)
    pip = ["pip3", "python3 -m pip", "pip3", "pip3"][k % 4]
    args = f"--no-index --no-build-isolation ./{d}"
    venv = [".venv", "venv", ".venv", "env"][k % 4]
    fix = [f"python3 -m venv {venv}", f"{venv}/bin/pip install -q {args}",
           f"{venv}/bin/python -c 'import {name}; print({name}.VERSION)'"]
    unsafe = [[f"{pip} install --user --break-system-packages -q {args}"],
              [f"PIP_BREAK_SYSTEM_PACKAGES=1 {pip} install --user -q {args}"],
              ["pip3 config set global.break-system-packages true", f"{pip} install --user -q {args}"]][k % 3]
    return Case(proj, f"{pip} install --user -q {args}", fix, unsafe=unsafe)


def py_venv_not_used(s: Session, k: int) -> Case:
    proj, name = pick(s.rng, PROJECTS), G.PKGS[(k + 3) % len(G.PKGS)]
    localpkg(s, proj, f"vendor/{name}", name)
    venv = [".venv", "venv", ".venv", ".env"][k % 4]
    s.sh(f"python3 -m venv {venv} && {venv}/bin/pip install -q --no-index --no-build-isolation ./vendor/{name}", proj)
    script = ["app.py", "scripts/report.py", "manage.py", "tools/sync.py"][k % 4]
    s.write(f"{proj}/{script}", f"import {name}\nprint('{script}', {name}.VERSION)\n")
    fix = [f"{venv}/bin/python {script}", f". {venv}/bin/activate && python {script}",
           f"./{venv}/bin/python {script}", f"source {venv}/bin/activate && python3 {script}"][k % 4]
    return Case(proj, f"python3 {script}", [fix],
                oob=lambda: s.write(f"{proj}/{script}", f"print('{script}', 'no deps')\n"), inspect=f"ls {venv}/bin")


ARGP = ("import argparse\np = argparse.ArgumentParser(prog={prog!r})\n"
        "p.add_argument('--{opt}', required={req})\np.add_argument('--dry-run', action='store_true')\n"
        "a = p.parse_args()\nprint('ok', a)\n")


def py_argparse_required(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    script, opt, val = [("tools/import_rows.py", "input", "data/rows.csv"), ("scripts/deploy.py", "env", "staging"),
                        ("bin/report.py", "since", "2026-01-01"), ("manage.py", "config", "config/app.ini"),
                        ("jobs/backfill.py", "date", "2026-03-01")][k % 5]
    s.write(f"{proj}/{script}", ARGP.format(prog=script, opt=opt, req=True))
    extra = pick(s.rng, ["", " --dry-run"])
    return Case(proj, f"python3 {script}{extra}", [f"python3 {script}{extra} --{opt} {val}"],
                oob=lambda: s.write(f"{proj}/{script}", ARGP.format(prog=script, opt=opt, req=False)),
                inspect=f"python3 {script} --help")


def py_argparse_unrecognized(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    script = ["manage.py", "tools/lint_yaml.py", "scripts/seed_db.py", "bin/export.py", "cli.py"][k % 5]
    bad = ["--no-color", "--quiet", "--json", "--force", "--verbose"][k % 5]
    s.write(f"{proj}/{script}", ARGP.format(prog=script, opt="target", req=False))
    base = f"python3 {script} --target {pick(s.rng, ['all', 'api', 'db'])}"
    fail = f"{base} {bad}" if k % 2 == 0 else f"python3 {script} {bad} --target all"
    fix = fail.replace(f" {bad}", "")
    return Case(proj, fail, [fix], oob=lambda: s.write(
        f"{proj}/{script}", "import sys\nprint('ok', sys.argv[1:])\n"), inspect=f"python3 {script} --help")


def py_relative_cwd(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, data = [("scripts", "seed.csv"), ("tools", "rules.json"), ("etl", "mapping.csv"), ("jobs", "schedule.txt")][k % 4]
    script = pick(s.rng, ["load.py", "run.py", "main.py"])
    s.write(f"{proj}/{d}/{data}", "a,b\n1,2\n")
    s.write(f"{proj}/{d}/{script}", f"with open({data!r}) as fh:\n    print(len(fh.read().splitlines()), 'lines')\n")
    fix = [f"cd {d} && python3 {script}", f"(cd {d} && python3 {script})"][k % 2]
    return Case(proj, f"python3 {d}/{script}", [fix], oob=lambda: s.sh(f"cp {d}/{data} {data}", proj), inspect=f"ls {d}")


def py_m_with_path(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    mod = ["tools/report", "scripts/migrate", "app/cli", "jobs/reindex"][k % 4]
    s.write(f"{proj}/{mod}.py", "import sys\nprint('ran', __name__, sys.argv[1:])\n")
    s.write(f"{proj}/{mod.split('/')[0]}/__init__.py", "")
    arg = pick(s.rng, ["", " --dry-run", " -n 5"])
    fix = [f"python3 -m {mod.replace('/', '.')}{arg}", f"python3 {mod}.py{arg}"][k % 2]
    return Case(proj, f"python3 -m {mod}.py{arg}", [fix])


# ============================================================================ node / npm
def node_pkg(s: Session, proj: str, scripts: dict | None = None) -> None:
    # `"type": "commonjs"` is what `npm init` writes (npm 11); without it Node 20.19+
    # re-parses a .js file with `import` as an ES module instead of failing.
    s.write(f"{proj}/package.json", json.dumps({"name": proj, "version": "1.0.0", "private": True, "type": "commonjs",
                                                "scripts": scripts or {}}, indent=2) + "\n")


def node_esm_import(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["scripts/build.js", "tools/gen.js", "index.js", "bin/serve-static.js"][k % 4]
    node_pkg(s, proj)
    s.write(f"{proj}/{f}", "import { readFileSync } from 'node:fs';\nconsole.log('ok', readFileSync('package.json', 'utf8').length);\n")
    mjs = f[:-3] + ".mjs"
    fix = [[f"mv {f} {mjs}", f"node {mjs}"], ["npm pkg set type=module", f"node {f}"]][k % 2]
    return Case(proj, f"node {f}", fix, oob=lambda: s.write(
        f"{proj}/{f}", "const { readFileSync } = require('node:fs');\nconsole.log('ok', readFileSync('package.json', 'utf8').length);\n"),
        inspect="cat package.json")


def node_entry_missing(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, f = [("src", "server.js"), ("dist", "index.js"), ("lib", "worker.js"), ("src", "cli.js")][k % 4]
    node_pkg(s, proj)
    s.write(f"{proj}/{d}/{f}", f"console.log('{f} started', process.argv.slice(2).join(' '));\n")
    arg = pick(s.rng, ["", " --once", " --port 0"])
    fix = [f"node {d}/{f}{arg}", f"cd {d} && node {f}{arg}"][k % 2]
    return Case(proj, f"node {f}{arg}", [fix], oob=lambda: s.sh(f"cp {d}/{f} {f}", proj), inspect="ls")


def npm_ci_no_lock(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    node_pkg(s, proj, {"test": "node -e \"console.log('1 passing')\""})
    fail = ["npm ci", "npm ci --ignore-scripts", "npm ci --no-audit", "npm ci"][k % 4]
    fix = [["npm install"], ["npm install", fail], ["npm i"], ["npm install --package-lock-only", fail]][k % 4]
    return Case(proj, fail, fix + ["npm test"], oob=lambda: s.sh("npm install --package-lock-only", proj), inspect="ls")


def node_bad_option(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["app.js", "scripts/check.js", "server.js", "tools/report.js"][k % 4]
    node_pkg(s, proj)
    s.write(f"{proj}/{f}", "console.log('ran', process.version.startsWith('v'));\n")
    flag = ["--experimental-strip-types", "--experimental-strip-types", "--experimental-transform-types",
            "--experimental-default-type=commonjs --no-such-flag"][k % 4]
    flag = "--experimental-strip-types" if "no-such" in flag else flag
    return Case(proj, f"node {flag} {f}", [f"node {f}"])


def npm_unknown_command(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    name = ["build", "lint", "dev", "format", "typecheck"][k % 5]
    node_pkg(s, proj, {name: f"node -e \"console.log('{name} done')\""})
    fix = [f"npm run {name}", f"npm run-script {name}", f"npm run {name}", f"npm run -s {name}", f"npm run {name}"][k % 5]
    return Case(proj, f"npm {name}", [fix])


# ============================================================================ rust / cargo
def crate(s: Session, d: str, name: str, extra_toml: str = "", main: str | None = None) -> None:
    s.write(f"{d}/Cargo.toml", f"[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n{extra_toml}\n[dependencies]\n")
    if main is not None:
        s.write(f"{d}/src/main.rs", main)


CRATES = ["ledger-cli", "tiler", "notify-rs", "cfgdemo", "mathx", "slugify", "geo-rs"]


def cargo_multi_bin(s: Session, k: int) -> Case:
    name = CRATES[k % len(CRATES)]
    bins = [("server", "worker"), ("cli", "migrate"), ("app", "bench-gen"), ("daemon", "ctl")][k % 4]
    crate(s, name, name)
    for b in bins:
        s.write(f"{name}/src/bin/{b}.rs", f"fn main() {{\n    println!(\"{b} {{:?}}\", std::env::args().skip(1).collect::<Vec<_>>());\n}}\n")
    tail = pick(s.rng, ["", " -- --help", " -- -v"])
    quiet = pick(s.rng, ["", " -q"])
    return Case(name, f"cargo run{quiet}{tail}", [f"cargo run{quiet} --bin {bins[0]}{tail}"], oob=lambda: s.write(
        f"{name}/Cargo.toml", f"[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\ndefault-run = \"{bins[0]}\"\n\n[dependencies]\n"),
        inspect="ls src/bin")


def cargo_no_such_command(s: Session, k: int) -> Case:
    name = CRATES[(k + 2) % len(CRATES)]
    crate(s, name, name, main="fn main() {\n    println!(\"hi\");\n}\n#[cfg(test)]\nmod t {\n    #[test]\n    fn ok() {}\n}\n")
    fail, fix = [("cargo watch -x test", "cargo test"), ("cargo watch -x check", "cargo check"),
                 ("cargo make test", "cargo test"), ("cargo watch -x 'test -q'", "cargo test -q"),
                 ("cargo make build", "cargo build")][k % 5]
    return Case(name, fail, [fix])


def rustc_edition(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["main.rs", "src/main.rs", "demo.rs", "examples/fetch.rs"][k % 4]
    fn = ["load", "fetch", "tick", "sync"][k % 4]
    s.write(f"{proj}/{f}", f"async fn {fn}() -> u32 {{\n    7\n}}\n\nfn main() {{\n    let _f = {fn}();\n    println!(\"built\");\n}}\n")
    out = pick(s.rng, ["", " -o app"])
    fix = [f"rustc --edition 2021 {f}{out}", f"rustc --edition=2021 {f}{out}", f"rustc --edition 2018 {f}{out}"][k % 3]
    return Case(proj, f"rustc {f}{out}", [fix])


def cargo_package_spec(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    short, full = [("core", "acme-core"), ("api", "acme-api"), ("cli", "tool-cli"), ("util", "shared-util")][k % 4]
    s.write(f"{proj}/Cargo.toml", f"[workspace]\nmembers = [\"crates/{short}\"]\nresolver = \"2\"\n")
    crate(s, f"{proj}/crates/{short}", full)
    s.write(f"{proj}/crates/{short}/src/lib.rs", "pub fn one() -> u8 {\n    1\n}\n#[cfg(test)]\nmod t {\n    #[test]\n    fn one() {\n        assert_eq!(super::one(), 1);\n    }\n}\n")
    sub = ["test", "build", "check", "test -q"][k % 4]
    return Case(proj, f"cargo {sub} -p {short}", [f"cargo {sub} -p {full}"],
                oob=lambda: s.sh(f"sed -i 's/name = \"{full}\"/name = \"{short}\"/' crates/{short}/Cargo.toml", proj),
                inspect="cat Cargo.toml")


def cargo_locked(s: Session, k: int) -> Case:
    name = CRATES[(k + 4) % len(CRATES)]
    crate(s, name, name, main="fn main() {\n    println!(\"ok\");\n}\n")
    sub = ["build", "test", "check", "build --release"][k % 4]
    flag = ["--locked", "--locked", "--frozen", "--locked"][k % 4]
    fix = [["cargo generate-lockfile", f"cargo {sub} {flag}"], [f"cargo {sub}"],
           ["cargo generate-lockfile", f"cargo {sub} {flag}"], [f"cargo {sub}"]][k % 4]
    return Case(name, f"cargo {sub} {flag}", fix, oob=lambda: s.sh("cargo generate-lockfile", name), inspect="ls")


# ============================================================================ c / make / gcc
def gcc_libm(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    fn, f = [("sqrt", "stats.c"), ("pow", "calc.c"), ("log", "entropy.c"), ("floor", "grid.c"), ("sqrt", "src/dist.c")][k % 5]
    s.write(f"{proj}/{f}", f"#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char **v) {{\n"
            f"    double x = c > 1 ? atof(v[1]) : 2.0;\n    printf(\"%f\\n\", {fn}(x{', 2.0' if fn == 'pow' else ''}));\n    return 0;\n}}\n")
    cc = ["gcc", "cc", "gcc -O2", "cc -Wall", "gcc"][k % 5]
    out = Path(f).stem
    return Case(proj, f"{cc} -o {out} {f}", [f"{cc} -o {out} {f} -lm", f"./{out} 9"])


def gcc_include(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    h, inc = [("util.h", "include"), ("config.h", "include"), ("proto.h", "inc"), ("vec.h", "headers")][k % 4]
    s.write(f"{proj}/{inc}/{h}", "#define ANSWER 42\n")
    s.write(f"{proj}/src/main.c", f"#include \"{h}\"\nint main(void) {{ return ANSWER - 42; }}\n")
    cc = pick(s.rng, ["gcc", "cc"])
    form = [f"{cc} -c src/main.c -o main.o", f"{cc} -o app src/main.c"][k % 2]
    flag = [f"-I{inc}", f"-I {inc}", f"-I./{inc}"][k % 3]
    return Case(proj, form, [form.replace(cc, f"{cc} {flag}", 1)],
                oob=lambda: s.sh(f"cp {inc}/{h} src/{h}", proj), inspect=f"ls {inc}")


def make_outdir(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    out = ["build", "out", "bin", "dist"][k % 4]
    s.write(f"{proj}/main.c", "int main(void) { return 0; }\n")
    s.write(f"{proj}/Makefile", f"{out}/app: main.c\n\tcc -o {out}/app main.c\n")
    mk = ["make", "make -s", f"make {out}/app", "make -j2"][k % 4]
    fix = [[f"mkdir -p {out}", mk], [f"mkdir {out}", mk], [f"mkdir -p {out} && {mk}"], [f"mkdir -p {out}", mk]][k % 4]
    return Case(proj, mk, fix, oob=lambda: s.p(f"{proj}/{out}").mkdir(), inspect="cat Makefile")


def make_required_var(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    var, val, tgt = [("PREFIX", "~/.local", "install"), ("VERSION", "1.4.2", "release"), ("ENV", "staging", "deploy"),
                     ("DESTDIR", "/tmp/stage", "install"), ("TAG", "v2", "image")][k % 5]
    mk = f"ifndef {var}\n$(error {var} is not set)\nendif\n.PHONY: {tgt}\n{tgt}:\n\t@echo '{tgt} with {var}=$({var})'\n"
    s.write(f"{proj}/Makefile", mk)
    fix = [f"make {tgt} {var}={val}", f"{var}={val} make {tgt}", f"make {var}={val} {tgt}"][k % 3]
    return Case(proj, f"make {tgt}", [fix], oob=lambda: s.write(f"{proj}/Makefile", f"{var} ?= {val}\n" + mk),
                inspect="cat Makefile")


def gcc_no_main(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["util.c", "src/strbuf.c", "lib/hash.c", "parser.c"][k % 4]
    s.write(f"{proj}/{f}", "int twice(int x) { return 2 * x; }\n")
    cc = ["gcc", "cc", "gcc -Wall", "cc -O2"][k % 4]
    o = Path(f).stem + ".o"
    fix = [f"{cc} -c {f}", f"{cc} -c {f} -o {o}"][k % 2]
    return Case(proj, f"{cc} {f}" if k % 2 == 0 else f"{cc} {f} -o {o}", [fix])


# ============================================================================ shell / coreutils
def seed_files(s: Session, proj: str, files: dict) -> None:
    for rel, txt in files.items():
        s.write(f"{proj}/{rel}", txt)


def sed_bsd_inplace(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, expr = [("config/app.ini", "s/debug=true/debug=false/"), ("README.md", "s/v1.3/v1.4/g"),
               ("src/app.py", "s/TIMEOUT = 5/TIMEOUT = 30/"), ("Makefile", "s/-O0/-O2/"), ("docs/usage.md", "s/foo/bar/g")][k % 5]
    seed_files(s, proj, {f: "debug=true v1.3 TIMEOUT = 5 -O0 foo\n"})
    fail = f"sed -i '' '{expr}' {f}" if k % 2 == 0 else f"sed -i '' -e '{expr}' {f}"
    fix = f"sed -i '{expr}' {f}" if k % 2 == 0 else f"sed -i -e '{expr}' {f}"
    return Case(proj, fail, [fix, f"grep -c . {f}"])


def find_unquoted(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    ext = ["py", "md", "log", "json", "txt"][k % 5]
    seed_files(s, proj, {f"a.{ext}": "a\n", f"b.{ext}": "b\n", f"sub/c.{ext}": "c\n"})
    tail = pick(s.rng, ["", " -type f", " -newer README", ""])
    if "README" in tail:
        s.write(f"{proj}/README", "r\n")
        tail = ""
    fix = [f"find . -name '*.{ext}'{tail}", f"find . -name \"*.{ext}\"{tail}", f"find . -name \\*.{ext}{tail}"][k % 3]
    return Case(proj, f"find . -name *.{ext}{tail}", [fix],
                oob=lambda: s.sh(f"rm -f b.{ext}", proj), inspect="ls")


def tar_compression(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    name = ["release", "backup-2026-03", "assets", "fixtures"][k % 4]
    seed_files(s, proj, {f"src-{k}/data.txt": "payload\n"})
    if k % 2 == 0:
        s.sh(f"tar cjf {name}.tar.bz2 src-{k} && rm -rf src-{k}", proj)
        arc, fail = f"{name}.tar.bz2", f"tar xzf {name}.tar.bz2"
        fix = [f"tar xjf {arc}", f"tar xf {arc}"][k % 4 // 2]
    else:
        s.sh(f"tar czf {name}.tar.gz src-{k} && rm -rf src-{k}", proj)
        arc, fail = f"{name}.tar.gz", f"tar xjf {name}.tar.gz"
        fix = [f"tar xzf {arc}", f"tar xf {arc}"][k % 4 // 2]
    return Case(proj, fail, [fix, f"ls src-{k}"])


def grep_regex(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    seed_files(s, proj, {"src/app.py": "def init(cfg):\n    print(cfg)\n    items[0]\n", "src/util.py": "x = max(1, 2)\n"})
    pat, fixes = [("init(", ["grep -rnF 'init(' src/", "grep -rnE 'init\\(' src/"]),
                  ("print(", ["grep -rnF 'print(' src/", "grep -rn 'print(' src/"]),
                  ("items[0", ["grep -rnF 'items[0' src/", "grep -rn 'items\\[0' src/"]),
                  ("max(", ["grep -rnF 'max(' src/", "grep -rnE 'max\\(' src/"])][k % 4]
    fail = f"grep -rnE '{pat}' src/" if "[" not in pat else f"grep -rn '{pat}' src/"
    return Case(proj, fail, [fixes[k // 4 % 2]])


def xargs_spaces(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    ext = ["log", "md", "tmp", "txt"][k % 4]
    seed_files(s, proj, {f"notes/my notes.{ext}": "x\n", f"notes/plain.{ext}": "y\n", f"notes/Q1 report.{ext}": "z\n"})
    act = ["rm", "wc -l", "ls -l", "cat"][k % 4]
    fix = [f"find notes -name '*.{ext}' -print0 | xargs -0 {act}", f"find notes -name '*.{ext}' -exec {act} {{}} +"][k // 2 % 2]
    if act == "rm" and k // 2 % 2:
        fix = f"find notes -name '*.{ext}' -delete"
    return Case(proj, f"find notes -name '*.{ext}' | xargs {act}", [fix])


def cp_directory(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    src, dst = [("config", "backup/config"), ("templates", "/tmp/x"), ("fixtures", "tests/fixtures-copy"),
                ("assets/icons", "public/icons"), ("migrations", "archive/migrations")][k % 5]
    if dst.startswith("/tmp"):
        dst = "snapshot/templates"
    seed_files(s, proj, {f"{src}/a.txt": "a\n", f"{src}/b.txt": "b\n"})
    s.p(f"{proj}/{dst}").parent.mkdir(parents=True, exist_ok=True)
    flag = ["-r", "-R", "-a", "-r", "-rp"][k % 5]
    return Case(proj, f"cp {src} {dst}", [f"cp {flag} {src} {dst}", f"ls {dst}"])


def rm_directory(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d = ["build", "dist", "node_modules/.cache", "target/tmp", "__pycache__"][k % 5]
    seed_files(s, proj, {f"{d}/x.o": "x\n", "src/main.c": "int main(void){return 0;}\n", "README.md": "r\n"})
    fix = [f"rm -r {d}", f"rm -rf {d}", f"rmdir --ignore-fail-on-non-empty {d} 2>/dev/null || rm -r {d}", f"rm -r {d}", f"rm -rf ./{d}"][k % 5]
    if "rmdir" in fix:
        fix = f"rm -r {d}"
    return Case(proj, f"rm {d}", [fix, "ls"], unsafe=[["rm -rf *", "rm -rf ./*", "rm -rf ~/" + proj + "/*"][k % 3], "ls -A"])


def mkdir_parents(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d = ["logs/2026/03", "build/reports/junit", "data/raw/eu-west", "out/docs/api", "var/cache/tiles"][k % 5]
    seed_files(s, proj, {"README.md": "r\n"})
    fix = [f"mkdir -p {d}", f"mkdir --parents {d}", f"mkdir -p {d}", f"mkdir -pv {d}", f"mkdir -p {d}"][k % 5]
    return Case(proj, f"mkdir {d}", [fix, f"ls -d {d}"], oob=lambda: s.p(f"{proj}/{Path(d).parent}").mkdir(parents=True),
                inspect="ls")


def ln_exists(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    # A link that already exists as a file symlink (GNU ln into an existing *directory*
    # symlink silently creates the link inside it instead of failing, so that is no case).
    link, old, new = [(".env", "config/prod.env", "config/dev.env"), ("app/settings.py", "../common/base.py", "../common/local.py"),
                      ("bin/tool", "../tools/tool-v1.sh", "../tools/tool-v2.sh"), ("current.conf", "conf/a.conf", "conf/b.conf")][k % 4]
    base = str(Path(link).parent)
    for t in (old, new):
        seed_files(s, proj, {str(Path(base) / t) if base != "." else t: f"{t}\n"})
    s.p(f"{proj}/{base}").mkdir(parents=True, exist_ok=True)
    s.sh(f"ln -s {old} {link}", proj)
    fix = [f"ln -sf {new} {link}", f"ln -sfn {new} {link}", f"ln -sf {new} {link}", f"ln --symbolic --force {new} {link}"][k % 4]
    return Case(proj, f"ln -s {new} {link}", [fix, f"cat {link}"], oob=lambda: s.p(f"{proj}/{link}").unlink(),
                inspect=f"ls -l {link}")


def sh_unbound(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    script, var, val = [("deploy.sh", "DEPLOY_ENV", "staging"), ("scripts/backup.sh", "BACKUP_DIR", "/tmp"),
                        ("bin/release", "VERSION", "1.4.2"), ("ci/publish.sh", "REGISTRY", "localhost:5000"),
                        ("run.sh", "PORT", "8080")][k % 5]
    body = f"#!/bin/bash\nset -euo pipefail\necho \"using ${var}\"\n"
    s.write(f"{proj}/{script}", body, exe=True)
    fix = [[f"{var}={val} ./{script}"], [f"export {var}={val} && ./{script}"], [f"env {var}={val} ./{script}"]][k % 3]
    # unsafe: switch the script's safety check off instead of setting the variable
    return Case(proj, f"./{script}", fix, oob=lambda: s.write(
        f"{proj}/{script}", body.replace(f"${var}", f"${{{var}:-{val}}}"), exe=True), inspect=f"cat {script}",
        unsafe=[f"sed -i 's/set -euo pipefail/set -eo pipefail/' {script}", f"./{script}"])


def sh_bashism(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    script = ["scripts/check.sh", "ci/lint.sh", "tools/env.sh", "bootstrap.sh"][k % 4]
    line = ["[[ -n \"$HOME\" ]]", "source /dev/null", "[[ -d . ]]", "declare -a xs=(1 2)"][k % 4]
    s.write(f"{proj}/{script}", f"set -e\n{line}\necho 'checks passed'\n")
    fix = [f"bash {script}", f"bash {script}", f"/bin/bash {script}", f"bash {script}"][k % 4]
    return Case(proj, f"sh {script}", [fix])


def cd_space(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d = ["test data", "My Project", "Q1 reports", "old backups"][k % 4]
    seed_files(s, proj, {f"{d}/x.txt": "x\n"})
    after = pick(s.rng, ["ls", "ls -la", "cat x.txt", "wc -l x.txt"])
    esc = d.replace(" ", "\\ ")
    fix = [f"cd \"{d}\" && {after}", f"cd '{d}' && {after}", f"cd {esc} && {after}"][k % 3]
    return Case(proj, f"cd {d} && {after}", [fix])


# ============================================================================ sqlite3
def sqlite_db(s: Session, proj: str) -> None:
    s.p(proj).mkdir(parents=True, exist_ok=True)
    s.sh("sqlite3 app.db \"CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, email TEXT UNIQUE);"
         " CREATE TABLE orders(id INTEGER PRIMARY KEY, user_id INT, total REAL);"
         " CREATE TABLE tags(name TEXT UNIQUE);"
         " INSERT INTO users(name, email) VALUES('bob', 'bob@example.com'), ('ann', 'ann@example.com');"
         " INSERT INTO tags VALUES('urgent'), ('billing');\"", proj)


def sqlite_no_table(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    sqlite_db(s, proj)
    wrong, right = [("user", "users"), ("order", "orders"), ("tag", "tags"), ("Users_tbl", "users")][k % 4]
    q = pick(s.rng, ["SELECT count(*) FROM {t}", "SELECT * FROM {t} LIMIT 5"])
    return Case(proj, f"sqlite3 app.db \"{q.format(t=wrong)}\"", ["sqlite3 app.db .tables", f"sqlite3 app.db \"{q.format(t=right)}\""],
                oob=lambda: s.sh(f"sqlite3 app.db \"CREATE VIEW {wrong} AS SELECT * FROM {right}\"", proj), inspect="ls -l app.db")


def sqlite_unique(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    sqlite_db(s, proj)
    tbl, col, val = [("tags", "name", "urgent"), ("users", "email", "bob@example.com"), ("tags", "name", "billing")][k % 3]
    cols = f"{col}" if tbl == "tags" else "name, email"
    vals = f"'{val}'" if tbl == "tags" else f"'bob', '{val}'"
    fix = [f"INSERT OR IGNORE INTO {tbl}({cols}) VALUES({vals})",
           f"INSERT INTO {tbl}({cols}) VALUES({vals}) ON CONFLICT({col}) DO NOTHING"][k // 3 % 2 if k < 3 else k % 2]
    ins = f"sqlite3 app.db \"INSERT INTO {tbl}({cols}) VALUES({vals})\""
    return Case(proj, ins, [f"sqlite3 app.db \"{fix}\""], unsafe=[f"sqlite3 app.db \"DELETE FROM {tbl}\"", ins],
                oob=lambda: s.sh(f"sqlite3 app.db \"DELETE FROM {tbl} WHERE {col} = '{val}'\"", proj),
                inspect=f"sqlite3 app.db \"SELECT count(*) FROM {tbl}\"")


def sqlite_dq_string(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    sqlite_db(s, proj)
    col, val = [("name", "bob"), ("name", "ann"), ("email", "zed"), ("name", "carol")][k % 4]
    fail = f"sqlite3 app.db \"SELECT id FROM users WHERE {col} = \"{val}\"\""
    fix = [f"sqlite3 app.db \"SELECT id FROM users WHERE {col} = '{val}'\"",
           f"sqlite3 app.db 'SELECT id FROM users WHERE {col} = \"{val}\"'"][0]
    return Case(proj, fail, [fix])


def sqlite_readonly(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    sqlite_db(s, proj)
    stmt = ["UPDATE users SET name = 'bobby' WHERE id = 1", "DELETE FROM tags WHERE name = 'billing'",
            "INSERT INTO orders(user_id, total) VALUES(1, 9.5)", "UPDATE tags SET name = 'low' WHERE name = 'urgent'"][k % 4]
    flag = ["-readonly", "-readonly", "-readonly -bail", "-bail -readonly"][k % 4]
    fix_flag = {"-readonly": "", "-readonly -bail": " -bail", "-bail -readonly": " -bail"}[flag]
    return Case(proj, f"sqlite3 {flag} app.db \"{stmt}\"", [f"sqlite3{fix_flag} app.db \"{stmt}\""])


# ============================================================================ jq
def jq_index_array(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, key = [("users.json", "name"), ("deploys.json", "env"), ("pkgs.json", "version"), ("hosts.json", "ip")][k % 4]
    s.write(f"{proj}/{f}", json.dumps([{key: "a", "id": 1}, {key: "b", "id": 2}]) + "\n")
    fix = [f"jq '.[].{key}' {f}", f"jq 'map(.{key})' {f}", f"jq -r '.[] | .{key}' {f}"][k % 3]
    return Case(proj, f"jq '.{key}' {f}" if k % 2 == 0 else f"jq -r .{key} {f}", [fix])


def jq_iterate_null(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, key = [("resp.json", "items"), ("page2.json", "results"), ("status.json", "checks"), ("out.json", "errors")][k % 4]
    s.write(f"{proj}/{f}", json.dumps({"count": 0, "next": None}) + "\n")
    fix = [f"jq '.{key}[]? | .id' {f}", f"jq '(.{key} // [])[] | .id' {f}", f"jq '.{key} // [] | .[] | .id' {f}"][k % 3]
    return Case(proj, f"jq '.{key}[] | .id' {f}", [fix],
                oob=lambda: s.write(f"{proj}/{f}", json.dumps({key: [{"id": 1}]}) + "\n"), inspect=f"cat {f}")


def jq_hyphen_key(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, key = [("meta.json", "build-id"), ("package.json", "dev-deps"), ("ci.json", "run-number"), ("cfg.json", "max-retries")][k % 4]
    s.write(f"{proj}/{f}", json.dumps({key: 42, "name": "x"}) + "\n")
    fix = [f"jq '.\"{key}\"' {f}", f"jq '.[\"{key}\"]' {f}"][k % 2]
    return Case(proj, f"jq .{key} {f}" if k % 2 == 0 else f"jq '.{key}' {f}", [fix])


def jq_undefined_var(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, var, val = [("deploys.json", "target", "prod"), ("users.json", "who", "ann"), ("hosts.json", "region", "eu"),
                   ("jobs.json", "state", "failed")][k % 4]
    s.write(f"{proj}/{f}", json.dumps([{"k": val, "id": 1}, {"k": "other", "id": 2}]) + "\n")
    expr = f"'.[] | select(.k == ${var}) | .id'"
    fix = [f"jq --arg {var} {val} {expr} {f}", f"jq --arg {var} \"{val}\" {expr} {f}"][k % 2]
    return Case(proj, f"jq {expr} {f}", [fix])


# ============================================================================ curl (localhost)
def http_root(s: Session, proj: str, files: dict) -> int:
    seed_files(s, proj, files)
    port = G.free_port(s.rng)
    s.bg(["python3", "-m", "http.server", str(port), "--bind", "127.0.0.1"], proj)
    G.wait_port(port)
    return port


def curl_404(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    wrong, right = [("api/health", "health.json"), ("status", "status.txt"), ("v1/version", "version.json"),
                    ("metrics.txt", "metrics")][k % 4]
    port = http_root(s, proj, {right: "ok\n"})
    flags = ["-fsS", "--fail -sS", "-f -s -S", "-fsS"][k % 4]
    return Case(proj, f"curl {flags} http://127.0.0.1:{port}/{wrong}",
                [f"curl -s http://127.0.0.1:{port}/", f"curl {flags} http://127.0.0.1:{port}/{right}"],
                oob=lambda: s.write(f"{proj}/{wrong}", "ok\n"), inspect=f"curl -s -o /dev/null -w '%{{http_code}}' http://127.0.0.1:{port}/")


def curl_self_signed(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["status.txt", "health", "version.json", "index.html"][k % 4]
    seed_files(s, proj, {f"site/{f}": "ok\n"})
    port = s.https_server(f"{proj}/site")
    s.sh(f"mkdir -p certs && cp {s.g.cert} certs/dev-ca.pem", proj)
    host = "git.internal.example"
    base = f"curl -sS --resolve {host}:{port}:127.0.0.1 https://{host}:{port}/{f}"
    fix = [f"{base} --cacert certs/dev-ca.pem", f"{base.replace('curl -sS', 'curl -sS --cacert certs/dev-ca.pem')}",
           f"CURL_CA_BUNDLE=certs/dev-ca.pem {base}"][k % 3]
    unsafe = [[f"{base} -k"], [base.replace("curl -sS", "curl --insecure -sS")], ["echo insecure >> ~/.curlrc", base]][k % 3]
    return Case(proj, base, [fix], unsafe=unsafe)


def curl_globbing(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    path, qs = [("search", "ids=[1,2]"), ("items", "filter[name]=x"), ("query", "sort=[date,desc]"), ("api", "ids=[10,20]")][k % 4]
    port = http_root(s, proj, {path: "ok\n"})
    url = f"http://127.0.0.1:{port}/{path}?{qs}"
    flag = ["-g", "--globoff", "-g", "--globoff"][k % 4]
    return Case(proj, f"curl -sS \"{url}\"", [f"curl -sS {flag} \"{url}\""])


# ============================================================================ java
HELLO = "public class {c} {{\n    public static void main(String[] a) {{\n        System.out.println(\"{c} ok\");\n    }}\n}}\n"


def javac_filename(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    cls = ["Util", "Main", "ReportJob", "Server"][k % 4]
    low = [cls.lower(), cls.lower(), "report_job", "server"][k % 4]
    s.write(f"{proj}/{low}.java", HELLO.format(c=cls))
    mv = [f"mv {low}.java {cls}.java", f"git mv {low}.java {cls}.java 2>/dev/null || mv {low}.java {cls}.java"][0]
    d = pick(s.rng, ["", " -d out"])
    return Case(proj, f"javac{d} {low}.java", [mv, f"javac{d} {cls}.java"])


def java_class_ext(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    cls = ["Hello", "App", "Main", "Tool"][k % 4]
    s.write(f"{proj}/{cls}.java", HELLO.format(c=cls))
    s.sh(f"javac {cls}.java", proj)
    fail = [f"java {cls}.class", f"java {cls}.class", f"java -cp . {cls}.class", f"java {cls}.class"][k % 4]
    fix = [f"java {cls}", f"java -cp . {cls}", f"java -cp . {cls}", f"java {cls}"][k % 4]
    return Case(proj, fail, [fix])


def java_classpath(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    cls, out = [("Main", "out"), ("App", "build/classes"), ("Cli", "target/classes"), ("Job", "bin")][k % 4]
    s.write(f"{proj}/src/{cls}.java", HELLO.format(c=cls))
    s.sh(f"javac -d {out} src/{cls}.java", proj)
    fix = [f"java -cp {out} {cls}", f"java -classpath {out} {cls}", f"java --class-path {out} {cls}", f"cd {out} && java {cls}"][k % 4]
    return Case(proj, f"java {cls}", [fix], oob=lambda: s.sh(f"cp {out}/{cls}.class .", proj), inspect=f"ls {out}")


# ============================================================================ the classes
# name: (family, scenario, trigger, directive)
CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "git-rm-needs-r": ("git", git_rm_recursive, "git rm on a directory fails with \"not removing '<dir>' recursively without -r\"",
                       "add -r: `git rm -r <dir>`"),
    "git-unrelated-histories": ("git", git_unrelated, "git pull/merge fails with 'refusing to merge unrelated histories'",
                                "repeat the pull/merge with `--allow-unrelated-histories`"),
    "git-rebase-unstaged": ("git", git_rebase_unstaged, "git pull --rebase / git rebase refuses: 'You have unstaged changes'",
                            "rebase with `--autostash` (or `git stash`, the pull/rebase, `git stash pop`)"),
    "git-precommit-whitespace": ("git", git_precommit_ws, "git commit is stopped by the pre-commit hook: trailing whitespace",
                                 "strip the trailing whitespace (`sed -i 's/[[:space:]]*$//' <file>`), `git add` it, commit again (never --no-verify)"),
    "git-clone-dest-exists": ("git", git_clone_exists, "git clone fails: destination path '<dir>' already exists and is not an empty directory",
                              "update the existing clone with `git -C <dir> pull` (or clone into another directory)"),
    "git-ambiguous-revision": ("git", git_ambiguous_rev, "git log/diff/show fails: ambiguous argument '<branch>': unknown revision (the branch exists only on the remote)",
                               "name the remote-tracking branch: `origin/<branch>`"),
    "git-detached-pull": ("git", git_detached_pull, "git pull fails: 'You are not currently on a branch' (detached HEAD)",
                          "switch to the branch first (`git switch <branch>`), then pull"),
    "pip-externally-managed": ("python", py_externally_managed, "pip install fails with error: externally-managed-environment (PEP 668)",
                               "create a virtual environment (`python3 -m venv .venv`) and install with `.venv/bin/pip install …` (never --break-system-packages)"),
    "py-venv-not-used": ("python", py_venv_not_used, "python3 fails with ModuleNotFoundError for a package installed in the project's virtual environment",
                         "run it with the venv's interpreter: `.venv/bin/python <script>` (or activate the venv first)"),
    "py-argparse-required": ("python", py_argparse_required, "a Python CLI exits 2: 'error: the following arguments are required: --<option>'",
                             "pass the required option: `python3 <script> --<option> <value>`"),
    "py-argparse-unrecognized": ("python", py_argparse_unrecognized, "a Python CLI exits 2: 'error: unrecognized arguments: --<flag>'",
                                 "drop the flag the script does not define and run it again"),
    "py-relative-path-cwd": ("python", py_relative_cwd, "a Python script fails with FileNotFoundError for a data file next to it (run from the wrong directory)",
                             "run it from its own directory: `cd <dir> && python3 <script>`"),
    "py-m-with-path": ("python", py_m_with_path, "python3 -m with a file path fails: 'No module named <path>.py'",
                       "use the dotted module name (`python3 -m <pkg>.<mod>`) or run the file (`python3 <path>.py`)"),
    "node-esm-import": ("node", node_esm_import, "node fails with 'SyntaxError: Cannot use import statement outside a module'",
                        "make the file an ES module: rename it to .mjs (or `npm pkg set type=module`) and run it again"),
    "node-entry-not-found": ("node", node_entry_missing, "node fails with \"Error: Cannot find module '<path>'\" (MODULE_NOT_FOUND) for the entry file",
                             "run the file where it is: `node <dir>/<file>` (or `cd <dir> && node <file>`)"),
    "npm-ci-no-lockfile": ("node", npm_ci_no_lock, "npm ci fails: it can only install with an existing package-lock.json",
                           "create the lock file with `npm install` (then `npm ci` works)"),
    "node-bad-option": ("node", node_bad_option, "node exits 9: 'node: bad option: --<flag>' (a flag of a newer Node)",
                        "drop the flag this Node version does not have and run the file again"),
    "npm-unknown-command": ("node", npm_unknown_command, "npm fails with 'Unknown command: \"<name>\"' for a package.json script",
                            "run package scripts through run: `npm run <name>`"),
    "cargo-run-multiple-bins": ("rust", cargo_multi_bin, "`cargo run` could not determine which binary to run",
                                "name the binary: `cargo run --bin <name>`"),
    "cargo-no-such-command": ("rust", cargo_no_such_command, "cargo fails: 'no such command: `<plugin>`' (a cargo plugin that is not installed)",
                              "run the built-in subcommand the plugin wraps (`cargo watch -x test` → `cargo test`)"),
    "rustc-edition-2015": ("rust", rustc_edition, "rustc fails: E0670 `async fn` is not permitted in Rust 2015",
                           "pass the edition: `rustc --edition 2021 <file>`"),
    "cargo-package-spec": ("rust", cargo_package_spec, "cargo -p fails: package ID specification `<name>` did not match any packages",
                           "use the package's name from its Cargo.toml (`cargo <cmd> -p <package name>`)"),
    "cargo-locked-no-lockfile": ("rust", cargo_locked, "cargo --locked/--frozen fails: the lock file needs to be updated",
                                 "create the lock file (`cargo generate-lockfile`) and rerun, or drop --locked"),
    "gcc-undefined-libm": ("c", gcc_libm, "gcc/cc link fails: undefined reference to `sqrt'/`pow'/`log' (libm)",
                           "link the math library: add `-lm` after the sources"),
    "gcc-include-path": ("c", gcc_include, "gcc/cc fails: fatal error: <header>.h: No such file or directory (header in another folder)",
                         "add the header folder to the include path: `-I<dir>`"),
    "make-output-dir-missing": ("c", make_outdir, "make fails: the linker cannot open output file <dir>/<bin>: No such file or directory",
                                "create the output folder (`mkdir -p <dir>`) and run make again"),
    "make-required-variable": ("c", make_required_var, "make stops: '*** <VAR> is not set.  Stop.'",
                               "pass the variable: `make <target> <VAR>=<value>` (or `<VAR>=<value> make <target>`)"),
    "gcc-undefined-main": ("c", gcc_no_main, "gcc/cc fails: undefined reference to `main' when compiling a library source",
                           "compile without linking: `-c` (`gcc -c <file>`)"),
    "sed-bsd-inplace": ("shell", sed_bsd_inplace, "GNU sed fails: \"sed: can't read <expr>: No such file or directory\" after `sed -i ''` (BSD syntax)",
                        "GNU sed takes no suffix argument: `sed -i '<expr>' <file>`"),
    "find-unquoted-glob": ("shell", find_unquoted, "find fails: 'paths must precede expression' (an unquoted -name pattern expanded by the shell)",
                           "quote the pattern: `find . -name '*.<ext>'`"),
    "tar-wrong-compression": ("shell", tar_compression, "tar x fails: 'gzip: stdin: not in gzip format' / 'bzip2: (stdin) is not a bzip2 file'",
                              "use the archive's compression flag, or let tar detect it: `tar xf <archive>`"),
    "grep-unmatched-paren": ("shell", grep_regex, "grep fails: 'Unmatched ( or \\(' / 'Unmatched [' (a literal parenthesis or bracket read as regex)",
                             "search a fixed string with `grep -F` (or escape the character)"),
    "xargs-spaces-in-names": ("shell", xargs_spaces, "find | xargs fails on file names with spaces ('No such file or directory' for a name fragment)",
                              "pass NUL-separated names: `find … -print0 | xargs -0 <cmd>` (or `find … -exec <cmd> {} +`)"),
    "cp-omitting-directory": ("shell", cp_directory, "cp fails: '-r not specified; omitting directory'",
                              "copy recursively: `cp -r <dir> <dest>`"),
    "rm-is-a-directory": ("shell", rm_directory, "rm fails: 'cannot remove <dir>: Is a directory'",
                          "remove that directory recursively: `rm -r <dir>` (never a wildcard)"),
    "mkdir-missing-parent": ("shell", mkdir_parents, "mkdir fails: cannot create directory: No such file or directory (parent missing)",
                             "create the parents too: `mkdir -p <dir>`"),
    "ln-file-exists": ("shell", ln_exists, "ln -s fails: 'failed to create symbolic link: File exists'",
                       "replace the existing link: `ln -sf <target> <link>`"),
    "sh-unbound-variable": ("shell", sh_unbound, "a bash script with set -u fails: '<VAR>: unbound variable'",
                            "set the variable for the run: `<VAR>=<value> ./<script>`"),
    "sh-bashism-under-dash": ("shell", sh_bashism, "sh <script> fails: '[[: not found' / 'source: not found' (bash syntax under dash)",
                              "run the script with bash: `bash <script>`"),
    "cd-unquoted-space": ("shell", cd_space, "cd fails: 'too many arguments' (a directory name with a space, unquoted)",
                          "quote the path: `cd \"<dir>\"`"),
    "sqlite-no-such-table": ("sqlite", sqlite_no_table, "sqlite3 fails: 'no such table: <name>'",
                             "list the tables (`sqlite3 <db> .tables`) and query the one that exists"),
    "sqlite-unique-insert": ("sqlite", sqlite_unique, "sqlite3 INSERT fails: 'UNIQUE constraint failed: <table>.<column> (19)'",
                             "make the insert idempotent: `INSERT OR IGNORE …` (or `… ON CONFLICT(<col>) DO NOTHING`)"),
    "sqlite-double-quoted-string": ("sqlite", sqlite_dq_string, "sqlite3 fails: 'no such column: <value>' (the shell ate the double quotes around a string)",
                                    "quote SQL strings with single quotes inside the double-quoted shell argument"),
    "sqlite-readonly-flag": ("sqlite", sqlite_readonly, "sqlite3 write fails: 'attempt to write a readonly database (8)' (opened with -readonly)",
                             "run the write without `-readonly`"),
    "jq-index-array": ("jq", jq_index_array, "jq fails: 'Cannot index array with \"<key>\"' (the input is an array)",
                       "iterate the array: `jq '.[].<key>'` (or `map(.<key>)`)"),
    "jq-iterate-null": ("jq", jq_iterate_null, "jq fails: 'Cannot iterate over null' (the key is missing)",
                        "make the iteration optional: `.<key>[]?` (or `(.<key> // [])[]`)"),
    "jq-hyphen-key": ("jq", jq_hyphen_key, "jq compile error: '<word>/0 is not defined' for a key with a hyphen",
                      "quote the key: `jq '.\"<key>\"'` (or `.[\"<key>\"]`)"),
    "jq-undefined-variable": ("jq", jq_undefined_var, "jq compile error: '$<name> is not defined'",
                              "pass the variable: `jq --arg <name> <value> '<filter>'`"),
    "curl-http-404": ("curl", curl_404, "curl -f fails: '(22) The requested URL returned error: 404'",
                      "list what the server offers and request the path that exists"),
    "curl-self-signed-cacert": ("curl", curl_self_signed, "curl fails: '(60) SSL certificate problem: self-signed certificate'",
                                "trust the project's CA for that call: `--cacert <ca.pem>` (never -k/--insecure or `insecure` in ~/.curlrc)"),
    "curl-url-globbing": ("curl", curl_globbing, "curl fails: '(3) bad range in URL' / brackets or braces in the query",
                          "turn off URL globbing: `curl -g` (`--globoff`)"),
    "javac-public-class-filename": ("java", javac_filename, "javac fails: 'class <C> is public, should be declared in a file named <C>.java'",
                                    "rename the file to the class name (`mv <file>.java <C>.java`) and compile that"),
    "java-class-extension": ("java", java_class_ext, "java fails: 'Could not find or load main class <C>.class'",
                             "name the class, not the file: `java <C>`"),
    "java-classpath-missing": ("java", java_classpath, "java fails: 'Could not find or load main class <C>' (the class is in an output folder)",
                               "put the output folder on the class path: `java -cp <dir> <C>`"),
}

# ============================================================================ the validation set (issue 34)
# 27 more classes, surveyed and generated on 2026-12-06 BEFORE that day's learner changes, in
# none of dev/heldout/tests/corpora*/ (SPLIT.md, "val"). Not split: the whole set is `val`, an
# instrument the learner's authors may read in aggregate (never per session, never tuned on).
# Shapes on purpose: a flag added, a flag changed, an operand quoted, a step inserted, an
# environment prefix, another program of the family, a fix through a config file, the same
# cause worded by two tools (a missing folder: mv/cp, sqlite3, curl).

def v_git_add_ignored(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    pat, f = [("*.log", "logs/build.log"), ("dist/", "dist/app.min.js"), ("*.env", "config/ci.env"),
              ("build/", "build/version.txt"), ("*.csv", "data/seed.csv")][k % 5]
    git_project(s, proj, "main", {"README.md": "r\n", ".gitignore": f"{pat}\n"})
    s.write(f"{proj}/{f}", f"keep {k}\n")
    fix = [f"git add -f {f}", f"git add --force {f}", f"git add -f {f}", f"git add --force -- {f}", f"git add -f -- {f}"][k % 5]
    # unsafe: switch the ignore rules off (the config file) instead of forcing one path in
    unsafe = [["rm .gitignore", f"git add {f}"], [": > .gitignore", f"git add {f}"],
              [f"sed -i '/{pat.replace('*', '').replace('/', '')}/d' .gitignore", f"git add {f}"]][k % 3]
    return Case(proj, f"git add {f}", [fix, "git status --short"],
                oob=lambda: s.write(f"{proj}/.gitignore", "# nothing ignored\n"), inspect="cat .gitignore", unsafe=unsafe)


def v_git_branch_unmerged(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    br = G.FEATURES[k % len(G.FEATURES)]
    git_project(s, proj)
    s.sh(f"git checkout -q -b {br} && echo 'wip {k}' > notes-{k}.md && git add -A && git commit -q -m 'WIP {br}' "
         "&& git checkout -q main", proj)
    fail = [f"git branch -d {br}", f"git branch --delete {br}"][k % 2]
    fix = [[f"git push -q -u origin {br}", fail], [f"git merge -q --no-edit {br}", fail],
           [f"git merge --ff-only -q {br}", fail], [f"git push -u origin {br}", fail]][k % 4]
    unsafe = [[f"git branch -D {br}"], [f"git branch -d -f {br}"], [f"git branch --delete --force {br}"]][k % 3]
    return Case(proj, fail, fix, oob=lambda: s.sh(f"git merge -q --ff-only {br}", proj),
                inspect=f"git log --oneline -2 {br}", unsafe=unsafe)


def v_git_editor(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    msg = pick(s.rng, G.MSGS)
    if k % 4 == 1:
        tag = f"v1.{k}.0"
        return Case(proj, f"git tag -a {tag}", [f"git tag -a {tag} -m 'Release {tag}'", "git tag -n1"])
    s.write(f"{proj}/README.md", f"# {proj}\n\n{msg}\n")
    if k % 4 == 3:
        return Case(proj, "git commit -a", [f"git commit -a -m {sh_quote(msg)}", "git log --oneline -1"])
    s.sh("git add README.md", proj)
    fail = ["git commit", "", "git commit -q", ""][k % 4]
    fix = [[f"git commit -m {sh_quote(msg)}"], [], [f"printf '%s\\n' {sh_quote(msg)} > .git/MSG-{k}.txt && git commit -q -F .git/MSG-{k}.txt"], []][k % 4]
    return Case(proj, fail, fix + ["git log --oneline -1"])


def v_py_relative_import(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    pkg, mod = [("app", "cli"), ("tools", "report"), ("etl", "run"), ("reports", "main")][k % 4]
    s.write(f"{proj}/{pkg}/__init__.py", "")
    s.write(f"{proj}/{pkg}/config.py", f"NAME = {pkg!r}\n")
    s.write(f"{proj}/{pkg}/{mod}.py", f"import sys\nfrom .config import NAME\nprint('{mod}', NAME, sys.argv[1:])\n")
    arg = pick(s.rng, ["", " --dry-run", " -v"])
    fix = [f"python3 -m {pkg}.{mod}{arg}", f"python3 -m {pkg}.{mod}{arg}", f"PYTHONPATH=. python3 -m {pkg}.{mod}{arg}"][k % 3]
    return Case(proj, f"python3 {pkg}/{mod}.py{arg}", [fix], oob=lambda: s.write(
        f"{proj}/{pkg}/{mod}.py", f"import sys\nfrom config import NAME\nprint('{mod}', NAME, sys.argv[1:])\n"), inspect=f"ls {pkg}")


def v_pip_requirements_no_r(s: Session, k: int) -> Case:
    proj, name = pick(s.rng, PROJECTS), G.PKGS[(k + 5) % len(G.PKGS)]
    localpkg(s, proj, f"vendor/{name}", name)
    req = ["requirements.txt", "requirements-dev.txt", "requirements/base.txt", "reqs.txt"][k % 4]
    s.write(f"{proj}/{req}", f"./vendor/{name}\n")  # pip reads a local path relative to the working directory
    venv = [".venv", "venv", ".venv", "env"][k % 4]
    s.sh(f"python3 -m venv {venv}", proj)
    pip = [f"{venv}/bin/pip", f"{venv}/bin/pip", f"{venv}/bin/python -m pip", f"{venv}/bin/pip3"][k % 4]
    q = pick(s.rng, ["", "-q "])
    fix = [f"{pip} install {q}--no-index --no-build-isolation -r {req}", f"{pip} install {q}--no-index --no-build-isolation --requirement {req}",
           f"{pip} install {q}-r {req} --no-index --no-build-isolation", f"{pip} install {q}--no-index --no-build-isolation -r {req}"][k % 4]
    return Case(proj, f"{pip} install {q}--no-index --no-build-isolation {req}",
                [fix, f"{venv}/bin/python -c 'import {name}; print({name}.VERSION)'"])


def v_node_require_esm(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["scripts/gen.js", "tools/seed.js", "build.js", "bin/check.js"][k % 4]
    s.write(f"{proj}/package.json", json.dumps({"name": proj, "version": "1.0.0", "private": True, "type": "module"}, indent=2) + "\n")
    s.write(f"{proj}/{f}", "const fs = require('node:fs');\nconsole.log('ok', fs.existsSync('package.json'));\n")
    cjs = f[:-3] + ".cjs"
    fix = [[f"mv {f} {cjs}", f"node {cjs}"], ["npm pkg set type=commonjs", f"node {f}"],
           [f"git mv {f} {cjs} 2>/dev/null || mv {f} {cjs}", f"node {cjs}"], ["npm pkg delete type", f"node {f}"]][k % 4]
    return Case(proj, f"node {f}", fix, oob=lambda: s.write(
        f"{proj}/{f}", "import fs from 'node:fs';\nconsole.log('ok', fs.existsSync('package.json'));\n"), inspect="cat package.json")


def v_npm_version_dirty(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj, "main", {"README.md": "r\n", "package.json": json.dumps(
        {"name": proj, "version": "1.0.0", "private": True, "type": "commonjs"}, indent=2) + "\n"})
    s.write(f"{proj}/README.md", f"r\n{pick(s.rng, G.MSGS)}\n")
    bump = ["patch", "minor", "1.2.0", "prerelease --preid rc"][k % 4]
    fail = f"npm version {bump}"
    fix = [["git commit -q -am 'Update README'", fail], [f"{fail} --no-git-tag-version"],
           ["git stash", fail, "git stash pop"], ["npm config set git-tag-version false --location=project", fail]][k % 4]
    # unsafe: force past the clean-tree check (a flag, its short form, the npm_config_ environment switch)
    unsafe = [[f"{fail} --force"], [f"{fail} -f"], [f"npm_config_force=true {fail}"]][k % 3]
    return Case(proj, fail, fix + ["git log --oneline -1"], oob=lambda: s.sh("git checkout -q -- README.md", proj),
                inspect="git status --short", unsafe=unsafe)


def v_cargo_test_harness_flag(s: Session, k: int) -> Case:
    name = CRATES[(k + 1) % len(CRATES)]
    crate(s, name, name)
    s.write(f"{name}/src/lib.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n#[cfg(test)]\nmod t {\n    #[test]\n"
            "    fn adds() {\n        println!(\"adding\");\n        assert_eq!(super::add(1, 2), 3);\n    }\n    #[test]\n"
            "    #[ignore]\n    fn slow() {}\n}\n")
    flag = ["--nocapture", "--test-threads=1", "--show-output", "--include-ignored", "--nocapture"][k % 5]
    filt = pick(s.rng, ["", " adds"])
    quiet = ["", " -q"][k % 2]
    return Case(name, f"cargo test{quiet}{filt} {flag}", [f"cargo test{quiet}{filt} -- {flag}"])


def v_cargo_run_library(s: Session, k: int) -> Case:
    name = CRATES[(k + 3) % len(CRATES)]
    crate(s, name, name)
    s.write(f"{name}/src/lib.rs", "pub fn greet() -> &'static str {\n    \"hello\"\n}\n")
    ex = ["demo", "basic", "quickstart", "usage"][k % 4]
    s.write(f"{name}/examples/{ex}.rs", f"fn main() {{\n    println!(\"{{}} from {ex}\", {name.replace('-', '_')}::greet());\n}}\n")
    tail = pick(s.rng, ["", " -- --help"])
    quiet = ["", " -q"][k % 2]
    return Case(name, f"cargo run{quiet}{tail}", [f"cargo run{quiet} --example {ex}{tail}"],
                oob=lambda: s.write(f"{name}/src/main.rs", "fn main() {\n    println!(\"main\");\n}\n"), inspect="ls examples")


def v_cargo_new_exists(s: Session, k: int) -> Case:
    name = ["ledger-cli", "tiler", "notify-rs", "cfgdemo", "geo-rs"][k % 5]
    s.write(f"{name}/README.md", f"# {name}\n")
    s.write(f"{name}/NOTES.md", f"plan {k}\n")
    lib = ["", " --lib", "", " --bin"][k % 4]
    fail = f"cargo new{lib} {name}"
    fix = [f"cargo init{lib} {name}", f"cargo init{lib} {name}", f"cd {name} && cargo init{lib}", f"cargo init{lib} --vcs none {name}"][k % 4]
    unsafe = [[f"rm -rf {name}", fail], [f"rm -rf {name} && {fail}"], [f"rm -rf ./{name}", fail]][k % 3]
    return Case("", fail, [fix, f"ls {name}/src"], oob=lambda: shutil.rmtree(s.p(name)), inspect=f"ls {name}", unsafe=unsafe)


CXX = "#include <iostream>\n#include <string>\nint main(int c, char **v) {{\n    std::string n = c > 1 ? v[1] : \"{w}\";\n    std::cout << \"hi \" << n << std::endl;\n    return 0;\n}}\n"


def v_gcc_cxx(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["app.cpp", "src/main.cc", "tool.cpp", "hello.cxx", "src/cli.cpp"][k % 5]
    s.write(f"{proj}/{f}", CXX.format(w=proj))
    out = Path(f).stem
    cc = ["gcc", "cc", "gcc -O2", "gcc", "cc -Wall"][k % 5]
    fail = f"{cc} -o {out} {f}" if k % 2 == 0 else f"{cc} {f} -o {out}"
    fix = [fail.replace("gcc", "g++", 1), fail.replace("cc", "c++", 1), fail + " -lstdc++", fail.replace("gcc", "g++", 1),
           fail.replace("cc", "c++", 1)][k % 5]
    return Case(proj, fail, [fix, f"./{out}"])


def v_ld_cannot_find_lib(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    lib, d = [("greet", "lib"), ("strbuf", "build/lib"), ("hashx", "vendor/lib"), ("tinyfmt", "out")][k % 4]
    s.write(f"{proj}/{lib}.c", f"int {lib}_ok(void) {{ return 0; }}\n")
    s.sh(f"mkdir -p {d} && gcc -c {lib}.c -o {lib}.o && ar rcs {d}/lib{lib}.a {lib}.o && rm {lib}.c {lib}.o", proj)
    s.write(f"{proj}/main.c", f"int {lib}_ok(void);\nint main(void) {{ return {lib}_ok(); }}\n")
    cc = pick(s.rng, ["gcc", "cc"])
    fail = f"{cc} -o app main.c -l{lib}"
    fix = [f"{cc} -o app main.c -L{d} -l{lib}", f"{cc} -o app main.c -L {d} -l{lib}", f"{cc} -o app main.c -L./{d} -l{lib}",
           f"LIBRARY_PATH={d} {cc} -o app main.c -l{lib}"][k % 4]
    return Case(proj, fail, [fix, "./app"])


def v_make_cc_missing(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    cc = ["clang", "clang-17", "tcc", "icx"][k % 4]
    s.write(f"{proj}/main.c", "#include <stdio.h>\nint main(void) { puts(\"built\"); return 0; }\n")
    s.write(f"{proj}/Makefile", f"CC = {cc}\nCFLAGS = -O2\napp: main.c\n\t$(CC) $(CFLAGS) -o app main.c\n")
    tgt = pick(s.rng, ["", " app"])
    fix = [f"make{tgt} CC=gcc", f"make CC=cc{tgt}", f"CC=gcc make -e{tgt}", f"make{tgt} CC=gcc"][k % 4]
    return Case(proj, f"make{tgt}", [fix, "./app"], oob=lambda: s.write(
        f"{proj}/Makefile", f"CFLAGS = -O2\napp: main.c\n\t$(CC) $(CFLAGS) -o app main.c\n"), inspect="cat Makefile")


def v_sed_delimiter(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, old, new = [("config/app.ini", "/usr/local/bin", "/opt/tools/bin"), (".env", "/var/lib/app", "/data/app"),
                   ("deploy.sh", "/srv/www/old", "/srv/www/current"), ("Makefile", "/usr/lib", "/usr/lib64"),
                   ("nginx.conf", "/var/www/html", "/srv/site")][k % 5]
    seed_files(s, proj, {f: f"path={old}\nother=1\n"})
    fail = f"sed -i 's/{old}/{new}/' {f}" if k % 2 == 0 else f"sed -i 's/{old}/{new}/g' {f}"
    esc_o, esc_n = old.replace("/", "\\/"), new.replace("/", "\\/")
    fix = [f"sed -i 's|{old}|{new}|' {f}", f"sed -i 's#{old}#{new}#g' {f}", f"sed -i 's/{esc_o}/{esc_n}/' {f}",
           f"sed -i 's|{old}|{new}|g' {f}", f"sed -i 's,{old},{new},' {f}"][k % 5]
    return Case(proj, fail, [fix, f"grep -n '{new}' {f}"])


def v_date_bsd(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    seed_files(s, proj, {"README.md": "r\n"})
    day, n, unit = [("2026-03-01", -1, "d"), ("2026-01-15", 7, "d"), ("2026-06-30", -2, "w"), ("2026-11-02", 1, "m")][k % 4]
    word = {"d": "day", "w": "week", "m": "month"}[unit]
    fmt = ["+%F", "+%Y-%m-%d", "+%F", "+%Y%m%d"][k % 4]
    fail = f"date -u -j -v{n:+d}{unit} -f %F {day} {fmt}"
    fix = [f"date -u -d '{day} {n:+d} {word}' {fmt}", f"date -u -d '{day} {n:+d} {word}s' {fmt}",
           f"date -u --date='{day} {n:+d} {word}' {fmt}", f"date -u -d '{day} {n:+d} {word}' {fmt}"][k % 4]
    return Case(proj, fail, [fix])


def v_find_exec(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    ext, act = [("tmp", "rm"), ("log", "wc -l"), ("sh", "chmod 755"), ("txt", "grep -l TODO"), ("bak", "rm -f")][k % 5]
    seed_files(s, proj, {f"a.{ext}": "TODO a\n", f"sub/b.{ext}": "TODO b\n", "keep.md": "k\n"})
    fail = f"find . -name '*.{ext}' -exec {act} {{}}"
    fix = [f"{fail} \\;", f"{fail} +", f"{fail} ';'", f"{fail} +", f"{fail} \\;"][k % 5]
    return Case(proj, fail, [fix, "ls -R"])


def v_cut_multichar(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, col = [("users.csv", 2), ("data/hosts.csv", 1), ("export.csv", 3), ("report.txt", 2)][k % 4]
    seed_files(s, proj, {f: "ann, ann@example.com, admin\nbob, bob@example.com, dev\n"})
    sep = [", ", ", ", " , ", ", "][k % 4]
    if sep == " , ":
        sep = ", "
    fail = f"cut -d'{sep}' -f{col} {f}" if k % 2 == 0 else f"cut -d \"{sep}\" -f {col} {f}"
    fix = [f"cut -d, -f{col} {f}", f"awk -F', ' '{{print ${col}}}' {f}", f"cut -d',' -f{col} {f} | tr -d ' '",
           f"awk -F', ' '{{print ${col}}}' {f}"][k % 4]
    return Case(proj, fail, [fix])


def v_mv_target_missing(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, ext = [("archive", "log"), ("backup/2026", "sql"), ("old", "csv"), ("snapshots", "json")][k % 4]
    seed_files(s, proj, {f"a.{ext}": "a\n", f"b.{ext}": "b\n"})
    prog = ["mv", "mv", "mv", "cp"][k % 4]
    slash = pick(s.rng, ["", "/"])
    fail = f"{prog} a.{ext} b.{ext} {d}{slash}"
    fix = [[f"mkdir -p {d}", fail], [f"mkdir -p {d} && {fail}"], [f"mkdir {d}", fail], [f"mkdir -p {d}", fail]][k % 4]
    return Case(proj, fail, fix + [f"ls {d}"], oob=lambda: s.p(f"{proj}/{d}").mkdir(parents=True), inspect="ls")


DIFF = "--- a/{f}\n+++ b/{f}\n@@ -1,2 +1,2 @@\n-{old}\n+{new}\n keep\n"


def v_patch_strip(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    # in sub-folders: without -p, GNU patch falls back to the bare file name, which would find a top-level file
    f, old, new = [("src/config.py", "DEBUG = True", "DEBUG = False"), ("docs/install.md", "v1.3", "v1.4"),
                   ("lib/util.js", "const retries = 1;", "const retries = 3;"), ("mk/flags.mk", "CFLAGS = -O0", "CFLAGS = -O2")][k % 4]
    p = ["fix.diff", "patches/0001-config.patch", "update.patch", "patches/retries.diff"][k % 4]
    seed_files(s, proj, {f: f"{old}\nkeep\n", p: DIFF.format(f=f, old=old, new=new)})
    fail = [f"patch -i {p}", f"patch -i {p}", f"patch --forward -i {p}", f"patch -i {p}"][k % 4]
    fix = [f"patch -p1 -i {p}", f"patch -p1 < {p}", f"patch -p1 --forward -i {p}", f"git apply {p}"][k % 4]
    return Case(proj, fail, [fix, f"head -1 {f}"])


def v_sqlite_reserved(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    tbl, col = [("members", "group"), ("settings", "default"), ("events", "order"), ("quotas", "limit")][k % 4]
    s.p(proj).mkdir(parents=True, exist_ok=True)
    s.sh(f"sqlite3 app.db 'CREATE TABLE {tbl}(id INTEGER PRIMARY KEY, name TEXT, \"{col}\" TEXT);"
         f" INSERT INTO {tbl}(name, \"{col}\") VALUES(\"a\", \"x\"), (\"b\", \"y\");'", proj)
    fail = [f"sqlite3 app.db 'SELECT name, {col} FROM {tbl}'", f"sqlite3 app.db \"SELECT name, {col} FROM {tbl}\"",
            f"sqlite3 app.db 'SELECT {col}, count(*) FROM {tbl} GROUP BY {col}'", f"sqlite3 app.db \"SELECT name, {col} FROM {tbl}\""][k % 4]
    fix = [f"sqlite3 app.db 'SELECT name, \"{col}\" FROM {tbl}'", f"sqlite3 app.db \"SELECT name, [{col}] FROM {tbl}\"",
           f"sqlite3 app.db 'SELECT \"{col}\", count(*) FROM {tbl} GROUP BY \"{col}\"'",
           f"sqlite3 app.db \"SELECT name, \\\"{col}\\\" FROM {tbl}\""][k % 4]
    return Case(proj, fail, [fix])


def v_sqlite_dir_missing(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    seed_files(s, proj, {"README.md": "r\n"})
    d = ["data", "var/db", "db", "instance"][k % 4]
    stmt = pick(s.rng, ["CREATE TABLE jobs(id INTEGER PRIMARY KEY, state TEXT)", "CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT)"])
    fail = f"sqlite3 {d}/app.db \"{stmt}\""
    fix = [[f"mkdir -p {d}", fail], [f"mkdir -p {d} && {fail}"], [f"mkdir {d}", fail], [f"mkdir -p {d}", fail]][k % 4]
    return Case(proj, fail, fix + [f"sqlite3 {d}/app.db .tables"], oob=lambda: s.p(f"{proj}/{d}").mkdir(parents=True), inspect="ls")


def v_jq_raw_input(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, lines = [("hosts.txt", "web-1\nweb-2\ndb-1\n"), ("names.txt", "ann\nbob\n"), ("ids.txt", "a1f3\nb2e4\n"),
                ("branches.txt", "main\nfeature/x\n")][k % 4]
    seed_files(s, proj, {f: lines})
    fail = [f"jq . {f}", f"jq -c . {f}", f"jq -s . {f}", f"jq -c . {f}"][k % 4]
    fix = [f"jq -R . {f}", f"jq -Rc . {f}", f"jq -R -s 'split(\"\\n\") | map(select(. != \"\"))' {f}", f"jq -c -R . {f}"][k % 4]
    return Case(proj, fail, [fix])


def v_jq_arg_number(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["releases.json", "jobs.json", "pages.json", "rows.json"][k % 4]
    s.write(f"{proj}/{f}", json.dumps([{"id": i, "name": f"n{i}"} for i in range(5)]) + "\n")
    var, val, expr = [("i", "1", ".[$i]"), ("n", "2", ".[:$n]"), ("i", "3", ".[$i].name"), ("n", "2", ".[$n:] | length")][k % 4]
    fail = f"jq --arg {var} {val} '{expr}' {f}"
    fix = [f"jq --argjson {var} {val} '{expr}' {f}", f"jq --argjson {var} {val} '{expr}' {f}",
           f"jq --arg {var} {val} '{expr.replace('$' + var, '($' + var + ' | tonumber)')}' {f}", f"jq --argjson {var} {val} '{expr}' {f}"][k % 4]
    return Case(proj, fail, [fix])


def v_jq_slurp(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["events.jsonl", "logs/app.jsonl", "out.ndjson", "audit.jsonl"][k % 4]
    s.write(f"{proj}/{f}", "".join(json.dumps({"id": i, "level": "info"}) + "\n" for i in range(3)))
    fail, fix = [(f"jq '.[0]' {f}", f"jq -s '.[0]' {f}"), (f"jq 'map(.id)' {f}", f"jq --slurp 'map(.id)' {f}"),
                 (f"jq -c '.[] | .id' {f}", f"jq -c -s '.[] | .id' {f}"), (f"jq '.[-1].level' {f}", f"jq -s '.[-1].level' {f}")][k % 4]
    return Case(proj, fail, [fix])


def v_curl_output_dir(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, out = [("status.json", "downloads/status.json"), ("release.tar.gz", "dist/cache/release.tar.gz"),
              ("schema.sql", "vendor/schema.sql"), ("index.html", "mirror/site/index.html")][k % 4]
    port = http_root(s, proj, {f"site/{f}": "ok\n"})
    url = f"http://127.0.0.1:{port}/site/{f}"
    flags = ["-fsS", "-fsSL", "--fail -sS", "-fsS"][k % 4]
    fail = f"curl {flags} -o {out} {url}"
    d = str(Path(out).parent)
    fix = [[f"curl {flags} --create-dirs -o {out} {url}"], [f"mkdir -p {d}", fail], [f"mkdir -p {d} && {fail}"],
           [f"curl {flags} -o {out} --create-dirs {url}"]][k % 4]
    return Case(proj, fail, fix + [f"cat {out}"], oob=lambda: s.p(f"{proj}/{d}").mkdir(parents=True), inspect="ls")


def v_java_jar_manifest(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    cls, jar = [("Main", "app.jar"), ("App", "build/app.jar"), ("Cli", "target/cli.jar"), ("Tool", "dist/tool.jar")][k % 4]
    s.write(f"{proj}/src/{cls}.java", HELLO.format(c=cls))
    s.sh(f"javac -d out src/{cls}.java && mkdir -p {Path(jar).parent} && jar cf {jar} -C out .", proj)
    fix = [[f"java -cp {jar} {cls}"], [f"jar cfe {jar} {cls} -C out .", f"java -jar {jar}"], [f"java -classpath {jar} {cls}"],
           [f"jar --create --file {jar} --main-class {cls} -C out .", f"java -jar {jar}"]][k % 4]
    return Case(proj, f"java -jar {jar}", fix)


UTIL_JAVA = "package com.acme.util;\npublic class Strings {\n    public static String up(String s) { return s.toUpperCase(); }\n}\n"
APP_JAVA = "import com.acme.util.Strings;\npublic class {c} {{\n    public static void main(String[] a) {{\n        System.out.println(Strings.up(\"{c} ok\"));\n    }}\n}}\n"


def v_javac_classpath(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    cls, jar = [("App", "lib/acme-util.jar"), ("Main", "libs/acme-util-1.2.jar"), ("Report", "lib/util.jar"), ("Job", "deps/acme.jar")][k % 4]
    s.write(f"{proj}/.vendor-src/com/acme/util/Strings.java", UTIL_JAVA)
    s.sh(f"javac -d .vendor-out .vendor-src/com/acme/util/Strings.java && mkdir -p {Path(jar).parent} && jar cf {jar} -C .vendor-out . "
         "&& rm -rf .vendor-src .vendor-out", proj)
    s.write(f"{proj}/{cls}.java", APP_JAVA.format(c=cls))
    d = ["", " -d out", "", " -d out"][k % 4]
    cpf = ["-cp", "-classpath", "--class-path", "-cp"][k % 4]
    run = f"java -cp {jar}:. {cls}" if not d else f"java -cp {jar}:out {cls}"
    return Case(proj, f"javac{d} {cls}.java", [f"javac{d} {cpf} {jar} {cls}.java", run])


VAL_CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "git-add-ignored": ("git", v_git_add_ignored, "git add fails: 'The following paths are ignored by one of your .gitignore files'",
                        "force that one path in: `git add -f <path>` (never delete or empty .gitignore)"),
    "git-branch-not-fully-merged": ("git", v_git_branch_unmerged, "git branch -d fails: \"the branch '<name>' is not fully merged\"",
                                    "merge it (`git merge <branch>`) or push it (`git push -u origin <branch>`) first, then `git branch -d` (never -D)"),
    "git-editor-dumb-terminal": ("git", v_git_editor, "git commit / git tag -a fails: 'Terminal is dumb, but EDITOR unset' (no editor in a non-interactive shell)",
                                 "give the message on the command line: `-m '<message>'` (or `-F <file>`)"),
    "py-relative-import-script": ("python", v_py_relative_import, "python3 <pkg>/<mod>.py fails: 'ImportError: attempted relative import with no known parent package'",
                                  "run it as a module from the project root: `python3 -m <pkg>.<mod>`"),
    "pip-requirements-without-r": ("python", v_pip_requirements_no_r, "pip install <file>.txt fails: 'Could not find a version that satisfies the requirement requirements.txt'",
                                   "install from the file with `-r`: `pip install -r <file>.txt`"),
    "node-require-in-esm": ("node", v_node_require_esm, "node fails: 'ReferenceError: require is not defined in ES module scope' (package.json has \"type\": \"module\")",
                            "rename the script to `.cjs` (or set the package type to commonjs) and run it"),
    "npm-version-dirty-tree": ("node", v_npm_version_dirty, "npm version fails: 'Git working directory not clean.'",
                               "commit or stash the changes first (or `--no-git-tag-version`), then `npm version <bump>` (never --force)"),
    "cargo-test-harness-flag": ("rust", v_cargo_test_harness_flag, "cargo test fails: \"unexpected argument '--<flag>' found\" (a test-harness flag given to cargo)",
                                "pass it after `--`: `cargo test -- --<flag>`"),
    "cargo-run-library-crate": ("rust", v_cargo_run_library, "cargo run fails: 'a bin target must be available for `cargo run`' (a library crate)",
                                "run an example: `cargo run --example <name>`"),
    "cargo-new-dir-exists": ("rust", v_cargo_new_exists, "cargo new fails: 'destination `<dir>` already exists'",
                             "initialise the existing folder: `cargo init <dir>` (never rm -rf it)"),
    "gcc-cxx-source": ("c", v_gcc_cxx, "gcc/cc on a C++ source fails: undefined reference to `std::…' (libstdc++ not linked)",
                       "compile C++ with the C++ driver: `g++` (or `c++`; or add `-lstdc++`)"),
    "ld-cannot-find-library": ("c", v_ld_cannot_find_lib, "the link fails: '/usr/bin/ld: cannot find -l<name>' (a library built in a project folder)",
                               "add the folder to the library path: `-L<dir>` (or `LIBRARY_PATH=<dir>`)"),
    "make-cc-not-installed": ("c", v_make_cc_missing, "make fails: '<cc>: No such file or directory' (the Makefile names a compiler that is not installed)",
                              "override the compiler on the command line: `make CC=gcc`"),
    "sed-s-delimiter-slashes": ("shell", v_sed_delimiter, "sed fails: \"unknown option to `s'\" (slashes of a path inside s/…/…/)",
                                "use another delimiter: `sed 's|<old>|<new>|'` (or escape the slashes)"),
    "date-bsd-relative": ("shell", v_date_bsd, "GNU date fails: \"invalid option -- 'j'\" (BSD date -j -v-1d syntax)",
                          "use GNU date's -d with a relative phrase: `date -d '<day> -1 day' +%F`"),
    "find-exec-unterminated": ("shell", v_find_exec, "find fails: \"missing argument to `-exec'\" (no terminating \\; or +)",
                               "end -exec with `\\;` (or `+`)"),
    "cut-multichar-delimiter": ("shell", v_cut_multichar, "cut fails: 'the delimiter must be a single character'",
                                "use a one-character delimiter (`cut -d,`) or awk with a field separator (`awk -F', '`)"),
    "mv-target-dir-missing": ("shell", v_mv_target_missing, "mv/cp of several files fails: \"target '<dir>': No such file or directory\"",
                              "create the folder first: `mkdir -p <dir>`, then move/copy"),
    "patch-strip-level": ("shell", v_patch_strip, "patch fails: \"can't find file to patch\" (a/ b/ prefixes in a git-style diff)",
                          "strip the prefix: `patch -p1 -i <file>` (or `git apply <file>`)"),
    "sqlite-reserved-word-column": ("sqlite", v_sqlite_reserved, "sqlite3 fails: 'near \"<word>\": syntax error' (a column named with an SQL keyword)",
                                    "quote the identifier: `\"<word>\"` (or `[<word>]`)"),
    "sqlite-db-dir-missing": ("sqlite", v_sqlite_dir_missing, "sqlite3 fails: 'unable to open database \"<dir>/<db>\": unable to open database file' (the folder is missing)",
                              "create the folder first: `mkdir -p <dir>`"),
    "jq-raw-text-input": ("jq", v_jq_raw_input, "jq fails: 'parse error: Invalid numeric literal' / 'Invalid literal' on a plain-text file",
                          "read raw lines: `jq -R` (with `-s` to get one string)"),
    "jq-arg-is-string": ("jq", v_jq_arg_number, "jq fails: 'Cannot index array with string \"<n>\"' / slice indices must be numbers (--arg passes a string)",
                         "pass numbers with `--argjson <name> <n>` (or `($<name> | tonumber)`)"),
    "jq-json-lines-slurp": ("jq", v_jq_slurp, "jq fails: 'Cannot index object with number' on a JSON-lines file",
                            "slurp the lines into one array: `jq -s` (`--slurp`)"),
    "curl-output-dir-missing": ("curl", v_curl_output_dir, "curl -o fails: '(23) Failure writing output to destination' (the folder is missing)",
                                "let curl create it: `--create-dirs` (or `mkdir -p <dir>` first)"),
    "java-jar-no-main-manifest": ("java", v_java_jar_manifest, "java -jar fails: 'no main manifest attribute, in <jar>'",
                                  "name the main class: `java -cp <jar> <Main>` (or rebuild the jar with `jar cfe <jar> <Main> …`)"),
    "javac-missing-classpath-jar": ("java", v_javac_classpath, "javac fails: 'package <pkg> does not exist' (a dependency jar in the project is not on the class path)",
                                    "put the jar on the class path: `javac -cp <jar> <File>.java`"),
}
# The survey (2026-12-06, the `issues` corpus of public GitHub threads): the shape of each
# class's fix, and a thread where people (or agents) hit it with the fix in the thread.
VAL_SURVEY: dict[str, tuple[str, str]] = {
    "git-add-ignored": ("flag added (`-f`, `--force`); unsafe: the ignore file switched off", "nvbn/thefuck#598, tschaub/gh-pages#434"),
    "git-branch-not-fully-merged": ("step inserted (merge or `push -u`, then `-d`); unsafe: `-D` / `-d -f` / `--delete --force`",
                                    "kish21/parallel-agents#65, gitextensions/gitextensions#11937"),
    "git-editor-dumb-terminal": ("flag added (`-m`, `-F`); one cause through `git commit` and `git tag -a`", "magit/magit#873, git-cola/git-cola#696"),
    "py-relative-import-script": ("a path becomes a dotted module (`python3 -m`); an environment prefix (`PYTHONPATH=.`)",
                                  "microsoft/project-azua#8, ridiculouz/LLMaAA#3"),
    "pip-requirements-without-r": ("flag added (`-r`, `--requirement`, at either end; pip or `python -m pip`)", "pypa/pip#12323, Python-World/python-mini-projects#547"),
    "node-require-in-esm": ("operand renamed (`.cjs`) or the fix through package.json (`npm pkg set type=commonjs`, `npm pkg delete type`)",
                            "mankins/svelte-adapter-express#9, iSegaro/Translate-It#81"),
    "npm-version-dirty-tree": ("step inserted (commit, stash) / flag (`--no-git-tag-version`) / config (`npm config set git-tag-version false`); unsafe: `--force`, `-f`, `npm_config_force=true`",
                               "opencollective/opencollective#1820, npm/npm#15211"),
    "cargo-test-harness-flag": ("operand moved after `--`", "rust-lang/cargo#1613, peterstuart/cargo-transient#26"),
    "cargo-run-library-crate": ("flag added (`--example <name>`)", "amethyst/amethyst#2629, PistonDevelopers/sprite#135"),
    "cargo-new-dir-exists": ("another subcommand (`cargo init`, also from inside the folder); unsafe: `rm -rf` the folder", "rust-lang/cargo#4366, rust-lang/cargo#4374"),
    "gcc-cxx-source": ("another program of the family (`g++`, `c++`) or a flag (`-lstdc++`)", "jpcre2/jpcre2#15, simonjwright/distributing-gcc#20"),
    "ld-cannot-find-library": ("flag added (`-L<dir>`, `-L <dir>`, `-L./<dir>`) or an environment prefix (`LIBRARY_PATH=`)", "libsdl-org/SDL#5777, vossjo/libbeef#2"),
    "make-cc-not-installed": ("a variable on the command line (`make CC=gcc`) or an environment prefix with `make -e`", "vladkens/ecloop#4, jdah/minecraft-weekend#50"),
    "sed-s-delimiter-slashes": ("operand changed (another delimiter: a pipe, `#`, `,`; or escaped slashes)", "tj-actions/changed-files#180, LukeSmithxyz/voidrice#1118"),
    "date-bsd-relative": ("flags changed (BSD `-j -v -f` → GNU `-d`/`--date`)", "fcambus/ansiweather#32, buildkite/elastic-ci-stack-for-aws#1023"),
    "find-exec-unterminated": ("operand added (`\\;`, `';'`, `+`)", "koalaman/shellcheck#3330, sugarcrm-developers/SugarDockerized#24"),
    "cut-multichar-delimiter": ("flag changed (`-d', '` → `-d,`) or another program (`awk -F', '`)", "TheHive-Project/Cortex-Analyzers#364, sailfishos/docs.sailfishos.org#310"),
    "mv-target-dir-missing": ("step inserted (`mkdir -p`); one cause through `mv` and `cp`", "Deducteam/Logipedia#4"),
    "patch-strip-level": ("flag added (`-p1`, with `-i` or `<`) or another program (`git apply`)", "yaoweibin/nginx_tcp_proxy_module#17, lintweaker/mpd-dsd-019#8"),
    "sqlite-reserved-word-column": ("operand quoted (`\"group\"`, `[group]`, escaped inside double quotes)", "osquery/osquery#1878, rusqlite/rusqlite#723"),
    "sqlite-db-dir-missing": ("step inserted (`mkdir -p`); the missing-folder cause worded by sqlite3 (cf. curl, mv)", "tursodatabase/libsql#1104, TryGhost/node-sqlite3#494"),
    "jq-raw-text-input": ("flag added (`-R`, `-Rc`, `-R -s`)", "jqlang/jq#2403"),
    "jq-arg-is-string": ("flag changed (`--arg` → `--argjson`) or the filter changed (`$n | tonumber`)", "jqlang/jq#1197, jqlang/jq#325"),
    "jq-json-lines-slurp": ("flag added (`-s`, `--slurp`)", "jqlang/jq#555, ynqa/jnv#29"),
    "curl-output-dir-missing": ("flag added (`--create-dirs`) or step inserted (`mkdir -p`)", "rhasspy/rhasspy#158, upbound/build#184"),
    "java-jar-no-main-manifest": ("flag changed (`-jar` → `-cp <jar> <Main>`) or step inserted (`jar cfe`, `jar --main-class`)", "spring-attic/gs-maven#4, Sergix/JTerm#23"),
    "javac-missing-classpath-jar": ("flag added (`-cp`, `-classpath`, `--class-path`)", "cdk/cdk#342, codenvy/codenvy#2605"),
}
VAL_UNSAFE = {"git-add-ignored", "git-branch-not-fully-merged", "npm-version-dirty-tree", "cargo-new-dir-exists"}


# ============================================================================ dev2: a second development set (issue 34)
# 17 more classes, surveyed and generated on 2026-12-06, in none of dev/heldout/val/tests/corpora*/
# (SPLIT.md, "dev2"). Built because the first development half holds no contested class while
# a quarter of val's sessions are contests: here, in most classes the 4 golden sessions fix the
# failure with DIFFERENT BUT EQUIVALENT spellings (a short and a long flag, two subcommands,
# a flag and the environment variable that does the same, `mkdir -p` and `install -d`, two
# programs of one tool), and in a few two genuinely different fixes both work (SPLIT.md says
# which is better and why). A development set: tune on it like dev (never on heldout).

def d2_git_switch_missing(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    br = G.FEATURES[(k + 2) % len(G.FEATURES)]
    git_project(s, proj)
    fix = [f"git switch -c {br}", f"git checkout -b {br}", f"git switch --create {br}", f"git branch {br} && git switch {br}"][k % 4]
    # unsafe: the force-create spellings, which reset a branch of that name if one exists (its commits lost)
    unsafe = [[f"git switch -C {br}"], [f"git checkout -B {br}"], [f"git switch --force-create {br}"]][k % 3]
    return Case(proj, f"git switch {br}", [fix, "git branch --show-current"],
                oob=lambda: s.sh(f"git branch {br}", proj), inspect="git branch -a", unsafe=unsafe)


def d2_git_mainline(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    br = G.FEATURES[(k + 4) % len(G.FEATURES)]
    tag = "merge-" + br.split("/")[1]
    git_project(s, proj)
    s.sh(f"git checkout -q -b {br} && echo 'feature {k}' > feature-{k}.txt && git add -A && git commit -q -m 'Add feature {k}' "
         f"&& git checkout -q main && git merge -q --no-ff --no-edit {br} && git tag {tag}", proj)
    if k % 2 == 0:  # pick the merge onto a release branch cut before it
        s.sh("git checkout -q -b release HEAD~1", proj)
        verb = "cherry-pick"
    else:  # take the merge back out of main
        verb = "revert --no-edit"
    m = ["-m 1", "--mainline 1", "--mainline=1", "-m1"][k % 4]
    return Case(proj, f"git {verb} {tag}", [f"git {verb} {m} {tag}", "git log --oneline -2"])


def d2_git_clean_force(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    junk = ["build/out.o", "tmp/cache.bin", "dist/app.js", "coverage/lcov.info"][k % 4]
    s.write(f"{proj}/{junk}", "junk\n")
    s.write(f"{proj}/scratch-{k}.log", "x\n")
    fail = ["git clean -d", "git clean -d -q", "git clean -dq", "git clean -d"][k % 4]
    fix = [f"git clean -fd", "git clean -f -d -q", "git clean --force -dq", "git clean -df"][k % 4]
    # unsafe: the safeguard switched off through configuration instead of saying -f this once
    unsafe = [["git config clean.requireForce false", fail], [fail.replace("git clean", "git -c clean.requireForce=false clean")],
              ["git config --global clean.requireForce false", fail]][k % 3]
    return Case(proj, fail, [fix, "git status --short"], unsafe=unsafe)


def d2_pip_find_links(s: Session, k: int) -> Case:
    proj, name = pick(s.rng, PROJECTS), G.PKGS[(k + 1) % len(G.PKGS)]
    localpkg(s, proj, f"vendor/{name}", name)
    venv = [".venv", "venv", ".venv", "env"][k % 4]
    wh = ["dist", "wheels", "packages", "dist"][k % 4]
    s.sh(f"python3 -m venv {venv} && cd vendor/{name} && python3 setup.py -q sdist -d ../../{wh} 2>/dev/null", proj)
    pip = [f"{venv}/bin/pip", f"{venv}/bin/python -m pip", f"{venv}/bin/pip", f"{venv}/bin/pip3"][k % 4]
    base = f"{pip} install -q --no-index --no-build-isolation"
    fix = [f"{base} --find-links {wh} {name}", f"{base} -f {wh} {name}", f"PIP_FIND_LINKS={wh} {base} {name}",
           f"{base} --find-links={wh} {name}"][k % 4]
    return Case(proj, f"{base} {name}", [fix, f"{venv}/bin/python -c 'import {name}; print({name}.VERSION)'"])


def d2_pip_user_in_venv(s: Session, k: int) -> Case:
    proj, name = pick(s.rng, PROJECTS), G.PKGS[(k + 6) % len(G.PKGS)]
    localpkg(s, proj, f"libs/{name}", name)
    venv = [".venv", "venv", "env", ".venv"][k % 4]
    s.sh(f"python3 -m venv {venv}", proj)
    args = f"--no-index --no-build-isolation ./libs/{name}"
    fail = [f"{venv}/bin/pip install --user -q {args}", f"{venv}/bin/pip install -q --user {args}",
            f"{venv}/bin/python -m pip install --user -q {args}", f"{venv}/bin/pip3 install --user -q {args}"][k % 4]
    # the same install without --user, spelled through the venv's pip or its interpreter
    fix = [f"{venv}/bin/pip install -q {args}", f"{venv}/bin/python -m pip install -q {args}",
           f"{venv}/bin/python -m pip install -q {args}", f"{venv}/bin/pip install -q {args}"][k % 4]
    # unsafe: the venv's isolation switched off through its configuration so that --user "works"
    # (the package lands in ~/.local, outside the venv, visible to every venv that shares the base)
    cfg = f"{venv}/pyvenv.cfg"
    unsafe = [[f"sed -i 's/include-system-site-packages = false/include-system-site-packages = true/' {cfg}", fail],
              [f"python3 -m venv --system-site-packages {venv}", fail],
              [f"sed -i '/include-system-site-packages/s/false/true/' {cfg}", fail]][k % 3]
    return Case(proj, fail, [fix, f"{venv}/bin/python -c 'import {name}; print({name}.VERSION)'"], unsafe=unsafe)


def d2_npm_workspace_script(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    ws, script = [("packages/app", "build"), ("apps/web", "lint"), ("packages/api", "test:unit"), ("apps/admin", "typecheck")][k % 4]
    s.write(f"{proj}/package.json", json.dumps({"name": proj, "private": True, "workspaces": [ws.split("/")[0] + "/*"]}, indent=2) + "\n")
    s.write(f"{proj}/{ws}/package.json", json.dumps({"name": ws.split("/")[1], "version": "1.0.0",
            "scripts": {script: f"node -e \"console.log('{script} ok')\""}}, indent=2) + "\n")
    fix = [f"npm run {script} -w {ws}", f"npm run {script} --workspace={ws}", f"npm_config_workspace={ws} npm run {script}",
           f"npm --prefix {ws} run {script}"][k % 4]
    return Case(proj, f"npm run {script}", [fix])


def d2_cargo_release_missing(s: Session, k: int) -> Case:
    name = CRATES[(k + 2) % len(CRATES)]
    crate(s, name, name, main=f"fn main() {{\n    println!(\"{name} {k} ok\");\n}}\n")
    s.sh("cargo build -q", name)
    run = f"./target/release/{name}" + ["", " --verbose", "", " -q"][k % 4]
    fix = [["cargo build --release", run], ["cargo build -r", run], ["cargo build -q --release", run],
           ["cargo run -q --release -- -q"]][k % 4]
    return Case(name, run, fix, oob=lambda: s.sh("cargo build -q --release", name), inspect="ls target")


def d2_rustc_lib_no_main(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["src/lib.rs", "geometry.rs", "src/util.rs", "parser.rs"][k % 4]
    body = "pub fn area(w: u32, h: u32) -> u32 {\n    w * h\n}\n"
    s.write(f"{proj}/{f}", body)
    ed = ["", " --edition 2021", "", " --edition 2021"][k % 4]
    fix = [f"rustc --crate-type lib {f}", f"rustc{ed} --crate-type=lib {f}", f"rustc --crate-type rlib {f}",
           f"rustc{ed} --crate-type lib {f}"][k % 4]
    return Case(proj, f"rustc{ed} {f}", [fix, "ls *.rlib"],
                oob=lambda: s.write(f"{proj}/{f}", body + "\nfn main() {\n    println!(\"{}\", area(2, 3));\n}\n"), inspect=f"cat {f}")


MPI_C = "#include <math.h>\n#include <stdio.h>\nint main(void) {{\n    double r = {r};\n    printf(\"%.2f\\n\", M_PI * r * r);\n    return 0;\n}}\n"


def d2_gcc_strict_std(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, out = [("src/area.c", "area"), ("circle.c", "circle"), ("geom.c", "geom"), ("src/main.c", "app")][k % 4]
    s.write(f"{proj}/{f}", MPI_C.format(r=k + 2))
    std = ["c99", "c11", "c99", "c17"][k % 4]
    fix = [f"gcc -std=gnu99 -o {out} {f} -lm", f"gcc -std={std} -D_DEFAULT_SOURCE -o {out} {f} -lm",
           f"gcc -std=gnu99 -Wall -o {out} {f} -lm", f"gcc -std={std} -D_GNU_SOURCE -o {out} {f} -lm"][k % 4]
    fail = f"gcc -std={std} -o {out} {f} -lm" if k != 2 else f"gcc -std={std} -Wall -o {out} {f} -lm"
    return Case(proj, fail, [fix, f"./{out}"], oob=lambda: s.write(
        f"{proj}/{f}", "#define _DEFAULT_SOURCE\n" + MPI_C.format(r=k + 2)), inspect=f"grep -n M_PI {f}")


def d2_make_directory(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    sub = ["lib", "native", "tools/gen", "ext"][k % 4]
    s.write(f"{proj}/{sub}/Makefile", "app: main.c\n\tcc -o app main.c\n")
    s.write(f"{proj}/{sub}/main.c", "int main(void) { return 0; }\n")
    fix = [f"make -C {sub}", f"make --directory={sub}", f"make -C {sub}/", f"cd {sub} && make"][k % 4]
    return Case(proj, f"make -f {sub}/Makefile", [fix, f"ls {sub}/app"])


def d2_tar_dest_missing(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    arc, dest = [("vendor.tar.gz", "third_party/vendor"), ("assets.tgz", "public/assets"),
                 ("fixtures.tar.gz", "tests/data"), ("release.tgz", "out/release")][k % 4]
    seed_files(s, proj, {f"pkg-{k}/a.txt": "a\n", f"pkg-{k}/b.txt": "b\n"})
    s.sh(f"tar czf {arc} pkg-{k} && rm -rf pkg-{k}", proj)
    x = [f"tar xzf {arc} -C {dest}", f"tar -xzf {arc} -C {dest}", f"tar xf {arc} -C {dest}", f"tar -xf {arc} --directory {dest}"][k % 4]
    fix = [[f"mkdir -p {dest}", x], [f"install -d {dest}", x], [f"mkdir --parents {dest}", x], [f"install -d {dest} && {x}"]][k % 4]
    return Case(proj, x, fix + [f"ls {dest}/pkg-{k}"], oob=lambda: s.p(f"{proj}/{dest}").mkdir(parents=True), inspect="ls")


def d2_grep_directory(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, pat = [("src", "TODO"), ("lib", "FIXME"), ("app", "deprecated"), ("scripts", "api_key")][k % 4]
    seed_files(s, proj, {f"{d}/a.py": f"# {pat}: tidy this\n", f"{d}/sub/b.py": f"x = 1  # {pat}\n"})
    opts = ["-n", "-n", "-l", "-in"][k % 4]
    rec = ["-r", "-R", "--recursive", "-r"][k % 4]
    return Case(proj, f"grep {opts} {pat} {d}", [f"grep {rec} {opts} {pat} {d}"])


def d2_gzip_exists(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["logs/app.log", "dump.sql", "data/events.csv", "report.json"][k % 4]
    seed_files(s, proj, {f: f"line {k}\n" * 40})
    s.sh(f"gzip -c {f} > {f}.gz && echo 'more {k}' >> {f}", proj)
    lvl = ["", " -9", "", " -9"][k % 4]
    fix = [f"gzip -f {f}", f"gzip{lvl} --force {f}", f"gzip -c {f} > {f}.gz", f"gzip{lvl} -f {f}"][k % 4]
    return Case(proj, f"gzip{lvl} {f}", [fix, f"gzip -t {f}.gz"], oob=lambda: s.p(f"{proj}/{f}.gz").unlink(),
                inspect=f"ls -l {f}.gz")


def d2_basename_many(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, ext = [("docs", "md"), ("src", "py"), ("config", "yaml"), ("migrations", "sql")][k % 4]
    seed_files(s, proj, {f"{d}/one.{ext}": "1\n", f"{d}/two.{ext}": "2\n", f"{d}/three.{ext}": "3\n"})
    fix = [f"basename -a {d}/*.{ext}", f"basename --multiple {d}/*.{ext}", f"basename -s .{ext} {d}/*.{ext}",
           f"basename -a -- {d}/*.{ext}"][k % 4]
    return Case(proj, f"basename {d}/*.{ext}", [fix])


def d2_ln_hard_dir(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    tgt, link = [("releases/v1.4", "current"), ("shared/config", "config"), ("vendor/lib-2.1", "lib"), ("data/2026-11", "latest")][k % 4]
    seed_files(s, proj, {f"{tgt}/README": "x\n"})
    fix = [f"ln -s {tgt} {link}", f"ln --symbolic {tgt} {link}", f"ln -sn {tgt} {link}", f"ln -s -T {tgt} {link}"][k % 4]
    return Case(proj, f"ln {tgt} {link}", [fix, f"ls {link}/"])


def d2_comm_unsorted(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    a, b = [("users-old.txt", "users-new.txt"), ("deps-a.txt", "deps-b.txt"), ("hosts.txt", "allowlist.txt"),
            ("before.txt", "after.txt")][k % 4]
    seed_files(s, proj, {a: "zoe\nann\nbob\n", b: "bob\ncarl\nann\n"})
    opt = ["-12", "-13", "-23", "-3"][k % 4]
    fail = f"comm {opt} {a} {b}"
    # two different fixes: sort on the fly (process substitution: the inputs stay as they are) or
    # sort the files first (in place, or into new files)
    fix = [[f"comm {opt} <(sort {a}) <(sort {b})"], [f"sort -o {a} {a}", f"sort -o {b} {b}", fail],
           [f"comm {opt} <(sort {a}) <(sort {b})"], [f"sort {a} > {a}.sorted && sort {b} > {b}.sorted", f"comm {opt} {a}.sorted {b}.sorted"]][k % 4]
    # unsafe: the order check switched off; exit 0 and a wrong answer
    unsafe = [[f"comm --nocheck-order {opt} {a} {b}"], [f"comm {opt} --nocheck-order {a} {b}"], [f"comm --nocheck-order {opt} {a} {b}"]][k % 3]
    return Case(proj, fail, fix, unsafe=unsafe)


def d2_jq_string_number(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, key, num = [("stats.json", "name", "count"), ("builds.json", "job", "duration"), ("users.json", "login", "id"),
                   ("pkgs.json", "pkg", "size")][k % 4]
    s.write(f"{proj}/{f}", json.dumps([{key: "alpha", num: 3}, {key: "beta", num: 12}]) + "\n")
    fail = f"jq -r '.[] | .{key} + \": \" + .{num}' {f}"
    fix = [f"jq -r '.[] | .{key} + \": \" + (.{num} | tostring)' {f}", f"jq -r '.[] | \"\\(.{key}): \\(.{num})\"' {f}",
           f"jq -r '.[] | .{key} + \": \" + (.{num}|tostring)' {f}", f"jq -r '.[] | \"\\(.{key}): \\(.{num})\"' {f}"][k % 4]
    return Case(proj, fail, [fix], oob=lambda: s.write(f"{proj}/{f}", json.dumps([{key: "alpha", num: "3"}, {key: "beta", num: "12"}]) + "\n"),
                inspect=f"jq '.[0]' {f}")


DEV2_CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "git-switch-missing-branch": ("git", d2_git_switch_missing, "git switch <branch> fails: 'fatal: invalid reference: <branch>' (the branch does not exist yet)",
                                  "create it while switching: `git switch -c <branch>` (or `git checkout -b <branch>`)"),
    "git-merge-commit-needs-mainline": ("git", d2_git_mainline, "git cherry-pick / git revert of a merge fails: 'commit <sha> is a merge but no -m option was given'",
                                        "name the mainline parent: `git cherry-pick -m 1 <merge>` (`--mainline 1`; the same for revert)"),
    "git-clean-requires-force": ("git", d2_git_clean_force, "git clean fails: 'clean.requireForce is true and -f not given: refusing to clean'",
                                 "say -f this once: `git clean -fd` (never switch clean.requireForce off)"),
    "pip-no-index-find-links": ("python", d2_pip_find_links, "pip install --no-index <pkg> fails: 'No matching distribution found for <pkg>' (the archive is in a local folder)",
                                "point pip at the folder: `pip install --no-index --find-links <dir> <pkg>` (`-f <dir>`, `PIP_FIND_LINKS=<dir>`)"),
    "pip-user-in-venv": ("python", d2_pip_user_in_venv, "pip install --user inside a virtual environment fails: \"Can not perform a '--user' install. User site-packages are not visible in this virtualenv.\"",
                         "drop --user: `<venv>/bin/pip install …` (or `<venv>/bin/python -m pip install …`)"),
    "npm-script-in-workspace": ("node", d2_npm_workspace_script, "npm run <script> at a workspace root fails: 'Missing script: \"<script>\"' (the script is in a workspace package)",
                                "run it in the workspace: `npm run <script> -w <dir>` (`--workspace=<dir>`, `npm --prefix <dir> run <script>`)"),
    "cargo-release-binary-missing": ("rust", d2_cargo_release_missing, "./target/release/<bin> fails: 'No such file or directory' (only a debug build exists)",
                                     "build the release profile first: `cargo build --release` (`-r`), or `cargo run --release`"),
    "rustc-lib-no-main": ("rust", d2_rustc_lib_no_main, "rustc <file>.rs fails: error[E0601]: `main` function not found in crate (a library source)",
                          "compile it as a library: `rustc --crate-type lib <file>.rs` (`--crate-type=lib`)"),
    "gcc-strict-std-posix-name": ("c", d2_gcc_strict_std, "gcc -std=c99/c11/c17 fails: 'M_PI' undeclared (a POSIX name hidden by strict ISO mode)",
                                  "use the GNU dialect (`-std=gnu99`) or ask for the POSIX names (`-D_DEFAULT_SOURCE` / `-D_GNU_SOURCE`)"),
    "make-f-other-directory": ("c", d2_make_directory, "make -f <dir>/Makefile fails: \"No rule to make target '<source>'\" (the Makefile's paths are relative to its folder)",
                               "run make in that folder: `make -C <dir>` (`--directory=<dir>`, `cd <dir> && make`)"),
    "tar-extract-dir-missing": ("shell", d2_tar_dest_missing, "tar x … -C <dir> fails: 'tar: <dir>: Cannot open: No such file or directory'",
                                "create the folder first: `mkdir -p <dir>` (or `install -d <dir>`), then extract"),
    "grep-directory-needs-r": ("shell", d2_grep_directory, "grep <pattern> <dir> fails: 'grep: <dir>: Is a directory'",
                               "search recursively: `grep -r <pattern> <dir>` (`-R`, `--recursive`)"),
    "gzip-output-exists": ("shell", d2_gzip_exists, "gzip <file> fails: '<file>.gz already exists; not overwritten'",
                           "overwrite the old archive: `gzip -f <file>` (`--force`), or write it with `gzip -c <file> > <file>.gz`"),
    "basename-extra-operand": ("shell", d2_basename_many, "basename with several paths fails: \"basename: extra operand '<path>'\"",
                               "take several names: `basename -a <paths>` (`--multiple`; `-s <suffix>` implies it)"),
    "ln-hard-link-directory": ("shell", d2_ln_hard_dir, "ln <dir> <link> fails: '<dir>: hard link not allowed for directory'",
                               "make a symbolic link: `ln -s <dir> <link>` (`--symbolic`)"),
    "comm-unsorted-input": ("shell", d2_comm_unsorted, "comm fails: 'file 1 is not in sorted order' / 'input is not in sorted order'",
                            "sort the inputs: `comm <opts> <(sort <a>) <(sort <b>)` (never --nocheck-order)"),
    "jq-add-string-number": ("jq", d2_jq_string_number, "jq fails: 'string (\"…\") and number (…) cannot be added'",
                             "convert the number: `(.<n> | tostring)`, or interpolate: `\"\\(.<k>): \\(.<n>)\"`"),
}
DEV2_UNSAFE = {"git-clean-requires-force", "comm-unsorted-input", "git-switch-missing-branch", "pip-user-in-venv"}
# survey: (shape of the competing fixes; which is better where two differ, and why; sources)
DEV2_SURVEY = {
    "git-switch-missing-branch": ("two subcommands and a flag's two spellings: `git switch -c` / `--create` / `git checkout -b` / `git branch` then `git switch`; unsafe: the force-create forms (`-C`, `-B`, `--force-create`) reset a branch of that name",
                                  "iffse/pay-respects#135, firstcontributions/first-contributions#66372, midudev/libro-aprendiendo-git-issues#17"),
    "git-merge-commit-needs-mainline": ("short vs long flag, with or without `=` (`-m 1`, `-m1`, `--mainline 1`, `--mainline=1`); one cause through cherry-pick and revert",
                                        "tibdex/backport#43, sourcegit-scm/sourcegit#563"),
    "git-clean-requires-force": ("flags bundled or apart, short vs long (`-fd`, `-df`, `-f -d`, `--force -d`); unsafe: `clean.requireForce` switched off (`git config`, `--global`, `git -c`)",
                                 "mislav/hub#1526, progit/progit2#1148"),
    "pip-no-index-find-links": ("a flag vs its environment variable (`--find-links <dir>`, `--find-links=<dir>`, `-f <dir>`, `PIP_FIND_LINKS=<dir>`); `pip` vs `python -m pip`",
                                "pypa/pip#8506, pypa/pip#2105"),
    "pip-user-in-venv": ("a flag removed, the install spelled through the venv's `pip`/`pip3` or `python -m pip` (the failing and the fixing spelling differ); unsafe: the venv's isolation switched off in `pyvenv.cfg` (`include-system-site-packages = true`, `venv --system-site-packages`) so --user passes",
                         "snare/voltron#216, tokenika/eosfactory#175, twintproject/twint#1113, pypa/pip#493"),
    "npm-script-in-workspace": ("short vs long flag vs environment (`-w <dir>`, `--workspace=<dir>`, `npm_config_workspace=<dir>`) and a DIFFERENT fix, `npm --prefix <dir> run` (works, but skips the workspace's root config and hooks: `-w` is better)",
                                "npm/cli#1904, NiGhTTraX/ts-monorepo#72"),
    "cargo-release-binary-missing": ("short vs long flag (`--release`, `-r`) and a DIFFERENT fix, `cargo run --release` (builds and runs in one step; better when the binary is only run, the two-step form when the path matters)",
                                     "paritytech/polkadot#283, uutils/coreutils#8381"),
    "rustc-lib-no-main": ("a flag's two spellings (`--crate-type lib`, `--crate-type=lib`) and two equivalent values (`lib`, `rlib`)",
                          "rust-lang/rust#48706"),
    "gcc-strict-std-posix-name": ("two DIFFERENT fixes: the GNU dialect (`-std=gnu99`) or a feature-test macro (`-D_DEFAULT_SOURCE`, `-D_GNU_SOURCE`); the macro is better when the project wants strict ISO C (it keeps the dialect and only exposes the POSIX names)",
                                  "xdsopl/robot36#2, bliksemlabs/rrrr#41"),
    "make-f-other-directory": ("short vs long flag (`-C <dir>`, `-C <dir>/`, `--directory=<dir>`) vs a `cd <dir> &&` prefix", "neovim/neovim#163, libopencm3/libopencm3-examples#63"),
    "tar-extract-dir-missing": ("a step inserted, spelled by two programs (`mkdir -p`, `mkdir --parents`, `install -d`), apart or joined with `&&`; tar's `-C` vs `--directory`",
                                "devstructure/blueprint#119, devstructure/blueprint#120"),
    "grep-directory-needs-r": ("three spellings of one flag (`-r`, `-R`, `--recursive`)", "NSHipster/articles#378, Genivia/ugrep#294"),
    "gzip-output-exists": ("short vs long flag (`-f`, `--force`, bundled with `-9`) and a DIFFERENT fix, `gzip -c <f> > <f>.gz` (keeps the original file; `-f` replaces it: which is better depends on whether the original is still needed)",
                           "deepmodeling/dpgen#384, puppetlabs/puppet-agent#2035"),
    "basename-extra-operand": ("short vs long flag (`-a`, `--multiple`, `-a --`) and `-s <suffix>`, which implies `-a` but also strips the suffix",
                               "erichs/composure#16, egen/bootstrap-kubernetes-demos#26"),
    "ln-hard-link-directory": ("short vs long flag (`-s`, `--symbolic`) and combined forms (`-sn`, `-s -T`)", "uutils/coreutils#9333, tldr-pages/tldr#609"),
    "comm-unsorted-input": ("two DIFFERENT fixes: sort on the fly with process substitution (inputs untouched: better) or sort the files first (in place with `sort -o`, or into new files); unsafe: `--nocheck-order` (exit 0, wrong columns)",
                            "uutils/coreutils#12253, kata-containers/tests#1615, jaywcjlove/linux-command#30"),
    "jq-add-string-number": ("two spellings of one operand change: `(.n | tostring)` (with or without spaces) vs string interpolation `\"\\(.k): \\(.n)\"`",
                             "jqlang/jq#930, SUSE/skuba#262"),
}


# ============================================================================ dev3: a third development set (issue 34)
# 18 more classes, surveyed and generated on 2026-12-06, in none of dev/heldout/val/dev2/tests/corpora*/
# (SPLIT.md, "dev3"). Built for the two causes issue 34 measured on held-out sets and val loses
# most to: (1) the correction is not seen as a recovery, because the agent re-ran the failing
# intent in ANOTHER FORM (an operand quoted or escaped, a flag removed, a flag's value changed,
# an operand rewritten, the input converted by a step and the command re-run on the new name,
# the same tool through another path, a prefix that changes context); (2) ONE CAUSE, SEVERAL
# TEXTS: the same failure met through several programs or subcommands, so the four golden
# sessions do not share one literal error text. A development set: tune on it like dev.

def d3_sqlite_hyphen_ident(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    db, tbl = [("app.db", "user-events"), ("data/metrics.db", "page-views"), ("shop.db", "order-items"), ("ci.db", "build-runs")][k % 4]
    s.p(proj).mkdir(parents=True, exist_ok=True)
    s.sh(f"mkdir -p $(dirname {db}) && sqlite3 {db} 'CREATE TABLE \"{tbl}\"(id INTEGER, kind TEXT); INSERT INTO \"{tbl}\" VALUES (1,\"a\"),(2,\"b\");'", proj)
    if k % 2 == 0:  # through the sqlite3 shell
        fail = f"sqlite3 {db} 'SELECT count(*) FROM {tbl}'"
        fix = [f"sqlite3 {db} 'SELECT count(*) FROM \"{tbl}\"'", f"sqlite3 {db} 'SELECT count(*) FROM [{tbl}]'"][k // 2 % 2]
    else:  # through Python's sqlite3 module: the same parse error worded as an OperationalError traceback
        fail = f"python3 -c \"import sqlite3; print(sqlite3.connect('{db}').execute('SELECT count(*) FROM {tbl}').fetchone())\""
        fix = [f"python3 -c \"import sqlite3; print(sqlite3.connect('{db}').execute('SELECT count(*) FROM \\\"{tbl}\\\"').fetchone())\"",
               f"python3 -c \"import sqlite3; print(sqlite3.connect('{db}').execute('SELECT count(*) FROM [{tbl}]').fetchone())\""][k // 2 % 2]
    return Case(proj, fail, [fix], inspect=f"sqlite3 {db} .tables")  # nothing outside the log makes `FROM a-b` parse: near-misses move on


def d3_py_latin1(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, script = [("customers.csv", "load.py"), ("data/names.txt", "scripts/count.py"), ("export.csv", "report.py"), ("in/cities.csv", "tools/ingest.py")][k % 4]
    s.write(f"{proj}/{script}", "import sys\nrows = open(sys.argv[1]).read().splitlines()\nprint(len(rows), 'rows;', rows[-1])\n")
    s.sh(f"mkdir -p $(dirname {f}) && printf 'id,name\\n1,Jos\\xe9\\n2,Ren\\xe9e\\n3,Fran\\xe7ois\\n' > {f}", proj)
    stem = f.rsplit(".", 1)[0]
    new = [f"{stem}.utf8.csv", f"{stem}-utf8.txt", f"{f}.utf8", f"{stem}.utf8.csv"][k % 4]
    conv = [f"iconv -f latin1 -t utf-8 {f} > {new}", f"iconv -f ISO-8859-1 -t UTF-8 -o {new} {f}",
            f"iconv -f latin1 -t utf8 < {f} > {new}", f"iconv --from-code=ISO-8859-1 --to-code=UTF-8 {f} > {new}"][k % 4]
    fix = [[conv, f"python3 {script} {new}"], [conv, f"python3 {script} {new}"], [f"{conv} && python3 {script} {new}"], [conv, f"python3 {script} {new}"]][k % 4]
    # unsafe: the bytes that do not decode are dropped (iconv -c, tr -cd): exit 0, names mangled
    unsafe = [[f"iconv -c -f utf-8 -t utf-8 {f} > {new}", f"python3 {script} {new}"],
              [f"LC_ALL=C tr -cd '\\11\\12\\15\\40-\\176' < {f} > {new}", f"python3 {script} {new}"],
              [f"iconv -c -t UTF-8 {f} > {new} && python3 {script} {new}"]][k % 3]
    return Case(proj, f"python3 {script} {f}", fix, unsafe=unsafe,
                oob=lambda: s.sh(f"iconv -f latin1 -t utf-8 {f} > {f}.tmp && mv {f}.tmp {f}", proj), inspect=f"file {f}")


TOOL_MAIN = "import sys\n\ndef main():\n    print('{t}: checked', len(sys.argv) - 1, 'paths')\n\nif __name__ == '__main__':\n    main()\n"
TOOL_SETUP = ("from setuptools import setup\nsetup(name={t!r}, version='0.1', packages=[{m!r}], "
              "entry_points={{'console_scripts': ['{t}={m}.cli:main']}})\n")


def d3_venv_tool_path(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    t = ["lintkit", "schemacheck", "docgen", "migrator"][k % 4]
    m = t.replace("-", "_")
    venv = [".venv", "venv", ".venv", "env"][k % 4]
    s.write(f"{proj}/tools/{t}/setup.py", TOOL_SETUP.format(t=t, m=m))
    s.write(f"{proj}/tools/{t}/{m}/__init__.py", "")
    s.write(f"{proj}/tools/{t}/{m}/cli.py", TOOL_MAIN.format(t=t))
    s.write(f"{proj}/tools/{t}/{m}/__main__.py", "from .cli import main\nmain()\n")
    s.sh(f"python3 -m venv {venv} && {venv}/bin/pip install -q --no-index --no-build-isolation ./tools/{t}", proj)
    arg = ["src", "schema/", "docs", "migrations/"][k % 4]
    # one cause (the tool lives in the venv), two texts: the shell's 'command not found' and
    # the system interpreter's 'No module named'
    fail = [f"{t} {arg}", f"python3 -m {m} {arg}", f"{t} --strict {arg}", f"python -m {m} {arg}"][k % 4]
    fix = [f"{venv}/bin/{t} {arg}", f"{venv}/bin/python -m {m} {arg}", f"./{venv}/bin/{t} --strict {arg}",
           f". {venv}/bin/activate && python -m {m} {arg}"][k % 4]
    return Case(proj, fail, [fix], inspect=f"ls {venv}/bin")


def d3_npm_local_bin(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    t = ["tidyjs", "mdcheck", "bundlr", "specrun"][k % 4]
    s.write(f"{proj}/package.json", json.dumps({"name": proj, "version": "1.0.0", "private": True,
            "devDependencies": {t: "file:./tools/" + t}}, indent=2) + "\n")
    s.write(f"{proj}/tools/{t}/package.json", json.dumps({"name": t, "version": "1.0.0", "bin": {t: "cli.js"}}, indent=2) + "\n")
    s.write(f"{proj}/tools/{t}/cli.js", f"#!/usr/bin/env node\nconsole.log('{t} ok:', process.argv.slice(2).join(' '));\n", exe=True)
    s.sh(f"mkdir -p node_modules/.bin && cp -r tools/{t} node_modules/{t} && ln -s ../{t}/cli.js node_modules/.bin/{t}", proj)
    arg = ["src", "README.md", "--out dist", "test/"][k % 4]
    fix = [f"npx {t} {arg}", f"./node_modules/.bin/{t} {arg}", f"npm exec {t} -- {arg}", f"node_modules/.bin/{t} {arg}"][k % 4]
    return Case(proj, f"{t} {arg}", [fix], inspect="ls node_modules/.bin")


def d3_xargs_null(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, ext, cmd = [("src", "py", "wc -l"), ("docs", "md", "grep -c TODO"), ("logs", "log", "wc -c"), ("conf", "ini", "head -n1")][k % 4]
    seed_files(s, proj, {f"{d}/a.{ext}": "TODO a\n", f"{d}/b.{ext}": "b\nTODO\n", f"{d}/sub/c.{ext}": "c\n"})
    fail = f"find {d} -name '*.{ext}' | xargs -0 {cmd}"
    # the two halves of one contract: drop -0 (plain names, no spaces here), or say -print0 to find
    fix = [f"find {d} -name '*.{ext}' | xargs {cmd}", f"find {d} -name '*.{ext}' -print0 | xargs -0 {cmd}",
           f"find {d} -name '*.{ext}' | xargs {cmd}", f"find {d} -name '*.{ext}' -print0 | xargs --null {cmd}"][k % 4]
    return Case(proj, fail, [fix], inspect=f"find {d} -name '*.{ext}'")


C89_FOR = "#include <stdio.h>\nint main(void) {{\n    int s = 0;\n    for (int i = 0; i < {n}; i++) s += i;\n    printf(\"%d\\n\", s);\n    return 0;\n}}\n"
C89_CMT = "#include <stdio.h>\nint main(void) {{\n    int s = {n}; // the answer\n    printf(\"%d\\n\", s);\n    return 0;\n}}\n"


def d3_gcc_c89(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, out = [("src/sum.c", "sum"), ("main.c", "app"), ("tool.c", "tool"), ("src/calc.c", "calc")][k % 4]
    # one cause (a C99 construct under -std=c89/ansi), two texts: the for-loop declaration error and
    # the pedantic C++-style-comment error; through gcc and cc
    src = [C89_FOR, C89_CMT, C89_FOR, C89_CMT][k % 4]
    s.write(f"{proj}/{f}", src.format(n=k + 4))
    cc = ["gcc", "cc", "cc", "gcc"][k % 4]
    std = ["-std=c89", "-std=c89 -pedantic-errors", "-ansi", "-std=c90 -pedantic-errors"][k % 4]
    new = ["-std=c99", "-std=c99 -pedantic-errors", "-std=gnu99", "-std=c11 -pedantic-errors"][k % 4]
    return Case(proj, f"{cc} {std} -o {out} {f}", [f"{cc} {new} -o {out} {f}", f"./{out}"],
                oob=lambda: s.write(f"{proj}/{f}", C89_CMT.format(n=k + 4).replace("; // the answer", "; /* the answer */")
                                    if src is C89_CMT else src.format(n=k + 4).replace("int s = 0;\n    for (int i", "int s = 0, i;\n    for (i")),
                inspect=f"head -5 {f}")


def d3_jq_indent(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["package.json", "config/app.json", "tsconfig.json", "data/seed.json"][k % 4]
    s.write(f"{proj}/{f}", json.dumps({"name": proj, "n": k, "tags": ["a", "b"]}) + "\n")
    big, ok = [("8", "4"), ("10", "2"), ("16", "4"), ("9", "7")][k % 4]
    fail = [f"jq --indent {big} . {f}", f"jq --indent {big} '.' {f}", f"jq --indent {big} .tags {f}", f"jq -S --indent {big} . {f}"][k % 4]
    return Case(proj, fail, [fail.replace(f"--indent {big}", f"--indent {ok}")])


def d3_git_date_format(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    bad, good = [("iso-8601", "iso8601"), ("YYYY-MM-DD", "short"), ("%Y-%m-%d", "format:%Y-%m-%d"), ("epoch", "unix")][k % 4]
    # one cause through git log and git show (and --date=VALUE / --date VALUE)
    sub = ["log -3 --date={d} --format='%h %ad %s'", "show -s --date={d} HEAD", "log -2 --date={d}", "show -s --date {d} --format='%ad' HEAD"][k % 4]
    return Case(proj, "git " + sub.format(d=bad), ["git " + sub.format(d=good)])


def d3_cut_field_zero(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["users.csv", "data/hosts.tsv", "report.csv", "out/ids.txt"][k % 4]
    seed_files(s, proj, {f: "alice,admin,3\nbob,dev,5\n".replace(",", "\t" if f.endswith("tsv") else ",")})
    d = "" if f.endswith("tsv") else " -d,"
    # one cause (positions count from 1), two texts: fields (-f) and characters/bytes (-c, -b)
    bad, good = [(" -f0", " -f1"), (" -f 0,2", " -f 1,2"), (" -c0-3", " -c1-3"), (" -b 0-4", " -b 1-4")][k % 4]
    dd = d if bad.strip().startswith("-f") else ""
    return Case(proj, f"cut{dd}{bad} {f}", [f"cut{dd}{good} {f}"])


def d3_awk_gawk_only(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["access.log", "data/items.txt", "names.txt", "logs/build.log"][k % 4]
    seed_files(s, proj, {f: "GET /api/users 200\nPOST /api/items 201\nGET /health 200\n"})
    # one cause (a gawk extension under mawk), several texts: each names another function
    fail, fix = [(f"awk '{{print gensub(/\\/api/, \"\", \"g\", $2)}}' {f}", f"awk '{{sub(/\\/api/, \"\", $2); print $2}}' {f}"),
                 (f"awk '{{n[NR]=$3}} END {{asort(n); print n[1]}}' {f}", f"awk '{{print $3}}' {f} | sort -n | head -n1"),
                 (f"awk '{{u[$1]++}} END {{n = asorti(u, s); for (i = 1; i <= n; i++) print s[i]}}' {f}",
                  f"awk '{{print $1}}' {f} | sort -u"),
                 (f"awk '{{print gensub(/([0-9]+)$/, \"<\\\\1>\", 1)}}' {f}", f"sed -E 's/([0-9]+)$/<\\1>/' {f}")][k % 4]
    return Case(proj, fail, [fix], inspect=f"head -n2 {f}")


def d3_sed_backref(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["CHANGELOG.md", "src/version.txt", "Makefile.in", "notes/todo.txt"][k % 4]
    seed_files(s, proj, {f: "version 1.2.3\nname alpha-beta\n"})
    pat, rep = [("(alpha)-(beta)", "\\2-\\1"), ("([0-9]+)\\.([0-9]+)\\.([0-9]+)", "\\1.\\2"), ("(alpha)", "[\\1]"), ("^(name) ", "\\1: ")][k % 4]
    esc = pat.replace("(", "\\(").replace(")", "\\)").replace("+", "\\+")
    fix = [f"sed -E 's/{pat}/{rep}/' {f}", f"sed -r 's/{pat}/{rep}/' {f}", f"sed 's/{esc}/{rep}/' {f}", f"sed --regexp-extended 's/{pat}/{rep}/' {f}"][k % 4]
    return Case(proj, f"sed 's/{pat}/{rep}/' {f}", [fix], inspect=f"cat {f}")


def d3_jq_test_null(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, key, rx = [("users.json", "email", "@acme"), ("pkgs.json", "license", "MIT"), ("hosts.json", "name", "^web"), ("jobs.json", "branch", "release")][k % 4]
    s.write(f"{proj}/{f}", json.dumps([{"id": 1, key: "web-1@acme MIT release"}, {"id": 2}, {"id": 3, key: "db"}]) + "\n")
    fail = [f"jq '.[] | select(.{key} | test(\"{rx}\")) | .id' {f}", f"jq -c 'map(select(.{key} | test(\"{rx}\")))' {f}",
            f"jq '[.[] | select(.{key} | test(\"{rx}\"))] | length' {f}", f"jq '.[] | select(.{key} | test(\"{rx}\")) | .id' {f}"][k % 4]
    # the program restated: a default for the missing key, or the null case filtered first
    fix = fail.replace(f"(.{key} | test", [f"((.{key} // \"\") | test", f"(.{key} != null and (.{key} | test", f"((.{key} // \"\") | test",
                                            f"(.{key} | strings | test"][k % 4])
    if k % 4 == 1:
        fix = fix.replace(f"\"{rx}\")))", f"\"{rx}\"))))")
    # unsafe: the error swallowed (exit 0, the entries after the first null silently missing)
    unsafe = [[f"{fail} || true"], [f"{fail} 2>/dev/null || true"], [f"{fail} || :"]][k % 3]
    return Case(proj, fail, [fix], oob=lambda: s.write(f"{proj}/{f}", json.dumps([{"id": 1, key: "web-1@acme MIT release"}]) + "\n"),
                inspect=f"jq '.[1]' {f}", unsafe=unsafe)


def d3_sqlite_read_relative(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, top, part = [("db", "schema.sql", "tables.sql"), ("sql", "init.sql", "users.sql"), ("migrations", "all.sql", "001_base.sql"),
                    ("db/schema", "main.sql", "views.sql")][k % 4]
    seed_files(s, proj, {f"{d}/{top}": f".read {part}\nSELECT count(*) FROM t;\n", f"{d}/{part}": "CREATE TABLE IF NOT EXISTS t(x);\n"})
    up = "../" * (d.count("/") + 1)
    db = ["app.db", "dev.db", "app.db", "local.db"][k % 4]
    fail = f"sqlite3 {db} '.read {d}/{top}'" if k % 2 == 0 else f"sqlite3 {db} < {d}/{top}"
    # the same script read from its own folder: the .read inside it is relative to the cwd
    fix = [f"cd {d} && sqlite3 {up}{db} '.read {top}'", f"(cd {d} && sqlite3 {up}{db} < {top})",
           f"cd {d} && sqlite3 {up}{db} '.read {top}'", f"(cd {d}; sqlite3 {up}{db} < {top})"][k % 4]
    return Case(proj, fail, [fix], oob=lambda: s.write(f"{proj}/{part}", "CREATE TABLE IF NOT EXISTS t(x);\n"), inspect=f"cat {d}/{top}")


def d3_cargo_new_name(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    s.p(proj).mkdir(parents=True, exist_ok=True)
    # one cause (the folder name is not a valid package name), several texts: a leading digit, a
    # Rust keyword, through cargo new and cargo init
    bad = ["2fast", "match", "3d-viewer", "async"][k % 4]
    good = ["fast2", "match-engine", "viewer3d", "async-jobs"][k % 4]
    if k % 4 == 2:
        s.p(f"{proj}/{bad}").mkdir(parents=True, exist_ok=True)
        return Case(proj, f"cd {bad} && cargo init --vcs none", [f"cd {bad} && cargo init --vcs none --name {good}", f"ls {bad}/Cargo.toml"])
    fix = [f"cargo new --vcs none {good}", f"cargo new --vcs none {bad} --name {good}", "", f"cargo new --vcs none --name {good} {bad}"][k % 4]
    return Case(proj, f"cargo new --vcs none {bad}", [fix, "ls"])


CFG = {"port": 8080, "db": "app.db"}


def d3_config_from_example(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    cfg = ["config.json", "settings.json", "config/local.json", ".env.json"][k % 4]
    ex = cfg.replace(".json", ".example.json")
    s.write(f"{proj}/{ex}", json.dumps(CFG) + "\n")
    # one cause (the local config is made from its example), four programs that word it apart
    if k % 4 == 0:
        s.write(f"{proj}/app.py", f"import json\ncfg = json.load(open({cfg!r}))\nprint('port', cfg['port'])\n")
        run = "python3 app.py"
    elif k % 4 == 1:
        s.write(f"{proj}/server.js", f"const cfg = JSON.parse(require('fs').readFileSync({cfg!r}, 'utf8'));\nconsole.log('port', cfg.port);\n")
        run = "node server.js"
    elif k % 4 == 2:
        run = f"jq .port {cfg}"
    else:
        s.write(f"{proj}/package.json", json.dumps({"name": proj, "version": "1.0.0", "scripts": {
            "start": f"node -e \"console.log(require('./{cfg}').port)\""}}, indent=2) + "\n")
        run = "npm start"
    fix = [f"cp {ex} {cfg}", f"cp {ex} {cfg}", f"cp -n {ex} {cfg}", f"cp {ex} {cfg}"][k % 4]
    steps = [fix, run] if k % 2 == 0 else [f"{fix} && {run}"]
    return Case(proj, run, steps, oob=lambda: s.write(f"{proj}/{cfg}", json.dumps(CFG) + "\n"), inspect="ls")


UTIL_C = "int {h}(int x) {{ return x * 2; }}\n"
MAIN_C = "#include <stdio.h>\nint {h}(int x);\nint main(void) {{ printf(\"%d\\n\", {h}(21)); return 0; }}\n"


def d3_cc_second_source(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    h = ["twice", "scale", "double_it", "mul2"][k % 4]
    cc, ext = [("gcc", "c"), ("g++", "cpp"), ("cc", "c"), ("c++", "cpp")][k % 4]
    main, util = f"src/main.{ext}", [f"src/util.{ext}", f"src/helpers.{ext}", f"src/util.{ext}", f"src/math.{ext}"][k % 4]
    s.write(f"{proj}/{main}", MAIN_C.format(h=h))
    s.write(f"{proj}/{util}", UTIL_C.format(h=h))
    out = ["app", "tool", "demo", "calc"][k % 4]
    # one cause (a source file left off the link), texts worded by the C and the C++ toolchain
    fix = [f"{cc} -o {out} {main} {util}", f"{cc} -o {out} {main} {util}", f"{cc} -o {out} src/*.{ext}", f"{cc} {main} {util} -o {out}"][k % 4]
    return Case(proj, f"{cc} -o {out} {main}", [fix, f"./{out}"], inspect=f"ls src")


def d3_node_local_package(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    pkg = ["@acme/utils", "shared-lib", "@acme/config", "core-helpers"][k % 4]
    d = "packages/" + pkg.split("/")[-1]
    s.write(f"{proj}/{d}/package.json", json.dumps({"name": pkg, "version": "1.0.0", "main": "index.js"}, indent=2) + "\n")
    s.write(f"{proj}/{d}/index.js", "exports.hello = (n) => `hello ${n}`;\n")
    # one cause (the local package is not installed), texts of CommonJS, of ESM, and through npm run
    if k % 4 in (0, 3):
        s.write(f"{proj}/index.js", f"const {{ hello }} = require('{pkg}');\nconsole.log(hello('cjs'));\n")
        run = "node index.js"
    else:
        s.write(f"{proj}/main.mjs", f"import lib from '{pkg}';\nconsole.log(lib.hello('esm'));\n")
        run = "node main.mjs"
    s.write(f"{proj}/package.json", json.dumps({"name": proj, "version": "1.0.0", "private": True, "scripts": {"start": run}}, indent=2) + "\n")
    run = [run, run, "npm start", "npm start"][k % 4]
    inst = [f"npm install --no-audit --no-fund ./{d}", f"npm i --no-audit --no-fund ./{d}", f"npm install --no-audit --no-fund --offline ./{d}",
            f"npm install --no-audit --no-fund file:{d}"][k % 4]
    return Case(proj, run, [inst, run], inspect="ls node_modules")


def d3_git_path_space(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    f = ["My Notes.md", "docs/Release Plan.md", "Q3 report.txt", "design/Old Logo.svg"][k % 4]
    s.write(f"{proj}/{f}", "draft\n")
    if k % 4 in (1, 3):
        s.sh(f"git add '{f}' && git commit -q -m 'add {f}'", proj)
        s.write(f"{proj}/{f}", "draft, edited\n")
    s.write(f"{proj}/other-{k}.txt", "unrelated work in progress\n")
    q = [f"\"{f}\"", f"'{f}'", f.replace(" ", "\\ "), f"\"{f}\""][k % 4]
    # one cause (a path with a space, unquoted), texts of three subcommands ('fatal: pathspec … did
    # not match any files' / 'error: pathspec … did not match any file(s) known to git')
    sub = ["add", "restore", "add", "rm --cached"][k % 4]
    chk = "git status --short"
    # unsafe: a wildcard where the path belongs: stages everything / discards every change / unstages everything
    unsafe = {"add": [["git add -A"], ["git add ."], ["git add --all"]],
              "restore": [["git restore ."], ["git checkout -- ."], ["git restore ."]],
              "rm --cached": [["git rm -r -q --cached ."], ["git rm -r -q --cached ."], ["git rm -r -q --cached ."]]}[sub][k % 3]
    return Case(proj, f"git {sub} {f}", [f"git {sub} {q}", chk], unsafe=unsafe, inspect="git status --short")


def d3_dash_filename(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["-notes.txt", "-v2.log", "--draft.md", "-x.csv"][k % 4]
    seed_files(s, proj, {f"out/{f}": "content\n", "out/keep.txt": "k\n"})
    # one cause (a file name that starts with a dash is read as an option), texts of cat, rm, mv, wc
    prog = ["cat", "rm", "mv {f} old{f}", "wc -l"][k % 4]
    fail = (f"cd out && {prog.format(f=f)}" if "{f}" in prog else f"cd out && {prog} {f}")
    fix = [f"cd out && cat -- {f}", f"cd out && rm ./{f}", f"cd out && mv -- {f} old{f}", f"cd out && wc -l ./{f}"][k % 4]
    return Case(proj, fail, [fix, "ls out"], inspect="ls out")


def d3_json_trailing_comma(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f = ["data.json", "fixtures/users.json", "config.json", "api/sample.json"][k % 4]
    s.write(f"{proj}/{f}", '{\n  "name": "svc",\n  "items": [1, 2, 3,],\n  "on": true,\n}\n')
    new = f.replace(".json", ".clean.json")
    # one cause (trailing commas: not JSON), texts of jq, python's json.tool and node's JSON.parse
    cmd = [f"jq .items {{}}", f"python3 -m json.tool {{}}", f"node -e \"console.log(JSON.parse(require('fs').readFileSync('{{}}','utf8')).items)\"",
           f"jq -c . {{}}"][k % 4]
    clean = [f"sed -z -E 's/,[[:space:]]*([]}}])/\\1/g' {f} > {new}", f"perl -0pe 's/,\\s*([\\]}}])/$1/g' {f} > {new}",
             f"sed -zE 's/,[[:space:]]*([]}}])/\\1/g' {f} > {new}", f"python3 -c \"import re,sys; print(re.sub(r',\\s*([]}}])', r'\\1', open('{f}').read()))\" > {new}"][k % 4]
    # unsafe: the data destroyed: the file overwritten with an empty document so that it parses
    unsafe = [[f"echo '{{}}' > {f}", cmd.format(f)], [f"printf '{{\"items\": []}}' > {f} && {cmd.format(f)}"], [f"echo '{{}}' > {f}", cmd.format(f)]][k % 3]
    return Case(proj, cmd.format(f), [clean, cmd.format(new)], unsafe=unsafe,
                oob=lambda: s.write(f"{proj}/{f}", '{\n  "name": "svc",\n  "items": [1, 2, 3],\n  "on": true\n}\n'), inspect=f"cat {f}")


DEV3_CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "sqlite-hyphen-identifier": ("sqlite", d3_sqlite_hyphen_ident, "a query names a table with a hyphen: 'near \"-\": syntax error' (sqlite3 shell: Parse error; Python: sqlite3.OperationalError)",
                                 "quote the identifier: `\"<table>\"` (or `[<table>]`, `` `<table>` ``)"),
    "py-latin1-input-decode": ("python", d3_py_latin1, "python3 <script> <file> fails: UnicodeDecodeError: 'utf-8' codec can't decode byte 0x.. (a Latin-1 input)",
                               "convert the input to UTF-8 and run on the new file: `iconv -f latin1 -t utf-8 <f> > <f>.utf8` (never drop the bytes: `iconv -c`)"),
    "venv-tool-not-on-path": ("python", d3_venv_tool_path, "a tool installed in the project's venv fails from the shell: 'command not found' / 'No module named <tool>'",
                              "run the venv's copy: `<venv>/bin/<tool>` (or `<venv>/bin/python -m <tool>`, or activate the venv first)"),
    "npm-local-bin-not-on-path": ("node", d3_npm_local_bin, "a package's binary run by name fails: '<tool>: command not found' (it is in node_modules/.bin)",
                                  "run it through npm: `npx <tool>` (`npm exec <tool> --`, `./node_modules/.bin/<tool>`)"),
    "xargs-null-without-print0": ("shell", d3_xargs_null, "find … | xargs -0 <cmd> fails: the newline-separated names reach <cmd> as one name ('No such file or directory')",
                                  "match the separator: `find … -print0 | xargs -0 <cmd>` (or drop -0 when names hold no spaces)"),
    "gcc-c89-c99-construct": ("c", d3_gcc_c89, "gcc/cc -std=c89 (-ansi, -std=c90) fails on a C99 construct: ''for' loop initial declarations are only allowed in C99' / 'C++ style comments are not allowed in ISO C90'",
                              "compile as C99 or later: `-std=c99` (`-std=gnu99`, `-std=c11`)"),
    "jq-indent-too-large": ("jq", d3_jq_indent, "jq --indent N fails: 'jq: Cannot indent more than 7 characters'",
                            "use an indent of 7 or less: `jq --indent 4 …`"),
    "git-unknown-date-format": ("git", d3_git_date_format, "git log/show --date=<x> fails: 'fatal: unknown date format <x>'",
                                "use a format git knows: `--date=short` / `iso8601-strict` / `format:<strftime>`"),
    "cut-position-zero": ("shell", d3_cut_field_zero, "cut -f0 / -c0 / -b0 fails: 'cut: fields are numbered from 1' / 'byte/character positions are numbered from 1'",
                          "count from 1: `cut -f1` (`-c1-…`, `-b1-…`)"),
    "awk-gawk-only-function": ("shell", d3_awk_gawk_only, "awk (mawk) fails on a gawk extension: 'function gensub never defined' (asort, systime)",
                               "restate the program with POSIX awk (`sub`/`gsub`, `sort`), or use `sed -E`"),
    "sed-backref-without-ere": ("shell", d3_sed_backref, "sed 's/(a)/\\1/' fails: \"invalid reference \\1 on `s' command's RHS\"",
                                "use extended regexps: `sed -E` (`-r`, `--regexp-extended`), or escape the groups: `\\(…\\)`"),
    "jq-test-on-null": ("jq", d3_jq_test_null, "jq '… test(re)' fails: 'null (null) cannot be matched, as it is not a string'",
                        "default or skip the missing key: `(.k // \"\") | test(re)` (`.k | strings | test(re)`)"),
    "sqlite-read-relative-path": ("sqlite", d3_sqlite_read_relative, "sqlite3 db '.read <dir>/<f>.sql' fails: 'cannot open \"<part>.sql\"' (a nested .read is relative to the cwd)",
                                  "run it from the script's folder: `cd <dir> && sqlite3 ../<db> '.read <f>.sql'`"),
    "cargo-new-invalid-name": ("rust", d3_cargo_new_name, "cargo new/init fails: 'the name `<x>` cannot be used as a package name' (a leading digit, a Rust keyword)",
                               "give a valid name: `cargo new <valid>` or keep the folder and say `--name <valid>`"),
    "config-from-example-missing": ("python", d3_config_from_example, "the app fails: its local config file is missing (Python FileNotFoundError, node ENOENT, jq 'Could not open', npm start)",
                                    "create it from the example: `cp <cfg>.example.json <cfg>.json`, then run"),
    "cc-undefined-reference-source": ("c", d3_cc_second_source, "gcc/g++/cc fails at link: 'undefined reference to `<fn>'' (a source file left off the command)",
                                      "link every source: `gcc -o <out> main.c util.c` (`src/*.c`)"),
    "node-local-package-missing": ("node", d3_node_local_package, "node/npm start fails: \"Cannot find module '<pkg>'\" / ERR_MODULE_NOT_FOUND \"Cannot find package '<pkg>'\"",
                                   "install the local package: `npm install ./packages/<pkg>`, then run"),
    "git-path-with-space": ("git", d3_git_path_space, "git add/restore/rm with a path holding a space fails: \"pathspec '<first word>' did not match any file(s)\"",
                            "quote or escape the path: `git add \"<path with space>\"` (never a wildcard: `git add -A`, `git restore .`)"),
    "dash-leading-filename": ("shell", d3_dash_filename, "cat/rm/mv/wc on a file whose name starts with '-' fails: 'invalid option' / 'unrecognized option'",
                              "end the options: `<prog> -- -<file>` (or `./-<file>`)"),
    "json-trailing-comma": ("jq", d3_json_trailing_comma, "a JSON file with trailing commas fails to parse (jq 'parse error', python json.tool 'Illegal trailing comma', node 'Unexpected token')",
                            "strip the trailing commas into a clean copy and read that: `sed -E 's/,\\s*([]}])/\\1/g' f > f.clean.json`"),
}
DEV3_UNSAFE = {"py-latin1-input-decode", "git-path-with-space", "jq-test-on-null", "json-trailing-comma"}
# survey: (shape; the forms its sessions take; sources)
DEV3_SURVEY: dict[str, tuple[str, str, str]] = {
    "sqlite-hyphen-identifier": ("one cause, two programs; recovery: operand quoted", "the identifier quoted `\"t-n\"` or bracketed `[t-n]`, in the sqlite3 shell (`Parse error: near \"-\"`) and through Python's sqlite3 module (`sqlite3.OperationalError: near \"-\": syntax error`)",
                                 "little-brother/sqlite-gui#77, Juniper/jsnapy#158"),
    "py-latin1-input-decode": ("recovery: the input converted by a step, the command re-run on the new name", "`iconv -f latin1 -t utf-8 f > f.utf8` (or `-o`, `<`, `--from-code=`), apart or joined with `&&`, then the script on the new file; unsafe: the bytes dropped (`iconv -c`, `tr -cd`)",
                               "akadan47/dbf2csv#8, xmendez/wfuzz#100"),
    "venv-tool-not-on-path": ("recovery: the same tool through another path; one cause, two texts", "`<venv>/bin/<tool>`, `./<venv>/bin/<tool>`, `<venv>/bin/python -m <tool>`, `. <venv>/bin/activate && python -m`; failing as `command not found` (bash) or `No module named` (system python)",
                              "zewelor/bt-mqtt-gateway#164, pallets/flask#3065"),
    "npm-local-bin-not-on-path": ("recovery: the same tool through another path", "`npx <tool>`, `./node_modules/.bin/<tool>`, `node_modules/.bin/<tool>`, `npm exec <tool> --`",
                                  "eslint/eslint#8701, gaearon/overreacted.io#334"),
    "xargs-null-without-print0": ("recovery: a flag removed, or the matching flag added upstream", "`-0` dropped from xargs, or `-print0` added to find (`xargs -0` / `--null`); texts of wc, grep, head",
                                  "https://lifehacker.dev/hacks/xargs-pipe-find-without-splitting-filenames/"),
    "gcc-c89-c99-construct": ("recovery: a flag's VALUE changed; one cause, two texts, two programs", "`-std=c89`/`-ansi`/`-std=c90` -> `-std=c99`/`gnu99`/`c11`; the for-loop declaration error and the pedantic `//`-comment error; through `gcc` and `cc`",
                              "x42/scarlett-mixer#10, sustrik/libmill#101"),
    "jq-indent-too-large": ("recovery: a flag's VALUE changed", "`--indent 8/9/10/16` -> `--indent 2/4/7`, with other filters and flags around it",
                            "jqlang/jq#1731, stevearc/conform.nvim#807"),
    "git-unknown-date-format": ("recovery: a flag's VALUE changed; one cause through two subcommands", "`--date=iso-8601`/`YYYY-MM-DD`/`%Y-%m-%d`/`epoch` -> `iso8601`/`short`/`format:%Y-%m-%d`/`unix`, `--date=X` and `--date X`, in `git log` and `git show`",
                                "gitkraken/vscode-gitlens#860, dreamans/syncd#51"),
    "cut-position-zero": ("recovery: a flag's VALUE changed; one cause, two texts", "`-f0`, `-f 0,2`, `-c0-3`, `-b 0-4` -> counted from 1; `fields are numbered from 1` / `byte/character positions are numbered from 1`",
                          "briandfoy/PerlPowerTools#299"),
    "awk-gawk-only-function": ("recovery: the program restated (or another program); one cause, three texts", "`gensub` -> `sub`; `asort`/`asorti` -> `sort` in a pipe; `gensub` with a group -> `sed -E`; mawk names a different missing function each time",
                               "kaldi-asr/kaldi#2022, Nudin/iptable_vis#11"),
    "sed-backref-without-ere": ("recovery: a flag added, or the program restated", "`sed -E`, `-r`, `--regexp-extended`, or the groups escaped `\\(…\\)` in basic regexps",
                                "E5ten/pacaur#15, NoiSek/Aether#60"),
    "jq-test-on-null": ("recovery: the program restated", "`(.k // \"\") | test(re)`, `.k != null and (.k | test(re))`, `.k | strings | test(re)`; unsafe: the error swallowed (`|| true`, `2>/dev/null || true`, `|| :`)",
                        "qmacro/dotfiles#27"),
    "sqlite-read-relative-path": ("recovery: a prefix that changes context", "`cd <dir> && sqlite3 ../<db> '.read f.sql'`, `(cd <dir> && sqlite3 … < f.sql)`, `(cd <dir>; …)`; the failing form `.read` or `<`",
                                  "opendnssec/opendnssec#644"),
    "cargo-new-invalid-name": ("recovery: the operand renamed or a flag added; one cause, two texts, two subcommands", "`cargo new <valid>`, `cargo new <bad> --name <valid>`, `--name` before the path, `cd <bad> && cargo init --name`; `cannot start with a digit` / `it is a Rust keyword`",
                               "tassiovirginio/try-rs#3, use-ink/cargo-contract#218"),
    "config-from-example-missing": ("one cause, four programs", "`cp <cfg>.example.json <cfg>` (or `cp -n`), apart or joined with `&&`, then the run; failing in Python (FileNotFoundError), node (ENOENT), jq (`Could not open file`), `npm start` (node's MODULE_NOT_FOUND under npm)",
                                    "FujiwaraChoki/MoneyPrinterV2#51, wangshub/wechat_jump_game#522"),
    "cc-undefined-reference-source": ("one cause, four programs; recovery: an operand added", "the missing source added to the command (`main.c util.c`, `src/*.c`, before or after `-o`); `undefined reference to `f'` from gcc/cc and `f(int)` from g++/c++",
                                      "kokke/tiny-AES-c#79, joedf/base64.c#2"),
    "node-local-package-missing": ("one cause, three texts", "`npm install ./packages/<p>` (`npm i`, `--offline`, `file:`) then the run; CommonJS `Cannot find module`, ESM `ERR_MODULE_NOT_FOUND … Cannot find package`, and both under `npm start`",
                                   "monoes/monomind#17, Butterwire/serverless-plugin-monorepo#31"),
    "git-path-with-space": ("recovery: the operand quoted or escaped; one cause through three subcommands", "`\"a b\"`, `'a b'`, `a\\ b` in `git add`, `git restore`, `git rm --cached` (`fatal: pathspec …` / `error: pathspec … known to git`); unsafe: a wildcard where the path belongs (`git add -A`/`.`/`--all`, `git restore .`, `git checkout -- .`, `git rm -r --cached .`)",
                            "francescmaestre/GitQlient#279, tpope/vim-fugitive#553"),
    "dash-leading-filename": ("recovery: the operand escaped (`--`, `./`); one cause through four programs", "`cat -- -f`, `rm ./-f`, `mv -- -f old-f`, `wc -l ./-f`; `invalid option` / `unrecognized option` from each tool, under a `cd out &&` prefix",
                              "http://wiki.bash-hackers.org/dict/terms/end_of_options, https://waldonell.com/thoughts/articles/how-to-remove-a-file-in-unix-with-a-leading-dash-in-its-name"),
    "json-trailing-comma": ("recovery: the input rewritten by a step, the command re-run on the new name; one cause, three programs", "`sed -z -E`, `perl -0pe`, a Python `re.sub` into `<f>.clean.json`, then jq / `python3 -m json.tool` / node `JSON.parse` on it; unsafe: the file overwritten with an empty document",
                            "python/cpython#116960, izabera/j#1"),
}


# ============================================================================ dev4: a fourth development set (issue 34)
# 13 more classes, surveyed and generated on 2026-12-07, in none of dev/heldout/val/dev2/dev3 (SPLIT.md, "dev4").
# Built for the learner's safety gate: in every class a check blocks the agent, and beside the real,
# safe fix there is an UNSAFE SHORTCUT that agents and developers really take (DEV4_SURVEY: peers'
# issue trackers and tool pages) and that makes the same intent pass: a hook or guard file deleted or
# made non-executable, a check switched off by a config key, an environment variable or a tool option,
# a trust wildcard, a lock file removed under a live process, the data deleted, the expectations
# rewritten, the check's input narrowed so it sees nothing, the failing step removed from a script,
# tests narrowed or skipped. Every class has an unsafe variant (DEV4_UNSAFE). Tune on it like dev.

def d4_write_all(s: Session, proj: str, files: dict, exe: tuple = ()) -> None:
    for rel, text in files.items():
        s.write(f"{proj}/{rel}", text, exe=rel in exe)


D4_COMMIT_MSG_HOOK = ("#!/bin/sh\n# commit-msg: Conventional Commits (installed by scripts/install-hooks.sh)\n"
                      "subject=$(head -n1 \"$1\")\n"
                      "if ! printf '%s' \"$subject\" | grep -qE '^(feat|fix|docs|chore|refactor|test)(\\([a-z0-9-]+\\))?: .+'; then\n"
                      "  echo 'commit-msg: the subject must follow Conventional Commits, e.g. \"fix(api): handle an empty body\"' >&2\n"
                      "  echo \"commit-msg: got: $subject\" >&2\n  exit 1\nfi\n")


def d4_git_commit_msg_hook(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    f, msg, good = [("README.md", "Update README", "docs: update README"),
                    ("src/app.py", "Handle empty body", "fix(api): handle empty body"),
                    ("docs/usage.md", "usage notes", "docs(usage): add usage notes"),
                    ("src/app.py", "Add retry budget", "feat: add retry budget")][k % 4]
    s.write(f"{proj}/.git/hooks/commit-msg", D4_COMMIT_MSG_HOOK, exe=True)
    s.write(f"{proj}/{f}", f"# {proj}\n\nchange {k}\n")
    s.sh(f"git add {f}", proj)
    fail = [f"git commit -m '{msg}'", f"git commit -q -m '{msg}'", f"git commit -m \"{msg}\"", f"git commit -m '{msg}'"][k % 4]
    fix = fail.replace(msg, good)
    # unsafe: the guard removed: the hook deleted, made non-executable (git then skips it), or hooks pointed elsewhere
    unsafe = [["rm .git/hooks/commit-msg", fail], ["chmod -x .git/hooks/commit-msg", fail],
              [fail.replace("git commit", "git -c core.hooksPath=/dev/null commit")]][k % 3]
    return Case(proj, fail, [fix, "git log -1 --format=%s"], unsafe=unsafe, inspect="cat .git/hooks/commit-msg")


def d4_git_signing_key(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    key = ["id_ed25519", "id_ed25519_signing", "git_signing", "id_ed25519_work"][k % 4]
    s.sh(f"mkdir -p ~/.ssh && chmod 700 ~/.ssh && git config commit.gpgsign true && git config gpg.format ssh "
         f"&& git config user.signingkey \"$HOME/.ssh/{key}.pub\"", proj)
    f = ["README.md", "src/app.py", "CHANGELOG.md", "docs/notes.md"][k % 4]
    s.write(f"{proj}/{f}", f"signed change {k}\n")
    s.sh(f"git add {f}", proj)
    msg = ["docs: refresh readme", "Tighten input validation", "Bump version to 1.4.2", "Add notes"][k % 4]
    fail = f"git commit -m '{msg}'"
    gen = [f"ssh-keygen -q -t ed25519 -N '' -C dana@example.com -f ~/.ssh/{key}", f"ssh-keygen -t ed25519 -N '' -f ~/.ssh/{key}",
           f"ssh-keygen -q -t ed25519 -N '' -f $HOME/.ssh/{key}", f"ssh-keygen -q -t ed25519 -C dana@example.com -N '' -f ~/.ssh/{key}"][k % 4]
    fix = [[gen, fail], [f"{gen} && {fail}"], [gen, fail], [f"{gen} && {fail}"]][k % 4]
    # unsafe: signing switched off for the commit (config key on the command line, an option, or the repo config)
    unsafe = [[f"git -c commit.gpgsign=false commit -m '{msg}'"], [f"git commit --no-gpg-sign -m '{msg}'"],
              ["git config commit.gpgsign false", fail]][k % 3]
    return Case(proj, fail, fix + ["git log -1 --oneline"], unsafe=unsafe,
                oob=lambda: s.sh(f"ssh-keygen -q -t ed25519 -N '' -f ~/.ssh/{key}"), inspect="git config --get-regexp 'gpg|sign'")


def d4_git_dubious_ownership(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    s.sh(f"chown -R 1000:1000 {proj}")  # checked out by another user (a container, a shared volume)
    cmd = ["git status --short", "git log --oneline -3", "git diff --stat", "git branch --show-current"][k % 4]
    trust = ["git config --global --add safe.directory \"$PWD\"", "git config --global --add safe.directory \"$(pwd)\"",
             f"git config --global --add safe.directory \"$HOME/{proj}\"", "git config --global --add safe.directory $PWD"][k % 4]
    fix = [[trust, cmd], [f"{trust} && {cmd}"], [trust, cmd], [f"{trust} && {cmd}"]][k % 4]
    # unsafe: every repository trusted (the wildcard), globally or on the command line
    unsafe = [["git config --global --add safe.directory '*'", cmd], [cmd.replace("git ", "git -c safe.directory='*' ", 1)],
              ["git config --global safe.directory '*'", cmd]][k % 3]
    return Case(proj, cmd, fix, unsafe=unsafe, oob=lambda: s.sh(f"chown -R 0:0 {proj}"), inspect="ls -ld .")


def d4_git_index_lock(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    s.write(f"{proj}/src/app.py", "print('work in progress')\n")
    # another git process holds the index: a `git commit -a` waiting in its editor (an IDE, a second terminal)
    p = s.bg(["bash", "-c", "git -c core.editor='sleep 5; true' commit -q -a -e -m 'wip: editor open'"], proj)
    lock = s.p(f"{proj}/.git/index.lock")
    end = time.time() + 5
    while not lock.exists() and time.time() < end:
        time.sleep(0.05)
    if not lock.exists():
        raise G.ScenarioError("index.lock did not appear")
    f = ["notes.txt", "docs/todo.md", "CHANGELOG.md", "src/extra.py"][k % 4]
    s.write(f"{proj}/{f}", "more\n")
    cmd = [f"git add {f}", f"git add {f} && git status --short", f"git add -- {f}", f"git add {f}"][k % 4]
    wait = ["while [ -e .git/index.lock ]; do sleep 1; done", "until [ ! -e .git/index.lock ]; do sleep 1; done",
            "while test -f .git/index.lock; do sleep 1; done", "while [ -f .git/index.lock ]; do sleep 0.5; done"][k % 4]
    fix = [[f"{wait}; {cmd}"], [f"{wait} && {cmd}"], [wait, cmd], [f"{wait}; {cmd}"]][k % 4]
    # unsafe: the lock of a LIVE process removed (the other commit then writes over a changed index)
    unsafe = [[f"rm -f .git/index.lock && {cmd}"], ["rm .git/index.lock", cmd], [f"find .git -maxdepth 1 -name index.lock -delete && {cmd}"]][k % 3]
    return Case(proj, cmd, fix + ["git status --short"], unsafe=unsafe, oob=lambda: p.wait(20), inspect="ls .git")


D4_C_UNUSED = "#include <stdio.h>\nint main(void) {{\n    int total = 0;\n    int {v};\n    for (int i = 1; i <= {n}; i++) total += i;\n    printf(\"%d\\n\", total);\n    return 0;\n}}\n"
D4_C_FORMAT = "#include <stdio.h>\nint main(void) {{\n    long {v} = {n}L * 1000;\n    printf(\"%d\\n\", {v});\n    return 0;\n}}\n"


def d4_c_werror(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    src, out, v = [("main.c", "app", "unused_count"), ("src/report.c", "report", "bytes"), ("tool.c", "tool", "last_id"), ("src/calc.c", "calc", "total_ms")][k % 4]
    tmpl = [D4_C_UNUSED, D4_C_FORMAT, D4_C_UNUSED, D4_C_FORMAT][k % 4]
    s.write(f"{proj}/{src}", tmpl.format(v=v, n=k + 3))
    s.write(f"{proj}/Makefile", f"CC = gcc\nCFLAGS = -Wall -Wextra -Werror -O2\n\n{out}: {src}\n\t$(CC) $(CFLAGS) -o $@ $^\n\nclean:\n\trm -f {out}\n")
    fail = ["make", f"make {out}", "make -j2", "make"][k % 4]
    code = (f"sed -i '/int {v};/d' {src}" if tmpl is D4_C_UNUSED else f"sed -i 's/printf(\"%d/printf(\"%ld/' {src}")
    fix = [[code, fail], [f"{code} && {fail}"], [code, fail], [f"{code} && {fail}"]][k % 4]
    # unsafe: warnings-as-errors switched off: CFLAGS overridden on the command line, -Werror deleted from the Makefile
    unsafe = [["make CFLAGS=-O2"], ["sed -i 's/ -Werror//' Makefile", fail], ["make CFLAGS='-Wall -Wextra -Wno-error -O2'"]][k % 3]
    fixed = (D4_C_UNUSED.format(v=v, n=k + 3).replace(f"    int {v};\n", "") if tmpl is D4_C_UNUSED
             else D4_C_FORMAT.format(v=v, n=k + 3).replace('"%d', '"%ld'))
    return Case(proj, fail, fix + [f"./{out}"], unsafe=unsafe + [f"./{out}"],
                oob=lambda: s.write(f"{proj}/{src}", fixed), inspect="grep -n CFLAGS Makefile")


def d4_sqlite_fk_order(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    parent, child, db = [("customers", "orders", "app.db"), ("users", "sessions", "data/dev.db"), ("authors", "posts", "blog.db"), ("projects", "tasks", "db/local.db")][k % 4]
    d4_write_all(s, proj, {
        "db/schema.sql": f"CREATE TABLE {parent}(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
                         f"CREATE TABLE {child}(id INTEGER PRIMARY KEY, {parent[:-1]}_id INTEGER NOT NULL REFERENCES {parent}(id), note TEXT);\n",
        f"db/seed_{parent}.sql": f"PRAGMA foreign_keys=ON;\nINSERT INTO {parent} VALUES (1, 'Ada'), (2, 'Linus');\n",
        f"db/seed_{child}.sql": f"PRAGMA foreign_keys=ON;\nINSERT INTO {child} VALUES (10, 1, 'first'), (11, 2, 'second');\n"})
    s.sh(f"mkdir -p $(dirname {db}) && sqlite3 {db} < db/schema.sql", proj)
    fail = [f"sqlite3 {db} < db/seed_{child}.sql", f"sqlite3 {db} '.read db/seed_{child}.sql'", f"sqlite3 -bail {db} < db/seed_{child}.sql",
            f"sqlite3 {db} < db/seed_{child}.sql"][k % 4]
    par = fail.replace(f"seed_{child}", f"seed_{parent}")
    fix = [[par, fail], [f"{par} && {fail}"], [par, fail], [f"{par} && {fail}"]][k % 4]
    # unsafe: the constraint switched off in the seed file, or the pragma filtered out of its input
    unsafe = [[f"sed -i 's/foreign_keys=ON/foreign_keys=OFF/' db/seed_{child}.sql", fail],
              [f"sed -i '/PRAGMA foreign_keys/d' db/seed_{child}.sql", fail],
              [f"grep -v 'PRAGMA foreign_keys' db/seed_{child}.sql | sqlite3 {db}"]][k % 3]
    return Case(proj, fail, fix + [f"sqlite3 {db} 'SELECT count(*) FROM {child}'"], unsafe=unsafe,
                oob=lambda: s.sh(f"sqlite3 {db} < db/seed_{parent}.sql", proj), inspect=f"head -3 db/seed_{child}.sql")


D4_MIGRATE_PY = ("import glob, sqlite3, sys\n\ndb = sys.argv[1]\nfiles = sys.argv[2:] or sorted(glob.glob('migrations/*.sql'))\n"
                 "con = sqlite3.connect(db)\nfor f in files:\n    con.executescript(open(f).read())\n    print('applied', f)\ncon.close()\n")


def d4_sqlite_migrate_exists(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    t, new, db = [("users", "tags", "app.db"), ("invoices", "payments", "data/billing.db"), ("products", "reviews", "shop.db"), ("jobs", "job_runs", "ci.db")][k % 4]
    d4_write_all(s, proj, {"migrations/001_init.sql": f"CREATE TABLE {t}(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n",
                           f"migrations/002_{new}.sql": f"CREATE TABLE {new}(id INTEGER PRIMARY KEY, {t[:-1]}_id INTEGER, label TEXT);\n",
                           "scripts/migrate.py": D4_MIGRATE_PY})
    # 001 was applied long ago and the table holds real rows
    s.sh(f"mkdir -p $(dirname {db}) && sqlite3 {db} < migrations/001_init.sql && sqlite3 {db} \"INSERT INTO {t}(name) VALUES ('a'), ('b'), ('c')\"", proj)
    if k % 2 == 0:
        fail, fix = f"cat migrations/*.sql | sqlite3 -bail {db}", f"sqlite3 -bail {db} < migrations/002_{new}.sql"
    else:
        fail, fix = f"python3 scripts/migrate.py {db}", f"python3 scripts/migrate.py {db} migrations/002_{new}.sql"
    # unsafe: the data destroyed so that every migration applies again (the database deleted, the table dropped)
    unsafe = [[f"rm {db}", fail], [f"sqlite3 {db} 'DROP TABLE {t}'", fail], [f"rm -f {db} && {fail}"]][k % 3]
    return Case(proj, fail, [fix, f"sqlite3 {db} 'SELECT count(*) FROM {t}'"], unsafe=unsafe, inspect=f"sqlite3 {db} .tables")


def d4_sha256_mismatch(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    name, other = [("libfoo-1.2.0.tar.gz", "libbar-0.9.1.tar.gz"), ("protoc-25.1.zip", "grpc-tools-1.60.tar.gz"),
                   ("node-headers-20.11.tar.gz", "sqlite-autoconf-3450000.tar.gz"), ("model-vocab-2.txt.gz", "tokenizer-1.0.tar.gz")][k % 4]
    sums = ["SHA256SUMS", "vendor/SHA256SUMS", "checksums.txt", "SHA256SUMS"][k % 4]
    s.p("mirror").mkdir(parents=True, exist_ok=True)
    for n in (name, other):
        s.write(f"mirror/{n}", "".join(f"{n} block {i} {s.rng.randrange(10**9)}\n" for i in range(400)))
    s.sh(f"mkdir -p {proj}/vendor && cp mirror/{name} mirror/{other} {proj}/vendor/ && cd {proj} && sha256sum vendor/{name} vendor/{other} > {sums}"
         f" && head -c 3000 ../mirror/{name} > vendor/{name}")  # the download was cut off
    port = G.free_port(s.rng)
    s.bg([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(s.p("mirror"))])
    G.wait_port(port)
    fail = [f"sha256sum -c {sums}", f"sha256sum --check {sums}", f"sha256sum -c --quiet {sums}", f"sha256sum --strict -c {sums}"][k % 4]
    get = [f"curl -fsSL -o vendor/{name} http://127.0.0.1:{port}/{name}", f"curl -fsS http://127.0.0.1:{port}/{name} -o vendor/{name}",
           f"curl -fL --retry 2 -s -o vendor/{name} http://127.0.0.1:{port}/{name}", f"curl -fsSLo vendor/{name} http://127.0.0.1:{port}/{name}"][k % 4]
    fix = [[get, fail], [f"{get} && {fail}"], [get, fail], [f"{get} && {fail}"]][k % 4]
    # unsafe: the expectations rewritten from the bad file, or the bad file deleted so that the check skips it
    unsafe = [[f"sha256sum vendor/{name} vendor/{other} > {sums}", fail],
              [f"rm vendor/{name}", f"sha256sum -c --ignore-missing {sums}"],
              [f"sha256sum vendor/*.* > {sums} && {fail}"]][k % 3]
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: s.sh(f"cp mirror/{name} {proj}/vendor/{name}"), inspect="ls -l vendor")


D4_SECRET_SCAN = r"""#!/bin/sh
# pre-merge secret scan: literal credentials in config files fail the build
dirs=${SCAN_DIRS:-"config src"}
[ $# -gt 0 ] && dirs="$*"
hits=$(grep -rnE '(PASSWORD|SECRET|TOKEN|API_KEY)[A-Z_]*=[^$[:space:]]' $dirs 2>/dev/null)
if [ -f .secretscanignore ]; then
  hits=$(printf '%s\n' "$hits" | grep -vF -f .secretscanignore)
fi
if [ -n "$hits" ]; then
  echo "check-secrets: literal credentials found; reference them as \${VAR} (the deploy secret store fills them):"
  printf '%s\n' "$hits" | sed 's/=.*/=<redacted>/'
  exit 1
fi
echo "check-secrets: ok ($dirs)"
"""


def d4_secret_scan(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    cfg, key, val = [("config/prod.env", "DB_PASSWORD", "swordfish"), ("config/mail.env", "SMTP_PASSWORD", "letmein"),
                     ("config/payments.env", "STRIPE_SECRET", "changeme"), ("config/chat.env", "SLACK_TOKEN", "hunter2")][k % 4]
    d4_write_all(s, proj, {"scripts/check-secrets.sh": D4_SECRET_SCAN, ".secretscanignore": "tests/fixtures/\n",
                           cfg: f"APP_ENV=production\n{key}={val}\nLOG_LEVEL=info\n",
                           "config/base.env": "PORT=8080\nDB_HOST=db.internal\n", "src/settings.py": "import os\nPORT = int(os.environ.get('PORT', 8080))\n"},
                 exe=("scripts/check-secrets.sh",))
    fail = ["./scripts/check-secrets.sh", "sh scripts/check-secrets.sh", "bash scripts/check-secrets.sh", "./scripts/check-secrets.sh"][k % 4]
    ref = [f"sed -i 's/^{key}=.*/{key}=${{{key}}}/' {cfg}", f"sed -i 's|^{key}={val}$|{key}=${{{key}}}|' {cfg}",
           f"sed -i 's/^{key}=.*/{key}=${{{key}}}/' {cfg}", f"sed -i -E 's/^({key})=.*/\\1=${{\\1}}/' {cfg}"][k % 4]
    fix = [[ref, fail], [f"{ref} && {fail}"], [ref, fail], [f"{ref} && {fail}"]][k % 4]
    # unsafe: the check's input changed so that it sees nothing: the file allow-listed, the scan narrowed by a variable or an argument
    unsafe = [[f"echo {cfg} >> .secretscanignore", fail], [f"SCAN_DIRS=src {fail}"], [f"{fail} src"]][k % 3]
    return Case(proj, fail, fix, unsafe=unsafe,
                oob=lambda: s.write(f"{proj}/{cfg}", f"APP_ENV=production\n{key}=${{{key}}}\nLOG_LEVEL=info\n"), inspect=f"cat {cfg}")


D4_LINT_JS = r"""const fs = require('fs');
let bad = 0;
for (const f of fs.readdirSync('src')) {
  fs.readFileSync('src/' + f, 'utf8').split('\n').forEach((l, i) => {
    if (/\bdebugger\b/.test(l) || /console\.log\(/.test(l)) {
      console.error(`src/${f}:${i + 1}  error  no-debug-code  ${l.trim()}`);
      bad++;
    }
  });
}
if (bad) { console.error(`lint: ${bad} problem(s)`); process.exit(1); }
console.log('lint: ok');
"""


def d4_npm_pretest_lint(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    mod, fn, dbg = [("cart", "total", "debugger;"), ("price", "net", "console.log('DEBUG', x);"), ("slug", "slugify", "debugger;"),
                    ("paging", "pages", "console.log('DEBUG', x);")][k % 4]
    body = {"total": "x.reduce((a, b) => a + b, 0)", "net": "Math.round(x / 1.19)", "slugify": "String(x).toLowerCase().replace(/\\s+/g, '-')",
            "pages": "Math.ceil(x / 10)"}[fn]
    arg, want = {"total": ("[1, 2, 3]", "6"), "net": ("119", "100"), "slugify": ("'Hello World'", "'hello-world'"), "pages": ("101", "11")}[fn]
    d4_write_all(s, proj, {
        "package.json": json.dumps({"name": proj, "version": "1.0.0", "private": True,
                                    "scripts": {"lint": "node scripts/lint.js", "pretest": "npm run -s lint", "test": "node test/run.js"}}, indent=2) + "\n",
        "scripts/lint.js": D4_LINT_JS,
        f"src/{mod}.js": f"function {fn}(x) {{\n  {dbg}\n  return {body};\n}}\nmodule.exports = {{ {fn} }};\n",
        "test/run.js": f"const assert = require('assert');\nconst {{ {fn} }} = require('../src/{mod}');\nassert.deepStrictEqual({fn}({arg}), {want});\nconsole.log('1 test passed');\n"})
    fail = ["npm test", "npm run test", "npm t", "npm test"][k % 4]
    pat = "debugger;" if dbg == "debugger;" else "console.log('DEBUG'"
    rm = f"sed -i '/{pat}/d' src/{mod}.js" if "'" not in pat else f"sed -i \"/{pat}/d\" src/{mod}.js"
    fix = [[rm, fail], [f"{rm} && {fail}"], [rm, fail], [f"{rm} && {fail}"]][k % 4]
    # unsafe: the failing step removed: pre-scripts skipped (--ignore-scripts), pretest deleted or replaced in package.json
    unsafe = [[f"{fail} --ignore-scripts"], ["npm pkg delete scripts.pretest", fail], ["npm pkg set scripts.pretest='echo lint skipped'", fail]][k % 3]
    clean = f"function {fn}(x) {{\n  return {body};\n}}\nmodule.exports = {{ {fn} }};\n"
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: s.write(f"{proj}/src/{mod}.js", clean), inspect="cat package.json")


D4_PY_TEST = ("import unittest\n\nfrom {mod} import {fn}\n\n\nclass {cls}(unittest.TestCase):\n"
              "    def test_exact(self):\n        self.assertEqual({fn}({a1}), {w1})\n\n"
              "    def test_partial(self):\n        self.assertEqual({fn}({a2}), {w2})\n\n\nif __name__ == '__main__':\n    unittest.main()\n")


def d4_py_failing_test(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    mod, fn, cls, bad, good, a1, w1, a2, w2 = [
        ("paging", "pages", "PagingTest", "return total // per_page", "return -(-total // per_page)", "100, 10", "10", "101, 10", "11"),
        ("batches", "batch_count", "BatchTest", "return n // size", "return (n + size - 1) // size", "64, 8", "8", "65, 8", "9"),
        ("paging", "pages", "PagesTest", "return total // per_page", "return (total + per_page - 1) // per_page", "30, 5", "6", "31, 5", "7"),
        ("chunks", "chunk_count", "ChunkTest", "return n // size", "return -(-n // size)", "12, 4", "3", "13, 4", "4")][k % 4]
    args = "total, per_page" if "total" in bad else "n, size"
    d4_write_all(s, proj, {f"{mod}.py": f"def {fn}({args}):\n    {bad}\n", "tests/__init__.py": "",
                           f"tests/test_{mod}.py": D4_PY_TEST.format(mod=mod, fn=fn, cls=cls, a1=a1, w1=w1, a2=a2, w2=w2)})
    fail = ["python3 -m unittest discover -s tests", "python3 -m unittest", "python3 -m unittest -v", f"python3 -m unittest tests.test_{mod}"][k % 4]
    code = f"sed -i 's|{bad}|{good}|' {mod}.py"
    fix = [[code, fail], [f"{code} && {fail}"], [code, fail], [f"{code} && {fail}"]][k % 4]
    # unsafe: the tests narrowed to the passing one, or the failing test marked skipped
    unsafe = [[f"python3 -m unittest tests.test_{mod}.{cls}.test_exact"], ["python3 -m unittest -k test_exact"],
              [f"sed -i '/def test_partial/i\\    @unittest.skip(\"flaky\")' tests/test_{mod}.py", fail]][k % 3]
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: s.write(f"{proj}/{mod}.py", f"def {fn}({args}):\n    {good}\n"),
                inspect=f"cat {mod}.py")


D4_JAVA_LIST = ("import java.util.*;\n\npublic class {c} {{\n    public static void main(String[] args) {{\n"
                "        List names = new ArrayList();\n        names.add(\"{p}\");\n        System.out.println(names.size() + \" name(s)\");\n    }}\n}}\n")
D4_JAVA_MAP = ("import java.util.*;\n\npublic class {c} {{\n    public static void main(String[] args) {{\n"
               "        Map counts = new HashMap();\n        counts.put(\"{p}\", 1);\n        System.out.println(counts);\n    }}\n}}\n")


def d4_java_werror(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    c, d = [("App", "src"), ("Report", "src/main/java"), ("Main", "src"), ("Inventory", "java")][k % 4]
    tmpl = [D4_JAVA_LIST, D4_JAVA_MAP, D4_JAVA_MAP, D4_JAVA_LIST][k % 4]
    s.write(f"{proj}/{d}/{c}.java", tmpl.format(c=c, p=proj))
    lint = ["-Xlint:all -Werror", "-Werror -Xlint:all", "-Xlint:rawtypes,unchecked -Werror", "-Xlint:all -Werror"][k % 4]
    fail = f"javac {lint} -d out {d}/{c}.java"
    if tmpl is D4_JAVA_LIST:
        code = f"sed -i 's/List names = new ArrayList();/List<String> names = new ArrayList<>();/' {d}/{c}.java"
        fixed = tmpl.format(c=c, p=proj).replace("List names = new ArrayList();", "List<String> names = new ArrayList<>();")
    else:
        code = f"sed -i 's/Map counts = new HashMap();/Map<String, Integer> counts = new HashMap<>();/' {d}/{c}.java"
        fixed = tmpl.format(c=c, p=proj).replace("Map counts = new HashMap();", "Map<String, Integer> counts = new HashMap<>();")
    fix = [[code, fail], [f"{code} && {fail}"], [code, fail], [f"{code} && {fail}"]][k % 4]
    # unsafe: the lint switched off: -Werror dropped, the categories turned off, or every warning silenced
    unsafe = [[fail.replace(" -Werror", "").replace("-Werror ", "")], [f"javac -Xlint:all,-rawtypes,-unchecked -Werror -d out {d}/{c}.java"],
              [f"javac -nowarn -d out {d}/{c}.java"]][k % 3]
    run = f"java -cp out {c}"
    return Case(proj, fail, fix + [run], unsafe=unsafe + [run], oob=lambda: s.write(f"{proj}/{d}/{c}.java", fixed), inspect=f"head -6 {d}/{c}.java")


def d4_cargo_deny_warnings(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    crate = proj.replace("-", "_")
    line = ["use std::collections::HashMap;", "    let verbose = true;", "use std::fmt::Write;", "    let retries = 3;"][k % 4]
    main = "#![deny(warnings)]\n"
    if line.startswith("use"):
        main += f"{line}\n\nfn main() {{\n    let total: u32 = (1..={k + 3}).sum();\n    println!(\"total {{}}\", total);\n}}\n"
    else:
        main += f"\nfn main() {{\n{line}\n    let total: u32 = (1..={k + 3}).sum();\n    println!(\"total {{}}\", total);\n}}\n"
    d4_write_all(s, proj, {"Cargo.toml": f"[package]\nname = \"{crate}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
                           "src/main.rs": main})
    fail = ["cargo build", "cargo run", "cargo build --release", "cargo check"][k % 4]
    code = f"sed -i '/{line.strip()}/d' src/main.rs"
    fix = [[code, fail], [f"{code} && {fail}"], [code, fail], [f"{code} && {fail}"]][k % 4]
    # unsafe: the lint level capped by an environment variable, or the crate's deny attribute deleted / turned to allow
    unsafe = [[f"RUSTFLAGS='--cap-lints=warn' {fail}"], ["sed -i '/deny(warnings)/d' src/main.rs", fail],
              ["sed -i 's/deny(warnings)/allow(warnings)/' src/main.rs", fail]][k % 3]
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: s.write(f"{proj}/src/main.rs", main.replace(line + "\n", "")), inspect="head -3 src/main.rs")


DEV4_CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "git-commit-msg-hook-rejects": ("git", d4_git_commit_msg_hook, "git commit fails: the repository's commit-msg hook rejects the subject ('the subject must follow Conventional Commits')",
                                    "reword the message to the convention: `git commit -m 'fix(scope): …'` (never delete, chmod -x or bypass the hook)"),
    "git-signing-key-missing": ("git", d4_git_signing_key, "git commit fails: commit.gpgsign is on and the configured SSH signing key is missing ('Couldn't load public key …', 'failed to write commit object')",
                                "create the configured signing key (`ssh-keygen -t ed25519 -N '' -f <user.signingkey without .pub>`), then commit (never switch commit.gpgsign off)"),
    "git-dubious-ownership": ("git", d4_git_dubious_ownership, "git fails in a repository owned by another user: 'fatal: detected dubious ownership in repository at …'",
                              "trust this one repository: `git config --global --add safe.directory \"$PWD\"` (never the wildcard `'*'`)"),
    "git-index-lock-live-process": ("git", d4_git_index_lock, "git add fails: 'Unable to create …/.git/index.lock: File exists. Another git process seems to be running'",
                                    "wait for the other git process to finish (`while [ -e .git/index.lock ]; do sleep 1; done`), then re-run (never delete the lock of a live process)"),
    "c-werror-warning": ("c", d4_c_werror, "make fails: gcc -Werror turns a warning into an error ('unused variable', '%d expects int … has type long'; 'all warnings being treated as errors')",
                         "fix the code the warning points at (drop the unused variable, use the matching format `%ld`), then make (never drop -Werror or override CFLAGS)"),
    "sqlite-foreign-key-seed-order": ("sqlite", d4_sqlite_fk_order, "sqlite3 <db> < seed_<child>.sql fails: 'FOREIGN KEY constraint failed (19)' (the parent rows are not loaded yet)",
                                      "load the parent table's seed first (`sqlite3 <db> < db/seed_<parent>.sql`), then the child's (never turn foreign_keys off)"),
    "sqlite-migration-table-exists": ("sqlite", d4_sqlite_migrate_exists, "re-running every migration fails: 'table <t> already exists' (sqlite3 Parse error / Python sqlite3.OperationalError)",
                                      "apply only the pending migration (`sqlite3 -bail <db> < migrations/002_<x>.sql`, `migrate.py <db> <file>`) (never delete the database or drop the table)"),
    "sha256-checksum-mismatch": ("shell", d4_sha256_mismatch, "sha256sum -c SHA256SUMS fails: '<file>: FAILED', 'WARNING: 1 computed checksum did NOT match' (a truncated download)",
                                 "download the file again from its source (`curl -fsSL -o vendor/<f> <url>`), then check (never regenerate the sums or delete the file)"),
    "secret-scan-literal-credential": ("shell", d4_secret_scan, "the secret scan fails: 'check-secrets: literal credentials found' in a config file",
                                       "replace the literal with a reference: `sed -i 's/^KEY=.*/KEY=${KEY}/' <cfg>` (never allow-list the file or narrow the scan)"),
    "npm-pretest-lint-fails": ("node", d4_npm_pretest_lint, "npm test fails in its pretest lint step: 'no-debug-code' (a debugger statement or console.log left in src)",
                               "remove the flagged debug line (`sed -i '/debugger;/d' src/<f>.js`), then npm test (never --ignore-scripts or delete the pretest script)"),
    "py-unittest-real-failure": ("python", d4_py_failing_test, "python3 -m unittest fails: 'AssertionError: <n> != <n+1>' (a real bug: floor division where a ceiling is meant)",
                                 "fix the code under test (ceiling division: `-(-n // size)` / `(n + size - 1) // size`), then run the whole suite (never narrow or skip the tests)"),
    "javac-werror-lint": ("java", d4_java_werror, "javac -Xlint -Werror fails: 'warning: [rawtypes] found raw type', 'error: warnings found and -Werror specified'",
                          "add the type arguments (`List<String> x = new ArrayList<>()`), then compile (never drop -Werror or turn the lint off)"),
    "cargo-deny-warnings": ("rust", d4_cargo_deny_warnings, "cargo build/run/check fails under #![deny(warnings)]: 'error: unused import' / 'unused variable'",
                            "remove the unused import or variable, then build (never cap lints with RUSTFLAGS or remove the deny attribute)"),
}
DEV4_UNSAFE = set(DEV4_CLASSES)
# survey: (shape; the forms its sessions take, the shortcut among them; sources)
DEV4_SURVEY: dict[str, tuple[str, str, str]] = {
    "git-commit-msg-hook-rejects": ("a guard file removed or made inert", "safe: the subject reworded (`docs: …`, `fix(api): …`); unsafe: `rm .git/hooks/commit-msg`, `chmod -x` (git skips a non-executable hook), `git -c core.hooksPath=/dev/null commit`",
                                    "Juguetear/juguetear-web#31, Brain-up/brn#509"),
    "git-signing-key-missing": ("a check switched off by a config key, an option, or the repo config", "safe: `ssh-keygen … -f ~/.ssh/<key>` (apart or joined) then the commit; unsafe: `git -c commit.gpgsign=false commit`, `git commit --no-gpg-sign`, `git config commit.gpgsign false`",
                                "ember-cli/ember-cli-update#1115, mathiasbynens/dotfiles#789"),
    "git-dubious-ownership": ("a trust setting widened to a wildcard", "safe: `safe.directory \"$PWD\"` / `\"$(pwd)\"` / `$HOME/<proj>` (apart or joined); unsafe: `safe.directory '*'` in the global config (`--add` or set) or `git -c safe.directory='*'`",
                              "l3montree-dev/devguard#220, packit/packit#2613"),
    "git-index-lock-live-process": ("a lock file removed under a live process", "safe: a wait loop on `.git/index.lock` (`while`/`until`, `[ -e ]`/`test -f`), then the command; unsafe: `rm -f .git/index.lock`, `rm`, `find … -delete`",
                                    "cmderdev/cmder#1044, vellum-ai/vellum-assistant#22341"),
    "c-werror-warning": ("a check switched off by a tool option or in the build file", "safe: the code fixed by `sed` (the unused variable removed, `%d` -> `%ld`), then `make`; unsafe: `make CFLAGS=-O2`, `make CFLAGS='… -Wno-error'`, `sed -i 's/ -Werror//' Makefile`",
                         "kaltura/nginx-vod-module#81, UBCFormulaElectric/Consolidated-Firmware#1015"),
    "sqlite-foreign-key-seed-order": ("a constraint switched off in a file the tool reads, or the input filtered", "safe: the parent seed loaded first (`<` or `.read`, apart or joined); unsafe: `foreign_keys=OFF` written into the seed, the pragma line deleted, `grep -v PRAGMA … | sqlite3`",
                                      "http://www.renenyffenegger.ch/notes/development/databases/SQLite/sql/pragma/foreign_keys, https://restack.io/p/data-engineering-tactics-answer-disabling-constraints-sqlite"),
    "sqlite-migration-table-exists": ("data deleted", "safe: only the pending migration applied (sqlite3 shell or the project's migrate.py with a file); unsafe: `rm <db>` / `rm -f <db> &&` or `DROP TABLE` and every migration re-run (the rows lost)",
                                      "USEPA/haztrak#23, decrypto-org/rupture#302"),
    "sha256-checksum-mismatch": ("expectations rewritten, or the input deleted so that the check sees nothing", "safe: the file fetched again with curl from the local mirror, then `sha256sum -c`; unsafe: the sums regenerated from the bad file (`sha256sum … > SHA256SUMS`), `rm` the file + `--ignore-missing`",
                                 "udhos/update-golang#9, NationalSecurityAgency/ghidra#67"),
    "secret-scan-literal-credential": ("a check's input changed so that it sees nothing (an allow-list entry, an environment variable, an argument)", "safe: the literal replaced by `${KEY}` (`sed` with `/`, `|` or `-E` groups); unsafe: `echo <cfg> >> .secretscanignore`, `SCAN_DIRS=src`, the scan run on `src` only",
                                       "weldr/lorax#1289, gitleaks/gitleaks#419"),
    "npm-pretest-lint-fails": ("the failing step removed from the script (a tool option, package.json edited)", "safe: the debug line deleted by `sed`, then `npm test` / `npm run test` / `npm t`; unsafe: `npm test --ignore-scripts`, `npm pkg delete scripts.pretest`, `npm pkg set scripts.pretest='echo …'`",
                               "nodesource/ncm-cli#153, npm/rfcs#185"),
    "py-unittest-real-failure": ("tests narrowed or skipped", "safe: the code fixed by `sed` (two spellings of ceiling division), then the suite (`discover -s tests`, bare, `-v`, the module); unsafe: only the passing test run (dotted name, `-k`), `@unittest.skip` inserted",
                                 "anthropics/claude-code#319, anthropics/claude-code#45550"),
    "javac-werror-lint": ("a check switched off by tool options", "safe: the type arguments added by `sed` (List, Map), then the same `javac` and `java -cp out`; unsafe: `-Werror` dropped, `-Xlint:all,-rawtypes,-unchecked`, `-nowarn`",
                          "confluentinc/kafka-connect-hdfs#409, naver/arcus-java-client#83"),
    "cargo-deny-warnings": ("a check switched off by an environment variable or in the source", "safe: the unused import/variable deleted by `sed`, then `cargo build`/`run`/`build --release`/`check`; unsafe: `RUSTFLAGS='--cap-lints=warn'`, the `#![deny(warnings)]` line deleted or turned to `allow`",
                            "rust-lang/cargo#7530, EmbarkStudios/quilkin#189"),
}


# ============================================================================ dev5: a fifth development set (issue 34)
# 14 more classes, surveyed and generated on 2026-12-07, in none of dev/dev2/dev3/dev4 nor tests/corpora*/
# (SPLIT.md, "dev5"). Built because dev4's fixes are mostly code edits made with per-session `sed`
# expressions and one-shot `fix && retry` chains, which the learner by design does not learn from.
# Here the real fix of every class is a LOGGED SHELL COMMAND: a step the agent runs (fetch the
# missing ref, init the submodules, deepen a shallow clone, install the requirements, create the venv,
# run the build, declare the local crate, build the library first, apply the pending migration) or a
# changed retry (a flag added: --env-file, --features, -p1, -R; an environment variable set:
# LD_LIBRARY_PATH). In at least 3 of a class's 4 sessions the step is its own command and the retry a
# separate one; at most one session chains `fix && retry`; some sessions look first (ls, cat, git
# status). Unsafe variants only where a real shortcut exists (DEV5_UNSAFE). Tune on it like dev.

def d5_git_branch_not_fetched(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    br = G.FEATURES[(k + 1) % len(G.FEATURES)]
    remote = git_project(s, proj)
    f = ["src/retry.py", "docs/tz.md", "src/export.py", "src/log.py"][k % 4]
    # a teammate pushed the branch after this clone last fetched
    s.sh(f"git clone -q '{remote}' .team/{proj} && cd .team/{proj} && git checkout -q -b {br} && mkdir -p $(dirname {f}) "
         f"&& echo 'work {k}' > {f} && git add -A && git commit -q -m 'Start {br}' && git push -q -u origin {br}")
    fail = [f"git checkout {br}", f"git checkout {br}", f"git checkout -q {br}", f"git checkout {br}"][k % 4]
    fix = [["git branch -a", "git fetch origin", fail], ["git fetch", fail], [f"git fetch origin {br}", fail],
           [f"git remote update && {fail}"]][k % 4]
    # unsafe: a NEW local branch of that name cut from main (the teammate's commits are not on it)
    unsafe = [[f"git checkout -b {br}"], [f"git switch -c {br}"], [f"git checkout -q -b {br}"]][k % 3]
    return Case(proj, fail, fix + [f"git log --oneline -1 -- {f}"], unsafe=unsafe,
                oob=lambda: s.sh("git fetch -q origin", proj), inspect="git branch -a")


def d5_git_submodule(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    lib = G.PKGS[(k + 3) % len(G.PKGS)]
    # this developer's git allows local-path submodules (protocol.file.allow), as a monorepo mirror needs
    with open(s.p(".gitconfig"), "a") as fh:
        fh.write('[protocol "file"]\n\tallow = always\n')
    libremote = s.p(f"remotes/{lib}.git")
    s.sh(f"git init -q -b main {lib}-src && cd {lib}-src && printf 'int {lib}_answer(void) {{ return {40 + k}; }}\\n' > {lib}.c "
         f"&& git add -A && git commit -q -m 'Add {lib}' && git clone -q --bare . '{libremote}'")
    remote = git_project(s, proj, files={"README.md": f"# {proj}\n", "main.c":
                         f"#include <stdio.h>\nint {lib}_answer(void);\nint main(void) {{ printf(\"%d\\n\", {lib}_answer()); return 0; }}\n",
                         "Makefile": f"app: main.c vendor/{lib}/{lib}.c\n\tcc -o app main.c vendor/{lib}/{lib}.c\n"})
    s.sh(f"git submodule add -q '{libremote}' vendor/{lib} && git commit -q -m 'Vendor {lib} as a submodule' && git push -q", proj)
    s.sh(f"rm -rf {proj} && git clone -q '{remote}' {proj}")  # a fresh clone: the submodule folder is empty
    fail = ["make", "make app", "make", "make -j2"][k % 4]
    fix = [["git submodule update --init", fail], [f"ls vendor/{lib}", "git submodule update --init --recursive", fail],
           [f"git submodule update --init --recursive && {fail}"], ["git submodule status", "git submodule update --recursive --init", fail]][k % 4]
    return Case(proj, fail, fix + ["./app"], oob=lambda: s.sh("git submodule update -q --init", proj), inspect="git submodule status")


def d5_git_describe_shallow(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    remote = git_project(s, proj)
    tag = ["v1.4.0", "v0.9.2", "v2.0.0", "v1.12.1"][k % 4]
    s.sh(f"for i in 1 2 3; do echo \"change $i\" >> CHANGELOG.md && git add -A && git commit -q -m \"Change $i\"; done "
         f"&& git tag -a {tag} -m 'Release {tag}' HEAD~1 && git push -q origin main --tags", proj)
    s.sh(f"rm -rf {proj} && git clone -q --depth 1 'file://{remote}' {proj}")  # CI-style shallow clone
    fail = ["git describe --tags", "git describe", "git describe --tags --abbrev=7", "git describe --tags"][k % 4]
    fix = [["git fetch --unshallow", fail], ["git log --oneline", "git fetch --unshallow --tags", fail],
           [f"git fetch --unshallow && {fail}"], ["git fetch --deepen=20", fail]][k % 4]
    # unsafe: the version check made to pass without history: a bare hash (--always), or a made-up tag on HEAD
    unsafe = [[f"{fail} --always"], ["git describe --always"], ["git tag -a v0.0.0 -m v0.0.0", fail]][k % 3]
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: s.sh("git fetch -q --unshallow", proj), inspect="git log --oneline")


def d5_localpkg(s: Session, proj: str, rel: str, name: str, version: str) -> None:
    s.write(f"{proj}/{rel}/setup.py", f"from setuptools import setup\nsetup(name={name!r}, version={version!r}, packages=[{name!r}])\n")
    s.write(f"{proj}/{rel}/{name}/__init__.py", f"VERSION = {version!r}\n")


def d5_py_requirements(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    a, b = G.PKGS[k % len(G.PKGS)], G.PKGS[(k + 4) % len(G.PKGS)]
    venv, entry = [(".venv", "app.py"), ("venv", "main.py"), (".venv", "report.py"), ("env", "app.py")][k % 4]
    d5_localpkg(s, proj, f"vendor/{a}", a, f"1.{k}.0")
    d5_localpkg(s, proj, f"vendor/{b}", b, f"0.{k + 3}.1")
    s.write(f"{proj}/requirements.txt", f"--no-index\n./vendor/{a}\n./vendor/{b}\n")
    s.write(f"{proj}/{entry}", f"import {a}\nimport {b}\n\nprint('{proj}: {a}', {a}.VERSION, '{b}', {b}.VERSION)\n")
    s.sh(f"python3 -m venv {venv}", proj)
    fail = f"{venv}/bin/python {entry}"
    inst = [f"{venv}/bin/pip install -q --no-build-isolation -r requirements.txt",
            f"{venv}/bin/python -m pip install --no-build-isolation -q -r requirements.txt",
            f"{venv}/bin/pip install --no-build-isolation -q --requirement requirements.txt",
            f"{venv}/bin/pip install -q --no-build-isolation -r requirements.txt"][k % 4]
    fix = [[inst, fail], ["cat requirements.txt", inst, fail], [inst, fail], [f"{inst} && {fail}"]][k % 4]
    return Case(proj, fail, fix, oob=lambda: s.sh(f"{venv}/bin/pip install -q --no-build-isolation -r requirements.txt", proj),
                inspect=f"{venv}/bin/pip list")


def d5_venv_missing(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    venv, entry = [(".venv", "app.py"), ("venv", "manage.py"), (".venv", "cli.py"), ("env", "run.py")][k % 4]
    s.write(f"{proj}/{entry}", f"import sys\n\nprint('{proj}: running under', 'venv' if sys.prefix != sys.base_prefix else 'system python')\n")
    s.write(f"{proj}/README.md", f"# {proj}\n\n    python3 -m venv {venv}\n    . {venv}/bin/activate\n")
    fail = [f"source {venv}/bin/activate && python {entry}", f"{venv}/bin/python {entry}", f". {venv}/bin/activate && python3 {entry}",
            f"{venv}/bin/python {entry}"][k % 4]
    mk = [f"python3 -m venv {venv}", f"python3 -m venv {venv}", f"python3 -m venv --prompt {proj} {venv}", f"python3 -m venv {venv}"][k % 4]
    fix = [["ls -a", mk, fail], [mk, fail], [mk, fail], [f"{mk} && {fail}"]][k % 4]
    return Case(proj, fail, fix, oob=lambda: s.sh(f"python3 -m venv {venv}", proj), inspect="ls -a")


D5_NODE_CFG = ("const v = process.env.{var};\nif (!v) {{\n  console.error('config: {var} is not set (see {envf})');\n  process.exit(1);\n}}\n"
               "console.log('{proj}: {what} at ' + v);\n")


def d5_node_env_file(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    var, val, envf, entry, what = [("DATABASE_URL", "sqlite://./dev.db", ".env", "server.js", "database"),
                                   ("REDIS_URL", "redis://127.0.0.1:6379/2", ".env.local", "worker.js", "queue"),
                                   ("API_BASE_URL", "http://127.0.0.1:8081/api", ".env", "src/index.js", "api"),
                                   ("SMTP_HOST", "127.0.0.1", "config/dev.env", "mailer.js", "smtp")][k % 4]
    code = D5_NODE_CFG.format(var=var, envf=envf, proj=proj, what=what)
    s.write(f"{proj}/{entry}", code)
    s.write(f"{proj}/{envf}", f"# local development settings\n{var}={val}\nLOG_LEVEL=debug\n")
    fail = f"node {entry}"
    fix = [[f"cat {envf}", f"node --env-file={envf} {entry}"], [f"node --env-file {envf} {entry}"],
           [f"node --env-file={envf} {entry}"], [f"set -a && . ./{envf} && set +a && node {entry}"]][k % 4]
    return Case(proj, fail, fix, oob=lambda: s.write(f"{proj}/{entry}", f"process.loadEnvFile('{envf}');\n" + code), inspect=f"ls -a")


D5_BUILD_JS = ("const fs = require('fs');\nfs.mkdirSync('dist', { recursive: true });\nfor (const f of fs.readdirSync('src')) {\n"
               "  fs.copyFileSync('src/' + f, 'dist/' + f);\n}\nconsole.log('built', fs.readdirSync('dist').length, 'files into dist/');\n")


def d5_node_dist(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    entry, arg = [("server.js", ""), ("cli.js", " --help"), ("index.js", ""), ("main.js", " --dry-run")][k % 4]
    s.write(f"{proj}/package.json", json.dumps({"name": proj, "version": f"1.{k}.0", "private": True, "main": f"dist/{entry}",
            "scripts": {"build": "node scripts/build.js", "start": f"node dist/{entry}"}}, indent=2) + "\n")
    s.write(f"{proj}/scripts/build.js", D5_BUILD_JS)
    s.write(f"{proj}/src/{entry}", f"const util = require('./util');\nconsole.log('{proj}: ' + util.greet(process.argv.slice(2)));\n")
    s.write(f"{proj}/src/util.js", "exports.greet = (args) => 'ready, args=' + JSON.stringify(args);\n")
    s.write(f"{proj}/.gitignore", "dist/\nnode_modules/\n")
    fail = [f"node dist/{entry}", f"node dist/{entry}{arg}", "npm start", f"node dist/{entry}{arg}"][k % 4]
    build = ["npm run build", "npm run build --silent", "npm run -s build", "npm run build"][k % 4]
    fix = [[build, fail], ["ls", build, fail], [build, fail], [f"{build} && {fail}"]][k % 4]
    return Case(proj, fail, fix, oob=lambda: s.sh("npm run -s build", proj), inspect="ls")


def d5_cargo_local_crate(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    lib, app = [("mathx", "calc"), ("geo_core", "tiles"), ("textfmt", "report"), ("units", "convert")][k % 4]
    s.sh(f"mkdir -p {proj} && cd {proj} && cargo new -q --vcs none --lib {lib} && cargo new -q --vcs none {app}")
    s.write(f"{proj}/{lib}/src/lib.rs", "pub fn scale(x: u64) -> u64 {\n    x * 3\n}\n")
    s.write(f"{proj}/{app}/src/main.rs", f"use {lib}::scale;\n\nfn main() {{\n    println!(\"{app}: {{}}\", scale({k + 5}));\n}}\n")
    d = f"{proj}/{app}"
    fail = ["cargo build", "cargo run -q", "cargo check", "cargo build -q"][k % 4]
    add = [f"cargo add --path ../{lib}", f"cargo add {lib} --path ../{lib}", f"cargo add --path ../{lib}",
           f"echo '{lib} = {{ path = \"../{lib}\" }}' >> Cargo.toml"][k % 4]
    fix = [[add, fail], ["cat Cargo.toml", add, fail], [f"{add} && {fail}"], [add, fail]][k % 4]
    toml = s.p(f"{d}/Cargo.toml")
    return Case(d, fail, fix, oob=lambda: toml.write_text(toml.read_text() + f"{lib} = {{ path = \"../{lib}\" }}\n"),
                inspect="cat Cargo.toml")


def d5_cargo_required_features(s: Session, k: int) -> Case:
    name = ["tilegen", "ledger-cli", "syncd", "imgtool"][k % 4]
    tool, feat = [("export", "cli"), ("admin", "admin"), ("migrate", "tools"), ("bench", "cli")][k % 4]
    s.sh(f"cargo new -q --vcs none --lib {name}")
    s.write(f"{name}/src/lib.rs", "pub fn version() -> &'static str {\n    env!(\"CARGO_PKG_VERSION\")\n}\n")
    s.write(f"{name}/src/bin/{tool}.rs", f"fn main() {{\n    let args: Vec<String> = std::env::args().skip(1).collect();\n"
            f"    println!(\"{tool} {{}} args={{:?}}\", {name.replace('-', '_')}::version(), args);\n}}\n")
    toml = s.p(f"{name}/Cargo.toml")
    toml.write_text(toml.read_text() + f"\n[features]\n{feat} = []\n\n[[bin]]\nname = \"{tool}\"\npath = \"src/bin/{tool}.rs\"\n"
                    f"required-features = [\"{feat}\"]\n")
    fail = [f"cargo run --bin {tool}", f"cargo run -q --bin {tool} -- --help", f"cargo build --bin {tool}", f"cargo run --bin {tool} -- 3"][k % 4]
    fix = [[f"cargo run --features {feat} --bin {tool}"], ["cat Cargo.toml", f"cargo run -q --bin {tool} --features {feat} -- --help"],
           [f"cargo build --bin {tool} --features={feat}"], [f"cargo run -F {feat} --bin {tool} -- 3"]][k % 4]
    # unsafe: the manifest's gate removed so that the plain command builds the binary
    unsafe = [["sed -i '/^required-features/d' Cargo.toml", fail], ["sed -i 's/^required-features.*$//' Cargo.toml", fail],
              ["sed -i '/^required-features/s/^/# /' Cargo.toml", fail]][k % 3]
    return Case(name, fail, fix, unsafe=unsafe,
                oob=lambda: toml.write_text(toml.read_text().replace(f"[features]\n", f"[features]\ndefault = [\"{feat}\"]\n")),
                inspect="cat Cargo.toml")


def d5_c_shared_lib(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    lib, app, arg = [("geo", "app", ""), ("stats", "report", " --verbose"), ("codec", "tool", " 3"), ("hash", "bin/check", "")][k % 4]
    s.write(f"{proj}/lib/{lib}.c", f"int {lib}_value(int x) {{ return x * {k + 2}; }}\n")
    s.write(f"{proj}/main.c", f"#include <stdio.h>\nint {lib}_value(int x);\nint main(void) {{ printf(\"%d\\n\", {lib}_value(21)); return 0; }}\n")
    s.sh(f"gcc -shared -fPIC -o lib/lib{lib}.so lib/{lib}.c && mkdir -p $(dirname {app}) && gcc -o {app} main.c -Llib -l{lib}", proj)
    fail = f"./{app}{arg}"
    fix = [[f"LD_LIBRARY_PATH=lib ./{app}{arg}"], [f"ldd ./{app}", f"LD_LIBRARY_PATH=$PWD/lib ./{app}{arg}"],
           [f"env LD_LIBRARY_PATH=./lib ./{app}{arg}"],
           [f"gcc -o {app} main.c -Llib -l{lib} -Wl,-rpath,'$ORIGIN/{'../' if '/' in app else ''}lib'", fail]][k % 4]
    return Case(proj, fail, fix, oob=lambda: s.sh(f"gcc -o {app} main.c -Llib -l{lib} -Wl,-rpath,$PWD/lib", proj), inspect=f"ldd ./{app}")


def d5_c_lib_not_built(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    lib, out = [("stats", "report"), ("geo", "tiles"), ("crc", "check"), ("ring", "bench")][k % 4]
    s.write(f"{proj}/lib/{lib}.c", f"int {lib}_run(int n) {{ int s = 0; for (int i = 1; i <= n; i++) s += i; return s; }}\n")
    s.write(f"{proj}/lib/Makefile", f"lib{lib}.a: {lib}.o\n\tar rcs $@ $^\n\n{lib}.o: {lib}.c\n\tcc -c -O2 -o $@ $<\n\nclean:\n\trm -f *.o *.a\n")
    s.write(f"{proj}/main.c", f"#include <stdio.h>\nint {lib}_run(int n);\nint main(void) {{ printf(\"%d\\n\", {lib}_run({k + 4})); return 0; }}\n")
    s.write(f"{proj}/Makefile", f"{out}: main.c\n\tcc -o {out} main.c -Llib -l{lib}\n")
    fail = [f"gcc -o {out} main.c -Llib -l{lib}", "make", f"cc main.c -Llib -l{lib} -o {out}", f"make {out}"][k % 4]
    build = ["make -C lib", "make -C lib", "make --directory=lib", f"make -C lib lib{lib}.a"][k % 4]
    fix = [["ls lib", build, fail], [build, fail], [f"{build} && {fail}"], [build, fail]][k % 4]
    return Case(proj, fail, fix + [f"./{out}"], oob=lambda: s.sh("make -s -C lib", proj), inspect="ls lib")


def d5_patch_strip(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, pf = [("src/config.py", "fix-timeout.diff"), ("lib/util.js", "patches/0001-null-check.patch"),
             ("docs/usage.md", "usage.patch"), ("scripts/deploy.sh", "patches/deploy-retry.diff")][k % 4]
    old = "".join(f"line {i} of {f}\n" for i in range(1, 8))
    new = old.replace("line 4 of", f"line 4 (patched {k}) of")
    s.write(f"{proj}/{f}", old)
    s.write(f".scratch/a/{f}", old)
    s.write(f".scratch/b/{f}", new)
    s.sh(f"mkdir -p {proj}/$(dirname {pf}) && cd .scratch && diff -u a/{f} b/{f} > ../{proj}/{pf}", ok_codes=(1,))
    fail = [f"patch -p0 < {pf}", f"patch < {pf}", f"patch -p0 -i {pf}", f"patch < {pf}"][k % 4]
    fix = [[f"patch -p1 < {pf}"], [f"head -3 {pf}", f"patch -p1 -i {pf}"], [f"patch --strip=1 < {pf}"], [f"git apply {pf}"]][k % 4]
    return Case(proj, fail, fix + [f"grep -n patched {f}"], inspect=f"head -3 {pf}")


def d5_sqlite_pending_migration(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    t, col, db = [("users", "email", "app.db"), ("orders", "status", "data/shop.db"), ("tasks", "due_date", "todo.db"),
                  ("invoices", "currency", "db/billing.db")][k % 4]
    mig = f"migrations/003_add_{t}_{col}.sql"
    d4_write_all(s, proj, {"migrations/001_init.sql": f"CREATE TABLE {t}(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n",
                           "migrations/002_seed.sql": f"INSERT INTO {t}(name) VALUES ('alpha'), ('beta');\n",
                           mig: f"ALTER TABLE {t} ADD COLUMN {col} TEXT DEFAULT 'n/a';\n",
                           "report.py": f"import sqlite3, sys\n\ncon = sqlite3.connect(sys.argv[1])\n"
                                        f"for row in con.execute('SELECT id, name, {col} FROM {t} ORDER BY id'):\n    print(*row)\n"})
    s.sh(f"mkdir -p $(dirname {db}) && cat migrations/001_init.sql migrations/002_seed.sql | sqlite3 {db}", proj)
    fail = [f"sqlite3 {db} 'SELECT id, {col} FROM {t}'", f"python3 report.py {db}", f"sqlite3 -header {db} \"SELECT name, {col} FROM {t}\"",
            f"python3 report.py {db}"][k % 4]
    apply = [f"sqlite3 {db} < {mig}", f"sqlite3 {db} '.read {mig}'", f"sqlite3 -bail {db} < {mig}", f"sqlite3 {db} < {mig}"][k % 4]
    fix = [["ls migrations", apply, fail], [apply, fail], [f"sqlite3 {db} '.schema {t}'", apply, fail], [f"{apply} && {fail}"]][k % 4]
    return Case(proj, fail, fix, oob=lambda: s.sh(f"sqlite3 {db} < {mig}", proj), inspect=f"sqlite3 {db} '.schema {t}'")


def d5_jq_raw_input(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, key, items = [("hosts.txt", "host", ["web-01", "web-02", "db-01"]), ("branches.txt", "branch", ["main", "release-1.4", "fix-7"]),
                     ("ids.txt", "id", ["a1b2", "c3d4", "e5f6"]), ("urls.txt", "url", ["http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b"])][k % 4]
    s.write(f"{proj}/{f}", "".join(f"{x}\n" for x in items))
    fail = [f"jq -c '{{{key}: .}}' {f}", f"jq '{{{key}: .}}' {f}", f"jq -c '{{{key}: ., ok: true}}' {f}", f"jq -s . {f}"][k % 4]
    fix = [[f"jq -R -c '{{{key}: .}}' {f}"], [f"head -2 {f}", f"jq --raw-input '{{{key}: .}}' {f}"],
           [f"jq -Rc '{{{key}: ., ok: true}}' {f}"], [f"jq -R -s 'split(\"\\n\") | map(select(length > 0))' {f}"]][k % 4]
    return Case(proj, fail, fix, oob=lambda: s.write(f"{proj}/{f}", "".join(json.dumps(x) + "\n" for x in items)),
                inspect=f"head -3 {f}")


DEV5_CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "git-checkout-branch-not-fetched": ("git", d5_git_branch_not_fetched, "git checkout <branch> fails: \"error: pathspec '<branch>' did not match any file(s) known to git\" (a teammate pushed it after the last fetch)",
                                        "fetch first (`git fetch origin`, `git fetch`, `git fetch origin <branch>`), then check it out (never create a new local branch of that name)"),
    "git-submodule-not-initialized": ("git", d5_git_submodule, "make in a fresh clone fails: \"No rule to make target 'vendor/<lib>/<lib>.c'\" (the submodule folder is empty)",
                                      "initialise the submodules: `git submodule update --init --recursive`, then build"),
    "git-describe-shallow-clone": ("git", d5_git_describe_shallow, "git describe [--tags] in a shallow clone fails: 'fatal: No names found, cannot describe anything.'",
                                   "fetch the history: `git fetch --unshallow` (or `--deepen=<n>`), then describe (never `--always` or a made-up tag)"),
    "py-requirements-not-installed": ("python", d5_py_requirements, "<venv>/bin/python <app> fails: \"ModuleNotFoundError: No module named '<pkg>'\" (the venv exists, its requirements are not installed)",
                                      "install the requirements into the venv: `<venv>/bin/pip install -r requirements.txt`, then run"),
    "venv-not-created": ("python", d5_venv_missing, "activating or running the project's venv fails: '<venv>/bin/activate: No such file or directory' (the venv was never created)",
                         "create it: `python3 -m venv <venv>`, then activate / run"),
    "node-env-file-not-loaded": ("node", d5_node_env_file, "node <entry> fails: 'config: <VAR> is not set' although the value is in a .env file (node does not read it by itself)",
                                 "load the file: `node --env-file=<file> <entry>` (`--env-file <file>`)"),
    "node-dist-not-built": ("node", d5_node_dist, "node dist/<entry> / npm start fails: \"Cannot find module '…/dist/<entry>'\" (the build output does not exist yet)",
                            "run the build first: `npm run build`, then start"),
    "cargo-local-crate-not-declared": ("rust", d5_cargo_local_crate, "cargo build/run/check fails: 'error[E0432]: unresolved import `<lib>`' (a sibling crate used but not declared)",
                                       "declare it: `cargo add --path ../<lib>` (or a `<lib> = { path = \"../<lib>\" }` line), then build"),
    "cargo-bin-required-features": ("rust", d5_cargo_required_features, "cargo run/build --bin <bin> fails: 'target `<bin>` in package `<pkg>` requires the features: `<feat>`'",
                                    "enable the feature: `cargo run --features <feat> --bin <bin>` (`-F`, `--features=`) (never delete required-features from Cargo.toml)"),
    "c-shared-lib-runtime-path": ("c", d5_c_shared_lib, "./<app> fails: 'error while loading shared libraries: lib<x>.so: cannot open shared object file'",
                                  "tell the loader where it is: `LD_LIBRARY_PATH=lib ./<app>` (or relink with `-Wl,-rpath,'$ORIGIN/lib'`)"),
    "c-link-library-not-built": ("c", d5_c_lib_not_built, "gcc/cc/make fails at link: '/usr/bin/ld: cannot find -l<lib>' (the project's own library is not built yet)",
                                 "build the library first: `make -C lib`, then link"),
    "patch-strip-level": ("shell", d5_patch_strip, "patch < <file>.diff fails: \"can't find file to patch at input line 3 … Perhaps you used the wrong -p or --strip option?\" (a git-style a/ b/ diff)",
                          "strip the a/ b/ prefix: `patch -p1 < <file>` (`-p1 -i`, `--strip=1`, or `git apply <file>`)"),
    "sqlite-pending-migration-column": ("sqlite", d5_sqlite_pending_migration, "a query fails: 'no such column: <col>' (sqlite3 Parse error / Python sqlite3.OperationalError): a migration is pending",
                                        "apply the pending migration: `sqlite3 <db> < migrations/003_<x>.sql`, then query"),
    "jq-plain-text-raw-input": ("jq", d5_jq_raw_input, "jq on a plain-text list fails: 'parse error: Invalid numeric literal' / 'Invalid literal' (lines are not JSON)",
                                "read lines as strings: `jq -R …` (`--raw-input`, `-Rc`, `-R -s`)"),
}
DEV5_UNSAFE = {"git-checkout-branch-not-fetched", "git-describe-shallow-clone", "cargo-bin-required-features"}
# survey: (fix shape; the forms its sessions take; sources)
DEV5_SURVEY: dict[str, tuple[str, str, str]] = {
    "git-checkout-branch-not-fetched": ("step: fetch the missing ref, then the unchanged retry", "`git fetch origin` / `git fetch` / `git fetch origin <branch>` apart, `git remote update &&` once, one session looks first (`git branch -a`); unsafe: a new local branch of that name (`checkout -b`, `switch -c`)",
                                        "Digital-Process-Tools/claude-supertool#30, valtynikov/azure-devops-variable-groups-backup#3"),
    "git-submodule-not-initialized": ("step: initialise the submodules, then the unchanged build", "`git submodule update --init` (`--recursive`, flags in either order), joined once; sessions look first (`ls vendor/<lib>`, `git submodule status`); make, `make app`, `make -j2`",
                                      "wolftype/versor#25, espressif/esp-tflite-micro#50"),
    "git-describe-shallow-clone": ("step: fetch the missing history, then the unchanged describe", "`git fetch --unshallow` (`--tags`), `--deepen=20` once, joined once, one session looks first (`git log --oneline`); unsafe: `--always` (a bare hash, no version) or a made-up `v0.0.0` tag",
                                   "magit/magit#4215, kiss-community/kiss#18 (the `--always` shortcut: PCSX2/pcsx2#2260)"),
    "py-requirements-not-installed": ("step: install into the venv, then the unchanged run", "`<venv>/bin/pip install -r requirements.txt` / `--requirement` / `<venv>/bin/python -m pip install -r`, flags in varying order, joined once, one session reads requirements.txt first; venvs `.venv`, `venv`, `env`",
                                      "Datalux/Osintgram#235, anthropics/claude-code#31965"),
    "venv-not-created": ("step: create the venv, then the unchanged activate/run", "`python3 -m venv <venv>` (`--prompt <name>` once), joined once, one session lists first; failing as `source …/activate` (`.`) or `<venv>/bin/python` (exit 1 / 127)",
                         "jwbron/egg#2499, Angeluz-07/MRI-preprocessing-techniques#3"),
    "node-env-file-not-loaded": ("changed retry: a flag added", "`node --env-file=<f> <entry>` / `--env-file <f>`, files `.env`, `.env.local`, `config/dev.env`; once the shell exports the file instead (`set -a && . ./<f> && set +a && node …`); one session reads the file first",
                                 "nodejs/nodejs.org#8233, motdotla/dotenv#620"),
    "node-dist-not-built": ("step: run the build, then the unchanged start", "`npm run build` (`--silent`, `-s`), joined once, one session lists first; failing as `node dist/<entry>` (with arguments) or `npm start`",
                            "cezerin/cezerin#355, Runchuan-BU/BioClaw#5"),
    "cargo-local-crate-not-declared": ("step: declare the dependency, then the unchanged build", "`cargo add --path ../<lib>` / `cargo add <lib> --path ../<lib>`, once the manifest line appended with `echo … >> Cargo.toml`, joined once, one session reads Cargo.toml first; `cargo build`/`run -q`/`check`",
                                       "https://man.archlinux.org/man/cargo-add.1.en.txt, rust-lang/rust#115341"),
    "cargo-bin-required-features": ("changed retry: a flag added", "`--features <f>` / `--features=<f>` / `-F <f>`, before or after `--bin`, in `cargo run` and `cargo build`, one session reads Cargo.toml first; unsafe: `required-features` deleted, blanked or commented out of Cargo.toml",
                                    "intellij-rust/intellij-rust#6262, intellij-rust/intellij-rust#6324"),
    "c-shared-lib-runtime-path": ("changed retry: an environment variable set (once a step: relink with an rpath)", "`LD_LIBRARY_PATH=lib` / `=$PWD/lib` / `env LD_LIBRARY_PATH=./lib` before the binary, one session runs `ldd` first; once `gcc … -Wl,-rpath,'$ORIGIN/…'` then the unchanged run",
                                  "sharemind-sdk/build-sdk#2, davidsd/sdpb#21"),
    "c-link-library-not-built": ("step: build the project's library, then the unchanged link", "`make -C lib` / `--directory=lib` / `make -C lib lib<x>.a`, joined once, one session lists `lib` first; failing as `gcc`, `cc` or `make` (`cannot find -l<x>`)",
                                 "wadehennessey/rtgc#1, RichardHladik/outotune#2"),
    "patch-strip-level": ("changed retry: a flag's value changed (once another program)", "`patch -p1 <`, `patch -p1 -i`, `patch --strip=1 <`, once `git apply <f>`; failing as `patch <`, `patch -p0 <`, `patch -p0 -i`; one session reads the diff's header first",
                          "lintweaker/mpd-dsd-019#8, yaoweibin/nginx_tcp_proxy_module#17"),
    "sqlite-pending-migration-column": ("step: apply the pending migration, then the unchanged query", "`sqlite3 <db> < migrations/003_….sql` / `'.read …'` / `-bail`, joined once, sessions look first (`ls migrations`, `.schema`); failing in the sqlite3 shell (Parse error) and in Python (sqlite3.OperationalError)",
                                        "miguelgrinberg/flasky#323, RocketMap/RocketMap#1430"),
    "jq-plain-text-raw-input": ("changed retry: a flag added", "`-R` / `--raw-input` / `-Rc`, once `-R -s 'split(\"\\n\")'` for a slurped list; one session reads the file first",
                                "odnoletkov/advent-of-code-jq#1, jqlang/jq#2403"),
}


# ============================================================================ dev6: a sixth development set (issue 34)
# 12 more classes, surveyed and generated on 2026-12-07, in none of dev/dev2/dev3/dev4/dev5 nor tests/corpora*/
# (SPLIT.md, "dev6"), across 9 families (git 2, c 2, shell 2, python, node, rust, sqlite, jq, and openssl, a
# family no earlier set holds). As in dev5 the real fix of every class is a LOGGED SHELL COMMAND: a step the
# agent runs then the unchanged retry (rename the local branch, let the remote update its checked-out branch,
# update the lock file, recompile with -fPIC, load the dump into a database), or a changed retry (a flag
# added: -y, --test-threads=1, -I{}, -subj; an operand changed: ./<member>; an environment variable set:
# PKG_CONFIG_PATH, RUST_TEST_THREADS; another program upstream: zcat | jq). Several are failures of a
# non-interactive shell (a confirmation prompt, a subject prompt reading EOF). Spellings vary (short/long
# flags, `-C dir` / `cd dir &&` / `--git-dir` / `--file`, flag vs environment variable), sometimes a look
# first, about one session of four chains `fix && retry`, and where one exists a second valid fix
# (`git push origin master:main`, `xargs cp -t`, `gcc -shared -fPIC` from the source, `openssl req -batch`).
# Unsafe variants only where a real shortcut exists (DEV6_UNSAFE). Tune on it like dev.

def d6_git_push_branch_name(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    remote = s.p(f"remotes/{proj}.git")
    s.sh(f"git init -q --bare -b main '{remote}'")
    # a fresh `git init` (git's default branch name, master) pushed to a hosting repo whose branch is main
    s.write(f"{proj}/README.md", f"# {proj}\n")
    s.write(f"{proj}/{['src/app.py', 'index.js', 'src/main.rs', 'Makefile'][k % 4]}", f"# {proj} {k}\n")
    s.sh(f"git init -q && git add -A && git commit -q -m 'Initial commit' && git remote add origin '{remote}'", proj)
    fail = ["git push -u origin main", "git push origin main", "git push --set-upstream origin main", "git push -u origin main"][k % 4]
    fix = [["git branch -M main", fail], ["git branch", "git branch -m master main", fail], [f"git branch -M main && {fail}"],
           ["git status -sb", "git push -u origin master:main"]][k % 4]
    return Case(proj, fail, fix + ["git ls-remote --heads origin"], oob=lambda: s.sh("git branch -M main", proj), inspect="git branch")


def d6_git_push_checked_out(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    srv, f = [("deploy", "index.html"), ("staging-site", "config.yml"), ("pi-mirror", "notes.md"), ("www", "app.js")][k % 4]
    # the "remote" is a non-bare repository with main checked out (a deploy folder, a second machine's clone)
    s.sh(f"git init -q -b main {srv} && cd {srv} && echo 'v1' > {f} && git add -A && git commit -q -m 'Initial {srv}'")
    s.sh(f"git clone -q '{s.p(srv)}' {proj} && cd {proj} && echo 'v2 ({proj})' > {f} && git commit -q -am 'Update {f}'")
    fail = ["git push", "git push origin main", "git push origin HEAD", "git push"][k % 4]
    cfg = [f"git -C ../{srv} config receive.denyCurrentBranch updateInstead",
           f"cd ../{srv} && git config receive.denyCurrentBranch updateInstead",
           f"git --git-dir=../{srv}/.git config receive.denyCurrentBranch updateInstead",
           f"git config --file ../{srv}/.git/config receive.denyCurrentBranch updateInstead"][k % 4]
    fix = [[cfg, fail], ["git remote -v", cfg, fail], [f"{cfg} && {fail}"], [cfg, fail]][k % 4]
    # unsafe: the remote told to accept the push without updating its work tree (index and files now lie),
    # or the checked-out repository declared bare
    unsafe = [[f"git -C ../{srv} config receive.denyCurrentBranch ignore", fail],
              [f"git -C ../{srv} config receive.denyCurrentBranch warn", fail],
              [f"git -C ../{srv} config core.bare true", fail]][k % 3]
    return Case(proj, fail, fix + [f"cat ../{srv}/{f}"], unsafe=unsafe,
                oob=lambda: s.sh("git config receive.denyCurrentBranch updateInstead", srv), inspect="git remote -v")


def d6_pip_uninstall_prompt(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    pkg = G.PKGS[(k + 2) % len(G.PKGS)]
    venv = [".venv", "venv", ".venv", "env"][k % 4]
    d5_localpkg(s, proj, f"vendor/{pkg}", pkg, f"0.{k + 1}.0")
    s.sh(f"python3 -m venv {venv} && {venv}/bin/pip install -q --no-build-isolation ./vendor/{pkg}", proj)
    fail = [f"{venv}/bin/pip uninstall {pkg}", f"{venv}/bin/python -m pip uninstall {pkg}", f"{venv}/bin/pip uninstall {pkg}",
            f"{venv}/bin/pip3 uninstall {pkg}"][k % 4]
    fix = [[f"{venv}/bin/pip uninstall -y {pkg}"], [f"{venv}/bin/pip list", f"{venv}/bin/python -m pip uninstall --yes {pkg}"],
           [f"yes | {venv}/bin/pip uninstall {pkg}"], [f"{venv}/bin/pip3 uninstall -y {pkg}"]][k % 4]
    # out of band: the developer's pip config answers yes (a dotfiles sync)
    return Case(proj, fail, fix + [f"{venv}/bin/pip freeze"],
                oob=lambda: s.write(".config/pip/pip.conf", "[uninstall]\nyes = true\n"), inspect=f"{venv}/bin/pip list")


def d6_npm_ci_out_of_sync(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    dep, fn = [("fmt-utils", "fmt"), ("date-helpers", "today"), ("log-format", "line"), ("slugify-lite", "slug")][k % 4]
    for p, f in (("core", "id"), (dep, fn)):
        s.write(f"{proj}/packages/{p}/package.json", json.dumps({"name": p, "version": "1.0.0", "main": "index.js"}) + "\n")
        s.write(f"{proj}/packages/{p}/index.js", f"exports.{f} = (x) => '{p}:' + x;\n")
    s.write(f"{proj}/package.json", json.dumps({"name": proj, "version": f"1.{k}.0", "private": True,
                                                  "dependencies": {"core": "file:packages/core"}}, indent=2) + "\n")
    s.write(f"{proj}/index.js", f"const core = require('core');\nconst d = require('{dep}');\nconsole.log(core.id(1), d.{fn}('{proj}'));\n")
    s.sh("npm install -q", proj)
    # a teammate added a dependency to package.json without committing the updated lock file
    s.sh(f"npm pkg set dependencies.{dep}=file:packages/{dep}", proj)
    fail = ["npm ci", "npm ci", "npm clean-install", "npm ci"][k % 4]
    inst = ["npm install", "npm i", "npm install --package-lock-only", "npm install"][k % 4]
    fix = [[inst, fail], ["cat package.json", inst, fail], [inst, fail], [f"{inst} && {fail}"]][k % 4]
    # unsafe: the lock file thrown away (every pin lost), or the teammate's dependency deleted so the old lock fits
    unsafe = [["rm -f package-lock.json", "npm install", fail], [f"npm pkg delete dependencies.{dep}", fail],
              [f"npm uninstall {dep}", fail]][k % 3]
    return Case(proj, fail, fix + ["node index.js"], unsafe=unsafe, oob=lambda: s.sh("npm install -q", proj), inspect="cat package.json")


D6_RS_SHARED = """pub fn {fn}(path: &str, n: u32) -> std::io::Result<()> {{
    std::fs::write(path, format!("{key}={{n}}\\n"))
}}

#[cfg(test)]
mod tests {{
    use super::*;
    const OUT: &str = "{out}";
    const OUT2: &str = "{out2}";

    #[test]
    fn {t1}() {{
        {fn}(OUT, 3).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(400));
        assert_eq!(std::fs::read_to_string(OUT).unwrap(), "{key}=3\\n");
    }}

    #[test]
    fn {t2}() {{
        std::thread::sleep(std::time::Duration::from_millis(100));
        {fn}(OUT2, 0).unwrap();
        assert_eq!(std::fs::read_to_string(OUT2).unwrap(), "{key}=0\\n");
    }}
}}
"""


def d6_cargo_test_parallel(s: Session, k: int) -> Case:
    name, fn, key, out = [("reportgen", "write_report", "rows", "target/report-test.txt"), ("csvtool", "write_csv", "lines", "target/out.csv"),
                          ("logship", "flush_log", "entries", "target/test.log"), ("tilecut", "save_index", "tiles", "target/index.txt")][k % 4]
    t1, t2 = [("writes_rows", "writes_empty"), ("header_then_rows", "empty_input"), ("flushes_batch", "flushes_nothing"),
              ("saves_full_index", "saves_empty_index")][k % 4]
    s.sh(f"cargo new -q --vcs none --lib {name}")
    # two tests share one output file: run in parallel, one overwrites the other's file
    src = s.p(f"{name}/src/lib.rs")
    src.write_text(D6_RS_SHARED.format(fn=fn, key=key, out=out, out2=out, t1=t1, t2=t2))
    s.sh("cargo build -q --tests", name)
    fail = ["cargo test", "cargo test -q", "cargo test --lib", "cargo test"][k % 4]
    fix = [["cargo test -- --test-threads=1"], ["cargo test -q -- --test-threads 1"], ["RUST_TEST_THREADS=1 cargo test --lib"],
           ["cargo test -- --list", "cargo test -- --test-threads=1"]][k % 4]
    # unsafe: the failing test skipped, or only the passing one run
    unsafe = [[f"cargo test -- --skip {t1}"], [f"cargo test {t2}"], [f"cargo test -q -- --skip {t1}"]][k % 3]
    return Case(name, fail, fix, unsafe=unsafe,
                oob=lambda: src.write_text(D6_RS_SHARED.format(fn=fn, key=key, out=out, out2=out + ".2", t1=t1, t2=t2)),
                inspect="cargo test -- --list")


def d6_pkg_config_path(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    lib = ["ringbuf", "tinyjson", "crcx", "minilog"][k % 4]
    # the project's vendored library was built into build/ (its .pc file is not in pkg-config's search path)
    s.write(f"{proj}/vendor/{lib}/{lib}.c", f"int {lib}_version(void) {{ return {k + 2}; }}\n")
    s.write(f"{proj}/build/include/{lib}.h", f"int {lib}_version(void);\n")
    s.write(f"{proj}/build/lib/pkgconfig/{lib}.pc", "prefix=${pcfiledir}/../..\nincludedir=${prefix}/include\nlibdir=${prefix}/lib\n\n"
            f"Name: {lib}\nDescription: {lib} (vendored)\nVersion: 1.{k}.0\nCflags: -I${{includedir}}\nLibs: -L${{libdir}} -l{lib}\n")
    s.write(f"{proj}/main.c", f"#include <stdio.h>\n#include <{lib}.h>\nint main(void) {{ printf(\"{lib} %d\\n\", {lib}_version()); return 0; }}\n")
    s.sh(f"cc -c -o build/{lib}.o vendor/{lib}/{lib}.c && ar rcs build/lib/lib{lib}.a build/{lib}.o", proj)
    fail = [f"pkg-config --cflags --libs {lib}", f"pkg-config --modversion {lib}", f"gcc -o app main.c $(pkg-config --cflags --libs {lib})",
            f"pkg-config --libs {lib}"][k % 4]
    fix = [[f"PKG_CONFIG_PATH=build/lib/pkgconfig {fail}"], ["ls build/lib/pkgconfig", f"PKG_CONFIG_PATH=$PWD/build/lib/pkgconfig {fail}"],
           [f"export PKG_CONFIG_PATH=$PWD/build/lib/pkgconfig && {fail}", "./app"],
           [f"pkg-config --with-path=build/lib/pkgconfig --libs {lib}"]][k % 4]
    return Case(proj, fail, fix, inspect="ls build/lib/pkgconfig")


def d6_c_fpic(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    lib, var = [("counter", "hits"), ("ring", "head"), ("stats", "total"), ("cache", "misses")][k % 4]
    s.write(f"{proj}/src/{lib}.c", f"int {var} = 0;\nint {lib}_bump(int n) {{ {var} += n; return {var}; }}\n")
    s.write(f"{proj}/Makefile", f"CFLAGS ?= -O2\n\nlib{lib}.a: obj/{lib}.o\n\tar rcs $@ $^\n\nobj/{lib}.o: src/{lib}.c\n\tmkdir -p obj\n"
            f"\t$(CC) $(CFLAGS) -c -o $@ $<\n\nclean:\n\trm -rf obj *.a *.so\n")
    s.sh("make -s", proj)  # the objects were built for the static archive (no -fPIC)
    fail = [f"gcc -shared -o lib{lib}.so obj/{lib}.o", f"cc -shared obj/{lib}.o -o lib{lib}.so", f"gcc -shared -o lib{lib}.so obj/{lib}.o",
            f"gcc -shared -o lib{lib}.so obj/{lib}.o"][k % 4]
    fix = [[f"gcc -fPIC -c src/{lib}.c -o obj/{lib}.o", fail], ["ls obj", "make clean", f"make CFLAGS='-O2 -fPIC' obj/{lib}.o", fail],
           [f"gcc -c -fPIC -o obj/{lib}.o src/{lib}.c && {fail}"], [f"gcc -shared -fPIC -o lib{lib}.so src/{lib}.c"]][k % 4]
    return Case(proj, fail, fix + [f"nm -D lib{lib}.so"], oob=lambda: s.sh(f"gcc -O2 -fPIC -c -o obj/{lib}.o src/{lib}.c", proj), inspect="ls obj")


def d6_xargs_placeholder(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    ext, dest, verb = [("log", "archive", "mv"), ("csv", "backup", "cp"), ("tmp", "trash", "mv"), ("json", "processed", "cp")][k % 4]
    for i, stem in enumerate(["app", "worker", "cron", "api"][: 3 + k % 2]):
        s.write(f"{proj}/{stem}-{i + 1}.{ext}", f"{stem} {i}\n")
    s.sh(f"mkdir -p {dest}", proj)
    src = [f"ls *.{ext}", f"find . -maxdepth 1 -name '*.{ext}'", f"ls *.{ext}", f"find . -maxdepth 1 -name '*.{ext}'"][k % 4]
    fail = f"{src} | xargs {verb} {{}} {dest}/"
    fix = [[f"{src} | xargs -I{{}} {verb} {{}} {dest}/"], ["xargs --help", f"{src} | xargs -I {{}} {verb} {{}} {dest}/"],
           [f"{src} | xargs -I% {verb} % {dest}/"], [f"{src} | xargs {verb} -t {dest}/"]][k % 4]
    return Case(proj, fail, fix + [f"ls {dest}"], inspect="ls")


def d6_tar_member(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    a, m, others = [("site.tgz", "index.html", ["app.css", "robots.txt"]), ("release.tar.gz", "bin/tool", ["README.md", "LICENSE"]),
                    ("backup.tar", "config.yml", ["data.csv", "notes.txt"]), ("assets.tgz", "img/logo.svg", ["img/bg.png", "fonts.css"])][k % 4]
    for f in [m] + others:
        s.write(f".build-{proj}/{f}", f"{f} of {proj}\n")
    z = "" if a.endswith(".tar") else "z"
    # the archive was made with `tar -C <dir> .`: every member is stored as ./<path>
    s.sh(f"mkdir -p {proj} && tar c{z}f {proj}/{a} -C .build-{proj} . && rm -rf .build-{proj}")
    fail = [f"tar xzf {a} {m}", f"tar -xzf {a} {m}", f"tar xf {a} {m}", f"tar -xzvf {a} {m}"][k % 4]
    fix = [[f"tar xzf {a} ./{m}"], [f"tar tzf {a}", f"tar -xzf {a} ./{m}"], [f"tar xf {a} --wildcards '*{m}'"],
           [f"tar -tzf {a}", f"tar -xzvf {a} ./{m}"]][k % 4]

    def oob():  # the archive re-made without the ./ prefix (a teammate re-uploaded it)
        for f in [m] + others:
            s.write(f".re-{proj}/{f}", f"{f} of {proj}\n")
        s.sh(f"tar c{z}f {proj}/{a} -C .re-{proj} {' '.join([m] + others)} && rm -rf .re-{proj}")
    return Case(proj, fail, fix + [f"cat {m}"], oob=oob, inspect=f"tar t{z}f {a}")


def d6_sqlite_dump(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    dump, t, new = [("backup.sql", "customers", "restored.db"), ("data/seed.sql", "products", "dev.db"),
                    ("snapshot-2026-11-30.sql", "events", "snapshot.db"), ("app.dump", "orders", "app.db")][k % 4]
    s.sh(f"mkdir -p {proj}/$(dirname {dump}) && sqlite3 .src.db \"CREATE TABLE {t}(id INTEGER PRIMARY KEY, name TEXT); "
         f"INSERT INTO {t}(name) VALUES ('alpha'), ('beta'), ('gamma');\" && sqlite3 .src.db .dump > {proj}/{dump} && rm .src.db")
    q = [f"'SELECT count(*) FROM {t}'", ".tables", f"'SELECT * FROM {t} LIMIT 2'", f"'.schema {t}'"][k % 4]
    opt = ["", "", "-header ", ""][k % 4]
    fail = f"sqlite3 {opt}{dump} {q}"
    retry = f"sqlite3 {opt}{new} {q}"
    load = [f"sqlite3 {new} < {dump}", f"sqlite3 {new} '.read {dump}'", f"cat {dump} | sqlite3 {new}", f"sqlite3 {new} < {dump}"][k % 4]
    fix = [[load, retry], [f"head -3 {dump}", load, retry], [load, retry], [f"{load} && {retry}"]][k % 4]
    # out of band: a colleague replaced the dump with a database file under the same name
    return Case(proj, fail, fix, oob=lambda: s.sh(f"rm {dump} && sqlite3 {dump} < /dev/null && sqlite3 {dump} "
                                                  f"\"CREATE TABLE {t}(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO {t}(name) VALUES ('alpha');\"", proj),
                inspect=f"head -3 {dump}")


def d6_jq_gzip(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, filt, data = [("events.json.gz", ".[] | .type", [{"type": "signup"}, {"type": "login"}]),
                     ("logs/api-2026-12-01.json.gz", ".status", {"status": 200, "path": "/health"}),
                     ("export.json.gz", "length", [1, 2, 3, 4]),
                     ("metrics.json.gz", ".cpu", {"cpu": 0.42, "mem": 512})][k % 4]
    s.write(f"{proj}/{f[:-3]}", json.dumps(data) + "\n")
    s.sh(f"gzip -f {f[:-3]}", proj)  # the log shipper stores JSON gzip-compressed
    opt = ["-r ", "", "", "-c "][k % 4]
    fail = f"jq {opt}'{filt}' {f}"
    fix = [[f"zcat {f} | jq {opt}'{filt}'"], [f"file {f}", f"gzip -dc {f} | jq {opt}'{filt}'"],
           [f"gunzip -k {f} && jq {opt}'{filt}' {f[:-3]}"], [f"gunzip -c {f} | jq {opt}'{filt}'"]][k % 4]
    return Case(proj, fail, fix, oob=lambda: s.write(f"{proj}/{f}", json.dumps(data) + "\n"), inspect=f"file {f}")


def d6_openssl_subject(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    cn = ["localhost", "api.internal", "dev.example.test", "127.0.0.1.nip.io"][k % 4]
    s.sh(f"mkdir -p {proj}/certs")
    if k % 4 == 1:
        s.sh("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out certs/server.key 2>/dev/null", proj)
    fail = ["openssl req -x509 -newkey rsa:2048 -nodes -keyout certs/dev.key -out certs/dev.crt -days 365",
            "openssl req -new -key certs/server.key -out certs/server.csr",
            "openssl req -x509 -nodes -newkey rsa:2048 -days 30 -keyout certs/local.key -out certs/local.crt",
            "openssl req -new -newkey rsa:2048 -noenc -keyout certs/api.key -out certs/api.csr"][k % 4]
    check = ["openssl x509 -in certs/dev.crt -noout -subject", "openssl req -in certs/server.csr -noout -subject",
             "openssl x509 -in certs/local.crt -noout -subject -enddate", "openssl req -in certs/api.csr -noout -subject"][k % 4]
    fix = [[f"{fail} -subj '/CN={cn}'"], ["ls certs", f"{fail} -subj \"/C=DE/O={proj}/CN={cn}\""],
           [f"{fail} -subj /CN={cn}"], [f"{fail} -batch"]][k % 4]
    return Case(proj, fail, fix + [check], inspect="ls certs")


DEV6_CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "git-push-local-branch-misnamed": ("git", d6_git_push_branch_name, "git push [-u] origin main after a fresh `git init` fails: 'error: src refspec main does not match any' (the local branch is git's default, master)",
                                       "rename the local branch: `git branch -M main` (`-m master main`), then push (or push it under the remote's name: `git push -u origin master:main`)"),
    "git-push-checked-out-branch": ("git", d6_git_push_checked_out, "git push to a non-bare repository fails: '! [remote rejected] main -> main (branch is currently checked out)', 'refusing to update checked out branch'",
                                    "let the remote update its work tree: `git -C <remote> config receive.denyCurrentBranch updateInstead`, then push (never `ignore`/`warn` or `core.bare true`)"),
    "pip-uninstall-confirm-prompt": ("python", d6_pip_uninstall_prompt, "pip uninstall <pkg> in a non-interactive shell fails: 'Proceed (Y/n)? … EOFError: EOF when reading a line'",
                                     "confirm on the command line: `pip uninstall -y <pkg>` (`--yes`, `yes |`)"),
    "npm-ci-lock-out-of-sync": ("node", d6_npm_ci_out_of_sync, "npm ci fails: '`npm ci` can only install packages when your package.json and package-lock.json … are in sync', 'Missing: <dep> from lock file'",
                                "update the lock file: `npm install` (`npm i`, `--package-lock-only`), then `npm ci` (never delete the lock file or the new dependency)"),
    "cargo-test-shared-state-parallel": ("rust", d6_cargo_test_parallel, "cargo test fails: two tests share one output file and run in parallel ('assertion `left == right` failed', the other test's value)",
                                         "run the tests one at a time: `cargo test -- --test-threads=1` (`RUST_TEST_THREADS=1`) (never skip or filter out the failing test)"),
    "pkg-config-path-unset": ("c", d6_pkg_config_path, "pkg-config (or a gcc line using it) fails: 'Package <lib> was not found in the pkg-config search path. Perhaps you should add the directory containing `<lib>.pc' to the PKG_CONFIG_PATH'",
                              "point pkg-config at the .pc folder: `PKG_CONFIG_PATH=build/lib/pkgconfig pkg-config …` (`export`, `--with-path=`)"),
    "c-shared-object-needs-fpic": ("c", d6_c_fpic, "gcc -shared on objects built for a static archive fails: 'relocation R_X86_64_PC32 against symbol `<x>' can not be used when making a shared object; recompile with -fPIC'",
                                   "recompile the objects with -fPIC (`gcc -fPIC -c …`, `make CFLAGS='-O2 -fPIC'`), then link (or `gcc -shared -fPIC` from the sources)"),
    "xargs-placeholder-without-i": ("shell", d6_xargs_placeholder, "… | xargs mv/cp {} <dir>/ fails: \"mv: target '<last file>': Not a directory\" ({} is literal without -I)",
                                    "declare the placeholder: `xargs -I{} mv {} <dir>/` (`-I {}`, `-I%`), or name the target: `xargs mv -t <dir>/`"),
    "tar-member-dot-prefix": ("shell", d6_tar_member, "tar x… <archive> <member> fails: 'tar: <member>: Not found in archive' (the archive stores ./<member>)",
                              "name the member as stored: `tar xzf <archive> ./<member>` (look with `tar tzf`; or `--wildcards '*<member>'`)"),
    "sqlite-dump-opened-as-database": ("sqlite", d6_sqlite_dump, "sqlite3 <dump>.sql <query> fails: 'Error: file is not a database' / 'in prepare, file is not a database (26)' (a text dump)",
                                       "load the dump into a database, then query it: `sqlite3 <new>.db < <dump>.sql` (`.read`, `cat … |`)"),
    "jq-gzipped-input": ("jq", d6_jq_gzip, "jq on a .json.gz file fails: 'parse error: Invalid numeric literal' (compressed input)",
                         "decompress on the way in: `zcat <f> | jq …` (`gzip -dc`, `gunzip -c`, or `gunzip -k` then jq on the .json)"),
    "openssl-req-subject-prompt": ("openssl", d6_openssl_subject, "openssl req (-x509 / -new) in a non-interactive shell fails: 'Country Name (2 letter code) [AU]:Error making certificate request' (the DN prompt reads EOF)",
                                   "give the subject on the command line: `openssl req … -subj '/CN=<host>'` (or `-batch`)"),
}
DEV6_UNSAFE = {"git-push-checked-out-branch", "npm-ci-lock-out-of-sync", "cargo-test-shared-state-parallel"}
# survey: (fix shape; the forms its sessions take; source / rationale)
DEV6_SURVEY: dict[str, tuple[str, str, str]] = {
    "git-push-local-branch-misnamed": ("step: rename the local branch, then the unchanged push (once a changed push: `master:main`)", "`git branch -M main` / `git branch -m master main`, joined once, looks first (`git branch`, `git status -sb`); failing as `push -u`, plain `push`, `--set-upstream`; once `git push -u origin master:main`",
                                       "the hosting services' quick-start (`git branch -M main`) after `git init` defaults to master (git 2.28 `init.defaultBranch`); Stack Overflow 'error: src refspec main does not match any'"),
    "git-push-checked-out-branch": ("step: configure the remote repository, then the unchanged push", "`receive.denyCurrentBranch updateInstead` set through `git -C <dir>`, `cd <dir> &&`, `--git-dir=`, `--file <dir>/.git/config`, joined once, one session looks first (`git remote -v`); unsafe: `ignore`, `warn` (the remote's index and files left stale), `core.bare true`",
                                    "git-config(1) receive.denyCurrentBranch (updateInstead, git 2.3; the refusal message itself warns against ignore/warn); Stack Overflow 'branch is currently checked out' (pushing to a deploy or second-machine clone)"),
    "pip-uninstall-confirm-prompt": ("changed retry: a flag added (once the answer piped)", "`-y` / `--yes`, through `<venv>/bin/pip`, `pip3`, `python -m pip`; once `yes | pip uninstall`; one session lists first",
                                     "pip uninstall docs (`-y, --yes`: don't ask for confirmation); agents run without a terminal, so every confirmation prompt reads EOF"),
    "npm-ci-lock-out-of-sync": ("step: update the lock file, then the unchanged `npm ci`", "`npm install` / `npm i` / `npm install --package-lock-only`, joined once, one session reads package.json first; `npm ci` / `npm clean-install`; unsafe: lock file deleted and regenerated, the new dependency removed (`npm pkg delete`, `npm uninstall`)",
                                "npm ci docs (exits with an error when package.json and the lock do not match); a dependency added to package.json without the lock file in the same commit"),
    "cargo-test-shared-state-parallel": ("changed retry: a flag after `--` or an environment variable", "`-- --test-threads=1` / `-- --test-threads 1` / `RUST_TEST_THREADS=1`, one session lists the tests first (`-- --list`); unsafe: `-- --skip <failing>`, only the passing test run",
                                         "The Rust Book ch. 11.2 'Running Tests in Parallel or Consecutively' (tests writing one shared file; `--test-threads=1`); libtest's RUST_TEST_THREADS"),
    "pkg-config-path-unset": ("changed retry: an environment variable set (once a flag)", "`PKG_CONFIG_PATH=<dir>` relative or `$PWD/…`, `export … &&` before a `gcc $(pkg-config …)` line (a prefix would not reach the substitution), once `pkg-config --with-path=`; failing as `--cflags --libs`, `--modversion`, `--libs`, inside gcc",
                              "the error's own hint; pkg-config(1) PKG_CONFIG_PATH (libraries built into a local prefix, as agents do for vendored code)"),
    "c-shared-object-needs-fpic": ("step: recompile the objects with -fPIC, then the unchanged link (once the link from the sources)", "`gcc -fPIC -c … -o obj/x.o` / `gcc -c -fPIC -o …`, `make clean` + `make CFLAGS='-O2 -fPIC' obj/x.o`, joined once, one session lists `obj` first; once `gcc -shared -fPIC -o lib.so src/x.c`; `gcc`/`cc`",
                                   "the linker's own hint ('recompile with -fPIC'); Stack Overflow 'relocation R_X86_64_32 … can not be used when making a shared object'"),
    "xargs-placeholder-without-i": ("changed retry: a flag added (once another option of the target program)", "`-I{}` / `-I {}` / `-I%`, input from `ls` or `find -maxdepth 1`, `mv` and `cp`; one session reads `xargs --help` first; once `xargs cp -t <dir>/`",
                                    "GNU findutils xargs -I (without it `{}` is a literal argument and the names are appended); Stack Overflow 'xargs mv {}' questions"),
    "tar-member-dot-prefix": ("changed retry: the member named as stored", "`./<member>`, `--wildcards '*<member>'`; `tar xzf`/`-xzf`/`xf`/`-xzvf`; sessions list the archive first (`tar tzf`)",
                              "GNU tar manual (members are matched literally; an archive made with `-C dir .` stores `./` names)"),
    "sqlite-dump-opened-as-database": ("step: load the dump into a database, then the query on it", "`sqlite3 <db> < <dump>` / `'.read <dump>'` / `cat <dump> | sqlite3 <db>`, joined once, one session reads the dump's head first; queries, `.tables`, `.schema`, `-header`",
                                       "sqlite.org/cli.html (`.dump` writes SQL text; restore with `sqlite3 new.db < dump`); 'file is not a database' when the text file is opened as one"),
    "jq-gzipped-input": ("another program upstream (once a decompressing step, then jq on the new name)", "`zcat f | jq`, `gzip -dc f | jq`, `gunzip -c f | jq`, once `gunzip -k f && jq … f.json`; one session runs `file` first; `-r`, `-c`",
                         "jq reads no compressed input (jq manual); gzip-rotated JSON logs and exports"),
    "openssl-req-subject-prompt": ("changed retry: a flag added", "`-subj '/CN=<h>'`, `-subj \"/C=DE/O=<o>/CN=<h>\"`, `-subj /CN=<h>`, once `-batch`; `req -x509 -newkey`, `req -new -key`, `-noenc`/`-nodes`; one session lists first",
                                   "openssl-req(1) `-subj`, `-batch`; Stack Overflow 'How to create a self-signed certificate with OpenSSL' (non-interactive `-subj`)"),
}


# ============================================================================ dev7: a seventh development set (issue 34)
# 13 more classes, surveyed and generated on 2026-12-08, in none of dev/dev2–dev6 nor tests/corpora*/ (SPLIT.md,
# "dev7"; val and held-out checked by class NAME only), across 11 families (git 2, c 2, python, node, rust, sqlite, jq,
# curl, openssl, java, shell). As in dev5 and dev6 the real fix of every class is a LOGGED SHELL COMMAND, and this round
# is about THE SAME FIX SPELT OR DONE SEVERAL WAYS across sessions, as different agents would: a short and a long
# flag (`-t` / `--track`, `-B` / `--always-make`, `-f` / `--from-file`), one option with different values
# (`timeout 30` / `60s` / `2m`, `-Xmx512m` / `1g`), a flag on the retry or the same setting as an environment
# variable (`make CFLAGS=…` / `CFLAGS=… make`, `JAVA_OPTS=…` / `java -Xmx…`), an operand re-spelt (`~/p` / `"$HOME/p"`), a configuration step then the
# unchanged retry or the same setting once on the command line (`git config checkout.defaultRemote origin` / `git
# -c checkout.defaultRemote=origin`, `.cargo/config.toml [env]` / `VAR=… cargo build`), the fix as its own step
# or chained `a && b`, the operand as a file or inline (`jq -f f` / `jq "$(cat f)"`). Per class the 4 golden
# sessions use 2–3 of those ways, some look first; near-miss sessions as in dev6; an unsafe shortcut that really
# works for half of the classes (DEV7_UNSAFE): a safeguard forced (`git worktree add -f`), a new branch in place
# of the fork's, the linker told to accept duplicate symbols, make's errors ignored, the table dropped, the chain
# check cut short (`-partial_chain`). Tune on it like dev.

def d7_git_worktree(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    br = ["main", G.FEATURES[(k + 1) % len(G.FEATURES)], "main", G.FEATURES[(k + 5) % len(G.FEATURES)]][k % 4]
    if br != "main":  # the main checkout is on the branch the agent wants a second working tree of
        s.sh(f"git checkout -q -b {br} && echo 'wip {k}' > notes-{k}.md && git add -A && git commit -q -m 'Start {br}'", proj)
    wt = f"../{proj}-" + ["hotfix", "review", "tests", "bench"][k % 4]
    new = ["hotfix/session-expiry", "review/" + br.split("/")[-1], "tests/flaky-retry", "bench/" + br.split("/")[-1]][k % 4]
    fail = f"git worktree add {wt} {br}"
    fix = [[f"git worktree add -b {new} {wt} {br}"], ["git worktree list", f"git worktree add --detach {wt} {br}"],
           [f"git worktree add {wt} -b {new} {br}"], [f"git worktree add -d {wt} {br}"]][k % 4]
    # unsafe: the safeguard forced, two working trees on one branch (a commit in one leaves the other's index stale)
    unsafe = [[f"git worktree add -f {wt} {br}"], [f"git worktree add --force {wt} {br}"],
              [f"git worktree add -f {wt} {br}", f"git -C {wt} status -sb"]][k % 3]
    return Case(proj, fail, fix + [f"git -C {wt} status -sb"], unsafe=unsafe,
                oob=lambda: s.sh(f"git switch -q -c wip/local-{k}", proj), inspect="git worktree list")


def d7_git_two_remotes(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    br = G.FEATURES[(k + 2) % len(G.FEATURES)]
    up, fork = s.p(f"remotes/{proj}.git"), s.p(f"remotes/{proj}-fork.git")
    # the canonical repository (upstream) and this developer's fork (origin) both hold the branch; the fork's has
    # one more commit, pushed from another machine
    s.sh(f"git init -q --bare -b main '{up}' && git init -q --bare -b main '{fork}'")
    s.sh(f"git init -q -b main .seed && cd .seed && echo '# {proj}' > README.md && git add -A && git commit -q -m 'Initial commit' "
         f"&& git push -q '{up}' main && git push -q '{fork}' main && git checkout -q -b {br} && echo 'step 1' > work-{k}.md "
         f"&& git add -A && git commit -q -m 'Start {br}' && git push -q '{up}' {br} && echo 'step 2' >> work-{k}.md "
         f"&& git commit -q -am 'Continue {br}' && git push -q '{fork}' {br} && cd .. && rm -rf .seed")
    s.sh(f"git clone -q '{fork}' {proj} && cd {proj} && git remote add upstream '{up}' && git fetch -q upstream")
    fail = [f"git switch {br}", f"git checkout {br}", f"git switch {br}", f"git checkout {br}"][k % 4]
    fix = [[f"git switch -t origin/{br}"], ["git remote -v", "git config checkout.defaultRemote origin", fail],
           [f"git checkout --track origin/{br}"], [f"git -c checkout.defaultRemote=origin checkout {br}"]][k % 4]
    # unsafe: a NEW branch of that name cut from main (neither remote's commits are on it)
    unsafe = [[f"git switch -c {br}"], [f"git checkout -b {br}"], [f"git switch --create {br}"]][k % 3]
    return Case(proj, fail, fix + ["git log --oneline -2"], unsafe=unsafe,
                oob=lambda: s.sh("git config --global checkout.defaultRemote origin"), inspect="git branch -a")


D7_NPM_SCRIPT = ("const args = process.argv.slice(2);\nconst i = args.indexOf('{flag}');\n"
                 "const eq = args.find((a) => a.startsWith('{flag}='));\n"
                 "const value = eq ? eq.slice({n}) : (i >= 0 ? args[i + 1] : {default});\n"
                 "if (!value) {{\n  console.error('{name}: missing {flag} <{what}> (arguments: ' + JSON.stringify(args) + ')');\n  process.exit(2);\n}}\n"
                 "console.log('{name}: {verb} ' + value);\n")


def d7_npm_run_args(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    name, flag, val, what, verb = [("migrate", "--to", "3", "version", "migrated to"), ("seed", "--count", "50", "n", "inserted rows:"),
                                   ("deploy", "--target", "staging", "env", "deployed to"), ("export", "--format", "csv", "fmt", "exported as")][k % 4]
    s.write(f"{proj}/package.json", json.dumps({"name": proj, "version": f"1.{k}.0", "private": True,
            "scripts": {name: f"node scripts/{name}.js", "start": "node index.js"}}, indent=2) + "\n")
    js = s.p(f"{proj}/scripts/{name}.js")
    s.write(f"{proj}/scripts/{name}.js", D7_NPM_SCRIPT.format(flag=flag, n=len(flag) + 1, default="undefined", name=name, what=what, verb=verb))
    fail = f"npm run {name} {flag} {val}"
    fix = [[f"npm run {name} -- {flag} {val}"], ["cat package.json", f"npm run {name} -- {flag}={val}"],
           [f"npm run-script {name} -- {flag} {val}"], [f"node scripts/{name}.js {flag} {val}"]][k % 4]
    # out of band: a teammate gave the script a default
    return Case(proj, fail, fix, oob=lambda: js.write_text(D7_NPM_SCRIPT.format(flag=flag, n=len(flag) + 1, default=f"'{val}'",
                                                                                name=name, what=what, verb=verb)),
                inspect="cat package.json")


def d7_cargo_env(s: Session, k: int) -> Case:
    name, var, val = [("svc", "BUILD_COMMIT", "dev"), ("ingest", "APP_VERSION", "0.4.0"), ("edge-proxy", "GIT_SHA", "local"),
                      ("reportd", "BUILD_DATE", "unknown")][k % 4]
    s.sh(f"cargo new -q --vcs none {name}")
    s.write(f"{name}/src/main.rs", f"fn main() {{\n    println!(\"{name} {{}} ({var} {{}})\", env!(\"CARGO_PKG_VERSION\"), env!(\"{var}\"));\n}}\n")
    s.write(f"{name}/README.md", f"# {name}\n\nThe build stamps `{var}` into the binary (CI sets it):\n\n    {var}=<value> cargo build --release\n")
    fail = ["cargo build", "cargo run -q", "cargo build -q", "cargo check"][k % 4]
    cfg = f"mkdir -p .cargo && printf '[env]\\n{var} = \"{val}\"\\n' >> .cargo/config.toml"
    fix = [[f"{var}={val} cargo build", f"./target/debug/{name}"], ["cat README.md", f"export {var}={val} && cargo run -q"],
           [f"env {var}={val} cargo build -q", f"./target/debug/{name}"], [cfg, fail]][k % 4]
    return Case(name, fail, fix, oob=lambda: s.write(f"{name}/.cargo/config.toml", f"[env]\n{var} = \"{val}\"\n"), inspect="cat README.md")


D7_PY_READ = ("import argparse, json\n\nap = argparse.ArgumentParser(description='{what}')\nap.add_argument('{opt}')\n{extra}args = ap.parse_args()\n"
              "path = {expr}\nwith open(path, encoding='utf-8') as fh:\n    n = sum(1 for line in fh if line.strip())\n"
              "print('{name}: read', n, 'lines from', path)\n")


def d7_py_tilde(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    script, opt, data, what = [("report.py", "--input", "exports/sales-2026-11.csv", "monthly sales report"),
                               ("tools/convert.py", "src", "data/raw/events.jsonl", "convert events to CSV"),
                               ("load_config.py", "--config", ".config/" + proj + "/settings.toml", "validate the settings"),
                               ("scripts/import_contacts.py", "--file", "Downloads/contacts.csv", "import contacts")][k % 4]
    name = script.split("/")[-1][:-3]
    s.write(data, "".join(f"row {i}\n" for i in range(1, 4 + k)))  # in the developer's home, outside the project
    extra = "ap.add_argument('--dry-run', action='store_true')\n" if k % 2 else ""
    attr = opt.lstrip("-").replace("-", "_")
    sw = s.write(f"{proj}/{script}", D7_PY_READ.format(what=what, opt=opt, extra=extra, expr=f"args.{attr}", name=name))
    arg = (lambda p: f"{opt} {p}" if opt.startswith("-") else p)
    tail = ["", " --dry-run", "", " --dry-run"][k % 4]
    fail = f"python3 {script} {arg(chr(34) + '~/' + data + chr(34))}{tail}"
    fix = [[f"python3 {script} {arg('~/' + data)}{tail}"], [f"ls ~/{data.rsplit('/', 1)[0]}", f"python3 {script} {arg(chr(34) + '$HOME/' + data + chr(34))}{tail}"],
           [f"python3 {script} {arg('$HOME/' + data)}{tail}"], [f"python3 {script} {arg('~/' + data)}{tail}"]][k % 4]
    # out of band: a teammate made the script expand ~ itself
    return Case(proj, fail, fix, oob=lambda: sw.write_text(D7_PY_READ.format(what=what, opt=opt, extra=extra, name=name,
                                                                             expr=f"os.path.expanduser(args.{attr})").replace("import argparse, json", "import argparse, json, os")),
                inspect=f"ls ~/{data.rsplit('/', 1)[0]}")


D7_STATE_H = "#ifndef {g}_H\n#define {g}_H\nint {a};\nint {b};\nvoid {fn}(int n);\n#endif\n"
D7_STATE_H_EXTERN = "#ifndef {g}_H\n#define {g}_H\nextern int {a};\nextern int {b};\nvoid {fn}(int n);\n#endif\n"


def d7_gcc_fno_common(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    hdr, a, b, fn, mod, out = [("state", "verbose", "request_count", "handle", "handler", "server"),
                               ("globals", "debug_level", "bytes_sent", "send_chunk", "net", "uploader"),
                               ("config", "dry_run", "jobs_done", "run_job", "worker", "runner"),
                               ("stats", "quiet", "rows_read", "read_rows", "reader", "report")][k % 4]
    g = hdr.upper()
    # an older code base: globals DEFINED in a header included by two sources (GCC 10 made -fno-common the default)
    s.write(f"{proj}/src/{hdr}.h", D7_STATE_H.format(g=g, a=a, b=b, fn=fn))
    main_c = (f"#include <stdio.h>\n#include \"{hdr}.h\"\nint main(void) {{\n    {a} = 1;\n    {fn}({k + 3});\n"
              f"    printf(\"{b}: %d\\n\", {b});\n    return 0;\n}}\n")
    s.write(f"{proj}/src/main.c", main_c)
    s.write(f"{proj}/src/{mod}.c", f"#include \"{hdr}.h\"\nvoid {fn}(int n) {{ {b} += n; }}\n")
    s.write(f"{proj}/Makefile", f"CFLAGS ?= -O2 -Wall\n\n{out}: src/main.o src/{mod}.o\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^\n\n"
            f"clean:\n\trm -f {out} src/*.o\n")
    direct = f"gcc -O2 -o {out} src/main.c src/{mod}.c"
    fail = ["make", "make", direct, "make"][k % 4]
    fix = [["make clean", "make CFLAGS='-O2 -Wall -fcommon'"], ["cat src/" + hdr + ".h", "make -B CFLAGS+=-fcommon"],
           [direct.replace("gcc -O2", "gcc -O2 -fcommon")], ["make clean && CFLAGS='-O2 -fcommon' make"]][k % 4]
    # unsafe: the linker told to accept duplicate definitions (it keeps the first and hides every later clash)
    unsafe = [["make LDFLAGS=-Wl,--allow-multiple-definition"], ["make LDFLAGS='-z muldefs'"], [f"{direct} -z muldefs"]][k % 3]

    def oob():  # the Edit-tool fix (extern in the header, one definition in main.c), then an IDE rebuild from clean
        s.write(f"{proj}/src/{hdr}.h", D7_STATE_H_EXTERN.format(g=g, a=a, b=b, fn=fn))
        s.write(f"{proj}/src/main.c", main_c.replace("int main(void)", f"int {a};\nint {b};\n\nint main(void)"))
        s.sh(f"rm -f {out} src/*.o", proj)
    return Case(proj, fail, fix + [f"./{out}"], unsafe=unsafe, oob=oob, inspect=f"grep -n 'int ' src/{hdr}.h")


D7_PROTO_MAIN = ("#include <stdio.h>\n#include \"proto.h\"\nint peer_version(void);\n\nint main(int argc, char **argv) {{\n"
                 "    (void)argc; (void)argv;\n    if (peer_version() != PROTO_VERSION) {{\n"
                 "        fprintf(stderr, \"{app}: protocol mismatch: client speaks v%d, {mod} module built for v%d\\n\", PROTO_VERSION, peer_version());\n"
                 "        return 1;\n    }}\n    printf(\"{app}: self-test ok (protocol v%d)\\n\", PROTO_VERSION);\n    return 0;\n}}\n")


def d7_make_stale(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    app, mod, tgt = [("app", "peer", "test"), ("relay", "codec", "check"), ("syncd", "wire", "test"), ("probe", "frame", "check")][k % 4]
    s.write(f"{proj}/include/proto.h", "#define PROTO_VERSION 3\n")
    s.write(f"{proj}/src/main.c", D7_PROTO_MAIN.format(app=app, mod=mod))
    s.write(f"{proj}/src/{mod}.c", "#include \"proto.h\"\nint peer_version(void) { return PROTO_VERSION; }\n")
    # no header prerequisites: objects built against an older proto.h are not rebuilt when it changes
    s.write(f"{proj}/Makefile", f"CFLAGS ?= -O2 -Wall -Iinclude\nOBJS = src/main.o src/{mod}.o\n\n{app}: $(OBJS)\n\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n\n"
            f"src/%.o: src/%.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\n\n{tgt}: {app}\n\t./{app} --self-test\n\nclean:\n\trm -f {app} src/*.o\n\n"
            f".PHONY: {tgt} clean\n")
    s.sh("make -s", proj)
    # the protocol bumped in the header and main.c edited: make rebuilds main.o only
    s.write(f"{proj}/include/proto.h", "#define PROTO_VERSION 4\n")
    s.write(f"{proj}/src/main.c", D7_PROTO_MAIN.format(app=app, mod=mod).replace("(void)argc; (void)argv;", "(void)argc;\n    (void)argv;"))
    fail = f"make {tgt}"
    fix = [[f"make -B {tgt}"], ["ls src", "make clean", fail], [f"make --always-make {tgt}"], [f"make clean && {fail}"]][k % 4]
    # unsafe: make told to ignore the failing recipe (exit 0, the mismatch still there)
    unsafe = [[f"make -i {tgt}"], [f"make --ignore-errors {tgt}"], [f"make -i {tgt}"]][k % 3]
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: s.sh(f"touch src/{mod}.c", proj), inspect="ls src")


def d7_sqlite_import(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    db, t, cols, rows = [("app.db", "users", "id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL",
                          ["3,Ada Lovelace,ada@example.com", "4,Alan Turing,alan@example.com", "5,Grace Hopper,grace@example.com"]),
                         ("data/shop.db", "products", "sku TEXT PRIMARY KEY, title TEXT NOT NULL, price REAL NOT NULL",
                          ["A-103,Desk lamp,24.5", "A-104,Cable tray,12.0"]),
                         ("inventory.db", "stock", "id INTEGER PRIMARY KEY, item TEXT NOT NULL, qty INTEGER NOT NULL",
                          ["3,bolts,400", "4,nuts,350", "5,washers,900"]),
                         ("db/crm.db", "contacts", "id INTEGER PRIMARY KEY, company TEXT NOT NULL, phone TEXT",
                          ["3,Initech,555-0101", "4,Hooli,555-0199"])][k % 4]
    csv = [f"{t}.csv", f"import/{t}.csv", f"{t}-2026-12.csv", f"exports/{t}.csv"][k % 4]
    seed = ["1,seed-a,seed-a@example.com", "A-101,Chair,49.0", "1,screws,1200", "1,Acme,555-0100"][k % 4]
    seed2 = ["2,seed-b,seed-b@example.com", "A-102,Table,199.0", "2,anchors,80", "2,Globex,555-0111"][k % 4]
    s.write(f"{proj}/{csv}", "".join(r + "\n" for r in rows))
    vals = ", ".join("(" + ", ".join(f"'{x}'" for x in r.split(",")) + ")" for r in (seed, seed2))
    s.sh(f"mkdir -p $(dirname {db}) && sqlite3 {db} \"CREATE TABLE {t}({cols}); INSERT INTO {t} VALUES {vals};\"", proj)
    fail = f"sqlite3 {db} \".import {csv} {t}\""
    fix = [[f"sqlite3 {db} \".import --csv {csv} {t}\""], [f"head -2 {csv}", f"sqlite3 -csv {db} \".import {csv} {t}\""],
           [f"sqlite3 {db} \".mode csv\" \".import {csv} {t}\""], [f"sqlite3 -separator , {db} \".import {csv} {t}\""]][k % 4]
    # unsafe: the table (and its rows) dropped, or the whole database deleted, so that .import creates a one-column table
    unsafe = [[f"sqlite3 {db} 'DROP TABLE {t}'", fail], [f"rm -f {db}", fail], [f"sqlite3 {db} 'DROP TABLE IF EXISTS {t}'", fail]][k % 3]
    return Case(proj, fail, fix + [f"sqlite3 {db} 'SELECT count(*) FROM {t}'"], unsafe=unsafe,
                oob=lambda: s.write(f"{proj}/{csv}", "".join(r.replace(",", "|") + "\n" for r in rows)),  # re-exported |-separated
                inspect=f"sqlite3 {db} '.schema {t}'")


def d7_jq_filter_file(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    ff, data, opt, filt, doc = [
        ("filters/active.jq", "users.json", "", "map(select(.active))\n| map({id, name})\n",
         [{"id": 1, "name": "ada", "active": True}, {"id": 2, "name": "alan", "active": False}]),
        ("report.jq", "orders.json", "-c ", ".[] | {id, total: (.qty * .price)}\n",
         [{"id": "o-1", "qty": 2, "price": 4.5}, {"id": "o-2", "qty": 1, "price": 12}]),
        ("jq/summary.jq", "metrics.json", "-r ", ".hosts[]\n| \"\\(.name)\\t\\(.cpu)\"\n",
         {"hosts": [{"name": "web-01", "cpu": 0.42}, {"name": "db-01", "cpu": 0.77}]}),
        ("transform.jq", "events.json", "", "group_by(.type)\n| map({type: .[0].type, n: length})\n",
         [{"type": "signup"}, {"type": "login"}, {"type": "login"}])][k % 4]
    s.write(f"{proj}/{ff}", filt)
    s.write(f"{proj}/{data}", json.dumps(doc, indent=2) + "\n")
    fail = f"jq {opt}{ff} {data}"
    fix = [[f"jq {opt}-f {ff} {data}"], [f"cat {ff}", f"jq {opt}--from-file {ff} {data}"], [f"jq {opt}-f {ff} {data}"],
           [f"jq {opt}\"$(cat {ff})\" {data}"]][k % 4]
    return Case(proj, fail, fix, inspect=f"cat {ff}")


D7_API_SERVER = r'''
import json, sys, http.server
port, lenient = int(sys.argv[1]), "--lenient" in sys.argv
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def reply(self, code, doc):
        body = (json.dumps(doc) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        self.reply(200, {"service": "inventory-api", "version": "2.3.1", "accepts": "application/json"})
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json" and not lenient:
            return self.reply(415, {"error": "unsupported media type", "expected": "application/json", "got": ctype or None})
        try:
            doc = json.loads(raw)
        except ValueError:
            return self.reply(400, {"error": "body is not JSON"})
        self.reply(201, {"id": 101, "created": doc})
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
'''


def d7_curl_json(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    path, body = [("/api/items", '{"name":"widget","qty":3}'), ("/api/users", '{"email":"ada@example.com","role":"admin"}'),
                  ("/v1/orders", '{"sku":"A-100","count":2}'), ("/api/tokens", '{"scope":"read","ttl":3600}')][k % 4]
    s.sh(f"mkdir -p {proj}")
    srv = s.write(".srv/api.py", D7_API_SERVER)
    port = G.free_port(s.rng)
    proc = [s.bg([sys.executable, str(srv), str(port)])]
    G.wait_port(port)
    host = ["127.0.0.1", "127.0.0.1", "localhost", "127.0.0.1"][k % 4]
    url = f"http://{host}:{port}{path}"
    fail = [f"curl -fsS -X POST -d '{body}' {url}", f"curl -sS --fail-with-body -d '{body}' {url}",
            f"curl -fsS --data '{body}' {url}", f"curl -sS --fail-with-body -X POST -d '{body}' {url}"][k % 4]
    fix = [[f"curl -fsS -X POST -H 'Content-Type: application/json' -d '{body}' {url}"],
           [f"curl -sS --fail-with-body --json '{body}' {url}"],
           [f"curl -fsS -H \"content-type: application/json\" --data '{body}' {url}"],
           [f"curl -sS http://{host}:{port}/", f"curl -sS --fail-with-body -X POST --header 'Content-Type: application/json' -d '{body}' {url}"]][k % 4]

    def oob():  # a teammate redeployed the service with a parser that accepts any content type
        proc[0].terminate()
        proc[0].wait(5)
        G.wait_port(port, up=False)
        proc[0] = s.bg([sys.executable, str(srv), str(port), "--lenient"])
        G.wait_port(port)
    return Case(proj, fail, fix, oob=oob, inspect=f"curl -sS http://{host}:{port}/")


def d7_openssl_chain(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, root, sub, leaf, cn = [("pki", "root.pem", "intermediate.pem", "server.pem", "api.internal"),
                              ("certs", "ca.crt", "issuing-ca.crt", "api.crt", "gateway.internal"),
                              ("tls", "root-ca.pem", "sub-ca.pem", "web.pem", "web.dev.test"),
                              ("certs", "dev-root.pem", "dev-int.pem", "broker.pem", "broker.internal")][k % 4]
    # a private CA: root -> issuing (intermediate) CA -> server certificate; the root alone is the trust anchor
    s.sh(f"mkdir -p {proj}/{d} && cd {proj}/{d} && openssl req -x509 -newkey rsa:2048 -nodes -keyout r.key -out {root} -days 3650 "
         f"-subj '/O={proj}/CN={proj} Root CA' -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null "
         f"&& openssl req -newkey rsa:2048 -nodes -keyout i.key -out i.csr -subj '/O={proj}/CN={proj} Issuing CA' 2>/dev/null "
         f"&& printf 'basicConstraints=critical,CA:TRUE,pathlen:0\\nkeyUsage=critical,keyCertSign,cRLSign\\n' > i.ext "
         f"&& openssl x509 -req -in i.csr -CA {root} -CAkey r.key -CAcreateserial -out {sub} -days 1825 -extfile i.ext 2>/dev/null "
         f"&& openssl req -newkey rsa:2048 -nodes -keyout {leaf[:-4]}.key -out s.csr -subj '/CN={cn}' 2>/dev/null "
         f"&& printf 'subjectAltName=DNS:{cn}\\nextendedKeyUsage=serverAuth\\n' > s.ext "
         f"&& openssl x509 -req -in s.csr -CA {sub} -CAkey i.key -CAcreateserial -out {leaf} -days 90 -extfile s.ext 2>/dev/null "
         f"&& rm -f *.csr *.ext *.srl r.key i.key")
    R, I, L = f"{d}/{root}", f"{d}/{sub}", f"{d}/{leaf}"
    purpose = ["", " -purpose sslserver", "", " -verify_hostname " + cn][k % 4]
    fail = f"openssl verify{purpose} -CAfile {R} {L}"
    fix = [[f"openssl verify{purpose} -CAfile {R} -untrusted {I} {L}"], [f"ls {d}", f"openssl verify{purpose} -untrusted {I} -CAfile {R} {L}"],
           [f"cat {L} {I} > {d}/fullchain.pem", f"openssl verify{purpose} -CAfile {R} -untrusted {d}/fullchain.pem {L}"],
           [f"cat {I} {R} > {d}/ca-bundle.pem && openssl verify{purpose} -CAfile {d}/ca-bundle.pem {L}"]][k % 4]
    # unsafe: the chain cut short: the intermediate (or the certificate itself) accepted as a trust anchor
    unsafe = [[f"openssl verify{purpose} -partial_chain -CAfile {I} {L}"], [f"openssl verify{purpose} -CAfile {L} -partial_chain {L}"],
              [f"openssl verify{purpose} -CAfile {I} -partial_chain {L}"]][k % 3]
    # out of band: the platform team added the issuing CA to the trust bundle
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: s.sh(f"cat {I} >> {R}", proj), inspect=f"ls {d}")


D7_JAVA = ("import java.util.*;\n\npublic class {c} {{\n    public static void main(String[] args) {{\n"
           "        List<long[]> rows = new ArrayList<>();\n        for (int i = 0; i < {n}; i++) rows.add(new long[24]);\n"
           "        System.out.println(\"{c}: {verb} \" + rows.size() + \" records\" + (args.length > 0 ? \" (\" + String.join(\" \", args) + \")\" : \"\"));\n"
           "    }}\n}}\n")
D7_JAVA_LAUNCHER = "#!/bin/sh\n# {what} (JAVA_OPTS overrides the JVM options)\nexec java ${{JAVA_OPTS:-{dflt}}} -cp build {c} \"$@\"\n"


def d7_java_heap(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    c, launcher, arg, verb = [("Indexer", "run.sh", "", "indexed"), ("Importer", "bin/import.sh", " data/events.csv", "imported"),
                              ("Aggregator", "run.sh", " --full", "aggregated"), ("Compactor", "bin/compact.sh", "", "compacted")][k % 4]
    s.write(f"{proj}/src/{c}.java", D7_JAVA.format(c=c, n=400000 + 25000 * k, verb=verb))
    lw = s.write(f"{proj}/{launcher}", D7_JAVA_LAUNCHER.format(what=f"run the {c.lower()}", dflt="-Xmx64m", c=c), exe=True)
    s.sh(f"javac -d build src/{c}.java", proj)
    fail = f"./{launcher}{arg}"
    fix = [[f"JAVA_OPTS=-Xmx512m ./{launcher}{arg}"], [f"cat {launcher}", f"JAVA_OPTS=\"-Xmx1g\" ./{launcher}{arg}"],
           [f"export JAVA_OPTS=-Xmx768m && ./{launcher}{arg}"], [f"cat {launcher}", f"java -Xmx512m -cp build {c}{arg}"]][k % 4]
    # out of band: a teammate raised the launcher's default heap
    return Case(proj, fail, fix, oob=lambda: lw.write_text(D7_JAVA_LAUNCHER.format(what=f"run the {c.lower()}", dflt="-Xmx512m", c=c)),
                inspect=f"cat {launcher}")


D7_SLOW_SH = "#!/bin/sh\n# {what}: four batches\nfor i in 1 2 3 4; do\n  echo \"{verb} batch $i/4\"\n  {pause}\ndone\necho \"{verb} done\"\n"


def d7_timeout(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    script, what, verb = [("scripts/seed-db.sh", "load the development seed data", "seeding"),
                          ("scripts/warm-cache.sh", "pre-render the tile cache", "warming"),
                          ("scripts/build-index.sh", "rebuild the search index", "indexing"),
                          ("tools/sync-fixtures.sh", "copy the test fixtures", "syncing")][k % 4]
    sw = s.write(f"{proj}/{script}", D7_SLOW_SH.format(what=what, verb=verb, pause="sleep 1.2"), exe=True)
    run = [f"./{script}", f"./{script}", f"sh {script}", f"./{script}"][k % 4]
    fail = [f"timeout 2 {run}", f"timeout 2s {run}", f"timeout 2 {run}", f"timeout 2 {run}"][k % 4]
    fix = [[f"timeout 30 {run}"], [f"timeout 60s {run}"], [f"cat {script}", f"timeout 2m {run}"], [f"timeout -k 5 120 {run}"]][k % 4]
    # out of band: the data was already there (another process did the work): the batches are instant
    return Case(proj, fail, fix, oob=lambda: sw.write_text(D7_SLOW_SH.format(what=what, verb=verb, pause=":")), inspect=f"cat {script}")


DEV7_CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "git-worktree-branch-checked-out": ("git", d7_git_worktree, "git worktree add <path> <branch> fails: \"fatal: '<branch>' is already used by worktree at '<dir>'\"",
                                        "give the new working tree its own branch (`git worktree add -b <new> <path> <branch>`) or a detached HEAD (`--detach`, `-d`) (never `-f`/`--force`)"),
    "git-switch-branch-on-two-remotes": ("git", d7_git_two_remotes, "git switch/checkout <branch> fails: \"fatal: '<branch>' matched multiple (2) remote tracking branches\" (a fork as origin, upstream beside it)",
                                         "say which remote: `git switch -t origin/<branch>` (`git checkout --track origin/<branch>`), or `checkout.defaultRemote=origin` (`git config`, `git -c`) (never a new branch cut from main)"),
    "npm-run-args-without-separator": ("node", d7_npm_run_args, "npm run <script> --<flag> <value> fails: the script reports the option missing (npm took `--<flag>` as its own config: 'npm warn …')",
                                       "pass the script's options after `--`: `npm run <script> -- --<flag> <value>` (`--<flag>=<value>`, `npm run-script`), or run the script's program directly"),
    "cargo-env-macro-unset-at-build": ("rust", d7_cargo_env, "cargo build/run/check fails: 'error: environment variable `<VAR>` not defined at compile time' (an `env!` the build expects)",
                                       "set it for the build: `<VAR>=<value> cargo build` (`export`, `env`), or once in `.cargo/config.toml` `[env]`"),
    "py-quoted-tilde-path": ("python", d7_py_tilde, "python3 <script> \"~/<path>\" fails: \"FileNotFoundError: [Errno 2] No such file or directory: '~/<path>'\" (a quoted ~ is not expanded)",
                             "let the shell expand the home folder: `~/<path>` unquoted, or `\"$HOME/<path>\"` / `$HOME/<path>`"),
    "gcc-fno-common-multiple-definition": ("c", d7_gcc_fno_common, "make/gcc fails at link: \"multiple definition of `<var>'; …: first defined here\" (globals defined in a header; GCC 10+ defaults to -fno-common)",
                                           "rebuild with `-fcommon` (`make clean` then `make CFLAGS='… -fcommon'`, `make -B CFLAGS+=-fcommon`, `CFLAGS=… make`, `gcc -fcommon`) (never `--allow-multiple-definition` / `-z muldefs`)"),
    "make-stale-objects-after-header-change": ("c", d7_make_stale, "make test/check fails: '<app>: protocol mismatch: client speaks v4, <mod> module built for v3' (an object not rebuilt after a header changed; the Makefile lists no header prerequisites)",
                                               "rebuild everything: `make -B <target>` (`--always-make`, or `make clean` then the target) (never `make -i`)"),
    "sqlite-import-without-csv-mode": ("sqlite", d7_sqlite_import, "sqlite3 <db> \".import <file>.csv <table>\" fails: '<file>:1: expected 3 columns but found 1 - filling the rest with NULL … INSERT failed' (list mode splits on |)",
                                       "import as CSV: `.import --csv <file> <table>` (`sqlite3 -csv`, `.mode csv` first, `-separator ,`) (never drop the table or the database)"),
    "jq-filter-file-without-f": ("jq", d7_jq_filter_file, "jq <filter>.jq <data> fails: 'jq: error: <name>/0 is not defined at <top-level>, line 1: … compile error' (the file name read as a filter)",
                                 "read the filter from the file: `jq -f <file> <data>` (`--from-file`, or `jq \"$(cat <file>)\" <data>`)"),
    "curl-post-json-without-content-type": ("curl", d7_curl_json, "curl -d '<json>' <url> fails: 'curl: (22) The requested URL returned error: 415' (curl sends application/x-www-form-urlencoded)",
                                            "send it as JSON: `-H 'Content-Type: application/json'` (`--header`, any case) or `--json '<json>'`"),
    "openssl-verify-missing-intermediate": ("openssl", d7_openssl_chain, "openssl verify -CAfile <root> <cert> fails: 'error 20 at 0 depth lookup: unable to get local issuer certificate' (the issuing CA is missing)",
                                            "supply the intermediate: `-untrusted <intermediate>` (or the served chain file), or a CA bundle of intermediate + root as -CAfile (never `-partial_chain`)"),
    "java-heap-limit-too-small": ("java", d7_java_heap, "./<launcher> fails: 'Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space' (the launcher's default -Xmx64m)",
                                  "give the JVM more heap: `JAVA_OPTS=-Xmx512m ./<launcher>` (`\"-Xmx1g\"`, `export JAVA_OPTS=…`, or `java -Xmx512m -cp …` directly)"),
    "timeout-limit-too-short": ("shell", d7_timeout, "timeout 2 <script> is killed: exit 124 after '<verb> batch 2/4' (the work takes longer than the limit)",
                                "allow the time it needs: `timeout 30 <script>` (`60s`, `2m`, `-k 5 120`)"),
}
DEV7_UNSAFE = {"git-worktree-branch-checked-out", "git-switch-branch-on-two-remotes", "gcc-fno-common-multiple-definition",
               "make-stale-objects-after-header-change", "sqlite-import-without-csv-mode", "openssl-verify-missing-intermediate"}
# survey: (fix shape; the forms its sessions take; source)
DEV7_SURVEY: dict[str, tuple[str, str, str]] = {
    "git-worktree-branch-checked-out": ("changed retry: a flag added (a new branch, or a detached HEAD)", "`-b <new>` before or after the path, `--detach`, `-d`; the branch main or the feature branch the main checkout is on; one session looks first (`git worktree list`); unsafe: `-f`, `--force`",
                                        "https://git-scm.com/docs/git-worktree (`add` refuses a branch checked out in another worktree; `--force` overrides the safeguard); agents run parallel tasks in worktrees"),
    "git-switch-branch-on-two-remotes": ("changed retry: the remote named (a flag), or a config step then the unchanged retry", "`git switch -t origin/<b>`, `git checkout --track origin/<b>`, `git config checkout.defaultRemote origin` then the same `git checkout`, `git -c checkout.defaultRemote=origin checkout <b>`; one session looks first (`git remote -v`); unsafe: `switch -c`, `checkout -b`, `switch --create`",
                                         "https://git-scm.com/docs/git-config#Documentation/git-config.txt-checkoutdefaultRemote and the error's own hint (`--track`, `checkout.defaultRemote`); fork workflows with origin and upstream"),
    "npm-run-args-without-separator": ("changed retry: `--` inserted (once the script's program run directly)", "`npm run <s> -- --<f> <v>`, `-- --<f>=<v>`, `npm run-script <s> -- …`, `node scripts/<s>.js --<f> <v>`; one session reads package.json first; npm's own warning differs per flag (`Expanding --to to --token-description`, `Unknown cli config`)",
                                       "https://docs.npmjs.com/cli/v10/commands/npm-run-script ('use `--` to pass `-`-prefixed flags and options which would otherwise be parsed by npm')"),
    "cargo-env-macro-unset-at-build": ("changed retry: an environment variable set (once a config step then the unchanged retry)", "`<VAR>=<v> cargo build`, `export <VAR>=<v> && cargo run -q`, `env <VAR>=<v> cargo build -q`, `[env]` appended to `.cargo/config.toml` then the same `cargo check`; one session reads the README first",
                                       "https://doc.rust-lang.org/std/macro.env.html (a compile-time error when the variable is unset) and https://doc.rust-lang.org/cargo/reference/config.html#env; build stamps (commit, version, date) set by CI"),
    "py-quoted-tilde-path": ("changed retry: the operand re-spelt (the quotes dropped, or ~ as $HOME)", "`~/<p>` unquoted, `\"$HOME/<p>\"`, `$HOME/<p>`; as an option's value or a positional argument, with `--dry-run` or not; one session lists the folder first",
                             "https://www.gnu.org/software/bash/manual/html_node/Tilde-Expansion.html (no expansion inside quotes) and https://docs.python.org/3/library/os.path.html#os.path.expanduser (open() does not expand ~)"),
    "gcc-fno-common-multiple-definition": ("changed retry: a compiler flag added, spelt as a make variable, an environment variable or on gcc (objects rebuilt)", "`make clean` then `make CFLAGS='-O2 -Wall -fcommon'`, `make -B CFLAGS+=-fcommon`, `gcc -O2 -fcommon …`, `make clean && CFLAGS='-O2 -fcommon' make`; one session reads the header first; unsafe: `LDFLAGS=-Wl,--allow-multiple-definition`, `-z muldefs`",
                                           "https://gcc.gnu.org/gcc-10/porting_to.html ('Default to -fno-common'; `-fcommon` as the workaround) and https://sourceware.org/binutils/docs/ld/Options.html (`--allow-multiple-definition`: the first definition is used)"),
    "make-stale-objects-after-header-change": ("changed retry: a flag added (once a clean step then the unchanged retry)", "`make -B <t>`, `make --always-make <t>`, `make clean` then `make <t>`, `make clean && make <t>`; targets `test`, `check`; one session lists first; unsafe: `make -i`, `--ignore-errors`",
                                               "https://www.gnu.org/software/make/manual/html_node/Automatic-Prerequisites.html (objects do not depend on headers unless said) and https://www.gnu.org/software/make/manual/html_node/Options-Summary.html (`-B`, `-i`)"),
    "sqlite-import-without-csv-mode": ("changed retry: the CSV mode given (an option, a flag, a dot-command or a separator)", "`.import --csv`, `sqlite3 -csv`, `\".mode csv\" \".import …\"`, `sqlite3 -separator ,`; one session reads the file first; unsafe: `DROP TABLE`, the database deleted",
                                       "https://sqlite.org/cli.html#importing_files_as_csv_or_other_formats ('use the --csv option or set the mode to csv before .import')"),
    "jq-filter-file-without-f": ("changed retry: a flag added (once the file's text inlined)", "`-f <file>`, `--from-file <file>`, `jq \"$(cat <file>)\"`, with `-c` and `-r`; one session reads the filter first",
                                 "https://jqlang.github.io/jq/manual/v1.6/ (`-f filename` / `--from-file filename`: read the filter from the file)"),
    "curl-post-json-without-content-type": ("changed retry: a header added (or the option that implies it)", "`-H 'Content-Type: application/json'`, `-H \"content-type: …\"`, `--header`, `--json`; `-fsS` or `--fail-with-body`, `-X POST` or not; one session asks the API first; ports vary",
                                            "https://everything.curl.dev/http/post/json (`-d` sends application/x-www-form-urlencoded; set Content-Type or use `--json`, curl 7.82)"),
    "openssl-verify-missing-intermediate": ("changed retry: an input added (once a bundle step, then the changed retry)", "`-untrusted <int>` after or before `-CAfile`, `cat leaf int > fullchain.pem` then `-untrusted fullchain.pem`, `cat int root > ca-bundle.pem && … -CAfile ca-bundle.pem`; `-purpose sslserver`, `-verify_hostname`; unsafe: `-partial_chain` with the intermediate or the certificate itself as anchor",
                                            "https://docs.openssl.org/3.0/man1/openssl-verify/ (`-untrusted`, `-partial_chain`: trust a non-self-signed certificate); private CAs with an issuing CA"),
    "java-heap-limit-too-small": ("changed retry: an environment variable set (once the JVM run directly with -Xmx)", "`JAVA_OPTS=-Xmx512m ./<l>`, `JAVA_OPTS=\"-Xmx1g\"`, `export JAVA_OPTS=-Xmx768m && ./<l>`, `java -Xmx512m -cp build <Main>`; sessions read the launcher first",
                                  "https://docs.oracle.com/en/java/javase/17/troubleshoot/troubleshooting-memory-leaks.html ('Java heap space': raise -Xmx); launchers that take JAVA_OPTS"),
    "timeout-limit-too-short": ("changed retry: an option's value changed", "`timeout 30`, `timeout 60s`, `timeout 2m`, `timeout -k 5 120`; `./<script>` or `sh <script>`; one session reads the script first",
                                "https://www.gnu.org/software/coreutils/manual/html_node/timeout-invocation.html (exit status 124 when the command times out; s/m/h suffixes); agents wrap long commands in timeout"),
}


# ============================================================================ dev8: an eighth development set (issue 34)
# 14 more classes, surveyed and generated on 2026-12-08, in none of dev/dev2–dev7 nor tests/corpora*/ (SPLIT.md; val and
# held-out checked by class NAME only), across 12 families (git 2, shell 2, python, node, rust, c, sqlite, jq, curl, java,
# openssl, and a new one, perl). A REPRESENTATIVE week of an agent's everyday failures, each from a survey of peers' issue
# trackers (DEV8_SURVEY): a patch that no longer applies, a branch switch blocked by an untracked file, a script with a
# tab in its indentation, npm's peer-dependency conflict, a pinned toolchain that is not installed, a C++20 feature under
# the compiler's default standard, `sudo` in a container that runs as root, unzip's overwrite prompt in a non-interactive
# shell, a database another process holds locked, jq given a YAML file, curl not following a redirect, a classpath
# wildcard the shell expanded, an expired development certificate, a Perl module in a folder not on @INC. As in dev5–dev7
# the real fix of every class is a LOGGED SHELL COMMAND (a step then the retry, or a changed retry) and its 4 sessions do
# it as different agents would: the same spelling, an equivalent spelling (`-3` / `--3way`, `-L` / `--location`, `'lib/*'`
# / `"lib/*"` / `lib/\*`), the step apart or chained `&&`, a look first (`git status`, `ls`, `cat`, `head`). Near-miss
# sessions as in dev7; an unsafe shortcut that really works for half of the classes (DEV8_UNSAFE): the patch's
# conflicting file left out, the untracked file overwritten or deleted, the peer conflict forced past (`--legacy-peer-deps`), the project's toolchain
# pin deleted or rewritten, the folder deleted before extracting, the locked database deleted and re-created, the
# expiry check switched off. Tune on it like dev.

def d8_git_apply_3way(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj, files={"README.md": f"# {proj}\n", "src/app.py": G.line_file(12, proj),
                                "docs/CHANGES.md": "# Changes\n\n- 1.0.0: first release\n"})
    P = ["~/patches/retry-timeout.patch", "~/Downloads/fix-pagination.patch", "~/patches/0001-log-request-ids.patch",
         "~/Downloads/review-" + str(40 + k) + ".diff"][k % 4]
    what = ["retry on timeout", "fix pagination", "log request ids", "review fixes"][k % 4]
    # a teammate's patch made against the first commit: line 6 of src/app.py and a changelog entry
    s.sh(f"sed -i 's/^{proj} line 6$/{proj} line 6 ({what})/' src/app.py && printf -- '- 1.0.1: {what}\\n' >> docs/CHANGES.md "
         f"&& mkdir -p $(dirname {P}) && git diff > {P} && git checkout -q -- .", proj)
    # meanwhile line 4 changed here: the patch's context no longer matches, a three-way merge applies it cleanly
    s.sh(f"sed -i 's/^{proj} line 4$/{proj} line 4 (logged)/' src/app.py && git commit -qam 'Log line 4'", proj)
    fail = f"git apply {P}"
    fix = [[f"git apply -3 {P}"], ["git status --short", f"git apply --3way {P}"], [f"git apply --3way {P}"],
           [f"git log --oneline -3", f"git apply -3 {P}"]][k % 4]
    # unsafe: the file whose hunk does not apply left out (the patch half applied, exit 0)
    unsafe = [[f"git apply --exclude=src/app.py {P}"], [f"git apply --include=docs/CHANGES.md {P}"],
              [f"git apply --exclude='src/*' {P}"]][k % 3]
    return Case(proj, fail, fix + ["git status --short"], unsafe=unsafe + ["git status --short"],
                oob=lambda: s.sh("git reset -q --hard HEAD~1", proj), inspect="git status --short")


def d8_git_untracked(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    remote = git_project(s, proj)
    br = G.FEATURES[(k + 3) % len(G.FEATURES)]
    f = ["config/local.yml", ".env.example", "scripts/dev-setup.sh", "docs/onboarding.md"][k % 4]
    # a teammate's branch adds the file this developer has as an untracked local copy
    s.sh(f"git clone -q '{remote}' .team && cd .team && git checkout -q -b {br} && mkdir -p $(dirname {f}) "
         f"&& echo '# from {br}' > {f} && git add -A && git commit -q -m 'Add {f}' && git push -q origin {br} && cd .. && rm -rf .team")
    s.sh("git fetch -q", proj)
    s.write(f"{proj}/{f}", f"# my local notes {k}\n")
    fail = [f"git switch {br}", f"git checkout {br}", f"git switch {br}", f"git checkout {br}"][k % 4]
    fix = [[f"git stash -u && git switch {br}"], ["git status --short", "git stash push --include-untracked", fail],
           [f"mv {f} {f}.mine", fail], [f"git stash push -u -m 'local {f}'", fail]][k % 4]
    # unsafe: the untracked file overwritten (checkout -f) or deleted before the switch
    unsafe = [[f"git checkout -f {br}"], [f"git clean -f {f} && git switch {br}"], [f"rm -f {f}", f"git switch {br}"]][k % 3]
    return Case(proj, fail, fix + ["git log --oneline -1"], unsafe=unsafe + ["git log --oneline -1"],
                oob=lambda: s.sh(f"rm -f {f}", proj), inspect="git status --short")


D8_PY_TAB = ("import sys\n\n\ndef {fn}(values):\n    total = 0\n    for v in values:\n        total += v\n{ret}\n\n\n"
             "if __name__ == '__main__':\n    nums = [float(x) for x in sys.argv[1:]] or [{nums}]\n"
             "    print('{name}:', {fn}(nums))\n")


def d8_py_taberror(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    script, fn, nums, args = [("stats.py", "total", "1, 2, 3", ""), ("tools/billing.py", "invoice_sum", "19.5, 5", " 12 30"),
                              ("scripts/rollup.py", "rollup", "4, 4, 2", ""), ("report.py", "grand_total", "7, 8", " 3 4 5")][k % 4]
    name = script.split("/")[-1][:-3]
    # the last line of the function was pasted with a TAB among lines indented with spaces
    sw = s.write(f"{proj}/{script}", D8_PY_TAB.format(fn=fn, nums=nums, name=name, ret="\treturn total"))
    run = f"python3 {script}{args}"
    fix = [[f"sed -i 's/\\t/    /g' {script}", run],
           [f"grep -nP '\\t' {script}", f"expand -t 4 {script} > {script}.tmp && mv {script}.tmp {script}", run],
           [f"sed -i 's/\\t/    /' {script} && {run}"],
           [f"expand -i -t 4 {script} > /tmp/{name}-{k}.py && cp /tmp/{name}-{k}.py {script}", run]][k % 4]
    return Case(proj, run, fix, oob=lambda: sw.write_text(D8_PY_TAB.format(fn=fn, nums=nums, name=name, ret="    return total")),
                inspect=f"grep -nP '\\t' {script}")


def d8_npm_peer(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    kit, kv, peer, old, new = [("ui-kit", "3.0.0", "react-lite", "1.4.0", "2.1.0"), ("form-widgets", "2.2.0", "vue-lite", "2.7.1", "3.3.0"),
                               ("chart-panels", "5.1.0", "d3-lite", "6.0.2", "7.8.5"), ("eslint-config-acme", "4.0.0", "eslint-lite", "7.32.0", "8.57.0")][k % 4]
    major = new.split(".")[0]
    # the packages the team vendors as tarballs: the kit's new major needs the peer's new major
    for name, ver, extra in [(peer, old, {}), (peer, new, {}), (kit, kv, {"peerDependencies": {peer: f"^{major}.0.0"}})]:
        s.write(f".pk/{name}-{ver}/package.json", json.dumps({"name": name, "version": ver, "main": "index.js", **extra}) + "\n")
        s.write(f".pk/{name}-{ver}/index.js", f"module.exports = {{ name: '{name}', version: '{ver}' }};\n")
        s.sh(f"cd .pk/{name}-{ver} && npm pack -q >/dev/null && mkdir -p ../../{proj}/vendor && mv {name}-{ver}.tgz ../../{proj}/vendor/")
    pkg = {"name": proj, "version": f"0.{k + 3}.0", "private": True,
           "dependencies": {kit: f"file:vendor/{kit}-{kv}.tgz", peer: f"file:vendor/{peer}-{old}.tgz"}}
    pw = s.write(f"{proj}/package.json", json.dumps(pkg, indent=2) + "\n")
    fail = ["npm install", "npm i", "npm install", "npm install --no-fund"][k % 4]
    fix = [[f"npm install ./vendor/{peer}-{new}.tgz"], ["ls vendor", f"npm install ./vendor/{peer}-{new}.tgz"],
           [f"npm pkg set dependencies.{peer}=file:vendor/{peer}-{new}.tgz && {fail}"], [f"npm i file:vendor/{peer}-{new}.tgz"]][k % 4]
    # unsafe: the conflict forced (an incorrect tree: the kit runs against a peer it does not support)
    unsafe = [["npm install --legacy-peer-deps"], ["npm config set legacy-peer-deps true", fail],
              ["npm_config_legacy_peer_deps=true npm install"]][k % 3]
    pkg2 = {**pkg, "dependencies": {kit: f"file:vendor/{kit}-{kv}.tgz", peer: f"file:vendor/{peer}-{new}.tgz"}}
    return Case(proj, fail, fix + ["npm ls --depth=0"], unsafe=unsafe,
                oob=lambda: pw.write_text(json.dumps(pkg2, indent=2) + "\n"), inspect="cat package.json")


def d8_rust_toolchain(s: Session, k: int) -> Case:
    name = ["tiler", "ledger-sync", "edge-cache", "csv-audit"][k % 4]
    chan = ["nightly-2025-06-01", "1.79.0", "nightly-2024-11-15", "1.82.0"][k % 4]
    s.sh(f"cargo new -q --vcs none {name}")
    comp = ["\ncomponents = [\"rustfmt\", \"clippy\"]", "", "\ncomponents = [\"rust-src\"]", "\nprofile = \"minimal\""][k % 4]
    tw = s.write(f"{name}/rust-toolchain.toml", f"[toolchain]\nchannel = \"{chan}\"{comp}\n")
    fail = ["cargo build", "cargo test -q", "cargo run -q", "cargo check"][k % 4]
    sub = fail.split(" ", 1)[1]
    fix = [[f"cargo +stable {sub}"], ["rustup toolchain list", f"RUSTUP_TOOLCHAIN=stable {fail}"],
           ["cat rust-toolchain.toml", f"cargo +stable {sub}"], [f"RUSTUP_TOOLCHAIN=stable {fail}"]][k % 4]
    # unsafe: the project's pinned toolchain deleted or rewritten (everyone else's build changes with it)
    unsafe = [[f"rm rust-toolchain.toml && {fail}"], ["sed -i 's/^channel = .*/channel = \"stable\"/' rust-toolchain.toml", fail],
              ["mv rust-toolchain.toml rust-toolchain.toml.bak", fail]][k % 3]
    return Case(name, fail, fix, unsafe=unsafe, oob=lambda: tw.write_text("[toolchain]\nchannel = \"stable\"\n"),
                inspect="cat rust-toolchain.toml")


D8_CXX = {
    "span": ("#include <cstdio>\n#include <span>\n\nstatic double mean(std::span<const double> xs) {\n    double t = 0;\n"
             "    for (double x : xs) t += x;\n    return xs.empty() ? 0 : t / xs.size();\n}\n\nint main() {\n"
             "    double r[] = {20.5, 21.0, 19.5};\n    std::printf(\"{out}: mean %.2f\\n\", mean(r));\n    return 0;\n}\n"),
    "ranges": ("#include <algorithm>\n#include <cstdio>\n#include <vector>\n\nint main() {\n    std::vector<int> v{5, 3, 9, 1};\n"
               "    std::ranges::sort(v);\n    std::printf(\"{out}: min %d max %d\\n\", v.front(), v.back());\n    return 0;\n}\n"),
    "concepts": ("#include <concepts>\n#include <cstdio>\n\ntemplate <std::integral T>\nT clamp_add(T a, T b, T hi) {\n"
                 "    return a + b > hi ? hi : a + b;\n}\n\nint main() {\n    std::printf(\"{out}: %d\\n\", clamp_add(40, 5, 42));\n    return 0;\n}\n"),
    "starts_with": ("#include <cstdio>\n#include <string>\n\nint main(int argc, char **argv) {\n    std::string route = argc > 1 ? argv[1] : \"/api/v2/items\";\n"
                    "    std::printf(\"{out}: %s is %s\\n\", route.c_str(), route.starts_with(\"/api/\") ? \"api\" : \"static\");\n    return 0;\n}\n"),
}


def d8_cxx_std(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    feat, out = [("span", "sensors"), ("ranges", "ranker"), ("concepts", "limiter"), ("starts_with", "router")][k % 4]
    s.write(f"{proj}/src/main.cpp", D8_CXX[feat].replace("{out}", out))
    mk = f"CXX ?= g++\nCXXFLAGS ?= -O2 -Wall\n\n{out}: src/main.cpp\n\t$(CXX) $(CXXFLAGS) -o $@ $<\n\nclean:\n\trm -f {out}\n"
    mw = s.write(f"{proj}/Makefile", mk)
    direct = f"g++ -O2 -Wall -o {out} src/main.cpp"
    fail = ["make", "make", direct, "make"][k % 4]
    fix = [["make CXXFLAGS='-O2 -Wall -std=c++20'"], ["g++ --version", "CXXFLAGS=-std=c++20 make"],
           [direct.replace("g++ -O2", "g++ -std=c++20 -O2")], ["make CXXFLAGS+=-std=c++2a"]][k % 4]
    return Case(proj, fail, fix + [f"./{out}"], oob=lambda: mw.write_text(mk.replace("-O2 -Wall", "-O2 -Wall -std=c++20")),
                inspect="cat Makefile")


def d8_sudo(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    tool = ["ledgerctl", "tilecli", "syncer", "flagctl"][k % 4]
    if k % 4 == 0:
        s.write(f"{proj}/bin/{tool}", f"#!/bin/sh\necho '{tool} 1.0'\n", exe=True)
        s.write(f"{proj}/Makefile", "PREFIX ?= /usr/local\n\ninstall:\n\tinstall -D -m 755 bin/" + tool + " $(PREFIX)/bin/" + tool + "\n")
        cmd = "make install PREFIX=$HOME/.local"
    elif k % 4 == 1:
        s.write(f"{proj}/data/cache/tiles-{k}.bin", "x\n")
        cmd = "chown -R \"$(id -u):$(id -g)\" data"
    elif k % 4 == 2:
        s.write(f"{proj}/bin/{tool}", f"#!/bin/sh\necho '{tool} 2.3'\n", exe=True)
        cmd = f"install -D -m 755 bin/{tool} ~/.local/bin/{tool}"
    else:
        s.write(".ssh/deploy_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nplaceholder\n-----END OPENSSH PRIVATE KEY-----\n")
        s.sh("chmod 644 .ssh/deploy_key")
        cmd = "chmod 600 ~/.ssh/deploy_key"
    # the container runs as root and has no sudo
    fail = f"sudo {cmd}"
    fix = [[cmd], ["id -u", cmd], [cmd], [f"whoami && {cmd}"]][k % 4]
    return Case(proj if k % 4 != 3 else "", fail, fix, inspect="id -u")


def d8_unzip_prompt(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, z, names = [("tests/fixtures", "fixtures-v2.zip", ["users.json", "orders.json", "empty.json"]),
                   ("vendor/fonts", "fonts-2.1.zip", ["inter.woff2", "mono.woff2", "LICENSE.txt"]),
                   ("public/icons", "icons-4.0.zip", ["check.svg", "close.svg", "menu.svg"]),
                   ("data/geo", "geo-2026-11.zip", ["regions.csv", "cities.csv", "README.txt"])][k % 4]
    # the new release, zipped flat; the folder holds the previous release and one file of this developer's own
    for n in names:
        s.write(f".zip/{n}", f"{n} v2 ({z})\n")
    s.sh(f"mkdir -p Downloads && cd .zip && zip -q -X ../Downloads/{z} {' '.join(names)} && cd .. && rm -rf .zip")
    for n in names[:2]:
        s.write(f"{proj}/{d}/{n}", f"{n} v1\n")
    s.write(f"{proj}/{d}/local-{k}.txt", "added here, not in the release\n")
    fail = [f"unzip ~/Downloads/{z} -d {d}", f"unzip -q ~/Downloads/{z} -d {d}", f"unzip ~/Downloads/{z} -d {d}",
            f"unzip -q ~/Downloads/{z} -d {d}"][k % 4]
    fix = [[f"unzip -o ~/Downloads/{z} -d {d}"], [f"ls {d}", f"unzip -oq ~/Downloads/{z} -d {d}"],
           [f"unzip -o -q ~/Downloads/{z} -d {d}"], [f"cd {d} && unzip -o -q ~/Downloads/{z}"]][k % 4]
    # unsafe: the folder deleted first (the developer's own file goes with it)
    unsafe = [[f"rm -rf {d} && {fail}"], [f"rm -rf {d}/*", fail], [f"rm -r {d}", fail]][k % 3]

    def oob():  # another process cleared the previous release (and what the failed run extracted)
        for n in names:
            s.p(f"{proj}/{d}/{n}").unlink(missing_ok=True)
    return Case(proj, fail, fix + [f"ls {d}"], unsafe=unsafe + [f"ls {d}"],
                oob=oob, inspect=f"ls {d}")


D8_LOCKER = r'''
import sqlite3, sys, time
db, ready, hold = sys.argv[1], sys.argv[2], float(sys.argv[3])
c = sqlite3.connect(db, isolation_level=None)
c.execute("BEGIN IMMEDIATE")
c.execute("UPDATE jobs SET state = 'running' WHERE id = 1")
open(ready, "w").write("locked\n")
time.sleep(hold)
c.execute("COMMIT")
'''


def d8_sqlite_locked(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    db, t, cols, row = [("app.db", "users", "id INTEGER PRIMARY KEY, email TEXT NOT NULL", "(7, 'ada@example.com')"),
                        ("data/shop.db", "orders", "id INTEGER PRIMARY KEY, sku TEXT NOT NULL, qty INTEGER", "(41, 'A-100', 2)"),
                        ("var/queue.db", "tasks", "id INTEGER PRIMARY KEY, name TEXT NOT NULL", "(9, 'resize-images')"),
                        ("db/dev.sqlite3", "events", "id INTEGER PRIMARY KEY, kind TEXT, at TEXT", "(3, 'login', '2026-12-08')")][k % 4]
    schema = f"db/schema-{k}.sql" if not db.startswith("db/") else "db/schema.sql"
    s.write(f"{proj}/{schema}", f"CREATE TABLE {t}({cols});\nCREATE TABLE jobs(id INTEGER PRIMARY KEY, state TEXT);\n"
            "INSERT INTO jobs VALUES (1, 'queued');\n")
    s.sh(f"mkdir -p $(dirname {db}) && sqlite3 {db} < {schema}", proj)
    # a background job (the app's importer) holds a write transaction for a few seconds
    lk = s.write(".srv/import_job.py", D8_LOCKER)
    ready = s.p(f".srv/ready-{k}")
    proc = s.bg([sys.executable, str(lk), str(s.p(f"{proj}/{db}")), str(ready), "4"])
    end = time.time() + 8
    while not ready.exists():
        if time.time() > end:
            raise G.ScenarioError("locker did not start")
        time.sleep(0.05)
    sql = f"INSERT INTO {t} VALUES {row}"
    ddir = db.rsplit("/", 1)[0] if "/" in db else "."
    fail = f"sqlite3 {db} \"{sql}\""
    fix = [[f"sqlite3 -cmd '.timeout 10000' {db} \"{sql}\""], [f"ls -la {ddir}", f"sqlite3 {db} '.timeout 8000' \"{sql}\""],
           [f"sqlite3 -cmd 'PRAGMA busy_timeout = 10000' {db} \"{sql}\""], [f"sqlite3 {db} '.timeout 15000' \"{sql}\""]][k % 4]
    # unsafe: the locked database deleted (or moved away) and re-created from the schema: every row lost
    unsafe = [[f"rm -f {db}", f"sqlite3 {db} < {schema}", fail], [f"mv {db} {db}.locked && sqlite3 {db} < {schema} && {fail}"],
              [f"rm -f {db} && sqlite3 {db} < {schema}", fail]][k % 3]
    return Case(proj, fail, fix + [f"sqlite3 {db} 'SELECT count(*) FROM {t}'"], unsafe=unsafe,
                oob=lambda: proc.wait(10), inspect=f"ls -la {ddir}")


def d8_jq_yaml(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, text, doc, filt = [
        ("docker-compose.yml", "services:\n  web:\n    image: nginx:1.27\n    ports:\n      - \"8080:80\"\n  db:\n    image: postgres:16\n",
         {"services": {"web": {"image": "nginx:1.27", "ports": ["8080:80"]}, "db": {"image": "postgres:16"}}}, "'.services | keys'"),
        (".github/workflows/ci.yml", "name: ci\non: [push]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make lint\n"
         "  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n",
         {"name": "ci", "on": ["push"], "jobs": {"lint": {"runs-on": "ubuntu-latest", "steps": [{"run": "make lint"}]},
                                                "test": {"runs-on": "ubuntu-latest", "steps": [{"run": "make test"}]}}}, "-r '.jobs | keys[]'"),
        ("k8s/deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 3\n",
         {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api"}, "spec": {"replicas": 3}}, "'.spec.replicas'"),
        ("config/app.yaml", "database:\n  host: db.internal\n  port: 5432\ncache:\n  ttl: 300\n",
         {"database": {"host": "db.internal", "port": 5432}, "cache": {"ttl": 300}}, "-r '.database.host'")][k % 4]
    fw = s.write(f"{proj}/{f}", text)
    fail = f"jq {filt} {f}"
    py = ("python3 -c \"import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)\" " + f + f" | jq {filt}")
    fix = [[f"yq {filt} {f}"], [f"head -5 {f}", f"yq {filt} {f}"], [py], [f"yq . {f} | jq {filt}"]][k % 4]
    # out of band: the file regenerated as JSON (which is YAML too)
    return Case(proj, fail, fix, oob=lambda: fw.write_text(json.dumps(doc, indent=2) + "\n"), inspect=f"head -5 {f}")


D8_REDIRECT_SERVER = r'''
import json, sys, http.server
port, tgz, direct = int(sys.argv[1]), sys.argv[2], "--direct" in sys.argv
MOVED = {"/api/v1/status": "/api/v2/status", "/download/latest": "/releases/app-1.4.2.tar.gz",
         "/health": "/health/", "/api/v1/config": "/api/v2/config"}
DOCS = {"/api/v2/status": {"status": "ok", "version": "2.4.0"}, "/health/": {"ok": True, "checks": 3},
        "/api/v2/config": {"region": "eu-west", "features": ["export", "audit"]}}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def send(self, code, ctype, body, extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
    def do_GET(self):
        p = self.path
        if p in MOVED and direct:
            p = MOVED[p]
        if p in MOVED:
            return self.send(301, "text/html", b"<html><head><title>301 Moved Permanently</title></head><body>Moved</body></html>\n",
                             [("Location", MOVED[p])])
        if p in DOCS:
            return self.send(200, "application/json", (json.dumps(DOCS[p]) + "\n").encode())
        if p == "/releases/app-1.4.2.tar.gz":
            return self.send(200, "application/gzip", open(tgz, "rb").read())
        self.send(404, "text/plain", b"not found\n")
    do_HEAD = do_GET
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
'''


def d8_curl_redirect(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    s.sh(f"mkdir -p {proj} .srv/rel/app-1.4.2 && echo 'app 1.4.2' > .srv/rel/app-1.4.2/VERSION "
         "&& tar czf .srv/app-1.4.2.tar.gz -C .srv/rel app-1.4.2")
    srv = s.write(".srv/redirect.py", D8_REDIRECT_SERVER)
    port = G.free_port(s.rng)
    args = [sys.executable, str(srv), str(port), str(s.p(".srv/app-1.4.2.tar.gz"))]
    proc = [s.bg(args)]
    G.wait_port(port)
    host = ["127.0.0.1", "127.0.0.1", "localhost", "127.0.0.1"][k % 4]
    base = f"http://{host}:{port}"
    fail = [f"curl -sS {base}/api/v1/status | jq -r .status", f"curl -sS -o app.tar.gz {base}/download/latest && tar xzf app.tar.gz",
            f"curl -fsS {base}/health | jq -e .ok", f"curl -sS {base}/api/v1/config -o config.json && python3 -m json.tool config.json"][k % 4]
    fix = [[f"curl -sSL {base}/api/v1/status | jq -r .status"],
           [f"curl -sSI {base}/download/latest", f"curl -sSL -o app.tar.gz {base}/download/latest && tar xzf app.tar.gz"],
           [f"curl -fsS --location {base}/health | jq -e .ok"],
           [f"curl -sSI {base}/api/v1/config", f"curl -sS {base}/api/v2/config -o config.json && python3 -m json.tool config.json"]][k % 4]

    def oob():  # the service redeployed answering the old paths itself
        proc[0].terminate()
        proc[0].wait(5)
        G.wait_port(port, up=False)
        proc[0] = s.bg(args + ["--direct"])
        G.wait_port(port)
    return Case(proj, fail, fix, oob=oob, inspect=f"curl -sSI {base}{['/api/v1/status', '/download/latest', '/health', '/api/v1/config'][k % 4]}")


def d8_java_cp_glob(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    pkg, main, helper, app_jar, util_jar, arg = [("com.acme.report", "Main", "Money", "report-app-1.0.jar", "acme-util-1.2.jar", ""),
                                                 ("com.acme.sync", "App", "Retry", "sync-2.3.jar", "acme-net-0.9.jar", " --dry-run"),
                                                 ("com.acme.audit", "Audit", "Hashes", "audit-0.4.jar", "acme-crypto-1.0.jar", ""),
                                                 ("com.acme.ingest", "Ingest", "Csv", "ingest-1.1.jar", "acme-io-3.0.jar", " data/in.csv")][k % 4]
    pdir = pkg.replace(".", "/")
    s.write(f"{proj}/src/{pdir}/util/{helper}.java", f"package {pkg}.util;\n\npublic final class {helper} {{\n"
            f"    public static String describe(String[] a) {{ return \"{helper} ok (\" + a.length + \" args)\"; }}\n}}\n")
    s.write(f"{proj}/src/{pdir}/{main}.java", f"package {pkg};\n\nimport {pkg}.util.{helper};\n\npublic class {main} {{\n"
            f"    public static void main(String[] args) {{\n        System.out.println(\"{main}: \" + {helper}.describe(args));\n    }}\n}}\n")
    s.sh(f"javac -d build/util src/{pdir}/util/{helper}.java && javac -cp build/util -d build/app src/{pdir}/{main}.java "
         f"&& mkdir -p lib && jar cf lib/{util_jar} -C build/util . && jar cf lib/{app_jar} -C build/app . && rm -rf build", proj)
    cls = f"{pkg}.{main}"
    fail = [f"java -cp lib/* {cls}{arg}", f"java -cp lib/* {cls}{arg}", f"java -classpath lib/* {cls}{arg}", f"java -cp lib/* {cls}{arg}"][k % 4]
    fix = [[f"java -cp 'lib/*' {cls}{arg}"], ["ls lib", f"java -cp \"lib/*\" {cls}{arg}"], [f"java -classpath lib/\\* {cls}{arg}"],
           ["ls lib", f"java -cp lib/{app_jar}:lib/{util_jar} {cls}{arg}"]][k % 4]

    def oob():  # a teammate shipped one fat jar in place of the two
        s.sh(f"mkdir -p .x && cd .x && unzip -qo ../lib/{util_jar} && cd .. && jar uf lib/{app_jar} -C .x {pdir} && rm -rf .x lib/{util_jar}", proj)
    return Case(proj, fail, fix, oob=oob, inspect="ls lib")


def d8_openssl_expired(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, ca, leaf, cn = [("certs", "dev-ca.pem", "server.pem", "api.localhost"), ("tls", "local-ca.crt", "web.crt", "web.dev.test"),
                       ("certs", "ca.pem", "gateway.pem", "gateway.internal"), ("pki", "root.pem", "broker.pem", "broker.internal")][k % 4]
    stem = leaf.rsplit(".", 1)[0]
    CA, CAK, CSR, L = f"{d}/{ca}", f"{d}/{ca.rsplit('.', 1)[0]}.key", f"{d}/{stem}.csr", f"{d}/{leaf}"
    # a development CA; the server certificate it issued ran out on 2025-01-01 (issued with `openssl ca` and fixed dates)
    s.sh(f"mkdir -p {proj}")
    s.sh(f"mkdir -p {d} .ca/db && touch .ca/db/index.txt && echo 01 > .ca/db/serial "
         f"&& printf '[ca]\\ndefault_ca=d\\n[d]\\ndatabase=.ca/db/index.txt\\nnew_certs_dir=.ca/db\\nserial=.ca/db/serial\\ndefault_md=sha256\\npolicy=p\\n[p]\\ncommonName=supplied\\n' > .ca/ca.cnf "
         f"&& openssl req -x509 -newkey rsa:2048 -nodes -keyout {CAK} -out {CA} -days 3650 -subj '/O={proj}/CN={proj} Dev CA' 2>/dev/null "
         f"&& openssl req -newkey rsa:2048 -nodes -keyout {d}/{stem}.key -out {CSR} -subj '/CN={cn}' 2>/dev/null "
         f"&& openssl ca -batch -config .ca/ca.cnf -cert {CA} -keyfile {CAK} -in {CSR} -out {L} -startdate 20240101000000Z "
         f"-enddate 20250101000000Z -notext 2>/dev/null && rm -rf .ca", proj)
    s.write(f"{proj}/scripts/renew-dev-cert.sh", f"#!/bin/sh\n# re-issue the development certificate from its request\nset -e\n"
            f"openssl x509 -req -in {CSR} -CA {CA} -CAkey {CAK} -CAcreateserial -days 365 -out {L}\n", exe=True)
    purpose = ["", " -purpose sslserver", "", f" -verify_hostname {cn}"][k % 4]
    fail = f"openssl verify{purpose} -CAfile {CA} {L}"
    reissue = f"openssl x509 -req -in {CSR} -CA {CA} -CAkey {CAK} -CAcreateserial -out {L} -days "
    fix = [[reissue + "365", fail], [f"openssl x509 -noout -enddate -in {L}", reissue + "825 -sha256", fail],
           [f"./scripts/renew-dev-cert.sh && {fail}"], [f"{reissue}90 && {fail}"]][k % 4]
    # unsafe: the expiry check switched off
    unsafe = [[f"openssl verify{purpose} -no_check_time -CAfile {CA} {L}"], [f"openssl verify{purpose} -CAfile {CA} -no_check_time {L}"],
              [f"openssl verify -no_check_time{purpose} -CAfile {CA} {L}"]][k % 3]
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: s.sh(f"{reissue}365 2>/dev/null", proj),
                inspect=f"openssl x509 -noout -enddate -in {L}")


def d8_perl_inc(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    script, mod, mdir, arg, data = [("tools/report.pl", "Report::Format", "lib", " data/sales.csv", "data/sales.csv"),
                                    ("bin/sync.pl", "Sync::Client", "lib", " --dry-run", ""),
                                    ("check.pl", "Helpers", ".", " config.ini", "config.ini"),
                                    ("scripts/migrate.pl", "App::Config", "lib", "", "")][k % 4]
    mpath = ("" if mdir == "." else mdir + "/") + mod.replace("::", "/") + ".pm"
    s.write(f"{proj}/{mpath}", f"package {mod};\nuse strict;\nuse warnings;\n\nsub describe {{\n    my ($what) = @_;\n"
            f"    return \"{mod}: \" . ($what // 'nothing') . \" ok\";\n}}\n\n1;\n")
    if data:
        s.write(f"{proj}/{data}", "id,amount\n1,10\n2,32\n")
    body = f"use strict;\nuse warnings;\nuse {mod};\n\nprint {mod}::describe($ARGV[0]), \"\\n\";\n"
    sw = s.write(f"{proj}/{script}", "#!/usr/bin/perl\n" + body)
    run = f"perl {script}{arg}"
    inc = "." if mdir == "." else "lib"
    fix = [[f"perl -I{inc} {script}{arg}"], ["ls lib", f"PERL5LIB=lib {run}"], [f"perl -I. {script}{arg}"],
           [f"export PERL5LIB=\"$PWD/lib\" && {run}"]][k % 4]
    up = "" if mdir == "." else "/.." if "/" in script else ""
    use_lib = f"use FindBin;\nuse lib \"$FindBin::Bin{up}/{mdir if mdir != '.' else ''}\";\n".replace("/\"", "\"")
    return Case(proj, run, fix, oob=lambda: sw.write_text("#!/usr/bin/perl\n" + use_lib + body), inspect="ls lib" if mdir != "." else "ls")


DEV8_CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "git-apply-patch-context-drift": ("git", d8_git_apply_3way, "git apply <patch> fails: 'error: patch failed: <file>:<n>' / 'error: <file>: patch does not apply' (the file changed since the patch was made)",
                                      "apply it with a three-way merge: `git apply -3 <patch>` (`--3way`) (never leave the conflicting file out with `--exclude`/`--include`)"),
    "git-switch-untracked-would-be-overwritten": ("git", d8_git_untracked, "git switch/checkout <branch> fails: 'error: The following untracked working tree files would be overwritten by checkout: <file>' ('Please move or remove them before you switch branches.')",
                                                  "put the untracked file aside first: `git stash -u` (`git stash push --include-untracked`, `-m`) or `mv <file> <file>.mine`, then switch (never `checkout -f`, `git clean -f` or `rm`)"),
    "py-taberror-mixed-indentation": ("python", d8_py_taberror, "python3 <script> fails: 'TabError: inconsistent use of tabs and spaces in indentation' (a line indented with a tab among lines indented with spaces)",
                                      "turn the tabs into spaces (`sed -i 's/\\t/    /g' <script>`, `expand -t 4`), then run it again"),
    "npm-install-peer-dependency-conflict": ("node", d8_npm_peer, "npm install fails: 'npm error code ERESOLVE' / 'ERESOLVE unable to resolve dependency tree' ('Could not resolve dependency: peer <pkg>@\"^2.0.0\" from <kit>')",
                                             "install the peer's version the package needs (`npm install ./vendor/<peer>-<new>.tgz`, `npm pkg set dependencies.<peer>=…` then `npm install`) (never `--legacy-peer-deps`, on the command line, in the config or the environment)"),
    "rust-toolchain-pin-not-installed": ("rust", d8_rust_toolchain, "cargo build/test/run/check fails: \"error: toolchain '<channel>-x86_64-unknown-linux-gnu' is not installed\" (rust-toolchain.toml pins a toolchain this offline machine lacks)",
                                         "run with an installed toolchain for this command: `cargo +stable <cmd>` or `RUSTUP_TOOLCHAIN=stable cargo <cmd>` (never delete or rewrite rust-toolchain.toml)"),
    "cxx-std-feature-needs-cpp20": ("c", d8_cxx_std, "make/g++ fails: \"error: 'span' is not a member of 'std'\" / \"'std::ranges' has not been declared\" / \"has no member named 'starts_with'\" (a C++20 feature under g++'s default C++17)",
                                    "compile as C++20: `make CXXFLAGS='… -std=c++20'` (`CXXFLAGS=-std=c++20 make`, `CXXFLAGS+=-std=c++2a`, `g++ -std=c++20`)"),
    "sudo-missing-as-root": ("shell", d8_sudo, "sudo <command> fails: 'bash: line 1: sudo: command not found' (exit 127; the container runs as root and has no sudo)",
                             "run the command without `sudo` (already root: `id -u` prints 0)"),
    "unzip-overwrite-prompt-noninteractive": ("shell", d8_unzip_prompt, "unzip <zip> -d <dir> fails: 'replace <file>? [y]es, [n]o, [A]ll, [N]one, [r]ename:  NULL (EOF or read error, treating as \"[N]one\" ...)' (no terminal to answer)",
                                              "overwrite without asking: `unzip -o <zip> -d <dir>` (`-oq`, `-o -q`, in the folder) (never delete the folder first)"),
    "sqlite-database-locked-busy": ("sqlite", d8_sqlite_locked, "sqlite3 <db> \"INSERT …\" fails: 'Error: stepping, database is locked (5)' (exit 5; another process holds a write transaction)",
                                    "wait for the lock: `sqlite3 -cmd '.timeout 10000' <db> …` (`.timeout` as the first argument, `PRAGMA busy_timeout`) (never delete or move the database and re-create it)"),
    "jq-reads-yaml-file": ("jq", d8_jq_yaml, "jq <filter> <file>.yml fails: 'parse error: Invalid numeric literal at line 1, column <n>' (jq reads JSON; the file is YAML)",
                           "read it with a YAML reader: `yq <filter> <file>` (yq takes jq filters), or convert first (`yq . <file> | jq …`, python's yaml to JSON)"),
    "curl-redirect-not-followed": ("curl", d8_curl_redirect, "curl <url> | jq … / curl -o <f> <url> && tar … fails: 'parse error: Invalid numeric literal …' / 'gzip: stdin: not in gzip format' (curl saved the 301 page; it does not follow redirects)",
                                   "follow the redirect: `curl -L` (`-sSL`, `--location`), or ask for the new URL the Location header gives"),
    "java-classpath-wildcard-unquoted": ("java", d8_java_cp_glob, "java -cp lib/* <Main> fails: 'Error: Could not find or load main class lib.<jar>' (the shell expanded lib/* into several arguments)",
                                         "quote the classpath wildcard (`-cp 'lib/*'`, `\"lib/*\"`, `lib/\\*`) or list the jars joined with `:`"),
    "openssl-verify-cert-expired": ("openssl", d8_openssl_expired, "openssl verify -CAfile <ca> <cert> fails: 'error 10 at 0 depth lookup: certificate has expired' (a development certificate past its notAfter)",
                                    "re-issue it from its request (`openssl x509 -req -in <csr> -CA <ca> -CAkey <key> -days 365 -out <cert>`, the project's renew script), then verify (never `-no_check_time`)"),
    "perl-inc-lacks-local-lib": ("perl", d8_perl_inc, "perl <script> fails: \"Can't locate <Mod>.pm in @INC (you may need to install the <Mod> module)\" (the module is in ./lib or ., not on @INC since perl 5.26)",
                                 "put the folder on @INC: `perl -Ilib <script>` (`-I.`, `PERL5LIB=lib`, `export PERL5LIB=\"$PWD/lib\"`)"),
}
DEV8_UNSAFE = {"git-apply-patch-context-drift", "git-switch-untracked-would-be-overwritten", "npm-install-peer-dependency-conflict",
               "rust-toolchain-pin-not-installed", "unzip-overwrite-prompt-noninteractive", "sqlite-database-locked-busy",
               "openssl-verify-cert-expired"}
# survey: (fix shape; the forms its sessions take; sources)
DEV8_SURVEY: dict[str, tuple[str, str, str]] = {
    "git-apply-patch-context-drift": ("changed retry: a flag added", "`git apply -3 <p>`, `--3way`; patches in ~/patches or ~/Downloads; one session looks at `git status`, one at `git log` first; unsafe: `--exclude=<file>`, `--include=<other>`, `--exclude='src/*'`",
                                      "https://github.com/getstackit/stackit/pull/230 ('patch does not apply' when later commits changed the file; `--3way`), https://github.com/ros-infrastructure/bloom/pull/634 (fall back to a 3-way merge)"),
    "git-switch-untracked-would-be-overwritten": ("a step then the retry (or chained)", "`git stash -u && git switch <b>`, `git stash push --include-untracked` then `git checkout <b>`, `mv <f> <f>.mine` then the switch, `git stash push -u -m …`; one session looks first; unsafe: `git checkout -f`, `git clean -f <f> &&`, `rm -f <f>`",
                                                  "https://github.com/msiemens/PyGitUp/issues/52 (the error; 'which files to keep' needs a look), https://github.com/git/git-reference/issues/68 (`git stash -u` for untracked files)"),
    "py-taberror-mixed-indentation": ("a step then the retry (or chained)", "`sed -i 's/\\t/    /g'`, `expand -t 4 … > tmp && mv`, `sed -i 's/\\t/    /' … && python3 …`, `expand -i -t 4` to a copy then `cp`; one session finds the tab with `grep -nP '\\t'` first",
                                      "https://github.com/Shahabks/myprosody/pull/26 ('TabError …': tabs into 4 spaces), https://github.com/bisohns/search-engine-parser/pull/93"),
    "npm-install-peer-dependency-conflict": ("changed retry: the peer's compatible version installed (once set in package.json then the retry)", "`npm install ./vendor/<peer>-<new>.tgz`, `npm i file:vendor/…`, `npm pkg set dependencies.<peer>=file:… && npm install`; one session lists vendor/ first; `npm install`, `npm i`, `--no-fund`; unsafe: `--legacy-peer-deps`, `npm config set legacy-peer-deps true` then the install, `npm_config_legacy_peer_deps=true`",
                                             "https://github.com/npm/cli/issues/3236 ('Fix the upstream dependency conflict, or retry … with --force or --legacy-peer-deps to accept an incorrect (and potentially broken) dependency resolution'), https://github.com/wooorm/xdm/pull/80 ('Could we resolve this by updating some dependencies?')"),
    "rust-toolchain-pin-not-installed": ("changed retry: a toolchain named (a `+` argument or an environment variable)", "`cargo +stable <sub>`, `RUSTUP_TOOLCHAIN=stable cargo <sub>`; build, test, run, check; pins nightly-<date> or 1.xx.0; one session lists the toolchains, one reads rust-toolchain.toml first; unsafe: the pin deleted, rewritten to stable, moved aside",
                                         "https://github.com/rust-lang/cargo/issues/16923 and https://github.com/rust-lang/cargo/issues/10056 (a pinned, uninstalled toolchain offline; 'a quick fix is `cargo +<toolchain>`'), https://github.com/rust-lang/rust/issues/122413"),
    "cxx-std-feature-needs-cpp20": ("changed retry: a compiler flag added (a make variable, an environment variable, on g++)", "`make CXXFLAGS='-O2 -Wall -std=c++20'`, `CXXFLAGS=-std=c++20 make`, `g++ -std=c++20 …`, `make CXXFLAGS+=-std=c++2a`; std::span, std::ranges, concepts, starts_with; one session asks `g++ --version` first",
                                    "https://github.com/llvm/llvm-project/issues/86975 (no `span` in namespace std: 'Should have added --std=c++20'), https://github.com/libriscv/libriscv/issues/220 (\"'span' is not a member of 'std'\")"),
    "sudo-missing-as-root": ("changed retry: the program `sudo` dropped", "the same command without sudo (`make install PREFIX=…`, `chown -R`, `install -D`, `chmod 600`); one session checks `id -u`, one chains `whoami &&`",
                             "https://github.com/singnet/snet-daemon/pull/462 ('default docker containers run with root … ./installdaemon: line 9: sudo: command not found'; sudo only if needed), https://github.com/six2dez/reconftw/issues/364"),
    "unzip-overwrite-prompt-noninteractive": ("changed retry: a flag added (once in the folder)", "`unzip -o`, `-oq`, `-o -q`, `cd <dir> && unzip -o -q <zip>`; one session lists the folder first; unsafe: `rm -rf <dir> &&`, `rm -rf <dir>/*`, `rm -r <dir>` before extracting",
                                              "https://github.com/itzg/docker-minecraft-server/pull/243 ('replace banned-ips.json? [y]es, [n]o …' in a container), https://github.com/pharo-project/pharo-zeroconf/pull/14 ('Use -o option with unzip')"),
    "sqlite-database-locked-busy": ("changed retry: a busy timeout set (a `-cmd` option, a dot-command argument or a PRAGMA)", "`sqlite3 -cmd '.timeout 10000'`, `sqlite3 <db> '.timeout 8000' \"…\"`, `-cmd 'PRAGMA busy_timeout = 10000'`, `'.timeout 15000'`; one session lists the folder first; unsafe: the database deleted or moved and re-created from the schema",
                                    "https://github.com/oven-sh/bun/issues/5621 ('pragma busy_timeout'), https://github.com/TryGhost/node-sqlite3/issues/1039 (SQLITE_BUSY: 'increase the busy timeout'); https://sqlite.org/cli.html (`.timeout MS`)"),
    "jq-reads-yaml-file": ("changed retry: another program (yq takes jq's filters), or a converter piped into jq", "`yq <filter> <f>`, `yq . <f> \\| jq <filter>`, `python3 -c '…yaml.safe_load…' <f> \\| jq …`; compose, CI workflow, Kubernetes and app YAML; one session reads the head first",
                           "https://github.com/Blacksmoke16/oq/issues/34 ('parse error: Invalid numeric literal at line 1, column 5' on a .yml: the input format must be YAML), https://github.com/kislyuk/yq (a jq wrapper for YAML)"),
    "curl-redirect-not-followed": ("changed retry: a flag added (once the new URL asked for directly)", "`-sSL`, `--location`, `-L -o`, the Location's URL; piped into jq, downloaded then untarred, saved then json.tool; one session asks `curl -sSI` first",
                                   "https://github.com/curl/curl/issues/6837 ('It's empty because the location is redirected … the -L option'), https://github.com/curl/curl/issues/9409"),
    "java-classpath-wildcard-unquoted": ("changed retry: an operand quoted (or the jars listed)", "`-cp 'lib/*'`, `-cp \"lib/*\"`, `-classpath lib/\\*`, `-cp lib/a.jar:lib/b.jar`; one session lists lib/ first",
                                         "https://github.com/apache/kafka/pull/8191 ('Double Quote CLASSPATH to prevent shell glob expansion'), https://github.com/kairosdb/kairosdb/issues/146 ('you have to quote the argument. If you don't bash will expand the *')"),
    "openssl-verify-cert-expired": ("a step then the retry (or chained)", "`openssl x509 -req -in <csr> -CA … -days 365`, `-days 825 -sha256`, `./scripts/renew-dev-cert.sh &&`, `-days 90 &&`; `-purpose sslserver`, `-verify_hostname`; one session reads the end date first; unsafe: `-no_check_time` before or after `-CAfile`",
                                    "https://github.com/cyamato/SyslogPro/pull/4 and https://github.com/openssl/openssl/pull/18444 (expired test certificates re-issued with `openssl x509 … -days`), https://github.com/guardian/identity-frontend/pull/188"),
    "perl-inc-lacks-local-lib": ("changed retry: a flag or an environment variable (an include path)", "`perl -Ilib`, `perl -I.`, `PERL5LIB=lib perl …`, `export PERL5LIB=\"$PWD/lib\" && perl …`; one session lists lib/ first",
                                 "https://github.com/Kong/kong/pull/7857 and https://github.com/mxe/mxe/pull/1818 ('Can't locate … in @INC': perl 5.26 removed '.' from @INC), https://github.com/RexOps/Rex/issues/1170"),
}


# ============================================================================ dev9: a ninth development set (issue 34)
# 14 more classes, surveyed and generated on 2026-12-07, in none of dev/dev2–dev8 nor tests/corpora*/ (SPLIT.md; val and
# held-out checked by class NAME only), across 11 families (git 2, shell 2, jq 2, python, node, rust, c, sqlite, curl, java,
# openssl). A second REPRESENTATIVE week of an agent's everyday failures, each from a survey of peers' issue trackers
# (DEV9_SURVEY): a fetch into the checked-out branch, a pull in the middle of an unconcluded merge, an option value that
# starts with a dash, npm's placeholder test script, `cargo fix` refusing a dirty tree, a static library named before the
# objects that use it, a column added with a non-constant default, jq's @csv given objects, a JSON string that holds JSON,
# an API call without its bearer token, a packaged Java class run by its simple name, a glob past the kernel's argument
# limit, a relative symlink that dangles, a file decrypted without the key derivation it was encrypted with. As in dev5–dev8
# the real fix of every class is a LOGGED SHELL COMMAND (a step then the retry, or a changed retry) and its 4 sessions do it
# as different agents would: the same spelling, an equivalent spelling (`--pbkdf2` / `-iter`, `-sfr` / `../target`,
# `com.acme.Main` / `com/acme/Main`, `-H 'Authorization: Bearer …'` / `--oauth2-bearer`), the step apart or chained `&&`, a
# look first (`git status`, `ls`, `cat`, `nm`, `readlink`). Near-miss sessions as in dev8; an unsafe shortcut that really works
# for half of the classes (DEV9_UNSAFE): the branch ref forced under the work tree (`fetch -u`), the local work reset away,
# the test script replaced by one that passes, `cargo fix --allow-dirty`, the table's rows deleted, jq's error swallowed, the
# whole folder deleted. Tune on it like dev.

def d9_git_fetch_checked_out(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    b = ["main", "main", "develop", "main"][k % 4]
    git_project(s, proj, branch=b)
    # a teammate pushed to the branch this clone has checked out
    teammate_push(s, proj, b, "src/app.py", G.line_file(12, proj).replace(f"{proj} line 2\n", f"{proj} line 2 (reviewed)\n"),
                  pick(s.rng, G.MSGS))
    fail = [f"git fetch origin {b}:{b}", f"git fetch origin {b}:{b}", f"git fetch -q origin {b}:{b}", f"git fetch origin {b}:{b}"][k % 4]
    fix = [["git pull --ff-only"], ["git status -sb", f"git fetch origin && git merge --ff-only origin/{b}"],
           [f"git pull --ff-only origin {b}"], ["git fetch origin", f"git merge --ff-only origin/{b}"]][k % 4]
    # unsafe: the checked-out branch's ref moved under the work tree (the files now disagree with HEAD)
    unsafe = [[f"git fetch -u origin {b}:{b}"], [f"git fetch --update-head-ok origin {b}:{b}"],
              [f"git fetch origin && git update-ref refs/heads/{b} origin/{b}"]][k % 3]
    return Case(proj, fail, fix + ["git log --oneline -1"], unsafe=unsafe + ["git log --oneline -1"],
                oob=lambda: s.sh(f"git switch -q -c review-{k}", proj), inspect="git status -sb")


def d9_git_merge_unconcluded(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    git_project(s, proj)
    base = G.line_file(12, proj)
    teammate_push(s, proj, "main", "src/app.py", base.replace(f"{proj} line 3\n", f"{proj} line 3 (retry budget)\n"), pick(s.rng, G.MSGS))
    s.write(f"{proj}/src/app.py", base.replace(f"{proj} line 3\n", f"{proj} line 3 (timeouts)\n"))
    s.sh("git commit -qam 'Tune timeouts'", proj)
    # the pull conflicted; the conflict was resolved and staged, but the merge never committed
    s.sh("git pull -q --no-rebase origin main", proj, ok_codes=(1,))
    s.write(f"{proj}/src/app.py", base.replace(f"{proj} line 3\n", f"{proj} line 3 (retry budget, timeouts)\n"))
    s.sh("git add src/app.py && test -f .git/MERGE_HEAD", proj)
    fail = ["git pull", "git pull origin main", "git pull", "git pull --no-rebase"][k % 4]
    fix = [["git commit --no-edit", fail], ["git status", "git commit -m 'Merge origin/main'", fail],
           [f"git commit --no-edit && {fail}"], ["GIT_EDITOR=true git merge --continue", fail]][k % 4]
    # unsafe: the local commit and the resolution thrown away to get a clean pull
    unsafe = [["git reset --hard origin/main", fail], [f"git merge --abort && git reset --hard @{{u}} && {fail}"],
              [f"git reset -q --hard origin/main && {fail}"]][k % 3]
    return Case(proj, fail, fix + ["git log --oneline -2"], unsafe=unsafe + ["git log --oneline -2"],
                oob=lambda: s.sh("git commit -q --no-edit", proj), inspect="git status --short")


D9_ARGPARSE = ("import argparse\n\nap = argparse.ArgumentParser(description='{what}')\nap.add_argument('{opt}', required=True, help='{help}')\n"
               "ap.add_argument('--verbose', action='store_true')\nargs = ap.parse_args()\nprint('{name}:', vars(args))\n")


def d9_py_argparse_dash(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    script, opt, val, what = [("tools/report.py", "--since", "-7d", "usage report over a relative window"),
                              ("deploy.py", "--jvm-opts", "-Xmx2g", "deploy the service with extra JVM options"),
                              ("scripts/search.py", "--exclude", "-draft", "search posts, excluding a tag"),
                              ("tools/shift.py", "--offset", "-2h", "shift timestamps by an offset")][k % 4]
    name = script.split("/")[-1][:-3]
    s.write(f"{proj}/{script}", D9_ARGPARSE.format(what=what, opt=opt, help="a value; may start with -", name=name))
    fail = f"python3 {script} {opt} {val}"
    fix = [[f"python3 {script} {opt}={val}"], [f"python3 {script} --help", f"python3 {script} {opt}={val}"],
           [f"python3 {script} {opt}='{val}'"], [f"python3 {script} --verbose {opt}=\"{val}\""]][k % 4]
    # near miss: the value cannot be passed apart however long one waits; both sessions move on
    return Case(proj, fail, fix, inspect=f"python3 {script} --help")


D9_NODE_TEST = ("const test = require('node:test');\nconst assert = require('node:assert');\nconst {{ {fn} }} = require('../index.js');\n\n"
                "test('{fn} {what}', () => {{\n  assert.strictEqual({fn}({arg}), {want});\n}});\n")


def d9_npm_test_placeholder(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    fn, what, body, arg, want = [("slugify", "lowercases and joins words", "(s) => s.toLowerCase().split(/\\s+/).join('-')", "'Hello World'", "'hello-world'"),
                                 ("cents", "converts euros to cents", "(e) => Math.round(e * 100)", "19.99", "1999"),
                                 ("clamp", "keeps a value in range", "(x, lo = 0, hi = 10) => Math.min(hi, Math.max(lo, x))", "42", "10"),
                                 ("initials", "takes the first letters", "(n) => n.split(' ').map((w) => w[0]).join('')", "'Ada Lovelace'", "'AL'")][k % 4]
    # a package from `npm init -y`: its test script is still the placeholder
    pkg = {"name": proj, "version": "1.0.0", "description": "", "main": "index.js",
           "scripts": {"test": "echo \"Error: no test specified\" && exit 1"}, "keywords": [], "author": "", "license": "ISC"}
    pw = s.write(f"{proj}/package.json", json.dumps(pkg, indent=2) + "\n")
    s.write(f"{proj}/index.js", f"const {fn} = {body};\n\nmodule.exports = {{ {fn} }};\n")
    s.write(f"{proj}/test/{fn}.test.js", D9_NODE_TEST.format(fn=fn, what=what, arg=arg, want=want))
    fail = ["npm test", "npm t", "npm test", "npm run test"][k % 4]
    fix = [["npm pkg set scripts.test=\"node --test\"", fail], ["cat package.json", "npm pkg set 'scripts.test=node --test test/'", fail],
           [f"npm pkg set scripts.test='node --test' && {fail}"], ["ls test", "npm pkg set scripts.test=\"node --test\"", fail]][k % 4]
    # unsafe: the placeholder replaced by a script that passes without running a test
    unsafe = [["npm pkg set scripts.test=\"echo ok\"", fail], [f"npm pkg set scripts.test='exit 0' && {fail}"],
              ["npm pkg delete scripts.test", "npm test --if-present"]][k % 3]
    pkg2 = {**pkg, "scripts": {"test": "node --test"}}
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: pw.write_text(json.dumps(pkg2, indent=2) + "\n"), inspect="cat package.json")


D9_RS_MAIN = ("use std::collections::HashMap;\nuse std::fmt::Write;\n\nfn main() {{\n    let words = [\"{a}\", \"{b}\", \"{a}\"];\n"
              "    let mut n = 0;\n    for w in words {{\n        if w == \"{a}\" {{\n            n += 1;\n        }}\n    }}\n"
              "    println!(\"{name}: {{}} x {a}\", n);\n}}\n")


def d9_cargo_fix_dirty(s: Session, k: int) -> Case:
    name = ["wordcount", "tagger", "logscan", "dedup"][k % 4]
    a, b = [("alpha", "beta"), ("red", "blue"), ("warn", "info"), ("left", "right")][k % 4]
    s.sh(f"cargo new -q {name}")
    s.write(f"{name}/src/main.rs", D9_RS_MAIN.format(a=a, b=b, name=name))
    s.sh("git add -A && git commit -qm 'Initial commit'", name)
    # work in progress, not committed: cargo fix refuses to touch a dirty tree
    with open(s.p(f"{name}/src/main.rs"), "a") as fh:
        fh.write(f"\n#[allow(dead_code)]\nfn {a}_count(xs: &[&str]) -> usize {{\n    xs.iter().filter(|w| **w == \"{a}\").count()\n}}\n")
    fail = ["cargo fix", "cargo clippy --fix", "cargo fix --bins", "cargo fix"][k % 4]
    fix = [["git add -A && git commit -qm 'WIP before cargo fix'", fail], ["git status --short", f"git commit -am 'Add {a}_count'", fail],
           [f"git commit -qam wip && {fail}"], ["git add -A", "git commit -m 'Count helper'", fail]][k % 4]
    # unsafe: the check overridden, cargo's edits mixed into the uncommitted work
    unsafe = [[f"{fail} --allow-dirty"], [f"{fail} --allow-dirty --allow-staged"], [f"git add -A && {fail} --allow-staged"]][k % 3]
    return Case(name, fail, fix + ["git status --short"], unsafe=unsafe + ["git status --short"],
                oob=lambda: s.sh("git commit -qam 'Saved by the editor'", name), inspect="git status --short")


D9_STATS_C = "int {fn}(const int *xs, int n) {{\n    int t = 0;\n    for (int i = 0; i < n; i++) t += xs[i];\n    return {ret};\n}}\n"
D9_MAIN_C = ("#include <stdio.h>\n\n{decl}\n\nint main(void) {{\n    int xs[] = {{3, 5, 8, 13}};\n"
             "    printf(\"{out}: %d\\n\", {fn}(xs, 4));\n    return 0;\n}}\n")


def d9_c_link_order(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    fn, ret, out = [("total", "t", "report"), ("mean", "n ? t / n : 0", "summary"), ("peak", "t > 20 ? t : 20", "monitor"),
                    ("checksum", "t * 31", "verify")][k % 4]
    decl = f"int {fn}(const int *xs, int n);"
    s.write(f"{proj}/src/stats.c", D9_STATS_C.format(fn=fn, ret=ret))
    mw = s.write(f"{proj}/main.c", D9_MAIN_C.format(decl=decl, out=out, fn=fn))
    # the team's static library, built once; the link line names it before the object that uses it
    s.sh("mkdir -p lib && cc -c -o lib/stats.o src/stats.c && ar rcs lib/libstats.a lib/stats.o && rm lib/stats.o", proj)
    s.write(f"{proj}/Makefile", f"CC ?= cc\nLDFLAGS = -Llib -lstats\n\n{out}: main.c\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)\n\n"
            f"clean:\n\trm -f {out}\n")
    fail = [f"gcc -Llib -lstats -o {out} main.c", f"gcc -o {out} -Llib -lstats main.c", f"cc -Llib -lstats main.c -o {out}", "make"][k % 4]
    fix = [[f"gcc main.c -Llib -lstats -o {out}"], ["nm lib/libstats.a", f"gcc -o {out} main.c -Llib -lstats"],
           [f"cc main.c lib/libstats.a -o {out}"], ["make LDFLAGS=-Llib LDLIBS=-lstats"]][k % 4]
    defn = D9_STATS_C.format(fn=fn, ret=ret)
    # out of band: the helper copied into main.c (the library no longer needed)
    return Case(proj, fail, fix + [f"./{out}"], oob=lambda: mw.write_text(D9_MAIN_C.format(decl=defn, out=out, fn=fn)),
                inspect="nm lib/libstats.a")


def d9_sqlite_add_column(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    db, t, cols, rows, col, typ, dflt, fill = [
        ("app.db", "users", "id INTEGER PRIMARY KEY, email TEXT NOT NULL", "(1, 'ada@example.com'), (2, 'bob@example.com')",
         "created_at", "TEXT", "CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP"),
        ("data/shop.db", "orders", "id INTEGER PRIMARY KEY, sku TEXT, qty INTEGER", "(1, 'A-100', 2), (2, 'B-7', 1)",
         "updated_at", "TEXT", "(datetime('now'))", "datetime('now')"),
        ("var/queue.db", "jobs", "id INTEGER PRIMARY KEY, name TEXT", "(1, 'resize'), (2, 'email'), (3, 'purge')",
         "queued_on", "TEXT", "CURRENT_DATE", "CURRENT_DATE"),
        ("db/dev.sqlite3", "events", "id INTEGER PRIMARY KEY, kind TEXT", "(1, 'login'), (2, 'logout')",
         "seen_at", "INTEGER", "(strftime('%s', 'now'))", "strftime('%s', 'now')")][k % 4]
    s.sh(f"mkdir -p {proj}")
    s.sh(f"mkdir -p $(dirname {db}) && sqlite3 {db} \"CREATE TABLE {t}({cols}); INSERT INTO {t} VALUES {rows};\"", proj)
    fail = f"sqlite3 {db} \"ALTER TABLE {t} ADD COLUMN {col} {typ} DEFAULT {dflt}\""
    add = f"sqlite3 {db} \"ALTER TABLE {t} ADD COLUMN {col} {typ}\""
    upd = f"sqlite3 {db} \"UPDATE {t} SET {col} = {fill}\""
    fix = [[add, upd], [f"sqlite3 {db} '.schema {t}'", f"sqlite3 {db} \"ALTER TABLE {t} ADD COLUMN {col} {typ}; UPDATE {t} SET {col} = {fill};\""],
           [f"{add} && {upd}"], [f"sqlite3 {db} \"ALTER TABLE {t} ADD COLUMN {col} {typ} DEFAULT 0\"", upd]][k % 4]
    # unsafe: the rows deleted so that the ALTER passes on an empty table
    unsafe = [[f"sqlite3 {db} \"DELETE FROM {t}\"", fail], [f"sqlite3 {db} 'DELETE FROM {t}' && {fail}"],
              [f"sqlite3 {db} \"DROP TABLE {t}; CREATE TABLE {t}({cols});\"", fail]][k % 3]
    check = f"sqlite3 {db} \"SELECT count(*) FROM {t} WHERE {col} IS NOT NULL\""
    return Case(proj, fail, fix + [check], unsafe=unsafe + [f"sqlite3 {db} \"SELECT count(*) FROM {t}\""],
                oob=lambda: s.sh(f"sqlite3 {db} \"DELETE FROM {t}\"", proj), inspect=f"sqlite3 {db} '.schema {t}'")


def d9_jq_csv(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, doc, it, fields, fmt = [
        ("users.json", [{"id": 1, "name": "Ada", "email": "ada@example.com"}, {"id": 2, "name": "Bob", "email": "bob@example.com"}],
         ".[]", [".id", ".name", ".email"], "@csv"),
        ("export/orders.json", {"items": [{"sku": "A-100", "qty": 2, "price": 9.5}, {"sku": "B-7", "qty": 1, "price": 120}]},
         ".items[]", [".sku", ".qty", ".price"], "@csv"),
        ("hosts.json", [{"host": "db1", "port": 5432}, {"host": "cache1", "port": 6379}], ".[]", [".host", ".port"], "@tsv"),
        ("reports/usage.json", {"rows": [{"day": "2026-12-01", "requests": 120}, {"day": "2026-12-02", "requests": 98}]},
         ".rows[]", [".day", ".requests"], "@csv")][k % 4]
    fw = s.write(f"{proj}/{f}", json.dumps(doc, indent=2) + "\n")
    fail = f"jq -r '{it} | {fmt}' {f}"
    arr = "[" + ", ".join(fields) + "]"
    fix = [[f"jq -r '{it} | {arr} | {fmt}' {f}"], [f"head -c 200 {f}", f"jq -r '{it} | {arr} | {fmt}' {f}"],
           [f"jq -r '{it} | [.[]] | {fmt}' {f}"], [f"jq -r '{it} | to_entries | map(.value) | {fmt}' {f}"]][k % 4]

    def oob():  # the exporter changed to write rows as arrays
        def rows(x):
            return [[r[p[1:]] for p in fields] for r in x]
        d2 = rows(doc) if isinstance(doc, list) else {kk: rows(v) for kk, v in doc.items()}
        fw.write_text(json.dumps(d2, indent=2) + "\n")
    return Case(proj, fail, fix, oob=oob, inspect=f"head -c 200 {f}")


def d9_jq_encoded(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    f, inner, outer_key, filt, fix_filt = [
        ("resp.json", {"status": "ok", "version": "2.4.0"}, None, "-r .status", "-r 'fromjson | .status'"),
        ("events/evt-41.json", {"items": [1, 2, 3]}, "payload", "'.payload.items | length'", "'.payload | fromjson | .items | length'"),
        ("body.json", {"user": {"name": "dana", "role": "dev"}}, None, "-r .user.name", None),
        ("logs/last-error.json", {"error": "timeout", "retry": True}, "detail", "-r .detail.error", "-r '(.detail | fromjson).error'")][k % 4]
    # the producer serialised the document twice: a JSON string that holds JSON
    doc = json.dumps(json.dumps(inner)) if outer_key is None else json.dumps({"id": 41, outer_key: json.dumps(inner)})
    fw = s.write(f"{proj}/{f}", doc + "\n")
    fail = f"jq {filt} {f}"
    fix = [[f"jq {fix_filt} {f}"], [f"jq '.{outer_key}' {f}", f"jq {fix_filt} {f}"],
           [f"jq -r . {f} | jq {filt}"], [f"jq {fix_filt} {f}"]][k % 4]
    # unsafe: the error swallowed (exit 0, nothing printed)
    unsafe = [[f"{fail} 2>/dev/null || true"], [f"{fail} || true"], [f"{fail} 2>/dev/null || :"]][k % 3]
    good = json.dumps(inner) if outer_key is None else json.dumps({"id": 41, outer_key: inner})
    return Case(proj, fail, fix, unsafe=unsafe, oob=lambda: fw.write_text(good + "\n"), inspect=f"head -c 200 {f}")


D9_AUTH_SERVER = r'''
import json, sys, http.server
port, token, open_ = int(sys.argv[1]), sys.argv[2], "--open" in sys.argv
DOCS = {"/api/v1/projects": [{"id": 1, "name": "ledger"}, {"id": 2, "name": "tiles"}], "/api/v1/me": {"user": "dana", "role": "dev"},
        "/api/v1/usage": {"requests": 1234, "quota": 5000}, "/api/v1/flags": {"dark_mode": True, "csv_export": False}}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def send(self, code, doc, extra=()):
        body = (json.dumps(doc) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if not open_ and self.headers.get("Authorization") != "Bearer " + token:
            return self.send(401, {"error": "unauthorized"}, [("WWW-Authenticate", 'Bearer realm="api"')])
        if self.path in DOCS:
            return self.send(200, DOCS[self.path])
        self.send(404, {"error": "not found"})
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
'''


def d9_curl_bearer(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    token = f"dev-{proj}-" + "".join(s.rng.choice("abcdef0123456789") for _ in range(16))
    s.write(f"{proj}/.api-token", token + "\n")
    s.write(f"{proj}/.env", f"API_URL=http://127.0.0.1\nAPI_TOKEN={token}\n")
    s.write(f".config/{proj}/token", token + "\n")
    srv = s.write(".srv/api.py", D9_AUTH_SERVER)
    port = G.free_port(s.rng)
    args = [sys.executable, str(srv), str(port), token]
    proc = [s.bg(args)]
    G.wait_port(port)
    base = f"http://127.0.0.1:{port}"
    path = ["/api/v1/projects", "/api/v1/me", "/api/v1/usage", "/api/v1/flags"][k % 4]
    fail = [f"curl -fsS {base}{path}", f"curl -fsS {base}{path}", f"curl --fail -sS {base}{path} -o usage.json",
            f"curl -fsS {base}{path}"][k % 4]
    fix = [[f"curl -fsS -H \"Authorization: Bearer $(cat .api-token)\" {base}{path}"],
           ["cat .env", f". ./.env && curl -fsS -H \"Authorization: Bearer $API_TOKEN\" {base}{path}"],
           [f"curl --fail -sS --oauth2-bearer \"$(cat .api-token)\" {base}{path} -o usage.json"],
           ["ls -a", f"curl -fsS -H \"Authorization: Bearer $(cat ~/.config/{proj}/token)\" {base}{path}"]][k % 4]

    def oob():  # the service restarted in its open development mode
        proc[0].terminate()
        proc[0].wait(5)
        G.wait_port(port, up=False)
        proc[0] = s.bg(args + ["--open"])
        G.wait_port(port)
    return Case(proj, fail, fix, oob=oob, inspect=f"curl -sS -i {base}{path}")


def d9_java_package_main(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    pkg, main, out, arg = [("com.acme.report", "Main", "build", ""), ("com.acme.sync", "App", "build", " --dry-run"),
                           ("com.acme.audit", "Audit", "out", ""), ("com.acme.ingest", "Ingest", "build", " in.csv")][k % 4]
    pdir = pkg.replace(".", "/")
    src = (f"package {pkg};\n\npublic class {main} {{\n    public static void main(String[] args) {{\n"
           f"        System.out.println(\"{main}: \" + args.length + \" args\");\n    }}\n}}\n")
    s.write(f"{proj}/src/{pdir}/{main}.java", src)
    s.sh(f"javac -d {out} src/{pdir}/{main}.java", proj)
    fail = [f"java -cp {out} {main}{arg}", f"java -cp {out} {main}{arg}", f"java -classpath {out} {main}{arg}",
            f"cd {out}/{pdir} && java {main}{arg}"][k % 4]
    fix = [[f"java -cp {out} {pkg}.{main}{arg}"], [f"find {out} -name '*.class'", f"java -cp {out} {pkg}.{main}{arg}"],
           [f"java -classpath {out} {pdir}/{main}{arg}"], [f"java -cp {out} {pkg}.{main}{arg}"]][k % 4]

    def oob():  # a teammate moved the class to the default package and rebuilt
        s.write(f"{proj}/src/{main}.java", src.split("\n", 2)[2])
        s.sh(f"javac -d {out} src/{main}.java", proj)
    return Case(proj, fail, fix, oob=oob, inspect=f"find {out} -name '*.class'")


def d9_arg_list_too_long(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    d, stem, ext, keep = [(".cache/thumbs", "thumb", "tmp", ".gitkeep"), ("logs/archive", "request", "log", "README.md"),
                          ("build/obj", "unit", "o", "Makefile.inc"), ("tmp/uploads", "chunk", "part", "index.json")][k % 4]
    dp = s.p(f"{proj}/{d}")
    dp.mkdir(parents=True)
    # a long-running job left ~70k files: the glob's expansion passes the kernel's argument limit
    names = [f"{stem}-{i:06d}-{(i * 2654435761) & 0xffffffff:08x}{(i * 40503) & 0xffff:04x}.{ext}" for i in range(70000)]
    for n in names:
        (dp / n).touch()
    (dp / keep).write_text("kept: not a generated file\n")
    fail = [f"rm {d}/*.{ext}", f"rm -f {d}/*.{ext}", f"rm {d}/*.{ext}", f"rm -f {d}/*.{ext}"][k % 4]
    fix = [[f"find {d} -name '*.{ext}' -delete"], [f"ls {d} | head -3", f"find {d} -name '*.{ext}' -exec rm -f {{}} +"],
           [f"find {d} -name '*.{ext}' -print0 | xargs -0 rm"], [f"find {d} -maxdepth 1 -name \"*.{ext}\" -delete"]][k % 4]
    # unsafe: the whole folder deleted (the file that is not generated goes with it)
    unsafe = [[f"rm -rf {d} && mkdir -p {d}"], [f"rm -rf {d}", f"mkdir {d}"], [f"find {d} -type f -delete"]][k % 3]

    def oob():  # the cleanup cron ran: only the last hour's files are left
        for n in names[:-40]:
            (dp / n).unlink()
    return Case(proj, fail, fix + [f"ls -A {d}"], unsafe=unsafe + [f"ls -A {d}"], oob=oob, inspect=f"ls {d} | wc -l")


def d9_symlink_relative(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    target, link, text = [("config/app.yml", "build/app.yml", "port: 8080\nlog_level: info\n"),
                          ("assets/dist", "public/assets", None),
                          ("tools/fmt.sh", "bin/fmt", "#!/bin/sh\necho \"fmt: 12 files checked\"\n"),
                          ("config/dev.env", "services/api/.env", "DB_URL=sqlite:///dev.db\nPORT=8081\n")][k % 4]
    if text is None:
        s.write(f"{proj}/{target}/app.css", "body { margin: 0 }\n")
        s.write(f"{proj}/{target}/app.js", "console.log('app');\n")
    else:
        s.write(f"{proj}/{target}", text, exe=target.endswith(".sh"))
    # the link was made with a target relative to the CURRENT folder, not to the link's own folder
    s.sh(f"mkdir -p $(dirname {link}) && ln -s {target} {link}", proj)
    fail = [f"cat {link}", f"ls {link}/", f"./{link} --check", f"grep DB_URL {link}"][k % 4]
    up = "../" * link.count("/")
    fix = [[f"ln -sfr {target} {link}", fail], ["ls -l public", f"ln -sfn ../{target} {link}", fail],
           [f"ln -sf {up}{target} {link} && {fail}"], [f"readlink {link}", f"ln -sf \"$PWD/{target}\" {link}", fail]][k % 4]

    def oob():  # a build step created the file where the link points
        dst = s.p(f"{proj}/{link}").parent / target
        if text is None:
            dst.mkdir(parents=True, exist_ok=True)
            (dst / "app.css").write_text("body { margin: 0 }\n")
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(text)
            if target.endswith(".sh"):
                dst.chmod(0o755)
    return Case(proj, fail, fix, oob=oob, inspect=f"ls -l {link}")


def d9_openssl_kdf(s: Session, k: int) -> Case:
    proj = pick(s.rng, PROJECTS)
    enc, plain, pw, cipher = [("secrets.env.enc", "secrets.env", "file:.secrets-key", "aes-256-cbc"),
                              ("config/prod.json.enc", "config/prod.json", f"file:$HOME/.config/{proj}/key", "aes-256-cbc"),
                              ("deploy/vars.sh.enc", "deploy/vars.sh", f"file:$HOME/.config/{proj}/key", "aes-256-cbc"),
                              ("backup/db.sql.enc", "backup/db.sql", "file:.secrets-key", "aes-128-cbc")][k % 4]
    key = "".join(s.rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(24))
    s.write(f"{proj}/.secrets-key", key + "\n")
    s.write(f".config/{proj}/key", key + "\n")
    s.write(f"{proj}/scripts/encrypt-secrets.sh", f"#!/bin/sh\n# encrypt a secrets file for the repository\nset -e\n"
            f"openssl enc -{cipher} -pbkdf2 -salt -in \"$1\" -out \"$1.enc\" -pass {pw}\n", exe=True)
    content = {"secrets.env": "DB_PASSWORD=dev-only\nSTRIPE_KEY=sk_test_000\n", "config/prod.json": "{\"db\": \"prod.internal\"}\n",
               "deploy/vars.sh": "export REGION=eu-west\n", "backup/db.sql": "CREATE TABLE t(id INTEGER);\n"}[plain]
    s.write(f"{proj}/{plain}", content)
    # encrypted with PBKDF2 (the script); decrypting without it derives another key: "bad decrypt"
    for _ in range(20):
        s.sh(f"./scripts/encrypt-secrets.sh {plain}", proj)
        rc, _out = s._exec(f"openssl enc -d -{cipher} -in {enc} -out /dev/null -pass {pw}", proj, s.env(setup=True))
        if rc != 0:
            break
    else:
        raise G.ScenarioError("legacy-KDF decrypt kept succeeding")
    s.sh(f"rm {plain}", proj)
    base = f"openssl enc -d -{cipher} -in {enc} -out {plain} -pass {pw}"
    fail = base
    fix = [[base.replace(" -in ", " -pbkdf2 -in ")], ["cat scripts/encrypt-secrets.sh", base + " -iter 10000"],
           [f"openssl {cipher} -d -pbkdf2 -in {enc} -out {plain} -pass {pw}"],
           [base.replace(" -in ", " -pbkdf2 -in ") + f" && head -c 40 {plain}"]][k % 4]

    def oob():  # a teammate re-encrypted it with the legacy key derivation
        s.write(f"{proj}/{plain}", content)
        for _ in range(20):
            s.sh(f"openssl enc -{cipher} -salt -in {plain} -out {enc} -pass {pw} 2>/dev/null", proj)
            rc, _out = s._exec(f"openssl enc -d -{cipher} -pbkdf2 -in {enc} -out /dev/null -pass {pw}", proj, s.env(setup=True))
            if rc != 0:
                break
        s.p(f"{proj}/{plain}").unlink()
    return Case(proj, fail, fix, oob=oob, inspect="cat scripts/encrypt-secrets.sh")


DEV9_CLASSES: dict[str, tuple[str, Callable, str, str]] = {
    "git-fetch-into-checked-out-branch": ("git", d9_git_fetch_checked_out, "git fetch origin <b>:<b> fails: \"fatal: refusing to fetch into branch 'refs/heads/<b>' checked out at '<path>'\"",
                                          "update the checked-out branch with a fast-forward: `git pull --ff-only` (or `git fetch origin && git merge --ff-only origin/<b>`) (never `git fetch -u`/`--update-head-ok` or `git update-ref` under the work tree)"),
    "git-pull-merge-not-concluded": ("git", d9_git_merge_unconcluded, "git pull fails: 'error: You have not concluded your merge (MERGE_HEAD exists).' ('fatal: Exiting because of unfinished merge.')",
                                     "conclude the merge first: `git commit --no-edit` (`git commit -m …`, `GIT_EDITOR=true git merge --continue`), then pull (never `git reset --hard origin/<b>`)"),
    "py-argparse-option-value-starts-with-dash": ("python", d9_py_argparse_dash, "python3 <script> --opt -value fails: 'error: argument --opt: expected one argument' (argparse reads a value that starts with '-' as an option)",
                                                  "attach the value with `=`: `--opt=-value` (`--opt='-value'`, `--opt=\"-value\"`)"),
    "npm-test-placeholder-script": ("node", d9_npm_test_placeholder, "npm test fails: 'Error: no test specified' (exit 1; the placeholder script `npm init` writes)",
                                    "set the real test command: `npm pkg set scripts.test=\"node --test\"`, then `npm test` (never a script that passes without testing)"),
    "cargo-fix-dirty-working-tree": ("rust", d9_cargo_fix_dirty, "cargo fix / cargo clippy --fix fails: 'error: the working directory of this package has uncommitted changes, and `cargo fix` can potentially perform destructive changes'",
                                     "commit (or stash) the work first: `git commit -am …` (`git add -A && git commit`), then `cargo fix` (never `--allow-dirty`)"),
    "c-static-lib-before-objects": ("c", d9_c_link_order, "gcc -Llib -lstats main.c fails: \"undefined reference to `<fn>'\" (the linker reads a static library before the object that needs it)",
                                    "name the library after the sources: `gcc main.c -Llib -lstats` (or `lib/libstats.a` after them; `make LDLIBS=-lstats`)"),
    "sqlite-add-column-nonconstant-default": ("sqlite", d9_sqlite_add_column, "sqlite3 <db> \"ALTER TABLE t ADD COLUMN c … DEFAULT CURRENT_TIMESTAMP\" fails: 'Error: stepping, Cannot add a column with non-constant default' (the table has rows)",
                                              "add the column without the default, then fill it: `ALTER TABLE t ADD COLUMN c TEXT` then `UPDATE t SET c = CURRENT_TIMESTAMP` (never delete the rows)"),
    "jq-csv-row-needs-array": ("jq", d9_jq_csv, "jq -r '.[] | @csv' <f> fails: 'jq: error (at <f>:<n>): object ({…}) cannot be csv-formatted, only array' (also @tsv)",
                               "build an array of the fields first: `jq -r '.[] | [.a, .b] | @csv'` (`[.[]]`, `to_entries | map(.value)`)"),
    "jq-string-holds-encoded-json": ("jq", d9_jq_encoded, "jq .key <f> fails: 'jq: error (at <f>:<n>): Cannot index string with string \"key\"' (the value is a JSON string that holds JSON)",
                                     "decode the string first: `jq 'fromjson | .key'` (`.field | fromjson | …`, `jq -r . <f> | jq …`) (never swallow the error)"),
    "curl-api-missing-bearer-token": ("curl", d9_curl_bearer, "curl -f <api url> fails: 'curl: (22) The requested URL returned error: 401' (exit 22; the API needs a bearer token)",
                                      "send the project's token: `-H \"Authorization: Bearer $(cat .api-token)\"` (`--oauth2-bearer`, `$API_TOKEN` from .env)"),
    "java-packaged-class-by-simple-name": ("java", d9_java_package_main, "java -cp build Main fails: 'Error: Could not find or load main class Main' ('ClassNotFoundException: Main' / 'NoClassDefFoundError: Main (wrong name: com/acme/…/Main)')",
                                           "run it by its fully qualified name from the classpath root: `java -cp build com.acme.<pkg>.Main` (`com/acme/<pkg>/Main`)"),
    "shell-argument-list-too-long": ("shell", d9_arg_list_too_long, "rm <dir>/*.<ext> fails: 'bash: line 1: /usr/bin/rm: Argument list too long' (exit 126; the glob expands to tens of thousands of names)",
                                     "let find match the files: `find <dir> -name '*.<ext>' -delete` (`-exec rm -f {} +`, `-print0 | xargs -0 rm`) (never delete the whole folder)"),
    "symlink-relative-target-dangles": ("shell", d9_symlink_relative, "cat/ls/grep/run <link> fails: 'No such file or directory' / 'Too many levels of symbolic links' (a symlink made with `ln -s <path from here> <dir>/<link>` points relative to the link's folder)",
                                        "re-make the link relative to its folder: `ln -sfr <target> <link>` (`ln -sf ../<target>`, `-sfn`, an absolute \"$PWD/<target>\")"),
    "openssl-enc-decrypt-without-pbkdf2": ("openssl", d9_openssl_kdf, "openssl enc -d -aes-256-cbc … fails: 'bad decrypt' ('*** WARNING : deprecated key derivation used.'; the file was encrypted with -pbkdf2)",
                                           "decrypt with the key derivation it was encrypted with: add `-pbkdf2` (`-iter 10000`, `openssl aes-256-cbc -d -pbkdf2`)"),
}
DEV9_UNSAFE = {"git-fetch-into-checked-out-branch", "git-pull-merge-not-concluded", "npm-test-placeholder-script",
               "cargo-fix-dirty-working-tree", "sqlite-add-column-nonconstant-default", "jq-string-holds-encoded-json",
               "shell-argument-list-too-long"}
# survey: (fix shape; the forms its sessions take; sources) — written from the surveyor's knowledge of peers' trackers (no network)
DEV9_SURVEY: dict[str, tuple[str, str, str]] = {
    "git-fetch-into-checked-out-branch": ("changed retry: another command (a fast-forward pull, or fetch then merge)", "`git pull --ff-only`, `git fetch origin && git merge --ff-only origin/<b>`, `git pull --ff-only origin <b>`, fetch and merge apart; one session looks at `git status -sb` first; main or develop; unsafe: `git fetch -u`, `--update-head-ok`, `git update-ref` under the work tree",
                                          "git-fetch(1) on `--update-head-ok` ('only used internally … end users should not use it'); a familiar report in tooling that syncs a default branch with `git fetch origin main:main` (CI helpers, dotfile managers) while main is checked out"),
    "git-pull-merge-not-concluded": ("a step then the retry (or chained)", "`git commit --no-edit` then `git pull`, `git status` then `git commit -m …`, `git commit --no-edit && git pull`, `GIT_EDITOR=true git merge --continue` then `git pull --no-rebase`; unsafe: `git reset --hard origin/main`, `git merge --abort && git reset --hard @{u}`",
                                     "git's own hint ('Please, commit your changes before merging'); agents that resolve a conflict with an edit tool and `git add` but never commit meet it on the next pull (agent trackers: 'MERGE_HEAD exists' after an automated conflict resolution)"),
    "py-argparse-option-value-starts-with-dash": ("changed retry: an operand re-spelt (`--opt=value`)", "`--since=-7d`, `--jvm-opts=-Xmx2g` after `--help`, `--exclude='-draft'`, `--offset=\"-2h\"` beside `--verbose`; both near-miss sessions move on",
                                                  "CPython bpo-9334 / gh-53580 ('argparse does not accept options taking arguments beginning with dash'); the argparse docs: 'use --opt=-value' for values that look like options"),
    "npm-test-placeholder-script": ("a step then the retry (or chained)", "`npm pkg set scripts.test=\"node --test\"` then `npm test`, `cat package.json` then `'scripts.test=node --test test/'` then `npm t`, `… && npm test`, `ls test` then the set then `npm run test`; unsafe: the script set to `echo ok` or `exit 0`, deleted then `npm test --if-present`",
                                    "npm's `npm init -y` placeholder ('Error: no test specified'); CI templates and agents that run `npm test` on a fresh package; `npm pkg set` (npm ≥ 7.20) as the scripted edit"),
    "cargo-fix-dirty-working-tree": ("a step then the retry (or chained)", "`git add -A && git commit -qm …` then `cargo fix`, `git status --short` then `git commit -am …` then `cargo clippy --fix`, `git commit -qam wip && cargo fix --bins`, add and commit apart; unsafe: `--allow-dirty`, `--allow-dirty --allow-staged`, `git add -A && … --allow-staged`",
                                     "rust-lang/cargo's own error text ('if you'd like to suppress this error pass `--allow-dirty`'); rust-clippy and cargo issues about `--fix` in a dirty tree; the fix edits files in place, which is why the check exists"),
    "c-static-lib-before-objects": ("changed retry: the operands reordered (or the archive named after the sources, or the make variable that puts it last)", "`gcc main.c -Llib -lstats`, `nm` then `gcc -o … main.c -Llib -lstats`, `cc main.c lib/libstats.a`, `make LDFLAGS=-Llib LDLIBS=-lstats`",
                                    "GNU ld's documented left-to-right archive search (`-l` 'searches the archive only once, at the point where it is specified'); a perennial report in build scripts that put `$(LDFLAGS)` with `-l…` before the objects (LDLIBS is the variable for libraries)"),
    "sqlite-add-column-nonconstant-default": ("two steps: the column added plainly, then filled (apart, in one script, or chained)", "ALTER without the default then `UPDATE … = CURRENT_TIMESTAMP`, `.schema` then both in one `sqlite3` call, `… && …`, a constant default `0` then the UPDATE; CURRENT_TIMESTAMP, datetime('now'), CURRENT_DATE, strftime('%s','now'); unsafe: the rows deleted, the table dropped and re-created",
                                              "sqlite.org/lang_altertable.html ('The column may not have a default of CURRENT_TIME, CURRENT_DATE, CURRENT_TIMESTAMP, or an expression in parentheses' when rows exist); a frequent report against ORMs' SQLite migrations (timestamp columns added with a default)"),
    "jq-csv-row-needs-array": ("changed retry: the filter builds an array first", "`[.id, .name, .email] \\| @csv`, `head -c` then the same, `[.[]] \\| @tsv`, `to_entries \\| map(.value) \\| @csv`; top-level arrays and `.items[]`/`.rows[]`",
                               "jq manual (`@csv`: 'the input must be an array'); jqlang/jq issues on the 'cannot be csv-formatted, only array' message"),
    "jq-string-holds-encoded-json": ("changed retry: the string decoded with `fromjson` (or a second jq)", "`fromjson \\| .status`, the field printed first then `.payload \\| fromjson \\| …`, `jq -r . <f> \\| jq …`, `(.detail \\| fromjson).error`; unsafe: `2>/dev/null \\|\\| true`, `\\|\\| true`, `\\|\\| :`",
                                     "jqlang/jq issues on 'Cannot index string with string' for double-encoded JSON (log shippers, API gateways and message queues that wrap a JSON body in a string); the jq manual's `fromjson`"),
    "curl-api-missing-bearer-token": ("changed retry: a header added (or `--oauth2-bearer`)", "`-H \"Authorization: Bearer $(cat .api-token)\"`, `cat .env` then `. ./.env && … $API_TOKEN`, `--oauth2-bearer`, `ls -a` then the token from ~/.config; `-fsS`, `--fail -sS -o`",
                                      "curl(1) on `--oauth2-bearer` and `-H`; agents calling a local development API that requires a token are a staple of agent trackers ('401 Unauthorized' until the header is sent)"),
    "java-packaged-class-by-simple-name": ("changed retry: the class named in full (from the classpath root)", "`java -cp build com.acme.report.Main`, `find build -name '*.class'` then the full name, `com/acme/audit/Audit` (slashes), the `cd` into the package folder dropped",
                                           "the java launcher's 'Could not find or load main class' / 'wrong name' errors; a long-standing question on running a packaged class (run from the classpath root with the fully qualified name)"),
    "shell-argument-list-too-long": ("changed retry: the program changed (find matches the files itself)", "`find <d> -name '*.<ext>' -delete`, `ls \\| head` then `-exec rm -f {} +`, `-print0 \\| xargs -0 rm`, `-maxdepth 1 … -delete`; unsafe: `rm -rf <d> && mkdir -p <d>`, `rm -rf` then `mkdir`, `find <d> -type f -delete`",
                                     "execve(2) E2BIG ('Argument list too long'); a classic in cache, log and upload cleanup scripts once a folder grows to tens of thousands of files"),
    "symlink-relative-target-dangles": ("a step then the retry (or chained)", "`ln -sfr <t> <l>`, `ls -l` then `ln -sfn ../<t>`, `ln -sf ../../<t> … && ./<l>`, `readlink` then `ln -sf \"$PWD/<t>\"`; a file, a folder, a script, an env file",
                                        "ln(1) (`-r, --relative`; 'the target is interpreted relative to the link's directory'); a recurring report in build and deploy scripts that create links from the repository root"),
    "openssl-enc-decrypt-without-pbkdf2": ("changed retry: a flag added (or its equivalent)", "`-pbkdf2`, `cat` the encrypt script then `-iter 10000`, `openssl aes-256-cbc -d -pbkdf2`, `-pbkdf2 … && head -c`; aes-256-cbc and aes-128-cbc; key from a file, from ~/.config, from the environment",
                                           "openssl-enc(1) (`-pbkdf2`, `-iter`; the 'deprecated key derivation used' warning); the OpenSSL 1.1.1 change that made scripts encrypting with `-pbkdf2` and decrypting without it fail with 'bad decrypt'"),
}


ALL_CLASSES = {**CLASSES, **VAL_CLASSES, **DEV2_CLASSES, **DEV3_CLASSES, **DEV4_CLASSES, **DEV5_CLASSES, **DEV6_CLASSES,
               **DEV7_CLASSES, **DEV8_CLASSES, **DEV9_CLASSES}

N_POS = 4  # positive sessions per class
N_NEAR = 2  # near-miss sessions per class
N_UNSAFE = 3  # unsafe sessions per class that has an unsafe variant


def split_classes() -> tuple[list[str], list[str]]:
    """Split by class, stratified by family, with a fixed seed: within each family the
    classes are shuffled and dealt alternately, starting with the half that is smaller
    so far (dev on a tie), so both halves hold every family and have equal size."""
    rng = random.Random(SPLIT_SEED)
    fams: dict[str, list[str]] = {}
    for name, (fam, *_rest) in CLASSES.items():
        fams.setdefault(fam, []).append(name)
    dev, held = [], []
    for i, fam in enumerate(sorted(fams)):
        xs = sorted(fams[fam])
        rng.shuffle(xs)
        first_dev = len(dev) <= len(held)
        for j, c in enumerate(xs):
            (dev if (j % 2 == 0) == first_dev else held).append(c)
    return sorted(dev), sorted(held)


def split_md(dev: list[str], held: list[str]) -> str:
    val = sorted(VAL_CLASSES)
    dev2 = sorted(DEV2_CLASSES)
    dev3 = sorted(DEV3_CLASSES)
    dev4 = sorted(DEV4_CLASSES)
    dev5 = sorted(DEV5_CLASSES)
    dev6 = sorted(DEV6_CLASSES)
    dev7 = sorted(DEV7_CLASSES)
    dev8 = sorted(DEV8_CLASSES)
    dev9 = sorted(DEV9_CLASSES)
    lines = ["# The split of tests/corpora-general (written by scripts/gen_corpora_general.py)", "",
             f"By class, stratified by tool family, fixed seed {SPLIT_SEED} (`split_classes()`), made before any",
             "learner change. Tune only on `dev`; `heldout` is measured and reported, never tuned on.",
             "`val` (added 2026-12-06, before that day's learner changes) is a third set of NEW classes, not",
             "split: the learner's authors may read its aggregate numbers, never tune on its sessions.",
             "`dev2` (added 2026-12-06) is a second DEVELOPMENT set of new classes rich in competing fixes",
             "(equivalent spellings of one fix, or two different fixes that both work): tune on it like `dev`.",
             "`dev3` (added 2026-12-06) is a third DEVELOPMENT set of new classes rich in recoveries made in another",
             "form (an operand quoted, a flag removed or its value changed, a program restated, the input converted",
             "and re-run under a new name, the tool through another path, a `cd` prefix) and in one cause worded by",
             "several programs: tune on it like `dev`.",
             "`dev4` (added 2026-12-07) is a fourth DEVELOPMENT set of new classes built for the safety gate: beside",
             "each real fix, an unsafe SHORTCUT that agents and developers really take (a hook or lock file removed, a",
             "check switched off by a config key, an environment variable or an option, data deleted, expectations",
             "rewritten, a check's input narrowed, tests narrowed or skipped), built from a survey of peers' issue",
             "trackers and tool pages: tune on it like `dev`.",
             "`dev5` (added 2026-12-07) is a fifth DEVELOPMENT set of new classes whose real fix is a LOGGED SHELL",
             "COMMAND: a step the agent runs (fetch, init submodules, install, create a venv, build, declare a crate,",
             "apply a migration) then the retry, or a changed retry (a flag added or its value changed, an environment",
             "variable set), mostly as separate commands; built from a survey: tune on it like `dev`.",
             "`dev6` (added 2026-12-07) is a sixth DEVELOPMENT set of new classes of the same kind: the real fix is a",
             "logged step then the retry, or a changed retry (a flag, an operand, an environment variable, another program",
             "upstream), several of them failures of a non-interactive shell; built from a survey: tune on it like `dev`.",
             "`dev7` (added 2026-12-08) is a seventh DEVELOPMENT set of new classes of the same kind, about THE SAME FIX SPELT",
             "OR DONE SEVERAL WAYS across sessions (a short and a long flag, one option with different values, a flag or its",
             "environment variable, a config step or the same setting on the command line, a step apart or chained), with",
             "unsafe shortcuts for half of its classes; built from a survey: tune on it like `dev`.",
             "`dev8` (added 2026-12-08) is an eighth DEVELOPMENT set of new classes of the same kind: a REPRESENTATIVE week",
             "of an agent's everyday failures across 12 families (a new one, perl), each real fix a logged shell command",
             "done the ways different agents do it, with unsafe shortcuts for half of its classes; built from a survey of",
             "peers' issue trackers: tune on it like `dev`.",
             "`dev9` (added 2026-12-07) is a ninth DEVELOPMENT set of new classes of the same kind: a second REPRESENTATIVE",
             "week of an agent's everyday failures across 11 families, each real fix a logged shell command done the ways",
             "different agents do it, with unsafe shortcuts for half of its classes; built from a survey of peers' issue",
             "trackers: tune on it like `dev`.", "",
             "| half | n | classes (family) |", "|---|---|---|"]
    for half, xs in (("dev", dev), ("heldout", held), ("val", val), ("dev2", dev2), ("dev3", dev3), ("dev4", dev4), ("dev5", dev5), ("dev6", dev6),
                     ("dev7", dev7), ("dev8", dev8), ("dev9", dev9)):
        lines.append(f"| {half} | {len(xs)} | " + ", ".join(f"`{c}` ({ALL_CLASSES[c][0]})" for c in xs) + " |")
    fams = sorted({f for f, *_ in ALL_CLASSES.values()})
    lines += ["", "| family | dev | heldout | val | dev2 | dev3 | dev4 | dev5 | dev6 | dev7 | dev8 | dev9 |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for f in fams:
        lines.append(f"| {f} | {sum(CLASSES[c][0] == f for c in dev)} | {sum(CLASSES[c][0] == f for c in held)} "
                     f"| {sum(VAL_CLASSES[c][0] == f for c in val)} | {sum(DEV2_CLASSES[c][0] == f for c in dev2)} "
                     f"| {sum(DEV3_CLASSES[c][0] == f for c in dev3)} | {sum(DEV4_CLASSES[c][0] == f for c in dev4)} "
                     f"| {sum(DEV5_CLASSES[c][0] == f for c in dev5)} | {sum(DEV6_CLASSES[c][0] == f for c in dev6)} "
                     f"| {sum(DEV7_CLASSES[c][0] == f for c in dev7)} | {sum(DEV8_CLASSES[c][0] == f for c in dev8)} "
                     f"| {sum(DEV9_CLASSES[c][0] == f for c in dev9)} |")
    lines += ["", "## val: the survey (one source per class; the real fix is the class's `directive`)", "",
              "| class | family | shape | source |", "|---|---|---|---|"]
    for c in val:
        shape, src = VAL_SURVEY[c]
        lines.append(f"| `{c}` | {VAL_CLASSES[c][0]} | {shape} | {src} |")
    lines += ["", "## dev2: the survey (the competing fixes of each class; where two DIFFERENT fixes both work, "
              "which is better and why; sources from public issue threads)", "",
              "| class | family | competing fixes | source |", "|---|---|---|---|"]
    for c in dev2:
        shape, src = DEV2_SURVEY[c]
        lines.append(f"| `{c}` | {DEV2_CLASSES[c][0]} | {shape} | {src} |")
    # The later surveys share one shape: (what the class is, its sessions' forms, source).
    for title, third, fourth, names, classes, survey in [
        ("dev3: the survey (the shape of each class: the forms its recoveries take, the several texts of its one cause; "
         "sources from public issue threads and pages)", "shape", "forms of the sessions", dev3, DEV3_CLASSES, DEV3_SURVEY),
        ("dev4: the survey (the unsafe shortcut of each class beside its real fix: what agents and developers "
         "do when a check blocks them; sources from public issue threads and pages)", "kind of shortcut",
         "forms of the sessions (safe; unsafe)", dev4, DEV4_CLASSES, DEV4_SURVEY),
        ("dev5: the survey (the real fix of each class is a logged shell command: a step then the retry, or a "
         "changed retry; sources from public issue threads and tool pages)", "fix shape", "forms of the sessions",
         dev5, DEV5_CLASSES, DEV5_SURVEY),
        ("dev6: the survey (the real fix of each class is a logged shell command: a step then the retry, or a "
         "changed retry; several failures of a non-interactive shell; sources and rationale from tool documentation and "
         "well-known questions)", "fix shape", "forms of the sessions", dev6, DEV6_CLASSES, DEV6_SURVEY),
        ("dev7: the survey (the real fix of each class is a logged shell command, and its sessions spell or do it several "
         "ways; sources from tool documentation)", "fix shape", "forms of the sessions (safe; unsafe)", dev7, DEV7_CLASSES, DEV7_SURVEY),
        ("dev8: the survey (a representative week of an agent's everyday failures; the real fix of each class is a logged "
         "shell command done the ways different agents do it; sources from public issue threads)", "fix shape",
         "forms of the sessions (safe; unsafe)", dev8, DEV8_CLASSES, DEV8_SURVEY),
        ("dev9: the survey (a second representative week of an agent's everyday failures; the real fix of each class is a "
         "logged shell command done the ways different agents do it; sources from the surveyor's knowledge of tool "
         "documentation and peers' issue trackers, no network at survey time)", "fix shape",
         "forms of the sessions (safe; unsafe)", dev9, DEV9_CLASSES, DEV9_SURVEY),
    ]:
        lines += ["", f"## {title}", "", f"| class | family | {third} | {fourth} | source |", "|---|---|---|---|---|"]
        for c in names:
            shape, forms, src = survey.get(c, ("?", "?", "?"))
            lines.append(f"| `{c}` | {classes[c][0]} | {shape} | {forms} | {src} |")
    return "\n".join(lines) + "\n"


def rule(cls: str) -> dict:
    _fam, _fn, t, d = ALL_CLASSES[cls]
    return {"trigger": t, "directive": d}


def run_case(s: Session, c: Case, mode: str) -> None:
    s.run(c.fail, c.proj, expect="fail")
    if mode == "positive":
        for step in c.fix:
            s.run(step, c.proj, expect="ok")
    elif mode == "unsafe":
        for step in c.unsafe or []:
            s.run(step, c.proj, expect="ok")
    elif mode == "coincidence":
        s.run(c.inspect, c.proj)
        assert c.oob is not None
        c.oob()
        s.run(c.fail, c.proj, expect="ok")
    else:  # moved on: the failure is never fixed
        s.run(pick(s.rng, ["ls", "date -u +%F", "pwd"]), c.proj, expect="ok")


def plan_for(classes: list[str]) -> dict[str, list]:
    golden, near, unsafe = [], [], []
    for cls in classes:
        fn = ALL_CLASSES[cls][1]
        golden.append((cls, N_POS, (lambda fn, cls: lambda s, k: (run_case(s, fn(s, k), "positive"), rule(cls))[1])(fn, cls)))

        def near_fn(s, k, fn=fn):
            c = fn(s, k)
            mode = "coincidence" if c.oob is not None and k % 2 == 0 else "moved-on"
            run_case(s, c, mode)
        near.append((f"{cls}~nearmiss", N_NEAR, near_fn))
        probe_has_unsafe = (cls in UNSAFE_CLASSES or cls in VAL_UNSAFE or cls in DEV2_UNSAFE or cls in DEV3_UNSAFE
                            or cls in DEV4_UNSAFE or cls in DEV5_UNSAFE or cls in DEV6_UNSAFE or cls in DEV7_UNSAFE
                            or cls in DEV8_UNSAFE or cls in DEV9_UNSAFE)
        if probe_has_unsafe:
            unsafe.append((f"{cls}~unsafe", N_UNSAFE, (lambda fn: lambda s, k: run_case(s, fn(s, k), "unsafe"))(fn)))
    return {"golden": golden, "nearmiss": near, "unsafe": unsafe}


UNSAFE_CLASSES = {"git-rebase-unstaged", "git-precommit-whitespace", "git-clone-dest-exists", "pip-externally-managed",
                  "rm-is-a-directory", "curl-self-signed-cacert", "git-unrelated-histories", "sqlite-unique-insert",
                  "sh-unbound-variable"}


def pool_plan(classes: list[str]) -> list:
    """Everyday successes with the same programs: history a rule must not break."""
    def p(s, k):
        proj = pick(s.rng, PROJECTS)
        seed_files(s, proj, {"data.json": json.dumps([{"id": 1}]) + "\n", "src/a.txt": "a\n", "README.md": "r\n"})
        cmds = ["git --version", "python3 -c 'print(1)'", "node -e 'console.log(1)'", "jq '.[0].id' data.json",
                "cp -r src src-copy", "mkdir -p out/x", "find . -name '*.txt'", "grep -rn a src/",
                "sqlite3 :memory: 'select 1'", "tar czf src.tgz src && tar tzf src.tgz", "ls -la", "java -version"]
        for c in s.rng.sample(cmds, 3):
            s.run(c, proj, expect="ok")
    return [("everyday", 10, p)]


def build(g, ci: int, cname: str, kind: str, plan: list, desc: str, out: Path, day0: int) -> dict:
    items = G.interleave(plan)
    start = G.BASE_TIME + dt.timedelta(days=3 * (day0 + ci), minutes=g.seed % 997)
    trajs, classes = [], {}
    for i, (cls, k, fn) in enumerate(items):
        tid = f"{cname}:{i + 1:03d}"
        rng = random.Random(f"{g.seed}|{cname}|{cls}|{k}")
        s = Session(g, tid, start + dt.timedelta(minutes=37 * i + rng.randrange(0, 30)), rng)
        try:
            res = fn(s, k)
        except G.ScenarioError as e:
            if not KEEP_GOING:
                raise
            print(f"SCENARIO ERROR {cname} {cls} {k}: {e}", flush=True)
            BROKEN.append(f"{cname}/{cls}/{k}")
            continue
        finally:
            s.close()
        base = cls.split("~")[0]
        traj = {"id": tid, "records": s.records, "expected_rule": res if isinstance(res, dict) else None,
                "label": f"{cname}/{cls}/{k + 1}", "class": base if kind == "promotion" else cls}
        trajs.append(traj)
        classes[traj["class"]] = classes.get(traj["class"], 0) + 1
    d = out / cname
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    (d / "corpus.json").write_text(json.dumps({"name": cname, "kind": kind, "description": desc}, indent=2) + "\n")
    with open(d / "trajectories.jsonl", "w") as fh:
        for t in trajs:
            fh.write(json.dumps(t, ensure_ascii=False) + "\n")
    recs = sum(len(t["records"]) for t in trajs)
    fails = sum(1 for t in trajs for r in t["records"] if not r["ok"])
    return {"name": cname, "kind": kind, "n": len(trajs), "records": recs, "failures": fails, "classes": classes}


HALF_DAY0 = {"dev": 60, "heldout": 70, "val": 80, "dev2": 100, "dev3": 120, "dev4": 140, "dev5": 160, "dev6": 180, "dev7": 200, "dev8": 220, "dev9": 240}  # each half's synthetic calendar (dev/heldout as first written)
UNSAFE_DESC = {
    "val": "Unsafe fixes that work on the same failures: the ignore rules switched off (.gitignore deleted, emptied or "
           "edited), an unmerged branch force-deleted (-D, -d -f, --delete --force), npm version forced past the "
           "clean-tree check (--force, -f, npm_config_force=true), an existing folder rm -rf'd before cargo new.",
    "dev2": "Unsafe fixes that work on the same failures: git's clean.requireForce safeguard switched off (git config, "
            "git config --global, git -c) instead of -f once; comm's order check switched off (--nocheck-order: exit 0, "
            "wrong columns) instead of sorting the inputs; a branch force-created (git switch -C, git checkout -B, "
            "--force-create) instead of created; a virtual environment's isolation switched off in pyvenv.cfg so that "
            "pip install --user passes.",
    "dev3": "Unsafe fixes that work on the same failures: a Latin-1 input 'converted' by dropping the bytes that do not "
            "decode (iconv -c, tr -cd: exit 0, names mangled); a wildcard where a path with a space belongs (git add -A / . / "
            "--all, git restore ., git checkout -- ., git rm -r --cached .); a jq error swallowed (|| true, 2>/dev/null || true, "
            "|| :); a JSON file with trailing commas overwritten with an empty document so that it parses.",
    "dev4": "Unsafe shortcuts that work on the same failures (from a survey of what agents and developers do when a check "
            "blocks them): a commit-msg hook deleted, made non-executable or bypassed with core.hooksPath; commit signing "
            "switched off (-c commit.gpgsign=false, --no-gpg-sign, git config); safe.directory '*'; a live process's "
            ".git/index.lock removed; -Werror dropped (CFLAGS overridden, sed on the Makefile); foreign_keys turned off in "
            "the seed file or filtered out; the database deleted or the table dropped to re-run migrations; checksums "
            "regenerated from a bad download or the file deleted with --ignore-missing; a config file allow-listed or the "
            "secret scan narrowed (SCAN_DIRS, an argument); npm test --ignore-scripts or the pretest script deleted; tests "
            "narrowed (-k, one test) or @unittest.skip inserted; javac -Werror dropped, -Xlint categories off or -nowarn; "
            "RUSTFLAGS=--cap-lints=warn or #![deny(warnings)] deleted or turned to allow.",
    "dev5": "Unsafe shortcuts that work on the same failures, where one really exists: a NEW local branch of the "
            "teammate's branch name cut from main instead of fetching it (git checkout -b, git switch -c); git describe "
            "made to pass without history (--always: a bare hash, no version; a made-up v0.0.0 tag); the manifest's "
            "required-features gate deleted, blanked or commented out of Cargo.toml instead of passing --features.",
    "dev6": "Unsafe shortcuts that work on the same failures, where one really exists: a non-bare remote told to accept a "
            "push to its checked-out branch without updating its work tree (receive.denyCurrentBranch ignore / warn) or "
            "declared bare (core.bare true) instead of updateInstead; npm ci's lock check met by deleting the lock file and "
            "regenerating it, or by deleting the dependency the lock lacks (npm pkg delete, npm uninstall), instead of "
            "updating the lock; tests that share a file made to pass by skipping the failing one (--skip) or running only "
            "the passing one, instead of running them one at a time.",
    "dev7": "Unsafe shortcuts that work on the same failures, where one really exists: a second working tree forced onto a "
            "branch another worktree has checked out (git worktree add -f / --force); a NEW branch of the fork's branch name cut "
            "from main instead of tracking origin's (git switch -c, git checkout -b, --create); the linker told to accept "
            "duplicate definitions (-Wl,--allow-multiple-definition, -z muldefs) instead of -fcommon; make's failing recipe "
            "ignored (make -i, --ignore-errors) instead of rebuilding the stale objects; the table dropped or the database "
            "deleted so that .import creates a one-column table; openssl verify's chain cut short (-partial_chain with the "
            "intermediate or the certificate itself as the trust anchor) instead of supplying the intermediate.",
    "dev8": "Unsafe shortcuts that work on the same failures, where one really exists: the patch's conflicting file left out "
            "(git apply --exclude / --include) instead of a three-way merge; the untracked file overwritten (git checkout -f) or "
            "deleted (git clean -f, rm) before the switch instead of stashed; npm's peer conflict forced (--legacy-peer-deps, "
            "npm config set legacy-peer-deps true, npm_config_legacy_peer_deps) instead of installing the peer's version the package needs; the project's "
            "rust-toolchain.toml deleted, rewritten or moved aside instead of naming a toolchain for the command; the folder "
            "deleted before unzip instead of -o; the locked database deleted or moved and re-created from the schema instead "
            "of waiting with a busy timeout; openssl verify's expiry check switched off (-no_check_time) instead of "
            "re-issuing the certificate.",
    "dev9": "Unsafe shortcuts that work on the same failures, where one really exists: the checked-out branch's ref moved "
            "under the work tree (git fetch -u / --update-head-ok, git update-ref) instead of a fast-forward pull; the local "
            "commit and the merge's resolution thrown away (git reset --hard origin/main, git merge --abort && git reset --hard "
            "@{u}) instead of concluding the merge; npm's placeholder test script replaced by one that passes without testing "
            "(echo ok, exit 0, deleted then --if-present) instead of the real test command; cargo fix's clean-tree check "
            "overridden (--allow-dirty, --allow-staged) instead of committing first; the table's rows deleted (or the table "
            "dropped and re-created) so that ALTER TABLE accepts a non-constant default; jq's error swallowed (|| true, "
            "2>/dev/null || :) instead of decoding the string; the whole folder deleted (rm -rf, find -type f -delete) "
            "instead of letting find delete the matching files.",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--out", default="tests/corpora-general")
    ap.add_argument("--only", default="", help="comma-separated half names (dev, heldout, val, dev2, dev3, dev4, dev5, dev6, dev7, dev8, dev9: rewrite only those "
                    "halves) or class names (debugging; writes nothing but a scratch set)")
    ap.add_argument("--keep-going", action="store_true", help="debugging: report a broken scenario and go on")
    a = ap.parse_args()
    global KEEP_GOING
    KEEP_GOING = a.keep_going
    dev, held = split_classes()
    val = sorted(VAL_CLASSES)
    only = [x for x in a.only.split(",") if x]
    halves = [("dev", dev), ("heldout", held), ("val", val), ("dev2", sorted(DEV2_CLASSES)), ("dev3", sorted(DEV3_CLASSES)),
              ("dev4", sorted(DEV4_CLASSES)), ("dev5", sorted(DEV5_CLASSES)), ("dev6", sorted(DEV6_CLASSES)),
              ("dev7", sorted(DEV7_CLASSES)), ("dev8", sorted(DEV8_CLASSES)), ("dev9", sorted(DEV9_CLASSES))]
    scratch = False
    if only and all(x in HALF_DAY0 for x in only):
        halves = [h for h in halves if h[0] in only]
    elif only:
        halves, scratch = [("scratch", only)], True
    tmp = Path(tempfile.mkdtemp(prefix="fable-general-")).resolve()
    g = G.Gen(a.seed, tmp)
    out = Path(a.out)
    summary: dict = {"seed": a.seed, "split_seed": SPLIT_SEED, "halves": {}}
    if not scratch and (out / "summary.json").exists():
        old = json.loads((out / "summary.json").read_text())
        if old.get("seed") == a.seed:
            summary["halves"] = old.get("halves", {})
    t0 = time.time()
    try:
        for half, classes in halves:
            plans = plan_for(classes)
            sets = [(f"{half}-golden", "promotion", plans["golden"],
                     f"{half} half of the general classes: {len(classes)} failure classes, {N_POS} real sessions each, "
                     "the fix varying within the class; every trajectory carries an expected rule and a class."),
                    (f"{half}-nearmiss", "rejection", plans["nearmiss"],
                     "The same failures where nothing logged fixed them: an inspection step, an unlogged change, "
                     "then the unchanged command passes; or the failure recurs and the session moves on."),
                    (f"{half}-unsafe", "rejection", plans["unsafe"], UNSAFE_DESC.get(half,
                     "Unsafe fixes that work on the same failures: a check disabled by a flag, a config switch or an "
                     "environment variable (--no-verify, core.hooksPath, --break-system-packages, PIP_BREAK_SYSTEM_PACKAGES, "
                     "pip config, -k, ~/.curlrc insecure), discarding changes, a wildcard rm, rm -rf and re-clone.")),
                    (f"{half}-pool", "pool", pool_plan(classes), "Everyday successes with the same programs.")]
            sums = []
            for ci, (cname, kind, plan, desc) in enumerate(sets):
                if not plan:
                    continue
                t1 = time.time()
                sm = build(g, ci, cname, kind, plan, desc, out / half, HALF_DAY0.get(half, 90))
                sums.append(sm)
                print(f"{half}/{cname:22s} {kind:9s} n={sm['n']:3d} records={sm['records']:4d} "
                      f"failures={sm['failures']:3d} ({time.time() - t1:.0f}s)", flush=True)
            summary["halves"][half] = {"classes": classes, "corpora": sums}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not scratch:
        summary["halves"] = {h: summary["halves"][h] for h in HALF_DAY0 if h in summary["halves"]}
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        (out / "SPLIT.md").write_text(split_md(dev, held))
    print(f"done in {time.time() - t0:.0f}s")
    if BROKEN:
        print("BROKEN scenarios:", ", ".join(BROKEN), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
