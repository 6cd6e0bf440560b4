#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Every way of ending leaves nothing in the kernel: the duration ending,
# SIGTERM and SIGINT (final report, exit 0), and kill -9 (no report; the
# kernel drops the programs with the last fd). A new run then starts cleanly.
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

for i in 1 2 3; do
	start_sh "kill$i" -M blocked -k tid -i 0.1
	remember_ids
	sleep "0.$((RANDOM % 5 + 1))"
	kill -KILL "$SH_PID"
	wait "$SH_PID" 2>/dev/null
	assert_unloaded $SH_IDS
done
[ -z "$(bpftool map show 2>/dev/null | grep -E 'name (sh_|hists|pcpu|task_ts)' | head -1)" ] ||
	echo "note: maps of another instance are present"

# and a new run starts cleanly
start_sh again -d 0.5
wait "$SH_PID" || fail "run after kill -9 failed"
