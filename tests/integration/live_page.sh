#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The live page of --listen at "/": headless Chromium renders it (the DOM
# has the heatmap and a table of the top keys, the workload's among
# them; the screenshot is not blank); it needs nothing from elsewhere (no
# script, no external file, font or URL) and reloads itself every
# interval; a second capture, once the server has taken two more
# readings, shows two more columns. /metrics is served as before.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
not_reports "$TMP/profile"	# Chromium's profile: its own JSON files
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || skip "Chromium not installed (Debian package chromium)"

dom() {	# dom FILE: Chromium's DOM of the page, after it loaded
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMP/profile" --dump-dom "http://127.0.0.1:$port/" >"$1" 2>/dev/null
	[ -s "$1" ] || fail "Chromium dumped no DOM of the page"
}
columns() { grep -c '<g class="column"' "$1"; }
# served_columns: the columns of the page the server has now
served_columns() { curl -sS --max-time 5 "http://127.0.0.1:$port/" | grep -c '<g class="column"'; }

port=$(free_port)
"$HELPERS/spinners" -n 2 -c 0 -t 30 -N lpspin -x >/dev/null &
CHILD_PIDS+=($!)
start_sh live -M runq -k comm -i 0.5 --listen "127.0.0.1:$port"
# a hang guard only: the first reading comes after one interval
for i in $(seq 1 600); do
	[ "$(served_columns)" -ge 1 ] && break
	sleep 0.05
done

dom "$TMP/a.html"
c1=$(columns "$TMP/a.html")
[ "$c1" -ge 1 ] || fail "the rendered page has no heatmap column"
grep -q '<table id="top">' "$TMP/a.html" || fail "no table of the top keys"
grep -q '<td>lpspin</td>' "$TMP/a.html" || fail "the workload is not in the top keys"
grep -q '<meta http-equiv="refresh" content="1">' "$TMP/a.html" ||
	fail "the page does not reload itself every interval (1 s, rounded up from 0.5)"
grep -q '<a href="/metrics">' "$TMP/a.html" || fail "the page does not link to /metrics"
# offline: nothing fetched from anywhere, not even from this server (the
# SVG namespace is a name, not a fetch)
sed 's|xmlns="http://www.w3.org/2000/svg"||g' "$TMP/a.html" >"$TMP/a.nons"
grep -Eiq '<script|<link|<img|<iframe|@import|url\(|src=|@font-face|https?://' "$TMP/a.nons" &&
	fail "the page loads something: $(grep -Eio '<script|<link|<img|<iframe|@import|url\(|src=|@font-face|https?://[^"]*' "$TMP/a.nons" | head -3)"

# two more readings on the server's side, then the browser's view again
for i in $(seq 1 600); do	# a hang guard only
	[ "$(served_columns)" -ge $((c1 + 2)) ] && break
	sleep 0.05
done
dom "$TMP/b.html"
c2=$(columns "$TMP/b.html")
echo "columns: $c1, then $c2"
[ "$c2" -ge $((c1 + 2)) ] || fail "the second capture shows $c2 columns, want at least $((c1 + 2))"
last1=$(grep -o 'data-time="[^"]*"' "$TMP/a.html" | tail -1)
last2=$(grep -o 'data-time="[^"]*"' "$TMP/b.html" | tail -1)
[ "$last1" != "$last2" ] || fail "the newest column did not change ($last1)"

timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMP/profile" --hide-scrollbars --window-size=1000,800 \
	--screenshot="$TMP/page.png" "http://127.0.0.1:$port/" >/dev/null 2>&1
stats=$(python3 "$(dirname "$0")/../png_stats.py" "$TMP/page.png") || fail "no screenshot"
echo "page: $stats"
python3 - "$stats" <<'PY' || fail "the page's screenshot looks blank"
import sys
d = dict(kv.split("=") for kv in sys.argv[1].split()[1:])
assert int(d["colours"]) >= 10 and float(d["nonwhite"]) >= 0.02
PY
scrape "$port" >"$TMP/metrics.txt"
grep -q "^schedhist_wait_seconds_count" "$TMP/metrics.txt" || fail "/metrics has no histogram"
stop_sh "$SH_PID" TERM || fail "schedhist exited with $? on SIGTERM"
assert_nothing_leaked
