#!/usr/bin/env python3
"""Checks the source layout the README's Architecture section promises.

- no file under src/ over 700 lines, at most 12 files directly in src/;
- no import cycle between files, nor between folders (subsystems);
- the hook path (src/bin/fable-*.rs and everything they reach) never uses measure/ nor
  harness/ (the e2e tests' mock API server).

Edges come from `crate::a::b` paths (and `fable::a::b` in src/bin), `use` groups included;
an item re-exported by a folder's mod.rs (`crate::learn::run_pipeline`) resolves to the
file that defines it. Exit 1 with the offending files named. No dependencies."""
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
globs = {}                                          # folder -> files glob re-exported by its mod.rs
for k, p in files.items():
    if k.endswith("/mod"):
        folder = mod_of(k)
        globs[folder] = [f"{folder}/{m}" for m in re.findall(r"(?m)^pub use (\w+)::\*;", p.read_text())]

def resolve(segs):
    """['learn', 'run_pipeline'] -> file key, or None for an external/unknown path."""
    path = []
    for i, s in enumerate(segs):
        cand = "/".join(path + [s])
        if cand in modules:
            path.append(s)
            continue
        folder = "/".join(path)
        if folder in globs:
            for f in globs[folder]:
                if s in defs.get(f, ()) or s in defs.get(f + "/mod", ()):
                    return f
        break
    if not path:
        return None
    return modules["/".join(path)]

def expand_use(body):
    """'a::{self, b::{c, D}}' -> [['a'], ['a','b','c'], ['a','b','D']]"""
    body = body.strip()
    m = re.match(r"^([\w:]*?)(?:::)?\{(.*)\}$", body, re.S)
    if not m:
        return [[s for s in body.split("::") if s and s != "*"]]
    prefix = [s for s in m.group(1).split("::") if s]
    out, depth, cur = [], 0, ""
    for ch in m.group(2) + ",":
        if ch == "," and depth == 0:
            if cur.strip():
                for sub in expand_use(cur):
                    out.append(prefix + ([] if sub == ["self"] else sub))
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    return out

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
                if segs and "/".join(segs) in modules:       # `use crate::learn::{self}` → `learn::x`
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
