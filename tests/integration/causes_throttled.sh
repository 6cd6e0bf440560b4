#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --causes, throttled: a CPU-bound thread pinned to CPU 0 in cgroup t,
# limited to 10 % of a CPU by its CFS quota (v1 cpu.cfs_quota_us, or
# cgroup2 cpu.max), is throttled most of its life. Its throttled cause is
# the time the kernel says t was throttled (cpu.stat), and the largest
# cause whenever that time is most of its waits.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../causes_lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

PERIOD_US=100000 QUOTA_US=10000
quota_cgroups schedhist-cthr "$PERIOD_US" "$QUOTA_US"
test_cleanup() { remove_cgroup_tree "$PARENT"; }
# cpu.stat's throttled time: throttled_time (ns) on v1, throttled_usec on cgroup2
throttled_ns() {
	awk '$1 == "throttled_time" {print $2} $1 == "throttled_usec" {print $2 * 1000}' "$1/cpu.stat"
}
start_causes
T0=$(throttled_ns "$PARENT/t")
in_cgroup "$PARENT/t" "$HELPERS/spinners" -n 1 -c 0 -t 2 -N cthr >"$TMP/t.out" &
CHILD_PIDS+=($!)
wait_lines "$TMP/t.out" 1
T1=$(throttled_ns "$PARENT/t")
awk '{print $1, $2}' /proc/"$(head -1 "$PARENT/t/cgroup.procs")"/schedstat >"$TMP/t.main"
sleep 0.6	# one more reading with the spinner blocked
stop_sh "$SH_PID" || fail "schedhist exited with $?"

python3 - "$TMP" "$PARENT" "$MNT" "$TICK_NS" "$((T1 - T0))" "$((PERIOD_US * 1000))" <<PY
$CAUSES_PY
tick, thr, period = (int(x) for x in sys.argv[4:7])
mrun, mdelay = (int(x) for x in open(f"{tmp}/t.main").read().split())
g, c = causes("t")
print(f"t: throttled {thr} ns by cpu.stat")
# While t is throttled its thread is queued (switched out runnable, or
# waiting for its turn): each throttled stretch lies in one of its waits,
# from the switch-out at the throttling (right after it: the resched it
# asks for) to the unthrottling at the next period, before the switch-in.
# The difference: the stretch in progress at the first and at the last
# reading of cpu.stat (at most a period each, the spinner runs at both),
# a tick per reading, and the main thread's waits (its run_delay), which
# may overlap a throttled stretch too.
slack = 2 * period + 2 * tick + mdelay
if abs(c["throttled"] - thr) > slack:
    bad.append(f"t: throttled cause {c['throttled']} ns, want cpu.stat's {thr} ns within {slack} ns")
# mostly throttled: when the kernel's throttled time is most of the waits
if thr - slack > g["sum_ns"] / 2 and largest(c) != "throttled":
    bad.append(f"t: largest cause {largest(c)}, want throttled (cpu.stat: {thr} ns of "
               f"{g['sum_ns']} ns waited)")
done()
PY
