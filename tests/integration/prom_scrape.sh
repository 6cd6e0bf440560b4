#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --listen on a live run while pinned spinners make run-queue waits:
# `promtool check metrics` passes on a scrape; the contract's families and
# labels are there (tests/prom-check.py); the spinners' interval max, by a
# spinner, within their histogram; OpenMetrics when Accept asks for
# it, ending with "# EOF"; the page exists before the first reading; a
# bare ":PORT" binds 127.0.0.1 only; nothing printed on stdout without
# --print; counters never go back between scrapes; "/" links to /metrics;
# HEAD works; SIGTERM ends it with status 0, nothing left loaded.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
command -v promtool >/dev/null || skip "promtool not installed (Debian package prometheus)"
CHECK=tests/prom-check.py

port=$(free_port)
start_sh scrape -M runq -k comm --listen ":$port" -i 1
sh=$SH_PID

# served at once, before the first reading: zeros, valid
scrape "$port" >"$TMP/first.txt"
python3 "$CHECK" "$TMP/first.txt" || fail "the page before the first reading is not valid"
[ "$(sample "$(cat "$TMP/first.txt")" 'schedhist_events_total{metric="runq"}')" = 0 ] ||
	fail "events_total is not 0 before the first reading"

# loopback only: ":PORT" must not bind every address
listening=$(ss -Hltn "( sport = :$port )" | awk '{print $4}')
[ "$listening" = "127.0.0.1:$port" ] || fail "--listen :$port listens on '$listening', want 127.0.0.1:$port"

"$HELPERS/spinners" -n 2 -c 0 -t 3 -x >"$TMP/spin.out" &
CHILD_PIDS+=($!)
sleep 2.5
scrape "$port" -D "$TMP/h1" >"$TMP/s1.txt"
grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$TMP/h1" ||
	fail "text scrape has Content-Type $(grep -i '^content-type' "$TMP/h1")"
promtool check metrics <"$TMP/s1.txt" >"$TMP/promtool.out" 2>&1 ||
	{ cat "$TMP/promtool.out"; fail "promtool check metrics failed"; }
python3 "$CHECK" "$TMP/s1.txt" || fail "exposition check failed"
spin=$(sample "$(cat "$TMP/s1.txt")" \
	'schedhist_wait_seconds_count{metric="runq",key_type="comm",key="spinner"}')
[ -n "$spin" ] && [ "$spin" -gt 0 ] || fail "no run-queue waits of the spinners in the scrape"
grep -q '^schedhist_wait_seconds_count{metric="runq",key_type="comm",key="\[other\]"} ' \
	"$TMP/s1.txt" || fail "no [other] series"
# the interval's exact max of the spinners, by a spinner: never past the
# smallest le that holds all their waits since start (it is one of them)
python3 - "$TMP/s1.txt" <<'PY' || fail "the spinners' interval max gauge is wrong"
import math, re, sys
text = open(sys.argv[1]).read()
key = 'metric="runq",key_type="comm",key="spinner"'
m = re.search(r'^schedhist_interval_max_wait_seconds\{' + re.escape(key) +
              r',tid="([0-9]+)",comm="spinner"\} (\S+)$', text, re.M)
if not m or int(m.group(1)) <= 0 or float(m.group(2)) <= 0:
    sys.exit(f'no interval max of the spinners by a spinner: {m and m.group(0)}')
buckets = [(float(le), float(v)) for le, v in re.findall(
    r'^schedhist_wait_seconds_bucket\{' + re.escape(key) + r',le="([^"]+)"\} (\S+)$', text, re.M)]
total = buckets[-1][1]
edge = min(le for le, v in buckets if v == total)
if float(m.group(2)) > edge:
    sys.exit(f'interval max {m.group(2)} s beyond every wait since start (<= {edge} s)')
PY

# OpenMetrics, as Prometheus asks for it
scrape "$port" -D "$TMP/h2" -H 'Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' \
	>"$TMP/om.txt"
grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8' "$TMP/h2" ||
	fail "OpenMetrics scrape has Content-Type $(grep -i '^content-type' "$TMP/h2")"
python3 "$CHECK" --openmetrics "$TMP/om.txt" || fail "OpenMetrics check failed"

wait "${CHILD_PIDS[@]}" 2>/dev/null
sleep 1.2
scrape "$port" >"$TMP/s2.txt"
python3 "$CHECK" --monotone "$TMP/s1.txt" "$TMP/s2.txt" || fail "a counter went backwards"
e1=$(sample "$(cat "$TMP/s1.txt")" 'schedhist_events_total{metric="runq"}')
e2=$(sample "$(cat "$TMP/s2.txt")" 'schedhist_events_total{metric="runq"}')
[ "$e2" -gt "$e1" ] || fail "events_total did not grow ($e1 -> $e2)"

# HEAD: headers only; "/": a page that links to /metrics
code=$(curl -sS --max-time 5 -I -o "$TMP/head" -w '%{http_code}' "http://127.0.0.1:$port/metrics")
[ "$code" = 200 ] || fail "HEAD /metrics answered $code"
curl -sS --max-time 5 -D "$TMP/h3" "http://127.0.0.1:$port/" >"$TMP/index.html"
grep -q '<a href="/metrics">' "$TMP/index.html" || fail "/ does not link to /metrics"
grep -qi '^Content-Type: text/html' "$TMP/h3" || fail "/ is not text/html"

[ ! -s "$TMP/scrape.out" ] || fail "printed on stdout without --print: $(head -3 "$TMP/scrape.out")"
stop_sh "$sh" TERM || fail "schedhist exited with $? on SIGTERM"
assert_nothing_leaked
[ -z "$(ss -Hltn "( sport = :$port )")" ] || fail "port $port still listening after exit"
echo "promtool and structure checks pass: $(python3 "$CHECK" "$TMP/s2.txt")"
