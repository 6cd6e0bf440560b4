# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The --causes tests (causes_self, causes_neighbour, causes_kernel,
# causes_throttled), sourced after lib.sh: cgroups on the hierarchy of
# the cpu controller (its task groups are what self means, and where the
# quota is), schedhist keyed by them, and the workloads' own accounting.
#
# Every workload thread is CPU-bound and pinned to CPU 0, so it is
# running or waiting all its life: whatever else runs on CPU 0 meanwhile
# runs during one of its waits. That makes the other tasks' own run time
# (their schedstat, read in the same run) the oracle of what the waits
# were spent behind. Two same-run corrections apply to every bound:
#  - steal: a task's schedstat run time is in the scheduler's clock_task
#    (steal taken out), the waits in the run queue clock (steal in);
#    the split charges steal first and scales the rest down, so each
#    cause is off its oracle by at most the key's own steal cause;
#  - a reading of a running task's schedstat lags by at most a tick
#    (sum_exec_runtime moves at ticks and switches): TICK_NS, 10 ms,
#    CONFIG_HZ >= 100, per reading.

TICK_NS=10000000

# cause_cgroups NAME DIR...: cgroups $PARENT/DIR... under a new $PARENT
# (NAME-PID) on cgroup2 if it has the cpu controller, else on the v1 cpu
# hierarchy. Sets MNT, PARENT and HIER (the schedhist options for it).
cause_cgroups() {
	local name=$1 d
	shift
	MNT=$(cgroup_mount)
	if [ -n "$MNT" ] && grep -qw cpu "$MNT/cgroup.controllers" 2>/dev/null; then
		HIER=()
		PARENT=$MNT/$name-$$
		mkdir "$PARENT" || fail "cannot create $PARENT"
		echo +cpu >"$PARENT/../cgroup.subtree_control" 2>/dev/null
		echo +cpu >"$PARENT/cgroup.subtree_control" || fail "cannot enable the cpu controller"
	else
		MNT=$(cgroup_mount cpu)
		[ -n "$MNT" ] || skip "no cpu controller on cgroup2 nor on a v1 hierarchy"
		HIER=(--cgroup-hier cpu)
		PARENT=$MNT/$name-$$
		mkdir "$PARENT" || fail "cannot create $PARENT"
	fi
	for d in "$@"; do mkdir "$PARENT/$d" || fail "cannot create $PARENT/$d"; done
}

# start_causes: schedhist keyed by those cgroups, the causes of every
# wait since start; the last report (after the programs are detached)
# is exact.
start_causes() {
	start_sh causes -M runq -k cgroup --causes --cumulative -i 0.5 -j "${HIER[@]}"
}

# cgroup_run DIR: run time and run_delay (ns) of every task in cgroup DIR,
# summed (their schedstat), as "RUN DELAY".
cgroup_run() {
	local p
	for p in $(cat "$1/cgroup.procs"); do cat /proc/"$p"/task/*/schedstat; done |
		awk '{r += $1; d += $2} END {printf "%.0f %.0f\n", r, d}'
}

# wait_lines FILE N: wait until FILE has N spinner lines (a hang guard:
# each spinner prints its line after its run time, then blocks).
wait_lines() {
	local i
	for i in $(seq 1 1200); do
		[ "$(grep -c '^tid' "$1" 2>/dev/null)" -ge "$2" ] && return 0
		sleep 0.05
	done
	fail "no $2 spinner lines in $1"
}

# The python side of the checks: tests/causes_lib.py (CAUSES_PY, the
# line that imports it).
CAUSES_PY="import sys; sys.path.insert(0, '$(dirname "${BASH_SOURCE[0]}")'); from causes_lib import *"
