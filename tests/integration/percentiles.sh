#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Percentiles that do not lie: threads sleeping 1 ms, 10 ms and 100 ms in a
# loop, each timing its own sleeps. Under offcpu keyed by tid every p50
# and p99 lies within [min_ns, max_ns] of the thread's own waits (the
# kernel's exact min and max), and the 100 ms sleeper's p50 is within 2 %
# of the median the thread measured itself (the log2 bucket alone,
# [67, 134) ms, would put it at 83.8 ms).
. "$(dirname "$0")/../lib.sh"
need_root

# each sleeper waits for SIGUSR1 from before schedhist attaches: that
# wait has no switch-out seen and is not recorded, so the thread's
# recorded waits are its timed sleeps (and any preemption between them)
declare -A ST
for ms in 1 10 100; do
	n=$(( ms == 1 ? 301 : ms == 10 ? 101 : 21 ))
	"$HELPERS/selftimer" -m $ms -n $n -N st$ms >"$TMP/st$ms.out" &
	ST[$ms]=$!
	CHILD_PIDS+=($!)
done
for ms in 1 10 100; do wait_for "$TMP/st$ms.out" '^ready'; done
start_sh off -M offcpu -k tid -j
for ms in 1 10 100; do kill -USR1 "${ST[$ms]}"; done
wait "${ST[@]}" || fail "a sleeper failed"
stop_sh "$SH_PID" || fail "schedhist exited with $?"

python3 - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
r = json.loads(open(f"{tmp}/off.out").read().splitlines()[-1])
groups = {g["key"]: g for g in r["groups"]}
bad = []
for ms in (1, 10, 100):
    f = open(f"{tmp}/st{ms}.out").read().splitlines()[-1].split()
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
    if not n - merged <= g["count"] <= n + nivcsw:
        bad.append(f"st{ms}: {g['count']} waits, slept {n} times ({nivcsw} preemptions, "
                   f"{merged} merged)")
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
