#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# A real Prometheus server (Debian's prometheus, on a loopback port, with a
# throwaway TSDB in $TMP, scraping every second) scrapes schedhist --listen
# while two spinners pinned to CPU 0 take turns on its run queue. Then its
# HTTP API must agree with what the same schedhist printed as JSON
# (--print -j, one report per second) over the same 10 s window:
#  - histogram_quantile(0.99, sum by (le) (rate(..._bucket{metric="runq"}[10s])))
#    against the p99 of the JSON buckets of every key over the window,
#    interpolated the way histogram_quantile does: same order of magnitude
#    (within a factor of 3). The window's JSON reports are those between the
#    two readings that the window's first and last samples hold (matched by
#    events_total), so both sides count the very same waits;
#  - rate(..._count{key="spinner"}[10s]) against the spinners' waits per
#    second in the JSON: within 20%.
# The target must be up with no scrape error (Prometheus asks for
# OpenMetrics). Prometheus is stopped and its data removed on every exit.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
command -v prometheus >/dev/null || skip "prometheus not installed (Debian package prometheus)"

SPIN_S=16	# spinners run this long
EVAL_AT=13	# evaluate at spinner start + this: the window [3 s, 13 s] of the spin

sh_port=$(free_port)
prom_port=$(free_port)
[ "$prom_port" != "$sh_port" ] || prom_port=$(free_port)

start_sh fleet -M runq -k comm --listen "127.0.0.1:$sh_port" -i 1 --print -j
sh=$SH_PID

cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
scrape_configs:
  - job_name: schedhist
    static_configs:
      - targets: ['127.0.0.1:$sh_port']
EOF
start_prometheus "$prom_port"
prometheus_ready

# a few scrapes before the workload, so every series has samples before the window
sleep 3
spin_start=$(date +%s.%N)
"$HELPERS/spinners" -n 2 -c 0 -t "$SPIN_S" -x >"$TMP/spin.out" &
CHILD_PIDS+=($!)
wait $!
sleep 2	# the last readings reach Prometheus
eval_at=$(python3 -c "print(f'{$spin_start + $EVAL_AT:.3f}')")

# Prometheus' own JSON (its answers, its TSDB): not schedhist reports
not_reports "$TMP/tsdb" "$TMP/p99.json" "$TMP/rate.json" "$TMP/window.json" "$TMP/targets.json"
query() {	# query PROMQL: the JSON answer of /api/v1/query at $eval_at
	curl -sS --max-time 10 --get "$API/api/v1/query" --data-urlencode "query=$1" \
		--data-urlencode "time=$eval_at" || fail "query '$1' failed"
}
query 'histogram_quantile(0.99, sum by (le) (rate(schedhist_wait_seconds_bucket{metric="runq"}[10s])))' \
	>"$TMP/p99.json"
query 'sum(rate(schedhist_wait_seconds_count{metric="runq",key="spinner"}[10s]))' >"$TMP/rate.json"
# the raw samples of the window, to find the readings Prometheus computed from
query 'schedhist_events_total{metric="runq"}[10s]' >"$TMP/window.json"
curl -sS --max-time 10 "$API/api/v1/targets" >"$TMP/targets.json" || fail "targets query failed"

stop_sh "$sh" TERM || fail "schedhist exited with $? on SIGTERM"
stop_prometheus
assert_nothing_leaked
kill -0 "$prom" 2>/dev/null && fail "prometheus still running"

python3 - "$TMP" <<'EOF' || fail "Prometheus and schedhist's JSON disagree"
import json, sys
tmp = sys.argv[1]

targets = json.load(open(f'{tmp}/targets.json'))['data']['activeTargets']
assert len(targets) == 1, targets
t = targets[0]
assert t['health'] == 'up' and not t['lastError'], f"target {t['health']}: {t['lastError']}"

def scalar(name):
    r = json.load(open(f'{tmp}/{name}.json'))
    assert r['status'] == 'success', r
    res = r['data']['result']
    assert len(res) == 1, f'{name}: {res}'
    return float(res[0]['value'][1])
prom_p99, prom_rate = scalar('p99'), scalar('rate')

# The window's first and last samples hold two readings; the JSON reports
# after the first up to the last are the waits rate() saw. A reading is
# known by its events_total, the running sum of the reports' events.seen.
w = json.load(open(f'{tmp}/window.json'))['data']['result']
assert len(w) == 1, w
first, last = int(w[0]['values'][0][1]), int(w[0]['values'][-1][1])
reports, seen = [], 0
for line in open(f'{tmp}/fleet.out'):
    r = json.loads(line)
    seen += r['events']['seen']
    reports.append((seen, r))
starts = [i for i, (v, _) in enumerate(reports) if v == first]
assert first == 0 or starts, f'no reading with events_total {first}'
i0 = starts[0] + 1 if first else 0
buckets, spin, span = {}, 0, 0.0
for v, r in reports[i0:]:
    span += r['interval_s']
    for g in r['groups']:
        if g['key'] == 'spinner':
            spin += g['count']
        for b in g['buckets']:
            k = (b['lo_ns'], b['hi_ns'])
            buckets[k] = buckets.get(k, 0) + b['count']
    if v == last:
        break
else:
    raise AssertionError(f'no reading with events_total {last}')
assert span >= 8, f'only {span:.1f} s of reports in the window'
json_rate = spin / span
total = sum(buckets.values())
# histogram_quantile: the bucket holding rank 0.99 * total, linear inside it
rank, cum, json_p99 = 0.99 * total, 0, None
for (lo, hi), n in sorted(buckets.items()):
    if cum + n >= rank:
        lo_s = 0 if lo == 0 else lo / 1e9
        json_p99 = lo_s + (hi / 1e9 - lo_s) * (rank - cum) / n if hi is not None else lo_s
        break
    cum += n
print(f'p99: prometheus {prom_p99 * 1e3:.3f} ms, schedhist JSON {json_p99 * 1e3:.3f} ms')
print(f'spinner waits/s: prometheus {prom_rate:.1f}, schedhist JSON {json_rate:.1f} '
      f'({spin} waits in {span:.1f} s)')
assert json_rate > 10, 'the spinners hardly waited'
assert 1 / 3 <= prom_p99 / json_p99 <= 3, 'p99 not of the same order of magnitude'
assert abs(prom_rate / json_rate - 1) <= 0.20, 'count rates differ by more than 20%'
EOF
