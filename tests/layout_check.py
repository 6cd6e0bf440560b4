#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The source tree's layout rules (docs/architecture.md), one line per breach.

- No cycle between modules. A module is a .c and its .h (user/model/report);
  a file with no .c or .h of its own named after a module's header of its
  folder, M_PART, is a part of module M (cli/options_table.c and
  cli/options_defs.h are parts of cli/options, output/render_text.c of
  output/render). A module depends on another
  when one of its files includes the other's header, or when its object
  calls a function the other's object defines (nm of $OUTPUT/user), so a
  .c that only declares what it uses in another module's header is caught
  too.
- No include up the stage order: a folder includes only its own headers
  and those of folders before it in STAGES.
- Files of at most 600 lines and functions of at most 100, unless a comment
  (in the file's opening lines, or just above the function) says
  "not split:" and why.
- No lab notes in source comments of user/, include/ and bpf/: a date, a
  commit hash, a bench result file, a figure in ns or an instruction count
  (they go stale: measurements belong in docs/ and bench/results).

user/profile is the --profile engineers' (issue 44): its sizes and comments
are checked once they split it (PENDING below); its includes are checked now.
Exits 1 on any breach, 0 otherwise.
"""
import os
import re
import subprocess
import sys

# The poller's folders in include order: each may include the ones before it.
STAGES = ["lib", "model", "kernel", "output", "prom", "profile", "cli", "."]
MAX_FILE, MAX_FUNC = 600, 100
PENDING = ("user/profile/",)
WHY = "not split:"

problems = []


def problem(msg):
    problems.append(msg)


def sources(top, exts=(".c", ".h")):
    for d, _, files in os.walk(top):
        for f in sorted(files):
            if f.endswith(exts):
                yield os.path.normpath(os.path.join(d, f))


INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+/[a-z0-9_]+\.h)"', re.M)


def module(path):
    stem, ext = os.path.splitext(path)
    if not path.startswith("user/") or os.path.exists(stem + (".h" if ext == ".c" else ".c")):
        return stem
    # the longest M such that the name is M_PART and M.h is in the folder
    parts = os.path.basename(stem).split("_")
    for k in range(len(parts) - 1, 0, -1):
        owner = os.path.join(os.path.dirname(stem), "_".join(parts[:k]))
        if os.path.exists(owner + ".h"):
            return owner
    return stem


def stage(path):
    d = os.path.dirname(os.path.relpath(path, "user"))
    return d if d else "."


def include_edges(files):
    edges = {}
    for f in files:
        text = open(f).read()
        for inc in INCLUDE.findall(text):
            target = os.path.join("user", inc)
            if not os.path.exists(target):
                problem(f"{f}: includes {inc}, which does not exist")
                continue
            if module(target) != module(f):
                edges.setdefault(module(f), {}).setdefault(module(target), f"{f} includes {inc}")
            s, t = stage(f), stage(target)
            if s in STAGES and t in STAGES and STAGES.index(t) > STAGES.index(s):
                problem(f"{f}: includes {inc}, a later stage ({t} after {s}: "
                        f"stage order {' < '.join(STAGES)})")
    return edges


def link_edges(objdir, edges):
    """Module M -> N when M's object uses a function or object N's defines."""
    def mod_of(o):
        c = os.path.join("user", os.path.splitext(os.path.relpath(o, objdir))[0] + ".c")
        return module(c) if os.path.exists(c) else os.path.splitext(c)[0]

    defined, used = {}, {}
    if not os.path.isdir(objdir):
        problem(f"{objdir}: no objects (run make): the calls between modules are not checked")
        return
    for o in sources(objdir, (".o",)):
        mod = mod_of(o)
        out = subprocess.run(["nm", "-P", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            sym, kind = parts[0], parts[1]
            if kind == "U":
                used.setdefault(mod, set()).add(sym)
            elif kind in "TDBR":
                defined[sym] = mod
    for mod, syms in used.items():
        for s in sorted(syms):
            d = defined.get(s)
            if d and d != mod:
                edges.setdefault(mod, {}).setdefault(d, f"{mod}.c calls {s}() of {d}.c")


def cycles(edges):
    """Every module on a cycle, with one cycle through it (Tarjan's SCCs)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def path_in(edges, comp):
    """One cycle inside component @comp, as 'a -> b (why) -> a'."""
    start = comp[0]
    seen, trail = {start}, [start]
    node = start
    while True:
        nxt = [w for w in sorted(edges.get(node, {})) if w in comp]
        back = [w for w in nxt if w == start]
        w = back[0] if back else next((x for x in nxt if x not in seen), nxt[0])
        trail.append(f"{edges[node][w]}")
        if w == start or w in seen:
            break
        seen.add(w)
        node = w
    return "; ".join(trail[1:])


COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def comments(text):
    """(line, text) of each comment, strings skipped."""
    for m in COMMENT.finditer(text):
        s = m.group(0)
        if s[0] in "\"'":
            continue
        yield text.count("\n", 0, m.start()) + 1, s


LAB_NOTES = [
    (re.compile(r'\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b'), "a date"),
    (re.compile(r'\b[0-9]{4}-[0-9]{4}\.md\b|\bbench/results/[^\s*]+|\b[0-9]{4}\.md\b'),
     "a result file"),
    (re.compile(r'\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b'), "a commit hash"),
    (re.compile(r'(?<![\w^])[0-9][0-9.,]*(?:-[0-9][0-9.,]*)? ?ns\b'), "a figure in ns"),
]


INSTRUCTIONS = re.compile(r'\binstructions\b[^0-9]{0,150}([0-9]{3,})\b')
QUOTED = re.compile(r'"[^"\n]*"')


def check_comments(path, text):
    for line, c in comments(text):
        # a quoted example ("100ns", "9.5367431640625e-07") is no measurement
        c = QUOTED.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', c)
        counts = INSTRUCTIONS.search(c)
        if counts:
            problem(f"{path}:{line + c.count(chr(10), 0, counts.start())}: instruction counts "
                    f"in a comment ('{counts.group(1)}'): measurements go in docs/ and bench/results")
        for rx, what in LAB_NOTES:
            m = rx.search(c)
            if m:
                problem(f"{path}:{line + c.count(chr(10), 0, m.start())}: {what} in a comment "
                        f"('{m.group(0)}'): measurements go in docs/ and bench/results")


FUNC_END = re.compile(r'^}')


def check_sizes(path, text):
    lines = text.split("\n")
    n = len(lines) - (1 if text.endswith("\n") else 0)
    if n > MAX_FILE and WHY not in "\n".join(lines[:40]):
        problem(f"{path}: {n} lines, over {MAX_FILE} (split it, or say why in a '{WHY}' comment)")
    i = 0
    while i < len(lines):
        if lines[i] == "{" and i > 0 and re.match(r'^[A-Za-z_].*\)\s*$|^\s', lines[i - 1]):
            # the signature: up to the line that starts at column 0
            s = i - 1
            while s > 0 and lines[s][:1] in ("\t", " "):
                s -= 1
            j = i + 1
            while j < len(lines) and not FUNC_END.match(lines[j]):
                j += 1
            length = j - s + 1
            name = re.search(r'([A-Za-z_][A-Za-z0-9_]*)\s*\(', lines[s])
            above = "\n".join(lines[max(0, s - 12):s])
            if length > MAX_FUNC and WHY not in above:
                problem(f"{path}:{s + 1}: {name.group(1) if name else '?'}() is {length} lines, "
                        f"over {MAX_FUNC} (split it, or say why in a '{WHY}' comment above it)")
            i = j
        i += 1


def main():
    objdir = os.path.join(os.environ.get("OUTPUT", ".output"), "user")
    user = list(sources("user"))
    edges = include_edges(user)
    link_edges(objdir, edges)
    for comp in cycles(edges):
        problem(f"include cycle between {', '.join(comp)}: {path_in(edges, comp)}")
    for f in user:
        if not f.startswith(PENDING):
            check_sizes(f, open(f).read())
    for top in ("user", "include", "bpf"):
        for f in sources(top):
            if not f.startswith(PENDING) and f != "include/vmlinux.h":
                check_comments(f, open(f).read())
    for p in problems:
        print("layout:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
