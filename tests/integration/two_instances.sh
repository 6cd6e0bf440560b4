#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Two instances with different metrics and keys at once, and stopping one
# does not disturb the other:
#   A: -M runq -k tid      checked against the spinners' own schedstat
#   B: -M offcpu,runq -k comm -i 0.5   a 20 ms sleeper lands in the 20 ms bucket
# A is stopped while B runs: A's programs are gone, B's are still loaded,
# B keeps its 0.5 s cadence across the stop, its reports after the stop
# still see the sleeper, and its identity holds over the whole run. The
# sleeper times its own sleeps: every sleep whose own time is within the
# bucket that holds 20 ms has its off-CPU wait in that bucket (it waited at least the 20 ms it
# asked for, at most what it timed), on any host, idle or busy, but for
# the sleeps it was preempted in before it blocked (at most its own count
# of involuntary switches) and the arrivals the kernel counts without an
# event (B's runq "merged").
. "$(dirname "$0")/../lib.sh"
need_root
[ -r /proc/self/schedstat ] || skip "kernel without schedstat (CONFIG_SCHED_INFO)"

start_sh a -M runq -k tid -j
A=$SH_PID
remember_ids
ids_a=$SH_IDS
start_sh b -M offcpu,runq -k comm -i 0.5 -j
B=$SH_PID
remember_ids
ids_b=$SH_IDS
"$HELPERS/sleeper" -m 20 -t 4 -N tsleep2 >"$TMP/sleep.out" &
SL=$!
CHILD_PIDS+=($SL)
"$HELPERS/spinners" -n 2 -c 0 -t 1.5 -N tspin2 -x >"$TMP/spin.out" || fail "spinners failed"
stop_sh "$A" || fail "A exited with $?"
stop_at=$(date -u +%s.%N)
assert_unloaded $ids_a
for id in $ids_b; do
	bpftool prog show id "$id" >/dev/null 2>&1 || fail "B's program $id vanished when A stopped"
done
kill -0 "$B" 2>/dev/null || fail "B died when A stopped"
wait $SL || fail "sleeper failed"
stop_sh "$B" || fail "B exited with $?"
assert_unloaded $ids_b

python3 - "$TMP/a.out" "$TMP/spin.out" <<'PY' || fail "A (runq, tid) disagrees with schedstat"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
groups = {g["key"]: g for g in r["groups"]}
for line in open(sys.argv[2]):
    f = line.split()
    tid, run_delay, pcount = f[1], int(f[3]), int(f[5])
    g = groups[tid]
    print(f"A: tid {tid} count {g['count']} (pcount {pcount}), sum {g['sum_ns']} (run_delay {run_delay})")
    assert abs(g["count"] - pcount) <= max(2, pcount * 0.02)
    assert 0.97 <= g["sum_ns"] / run_delay <= 1.03
PY
python3 "$(dirname "$0")/../identity.py" "$TMP/b.out" --min-reports 6 --metric offcpu || fail "B: identity"
python3 - "$TMP/b.out" "$stop_at" "$TMP/sleep.out" <<'PY' || fail "B disturbed"
import datetime, json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
reports = [r for r in lines if r["metric"] == "offcpu"]
merged = sum(r["events"]["merged"] for r in lines if r["metric"] == "runq")
stop = float(sys.argv[2])
def ts(r):
    return datetime.datetime.strptime(r["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()
times = [ts(r) for r in reports]
gaps = [b - a for a, b in zip(times, times[1:-1])]   # the last one is at SIGINT
print(f"B: {len(reports)} reports, gaps {min(gaps):.3f} .. {max(gaps):.3f} s")
assert all(0.4 <= g <= 0.6 for g in gaps), "B lost its 0.5 s cadence"
after = [r for r, t in zip(reports, times) if t > stop + 0.1][:-1]
assert len(after) >= 3, "too few B reports after A stopped"
for r in after:
    g = [g for g in r["groups"] if g["key"] == "tsleep2"]
    assert g and g[0]["count"] >= 1, f"B at {r['time']} (after A stopped): the sleeper is missing"
f = open(sys.argv[3]).read().split()
durations = [int(d) for d in f[f.index("durations") + 1].split(",")]
preempted = int(f[f.index("nivcsw") + 1])
# the bucket [lo_ns, hi_ns) that holds 20 ms, from the reports themselves
edges = {(b["lo_ns"], b["hi_ns"]) for r in reports for g in r["groups"] for b in g["buckets"]
         if b["lo_ns"] <= 20_000_000 < (b["hi_ns"] or 1 << 64)}
assert len(edges) == 1, f"the bucket of 20 ms: {edges}"
(lo, hi), = edges
inb = sum(b["count"] for r in reports for g in r["groups"] if g["key"] == "tsleep2"
          for b in g["buckets"] if b["lo_ns"] == lo)
short = sum(1 for d in durations if d < hi)
print(f"B: {len(after)} reports after A stopped, all with the sleeper; {inb} of its waits in "
      f"[{lo}, {hi}) ns, {short} of its sleeps shorter than {hi} ns; "
      f"preempted {preempted}, merged {merged}")
assert inb >= short - preempted - merged, "a sleep shorter than 33.6 ms has its wait outside that bucket"
PY
