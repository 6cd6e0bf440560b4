#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --culprit-mode time against the kernel's own sched_switch trace: the
# mixload workload (a CPU-bound victim, a hog with whole slices and a task
# with short bursts, all pinned to CPU 0) runs under tests/culprit_oracle.py
# (ftrace, a trace instance of its own) while schedhist blames the
# victim's run-queue waits by time. Each culprit's share of the victim's
# waited time is within 5 points of the time the trace shows that task
# running on CPU 0 during those waits, whoever else the host runs there
# (the oracle names every task, by comm, as schedhist's -k comm does);
# [rest] is within 5 points of what the oracle gives to the tasks not
# named; the part the runs' ring no longer held is counted as
# [unattributed]. The same run's text and Prometheus outputs say the mode.
# Only the workload's waits are blamed (-c, its own cgroup): the culprit
# map then holds its pairs alone, whatever keys the host's other tasks
# make (by time, a wait makes a pair with every key that ran during it);
# the culprits are every task of the CPU, in the cgroup or not.
. "$(dirname "$0")/../lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

cgroup_v2_or_cpu
CG=$MNT/schedhist-ctime-$$
test_cleanup() { remove_cgroup_tree "$CG"; }
mkdir -p "$CG/w" || fail "cannot create a cgroup under $MNT"
FILTER=(-c "$CG" "${HIER[@]}")
# reports every second: the poller removes the pairs idle for an
# interval from the kernel's map (--cumulative keeps their totals)
start_sh time -M runq -k comm --culprits --culprit-mode time -j --cumulative -i 1 "${FILTER[@]}"
TIME=$SH_PID
start_sh switch -M runq -k comm --culprits -j --cumulative -i 1 "${FILTER[@]}"
SWITCH=$SH_PID
start_sh txt -M runq -k comm --culprits --culprit-mode time -i 3600 "${FILTER[@]}"
TXT=$SH_PID
# fleet mode runs as nobody once attached: its directory must let it write
mkdir -p "$TMP/out"
chmod 0711 "$TMP"
chown nobody "$TMP/out"
start_sh prom -M runq -k comm --culprits --culprit-mode time --prom-file "$TMP/out/m.prom" -i 1 \
	"${FILTER[@]}"
PROM=$SH_PID
not_reports "$TMP/oracle.json"	# the oracle's result, not a report
# pinned before it joins the cgroup: the shell that moves itself in (and
# every thread of the process it becomes) never runs on the other CPU
python3 tests/culprit_oracle.py --cpus 0 --victim mixvictim --out "$TMP/oracle.json" -- \
	taskset -c 0 sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/w" \
	"$HELPERS/mixload" -c 0 -t 3 >"$TMP/mix.out" || fail "the oracle failed"
# one more --prom-file write with the workload's whole run in it
sleep 1.5
cp "$TMP/out/m.prom" "$TMP/m.prom.last"
for p in $TIME $SWITCH $TXT $PROM; do stop_sh "$p" || fail "schedhist exited with $?"; done
grep -q '^done mixvictim' "$TMP/mix.out" || fail "mixload did not finish"

python3 - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
o = json.load(open(f"{tmp}/oracle.json"))
bad = []
def victim(name):
    r = json.loads(open(f"{tmp}/{name}.out").read().splitlines()[-1])
    g = [g for g in r["groups"] if g["key"] == "mixvictim"]
    if not g or "culprits" not in g[0]:
        sys.exit(f"FAIL: {name}: no mixvictim group with culprits")
    return r, g[0]
r, g = victim("time")
rs, gs = victim("switch")
if g.get("culprit_mode") != "time" or gs.get("culprit_mode") != "switch":
    bad.append(f"culprit_mode {g.get('culprit_mode')} and {gs.get('culprit_mode')}")
# Both measure the same waits: the victim's switch-ins under its name,
# from its preemption to its switch-in (run_delay's definition), less
# those schedhist could not time (merged into the next, no start: counted)
ev = r["events"]
slack = ev.get("merged", 0) + ev["no_start"]
print(f"waits: schedhist {g['count']} ({g['sum_ns']} ns), oracle {o['waits']} "
      f"({o['wait_ns']} ns); merged + no_start {slack}")
if abs(g["count"] - o["waits"]) > slack:
    bad.append(f"schedhist has {g['count']} waits of the victim, the trace {o['waits']}")
tot, otot = g["sum_ns"], o["wait_ns"]
ran = dict(o["ran_ns"])
def show(gr):
    return ", ".join(f"{c['key']} {100 * c['sum_ns'] / gr['sum_ns']:.1f}% ({c['count']})"
                     for c in gr["culprits"])
top = sorted(ran.items(), key=lambda x: -x[1])
print("oracle: " + ", ".join(f"{k} {100 * v / otot:.1f}%" for k, v in top[:6]) +
      f"; not known {100 * o['gap_ns'] / otot:.2f}%")
print("time:   " + show(g))
print("switch: " + show(gs))
# The tolerance, 5 points: both sides measure the same waits on the same
# CPU with the same clock source; what one side cannot say is counted, in
# the same run: the trace's switches it left out (gap_ns) and the runs
# schedhist's ring no longer held ([unattributed]). Together they stay
# within it, so that every share that disagrees by more is an error.
un = sum(c["sum_ns"] for c in g["culprits"] if c["key"] == "[unattributed]") / tot
if un + o["gap_ns"] / otot > 0.05:
    bad.append(f"[unattributed] {100 * un:.1f}% and the trace's unknown "
               f"{100 * o['gap_ns'] / otot:.1f}% exceed the 5-point tolerance")
named = {c["key"] for c in g["culprits"] if c["key"] not in ("[rest]", "[unattributed]")}
for c in g["culprits"]:
    if c["key"] == "[unattributed]":
        continue
    if c["key"] == "[rest]":
        want = sum(v for k, v in ran.items() if k not in named) / otot
    else:
        want = ran.get(c["key"], 0) / otot
    got = c["sum_ns"] / tot
    if abs(got - want) > 0.05:
        bad.append(f"{c['key']}: {100 * got:.1f}% of the wait, the trace {100 * want:.1f}%")
# the workload's own tasks: the hog and the burster ran during the waits
# (the trace says how much), each is a culprit of its share
for k in ("mixhog", "mixburst"):
    if ran.get(k, 0) / otot > 0.05 and k not in named:
        bad.append(f"{k} ran {100 * ran[k] / otot:.1f}% of the wait and is not a culprit")
# the default mode blames whole waits: it is not what this test checks,
# but its shares, beside, show what the trace tells apart
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
[ $? -eq 0 ] || fail "shares by time disagree with the trace"
grep -q '^waited behind, by time: ' "$TMP/txt.out" || fail "text: no 'waited behind, by time' line"
grep -q 'culprit_mode="time"' "$TMP/m.prom.last" || fail "--prom-file: no culprit_mode=\"time\" label"
grep -q '^schedhist_culprit_wait_seconds_total{.*key="mixvictim".*culprit="mixhog",culprit_mode="time"}' \
	"$TMP/m.prom.last" || fail "--prom-file: no series of mixvictim behind mixhog"
