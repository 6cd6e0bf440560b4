#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# comm changes mid-run: a new process names itself rn_before (prctl
# PR_SET_NAME), sleeps 5 ms 60 times, renames itself rn_after and sleeps
# 60 more times. It reads its own schedstat switch-in count (pcount)
# after taking the first name, around the rename and at the end; its
# parent reads the exited child's final pcount. Those split its off-CPU
# waits (one per switch-in, the first one too): under -k comm the waits
# before the rename are under rn_before (or, up to the first reading,
# under the parent's name: it may be preempted before it names itself),
# the later ones under rn_after; under -k tid the task's key shows the
# new name and all its waits.
# Each of the 2 x 60 sleeps ends with a switch-in under the name taken
# before it. But the kernel counts a few arrivals (pcount) that no
# sched_switch event shows, a sleep's too (with CPU hogs running): the runq report counts each as "merged" (see
# runq_oracle), so every lower bound here allows the run's merged total.
# Both instances trace only the renamer's cgroup: host-wide, a busy
# host's new tids drain the key map's allocator and a new key's waits go
# to [other] (no_mem, counted), the renamer's too.
. "$(dirname "$0")/../lib.sh"
need_root
own_cgroup schedhist-rn

start_sh comm -M offcpu,runq -k comm -j "${OWN_FILTER[@]}"
C=$SH_PID
start_sh tid -M offcpu,runq -k tid -j "${OWN_FILTER[@]}"
T=$SH_PID
in_cgroup "$OWN" "$HELPERS/renamer" -m 5 -a 60 -b 60 -o rn_before -n rn_after >"$TMP/rn.out" ||
	fail "renamer failed"
stop_sh "$C" || fail "comm instance exited with $?"
stop_sh "$T" || fail "tid instance exited with $?"
cat "$TMP/rn.out"
python3 - "$TMP/comm.out" "$TMP/tid.out" "$TMP/rn.out" <<'PY' || fail "waits not split at the rename"
import json, sys
def last(path, metric):
    lines = [json.loads(l) for l in open(path).read().splitlines()]
    return [r for r in lines if r["metric"] == metric][-1]
comm, tid = last(sys.argv[1], "offcpu"), last(sys.argv[2], "offcpu")
merged = max(last(sys.argv[1], "runq")["events"]["merged"],
             last(sys.argv[2], "runq")["events"]["merged"])
f = open(sys.argv[3]).read().split()
t, start, before, after, end, final = f[1], *(int(f[i]) for i in (3, 5, 7, 9, 11))
def count(r, key):
    return sum(g["count"] for g in r["groups"] if g["key"] == key)
old, new = count(comm, "rn_before"), count(comm, "rn_after")
print(f"pcount: start {start} before {before} after {after} end {end} final {final}; "
      f"merged {merged}")
print(f"-k comm: rn_before {old} (schedstat: {before - start}..{after - 1}), "
      f"rn_after {new} (schedstat: {end - after}..{final - before})")
assert min(old, new) >= 60 - merged, "a sleep's wait is missing under its name"
assert before - start - merged <= old <= after - 1, \
    "waits before the rename are not all under the old name"
assert end - after - merged <= new <= final - before, \
    "waits after the rename are not under the new name"
assert final - start - merged <= old + new <= final - 1, \
    "the waits under the two names do not add up"
# the instances see the renamer's few keys only: none of them overflows
for name, r in (("-k comm", comm), ("-k tid", tid)):
    ev = r["events"]
    assert not ev["map_full"] and not ev["no_mem"], f"{name}: keys overflowed: {ev}"
g = [g for g in tid["groups"] if g["key"] == t]
other = [g for g in tid["groups"] if g["key"] == "[other]"]
assert g, (f"tid {t} missing from the -k tid report: events {tid['events']}, "
           f"[other] {other[0]['count'] if other else 0} waits, {len(tid['groups'])} groups")
print(f"-k tid: tid {t} comm {g[0]['comm']}, {g[0]['count']} waits (schedstat {final})")
assert g[0]["comm"] == "rn_after", "the tid key does not show the new name"
assert final - merged <= g[0]["count"] <= final, \
    f"want {final} waits under the tid (one per switch-in), less at most {merged} merged"
PY
