#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Throttling in fleet mode (the workload of throttle.sh): cgroup t is
# limited to 10 % of one CPU and runs a CPU-bound thread on CPU 0; cgroup
# u, without a limit, runs two on CPU 1. Between two scrapes,
# schedhist_cgroup_throttled_seconds_total and _throttled_periods_total of
# t advance by exactly as much as t's own cpu.stat, read by this test; u's
# stay at zero while it has run-queue waits; the cpu.pressure counters are there exactly where the
# cgroup has a cpu.pressure file (absent, not zero, on cgroup v1); the
# text and OpenMetrics scrapes agree.
#
# Each scrape is taken while the spinners are stopped (SIGSTOP) and their
# cgroups' counters have settled: the kernel adds throttled time when it
# unthrottles a cgroup with runnable tasks, so with none they stay put, the
# value the test reads is the value of every reading schedhist takes until
# the spinners go on, and the two must agree to the nanosecond, whatever
# the speed of the machine or the timing of the readings.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
CHECK=tests/prom-check.py

PERIOD_US=100000 QUOTA_US=10000
quota_cgroups schedhist-pthr "$PERIOD_US" "$QUOTA_US"
test_cleanup() { remove_cgroup_tree "$PARENT"; }

# cg_stat X: "nr_throttled throttled_ns" of cgroup X (v2 throttled_usec, v1 throttled_time)
cg_stat() {
	awk '$1 == "nr_throttled" {n = $2} $1 == "throttled_usec" {t = $2 * 1000}
	     $1 == "throttled_time" {t = $2} END {printf "%d %.0f\n", n, t}' "$PARENT/$1/cpu.stat"
}
# settle: the spinners are stopped; until t's and u's counters hold still
# for 0.3 s (a throttled cgroup is unthrottled, and its time added, within
# a period, 0.1 s). A hang guard of 12 s, not a bound on speed.
settle() {
	local before now i
	before="$(cg_stat t) $(cg_stat u)"
	for i in $(seq 1 40); do
		sleep 0.3
		now="$(cg_stat t) $(cg_stat u)"
		[ "$now" = "$before" ] && return 0
		before=$now
	done
	fail "the stopped cgroups' cpu.stat still moves: $now"
}
# reports N: wait until the JSON output has N more lines (a reading each)
reports() {
	local n i
	n=$(wc -l <"$TMP/thr.out")
	for i in $(seq 1 1200); do
		[ "$(wc -l <"$TMP/thr.out")" -ge $((n + $1)) ] && return 0
		sleep 0.05
	done
	fail "no new report within 60 s"
}
# snap I: settled counters, then two readings by schedhist, then the scrape;
# the counters again after it (they must not have moved)
snap() {
	settle
	cg_stat t >"$TMP/t$1.before"
	cg_stat u >"$TMP/u$1.before"
	# the exporter publishes a reading right after printing its report:
	# after two more reports it has published one taken after the read above
	reports 2
	scrape "$port" >"$TMP/s$1.txt"
	scrape "$port" -H 'Accept: application/openmetrics-text;version=1.0.0' >"$TMP/om$1.txt"
	cg_stat t >"$TMP/t$1.after"
	cg_stat u >"$TMP/u$1.after"
	cmp -s "$TMP/t$1.before" "$TMP/t$1.after" && cmp -s "$TMP/u$1.before" "$TMP/u$1.after" ||
		fail "cpu.stat moved during scrape $1 with the spinners stopped"
}

port=$(free_port)
start_sh thr -M runq -k cgroup -i 0.3 -j --print --listen ":$port" "${HIER[@]}"
sh=$SH_PID
in_cgroup "$PARENT/t" taskset -c 0 "$HELPERS/spinners" -n 1 -c 0 -t 1000 -N pthrT >"$TMP/t.out" &
CHILD_PIDS+=($!)
in_cgroup "$PARENT/u" taskset -c 1 "$HELPERS/spinners" -n 2 -c 1 -t 1000 -N pthrU >"$TMP/u.out" &
CHILD_PIDS+=($!)
# the spinner processes themselves (in_cgroup runs in a subshell of its own;
# cgroupfs files have no size: read them)
spinners() { cat "$PARENT/t/cgroup.procs" "$PARENT/u/cgroup.procs"; }
for i in $(seq 1 200); do
	[ "$(spinners | wc -l)" -eq 2 ] && break
	sleep 0.05
done
[ "$(spinners | wc -l)" -eq 2 ] || fail "the spinners did not join their cgroups"
# both are exported (they waited) and have had a first reading of their files
reports 3
sleep 1
kill -STOP $(spinners)
snap 1
kill -CONT $(spinners)
sleep 2
kill -STOP $(spinners)
snap 2
kill -CONT $(spinners)
stop_sh "$sh" || fail "schedhist exited with $?"
for i in 1 2; do
	python3 "$CHECK" "$TMP/s$i.txt" || fail "exposition check of scrape $i failed"
	python3 "$CHECK" --openmetrics "$TMP/om$i.txt" || fail "OpenMetrics check of scrape $i failed"
done
python3 "$CHECK" --monotone "$TMP/s1.txt" "$TMP/s2.txt" || fail "a counter went backwards"
# which cpu.pressure totals the kernel gives (none on v1; a cgroup2 file may
# be there and unreadable, with cgroup.pressure 0)
psi=
for x in some full; do
	grep -q "^$x .*total=" "$PARENT/t/cpu.pressure" 2>/dev/null && psi="$psi $x"
done

python3 - "$TMP" "$PARENT" "$MNT" "$psi" <<'PY'
import re, sys
tmp, parent, mnt, psi = sys.argv[1:]
psi = psi.split()
rel = parent[len(mnt):]
LINE = re.compile(r'^(\w+)\{(.*)\} (\S+)$')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
FAMS = ["throttled_periods_total", "throttled_seconds_total", "pressure_some_seconds_total",
        "pressure_full_seconds_total"]

def scrape(path):
    """{(family, key): value} of the cgroup counters."""
    out = {}
    for l in open(path).read().splitlines():
        m = LINE.match(l)
        if m and m.group(1).startswith("schedhist_cgroup_"):
            d = dict(LABEL.findall(m.group(2)))
            if d.get("metric") != "runq" or d.get("key_type") != "cgroup":
                sys.exit(f"cgroup counter with labels {d}")
            out[(m.group(1)[len("schedhist_cgroup_"):], d["key"])] = float(m.group(3))
    return out

def stat(x, i):
    n, t = (int(v) for v in open(f"{tmp}/{x}{i}.before").read().split())
    return n, t

bad = []
s = {i: scrape(f"{tmp}/s{i}.txt") for i in (1, 2)}
for i in (1, 2):
    if scrape(f"{tmp}/om{i}.txt") != s[i]:
        bad.append(f"scrape {i}: OpenMetrics and text differ")
t, u = f"{rel}/t", f"{rel}/u"
for key in (t, u):
    for f in FAMS:
        for i in (1, 2):
            present = (f, key) in s[i]
            want = f.startswith("throttled") or f.split("_")[1] in psi
            if present != want:
                bad.append(f"scrape {i}: {f} of {key} {'present' if present else 'absent'}, "
                           f"cpu.pressure totals: {psi or 'none'}")
(n1, t1), (n2, t2) = stat("t", 1), stat("t", 2)
print(f"t: cpu.stat {n1} -> {n2} periods, {t1} -> {t2} ns throttled; "
      f"scrapes {s[1].get(('throttled_periods_total', t))} -> {s[2].get(('throttled_periods_total', t))}"
      f" periods, {s[1].get(('throttled_seconds_total', t))} -> "
      f"{s[2].get(('throttled_seconds_total', t))} s")
if t2 - t1 <= 0 or n2 - n1 <= 0:
    bad.append("t was not throttled between the scrapes")
if not bad:
    ds = s[2][("throttled_seconds_total", t)] - s[1][("throttled_seconds_total", t)]
    dn = s[2][("throttled_periods_total", t)] - s[1][("throttled_periods_total", t)]
    # the values are exact decimals of ns; the difference of two doubles
    # near a few seconds is good to 1e-9 relative
    if abs(ds * 1e9 - (t2 - t1)) > 1 + 1e-9 * t2:
        bad.append(f"t: throttled seconds advanced {ds} s, cpu.stat {(t2 - t1) / 1e9} s")
    if dn != n2 - n1:
        bad.append(f"t: throttled periods advanced {dn}, cpu.stat {n2 - n1}")
    if stat("u", 1) != (0, 0) or stat("u", 2) != (0, 0):
        bad.append(f"u: cpu.stat says throttled without a quota: {stat('u', 2)}")
    # u is contended instead: two threads on one CPU wait for it
    waits = [float(l.split()[-1]) for l in open(f"{tmp}/s2.txt")
             if l.startswith(f'schedhist_wait_seconds_count{{metric="runq",key_type="cgroup",key="{u}"')]
    if not waits or not waits[0]:
        bad.append("u: no run-queue waits")
    for i in (1, 2):
        for f in ("throttled_seconds_total", "throttled_periods_total"):
            if s[i][(f, u)] != 0:
                bad.append(f"scrape {i}: u's {f} is {s[i][(f, u)]}, not 0")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
