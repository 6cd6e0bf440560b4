#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The heatmap's layout measured in a real browser: headless Chromium loads
# each SVG inline in a small HTML page whose script takes every label's
# box (getBBox, mapped to the canvas) and writes them into the DOM
# (--dump-dom); tests/svg_layout.py then checks that no two labels
# overlap, every label is inside the canvas, and the legend is beside the
# plot, within 40 px. The SVGs: real runs of 10 and 100 intervals, and
# worst cases of 10, 100 and 1000 columns (every bucket, 20-digit counts,
# the longest key shown, readings 10 ms apart, a date change) from
# test_heatmap --svg-dir. (A real run of 1000 intervals would rewrite a
# growing heatmap 1000 times: the worst case covers its layout.)
. "$(dirname "$0")/../lib.sh"
need_root
not_reports "$TMP/profile"	# Chromium's profile: its own JSON files
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || skip "Chromium not installed (Debian package chromium)"
UNIT=$OUTPUT/tests/test_heatmap
[ -x "$UNIT" ] || fail "$UNIT missing: build the unit tests first (make unit)"
LAYOUT="$(dirname "$0")/../svg_layout.py"

"$HELPERS/spinners" -n 2 -c 0 -t 3 -d 60 -N layout -x >/dev/null &
CHILD_PIDS+=($!)
# off-CPU waits span the widest range of rows (ns to seconds)
"$SCHEDHIST" -i 0.2 -n 10 --heatmap "$TMP/run-10.svg" >/dev/null 2>"$TMP/err" ||
	fail "run failed: $(cat "$TMP/err")"
"$SCHEDHIST" -M runq -k comm -i 0.05 -n 100 --heatmap "$TMP/run-100.svg" --heatmap-key layout \
	>/dev/null 2>"$TMP/err" || fail "run failed: $(cat "$TMP/err")"
"$UNIT" --svg-dir "$TMP" || fail "test_heatmap --svg-dir failed"

rc=0
for name in run-10 run-100 worst-10 worst-100 worst-1000; do
	python3 "$LAYOUT" page "$TMP/$name.svg" "$TMP/$name.html" || fail "cannot make the page"
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMP/profile" --dump-dom "file://$TMP/$name.html" \
		>"$TMP/$name.dom" 2>/dev/null
	python3 "$LAYOUT" check "$TMP/$name.dom" "$name" || rc=1
done
# the worst cases cross midnight: the date is shown again where it changes
grep -c '>2023-11-1[45]</text>' "$TMP/worst-1000.svg" | grep -qx 2 ||
	fail "worst-1000: the date is not shown where it changes"
[ $rc -eq 0 ] || fail "labels overlap or leave the canvas (see above)"
