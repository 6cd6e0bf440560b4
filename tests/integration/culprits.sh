#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --culprits: a cgroup with one CPU-bound thread (a) and one with two (b),
# all pinned to CPU 0, and a third cgroup (c) with two threads pinned to
# CPU 1. a's run-queue waits blamed on b are the switches to a's spinner
# from a thread of b in the kernel's own sched_switch trace (ftrace), never
# on a's own spinner, c's on c itself, and nothing on one CPU is blamed on
# the other CPU's cgroups: checked in the report and, exactly, in the
# kernel's culprit map and pair caches (every pair, not only the top 5).
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
# CPU 0's switches from now until schedhist is detached: every switch-in
# of a's spinner is there (it starts after this)
# (only the switches to a's spinner, culA, or to a thread not named yet:
# the ones trace_blame counts)
switch_trace_start 0 'next_comm == "culA" || next_comm == "spinners"'
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
# the kernel's pairs, all of them, before the poller ends
MAP=$(named_map_id "$CUL" culprit_map) || fail "no culprit_map held by schedhist"
bpftool map dump id "$MAP" -j >"$TMP/map.json" || fail "cannot dump the culprit map"
# ... and each CPU's pair cache (in the per-CPU array): a pair's waits are
# in the map, in the caches, or both (a move between the two dumps may show
# a count twice or not at all: the checks below ask only which pairs exist)
PCPU=$(named_map_id "$CUL" pcpu) || fail "no pcpu map held by schedhist"
bpftool map dump id "$PCPU" -j >"$TMP/pcpu.json" || fail "cannot dump the per-CPU array"
for p in $CUL $TXT; do stop_sh "$p" || fail "schedhist exited with $?"; done
switch_trace_stop "$TMP/switches"
trace_blame "$TMP/switches" "$TMP/a.out" "$PARENT/a" "$PARENT/b" >"$TMP/blame"

python3 - "$TMP" "$PARENT" "$MNT" <<'PY'
import json, os, sys
tmp, parent, mnt = sys.argv[1:]
rel = parent[len(mnt):]
ids = {x: os.stat(f"{parent}/{x}").st_ino for x in "abc"}
tb, amain, bmain = (int(x) for x in open(f"{tmp}/blame").read().split())
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
# the CPU: the prev of the switch to it. Every switch-in of a's spinner is
# a run-queue wait (it is always preempted), so its waits behind b are the
# trace's switches from a thread of b to it, give or take: a's main
# thread's waits behind b (at most its switch-ins), b's main thread's
# switches before it joined b (at most its switch-ins), and the switches
# schedhist's program did not see or could not time (merged, no_start:
# counted in the same report).
if ca:
    ev = r["events"]
    slack = ev.get("merged", 0) + ev["no_start"]
    got = sum(c["count"] for c in ca if c["key"] == f"{rel}/b")
    print(f"a behind b: {got} waits; the trace: {tb} switches from b to a's spinner; "
          f"a's main thread {amain} switch-ins, b's {bmain}, merged + no_start {slack}")
    if not tb - bmain - slack <= got <= tb + amain + slack:
        bad.append(f"a: {got} waits behind b, the trace says {tb} "
                   f"(-{bmain + slack}, +{amain + slack})")
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
    # one value for all CPUs (struct sh_culprit_val: count first)
    n = u64(e["value"][0:8])
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
