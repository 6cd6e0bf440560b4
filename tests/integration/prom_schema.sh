#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --schema 3 in a real Prometheus (Debian's prometheus with
# --enable-feature=native-histograms, as prom_native): schedhist --listen
# --schema 3 -M runq -p WORKLOAD, two spinners pinned to CPU 0, with its
# JSON reports since start (--cumulative, one a second); a Prometheus
# sample holds one such reading (matched by events_total, the JSON's
# events.seen). Then:
#  - every raw native sample is the JSON buckets of its reading at schema
#    3: bucket j (JSON lo_ns, hi_ns) is native index j - 160, bounds
#    (2^((j - 161) / 8), 2^((j - 160) / 8)] s, or the zero bucket;
#  - histogram_quantile(q, ...) of the last sample (the last reading since
#    start) for q = 0.5, 0.9, 0.99 lies in the schema-3 bucket that holds
#    rank q * count, as the JSON's p50, p90 and p99 do: Prometheus and
#    schedhist agree within one bucket of 9 % (a factor 2^(1/8)), where
#    schema 0 allows a factor 2.
# Prometheus is stopped and its data removed on every exit.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
command -v prometheus >/dev/null || skip "prometheus not installed (Debian package prometheus)"

sh_port=$(free_port)
prom_port=$(free_port)
[ "$prom_port" != "$sh_port" ] || prom_port=$(free_port)

# the workload waits, blocked on a FIFO (no waits recorded meanwhile), for "go"
mkfifo "$TMP/go"
( read -r _ <"$TMP/go"; exec "$HELPERS/spinners" -n 2 -c 0 -t 6 -N s3spin -x ) \
	>"$TMP/spin.out" &
WL=$!
CHILD_PIDS+=("$WL")

start_sh fleet -M runq -p "$WL" --schema 3 --listen "127.0.0.1:$sh_port" -i 1 --print -j \
	--cumulative
sh=$SH_PID

prom_config "$TMP/prometheus.yml" "$sh_port"
start_prometheus "$prom_port" --enable-feature=native-histograms
prometheus_ready

echo go >"$TMP/go"
wait "$WL" || fail "spinners failed"
# the readings after the spinners' end reach Prometheus: a hang guard, not
# a bound on speed (it ends at the first scrape of a reading as the last)
for i in $(seq 1 600); do
	n=$(curl -sS --max-time 2 --get "$API/api/v1/query" \
		--data-urlencode 'query=count_over_time(schedhist_wait_seconds{key="all"}[3s])' |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
	[ "${n:-0}" -ge 2 ] && [ "$i" -ge 30 ] && break
	sleep 0.1
done
eval_at=$(date +%s.%N)

query() {	# query NAME PROMQL: the JSON answer of /api/v1/query at $eval_at into $TMP/NAME.json
	not_reports "$TMP/$1.json"	# Prometheus' answer, not a report
	curl -sS --max-time 10 --get "$API/api/v1/query" --data-urlencode "query=$2" \
		--data-urlencode "time=$eval_at" >"$TMP/$1.json" || fail "query '$2' failed"
}
for q in 50 90 99; do
	query "p$q" "histogram_quantile(0.$q, schedhist_wait_seconds{metric=\"runq\",key=\"all\"})"
done
query last 'timestamp(schedhist_wait_seconds{metric="runq",key="all"})'
query hists 'schedhist_wait_seconds{metric="runq",key="all"}[30s]'
query events 'schedhist_events_total{metric="runq"}[30s]'
not_reports "$TMP/tsdb"

stop_sh "$sh" TERM || fail "schedhist exited with $? on SIGTERM"
stop_prometheus
assert_nothing_leaked

python3 - "$TMP" <<'EOF' || fail "Prometheus' schema-3 histogram and schedhist's JSON disagree"
import json, math, sys
tmp = sys.argv[1]

def result(name):
    r = json.load(open(f'{tmp}/{name}.json'))
    assert r['status'] == 'success', r
    return r['data']['result']

# schema 3's grid (man page, BUCKETS): bucket j's upper edge floor(1e9 * 2^(j/8 - 20)) ns
N = 321
E = [math.floor(1e9 * 2.0 ** (j / 8 - 20)) for j in range(N - 1)]
slot_of_lo = {0: 0, **{E[j - 1] + 1: j for j in range(1, N)}}
def edges_s(j):	# the bucket's bounds in seconds, as Prometheus has them
    return (-2.0**-20, 2.0**-20) if j == 0 else (2.0**((j - 161) / 8), 2.0**((j - 160) / 8))

reports = [json.loads(l) for l in open(f'{tmp}/fleet.out')]
assert all(r['bucket_schema'] == 3 for r in reports), 'bucket_schema'
by_seen = {r['events']['seen']: r for r in reports}
def all_group(r):
    g = [g for g in r['groups'] if g['key'] == 'all']
    return g[0] if g else {'count': 0, 'buckets': []}

seen_at = {float(ts): int(v) for ts, v in result('events')[0]['values']}
samples = result('hists')[0]['histograms']
matched = 0
for ts, h in samples:
    r = by_seen.get(seen_at.get(float(ts)))
    if r is None:
        continue	# a reading whose report the poller had not printed yet
    g = all_group(r)
    want = {edges_s(slot_of_lo[b['lo_ns']]): b['count'] for b in g['buckets']}
    got = {}
    for rule, lo, hi, n in h.get('buckets', []):
        got[(float(lo), float(hi))] = int(float(n))
    # the bounds as floats: Prometheus' 2^(i/8) and ours may differ in the last bit
    same = len(got) == len(want) and all(
        math.isclose(a[0], b[0], rel_tol=1e-12) and math.isclose(a[1], b[1], rel_tol=1e-12)
        and got[a] == want[b] for a, b in zip(sorted(got), sorted(want)))
    assert same, f'sample at {ts}: Prometheus {sorted(got.items())}, JSON {sorted(want.items())}'
    matched += 1
assert matched >= 3, f'only {matched} samples matched a reading'

last_ts = float(result('last')[0]['value'][1])
last = by_seen[seen_at[last_ts]]
g = all_group(last)
assert g['count'] > 100, f'the spinners hardly waited: {g["count"]} waits'
bad = 0
for q in (50, 90, 99):
    prom = float(result(f'p{q}')[0]['value'][1])
    js = g[f'p{q}_ns'] / 1e9
    # the buckets that can hold rank q * count (a float's rounding may put a
    # rank at a bucket's end on either side)
    rank, cum, ok = q / 100 * g['count'], 0, []
    for b in g['buckets']:
        if cum < rank * (1 + 1e-9) and cum + b['count'] >= rank * (1 - 1e-9):
            ok.append(edges_s(slot_of_lo[b['lo_ns']]))
        cum += b['count']
    lo, hi = max(min(e[0] for e in ok), 0.0), max(e[1] for e in ok)
    print(f'p{q}: prometheus {prom * 1e6:.1f} us, schedhist JSON {js * 1e6:.1f} us, '
          f'bucket ({lo * 1e6:.1f}, {hi * 1e6:.1f}] us; {g["count"]} waits')
    for name, v in (('prometheus', prom), ('JSON', js)):
        if not lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9):
            print(f'  {name} p{q} {v} outside ({lo}, {hi}]'); bad += 1
sys.exit(1 if bad else 0)
EOF
