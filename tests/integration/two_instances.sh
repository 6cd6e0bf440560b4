#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Two instances with different metrics and keys at once, and stopping one
# does not disturb the other:
#   A: -M runq -k tid      checked against the spinners' own schedstat
#   B: -M offcpu -k comm -i 0.5   a 20 ms sleeper lands in the 20 ms bucket
# A is stopped while B runs: A's programs are gone, B's are still loaded,
# B keeps its 0.5 s cadence across the stop, its reports after the stop
# still see the sleeper, and its identity holds over the whole run.
. "$(dirname "$0")/../lib.sh"
need_root
[ -r /proc/self/schedstat ] || skip "kernel without schedstat (CONFIG_SCHED_INFO)"

start_sh a -M runq -k tid -j
A=$SH_PID
remember_ids
ids_a=$SH_IDS
start_sh b -M offcpu -k comm -i 0.5 -j
B=$SH_PID
remember_ids
ids_b=$SH_IDS
"$HELPERS/sleeper" -m 20 -t 4 -N tsleep2 >/dev/null &
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
wait $SL
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
python3 "$(dirname "$0")/../identity.py" "$TMP/b.out" --min-reports 6 || fail "B: identity"
python3 - "$TMP/b.out" "$stop_at" <<'PY' || fail "B disturbed"
import datetime, json, sys
reports = [json.loads(l) for l in open(sys.argv[1])]
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
    assert g, f"B at {r['time']} (after A stopped): the sleeper is missing"
    inb = sum(b["count"] for b in g[0]["buckets"] if b["lo_ns"] <= 20000000 < b["hi_ns"])
    assert g[0]["count"] >= 15 and inb >= 0.9 * g[0]["count"], g[0]
print(f"B: {len(after)} reports after A stopped, each with ~25 sleeper waits in the 20 ms bucket")
PY
