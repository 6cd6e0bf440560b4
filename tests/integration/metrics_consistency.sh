#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The three metrics, measured at once on the same tasks, fit together: for
# a task that sleeps and then waits for a CPU, off-CPU wait = blocked time
# + run-queue latency, wait by wait. A 20 ms sleeper competing with pinned
# spinners on its CPU: counts equal, sums add up within 1%, and the blocked
# waits sit in the 20 ms bucket.
. "$(dirname "$0")/../lib.sh"
need_root

"$HELPERS/spinners" -n 2 -c 1 -t 3.5 -d 60 -N mspin -x >/dev/null &
CHILD_PIDS+=($!)
start_sh off -M offcpu -k comm -j
start_sh blk -M blocked -k comm -j
start_sh rq -M runq -k comm -j
taskset -c 1 "$HELPERS/sleeper" -m 20 -t 2 -N msleep >"$TMP/sleep.out" || fail "sleeper failed"
for p in "${SH_PIDS[@]}"; do stop_sh "$p" || fail "schedhist exited with $?"; done
python3 - "$TMP" <<'PY'
import json, sys
t = sys.argv[1]
f = open(f"{t}/sleep.out").read().split()
# a preemption of the sleeper (its own count of involuntary switches)
# ends a wait that is offcpu and runq but not blocked
preempted = int(f[f.index("nivcsw") + 1])
g = {}
for m in ("off", "blk", "rq"):
    r = json.loads(open(f"{t}/{m}.out").read().splitlines()[-1])
    g[m] = [x for x in r["groups"] if x["key"] == "msleep"][0]
    print(m, g[m]["count"], g[m]["sum_ns"], g[m]["max_ns"])
off, blk, rq = g["off"], g["blk"], g["rq"]
# the sleeper's first wake-up and last sleep may fall on either side
assert abs(off["count"] - rq["count"]) <= 2
assert -2 <= off["count"] - blk["count"] <= 2 + preempted
s = blk["sum_ns"] + rq["sum_ns"]
print(f"offcpu {off['sum_ns']} vs blocked + runq {s} ({off['sum_ns'] / s:.4f})")
assert 0.99 <= off["sum_ns"] / s <= 1.01
inb = sum(b["count"] for b in blk["buckets"] if b["lo_ns"] <= 20000000 < b["hi_ns"])
assert inb >= 0.95 * blk["count"], "blocked waits outside the 20 ms bucket"
assert rq["sum_ns"] > 0
PY
