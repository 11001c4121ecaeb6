#!/usr/bin/env python3
"""Checks the source layout the README's Architecture section promises.

- no file under src/ over 700 lines, at most 12 files directly in src/;
- no import cycle between files, nor between folders (subsystems);
- the hook path (src/bin/fable-*.rs and everything they reach) never uses measure/ nor
  harness/ (the e2e tests' mock API server);
- one level deeper, a folder whose mod.rs draws its flow map (`//!   → text/  …` lines, as
  src/learn/mod.rs does) has its sub-folders in that order: a file in one may use only
  the sub-folders above it, never one below nor the folder's own root files (no sub-wing
  reaches back up; the root uses all).

Edges come from `crate::a::b` paths (and `fable::a::b` in src/bin), `use` groups included;
an item or module re-exported by a `pub use` (`crate::learn::run_pipeline`,
`crate::learn::rules::Store`) resolves to the file that defines it. Exit 1 with the
offending files named. No dependencies."""
import pathlib, re, sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"
problems = []

files = {p.relative_to(SRC).with_suffix("").as_posix(): p for p in SRC.rglob("*.rs")}
def mod_of(key):  # "learn/mod" -> "learn"
    return key[:-4] if key.endswith("/mod") else key

modules = {mod_of(k): k for k in files}           # module path ("learn/pipeline") -> file key
defs = {}                                           # file key -> names it defines
for k, p in files.items():
    defs[k] = set(re.findall(r"(?m)^pub(?:\([^)]*\))?\s+(?:fn|struct|enum|const|static|type|trait)\s+(\w+)", p.read_text()))
def expand_use(body, keep_star=False):
    """'a::{self, b::{c, D}}' -> [['a'], ['a','b','c'], ['a','b','D']]"""
    body = body.strip()
    m = re.match(r"^([\w:]*?)(?:::)?\{(.*)\}$", body, re.S)
    if not m:
        body = re.sub(r"\s+as\s+\w+$", "", body)
        return [[s for s in body.split("::") if s and (keep_star or s != "*")]]
    prefix = [s for s in m.group(1).split("::") if s]
    out, depth, cur = [], 0, ""
    for ch in m.group(2) + ",":
        if ch == "," and depth == 0:
            if cur.strip():
                for sub in expand_use(cur, keep_star):
                    out.append(prefix + ([] if sub == ["self"] else sub))
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    return out

# Re-exports: `pub use` in any file, relative to its module (`pub use judge::config::*;` in
# learn/mod.rs) or from the crate root (`pub use crate::evidence::command_key::normalize;`).
globs = {}        # module path -> module paths whose items it re-exports with `*`
mod_alias = {}    # (module path, name) -> module path (`pub use store::rules;`)
name_alias = {}   # (module path, name) -> the re-exported item's full path segments
for k, p in files.items():
    owner = mod_of(k)
    text = re.sub(r"(?m)^\s*//.*$", "", p.read_text())
    for body in re.findall(r"(?m)^\s*pub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
        for segs in expand_use(body, keep_star=True):
            if not segs:
                continue
            if segs[0] == "crate":
                full = segs[1:]
            elif f"{owner}/{segs[0]}" in modules:
                full = owner.split("/") + segs
            else:
                continue                                   # an external crate
            if full[-1] == "*":
                globs.setdefault(owner, []).append("/".join(full[:-1]))
            elif "/".join(full) in modules:
                mod_alias[(owner, full[-1])] = "/".join(full)
            else:
                name_alias[(owner, full[-1])] = full

def walk(segs):
    """Follows module segments (through re-exported modules): (module path, rest)."""
    path = ""
    for i, s in enumerate(segs):
        cand = f"{path}/{s}" if path else s
        if cand in modules:
            path = cand
        elif (path, s) in mod_alias:
            path = mod_alias[(path, s)]
        else:
            return path, segs[i:]
    return path, []

def resolve(segs, depth=0):
    """['learn', 'run_pipeline'] -> file key, or None for an external/unknown path."""
    path, rest = walk(segs)
    if not path:
        return None
    if rest and depth < 8:
        s = rest[0]
        if (path, s) in name_alias:
            return resolve(name_alias[(path, s)], depth + 1)
        for g in globs.get(path, ()):
            if s in defs.get(modules.get(g, ""), ()):
                return modules[g]
            t = resolve(g.split("/") + [s], depth + 1)    # a glob of a glob
            if t and t != modules.get(g):
                return t
    return modules[path]

edges = {k: set() for k in files}
for k, p in files.items():
    text = re.sub(r"(?m)^\s*//.*$", "", p.read_text())
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    roots = ["crate"] + (["fable"] if k.startswith("bin/") else [])
    aliases = {}
    for root in roots:
        for body in re.findall(rf"\buse\s+{root}::([^;]+);", text):
            for segs in expand_use(body):
                t = resolve(segs)
                if t:
                    edges[k].add(t)
                if segs and not walk(segs)[1] and walk(segs)[0]:   # `use crate::learn::{self}` → `learn::x`
                    aliases[segs[-1]] = segs
        for path in re.findall(rf"(?<![\w:]){root}::((?:\w+::)*\w+)", text):
            t = resolve(path.split("::"))
            if t:
                edges[k].add(t)
    for name, segs in aliases.items():
        for rest in re.findall(rf"(?<![\w:]){name}::(\w+)", text):
            t = resolve(segs + [rest])
            if t:
                edges[k].add(t)
    edges[k].discard(k)

def find_cycle(graph):
    color, stack = {}, []
    def dfs(u):
        color[u] = 1; stack.append(u)
        for v in sorted(graph.get(u, ())):
            if color.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if not color.get(v):
                c = dfs(v)
                if c: return c
        color[u] = 2; stack.pop()
        return None
    for u in sorted(graph):
        if not color.get(u):
            c = dfs(u)
            if c: return c
    return None

# mod.rs files only declare and re-export: they are not a layer of their own.
file_graph = edges
c = find_cycle(file_graph)
if c: problems.append("import cycle between files: " + " -> ".join(c))
folder = lambda k: k.split("/")[0] if "/" in k else "(root)"
folder_graph = {}
for k, vs in file_graph.items():
    if k.startswith("bin/"): continue
    for v in vs:
        if folder(k) != folder(v):
            folder_graph.setdefault(folder(k), set()).add(folder(v))
c = find_cycle(folder_graph)
if c: problems.append("import cycle between folders: " + " -> ".join(c))

for k, p in files.items():
    n = p.read_text().count("\n")
    if n > 700: problems.append(f"src/{k}.rs: {n} lines (at most 700)")
# One level deeper: a folder's flow map orders its sub-folders (see the module doc).
for k, p in files.items():
    if not k.endswith("/mod") or k.count("/") != 1:
        continue
    top_folder = k.split("/")[0]
    order = re.findall(r"(?m)^//!\s*→\s*(\w+)/", p.read_text())
    if not order:
        continue
    subs = {mod_of(j).split("/")[1] for j in files if j.startswith(top_folder + "/") and j.count("/") >= 2}
    for sub in sorted(subs - set(order)):
        problems.append(f"src/{top_folder}/{sub}/ is not in the flow map of src/{k}.rs")
    for j, vs in file_graph.items():
        parts = j.split("/")
        if parts[0] != top_folder or len(parts) < 3:
            continue
        for v in sorted(vs):
            vp = v.split("/")
            if vp[0] != top_folder or (len(vp) >= 3 and vp[1] == parts[1]):
                continue
            if len(vp) < 3:
                problems.append(f"src/{j}.rs reaches back up to the root of {top_folder}/ (which uses it): src/{v}.rs")
            elif parts[1] in order and vp[1] in order and order.index(vp[1]) > order.index(parts[1]):
                problems.append(f"src/{j}.rs ({parts[1]}/) reaches back up into {vp[1]}/, a later stage of the flow map: src/{v}.rs")

top = [k for k in files if "/" not in k]
if len(top) > 12: problems.append(f"{len(top)} files directly in src/ (at most 12): {sorted(top)}")

# The hook path: what the hook binaries reach, transitively.
seen, todo = set(), [k for k in files if k.startswith("bin/fable-")]
while todo:
    u = todo.pop()
    if u in seen: continue
    seen.add(u); todo.extend(file_graph.get(u, ()))
for off_path in ("measure/", "harness/"):
    bad = sorted(k for k in seen if k.startswith(off_path))
    if bad: problems.append(f"the hook path reaches {off_path}: " + ", ".join(bad))

if "--graph" in sys.argv:
    for k in sorted(folder_graph): print(f"{k} -> {', '.join(sorted(folder_graph[k]))}")
for p in problems: print(p, file=sys.stderr)
print(f"layout: {len(files)} files, {len(top)} in src/, {sum(map(len, file_graph.values()))} file edges, "
      f"{'OK' if not problems else f'{len(problems)} problem(s)'}")
sys.exit(1 if problems else 0)
