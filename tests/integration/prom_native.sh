#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Native histograms, read by a real Prometheus (Debian's prometheus with
# --enable-feature=native-histograms, which asks for the protobuf format,
# on a loopback port, a throwaway TSDB in $TMP, scraping every second)
# from schedhist --listen -M runq -p WORKLOAD, whose one series (key "all")
# is at zero until the workload, two spinners pinned to CPU 0, is let go.
# schedhist also prints its JSON reports since start (--cumulative, one a
# second), and a Prometheus sample holds one such reading (matched by
# events_total, the JSON's events.seen). Then:
#  - one series per key: schedhist_wait_seconds is one native series, and
#    no classic _bucket, _sum or _count series exist;
#  - every raw native sample is exactly the JSON buckets of its reading:
#    each bucket's bounds, (2^(i-1), 2^i] s or the zero bucket, and count,
#    and histogram_count() equals the JSON count;
#  - histogram_quantile(0.99, rate(schedhist_wait_seconds[W])) agrees
#    with schedhist's own JSON p99 over the same window (W starts 5 s
#    before the workload, at zero, so it is the last sample's reading
#    since start) within the bucket resolution: both lie in the bucket
#    that holds rank 0.99 * count;
#  - the recording rules of contrib/prometheus/schedhist.rules.yml, loaded
#    into the same Prometheus, record that p99 on the native branch.
# Then the same scrape with --prom-classic gets the text format.
# Prometheus is stopped and its data removed on every exit.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
command -v prometheus >/dev/null || skip "prometheus not installed (Debian package prometheus)"

SPIN_S=8	# the spinners run this long

sh_port=$(free_port)
prom_port=$(free_port)
[ "$prom_port" != "$sh_port" ] || prom_port=$(free_port)

# the workload waits, blocked on a FIFO (no waits recorded meanwhile), for "go"
mkfifo "$TMP/go"
( read -r _ <"$TMP/go"; exec "$HELPERS/spinners" -n 2 -c 0 -t "$SPIN_S" -N nspin -x ) \
	>"$TMP/spin.out" &
WL=$!
CHILD_PIDS+=("$WL")

start_sh fleet -M runq -p "$WL" --listen "127.0.0.1:$sh_port" -i 1 --print -j --cumulative
sh=$SH_PID

cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
rule_files: ['$PWD/contrib/prometheus/schedhist.rules.yml']
scrape_configs:
  - job_name: schedhist
    static_configs:
      - targets: ['127.0.0.1:$sh_port']
EOF
start_prometheus "$prom_port" --enable-feature=native-histograms
prometheus_ready

# a few scrapes of the empty series before the workload (Prometheus starts
# scraping some seconds after it is ready: a hang guard, not a bound on speed)
for i in $(seq 1 600); do
	n=$(curl -sS --max-time 2 --get "$API/api/v1/query" \
		--data-urlencode 'query=count_over_time(schedhist_wait_seconds{key="all"}[1m])' |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
	[ "${n:-0}" -ge 3 ] && break
	[ "$i" -lt 600 ] || fail "Prometheus did not scrape schedhist within 60 s"
	sleep 0.1
done
go_at=$(date +%s.%N)
echo go >"$TMP/go"
wait "$WL" || fail "spinners failed"

query() {	# query NAME PROMQL: the JSON answer of /api/v1/query at $eval_at into $TMP/NAME.json
	not_reports "$TMP/$1.json"	# Prometheus' answer, not a report
	curl -sS --max-time 10 --get "$API/api/v1/query" --data-urlencode "query=$2" \
		--data-urlencode "time=$eval_at" >"$TMP/$1.json" || fail "query '$2' failed"
}
# The rule's samples come each from an evaluation at its timestamp T,
# which can miss the scrape stamped just before T (stored after the
# evaluation ran). Prometheus scrapes a target in sequence, each scrape
# starting after the one before it was stored: an evaluation at T saw every
# sample before the last one stamped <= T, and once a sample stamped after
# T is stored, the samples up to T are all there. So every query is at
# eval_at, the latest rule evaluation T after which a sample is stored and
# whose last two samples are the same reading: the rule and its expression
# evaluated now at T saw the same data. Polled after the workload's end (a
# hang guard, not a bound on speed); the window still starts before it.
steady_rule() {	# that T in the window of $eval_at, or nothing
	python3 - "$TMP" <<'EOF_T'
import json, sys
tmp = sys.argv[1]
res = lambda n: json.load(open(f'{tmp}/{n}.json'))['data']['result']
hs = [(float(ts), h['count'], h.get('buckets')) for ts, h in res('hists')[0]['histograms']]
for t, _ in reversed(res('rule_samples')[0]['values']):
    seen = [h[1:] for h in hs if h[0] <= float(t)]
    if (len(seen) >= 2 and seen[-1] == seen[-2] and float(seen[-1][0]) > 0
            and any(h[0] > float(t) for h in hs)):
        print(t)
        break
else:
    print('readings (time, count):', [h[:2] for h in hs], file=sys.stderr)
EOF_T
}
for i in $(seq 1 120); do
	eval_at=$(date +%s.%N)
	query hists 'schedhist_wait_seconds{metric="runq",key="all"}[30s]'
	query rule_samples 'instance_key:schedhist_wait_seconds:p99_rate5m{metric="runq",key="all"}[30s]'
	rule_at=$(steady_rule 2>"$TMP/steady.err")
	[ -n "$rule_at" ] && break
	[ "$i" -lt 120 ] || fail "no rule evaluation on a steady reading within 60 s: $(cat "$TMP/steady.err")"
	sleep 0.5
done
eval_at=$rule_at
# the raw samples' window: from 5 s before the workload's start (the
# empty readings before it) to eval_at, however long the rule took to
# settle, as a whole number of seconds
win=$(python3 -c "import math; print(math.ceil($eval_at - $go_at) + 5)")
query series 'count by (__name__, key) ({__name__=~"schedhist_wait_seconds.*"})'
query p99 "histogram_quantile(0.99, rate(schedhist_wait_seconds{metric=\"runq\",key=\"all\"}[${win}s]))"
query count 'histogram_count(schedhist_wait_seconds{metric="runq",key="all"})'
query rule 'instance_key:schedhist_wait_seconds:p99_rate5m{metric="runq",key="all"}'
query p99_5m 'histogram_quantile(0.99, rate(schedhist_wait_seconds{metric="runq",key="all"}[5m]))'
# the raw samples of the window, to match each with its reading
query hists "schedhist_wait_seconds{metric=\"runq\",key=\"all\"}[${win}s]"
query events "schedhist_events_total{metric=\"runq\"}[${win}s]"
# the scrapes themselves, for a failure's message: a failed scrape leaves
# no sample (up is 0 then) and a slow one shows in its duration
query up "up{job=\"schedhist\"}[${win}s]"
query scrape_s "scrape_duration_seconds{job=\"schedhist\"}[${win}s]"
not_reports "$TMP/targets.json" "$TMP/tsdb"
curl -sS --max-time 10 "$API/api/v1/targets" >"$TMP/targets.json" || fail "targets query failed"

stop_sh "$sh" TERM || fail "schedhist exited with $? on SIGTERM"
stop_prometheus
assert_nothing_leaked

python3 - "$TMP" "$go_at" <<'EOF' || fail "Prometheus' native histogram and schedhist's JSON disagree"
import json, sys
tmp, go_at = sys.argv[1], float(sys.argv[2])

def result(name):
    r = json.load(open(f'{tmp}/{name}.json'))
    assert r['status'] == 'success', r
    return r['data']['result']

targets = json.load(open(f'{tmp}/targets.json'))['data']['activeTargets']
assert len(targets) == 1, targets
t = targets[0]
assert t['health'] == 'up' and not t['lastError'], f"target {t['health']}: {t['lastError']}"

series = {(s['metric']['__name__'], s['metric'].get('key')): int(s['value'][1])
          for s in result('series')}
print(f'series: {series}')
assert series == {('schedhist_wait_seconds', 'all'): 1}, 'not one native series per key'

# The grid (include/schedhist.h): bucket j's upper edge is 2^(j-20) s,
# floor(1e9 * 2^(j-20)) ns; JSON has [lo_ns, hi_ns), hi_ns null for the last.
N = 41	# SH_NBUCKETS
E = [10**9 << (j - 20) if j >= 20 else 10**9 >> (20 - j) for j in range(0, N - 1)]
slot_of_lo = {0: 0, **{E[j - 1] + 1: j for j in range(1, N)}}
def edges_s(j):	# the bucket's bounds in seconds, as Prometheus has them
    return (-2.0**-20, 2.0**-20) if j == 0 else (2.0**(j - 21), 2.0**(j - 20))

reports = [json.loads(l) for l in open(f'{tmp}/fleet.out')]
assert all(r['cumulative'] for r in reports)
by_seen = {r['events']['seen']: r for r in reports}
def all_group(r):	# a report without waits has no group
    g = [g for g in r['groups'] if g['key'] == 'all']
    assert len(g) <= 1, r
    return g[0] if g else {'count': 0, 'buckets': []}

events = result('events')
assert len(events) == 1, events
seen_at = {float(ts): int(v) for ts, v in events[0]['values']}
hists = result('hists')
assert len(hists) == 1, hists
samples = hists[0]['histograms']
def scrapes():	# each scrape in the window: seconds since go, up, its duration
    up = {float(ts): v for ts, v in result('up')[0]['values']} if result('up') else {}
    dur = {float(ts): float(v) for ts, v in result('scrape_s')[0]['values']} if result('scrape_s') else {}
    return [(round(ts - go_at, 2), up[ts], dur.get(ts)) for ts in sorted(up)]
# the window spans 5 s before the workload, its 8 s and the rule's settling
assert len(samples) >= 10, \
    f'only {len(samples)} native samples in the window, at {[round(float(ts) - go_at, 2) for ts, _ in samples]} s ' \
    f'since go; scrapes (since go, up, seconds): {scrapes()}'
assert float(samples[0][1]['count']) == 0, \
    f'the window does not start before the workload: {samples[0]}, {[all_group(r)["count"] for r in reports[:8]]}'
matched = 0
for ts, h in samples:
    r = by_seen.get(seen_at[float(ts)])
    if r is None:
        continue	# a reading whose report the poller had not printed yet
    g = all_group(r)
    want = {}
    for b in g['buckets']:
        want[edges_s(slot_of_lo[b['lo_ns']])] = b['count']
    got = {}
    for rule, lo, hi, n in h.get('buckets', []):
        lo, hi = float(lo), float(hi)
        # the zero bucket is [-t, t]; the others (lo, hi], rule 0 = open left, closed right
        assert (lo, hi) == (-2.0**-20, 2.0**-20) and rule == 3 or rule == 0, (rule, lo, hi)
        got[(lo, hi)] = int(float(n))
    assert got == want, f'sample at {ts}: Prometheus {got}, JSON {want}'
    assert int(float(h['count'])) == g['count'], f"sample at {ts}: count {h['count']} vs {g['count']}"
    matched += 1
assert matched >= 10, f'only {matched} samples matched a reading'

# the last sample of the window is the reading the instant queries see
last = by_seen[seen_at[float(samples[-1][0])]]
g = all_group(last)
prom_count = int(float(result('count')[0]['value'][1]))
assert prom_count == g['count'], f'histogram_count {prom_count}, JSON count {g["count"]}'
assert g['count'] > 100, f'the spinners hardly waited: {g["count"]} waits'

prom_p99 = float(result('p99')[0]['value'][1])
json_p99 = g['p99_ns'] / 1e9
# the buckets that can hold rank 0.99 * count: rates are scaled counts, so a
# rank a float's rounding away from a bucket's end may fall on either side
rank, cum, ok = 0.99 * g['count'], 0, []
for b in g['buckets']:
    j = slot_of_lo[b['lo_ns']]
    if cum < rank * (1 + 1e-9) and cum + b['count'] >= rank * (1 - 1e-9):
        ok.append(edges_s(j))
    cum += b['count']
lo, hi = min(e[0] for e in ok), max(e[1] for e in ok)
lo = max(lo, 0.0)
print(f'p99: prometheus {prom_p99 * 1e6:.1f} us, schedhist JSON {json_p99 * 1e6:.1f} us, '
      f'bucket ({lo * 1e6:.1f}, {hi * 1e6:.1f}] us; {g["count"]} waits')
for name, v in (('prometheus', prom_p99), ('JSON', json_p99)):
    assert lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9), f'{name} p99 {v} outside ({lo}, {hi}]'

# the recording rule: the native branch, the same p99 (evaluated at
# eval_at, a time it was evaluated at on the same data; rate over 5 m or
# W: the same samples after zero ones, so the same quantile up to rounding)
rule = result('rule')
assert len(rule) == 1, f'recorded p99: {rule}'
assert rule[0]['metric']['job'] == 'schedhist' and rule[0]['metric']['key_type'] == 'none', rule
rec, direct = float(rule[0]['value'][1]), float(result('p99_5m')[0]['value'][1])
print(f'recorded p99 {rec * 1e6:.3f} us, direct {direct * 1e6:.3f} us')
assert abs(rec - direct) <= 1e-9 * direct and abs(rec - prom_p99) <= 1e-9 * prom_p99, 'recording rule'
EOF

# --prom-classic: a scraper asking for protobuf gets the text format (classic)
start_sh classic -M runq -p $$ --listen "127.0.0.1:$sh_port" -i 1 --prom-classic
for i in $(seq 1 100); do	# a hang guard: until it serves its first reading
	[ "$(curl -s --max-time 1 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$sh_port/metrics")" = 200 ] && break
	sleep 0.1
done
PB='application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3'
type=$(scrape "$sh_port" -H "Accept: $PB" -o /dev/null -w '%{content_type}')
[ "$type" = "text/plain; version=0.0.4; charset=utf-8" ] || fail "--prom-classic served '$type'"
body=$(scrape "$sh_port" -H "Accept: $PB")
grep -q '^schedhist_wait_seconds_bucket{metric="runq",key_type="none",key="all",le="+Inf"} ' <<<"$body" ||
	fail "--prom-classic: no classic buckets"
stop_sh "$SH_PID" TERM || fail "schedhist --prom-classic exited with $? on SIGTERM"
assert_nothing_leaked
