#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The kernel is the oracle: under -M runq -k tid, each thread's count and
# sum_ns must equal its own schedstat pcount (3rd field) and run_delay
# (2nd field). Two workloads at once: two CPU-bound threads pinned to
# CPU 0 taking turns on its run queue, and four unpinned ones that the
# helper moves between CPU 0 and CPU 1 every 2 ms, so they are migrated
# while queued (a migration ends one queued segment into run_delay and
# starts another). The threads are born after schedhist attached and are
# asleep for good (in pause()) when their schedstat is read and schedhist
# stopped, so both count exactly the same waits.
# Six instances at once: sched_info (the default here), sched_info with
# a task table of 4 entries (--task-table 4: nearly every task finds its
# entry taken and keeps its state in task storage, and takes an entry,
# bringing its state along, when an owner exits), sched_info measuring
# the three metrics at once (-M offcpu,runq,blocked: the switch program's
# fast path for several metrics computes runq on its own), sched_info
# with a cache of one entry per CPU (SCHEDHIST_CACHE_ENTRIES=1: the threads
# taking turns on a CPU evict each other's entry at nearly every switch, so
# their counts go through the store's flushes), and the wakeup-hook
# fallback with each of its clocks (--method wakeup: the run queue clock
# here; --clock ktime: bpf_ktime_get_ns(), a kernel whose run queue clock
# a program cannot reach); all see the same sched_switch events.
#  - sched_info (both): sum_ns == run_delay exactly, by construction. The
#    count equals pcount but for switch-ins the kernel accounted that no
#    sched_switch event showed (they come around migrations): the kernel side detects each (pcount ran ahead) and
#    counts it as "merged", its wait being part of the next one recorded.
#    So per thread count <= pcount, and over the threads
#    sum(pcount - count) <= merged. One case escapes: when a thread's last
#    arrival is one of those, no later wait takes its time in: then (and
#    only then, count < pcount) sum_ns falls short of run_delay, by at most
#    one wait per missing arrival; the bound is the thread's longest wait
#    as the wakeup instance saw it (the same kind of wait, a timeslice of
#    the others, in the same run).
#  - the four sched_info instances record exactly the same runq waits.
#  - wakeup (either clock): the same switch-ins, so the same count per thread, but for
#    switch-ins the kernel counts no wait for (the task was not queued by
#    sched_info's account: a no_start of the sched_info instances), which
#    the wakeup hooks do see; it stamps
#    on its own, at its own tracepoints: sum within 1% of run_delay (each of its stamps is
#    taken in the same __schedule() or wakeup as the kernel's,
#    microseconds apart, while these waits average a timeslice: the test
#    checks that the mean wait is at least 100 us, i.e. 1% is at least
#    1 us a wait), plus, for a thread with merged switch-ins, at most its
#    longest wait for each (the wakeup method has no run_delay to find
#    their time in).
. "$(dirname "$0")/../lib.sh"
need_root
[ -r /proc/self/schedstat ] || skip "kernel without schedstat (CONFIG_SCHED_INFO)"
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs to migrate between"

# thread_state PID TID: the state letter of one thread
thread_state() { sed 's/^.*) //' "/proc/$1/task/$2/stat" | cut -c1; }

start_sh si -M runq -k tid -j --method sched_info
SI=$SH_PID
remember_ids
ids=$SH_IDS
start_sh st -M runq -k tid -j --method sched_info --task-table 4
ST=$SH_PID
remember_ids
ids="$ids $SH_IDS"
start_sh al -M offcpu,runq,blocked -k tid -j --method sched_info
AL=$SH_PID
remember_ids
ids="$ids $SH_IDS"
# the store's eviction path at every switch between two threads on a CPU:
# a cache of one entry per CPU (SCHEDHIST_CACHE_ENTRIES=1)
SCHEDHIST_CACHE_ENTRIES=1 start_sh c1 -M runq -k tid -j --method sched_info
C1=$SH_PID
remember_ids
ids="$ids $SH_IDS"
# ... and at --schema 3, whose store entries, cache entries and flushes
# carry 321 buckets per histogram: the same waits, to the nanosecond
SCHEDHIST_CACHE_ENTRIES=1 start_sh c3 -M runq -k tid -j --method sched_info --schema 3
C3=$SH_PID
remember_ids
ids="$ids $SH_IDS"
start_sh wk -M runq -k tid -j --method wakeup
WK=$SH_PID
remember_ids
ids="$ids $SH_IDS"
start_sh kt -M runq -k tid -j --clock ktime
KT=$SH_PID
remember_ids
ids="$ids $SH_IDS"
"$HELPERS/spinners" -n 2 -c 0 -t 3 >"$TMP/pinned.out" &
a=$!
CHILD_PIDS+=($a)
"$HELPERS/spinners" -n 4 -c -1 -m -t 3 -N migrated >"$TMP/migrated.out" &
b=$!
CHILD_PIDS+=($b)
for i in $(seq 1 600); do	# a hang guard only: ends when both have reported
	[ "$(cat "$TMP/pinned.out" "$TMP/migrated.out" | wc -l)" -ge 6 ] && break
	sleep 0.1
done
[ "$(cat "$TMP/pinned.out" "$TMP/migrated.out" | wc -l)" -ge 6 ] || fail "spinners did not report"
# every thread asleep in pause() for good: its schedstat is final
: >"$TMP/final"
for p in $a $b; do
	for tid in $(ls "/proc/$p/task"); do
		[ "$tid" = "$p" ] && continue	# the main thread
		for i in $(seq 1 600); do
			[ "$(thread_state "$p" "$tid")" = S ] && break
			sleep 0.1
		done
		read -r _ rd pc <"/proc/$p/task/$tid/schedstat"
		echo "$tid $rd $pc" >>"$TMP/final"
	done
done
stop_sh "$SI" || fail "sched_info instance exited with $?"
stop_sh "$ST" || fail "sched_info instance with a task table of 4 exited with $?"
stop_sh "$AL" || fail "sched_info instance of three metrics exited with $?"
stop_sh "$C1" || fail "sched_info instance with a cache of one entry exited with $?"
stop_sh "$C3" || fail "sched_info instance with a cache of one entry at --schema 3 exited with $?"
stop_sh "$WK" || fail "wakeup instance exited with $?"
stop_sh "$KT" || fail "wakeup instance with --clock ktime exited with $?"
assert_unloaded $ids

python3 - "$TMP/si.out" "$TMP/st.out" "$TMP/wk.out" "$TMP/kt.out" "$TMP/final" \
	"$TMP/al.out" "$TMP/c1.out" "$TMP/c3.out" <<'PY' || fail "oracle"
import json, sys
def report(path, method, name, clock="rq", metrics=1):
    rs = [json.loads(l) for l in open(path)]
    assert len(rs) == metrics, f"{path}: want {metrics} report line(s) at SIGINT, got {len(rs)}"
    r = [x for x in rs if x["metric"] == "runq"][0]
    assert r["metric"] == "runq" and r["key"] == "tid" and r["method"] == method, r["method"]
    assert r["clock"] == clock, f"{name}: clock {r['clock']}, want {clock}"
    ev, lost = r["events"], r["lost"]
    print(f"{name}: events {ev}")
    assert ev["seen"] == ev["recorded"] + sum(lost.values()), f"{name}: identity {ev} {lost}"
    return r, {g["key"]: g for g in r["groups"]}
si, gs = report(sys.argv[1], "sched_info", "sched_info")
st, gt = report(sys.argv[2], "sched_info", "sched_info, task table 4")
wk, gw = report(sys.argv[3], "wakeup", "wakeup")
kt, gk = report(sys.argv[4], "wakeup", "wakeup, clock ktime", "ktime")
al, ga = report(sys.argv[6], "sched_info", "sched_info, three metrics", metrics=3)
c1, gc = report(sys.argv[7], "sched_info", "sched_info, cache of one entry")
# the threads take turns on each CPU: nearly every keyed switch-in misses
km = c1["kernel_memory"]
print(f"cache of one entry: {km['cache_hits']} hits, {km['cache_misses']} misses")
assert km["cache_entries"] == 1 and km["cache_misses"] > 0, km
c3, g3 = report(sys.argv[8], "sched_info", "sched_info, cache of one entry, schema 3")
km3 = c3["kernel_memory"]
assert c3["bucket_schema"] == 3 and si["bucket_schema"] == 0, "the grids' schemas"
def s0_index(lo_ns):
    """schema 0's bucket that holds a bucket starting at lo_ns (its upper
    edges floor(1e9 * 2^(i - 20)) ns are schema 3's every eighth)"""
    i = 0
    while i < 40 and int(1e9 * 2.0 ** (i - 20)) < lo_ns:
        i += 1
    return i
def folded(g):
    f = {}
    for b in g["buckets"]:
        f[s0_index(b["lo_ns"])] = f.get(s0_index(b["lo_ns"]), 0) + b["count"]
    return f
assert km3["cache_entries"] == 1 and km3["cache_misses"] > 0, km3
assert si["kernel_memory"]["cache_entries"] == 16, si["kernel_memory"]
final = [l.split() for l in open(sys.argv[5])]
assert len(final) == 6, f"{len(final)} threads, want 6"
bad, short = 0, 0
# switch-ins each wakeup instance recorded and sched_info's had no wait for
extra = {"wakeup": 0, "wakeup, clock ktime": 0}
for tid, run_delay, pcount in final:
    run_delay, pcount = int(run_delay), int(pcount)
    s, t, w, k, a = gs.get(tid), gt.get(tid), gw.get(tid), gk.get(tid), ga.get(tid)
    c, c3t = gc.get(tid), g3.get(tid)
    if s is None or t is None or w is None or k is None or a is None or c is None or c3t is None:
        print(f"tid {tid} missing from a report"); bad += 1; continue
    print(f"tid {tid} ({s['comm']}): pcount {pcount}, run_delay {run_delay}; sched_info "
          f"count {s['count']} sum {s['sum_ns']}; task table 4 count {t['count']} sum "
          f"{t['sum_ns']}; wakeup count {w['count']} sum {w['sum_ns']} max {w['max_ns']} "
          f"({(w['sum_ns'] - run_delay) / run_delay:+.4%}); wakeup, clock ktime count "
          f"{k['count']} sum {k['sum_ns']} ({(k['sum_ns'] - run_delay) / run_delay:+.4%})")
    for name, g in (("sched_info", s), ("task table 4", t)):
        if g["count"] > pcount:
            print(f"  {name}: more waits than pcount"); bad += 1
        missing = pcount - g["count"]
        if g["sum_ns"] > run_delay:
            print(f"  {name}: sum_ns above run_delay"); bad += 1
        elif g["sum_ns"] < run_delay and run_delay - g["sum_ns"] > missing * w["max_ns"]:
            # short only by the last arrivals, unseen, each at most a wait
            print(f"  {name}: sum_ns short of run_delay by {run_delay - g['sum_ns']} ns with "
                  f"{missing} arrival(s) unseen"); bad += 1
    for name, g in (("task table 4", t), ("three metrics", a), ("cache of one entry", c),
                    ("cache of one entry, schema 3", c3t)):
        if (g["count"], g["sum_ns"], g["max_ns"]) != (s["count"], s["sum_ns"], s["max_ns"]):
            print(f"  {name}: count {g['count']} sum {g['sum_ns']} max {g['max_ns']}: not the "
                  "same waits as sched_info"); bad += 1
    # schema 3's buckets, 8 to a power of two, summed back onto schema 0's
    if folded(c3t) != folded(s):
        print(f"  schema 3: buckets {folded(c3t)} do not fold onto sched_info's "
              f"{folded(s)}"); bad += 1
    short += pcount - s["count"]
    for name, g in (("wakeup", w), ("wakeup, clock ktime", k)):
        if g["count"] < s["count"]:
            print(f"  {name}: fewer switch-ins than sched_info"); bad += 1
        extra[name] += g["count"] - s["count"]
        if abs(g["sum_ns"] - run_delay) > run_delay / 100 + (pcount - s["count"]) * g["max_ns"]:
            print(f"  {name}: sum_ns differs from run_delay by more than 1%"); bad += 1
    if run_delay < 100000 * pcount:
        print("  mean wait under 100 us: the 1% bound would not hold"); bad += 1
    if pcount < 50:
        print("  too few timeslices for a meaningful check"); bad += 1
    for r, g in (("sched_info", s), ("task table 4", t), ("three metrics", a), ("wakeup", w),
                 ("wakeup, clock ktime", k)):
        if g["max_tid"] != int(tid):
            print(f"  {r}: worst offender {g.get('max_tid')} is not the thread itself"); bad += 1
merged = si["events"]["merged"]
print(f"switch-ins counted by the kernel alone: {short} of these threads, {merged} merged in all;"
      f" {extra} seen by the wakeup hooks alone, {si['lost']['no_start']} no_start")
if short > merged:
    print("  more waits missing than the kernel side detected"); bad += 1
for name, n in extra.items():
    if n > si["lost"]["no_start"]:
        print(f"  {name}: more waits than sched_info's no_start explains"); bad += 1
sys.exit(1 if bad else 0)
PY
