#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# contrib/grafana/schedhist.json against a real Prometheus (Debian's, with
# native histograms, scraping every second) scraping real schedhist
# exporters: every variable's query (label_values) finds values, and every
# panel's every query, with the variables set to All (host, cgroup) and
# runq (metric) and $__rate_interval to 30 s, answers with at least one
# series. The workload has something for each panel: spinners in a cgroup
# limited to 10 % of a CPU (throttled) and in one without a limit beside
# it (run-queue waits, culprits). Two exporters, both -M runq -k cgroup
# --culprits: one on the hierarchy with the cpu controller (throttling:
# cgroup2 cpu.max, or v1 cpu.cfs_quota_us on a hybrid host), one on
# cgroup2 (cpu.pressure, which v1 lacks); on a pure cgroup2 host they are
# alike. The dashboard's JSON itself: a datasource variable that every
# panel and query uses, the host and cgroup variables, a heatmap. Every
# query of the wait histogram (the latency panels) shows exemplars, and
# Prometheus (with exemplar storage) has some for it, with tid and comm.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
command -v prometheus >/dev/null || skip "prometheus not installed (Debian package prometheus)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
DASH=contrib/grafana/schedhist.json
not_reports "$DASH" "$TMP/tsdb" "$TMP/answers"
mkdir "$TMP/answers"

quota_cgroups schedhist-graf 100000 10000
test_cleanup() { remove_cgroup_tree "$PARENT"; }
CG2=$(cgroup_mount)
[ -n "$CG2" ] || skip "no cgroup2 hierarchy mounted"

p1=$(free_port); p2=$(free_port); pp=$(free_port)
[ "$p1" != "$p2" ] && [ "$pp" != "$p1" ] && [ "$pp" != "$p2" ] || fail "ports collide: $p1 $p2 $pp"
start_sh quota -M runq -k cgroup --culprits -i 1 --listen "127.0.0.1:$p1" --user root "${HIER[@]}"
start_sh cg2 -M runq -k cgroup --culprits -i 1 --listen "127.0.0.1:$p2" --user root
in_cgroup "$PARENT/t" taskset -c 0 "$HELPERS/spinners" -n 1 -c 0 -t 1000 -N grafT >/dev/null &
CHILD_PIDS+=($!)
in_cgroup "$PARENT/u" taskset -c 0 "$HELPERS/spinners" -n 2 -c 0 -t 1000 -N grafU >/dev/null &
CHILD_PIDS+=($!)

prom_config "$TMP/prometheus.yml" "$p1" "$p2"
start_prometheus "$pp" --enable-feature=native-histograms,exemplar-storage
prometheus_ready
# wait until both targets have 10 scrapes (rates over 30 s need two; a hang guard of 60 s)
for i in $(seq 1 600); do
	n=$(curl -sS --max-time 2 --get "$API/api/v1/query" \
		--data-urlencode 'query=count(count_over_time(schedhist_build_info[1m]) >= 10)' |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
	[ "${n:-0}" -ge 2 ] && break
	[ "$i" -lt 600 ] || fail "Prometheus did not scrape both exporters 10 times within 60 s"
	sleep 0.1
done

python3 - "$DASH" "$API" "$TMP/answers" <<'PY' || fail "the dashboard's queries (above)"
import json, re, sys, time, urllib.parse, urllib.request
dash, api, out = sys.argv[1:]
d = json.load(open(dash))

def get(path, **params):
    url = f'{api}{path}?{urllib.parse.urlencode(params, doseq=True)}'
    r = json.load(urllib.request.urlopen(url, timeout=10))
    assert r['status'] == 'success', r
    return r['data']

vars_ = {v['name']: v for v in d['templating']['list']}
assert vars_['datasource']['type'] == 'datasource' and vars_['datasource']['query'] == 'prometheus'
assert {'host', 'cgroup', 'metric'} <= set(vars_), sorted(vars_)
values = {'host': '.*', 'cgroup': '.*', 'metric': 'runq', '__rate_interval': '30s'}
subst = lambda e: re.sub(r'\$(\w+)', lambda m: values[m.group(1)], e)
for name in ('host', 'metric', 'cgroup'):
    q = vars_[name]['query']['query']
    m = re.fullmatch(r'label_values\((.*), (\w+)\)', q)
    assert m, f'variable {name}: {q}'
    vals = sorted({s[m.group(2)] for s in get('/api/v1/series', **{'match[]': subst(m.group(1))})
                   if m.group(2) in s})
    assert vals, f'variable {name}: {q} finds no values'
    print(f'variable {name}: {len(vals)} values, e.g. {vals[:3]}')
    assert vars_[name]['datasource']['uid'] == '${datasource}'
kinds = set()
for p in d['panels']:
    kinds.add(p['type'])
    assert p['datasource']['uid'] == '${datasource}', p['title']
    for t in p['targets']:
        assert t['datasource']['uid'] == '${datasource}', p['title']
        e = subst(t['expr'])
        r = get('/api/v1/query', query=e)['result']
        json.dump(r, open(f"{out}/{p['id']}{t['refId']}.json", 'w'))
        assert r, f"panel '{p['title']}' query {t['refId']}: no series: {e}"
        print(f"panel '{p['title']}' {t['refId']}: {len(r)} series")
        if 'schedhist_wait_seconds{' not in e or 'histogram_sum' in e:
            continue
        # a latency panel: its exemplars on, and the exemplars of the last minute found
        assert t.get('exemplar') is True, f"panel '{p['title']}': exemplars off"
        now = time.time()
        ex = get('/api/v1/query_exemplars', query=e, start=now - 60, end=now)
        n = sum(len(s['exemplars']) for s in ex)
        assert n and all({'tid', 'comm'} <= set(x['labels']) for s in ex for x in s['exemplars']), \
            f"panel '{p['title']}' query {t['refId']}: exemplars {ex}"
        print(f"panel '{p['title']}' {t['refId']}: {n} exemplars")
assert 'heatmap' in kinds, kinds
PY
stop_prometheus
for p in "${SH_PIDS[@]}"; do stop_sh "$p" TERM || fail "schedhist exited with $? on SIGTERM"; done
assert_nothing_leaked
