#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Renders a heatmap from a real run in headless Chromium to PNG and checks
# the picture is not blank: many colours, a good share of non-white pixels
# (a blank page has one colour and none). Skipped only without Chromium.
. "$(dirname "$0")/../lib.sh"
need_root
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || skip "Chromium not installed (Debian package chromium)"

"$HELPERS/spinners" -n 2 -c 0 -t 3 -d 60 -N shot -x >/dev/null &
CHILD_PIDS+=($!)
"$SCHEDHIST" -M runq -i 0.25 -n 10 --heatmap "$TMP/h.svg" >/dev/null 2>"$TMP/err" ||
	fail "run failed: $(cat "$TMP/err")"
not_reports "$TMP/profile"	# Chromium's profile: its own JSON files
shot() {	# shot URL PNG
	timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMP/profile" --hide-scrollbars --window-size=800,600 \
		--screenshot="$2" "$1" >/dev/null 2>&1
	[ -s "$2" ] || fail "Chromium wrote no screenshot of $1"
}
shot "file://$TMP/h.svg" "$TMP/h.png"
printf '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>' >"$TMP/blank.svg"
shot "file://$TMP/blank.svg" "$TMP/blank.png"
h=$(python3 "$(dirname "$0")/../png_stats.py" "$TMP/h.png") || fail "cannot decode the PNG"
b=$(python3 "$(dirname "$0")/../png_stats.py" "$TMP/blank.png") || fail "cannot decode the PNG"
echo "heatmap: $h; blank page: $b"
python3 - "$h" "$b" <<'PY' || fail "the heatmap screenshot looks blank"
import sys
def parse(s):
    d = dict(kv.split("=") for kv in s.split()[1:])
    return int(d["colours"]), float(d["nonwhite"])
hc, hn = parse(sys.argv[1]); bc, bn = parse(sys.argv[2])
assert hc >= 10 and hn >= 0.02 and hc > bc and hn > bn
PY
