#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The live page of --listen at "/": headless Chromium renders it (the DOM
# has the heatmap and a table of the top keys, the workload's among
# them; the screenshot is not blank); it needs nothing from elsewhere (no
# external file, font, URL or script file): its one inline script fetches
# /live.json, the table's rows (smaller than the table's own HTML), every
# interval and rewrites the table in place, checked on a copy of the page
# served with a later /live.json of the same run; without scripts it
# reloads itself every interval; a second capture, once the server has
# taken two more readings, shows two more columns. /metrics as before.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
not_reports "$TMP/profile"	# Chromium's profile: its own JSON files
# /live.json is the page's table, not a report
not_reports "$TMP/live1.json" "$TMP/live2.json" "$TMP/static"
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
grep -q '<table id="top" data-reading="[^"]' "$TMP/a.html" || fail "no table of the top keys"
grep -q '<td>lpspin</td>' "$TMP/a.html" || fail "the workload is not in the top keys"
grep -q '<noscript><meta http-equiv="refresh" content="1"></noscript>' "$TMP/a.html" ||
	fail "without scripts the page does not reload itself every interval (1 s, from 0.5)"
grep -q '<body data-refresh="1">' "$TMP/a.html" ||
	fail "the page's script does not fetch the table every interval (1 s, from 0.5)"
grep -q '<a href="/metrics">' "$TMP/a.html" || fail "the page does not link to /metrics"
# offline: nothing fetched from anywhere but /live.json of this server (the
# SVG namespace is a name, not a fetch)
sed 's|xmlns="http://www.w3.org/2000/svg"||g' "$TMP/a.html" >"$TMP/a.nons"
grep -Eiq '<link|<img|<iframe|@import|url\(|src=|@font-face|https?://' "$TMP/a.nons" &&
	fail "the page loads something: $(grep -Eio '<link|<img|<iframe|@import|url\(|src=|@font-face|https?://[^"]*' "$TMP/a.nons" | head -3)"
[ "$(grep -c '<script' "$TMP/a.nons")" = 1 ] || fail "not one inline script"
[ "$(grep -o "fetch('[^']*'" "$TMP/a.nons" | sort -u)" = "fetch('/live.json'" ] ||
	fail "the script fetches something else than /live.json: $(grep -o 'fetch([^)]*' "$TMP/a.nons")"

# /live.json: the table's rows, the workload's among them, smaller than the
# table's own HTML (the same cells without the markup)
curl -sS --max-time 5 -D "$TMP/jh" "http://127.0.0.1:$port/live.json" >"$TMP/live1.json"
curl -sS --max-time 5 "http://127.0.0.1:$port/" >"$TMP/served.html"
grep -qi '^Content-Type: application/json' "$TMP/jh" || fail "/live.json is not application/json"
python3 - "$TMP/live1.json" "$TMP/served.html" <<'PY' || fail "/live.json is not the small table"
import json, re, sys
raw = open(sys.argv[1], encoding='utf-8').read()
d = json.loads(raw)
page = open(sys.argv[2], encoding='utf-8').read()
table = re.search(r'<table id="top".*?</table>', page, re.S).group(0)
assert d['reading'] and d['status'].startswith('latest reading '), d
assert any(r[0] == 'lpspin' for r in d['rows']), 'lpspin not in the rows'
ncols = table.split('</tr>')[0].count('<th>')
assert all(len(r) == ncols for r in d['rows']), f'rows of another width than {ncols}'
assert len(raw) < len(table) < len(page), (len(raw), len(table), len(page))
print(f'live.json {len(raw)} bytes, table {len(table)}, page {len(page)}')
PY

# in place: the page as served, from a plain server whose /live.json is a
# later one of this run (another reading); after the script's first fetch
# the DOM's table is that one, row for row, and the heatmap the page's own
reading() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reading"])' "$1"; }
r1=$(reading "$TMP/live1.json")
for i in $(seq 1 600); do	# a hang guard only: the next reading
	curl -sS --max-time 5 "http://127.0.0.1:$port/live.json" >"$TMP/live2.json"
	[ "$(reading "$TMP/live2.json")" != "$r1" ] && break
	sleep 0.05
done
mkdir -p "$TMP/static"
cp "$TMP/served.html" "$TMP/static/index.html"
cp "$TMP/live2.json" "$TMP/static/live.json"
sport=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$TMP/static" "$sport" >/dev/null 2>&1 &
CHILD_PIDS+=($!)
for i in $(seq 1 600); do	# a hang guard only: until it serves
	curl -sf --max-time 5 -o /dev/null "http://127.0.0.1:$sport/live.json" && break
	sleep 0.05
done
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMP/profile" --virtual-time-budget=2500 \
	--dump-dom "http://127.0.0.1:$sport/" >"$TMP/updated.html" 2>/dev/null
python3 - "$TMP/updated.html" "$TMP/live2.json" "$TMP/served.html" <<'PY' ||
import html, json, re, sys
dom = open(sys.argv[1], encoding='utf-8').read()
want = json.load(open(sys.argv[2], encoding='utf-8'))
served = open(sys.argv[3], encoding='utf-8').read()
table = re.search(r'<table id="top" data-reading="([^"]*)".*?</table>', dom, re.S)
assert table, 'no table in the DOM'
assert table.group(1) == want['reading'], f'table of {table.group(1)}, want {want["reading"]}'
rows = [[html.unescape(c) for c in re.findall(r'<td>(.*?)</td>', tr)]
        for tr in re.findall(r'<tr class="key">(.*?)</tr>', table.group(0), re.S)]
assert rows == want['rows'], f'DOM rows {rows[:2]} != /live.json rows {want["rows"][:2]}'
status = re.search(r'<span id="status">(.*?)</span>', dom).group(1)
assert html.unescape(status) == want['status'], status
# the heatmap is the page's own (the script leaves it)
assert dom.count('<g class="column"') == served.count('<g class="column"')
print(f'table rewritten in place: {len(rows)} rows of {want["reading"]}')
PY
	fail "the page did not rewrite its table from /live.json"

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
	--virtual-time-budget=2500 --screenshot="$TMP/page.png" "http://127.0.0.1:$port/" \
	>/dev/null 2>&1
[ -z "${SH_KEEP_PNG:-}" ] || cp "$TMP/page.png" "$SH_KEEP_PNG"
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
