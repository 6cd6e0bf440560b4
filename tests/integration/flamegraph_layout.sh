#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --flamegraph: the SVG of a profile, measured in headless Chromium
# (tests/flamegraph_layout.py): every label inside its frame and the
# canvas, no two labels overlapping, every frame with a <title> of its
# time, waits and share. The workload has stacks of very different widths
# (waiters' three threads, and 20 short-lived sleepers whose frames are a
# few pixels wide) and long frame names (kernel paths). The SVG's widths
# are checked against the folded stacks of the same run: the root's title
# holds the total of the folded values.
. "$(dirname "$0")/../lib.sh"
need_root
not_reports "$TMP/profile"	# Chromium's profile: its own JSON files
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || skip "Chromium not installed (Debian package chromium)"
LAYOUT="$(dirname "$0")/../flamegraph_layout.py"

# --profile writes as nobody once attached: a directory it may write in
chmod 0711 "$TMP" && mkdir "$TMP/out" && chown nobody "$TMP/out"
start_sh run --profile -M offcpu --unit ns --flamegraph "$TMP/out/fg.svg"
"$HELPERS/waiters" -m 5 -t 2 >/dev/null &
W=$!
CHILD_PIDS+=("$W")
for i in $(seq 1 20); do
	sleep "0.0$i" &
	CHILD_PIDS+=($!)
done
wait "${CHILD_PIDS[@]}" || fail "the workload failed"
stop_sh "$SH_PID" || fail "schedhist exited with $?: $(cat "$TMP/run.err")"
[ -s "$TMP/out/fg.svg" ] || fail "no flame graph written"

python3 "$LAYOUT" page "$TMP/out/fg.svg" "$TMP/fg.html" || fail "cannot make the page"
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMP/profile" --dump-dom "file://$TMP/fg.html" >"$TMP/fg.dom" 2>/dev/null
python3 "$LAYOUT" check "$TMP/fg.dom" flamegraph || fail "the flame graph's layout is wrong (above)"

# the root frame ("all") carries the run's whole waited time
total=$(awk 'NF { s += $NF } END { printf "%.3f", s / 1e6 }' "$TMP/run.out")
grep -q "<title>all ($total ms, " "$TMP/out/fg.svg" ||
	fail "the root's title does not give the folded stacks' total $total ms: $(grep -o '<title>all [^<]*' "$TMP/out/fg.svg")"
grep -q '<title>w_pipe (' "$TMP/out/fg.svg" || fail "no frame of the w_pipe thread: $(grep -o "<title>[^<]*" "$TMP/out/fg.svg" | head -12 | tr "\n" " ")"
