#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --causes, self: two CPU-bound threads of one cgroup pinned to CPU 0
# wait for each other: the cgroup's self cause is what its tasks ran
# (their schedstat), which each ran while the other waited; and self is
# the largest cause unless other tasks took most of CPU 0 (their share
# measured in the same run).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../causes_lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

cause_cgroups schedhist-cself s
test_cleanup() { remove_cgroup_tree "$PARENT"; }
start_causes
B0=$(cpu_busy 0)
in_cgroup "$PARENT/s" "$HELPERS/spinners" -n 2 -c 0 -t 2 -N cself >"$TMP/s.out" &
CHILD_PIDS+=($!)
wait_lines "$TMP/s.out" 2
cgroup_run "$PARENT/s" >"$TMP/s.run"
B0=$(( $(cpu_busy 0) - B0 ))
sleep 0.6	# one more reading with the spinners blocked
stop_sh "$SH_PID" || fail "schedhist exited with $?"

python3 - "$TMP" "$PARENT" "$MNT" "$B0" "$(getconf CLK_TCK)" "$TICK_NS" <<PY
$CAUSES_PY
busy, hz, tick = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
run, delay = (int(x) for x in open(f"{tmp}/s.run").read().split())
g, c = causes("s")
print(f"s: its tasks ran {run} ns, run_delay {delay} ns")
# Each thread ran while the other waited, but at the ends: a thread's run
# time starts at its first run after the barrier and ends at its own end,
# each at most one of its waits (the key's exact max) from the other's;
# the main thread's waits (its part of run_delay, within the key's waits
# beyond the two threads': not separable, bounded by the max too) may
# count a thread's run a second time. So self lies within run, give or
# take three max waits, the steal, and a tick per reading (two).
slack = 3 * g["max_ns"] + c["steal"] + 2 * tick
if abs(c["self"] - run) > slack:
    bad.append(f"s: self {c['self']} ns, want its tasks' run time {run} ns within {slack} ns")
# CPU 0's busy time (ticks, one of slack at each end) less the spinners'
# run is what the rest of the host took; both threads may wait behind it
# at once, so neighbour and kernel together are at most twice that: when
# that is below self's lower bound, self is the largest cause
others = busy * 1e9 / hz - run + 2e9 / hz
print(f"CPU 0: others ran {others:.0f} ns at most meanwhile")
if 2 * others + slack < run - slack and largest(c) != "self":
    bad.append(f"s: largest cause {largest(c)}, want self (others ran {others:.0f} ns, below {run})")
done()
PY
