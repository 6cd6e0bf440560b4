#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# One run measures all three metrics of the same waits
# (-M offcpu,runq,blocked): off-CPU wait = blocked time + run-queue latency,
# wait by wait, by each method and clock: sched_info, the wakeup hooks with
# the run queue clock (--method wakeup) and with bpf_ktime_get_ns()
# (--clock ktime). The accounting identity holds for every metric of each.
#
# The workload: a 20 ms sleeper competing with two spinners, all pinned to
# CPU 1 (no migration: a wait starts and ends on one run queue). The
# sleeper is a shell gated on a FIFO until the three instances run, then
# exec()s into the sleeper: its pid is known before it starts, so each
# instance watches that process only (-p) and its event counters are that
# process's. Its waits as "msleep" (after the prctl(PR_SET_NAME)) all begin
# at a switch-out every instance saw, so for each instance, in the msleep
# group:
#  - offcpu and runq count the same switch-ins, and blocked those that
#    ended a sleep: offcpu - blocked is the waits that began with a
#    preemption, at most the process's own involuntary switches (nivcsw);
#  - offcpu's sum is blocked's plus runq's: exactly, by construction (a
#    preempted wait is all runq, and the run queue clock stamped its
#    switch-out and sched_info's enqueue alike; a wait after a sleep is
#    split at the wakeup).
# What can move a wait out of that, and how many, comes from the same
# run: a switch-in the kernel counted and no event showed ("merged": its
# queue time goes into the next runq wait), and a wait some metric could
# not record (no_start: a switch-out no event showed; clock_skew). Each
# moves at most one wait, so counts may differ by that many and sums by
# that many times the longest wait. The shell's first wait after the
# instances attached is one of those (nothing before it was seen), so the
# shell passes a first gate, says so and waits at a second one until
# every instance has reported since: the counts of that report are the
# baseline, and only what the counters gained after it is allowed. In a
# run where nothing moved (the usual case) the checks are exact.
. "$(dirname "$0")/../lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs CPU 1 for the pinned workload"

mkfifo "$TMP/go1" "$TMP/go2"
(
	read -r _ <"$TMP/go1"
	echo gate1 >"$TMP/gate1"
	read -r _ <"$TMP/go2"
	exec taskset -c 1 "$HELPERS/sleeper" -m 20 -t 2 -N msleep -H
) >"$TMP/sleep.out" &
SLP=$!
CHILD_PIDS+=($SLP)
ids=
for inst in "si --method sched_info" "wk --method wakeup" "kt --clock ktime"; do
	# shellcheck disable=SC2086
	start_sh ${inst%% *} -M offcpu,runq,blocked -k comm -p "$SLP" --cumulative -i 200ms \
		-j ${inst#* }
	remember_ids
	ids="$ids $SH_IDS"
done
# the store's eviction path: every process (no -p) through a cache of one
# entry per CPU, so that msleep and the spinners beside it on CPU 1 evict
# each other's entry at nearly every switch; its msleep group must be
# sched_info's to the nanosecond (the same events, the same code, but for
# where the counts are kept)
SCHEDHIST_CACHE_ENTRIES=1 start_sh c1 -M offcpu,runq,blocked -k comm --cumulative -i 200ms -j \
	--method sched_info
remember_ids
ids="$ids $SH_IDS"
echo go >"$TMP/go1"
wait_for "$TMP/gate1" '^gate1' 60	# a hang guard only
# the shell is at its second gate (or on its way, nothing it does counts as moved):
# a whole report (one line per metric) of each instance from here on is the baseline
for n in si wk kt; do
	b=$(wc -l <"$TMP/$n.out")
	for i in $(seq 1 600); do	# a hang guard only: reports come every 200 ms
		[ "$(wc -l <"$TMP/$n.out")" -ge $((b / 3 * 3 + 6)) ] && break
		sleep 0.05
	done
	[ "$(wc -l <"$TMP/$n.out")" -ge $((b / 3 * 3 + 6)) ] || fail "$n: no report after the first gate"
	echo $((b / 3 * 3 + 6)) >"$TMP/$n.base"
done
"$HELPERS/spinners" -n 2 -c 1 -t 3 -N mspin -x >/dev/null &
CHILD_PIDS+=($!)
echo go >"$TMP/go2"
# the sleeper reports, then blocks in pause() (-H): its switches end there,
# so the kernel's count of its preemptions read after the instances stop
# holds every preempted wait they saw, the report's own writing included
wait_for "$TMP/sleep.out" '^held' 60	# a hang guard only
for p in "${SH_PIDS[@]}"; do stop_sh "$p" || fail "schedhist exited with $?"; done
echo "nivcsw_final $(awk '/^nonvoluntary_ctxt_switches/ {print $2}' "/proc/$SLP/status")" \
	>>"$TMP/sleep.out"
kill "$SLP"
assert_unloaded $ids
# c1 watches every process: its live reports read the counters and the
# histograms of a whole host's storm apart (skew beyond any tolerance on a
# loaded host); its last report, read after detach, is exact
tail -3 "$TMP/c1.out" >"$TMP/c1last.out"
for n in si wk kt c1last; do
	for m in offcpu runq blocked; do
		python3 "$(dirname "$0")/../identity.py" "$TMP/$n.out" --cumulative --metric "$m" ||
			fail "$n: identity of $m"
	done
done

python3 - "$TMP" <<'PY' || fail "offcpu != blocked + runq"
import json, sys
t = sys.argv[1]
f = open(f"{t}/sleep.out").read().split()
nivcsw = int(f[f.index("nivcsw_final") + 1])	# the kernel's, after the last wait
slept = int(f[f.index("slept") + 1])
bad = 0
for name, method, clock in (("si", "sched_info", "rq"), ("wk", "wakeup", "rq"),
                            ("kt", "wakeup", "ktime")):
    base_lines = int(open(f"{t}/{name}.base").read())
    last, base = {}, {}
    for i, line in enumerate(open(f"{t}/{name}.out")):
        r = json.loads(line)
        assert (r["method"], r["clock"]) == (method, clock), (name, r["method"], r["clock"])
        last[r["metric"]] = r	# cumulative: the last report of each metric is the run
        if i < base_lines:
            base[r["metric"]] = r	# ... and the last before base_lines the baseline
    assert sorted(last) == ["blocked", "offcpu", "runq"] == sorted(base), (sorted(last), sorted(base))
    g = {}
    for m, r in last.items():
        gs = [x for x in r["groups"] if x["key"] == "msleep"]
        assert gs, f"{name}: no msleep group for {m}"
        g[m] = gs[0]
    off, rq, blk = g["offcpu"], g["runq"], g["blocked"]
    def moves(rs):
        return rs["runq"]["events"]["merged"] + sum(
            r["lost"]["no_start"] + r["lost"]["clock_skew"] for r in rs.values())
    moved = moves(last) - moves(base)
    longest = max(off["max_ns"], rq["max_ns"], blk["max_ns"])
    diff = off["sum_ns"] - blk["sum_ns"] - rq["sum_ns"]
    print(f"{name} ({method}, clock {clock}): offcpu {off['count']} waits {off['sum_ns']} ns, "
          f"blocked {blk['count']} {blk['sum_ns']}, runq {rq['count']} {rq['sum_ns']}; "
          f"offcpu - blocked - runq {diff} ns; waits moved at most {moved}, longest "
          f"{longest} ns; sleeper: {slept} sleeps, {nivcsw} preemptions")
    if off["count"] < slept / 2:
        print("  too few of the sleeper's waits recorded"); bad += 1
    if abs(off["count"] - rq["count"]) > moved:
        print("  offcpu and runq counted different switch-ins"); bad += 1
    if not -moved <= off["count"] - blk["count"] <= nivcsw + moved:
        print("  offcpu - blocked is not the waits that began with a preemption"); bad += 1
    if abs(diff) > moved * longest:
        print("  offcpu's sum is not blocked's plus runq's"); bad += 1
    # a blocked wait is a sleep of 20 ms less the few us from arming its timer to the
    # switch-out (a wait that began with a preemption is not blocked at all)
    if rq["sum_ns"] <= 0 or blk["sum_ns"] < 0.95 * 20000000 * (blk["count"] - moved):
        print("  runq empty, or blocked waits shorter than the sleeps"); bad += 1
# the instance with a cache of one entry: msleep's waits, metric by metric, are sched_info's
def final(name):
    last = {}
    for line in open(f"{t}/{name}.out"):
        r = json.loads(line)
        last[r["metric"]] = r
    return last
si, c1 = final("si"), final("c1")
km = c1["runq"]["kernel_memory"]
print(f"c1 (cache of one entry): {km['cache_hits']} hits, {km['cache_misses']} misses")
if km["cache_entries"] != 1 or km["cache_misses"] == 0:
    print("  the cache of one entry did not evict"); bad += 1
for m in ("offcpu", "runq", "blocked"):
    a = [x for x in si[m]["groups"] if x["key"] == "msleep"][0]
    b = [x for x in c1[m]["groups"] if x["key"] == "msleep"]
    fields = ("count", "sum_ns", "max_ns", "min_ns", "buckets")
    if not b or any(a.get(f) != b[0].get(f) for f in fields):
        print(f"  c1 {m}: msleep {[b[0].get(f) for f in fields[:4]] if b else None}, "
              f"sched_info's {[a.get(f) for f in fields[:4]]}"); bad += 1
sys.exit(1 if bad else 0)
PY
