#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Counts cannot wrap unseen: the kernel's per-CPU counters are 32 bits,
# so the poller reads the maps at least every 10 s (SH_READ_PERIOD_S)
# whatever the interval, even with no -i at all (one report at the end).
# Each reading advances the kernel side's epoch (sh_epoch in its .data
# map): after 21 s without -i it has advanced at least twice; with -i 24h
# the same. The one report at the end still covers the whole run, its
# identity exact.
. "$(dirname "$0")/../lib.sh"
need_root

# epoch PID: sh_epoch, the first 4 bytes of the process's .data map
epoch() {
	local id
	for id in $(map_ids "$1"); do
		bpftool map show id "$id" 2>/dev/null | grep -q ' name schedhis.data ' || continue
		bpftool map dump id "$id" -j | python3 -c '
import json, sys
v = json.load(sys.stdin)[0]["value"]
print(int.from_bytes(bytes(int(x, 16) for x in v[:4]), "little"))'
		return 0
	done
	return 1
}

start_sh none -j
A=$SH_PID
start_sh day -j -i 24h
B=$SH_PID
e0a=$(epoch "$A") || fail "no .data map in /proc/$A/fdinfo"
e0b=$(epoch "$B") || fail "no .data map in /proc/$B/fdinfo"
sleep 21
e1a=$(epoch "$A") e1b=$(epoch "$B")
echo "epochs over 21 s: no -i $e0a -> $e1a, -i 24h $e0b -> $e1b"
[ $((e1a - e0a)) -ge 2 ] || fail "no -i: the maps were not read every 10 s"
[ $((e1b - e0b)) -ge 2 ] || fail "-i 24h: the maps were not read every 10 s"
stop_sh "$A" || fail "schedhist exited with $?"
stop_sh "$B" || fail "schedhist exited with $?"
for n in none day; do
	[ "$(wc -l <"$TMP/$n.out")" -eq 1 ] || fail "$n: want one report, got $(wc -l <"$TMP/$n.out")"
	python3 "$(dirname "$0")/../identity.py" "$TMP/$n.out" || fail "$n: identity"
	python3 - "$TMP/$n.out" <<'PY' || fail "$n: the report does not cover the run"
import json, sys
r = json.loads(open(sys.argv[1]).read())
# the whole run in the one report: its span, and waits from all of it
assert r["interval_s"] >= 21, r["interval_s"]
assert r["events"]["recorded"] > 0
print(f"one report over {r['interval_s']} s, {r['events']['recorded']} waits")
PY
done
