#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --live under tmux, with a workload: started in a detached session of a
# tmux server of our own, captures of the pane show the header and the
# rows, and the report number goes up (values refresh in place); "s"
# changes the sort (the rows then in falling COUNT order); "p" pauses
# the display, also through a resize, PAUSED first on its line; a resize lays it out again (the trend column goes at 70
# columns, the footer moves to the last line); "q" exits 0 and leaves no
# program loaded; a warning that came meanwhile is written then, not over
# the view. --live with standard output not a terminal is a usage
# error (status 2, one line) before anything loads.
. "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"	# assert_nothing_leaked
need_root
command -v tmux >/dev/null || skip "tmux not installed (Debian package tmux)"

before=$(our_objects)
"$SCHEDHIST" --live -i 1 >"$TMP/out" 2>"$TMP/e" </dev/null; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] && grep -q 'standard output is not one' "$TMP/e" ||
	fail "--live into a file: exit $rc, $(cat "$TMP/e")"
assert_no_new_objects "$before"

TMUX_CMD=(tmux -L "schedhist-test-$$" -f /dev/null)
test_cleanup() { "${TMUX_CMD[@]}" kill-server 2>/dev/null; }
pane() { "${TMUX_CMD[@]}" capture-pane -p >"$1" || fail "capture-pane failed"; }
# until_pane FILE REGEX: capture until the pane matches (a hang guard, 60 s)
until_pane() {
	local i
	for i in $(seq 1 600); do
		pane "$1"
		grep -qE "$2" "$1" && return 0
		[ -s "$TMP/rc" ] && { cat "$TMP/err"; fail "schedhist --live ended: $(cat "$TMP/rc")"; }
		sleep 0.1
	done
	cat "$1"
	fail "the pane never showed /$2/"
}
report_no() { sed -n 's/^\( PAUSED (p resumes) \)\{0,1\} report \([0-9]*\) .*/\2/p' "$1"; }

"$HELPERS/spinners" -n 3 -c 0 -t 60 -d 60 -N livespin -x >/dev/null &
CHILD_PIDS+=($!)
# the shell inside tmux execs schedhist (its pid in $TMP/pid), then records the status
"${TMUX_CMD[@]}" new-session -d -x 120 -y 30 -e LANG=C.UTF-8 \
	"bash -c 'sh -c \"echo \\\$\\\$ >$TMP/pid; exec $SCHEDHIST -M runq -k comm -i 0.5 --live --heatmap $TMP/h.svg --heatmap-key nosuchkey\" 2>$TMP/err; echo \$? >$TMP/rc'" ||
	fail "tmux new-session failed"

until_pane "$TMP/p1" '^livespin +[0-9]+'
pid=$(cat "$TMP/pid")
ids=$(prog_ids "$pid")
[ -n "$ids" ] || fail "schedhist --live holds no BPF program"
grep -q '^ schedhist  run-queue latency' "$TMP/p1" || fail "no header: $(head -2 "$TMP/p1")"
grep -q 'events seen [0-9]*, lost [0-9]*' "$TMP/p1" || fail "no event counts in the header"
grep -qE '^comm +COUNT +AVG +P50 +P99 +MAX +MAX_BY +P99, last' "$TMP/p1" ||
	fail "no column titles: $(sed -n 4p "$TMP/p1")"
# a warning while the view is up (the key is not there) is held back, not drawn
grep -q nosuchkey "$TMP/err" "$TMP/p1" && fail "a warning was written while the view was up"
r1=$(report_no "$TMP/p1")
for i in $(seq 1 600); do	# a hang guard: the next report comes an interval later
	pane "$TMP/p2"
	r2=$(report_no "$TMP/p2")
	[ "${r2:-0}" -gt "$r1" ] && break
	sleep 0.1
done
[ "${r2:-0}" -gt "$r1" ] || fail "the view did not refresh: report $r1, then ${r2:-none}"
grep -qE '^livespin +[0-9]+' "$TMP/p2" || fail "the rows went away after a refresh"

# "s": sum -> count; rows in falling count order
grep -q 'sort: sum' "$TMP/p2" || fail "the first sort is not sum"
"${TMUX_CMD[@]}" send-keys s
until_pane "$TMP/p3" 'sort: count'
grep -qE '^comm +\*COUNT' "$TMP/p3" || fail "the COUNT column is not marked as the sort"
awk 'NR > 4 && /^[^ ]/ && $2 ~ /^[0-9]+$/ { print $2 }' "$TMP/p3" >"$TMP/counts"
[ "$(wc -l <"$TMP/counts")" -ge 2 ] || fail "fewer than 2 rows to compare"
sort -rn "$TMP/counts" | cmp -s - "$TMP/counts" || fail "rows not by count: $(tr '\n' ' ' <"$TMP/counts")"

# "p": the display stays while paused
"${TMUX_CMD[@]}" send-keys p
until_pane "$TMP/p4" 'PAUSED'
r4=$(report_no "$TMP/p4")
sleep 1.5	# three intervals: an unpaused view would show a later report
pane "$TMP/p5"
[ "$(report_no "$TMP/p5")" = "$r4" ] || fail "the paused view changed: report $r4, then $(report_no "$TMP/p5")"
# a resize while paused redraws the same report, PAUSED first on its line (not cut at 90 columns)
"${TMUX_CMD[@]}" resize-window -x 90 -y 30
until_pane "$TMP/p5b" '^comm +\*COUNT'
sleep 1.5	# three intervals come meanwhile
"${TMUX_CMD[@]}" resize-window -x 91 -y 30
sleep 0.3
pane "$TMP/p5c"
grep -q '^ PAUSED (p resumes)  report ' "$TMP/p5c" || fail "no PAUSED at 90 columns: $(sed -n 2p "$TMP/p5c")"
[ "$(report_no "$TMP/p5c")" = "$r4" ] ||
	fail "a resize while paused showed report $(report_no "$TMP/p5c"), paused at $r4"
"${TMUX_CMD[@]}" resize-window -x 120 -y 30
"${TMUX_CMD[@]}" send-keys p
until_pane "$TMP/p6" "^ report [0-9]+ .*sort: count   waits in us\$"
# the reports that came while paused are counted once it resumes
for i in $(seq 1 600); do	# a hang guard: the next report comes an interval later
	pane "$TMP/p6"
	[ "$(report_no "$TMP/p6")" -gt $((r4 + 3)) ] && break
	sleep 0.1
done
[ "$(report_no "$TMP/p6")" -gt $((r4 + 3)) ] ||
	fail "after 3 s paused and a report, report $(report_no "$TMP/p6") (paused at $r4)"

# a resize: laid out again for 70 x 20
"${TMUX_CMD[@]}" resize-window -x 70 -y 20
until_pane "$TMP/p7" '^comm +\*COUNT +AVG +P50 +P99 +MAX *$'
[ "$(wc -l <"$TMP/p7")" -eq 20 ] || fail "the pane is not 20 lines after the resize"
sed -n 20p "$TMP/p7" | grep -q 'q quit' || fail "the footer is not on the last line: $(cat "$TMP/p7")"
awk 'length($0) > 70 { exit 1 }' "$TMP/p7" || fail "a line is wider than 70 columns"
grep -qE '^livespin +[0-9]+' "$TMP/p7" || fail "no rows after the resize"

"${TMUX_CMD[@]}" send-keys q
for i in $(seq 1 600); do [ -s "$TMP/rc" ] && break; sleep 0.1; done	# a hang guard
[ "$(cat "$TMP/rc")" = 0 ] || fail "q: exit status $(cat "$TMP/rc"), $(cat "$TMP/err")"
[ "$(grep -c "heatmap-key 'nosuchkey'" "$TMP/err")" -eq 1 ] ||
	fail "the held warning was not written once the terminal was back: $(cat "$TMP/err")"
assert_unloaded $ids
assert_nothing_leaked
