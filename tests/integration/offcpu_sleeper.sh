#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# A thread sleeping 20 ms in a loop, under offcpu keyed by comm. The
# sleeper times each of its sleeps itself; each sleep's off-CPU wait lies
# between the 20 ms asked for and that sleep's own time, so on any host,
# idle or busy: one wait at least per sleep, every sleep whose own time
# is within the bucket that holds 20 ms has its wait in that bucket (the
# bucket's edges are read from the report), and the sum is at least 20 ms a sleep and at most the sleeps'
# own time plus the other waits (preemptions: at most max_ns each). A
# sleep the task was preempted in before it blocked has a wait that began
# at the preemption (shorter): at most the sleeper's own count of
# involuntary switches. The lower bounds also allow the arrivals the
# kernel counts without an event (runq "merged", see runq_oracle); both
# are measured in the same run.
. "$(dirname "$0")/../lib.sh"
need_root

start_sh off -M offcpu,runq -k comm -j
remember_ids
"$HELPERS/sleeper" -m 20 -t 2 -N sleeper20 >"$TMP/sleep.out" || fail "sleeper failed"
stop_sh "$SH_PID" || fail "schedhist exited with $?"
assert_unloaded $SH_IDS

python3 - "$TMP/off.out" "$TMP/sleep.out" <<'PY'
import json, sys
reports = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
r = [x for x in reports if x["metric"] == "offcpu"][-1]
merged = [x for x in reports if x["metric"] == "runq"][-1]["events"]["merged"]
assert r["key"] == "comm"
g = [g for g in r["groups"] if g["key"] == "sleeper20"]
assert g, "sleeper20 missing"
g = g[0]
f = open(sys.argv[2]).read().split()
n, own_sum = int(f[f.index("slept") + 1]), int(f[f.index("sum_ns") + 1])
durations = [int(d) for d in f[f.index("durations") + 1].split(",")]
preempted = int(f[f.index("nivcsw") + 1])
# the bucket [lo_ns, hi_ns) that holds 20 ms
b20 = [b for b in g["buckets"] if b["lo_ns"] <= 20_000_000 < (b["hi_ns"] or 1 << 64)]
lo, hi = (b20[0]["lo_ns"], b20[0]["hi_ns"]) if b20 else (0, 0)
inb = b20[0]["count"] if b20 else 0
short = sum(1 for d in durations if d < hi)
print(f"sleeper20: {g['count']} waits, {inb} in [{lo}, {hi}) ns; it slept {n} times, "
      f"{short} of them shorter than {hi} ns; preempted {preempted}, merged {merged}")
assert g["count"] >= n - merged, "fewer waits than sleeps"
assert lo <= 20_000_000, "no bucket holds 20 ms"
assert inb >= short - preempted - merged, "a sleep within the 20 ms bucket has its wait outside it"
extra = g["count"] - (n - merged)
low = 20_000_000 * (n - merged - preempted)
print(f"sum {g['sum_ns']} ns: want {low}..{own_sum + extra * g['max_ns']}")
assert low <= g["sum_ns"] <= own_sum + extra * g["max_ns"]
PY
