#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# A thread sleeping 20 ms in a loop, under offcpu keyed by comm. The
# sleeper times each of its sleeps itself; each sleep's off-CPU wait lies
# between the 20 ms asked for and that sleep's own time, so on any host,
# idle or busy: one wait at least per sleep, every sleep that took less
# than 2^25 ns has its wait in the [2^24, 2^25) ns = [16.8 ms, 33.6 ms)
# bucket, and the sum is at least 20 ms a sleep and at most the sleeps'
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
own = dict(map(int, kv.split(":")) for kv in f[f.index("log2") + 1].split(","))
preempted = int(f[f.index("nivcsw") + 1])
inb = sum(b["count"] for b in g["buckets"] if b["lo_ns"] == 1 << 24 and b["hi_ns"] == 1 << 25)
print(f"sleeper20: {g['count']} waits, {inb} in [16.8 ms, 33.6 ms); it slept {n} times, "
      f"{own.get(24, 0)} of them shorter than 33.6 ms; preempted {preempted}, merged {merged}")
assert g["count"] >= n - merged, "fewer waits than sleeps"
assert inb >= own.get(24, 0) - preempted - merged, "a sleep shorter than 33.6 ms has its wait outside that bucket"
extra = g["count"] - (n - merged)
low = 20_000_000 * (n - merged - preempted)
print(f"sum {g['sum_ns']} ns: want {low}..{own_sum + extra * g['max_ns']}")
assert low <= g["sum_ns"] <= own_sum + extra * g["max_ns"]
PY
