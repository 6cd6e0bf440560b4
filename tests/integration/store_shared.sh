#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Two CPUs writing one key's store entry at once (bpf/store.bpf.h). Two
# CPU-bound threads named "shared", one pinned to CPU 0 and one to CPU 1,
# each sharing its CPU with a CPU-bound neighbour of another name, under
# -M runq -k comm with a cache of one entry per CPU
# (SCHEDHIST_CACHE_ENTRIES=1): the neighbours take the CPU's one entry
# whenever they run, so every switch-in of a "shared" thread evicts the
# neighbour's entry, takes the key's, and its next eviction flushes it
# into the key's store entry, on both CPUs at once. The kernel is the
# oracle, as in runq_oracle: the group's count is the two threads' pcount
# but for switch-ins the kernel counted and no sched_switch event showed
# (merged, counted over the run), its sum their run_delay but for those
# (at most the group's longest wait each), exactly when none is missing;
# the maximum is one of the two threads'. The accounting identity holds.
. "$(dirname "$0")/../lib.sh"
need_root
[ -r /proc/self/schedstat ] || skip "kernel without schedstat (CONFIG_SCHED_INFO)"
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"

SCHEDHIST_CACHE_ENTRIES=1 start_sh sh -M runq -k comm -j --method sched_info
SH=$SH_PID
remember_ids
for c in 0 1; do
	"$HELPERS/spinners" -n 1 -c $c -t 3 -N shared >"$TMP/shared$c.out" &
	CHILD_PIDS+=($!)
	"$HELPERS/spinners" -n 1 -c $c -t 3 -N "other$c" >"$TMP/other$c.out" &
	CHILD_PIDS+=($!)
done
for i in $(seq 1 600); do	# a hang guard only: ends when all four have reported
	[ "$(cat "$TMP"/shared?.out "$TMP"/other?.out | wc -l)" -ge 4 ] && break
	sleep 0.1
done
[ "$(cat "$TMP"/shared?.out "$TMP"/other?.out | wc -l)" -ge 4 ] || fail "spinners did not report"
# the threads report their schedstat, then block for good: it is final
stop_sh "$SH" || fail "schedhist exited with $?"
assert_unloaded $SH_IDS
python3 "$(dirname "$0")/../identity.py" "$TMP/sh.out" --metric runq || fail "identity"

python3 - "$TMP/sh.out" "$TMP/shared0.out" "$TMP/shared1.out" <<'PY' || fail "oracle"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
g = [x for x in r["groups"] if x["key"] == "shared"]
assert g, "no group for the key shared"
g = g[0]
threads = []
for path in sys.argv[2:]:
    f = open(path).read().split()
    threads.append((int(f[1]), int(f[3]), int(f[5])))	# tid, run_delay, pcount
rd = sum(t[1] for t in threads)
pc = sum(t[2] for t in threads)
merged = r["events"]["merged"]
km = r["kernel_memory"]
print(f"shared: count {g['count']} sum {g['sum_ns']} max {g['max_ns']} by {g['max_tid']}; "
      f"the threads: pcount {pc} run_delay {rd}; merged {merged}; cache of "
      f"{km['cache_entries']} entry: {km['cache_hits']} hits, {km['cache_misses']} misses, "
      f"max_lost {km['max_lost']}")
bad = 0
missing = pc - g["count"]
if km["cache_entries"] != 1:
    print("  not a cache of one entry"); bad += 1
# every switch-in of a shared thread follows a neighbour's on its CPU (the
# CPUs are never idle), which took the entry: at least that many misses
# (half of them, for switch-ins whose wait was not recorded)
if km["cache_misses"] < g["count"] / 2:
    print("  fewer misses than the switch-ins of the shared threads"); bad += 1
if missing < 0 or missing > merged:
    print(f"  {missing} waits missing, {merged} merged switch-ins explain them"); bad += 1
if g["sum_ns"] > rd or rd - g["sum_ns"] > missing * g["max_ns"]:
    print(f"  sum_ns {g['sum_ns']} against run_delay {rd} with {missing} missing"); bad += 1
if g["max_tid"] not in [t[0] for t in threads]:
    print("  the max is not one of the two threads'"); bad += 1
if pc < 50:
    print("  too few timeslices for a meaningful check"); bad += 1
sys.exit(1 if bad else 0)
PY
