#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The kernel is the oracle: two CPU-bound threads pinned to one CPU take
# turns on its run queue; under -M runq -k tid each thread's count and
# sum_ns must match the deltas of its own schedstat pcount (3rd field) and
# run_delay (2nd field), which it reads for itself. The threads are born
# after schedhist attached and block before it stops, so both see the
# same waits.
. "$(dirname "$0")/../lib.sh"
need_root
[ -r /proc/self/schedstat ] || skip "kernel without schedstat (CONFIG_SCHED_INFO)"

start_sh runq -M runq -k tid -j
remember_ids
"$HELPERS/spinners" -n 2 -c 0 -t 3 >"$TMP/spin.out" &
CHILD_PIDS+=($!)
for i in $(seq 1 100); do
	[ "$(wc -l <"$TMP/spin.out")" -ge 2 ] && break
	sleep 0.1
done
[ "$(wc -l <"$TMP/spin.out")" -ge 2 ] || fail "spinners did not report"
stop_sh "$SH_PID" || fail "schedhist exited with $?"
assert_unloaded $SH_IDS

python3 - "$TMP/runq.out" "$TMP/spin.out" <<'PY' || exit 1
import json, sys
reports = [json.loads(l) for l in open(sys.argv[1])]
assert len(reports) == 1, f"want one report at SIGINT, got {len(reports)}"
r = reports[0]
assert r["metric"] == "runq" and r["key"] == "tid"
groups = {g["key"]: g for g in r["groups"]}
bad = 0
for line in open(sys.argv[2]):
    f = line.split()
    tid, run_delay, pcount = f[1], int(f[3]), int(f[5])
    g = groups.get(tid)
    if g is None:
        print(f"tid {tid} missing from the report"); bad += 1; continue
    ratio = g["sum_ns"] / run_delay
    print(f"tid {tid}: count {g['count']} vs pcount {pcount}; sum_ns {g['sum_ns']} vs run_delay {run_delay} (ratio {ratio:.4f})")
    if abs(g["count"] - pcount) > max(2, pcount * 0.02):
        print("  count disagrees with schedstat"); bad += 1
    if not 0.97 <= ratio <= 1.03:
        print("  sum_ns disagrees with run_delay by more than 3%"); bad += 1
    if pcount < 50:
        print("  too few timeslices for a meaningful check"); bad += 1
    if g["max_tid"] != int(tid) or g["max_comm"] != "spinner":
        print(f"  worst offender {g.get('max_tid')} {g.get('max_comm')} is not the thread itself"); bad += 1
ev, lost = r["events"], r["lost"]
if ev["seen"] != ev["recorded"] + lost["no_start"] + lost["filtered"] + lost["dropped"]:
    print(f"accounting identity broken: {ev} {lost}"); bad += 1
sys.exit(1 if bad else 0)
PY
