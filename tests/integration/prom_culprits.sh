#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --culprits in fleet mode: cgroup a runs one CPU-bound thread and cgroup b
# two, all pinned to CPU 0; cgroup c two on CPU 1 (the workload of
# culprits.sh). One schedhist run prints JSON and serves /metrics. Once the
# spinners are done, a scrape's schedhist_culprit_waits_total of a behind
# b is the count of switches from b to a's spinner in the kernel's own
# sched_switch trace (ftrace), and a is never behind c; its series (text, OpenMetrics)
# agree with the sums of the run's own JSON culprits, bound by those
# reports' [rest]; no key has more than 5 culprits plus [rest]; the
# culprit series of a key add up to at least its histogram's _sum; and no
# counter goes back between two scrapes. A real Prometheus (Debian's, with
# --enable-feature=native-histograms: the protobuf exposition) scrapes the
# same run every second: its culprit and cgroup counter series of a, taken
# once a waits no more, have the labels and values of the text scrape.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
command -v promtool >/dev/null || skip "promtool not installed (Debian package prometheus)"
command -v prometheus >/dev/null || skip "prometheus not installed (Debian package prometheus)"
CHECK=tests/prom-check.py

cgroup_v2_or_cpu
PARENT=$MNT/schedhist-pcul-$$
test_cleanup() { remove_cgroup_tree "$PARENT"; }
mkdir "$PARENT" "$PARENT/a" "$PARENT/b" "$PARENT/c" || fail "cannot create cgroups under $MNT"

port=$(free_port)
prom_port=$(free_port)
[ "$prom_port" != "$port" ] || prom_port=$(free_port)
start_sh cul -M runq -k cgroup --culprits -j --print -i 0.5 --listen ":$port" "${HIER[@]}"
sh=$SH_PID

prom_config "$TMP/prometheus.yml" "$port"
start_prometheus "$prom_port" --enable-feature=native-histograms
# query NAME PROMQL [TIME]: Prometheus' JSON answer into $TMP/NAME.json
query() {
	not_reports "$TMP/$1.json"	# Prometheus' answer, not a report
	curl -sS --max-time 10 --get "$API/api/v1/query" --data-urlencode "query=$2" \
		${3:+--data-urlencode "time=$3"} >"$TMP/$1.json" || fail "query '$2' failed"
}
not_reports "$TMP/targets.json" "$TMP/tsdb"
pinned_in() { taskset -c "$1" sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$2" "${@:3}"; }
# CPU 0's switches over the spinners' run (a's spinner starts after this)
# (only the switches to a's spinner, pculA, or to a thread not named yet:
# the ones trace_blame counts)
switch_trace_start 0 'next_comm == "pculA" || next_comm == "spinners"'
pinned_in 0 "$PARENT/a" "$HELPERS/spinners" -n 1 -c 0 -t 2 -N pculA >"$TMP/a.out" &
CHILD_PIDS+=($!)
pinned_in 0 "$PARENT/b" "$HELPERS/spinners" -n 2 -c 0 -t 2 -N pculB >"$TMP/b.out" &
CHILD_PIDS+=($!)
pinned_in 1 "$PARENT/c" "$HELPERS/spinners" -n 2 -c 1 -t 2 -N pculC >"$TMP/c.out" &
CHILD_PIDS+=($!)
scrape "$port" >"$TMP/s0.txt"
# each spinner prints its line once its run time is over, then blocks
for i in $(seq 1 1200); do
	[ "$(cat "$TMP"/[abc].out | grep -c '^tid')" -eq 5 ] && break
	sleep 0.05
done
[ "$(cat "$TMP"/[abc].out | grep -c '^tid')" -eq 5 ] || fail "the spinners did not finish"
# a's threads all block now: two more reports, and the exporter has
# published a reading taken after a's last wait (it publishes each reading
# right after the report of that reading is printed)
n=$(wc -l <"$TMP/cul.out")
for i in $(seq 1 1200); do
	[ "$(wc -l <"$TMP/cul.out")" -ge $((n + 2)) ] && break
	sleep 0.05
done
[ "$(wc -l <"$TMP/cul.out")" -ge $((n + 2)) ] || fail "no report after the spinners"
scrape "$port" >"$TMP/s1.txt"
switch_trace_stop "$TMP/switches"
trace_blame "$TMP/switches" "$TMP/a.out" "$PARENT/a" "$PARENT/b" >"$TMP/blame"
scrape "$port" -H 'Accept: application/openmetrics-text;version=1.0.0' >"$TMP/om.txt"
# a Prometheus scrape after that one (the same values for a): a hang
# guard of 60 s (Prometheus starts scraping some seconds after it is up)
s1_at=$(date +%s.%N)
for i in $(seq 1 600); do
	query last 'max(timestamp(schedhist_events_total{metric="runq"}))'
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["data"]["result"]
sys.exit(0 if r and float(r[0]["value"][1]) > float(sys.argv[2]) else 1)' "$TMP/last.json" "$s1_at" &&
		break
	[ "$i" -lt 600 ] || { cat "$TMP/prometheus.log"; fail "Prometheus did not scrape schedhist within 60 s"; }
	sleep 0.1
done
at=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["data"]["result"][0]["value"][1])' \
	"$TMP/last.json")
A=${PARENT#"$MNT"}/a
query pculprits "schedhist_culprit_wait_seconds_total{key=\"$A\"}" "$at"
query pwaits "schedhist_culprit_waits_total{key=\"$A\"}" "$at"
query pcgroup "{__name__=~\"schedhist_cgroup_.*\",key=\"$A\"}" "$at"
query pclassic 'count({__name__=~"schedhist_wait_seconds_(bucket|sum|count)"})' "$at"
curl -sS --max-time 10 "$API/api/v1/targets" >"$TMP/targets.json" || fail "targets query failed"
stop_sh "$sh" || fail "schedhist exited with $?"
stop_prometheus

promtool check metrics <"$TMP/s1.txt" >"$TMP/promtool.out" 2>&1 ||
	{ cat "$TMP/promtool.out"; fail "promtool check metrics failed"; }
python3 "$CHECK" "$TMP/s1.txt" || fail "exposition check failed"
python3 "$CHECK" --openmetrics "$TMP/om.txt" || fail "OpenMetrics check failed"
python3 "$CHECK" --monotone "$TMP/s0.txt" "$TMP/s1.txt" || fail "a counter went backwards"

python3 - "$TMP" "$PARENT" "$MNT" <<'PY'
import json, re, sys
tmp, parent, mnt = sys.argv[1:]
rel = parent[len(mnt):]
LINE = re.compile(r'^(\w+)\{(.*)\} (\S+)$')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')

def samples(path, name):
    out = {}
    for l in open(path).read().splitlines():
        m = LINE.match(l)
        if m and m.group(1) == name:
            out[tuple(LABEL.findall(m.group(2)))] = float(m.group(3))
    return out

bad = []
sec = samples(f"{tmp}/s1.txt", "schedhist_culprit_wait_seconds_total")
cnt = samples(f"{tmp}/s1.txt", "schedhist_culprit_waits_total")
hsum = samples(f"{tmp}/s1.txt", "schedhist_wait_seconds_sum")
om = samples(f"{tmp}/om.txt", "schedhist_culprit_wait_seconds_total")
if sec != om:
    bad.append("OpenMetrics and text culprit series differ")
per_key = {}
for labels, v in sec.items():
    d = dict(labels)
    per_key.setdefault(d["key"], {})[d["culprit"]] = v
    if d["metric"] != "runq" or d["key_type"] != "cgroup":
        bad.append(f"culprit series with labels {d}")
    if d.get("culprit_mode") != "switch":
        bad.append(f"culprit series {d}: not culprit_mode switch (the default)")
    if tuple(l for l in labels if l[0] not in ("culprit", "culprit_mode")) not in hsum:
        bad.append(f"culprit series {d} has labels no histogram series has")
for key, cs in per_key.items():
    if len([c for c in cs if c != "[rest]"]) > 5 or "[rest]" not in cs:
        bad.append(f"{key}: {len(cs)} culprits: {sorted(cs)}")
    # every wait of the key since its first interval (a's first interval is
    # the run's first with culprits): the culprits can only be a few waits
    # ahead of the histogram (read after it), never behind
    h = [v for l, v in hsum.items() if dict(l)["key"] == key]
    if h and sum(cs.values()) < h[0] - 1e-9:
        bad.append(f"{key}: culprits add up to {sum(cs.values())} s < its _sum {h[0]} s")
a, b, c = f"{rel}/a", f"{rel}/b", f"{rel}/c"
ca = per_key.get(a, {})
print(f"a's culprits: " + ", ".join(f"{k} {v:.3f} s" for k, v in sorted(ca.items(), key=lambda x: -x[1])))
if not ca:
    bad.append("no culprit series of a")
else:
    # A wait is blamed on the task that ran just before the waiting one
    # got the CPU: the prev of the switch to it (the host's short tasks
    # end many of them: no share of CPU time predicts b's). Every
    # switch-in of a's spinner is a run-queue wait, so the scrape's waits
    # of a behind b are the trace's switches from a thread of b to it,
    # give or take: a's main thread's waits behind b (at most its
    # switch-ins), b's main thread's switches before it joined b (at most
    # its switch-ins), and the switches schedhist's program did not see
    # or could not time (merged, no_start: counted in the run's reports)
    tb, amain, bmain = (int(x) for x in open(f"{tmp}/blame").read().split())
    slack = 0
    for line in open(f"{tmp}/cul.out"):
        ev = json.loads(line)["events"]
        slack += ev.get("merged", 0) + ev["no_start"]
    got = sum(v for l, v in cnt.items() if dict(l)["key"] == a and dict(l)["culprit"] == b)
    print(f"a behind b: {got:.0f} waits; the trace: {tb} switches from b to a's spinner; "
          f"a's main thread {amain} switch-ins, b's {bmain}, merged + no_start {slack}")
    if not tb - bmain - slack <= got <= tb + amain + slack:
        bad.append(f"a: {got:.0f} waits behind b, the trace says {tb} "
                   f"(-{bmain + slack}, +{amain + slack})")
    if c in ca:
        bad.append("a blamed on c, which never ran on CPU 0")
    # the JSON culprits of the same run, summed over its reports: the
    # exporter saw the same readings (the JSON line of each reading is
    # printed before the exporter publishes it; a had no wait after the
    # scrape's reading). b's series is its JSON sum where b was in a's top
    # 5 of every interval, plus at most the JSON [rest] of the intervals
    # where it was not, and b's waits are counted the same way
    js = jc = rest_s = rest_c = 0
    for line in open(f"{tmp}/cul.out"):
        r = json.loads(line)
        for g in r["groups"]:
            if g["key"] != a:
                continue
            for cu in g.get("culprits", []):
                if cu["key"] == b:
                    js += cu["sum_ns"]
                    jc += cu["count"]
                elif cu["key"] == "[rest]":
                    rest_s += cu["sum_ns"]
                    rest_c += cu["count"]
    pb = ca.get(b, 0)
    pc = sum(v for l, v in cnt.items() if dict(l)["key"] == a and dict(l)["culprit"] == b)
    print(f"a behind b: scrape {pb:.9f} s ({pc:.0f}), JSON {js / 1e9:.9f} s ({jc}), "
          f"JSON [rest] {rest_s / 1e9:.9f} s ({rest_c})")
    if not (js / 1e9 - 1e-9 <= pb <= (js + rest_s) / 1e9 + 1e-9):
        bad.append(f"a behind b: {pb} s in the scrape, JSON says {js / 1e9} s (+ [rest] {rest_s / 1e9} s)")
    if not (jc <= pc <= jc + rest_c):
        bad.append(f"a behind b: {pc} waits in the scrape, JSON says {jc} (+ [rest] {rest_c})")
cc = per_key.get(c, {})
if a in cc or b in cc:
    bad.append("c blamed on a or b, which never ran on CPU 1")

# what Prometheus read from the protobuf exposition, against the text scrape
def prom(name):
    r = json.load(open(f"{tmp}/{name}.json"))
    if r["status"] != "success":
        bad.append(f"query {name}: {r}")
        return []
    return r["data"]["result"]
t = json.load(open(f"{tmp}/targets.json"))["data"]["activeTargets"]
if len(t) != 1 or t[0]["health"] != "up" or t[0]["lastError"]:
    bad.append(f"Prometheus target: {t}")
if prom("pclassic"):
    bad.append("classic histogram series in Prometheus: it did not read the protobuf exposition")
def text_of(name):
    return {(name,) + tuple(sorted(l)): v for l, v in samples(f"{tmp}/s1.txt", name).items()
            if dict(l)["key"] == a}
for q, names in (("pculprits", ["schedhist_culprit_wait_seconds_total"]),
                 ("pwaits", ["schedhist_culprit_waits_total"]),
                 ("pcgroup", ["schedhist_cgroup_" + f for f in
                              ("throttled_periods_total", "throttled_seconds_total",
                               "pressure_some_seconds_total", "pressure_full_seconds_total")])):
    want = {}
    for n in names:
        want.update(text_of(n))
    got = {}
    for r in prom(q):
        m = dict(r["metric"])
        n = m.pop("__name__")
        m.pop("job")
        m.pop("instance")
        got[(n,) + tuple(sorted(m.items()))] = float(r["value"][1])
    print(f"Prometheus {q}: {len(got)} series, the text scrape {len(want)}")
    if not want or got != want:
        bad.append(f"{q}: Prometheus {got}, text {want}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
