#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Every way of ending leaves nothing in the kernel: the duration ending,
# SIGTERM and SIGINT (final report, exit 0), and kill -9 (no report; the
# kernel drops the programs and maps with the last fd) at random moments,
# under load and while loading. No map is ever pinned. A new run then
# starts cleanly.
. "$(dirname "$0")/../lib.sh"
need_root

# -d: ends by itself with one report
start_sh dur -d 1 -j
remember_ids
wait "$SH_PID"; rc=$?
[ $rc -eq 0 ] || fail "-d 1 exited with $rc"
[ "$(wc -l <"$TMP/dur.out")" -eq 1 ] || fail "-d 1 printed $(wc -l <"$TMP/dur.out") reports, want 1"
assert_unloaded $SH_IDS

for sig in TERM INT; do
	start_sh "sig$sig" -M runq -k comm
	remember_ids
	sleep 0.3
	stop_sh "$SH_PID" "$sig"; rc=$?
	[ $rc -eq 0 ] || fail "SIG$sig: exit $rc, want 0"
	grep -q '^run-queue latency' "$TMP/sig$sig.out" || fail "SIG$sig: no final report"
	assert_unloaded $SH_IDS
done

# kill -9 while running, under a context-switch storm (reports and map
# reads in flight): its programs and its maps (by id) are gone, so nothing
# was pinned either (a pinned map outlives its process and keeps its id)
"$HELPERS/pingpong" -p 2 -t 30 >/dev/null &
PP=$!
CHILD_PIDS+=($PP)
for i in 1 2 3 4 5; do
	start_sh "kill$i" -M blocked -k tid -i 0.05
	remember_ids
	maps=$(map_ids "$SH_PID")
	[ -n "$maps" ] || fail "no maps found for schedhist $SH_PID"
	sleep "0.$((RANDOM % 5 + 1))"
	kill -KILL "$SH_PID"
	wait "$SH_PID" 2>/dev/null
	assert_unloaded $SH_IDS
	assert_maps_gone $maps
done

# kill -9 at random moments from exec to steady state, most of them while
# it loads and attaches (ids unknown then): no program or map of schedhist
# that was not there before stays in the kernel
before=$(our_objects)
for i in $(seq 1 8); do
	"$SCHEDHIST" -M runq -k pid -i 0.05 >/dev/null 2>&1 &
	p=$!
	sleep "0.$(printf '%03d' $((RANDOM % 300)))"
	kill -KILL $p
	wait $p 2>/dev/null
done
assert_no_new_objects "$before"
kill $PP 2>/dev/null
wait $PP 2>/dev/null
# no bpffs mount holds anything of ours
for fs in $(awk '$3 == "bpf" {print $2}' /proc/mounts); do
	found=$(find "$fs" -name '*schedhist*' -o -name hists -o -name task_ts 2>/dev/null | head -3)
	[ -z "$found" ] || fail "pinned under $fs: $found"
done

# and a new run starts cleanly
start_sh again -d 0.5
wait "$SH_PID" || fail "run after kill -9 failed"
