#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Percentiles that do not lie: threads sleeping 1 ms, 10 ms and 100 ms in a
# loop, each timing its own sleeps. Under offcpu keyed by tid every p50
# and p99 lies within [min_ns, max_ns] of the thread's own waits (the
# kernel's exact min and max), and the 100 ms sleeper's p50 is within 2 %
# of the median the thread measured itself (the log2 bucket alone,
# [67, 134) ms, would put it at 83.8 ms).
# The instance traces only the sleepers' cgroup: host-wide, a busy host's
# new tids drain the key map's allocator and a new key's waits go to
# [other] (no_mem, counted), the sleepers' too.
. "$(dirname "$0")/../lib.sh"
need_root
own_cgroup schedhist-pct

# each sleeper waits for SIGUSR1 from before schedhist attaches: that
# wait has no switch-out seen and is not recorded, so the thread's
# recorded waits are its timed sleeps (and any preemption between them)
declare -A ST
for ms in 1 10 100; do
	n=$(( ms == 1 ? 301 : ms == 10 ? 101 : 21 ))
	sh -c "$JOIN_CGROUP" "$OWN" "$HELPERS/selftimer" -m $ms -n $n -N st$ms >"$TMP/st$ms.out" &
	ST[$ms]=$!
	CHILD_PIDS+=($!)
done
# "ready" comes before sigwait: a busy host can keep a sleeper from
# blocking until after schedhist attaches, and that wait would be
# recorded. So each must be blocked in sigwait (its wchan, which the kernel
# reports only for a task off its run queue) before the attach, and its
# voluntary switches, read then and after the attach, say whether its
# switch-out came after all (LATE: one more recorded wait).
# The preemptions are the kernel's nonvoluntary_ctxt_switches from then to
# after schedhist stopped (each sleeper waits in sigwait again after its
# report): the helper's own count covers its loop only, not the moments
# after the signal and around its report.
switches() { awk "/^$2/ {print \$2}" "/proc/$1/task/$1/status"; }
blocked() {	# blocked MS: sleeper MS waits in sigwait
	local i
	for i in $(seq 1 600); do	# a hang guard, not a bound on speed
		grep -q sigtimedwait "/proc/${ST[$1]}/task/${ST[$1]}/wchan" && return 0
		sleep 0.1
	done
	fail "st$1 did not block in sigwait within 60 s"
}
declare -A V0 I0 LATE PRE
for ms in 1 10 100; do
	wait_for "$TMP/st$ms.out" '^ready'
	blocked $ms
	V0[$ms]=$(switches "${ST[$ms]}" voluntary_ctxt_switches)
	I0[$ms]=$(switches "${ST[$ms]}" nonvoluntary_ctxt_switches)
done
start_sh off -M offcpu -k tid -j "${OWN_FILTER[@]}"
for ms in 1 10 100; do
	LATE[$ms]=$(( $(switches "${ST[$ms]}" voluntary_ctxt_switches) - V0[$ms] ))
done
for ms in 1 10 100; do kill -USR1 "${ST[$ms]}"; done
for ms in 1 10 100; do wait_for "$TMP/st$ms.out" '^tid'; blocked $ms; done
stop_sh "$SH_PID" || fail "schedhist exited with $?"
for ms in 1 10 100; do
	PRE[$ms]=$(( $(switches "${ST[$ms]}" nonvoluntary_ctxt_switches) - I0[$ms] ))
	kill -USR1 "${ST[$ms]}"
done
wait "${ST[@]}" || fail "a sleeper failed"

python3 - "$TMP" "${LATE[1]}" "${LATE[10]}" "${LATE[100]}" \
	"${PRE[1]}" "${PRE[10]}" "${PRE[100]}" <<'PY'
import json, sys
tmp = sys.argv[1]
late = dict(zip((1, 10, 100), map(int, sys.argv[2:5])))
preempted = dict(zip((1, 10, 100), map(int, sys.argv[5:8])))
r = json.loads(open(f"{tmp}/off.out").read().splitlines()[-1])
groups = {g["key"]: g for g in r["groups"]}
bad = []
# the instance sees the sleepers' three keys only: no overflow
if r["events"].get("map_full") or r["events"].get("no_mem"):
    bad.append(f"keys overflowed: {r['events']}")
for ms in (1, 10, 100):
    f = [l for l in open(f"{tmp}/st{ms}.out").read().splitlines() if l.startswith("tid ")][0].split()
    own = dict(zip(f[0::2], f[1::2]))
    tid, n, med, nivcsw = own["tid"], int(own["n"]), int(own["median"]), int(own["nivcsw"])
    g = groups.get(tid)
    if not g:
        bad.append(f"st{ms}: tid {tid} not in the report")
        continue
    print(f"st{ms}: count {g['count']} (slept {n}, involuntary switches {nivcsw}) "
          f"min {g.get('min_ns')} p50 {g['p50_ns']} p99 {g['p99_ns']} max {g['max_ns']}, "
          f"own median {med}")
    if "min_ns" not in g:
        bad.append(f"st{ms}: no min_ns")
        continue
    # a preemption between two sleeps is one more (short) wait of its own;
    # a switch-in the program did not see loses its offcpu wait, counted
    # as merged (of all tasks: the bound, from the same report)
    merged = r["events"].get("merged", 0)
    # and a sigwait blocked in after the attach is one more
    if not n - merged <= g["count"] <= n + preempted[ms] + late[ms]:
        bad.append(f"st{ms}: {g['count']} waits, slept {n} times ({preempted[ms]} preemptions, "
                   f"{merged} merged, {late[ms]} sigwait after the attach)")
    for p in ("p50_ns", "p90_ns", "p99_ns", "p999_ns"):
        if not g["min_ns"] <= g[p] <= g["max_ns"]:
            bad.append(f"st{ms}: {p} {g[p]} outside [{g['min_ns']}, {g['max_ns']}]")
    if ms == 100 and nivcsw == 0 and abs(g["p50_ns"] - med) > 0.02 * med:
        bad.append(f"st100: p50 {g['p50_ns']} is not within 2 % of the thread's own median {med}")
    # the kernel's off-CPU wait is inside the thread's own timing of each sleep
    if g["max_ns"] > int(own["max"]):
        bad.append(f"st{ms}: max_ns {g['max_ns']} above the longest sleep timed, {own['max']}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
