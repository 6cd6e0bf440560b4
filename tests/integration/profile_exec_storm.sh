#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --profile's exec watcher loses execve()s only when its log overruns, and
# counts them: one process (tests/helpers/execstorm.c) runs COUNT
# execve()s, four times the log's slots and more, while schedhist
# (--profile -p PID -v) is stopped by SIGSTOP, so that no poll can take a
# slot before the log overran, whatever this machine's speed. At exit the
# -v line must say exactly: seen = the log's slots (the newest, taken once
# schedhist runs again), missed = COUNT - slots (seen + missed = every
# execve() the helper made), and read <= seen.
. "$(dirname "$0")/../lib.sh"
need_root

LOG=$(sed -n 's/^#define SH_PROF_EXEC_LOG \([0-9]*\).*/\1/p' \
	"$(dirname "$0")/../../include/schedhist_profile.h")
[ -n "$LOG" ] || fail "no SH_PROF_EXEC_LOG in include/schedhist_profile.h"
COUNT=$((4 * LOG + 7))

# wait_stopped PID: until the process is in the stopped state (a hang guard, 10 s)
wait_stopped() {
	local i
	for i in $(seq 1 200); do
		[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
		sleep 0.05
	done
	fail "process $1 did not stop"
}

"$HELPERS/execstorm" "$COUNT" >"$TMP/storm.txt" &
STORM=$!
CHILD_PIDS+=("$STORM")
wait_for "$TMP/storm.txt" "^ready" 5
wait_stopped "$STORM"
start_sh prof --profile -p "$STORM" -i 60 -v
kill -STOP "$SH_PID"
wait_stopped "$SH_PID"
kill -CONT "$STORM"
wait "$STORM" || fail "execstorm exited with $?: $(cat "$TMP/storm.txt")"
MADE=$(awk '/^execs/ {print $2}' "$TMP/storm.txt")
[ "$MADE" = "$COUNT" ] || fail "execstorm made ${MADE:-no} execve()s of $COUNT"
kill -CONT "$SH_PID"
stop_sh "$SH_PID" || fail "schedhist exited with $?: $(cat "$TMP/prof.err")"

LINE=$(grep 'exec watcher:' "$TMP/prof.err") || fail "no exec watcher line: $(cat "$TMP/prof.err")"
read -r SEEN READ MISSED < <(echo "$LINE" |
	sed -n 's/.*: \([0-9]*\) execve()s seen, \([0-9]*\) programs.*, \([0-9]*\) missed .*/\1 \2 \3/p')
[ -n "$MISSED" ] || fail "cannot parse: $LINE"
echo "$COUNT execve()s, log of $LOG: $LINE"
[ "$MISSED" -gt 0 ] || fail "the overrun was not counted: $LINE"
[ $((SEEN + MISSED)) -eq "$COUNT" ] || fail "seen + missed is not the $COUNT execve()s: $LINE"
[ "$SEEN" -eq "$LOG" ] || fail "seen is not the log's $LOG slots: $LINE"
[ "$READ" -le "$SEEN" ] || fail "more programs read than seen: $LINE"
