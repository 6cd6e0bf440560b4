#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Exemplars, read back by real Prometheus servers: schedhist --listen
# -M runq -k comm --stacks -p WORKLOAD (two spinners pinned to CPU 0,
# named nspin) with its JSON interval reports on stdout (--print -j),
# scraped every second by two of Debian's prometheus at once, both with
# --enable-feature=exemplar-storage: one asks for OpenMetrics (classic
# buckets), the other, with native-histograms too, for protobuf. Then,
# through each one's /api/v1/query_exemplars:
#  - every exemplar is the JSON max record of its own reading: the same
#    tid, comm and stack id (max_stack_id, present exactly when the JSON
#    has one) and the exact wait (max_ns) as its value;
#  - OpenMetrics puts it on the le bucket that holds that wait;
#  - every reading a scrape brought has its exemplar: the tids, comms and
#    values of the interval max gauge Prometheus stored for a key are all
#    among the key's exemplars;
#  - at least two readings of the spinners' key in both, some exemplars with a stack id.
# A live OpenMetrics scrape passes tests/prom-check.py (exemplar syntax,
# labels within 128 characters, one per histogram, on the bucket of its
# value). Prometheus is stopped and its data removed on every exit.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
command -v prometheus >/dev/null || skip "prometheus not installed (Debian package prometheus)"
grep -q ' T schedule$' /proc/kallsyms || skip "--stacks needs kernel symbols (/proc/kallsyms)"

SPIN_S=10	# the spinners run this long

sh_port=$(free_port)
om_port=$(free_port)
pb_port=$(free_port)
[ "$om_port" != "$sh_port" ] || om_port=$(free_port)
while [ "$pb_port" = "$sh_port" ] || [ "$pb_port" = "$om_port" ]; do pb_port=$(free_port); done

# the workload waits, blocked on a FIFO (no waits recorded meanwhile), for "go"
mkfifo "$TMP/go"
( read -r _ <"$TMP/go"; exec "$HELPERS/spinners" -n 2 -c 0 -t "$SPIN_S" -N nspin -x ) \
	>"$TMP/spin.out" &
WL=$!
CHILD_PIDS+=("$WL")

start_sh ex -M runq -k comm --stacks -p "$WL" --listen "127.0.0.1:$sh_port" -i 1 --print -j
sh=$SH_PID

for name in om pb; do
	prom_config "$TMP/$name.yml" "$sh_port"
done
PROM_NAME=om start_prometheus "$om_port" --enable-feature=exemplar-storage
om_pid=$prom om_api=$API
PROM_NAME=om prometheus_ready
PROM_NAME=pb start_prometheus "$pb_port" --enable-feature=exemplar-storage,native-histograms
pb_pid=$prom pb_api=$API
PROM_NAME=pb prometheus_ready

# both have scraped schedhist (they start some seconds after they are
# ready: a hang guard, not a bound on speed)
for api in "$om_api" "$pb_api"; do
	for i in $(seq 1 600); do
		n=$(curl -sS --max-time 2 --get "$api/api/v1/query" \
			--data-urlencode 'query=count_over_time(schedhist_events_total{metric="runq"}[1m])' |
			python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
		[ "${n:-0}" -ge 2 ] && break
		[ "$i" -lt 600 ] || fail "Prometheus at $api did not scrape schedhist within 60 s"
		sleep 0.1
	done
done
start_at=$(date +%s.%N)
echo go >"$TMP/go"
# a live scrape once a reading has the spinners' waits (a hang guard: while they run)
for i in $(seq 1 $((SPIN_S * 10))); do
	scrape "$sh_port" -H 'Accept: application/openmetrics-text; version=1.0.0' >"$TMP/live.om"
	grep -q 'key="nspin",le="[^"]*"} [0-9]* # {tid="' "$TMP/live.om" && break
	[ "$i" -lt $((SPIN_S * 10)) ] || fail "no exemplar of the spinners in a live OpenMetrics scrape"
	sleep 0.1
done
python3 tests/prom-check.py --openmetrics "$TMP/live.om" || fail "OpenMetrics scrape with exemplars"
wait "$WL" || fail "spinners failed"
sleep 3	# the last readings reach both
end_at=$(date +%s.%N)
# the exemplars from well before the window of the max gauge's samples: a
# scrape in the window may bring a reading from before it
ex_from=$(python3 -c "print(f'{$start_at - 30:.3f}')")

for name in om pb; do
	api=${name}_api
	api=${!api}
	not_reports "$TMP/$name-ex.json" "$TMP/$name-max.json" "$TMP/$name-tsdb"
	series='schedhist_wait_seconds_bucket{metric="runq"}'
	[ "$name" = pb ] && series='schedhist_wait_seconds{metric="runq"}'
	curl -sS --max-time 10 --get "$api/api/v1/query_exemplars" --data-urlencode "query=$series" \
		--data-urlencode "start=$ex_from" --data-urlencode "end=$end_at" >"$TMP/$name-ex.json" ||
		fail "query_exemplars on $name failed"
	curl -sS --max-time 10 --get "$api/api/v1/query" \
		--data-urlencode 'query=schedhist_interval_max_wait_seconds{metric="runq"}[1h]' \
		--data-urlencode "time=$end_at" >"$TMP/$name-max.json" || fail "max query on $name failed"
done
stop_sh "$sh" TERM || fail "schedhist exited with $? on SIGTERM"
prom=$om_pid stop_prometheus
prom=$pb_pid stop_prometheus
assert_nothing_leaked

python3 - "$TMP" "$start_at" <<'EOF' || fail "Prometheus' exemplars and schedhist's JSON disagree"
import json, sys
from datetime import datetime, timezone
tmp, start_at = sys.argv[1], float(sys.argv[2])

def ms(rfc3339):	# the JSON's time: milliseconds, truncated
    t = datetime.strptime(rfc3339, '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=timezone.utc)
    return int(t.timestamp() * 1000 + 0.5)

# the JSON max record of each reading, by key: the reading's time in ms
reports = {}
for line in open(f'{tmp}/ex.out'):
    r = json.loads(line)
    assert not r['cumulative']
    reports[ms(r['time'])] = {g['key']: g for g in r['groups'] if g.get('max_tid')}

def result(path):
    r = json.load(open(path))
    assert r['status'] == 'success', r
    return r['data']

for name in ('om', 'pb'):
    exemplars = result(f'{tmp}/{name}-ex.json')
    seen, with_stack, spin = {}, 0, 0
    for s in exemplars:
        key = s['seriesLabels']['key']
        for e in s['exemplars']:
            t = round(e['timestamp'] * 1000)
            # The exemplar and the JSON report come from the same reading:
            # one tick hands its snapshot to every output, and the
            # exemplar's timestamp is that tick's report time, the JSON's
            # "time", in ms. Protobuf carries it as seconds and nanos, which
            # Prometheus truncates to the JSON's ms; OpenMetrics writes
            # "S.mmm", which Prometheus parses as a float and truncates
            # after a multiplication by 1000: 1 ms less when the float is
            # just below. Readings are a second apart, so this names one.
            cands = [t] if name == 'pb' else [t, t + 1]
            r = [reports[c] for c in cands if c in reports]
            assert len(r) == 1, f'{name}: exemplar {e} of {key} at {t}: no reading of its time'
            g = r[0].get(key)
            assert g, f'{name}: exemplar {e} of {key}: the reading has no max of {key}'
            want = {'tid': str(g['max_tid']), 'comm': g['max_comm']}
            if 'max_stack_id' in g:
                want['stack_id'] = g['max_stack_id']
                with_stack += 1
            assert e['labels'] == want, f'{name}: exemplar {e["labels"]}, JSON {want}'
            v = float(e['value'])
            assert v == g['max_ns'] / 1e9, f'{name}: exemplar value {v}, JSON max_ns {g["max_ns"]}'
            if name == 'om':	# on the bucket of its value: (le/2, le]
                le = float(s['seriesLabels']['le'])
                assert le / 2 < v <= le, f'exemplar {v} on le="{le}"'
            seen.setdefault(key, set()).add((want['tid'], want['comm'], v))
            spin += key == 'nspin'
    # every reading scraped has its exemplar: those the max gauge stored
    gauge = {}
    for s in result(f'{tmp}/{name}-max.json')['result']:
        m = s['metric']
        for ts, v in s['values']:
            if float(ts) >= start_at:
                gauge.setdefault(m['key'], set()).add((m['tid'], m['comm'], float(v)))
    for key, want in gauge.items():
        missing = want - seen.get(key, set())
        assert not missing, f'{name}: maxes of {key} with no exemplar: {missing}'
    print(f'{name}: {sum(len(e["exemplars"]) for e in exemplars)} exemplars, {spin} of the '
          f'spinners, {with_stack} with a stack id, all their readings\' max records')
    # the spinners wait in each of the SPIN_S readings they run: at least
    # two distinct readings of theirs were scraped, each with its exemplar
    assert len(gauge.get('nspin', ())) >= 2, f'{name}: maxes of the spinners {gauge.get("nspin")}'
    assert with_stack >= 1, f'{name}: no exemplar with a stack id'
EOF
