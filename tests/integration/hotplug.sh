#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# CPU hotplug: cpu1 goes offline and comes back while two instances run.
#   cpu  -M runq -k cpu -i 0.5 --cumulative -j
#   tid  -M runq -k tid -j          (schedstat oracle)
# Spinners pinned to cpu0, and spinners on cpu1 that the kernel moves to
# cpu0 when cpu1 goes. The run goes on (reports every 0.5 s throughout),
# per-CPU values of the offline CPU stay in the sums: cpu1's cumulative
# count never drops and does not move while it is offline; the identity
# holds; each spinner's runq count and sum match its own schedstat.
# cpu1 is always brought back online, whatever happens (trap).
. "$(dirname "$0")/../lib.sh"
need_root
ONLINE=/sys/devices/system/cpu/cpu1/online
[ -r /proc/self/schedstat ] || skip "kernel without schedstat (CONFIG_SCHED_INFO)"
[ -w "$ONLINE" ] || skip "cpu1 cannot be taken offline here (no writable $ONLINE)"
[ "$(cat $ONLINE)" = 1 ] || skip "cpu1 is offline already"
test_cleanup() { echo 1 >"$ONLINE" 2>/dev/null; }
trap 'exit 1' INT TERM HUP	# so that the EXIT trap (cleanup) runs

start_sh cpu -M runq -k cpu -i 0.5 --cumulative -j
CPU=$SH_PID
start_sh tid -M runq -k tid -j
TID=$SH_PID
"$HELPERS/spinners" -n 2 -c 0 -t 4.5 -N hp0 -x >"$TMP/spin0.out" &
S0=$!
"$HELPERS/spinners" -n 2 -c 1 -t 4.5 -N hp1 -x >"$TMP/spin1.out" &
S1=$!
CHILD_PIDS+=($S0 $S1)
sleep 1
if ! echo 0 >"$ONLINE" 2>"$TMP/off.err"; then
	skip "the kernel refused to take cpu1 offline: $(cat "$TMP/off.err")"
fi
off_at=$(date -u +%s.%N)
sleep 2
on_at=$(date -u +%s.%N)
echo 1 >"$ONLINE" || fail "cannot bring cpu1 back online"
wait $S0 $S1 || fail "spinners failed"
for p in $CPU $TID; do
	kill -0 "$p" 2>/dev/null || fail "schedhist $p died across the hotplug: $(cat "$TMP"/*.err)"
	stop_sh "$p" || fail "schedhist $p exited with $?"
done

python3 "$(dirname "$0")/../identity.py" "$TMP/cpu.out" --cumulative --min-reports 8 || fail "identity"
python3 - "$TMP/cpu.out" "$off_at" "$on_at" <<'PY' || fail "per-CPU sums across the hotplug"
import datetime, json, sys
reports = [json.loads(l) for l in open(sys.argv[1])]
off, on = float(sys.argv[2]), float(sys.argv[3])
def ts(r):
    return datetime.datetime.strptime(r["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()
def cpu(r, c):
    return sum(g["count"] for g in r["groups"] if g["key"] == str(c))
times = [ts(r) for r in reports]
gaps = [b - a for a, b in zip(times, times[1:-1])]
print(f"{len(reports)} reports, gaps {min(gaps):.3f} .. {max(gaps):.3f} s")
assert max(gaps) < 0.8, "reports stalled across the hotplug"
c1 = [cpu(r, 1) for r in reports]
print("cpu1 cumulative counts:", c1)
assert c1 == sorted(c1), "cpu1's count went down: its per-CPU values were lost"
# readings strictly inside the offline window (after the teardown settled)
inside = [c for c, t in zip(c1, times) if off + 0.2 < t < on]
assert len(inside) >= 2, "no reading while cpu1 was offline"
assert len(set(inside)) == 1, f"cpu1 counted waits while offline: {inside}"
assert c1[-1] > inside[-1], "no waits on cpu1 after it came back"
assert cpu(reports[-1], 0) > 0
PY
cat "$TMP/spin0.out" "$TMP/spin1.out" >"$TMP/spin.out"
python3 - "$TMP/tid.out" "$TMP/spin.out" <<'PY' || fail "per-thread runq vs schedstat across the hotplug"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
groups = {g["key"]: g for g in r["groups"]}
for line in open(sys.argv[2]):
    f = line.split()
    tid, run_delay, pcount, comm = f[1], int(f[3]), int(f[5]), f[7]
    g = groups[tid]
    print(f"{comm} tid {tid}: count {g['count']} (pcount {pcount}), "
          f"sum {g['sum_ns']} (run_delay {run_delay}, ratio {g['sum_ns'] / run_delay:.4f})")
    # pcount may run ahead by switch-ins no sched_switch event showed
    # (migrations: the hotplug forces them), counted as events.merged;
    # and the thread may wait a few times between reading its schedstat and
    # exiting
    assert pcount - r["events"]["merged"] <= g["count"] <= pcount + 3
    assert 0.97 <= g["sum_ns"] / run_delay <= 1.03
PY
