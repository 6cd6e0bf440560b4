#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --culprits: a cgroup with one CPU-bound thread (a) and one with two (b),
# all pinned to CPU 0, and a third cgroup (c) with two threads pinned to
# CPU 1. a's run-queue waits are blamed on b in the share b's CPU time
# predicts, never on a's own spinner, c's on c itself, and nothing on one
# CPU is blamed on the other CPU's cgroups: checked in the report and,
# exactly, in the kernel's culprit map and pair caches (every pair, not
# only the top 5).
. "$(dirname "$0")/../lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

cgroup_v2_or_cpu
PARENT=$MNT/schedhist-cul-$$
test_cleanup() { remove_cgroup_tree "$PARENT"; }
mkdir "$PARENT" "$PARENT/a" "$PARENT/b" "$PARENT/c" || fail "cannot create cgroups under $MNT"

start_sh cul -M runq -k cgroup --culprits -j "${HIER[@]}"
CUL=$SH_PID
start_sh txt -M runq -k cgroup --culprits --summary "${HIER[@]}"
TXT=$SH_PID
# CPU time per CPU (/proc/stat) around the run: the host's own tasks also
# run on these CPUs, and the expected shares below are measured from it
B0=$(cpu_busy 0); B1=$(cpu_busy 1)
# pinned before it joins its cgroup: the shell that moves itself in (and
# every thread of the process it becomes) never runs on the other CPU
pinned_in() { taskset -c "$1" sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$2" "${@:3}"; }
pinned_in 0 "$PARENT/a" "$HELPERS/spinners" -n 1 -c 0 -t 3 -N culA >"$TMP/a.out" &
CHILD_PIDS+=($!)
pinned_in 0 "$PARENT/b" "$HELPERS/spinners" -n 2 -c 0 -t 3 -N culB >"$TMP/b.out" &
CHILD_PIDS+=($!)
pinned_in 1 "$PARENT/c" "$HELPERS/spinners" -n 2 -c 1 -t 3 -N culC >"$TMP/c.out" &
CHILD_PIDS+=($!)
# each spinner prints its line once its 3 s are over, then blocks
for i in $(seq 1 1200); do
	[ "$(cat "$TMP"/[abc].out | grep -c '^tid')" -eq 5 ] && break
	sleep 0.05
done
[ "$(cat "$TMP"/[abc].out | grep -c '^tid')" -eq 5 ] || fail "the spinners did not finish"
B0=$(( $(cpu_busy 0) - B0 )); B1=$(( $(cpu_busy 1) - B1 ))
# switch-ins of a's threads other than its spinner (the process's main thread)
main_in() { awk '{print $3}' /proc/"$(head -1 "$PARENT/a/cgroup.procs")"/schedstat; }
echo "$B0 $B1 $(getconf CLK_TCK) $(cgroup_run_ns "$PARENT"/a) $(cgroup_run_ns "$PARENT"/b)" \
	"$(cgroup_run_ns "$PARENT"/c) $(main_in)" >"$TMP/cpu"
# the kernel's pairs, all of them, before the poller ends
MAP=$(named_map_id "$CUL" culprit_map) || fail "no culprit_map held by schedhist"
bpftool map dump id "$MAP" -j >"$TMP/map.json" || fail "cannot dump the culprit map"
# ... and each CPU's pair cache (in the per-CPU array): a pair's waits are
# in the map, in the caches, or both (a move between the two dumps may show
# a count twice or not at all: the checks below ask only which pairs exist)
PCPU=$(named_map_id "$CUL" pcpu) || fail "no pcpu map held by schedhist"
bpftool map dump id "$PCPU" -j >"$TMP/pcpu.json" || fail "cannot dump the per-CPU array"
for p in $CUL $TXT; do stop_sh "$p" || fail "schedhist exited with $?"; done

python3 - "$TMP" "$PARENT" "$MNT" <<'PY'
import json, os, sys
tmp, parent, mnt = sys.argv[1:]
rel = parent[len(mnt):]
ids = {x: os.stat(f"{parent}/{x}").st_ino for x in "abc"}
b0, b1, hz, ra, rb, rc, amain = (int(x) for x in open(f"{tmp}/cpu").read().split())
b0, b1 = b0 * 1e9 / hz, b1 * 1e9 / hz
print(f"CPU 0 busy {b0/1e9:.2f} s (a {ra/1e9:.2f}, b {rb/1e9:.2f}), CPU 1 busy {b1/1e9:.2f} s (c {rc/1e9:.2f})")
name = {ids[x]: x for x in ids}
r = json.loads(open(f"{tmp}/cul.out").read().splitlines()[-1])
groups = {g["key"]: g for g in r["groups"]}
bad = []
def culprits(x):
    g = groups.get(f"{rel}/{x}")
    if not g or "culprits" not in g:
        bad.append(f"{x}: no group or no culprits")
        return None, []
    print(f"{x}: count {g['count']} sum {g['sum_ns']}: " +
          ", ".join(f"{c['key']} {c['sum_ns']} ({c['count']})" for c in g["culprits"]))
    # the list adds up to the group: [rest] holds the remainder
    if sum(c["count"] for c in g["culprits"]) != g["count"]:
        bad.append(f"{x}: culprit counts do not add up to the group's count")
    # the report is the whole run's, read once the programs are detached:
    # every wait's pair is in the map or in a CPU's pair cache, so with
    # fewer culprits than the top shows there is no remainder at all (a
    # wait lost or counted twice between cache and map would make one)
    named = [c for c in g["culprits"] if c["key"] != "[rest]"]
    if len(named) < 5 and len(named) != len(g["culprits"]):
        bad.append(f"{x}: [rest] with only {len(named)} culprits: pairs lost a count")
    if sum(c["count"] for c in named) > g["count"]:
        bad.append(f"{x}: its culprits hold more waits than it has")
    return g, g["culprits"]
ga, ca = culprits("a")
gc, cc = culprits("c")
def share(cl, key, g):
    return sum(c["sum_ns"] for c in cl if c["key"] == key) / g["sum_ns"] if g["sum_ns"] else 0
# A wait is blamed on the task that ran just before the waiting one got
# the CPU. Whenever a waits, CPU 0 runs b or the host's own tasks there,
# so b's expected share of a's wait is b's share of CPU 0's time not
# spent running a (measured: /proc/stat and the threads' schedstat). The
# host's tasks run shorter turns than CPU-bound spinners and so end more
# waits per second of CPU: allow b half its expected share, which still
# fails when waits are blamed on anyone but the task switched out.
if ca:
    exp = min(1.0, rb / max(1.0, b0 - ra))
    got = share(ca, f"{rel}/b", ga)
    print(f"a: b holds {got:.0%} of a's wait, expected about {exp:.0%}")
    if got < exp / 2:
        bad.append(f"a: b holds {got:.0%} of a's wait, expected about {exp:.0%}")
    for c in ca:
        if c["key"] == f"{rel}/c":
            bad.append("a: blamed on c, which never ran on CPU 0")
        # a's spinner never waits behind itself: only a's main thread can
        # have run just before it (at most once per switch-in of that thread)
        if c["key"] == f"{rel}/a" and c["count"] > amain:
            bad.append(f"a: {c['count']} waits blamed on a itself, its main thread ran {amain} times")
# each thread of c waits behind the other one or the host's tasks on CPU 1
# (a CPU where the host's short tasks may end most waits): c is blamed, and
# of the test's cgroups only c
if cc:
    got = share(cc, f"{rel}/c", gc)
    print(f"c: c holds {got:.0%} of its own wait")
    if not got:
        bad.append("c: never blamed on c")
    for c in cc:
        if c["key"] in (f"{rel}/a", f"{rel}/b"):
            bad.append(f"c: blamed on {c['key']}, which never ran on CPU 1")
# the map and the caches, exactly: no (c, a) or (c, b) pair at all
def u64(b):
    return int.from_bytes(bytes(int(x, 16) for x in b), "little")
pairs = {}
for e in json.load(open(f"{tmp}/map.json")):
    k = e["key"]
    w, cu = u64(k[0:8]), u64(k[24:32])
    n = sum(v["value"]["count"] if isinstance(v["value"], dict) else u64(v["value"][0:8])
            for v in e["values"])
    pairs[(w, cu)] = pairs.get((w, cu), 0) + n
for v in json.load(open(f"{tmp}/pcpu.json"))[0]["formatted"]["values"]:
    for e in v["value"]["ccache"]:
        w, cu = e["key"]["waiter"]["id"], e["key"]["culprit"]["id"]
        pairs[(w, cu)] = pairs.get((w, cu), 0) + e["v"]["count"]
for (w, cu), n in pairs.items():
    if (w == ids["c"] and cu in (ids["a"], ids["b"]) or w in (ids["a"], ids["b"]) and
            cu == ids["c"]) and n:
        bad.append(f"map: {n} waits of {name[w]} blamed on {name[cu]}, on another CPU")
if not any(w == ids["a"] and cu == ids["b"] and n for (w, cu), n in pairs.items()):
    bad.append("map: no (a, b) pair")
txt = open(f"{tmp}/txt.out").read().splitlines()
head = [l for l in txt if l.startswith("cgroup ")]
if not head or "TOP_CULPRIT" not in head[0] or "MAX_BY (tid pid comm cpu)" not in head[0]:
    bad.append(f"summary header: {head[:1]}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
