#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# /healthz of --listen, for readiness probes: 503 "starting" once attached
# while /metrics still holds the zeros of the start (no reading yet), 200
# "ok" from the first reading on, with a reading in /metrics by then;
# HEAD works; no-store; an unknown path names /healthz; nothing stays
# loaded.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root

port=$(free_port)
url=http://127.0.0.1:$port
# a long interval: the first reading comes 6 s after the start, so the
# probe below, sent as soon as schedhist says it is attached, is answered
# before it; what the probe saw is checked against /metrics of the same
# moment, never against a time budget alone
start_sh health -M runq --listen ":$port" -i 6
sh=$SH_PID

code=$(curl -sS --max-time 5 -D "$TMP/h0" -o "$TMP/b0" -w '%{http_code}' "$url/healthz") ||
	fail "GET /healthz failed"
scrape "$port" >"$TMP/m0.txt"
events0=$(sample "$(cat "$TMP/m0.txt")" 'schedhist_events_total{metric="runq"}')
[ "$events0" = 0 ] || skip "the first reading came before the probe (events_total $events0)"
[ "$code" = 503 ] || fail "/healthz before the first reading answered $code: $(cat "$TMP/b0")"
grep -q '^starting: ' "$TMP/b0" || fail "/healthz 503 body: $(cat "$TMP/b0")"
grep -qi '^Cache-Control: no-store' "$TMP/h0" || fail "/healthz is cacheable"

# ready once the first reading is published (a hang guard of 3 intervals)
for i in $(seq 1 360); do
	code=$(curl -sS --max-time 5 -o "$TMP/b1" -w '%{http_code}' "$url/healthz")
	[ "$code" = 200 ] && break
	[ "$code" = 503 ] || fail "/healthz answered $code: $(cat "$TMP/b1")"
	sleep 0.05
done
[ "$code" = 200 ] || fail "/healthz not ready 18 s after the start (interval 6 s)"
grep -qE '^ok: last reading [0-9.]+ s ago$' "$TMP/b1" || fail "/healthz 200 body: $(cat "$TMP/b1")"
scrape "$port" >"$TMP/m1.txt"
events1=$(sample "$(cat "$TMP/m1.txt")" 'schedhist_events_total{metric="runq"}')
[ -n "$events1" ] && [ "$events1" -gt 0 ] ||
	fail "/healthz is ready but /metrics has no reading (events_total '$events1')"

code=$(curl -sS --max-time 5 -I -o /dev/null -w '%{http_code}' "$url/healthz")
[ "$code" = 200 ] || fail "HEAD /healthz answered $code"
code=$(curl -sS --max-time 5 -o "$TMP/b2" -w '%{http_code}' "$url/nothing")
[ "$code" = 404 ] && grep -q '/healthz' "$TMP/b2" || fail "GET /nothing: $code $(cat "$TMP/b2")"

stop_sh "$sh" TERM || fail "schedhist exited with $? on SIGTERM"
assert_nothing_leaked
echo "/healthz: 503 before the first reading, 200 after (events_total $events1)"
