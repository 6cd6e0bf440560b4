#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Throttled or contended: cgroup t is limited to 10 % of one CPU (v1
# cpu.cfs_quota_us under --cgroup-hier cpu; cgroup2 cpu.max where the cpu
# controller is on cgroup2) and runs a CPU-bound thread; cgroup u, without
# a limit, runs two threads on one CPU. t shows its throttled time, near
# 90 % of the time, and a run-queue p99 near the quota period; u shows
# run-queue latency and no throttling at all.
. "$(dirname "$0")/../lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

PERIOD_US=100000 QUOTA_US=10000
quota_cgroups schedhist-thr "$PERIOD_US" "$QUOTA_US"
test_cleanup() { remove_cgroup_tree "$PARENT"; }

# --cumulative: the counters' deltas run from the first report that shows
# the cgroup, which a short task in each makes before the spinners start
start_sh thr -M runq -k cgroup -i 0.5 --cumulative -j "${HIER[@]}"
for x in t u; do in_cgroup "$PARENT/$x" sleep 0.01; done
wait_for "$TMP/thr.out" "schedhist-thr-$$/u\".*schedhist-thr-$$/t\"|schedhist-thr-$$/t\".*schedhist-thr-$$/u\"" 10
B0=$(cpu_busy 0)
in_cgroup "$PARENT/t" taskset -c 0 "$HELPERS/spinners" -n 1 -c 0 -t 3 -N thrT >"$TMP/t.out" &
CHILD_PIDS+=($!)
in_cgroup "$PARENT/u" taskset -c 1 "$HELPERS/spinners" -n 2 -c 1 -t 3 -N thrU >"$TMP/u.out" &
CHILD_PIDS+=($!)
# each spinner prints its line after its 3 s of run time, then blocks
for i in $(seq 1 1200); do
	[ "$(cat "$TMP"/[tu].out | grep -c '^tid')" -eq 3 ] && break
	sleep 0.05
done
[ "$(cat "$TMP"/[tu].out | grep -c '^tid')" -eq 3 ] || fail "the spinners did not finish"
B0=$(( $(cpu_busy 0) - B0 ))
# t's thread: run time and run_delay (schedstat), all of its life
for p in $(cat "$PARENT/t/cgroup.procs"); do cat /proc/"$p"/task/*/schedstat; done |
	awk -v b="$B0" -v hz="$(getconf CLK_TCK)" '{r += $1; d += $2} END {printf "%.0f %.0f %d %d\n", r, d, b, hz}' >"$TMP/own"
sleep 0.6	# one more report after the spinners are done
stop_sh "$SH_PID" || fail "schedhist exited with $?"

python3 - "$TMP" "$PARENT" "$MNT" "$PERIOD_US" "$QUOTA_US" <<'PY'
import json, sys
tmp, parent, mnt, period, quota = sys.argv[1:]
period, quota = int(period) * 1000, int(quota) * 1000
rel = parent[len(mnt):]
last = json.loads(open(f"{tmp}/thr.out").read().splitlines()[-1])
g = {x: {k["key"]: k for k in last["groups"]}.get(f"{rel}/{x}") for x in "tu"}
run, delay, busy, hz = (int(x) for x in open(f"{tmp}/own").read().split())
tick = 1e9 / hz
busy *= tick
life = run + delay	# a CPU-bound thread is running or runnable all its life
bad = [f"{x}: not in the last report" for x in "tu" if not g[x]]
if not bad:
    t, u = g["t"], g["u"]
    print(f"t: throttled {t.get('throttled_ns')} ns in {t.get('nr_throttled')} periods, "
          f"waits {t['count']} p99 {t['p99_ns']} max {t['max_ns']}; its run {run} "
          f"run_delay {delay}; CPU 0 busy {busy:.0f}")
    print(f"u: throttled {u.get('throttled_ns')} ns in {u.get('nr_throttled')} periods, "
          f"waits {u['count']} p99 {u['p99_ns']}")
    if "throttled_ns" not in t or "nr_throttled" not in u:
        bad.append("throttling counters absent")
    else:
        thr = t["throttled_ns"]
        # a throttled task waits runnable: its throttled time is part of
        # its run_delay (one thread on one CPU), up to the period that the
        # last unthrottle accounts after the wait it ends
        if thr > delay + period:
            bad.append(f"t: throttled {thr} ns, more than the {delay} ns the thread waited")
        # when CPU 0 idles, t is runnable and not running: it is throttled.
        # So throttled >= t's life - CPU 0's busy time (ticks of /proc/stat:
        # two of slack), near 90 % on a quiet host
        floor = life - busy - 2 * tick
        print(f"t: throttled {thr / life:.0%} of its life (at least {max(floor, 0) / life:.0%}: "
              f"CPU 0 idle)")
        if thr < floor:
            bad.append(f"t: throttled {thr} ns, below the {floor:.0f} ns CPU 0 was idle")
        if not t["nr_throttled"]:
            bad.append("t: no throttled period")
        # the longest waits are the rest of a period once its quota is used
        # up, less the host's own CPU time on CPU 0 (per period, on average);
        # the estimate lies in the bucket of the true p99: its lower bound
        host = max(0.0, busy - run) * period / life
        want = period - quota - host - tick
        lo = 1 << (int(want).bit_length() - 1) if want >= 1 else 0
        if t["p99_ns"] < lo:
            bad.append(f"t: p99 {t['p99_ns']} ns, want near the period: at least {lo} ns")
        if u["nr_throttled"] or u["throttled_ns"]:
            bad.append("u: throttled, without a quota")
        if not u["count"] or not u["p99_ns"]:
            bad.append("u: no run-queue latency")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
