# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The --causes tests' checks (tests/causes_lib.sh): argv is TMP PARENT MNT ...

causes(cg) is the last report's group of cgroup PARENT/cg and its causes;
every group of that report must split its waits exactly (the causes add
up to its sum and count: the final reading, after detach, reads the key
map and the cause map at rest).
"""
import json
import sys

tmp, parent, mnt = sys.argv[1:4]
rel = parent[len(mnt):]
last = json.loads([l for l in open(f"{tmp}/causes.out") if l.startswith("{")][-1])
names = ("self", "neighbour", "kernel", "throttled", "steal", "other")
bad = []
for g in last["groups"]:
    c = g.get("causes")
    if c is None:
        continue
    split = sum(c[f"{n}_ns"] for n in names)
    if split != g["sum_ns"] or c["count"] != g["count"]:
        bad.append(f"{g['key']}: causes add up to {split} ns in {c['count']} waits, "
                   f"its waits {g['sum_ns']} ns in {g['count']}")
groups = {g["key"]: g for g in last["groups"]}


def causes(cg):
    g = groups.get(f"{rel}/{cg}")
    if not g or "causes" not in g:
        print(f"{rel}/{cg}: not in the last report ({sorted(groups)})")
        sys.exit(1)
    c = {n: g["causes"][f"{n}_ns"] for n in names}
    print(f"{rel}/{cg}: waited {g['sum_ns']} ns in {g['count']} waits (max {g['max_ns']}): " +
          ", ".join(f"{n} {c[n]} ({c[n] / max(g['sum_ns'], 1):.1%})" for n in names))
    return g, c


def largest(c):
    return max(c, key=c.get)


def done():
    if bad:
        print("\n".join(bad))
        sys.exit(1)
