#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --profile's default, sampled, against the exact mode and the threads'
# own accounting, over one 30 s window of tests/helpers/waiters: threads
# that block 0.2 ms at a time in read(2), nanosleep(2) and FUTEX_WAIT
# (each wait walked with P about 0.2: the sampler at work), the pipe's
# feeder, and w_rare, which runs 10 ms and then sleeps 100 ms (blocks
# rarely, and long when it does). Two instances attached before the
# workload starts and stopped after it ends, on the test's own cgroup:
# the default and --profile-sample exact, so both see the same waits.
#  - each thread's estimated off-CPU total is within 5 % of its own
#    (waiters' offcpu_ns: its wall time over its loop less its schedstat
#    run time), and the sample behind it is big enough for that to hold
#    (the arithmetic below, from the run's own sample counts)
#  - the 10 largest stacks of the exact mode hold the same shares in the
#    sampled one within 3 points; a stack the sampled one shows is one of
#    the exact mode's (never invented); one it misses holds under 1 %
#  - the report says how many waits were walked and weighted: walked
#    well below seen, the estimates' total within 2 % of the exact total
#    of every wait (seen_ns, counted at every switch-in)
. "$(dirname "$0")/../lib.sh"
need_root
own_cgroup profsample
start_sh samp --profile -k tid -j --top 1000 "${OWN_FILTER[@]}"
start_sh exact --profile -k tid -j --top 1000 --profile-sample exact "${OWN_FILTER[@]}"
in_cgroup "$OWN" "$HELPERS/waiters" -m 0.2 -r 10 -t 30 >"$TMP/w.txt" ||
	fail "the workload failed"
for p in "${SH_PIDS[@]}"; do stop_sh "$p" || fail "schedhist exited with $?: $(cat "$TMP"/*.err)"; done

python3 - "$TMP" <<'PY' || exit 1
import json, math, sys
tmp = sys.argv[1]
last = lambda n: json.loads(open(f"{tmp}/{n}.out").read().splitlines()[-1])
samp, exact = last("samp"), last("exact")
bad = []
ev, xe = samp["events"], exact["events"]
print(f"sampled: {samp['sampling']}, {ev}")
print(f"exact: {xe}")
if samp["sampling"]["mode"] != "expected_wait" or exact["sampling"]["mode"] != "exact":
    bad.append(f"sampling modes {samp['sampling']} and {exact['sampling']}")
# walked and weighted are said, and sampling walked fewer waits
if not 0 < ev["walked"] < ev["seen"] / 2:
    bad.append(f"sampled: {ev['walked']} of {ev['seen']} waits walked")
if ev["recorded"] > ev["walked"] or xe["walked"] < xe["seen"]:
    bad.append(f"walked/recorded: sampled {ev}, exact {xe}")
# the estimate of all waits against their exact total, same instance: the
# same sample arithmetic as below over all of them (tens of thousands of
# samples: a standard error under 1 %)
if abs(samp["wait_ns"] - ev["seen_ns"]) > 0.02 * ev["seen_ns"]:
    bad.append(f"estimated total {samp['wait_ns']} ns vs exact {ev['seen_ns']} ns")
print(f"totals: sampled report {samp['wait_ns']} of seen {ev['seen_ns']}; exact report {exact['wait_ns']} of seen {xe['seen_ns']}")

threads = {t[3]: t for t in (l.split() for l in open(f"{tmp}/w.txt")) if t[0] == "thread"}
if len(threads) != 4:
    bad.append(f"the helper printed {len(threads)} threads")
sg = {g["key"]: g for g in samp["groups"]}
xg = {g["key"]: g for g in exact["groups"]}
for tid, t in threads.items():
    comm, own = t[1], int(t[9])
    g, x = sg.get(tid), xg.get(tid)
    if not g or not x:
        bad.append(f"{comm}: thread {tid} missing (sampled {bool(g)}, exact {bool(x)})")
        continue
    # The sample size. The estimate of a stack's time X is the sum of its
    # sampled waits w / P. For n waits of about one length sampled with
    # probability q, its relative standard error is
    # sqrt((1 - q) / (q n)) x sqrt(1 + cv^2), cv the waits' coefficient of
    # variation (at most 1 for timed sleeps and reads: an exponential
    # spread has 1). q n is the samples s the report gives, q = s / n with
    # n its estimated waits: sigma(X) <= X sqrt(2 (1 - q) / s), and a
    # thread's variance is the sum of its stacks' (a stack walked every
    # time, as w_rare's long sleeps, adds none). 5 % must be at least 4
    # sigma (a failure by chance under 1 in 15 000 per thread): at 0.2 ms
    # waits for 30 s, n is about 150 000 and q about 0.2, s about 30 000,
    # sigma about 0.7 %: 7 sigma.
    var = 0
    for st in g["stacks"]:
        sn = max(st["count"], st["samples"], 1)
        q = st["samples"] / sn
        var += st["wait_ns"] ** 2 * 2 * (1 - q) / max(st["samples"], 1)
    s, n = g["samples"], g["count"]
    sigma = math.sqrt(var) / max(g["wait_ns"], 1)
    err = (g["wait_ns"] - own) / own
    xerr = (x["wait_ns"] - own) / own
    print(f"{comm:8} own {own / 1e9:8.3f} s  sampled {g['wait_ns'] / 1e9:8.3f} s ({100 * err:+.2f} %, "
          f"{s} samples of {n} waits, sigma {100 * sigma:.2f} %)  exact {x['wait_ns'] / 1e9:8.3f} s "
          f"({100 * xerr:+.2f} %)")
    if 4 * sigma > 0.05:
        bad.append(f"{comm}: {s} samples of {n} waits: sigma {100 * sigma:.2f} %, too few for 5 %")
    if abs(err) > 0.05:
        bad.append(f"{comm}: sampled {g['wait_ns']} ns vs its own {own} ns ({100 * err:+.2f} %)")

# stacks: (tid, user frames, kernel frames), shares of all the workload's time
def stacks(r):
    out = {}
    for g in r["groups"]:
        if g["key"] not in threads:
            continue
        for st in g["stacks"]:
            k = (g["key"], tuple(st["user"]), tuple(st["kernel"]))
            out[k] = out.get(k, 0) + st["wait_ns"]
        if g["stacks_total"] > len(g["stacks"]):
            bad.append(f"{g['key']}: {g['stacks_total']} stacks, {len(g['stacks'])} listed")
    tot = sum(out.values())
    return {k: 100 * v / tot for k, v in out.items()}
ss, xs = stacks(samp), stacks(exact)
for k in sorted(xs, key=xs.get, reverse=True)[:10]:
    print(f"  {threads[k[0]][1]:8} exact {xs[k]:6.2f} %  sampled {ss.get(k, 0):6.2f} %  "
          f"{k[1][-1:]} {k[2][-2:]}")
    if abs(xs[k] - ss.get(k, 0)) > 3:
        bad.append(f"stack {k}: exact {xs[k]:.2f} %, sampled {ss.get(k, 0):.2f} %")
for k, v in ss.items():
    if k not in xs:
        bad.append(f"sampled stack the exact mode does not have ({v:.2f} %): {k}")
for k, v in xs.items():
    if k not in ss and v >= 1:
        bad.append(f"stack of {v:.2f} % missing from the sampled profile: {k}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
