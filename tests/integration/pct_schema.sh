#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Percentiles against the threads' own timings (issue 32). The helper
# pctsleep's four threads sleep 1 ms, 10 ms, 100 ms, and uniform in
# [1, 3] ms, each timing every sleep itself and printing its own p50, p90
# and p99: the oracle. Two instances watch them, -M offcpu -k tid, one at
# --schema 3 and one at the default (schema 0); the workload runs in a
# cgroup of the test's own (own_cgroup) and the instances trace only it,
# so a busy host's new tasks cannot take the keys the threads need.
#
# What a thread times is not quite its off-CPU wait: the span also holds
# the thread's own time on the CPU inside it (entering and leaving the
# system call, which the helper measures per sleep with its thread CPU
# clock), and a preemption inside the span splits it into two waits.
# So each sleep's wait lies in [own - cpu, own], and the instance's key
# holds those waits plus k others (k = its count less the sleeps that
# blocked: a preemption's, the first switch-in's). A sleep whose timer
# fires before the thread gets to block (a preemption or an interrupt
# between arming it and schedule()) makes no wait: s = N less the
# thread's voluntary switches in its loop (the helper's nvcsw); and a
# switch the program does not see loses its wait, counted in the
# report's events (merged, no_start), at most that many of a thread's. The rank
# r = ceil(q * count) of the key then lies between the (r - k)-th
# shortest own - cpu and the (r + s)-th shortest own (s: the sleeps
# with no wait in the key, at most). Both ends come from this run's own numbers, whatever the
# host's load (a wakeup's run-queue delay is in the span and in the wait).
# Checks, for each thread and p50, p90, p99:
#  - --schema 3 (8 buckets per power of two): the estimate within 10 % of
#    that interval (the issue's target; the worst case within a bucket is
#    9.1 %, docs/usage.md);
#  - the default (one bucket per power of two): the estimate within the
#    bounds of the buckets that hold the interval's ends, and within 50 %.
source "$(dirname "$0")/../lib.sh"
need_root
own_cgroup schedhist-pcs

start_sh s3 -M offcpu -k tid -j --schema 3 "${OWN_FILTER[@]}"
S3=$SH_PID
remember_ids
ids=$SH_IDS
start_sh s0 -M offcpu -k tid -j "${OWN_FILTER[@]}"
S0=$SH_PID
remember_ids
ids="$ids $SH_IDS"

in_cgroup "$OWN" "$HELPERS/pctsleep" >"$TMP/pct.out" &
wl=$!
CHILD_PIDS+=($wl)
# a hang guard only (the 100 ms thread's 100 sleeps take 10 s on an idle
# host): it ends when the helper has printed its four threads
for i in $(seq 1 1200); do
	[ "$(grep -c '^thread ' "$TMP/pct.out")" -ge 4 ] && break
	kill -0 "$wl" 2>/dev/null || fail "pctsleep exited"
	sleep 0.1
done
[ "$(grep -c '^thread ' "$TMP/pct.out")" -ge 4 ] || fail "pctsleep did not report"
# the threads are blocked for good in pause(): nothing more to record
stop_sh "$S3" || fail "--schema 3 instance exited with $?"
stop_sh "$S0" || fail "default instance exited with $?"
assert_unloaded $ids

python3 - "$TMP/pct.out" "$TMP/s3.out" "$TMP/s0.out" <<'PY' || fail "percentiles"
import json, math, sys

threads = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] != "thread":
        continue
    own = [int(x) for x in f[f.index("own") + 1].split(",")]
    cpu = [int(x) for x in f[f.index("cpu") + 1].split(",")]
    v = lambda name: int(f[f.index(name) + 1])
    threads[f[1]] = dict(comm=f[2], n=v("n"), nivcsw=v("nivcsw"), nvcsw=v("nvcsw"), own=own,
                         cpu=cpu, mine={50: v("p50"), 90: v("p90"), 99: v("p99")})

def report(path, schema):
    rs = [json.loads(l) for l in open(path)]
    assert len(rs) == 1, f"{path}: {len(rs)} report lines at SIGINT, want 1"
    r = rs[0]
    assert r["bucket_schema"] == schema, f"{path}: bucket_schema {r['bucket_schema']}"
    # waits not recorded, and counted: a switch the program did not see
    # (merged: the kernel's pcount ran ahead at the next one) or one with
    # no start (no_start); the instance's only keys are the workload's
    # threads (-c)
    ev = r["events"]
    return {g["key"]: g for g in r["groups"]}, ev["merged"] + ev["no_start"]

def edges(schema):
    """the grid's upper edges in ns, as the man page's BUCKETS defines them"""
    n = 1 << schema
    return [math.floor(1e9 * 2.0 ** (j / n - 20)) for j in range(40 * n)]

def bucket(e, ns):
    """(lo, hi] of the bucket holding ns"""
    for j, hi in enumerate(e):
        if ns <= hi:
            return (e[j - 1] if j else 0, hi)
    return (e[-1], math.inf)

bad = 0
for schema, path in ((3, sys.argv[2]), (0, sys.argv[3])):
    (gs, lost), e = report(path, schema), edges(schema)
    for tid, t in threads.items():
        g = gs.get(tid)
        if g is None:
            print(f"schema {schema}: thread {tid} ({t['comm']}) missing"); bad += 1; continue
        # b: the sleeps that blocked (a voluntary switch each); the other
        # s = n - b ended before the thread got to block and made no wait;
        # m <= lost of the b waits may be lost (counted, above); the key
        # then holds b - m sleeps' waits and k others
        n, count = t["n"], g["count"]
        b = min(t["nvcsw"], n)
        m = min(lost, b)
        s = n - b + m
        if count < b - m:
            print(f"schema {schema}: {t['comm']}: {count} waits, fewer than its {b} "
                  f"sleeps that blocked (of {n}) less {m} lost")
            bad += 1; continue
        k = count - b + m
        own = sorted(t["own"])
        low = sorted(o - c for o, c in zip(t["own"], t["cpu"]))
        for q in (50, 90, 99):
            r = math.ceil(q / 100 * count)
            lo, hi = low[max(r - k, 1) - 1], own[min(r + s, n) - 1]
            est = g[f"p{q}_ns"]
            line = (f"schema {schema}: {t['comm']} p{q} {est} ns, own {t['mine'][q]} ns, "
                    f"true in [{lo}, {hi}] ({count} waits, {k} not sleeps, {s} sleeps not blocked or lost, "
                    f"{t['nivcsw']} preemptions)")
            if schema == 3:
                ok = 0.9 * lo <= est <= 1.1 * hi
            else:
                blo, bhi = bucket(e, lo)[0], bucket(e, hi)[1]
                ok = blo <= est <= bhi and 0.5 * lo <= est <= 1.5 * hi
                line += f", buckets ({blo}, {bhi}]"
            print(("  " if ok else "  BAD ") + line)
            bad += not ok
sys.exit(1 if bad else 0)
PY
