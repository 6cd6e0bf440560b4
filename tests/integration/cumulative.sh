#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Two instances over the same workload: interval reports (-i) of one add up
# exactly to the final cumulative report of the other for threads born
# after both attached; cumulative reports are monotone, their buckets
# hold every wait of their count.
. "$(dirname "$0")/../lib.sh"
need_root

# twice: with the default cache of the key store, and with one entry per
# CPU (SCHEDHIST_CACHE_ENTRIES=1), where the two spinners on CPU 0 evict
# each other's entry at every switch (the counts go through the store)
run() {
	local c=$1 i
	SCHEDHIST_CACHE_ENTRIES=$c start_sh "iv$c" -M runq -k tid -i 0.5 -j
	IV=$SH_PID
	SCHEDHIST_CACHE_ENTRIES=$c start_sh "cu$c" -M runq -k tid -i 0.5 --cumulative -j
	CU=$SH_PID
	"$HELPERS/spinners" -n 2 -c 0 -t 2.5 >"$TMP/spin$c.out" &
	CHILD_PIDS+=($!)
	for i in $(seq 1 100); do
		[ "$(wc -l <"$TMP/spin$c.out")" -ge 2 ] && break
		sleep 0.1
	done
	sleep 0.3
	stop_sh "$IV" || fail "interval instance exited with $?"
	stop_sh "$CU" || fail "cumulative instance exited with $?"
	check "$TMP/iv$c.out" "$TMP/cu$c.out" "$TMP/spin$c.out" "$c" || fail "cache of $c entries"
}

check() {
python3 - "$@" <<'PY'
import json, sys
iv = [json.loads(l) for l in open(sys.argv[1])]
cu = [json.loads(l) for l in open(sys.argv[2])]
tids = [l.split()[1] for l in open(sys.argv[3])]
assert len(iv) >= 4 and len(cu) >= 4, (len(iv), len(cu))
def get(r, tid, f):
    return sum(g[f] for g in r["groups"] if g["key"] == tid)
for tid in tids:
    # the same switch events in both; each instance reads its own clock, a
    # few ns apart per event (more when an interrupt falls between the two
    # programs on a loaded host), so sums agree to within 0.2%
    s = sum(get(r, tid, "count") for r in iv)
    c = get(cu[-1], tid, "count")
    print(f"tid {tid} count: sum of {len(iv)} intervals {s}, cumulative {c}")
    assert s == c and s > 0
    s = sum(get(r, tid, "sum_ns") for r in iv)
    c = get(cu[-1], tid, "sum_ns")
    print(f"tid {tid} sum_ns: sum of intervals {s}, cumulative {c}")
    assert abs(s - c) <= c * 2e-3
    prev = 0
    for r in cu:
        v = get(r, tid, "count")
        assert v >= prev, "cumulative count went down"
        prev = v
    m = max(get(r, tid, "max_ns") for r in iv)
    mc = get(cu[-1], tid, "max_ns")
    assert abs(m - mc) <= 2000, f"max of the intervals {m} != cumulative max {mc}"
# the buckets since start are kept (and count every wait of the count)
for r in cu:
    for g in r["groups"]:
        b = sum(x["count"] for x in g["buckets"])
        assert b == g["count"], f"{g['key']}: buckets since start hold {b} of {g['count']}"
assert all(r["cumulative"] for r in cu) and not any(r["cumulative"] for r in iv)
seen = [r["events"]["seen"] for r in cu]
assert seen == sorted(seen), "cumulative events went down"
km = cu[-1]["kernel_memory"]
print(f"cache of {km['cache_entries']} entries: {km['cache_hits']} hits, {km['cache_misses']} misses")
assert km["cache_entries"] == int(sys.argv[4]) and km["cache_misses"] > 0, km
PY
}
run 16
run 1
