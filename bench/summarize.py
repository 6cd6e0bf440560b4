#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Turns bench/run.sh's raw CSV (repeat,order,arm,measure,value: one row per
sample) into the markdown report: header, min / median / max tables over the
repeats, the map-memory formula and the targets. Ratios are taken
within a repeat (same boot, same minute) before the median is taken."""
import argparse
import csv
import statistics
import sys
from collections import defaultdict


ap = argparse.ArgumentParser()
ap.add_argument("csv")
for opt in ("date", "kernel", "cpus", "possible-cpus", "cpu-model", "clocksource", "commit",
            "runqlat", "perf", "workloads", "elapsed"):
    ap.add_argument("--" + opt, default="?")
ap.add_argument("--hist-bytes", type=int, required=True, help="sizeof(struct sh_hist)")
ap.add_argument("--pcpu-bytes", type=int, required=True, help="sizeof(struct sh_pcpu)")
args = ap.parse_args()
HIST_BYTES = args.hist_bytes  # one key's histogram on one CPU

# data[arm][measure][repeat] = value
data = defaultdict(lambda: defaultdict(dict))
orders = defaultdict(dict)
with open(args.csv) as f:
    for row in csv.DictReader(f):
        r = int(row["repeat"])
        data[row["arm"]][row["measure"]][r] = float(row["value"])
        if int(row["order"]):
            orders[r][int(row["order"])] = row["arm"]
repeats = sorted(orders) or sorted({r for m in data.values() for v in m.values() for r in v})


def series(arm, measure):
    return data.get(arm, {}).get(measure, {})


def per_repeat(fn, *sources):
    """fn applied to the sources' values of each repeat they all have."""
    common = set(repeats)
    for s in sources:
        common &= set(s)
    out = {}
    for r in sorted(common):
        try:
            out[r] = fn(*(s[r] for s in sources))
        except ZeroDivisionError:
            pass
    return out


def add(*sources):
    return per_repeat(lambda *v: sum(v), *sources)


def stats(s):
    v = sorted(s.values())
    return (v[0], statistics.median(v), v[-1]) if v else None


def med(s):
    st = stats(s)
    return st[1] if st else None


def cell(s, fmt="{:.0f}"):
    st = stats(s)
    if not st:
        return "–"
    return " / ".join(fmt.format(x) for x in st)


def arm_name(arm):
    if arm.startswith("sh:"):
        parts = arm.split(":")
        name = f"schedhist -M {parts[1].replace('+', ',')} -k {parts[2]}"
        if len(parts) > 4:	# sh:METRICS:KEY:METHOD:FLAG
            return name + (f" --method {parts[3]}" if parts[3] != "auto" else "") + f" --{parts[4]}"
        return name + (f" --method {parts[3]}" if len(parts) > 3 else "")
    return {"none": "none (nothing attached)", "floor": "floor (empty programs)",
            "clock": "clock (floor + bpf_ktime_get_ns)",
            "runqlat": "runqlat (libbpf-tools)",
            "profile": "--profile -M offcpu (kernel and user stacks, sampled: the default)",
            "profile:exact": "--profile -M offcpu --profile-sample exact (every wait walked)",
            "profile:kernel:exact": "--profile -M offcpu --profile-stacks kernel --profile-sample exact",
            "profile:user:exact": "--profile -M offcpu --profile-stacks user --profile-sample exact",
            "profile:none": "--profile -M offcpu --profile-stacks none (no stack walk)",
            "offcputime": "offcputime (libbpf-tools)"}.get(arm, arm)


ORDER = ["none", "floor", "clock", "sh:runq:none", "sh:runq:comm", "sh:runq:tid", "sh:runq:tid:auto:allmiss", "sh:runq:cgroup",
         "sh:offcpu:none", "sh:offcpu+runq+blocked:none", "sh:runq:none:wakeup",
         "sh:runq:none:wakeup:clock=ktime", "sh:runq:comm:wakeup", "sh:runq:comm:auto:culprits", "sh:runq:cgroup:auto:culprits",
         "sh:runq:comm:auto:stacks", "runqlat", "profile:none", "profile:kernel:exact", "profile:user:exact", "profile:exact", "profile",
         "offcputime"]
arms = [a for a in ORDER if a in data] + sorted(
    a for a in data if a not in ORDER and not a.startswith(("poller:", "exit:", "host", "step:", "pair:", "cache:")))
# (arm, what it adds, the step it is measured over): each step's ns per run less its base's
STEPS = [("step:clock", "the run queue's clock (prev->se.cfs_rq->rq->clock, two guarded loads)", "floor"),
         ("step:sched_info", "+ next's sched_info (last_queued, run_delay, pcount): the queued part",
          "step:clock"),
         ("step:table", "+ the task table entry (tid-indexed array, owner check, run_delay base, pcount)",
          "step:sched_info"),
         ("step:hist", "+ the bucket (branch-free log2) and the histogram in the per-CPU array",
          "step:table"),
         ("step:max", "+ the epoch's max and min, and who had the max (tid, pid, cpu, comm)", "step:hist"),
         ("step:storage", "step table with task storage instead of the table (a helper call)",
          "step:sched_info"),
         ("step:hash", "step max with the histogram in a per-CPU hash keyed by tid (-k tid)", "step:max"),
         ("step:store_hash", "step max keyed, the slot by a hash lookup of the key (the store's key "
          "directory), its shared store entry", "step:max"),
         ("step:slot", "step max keyed, the slot index kept in the task entry and checked against "
          "the slot's key (slot_keys), its shared store entry", "step:max"),
         ("step:cache", "+ this CPU's cache entry of the slot, probed by index (a hit: -k tid's path)",
          "step:slot"),
         ("step:seq", "+ a flush's seq bracket at every switch (two atomic adds, a cmpxchg), no moves",
          "step:cache"),
         ("step:gate", "step cache + a run-time test of an off feature (.bss flag: the verifier "
          "keeps it)", "step:cache"),
         ("step:cause_adds", "step cache + the seven atomic adds of a wait's causes (entry by slot)",
          "step:cache"),
         ("step:cause_map", "step cache + the cause map: a hash lookup and the seven atomic adds",
          "step:cache"),
         ("step:cause_run", "step cache + the CPU's run counters at every switch (per-CPU array, "
          "the group's LRU per-CPU hash)", "step:cache"),
         ("step:cause_read", "+ a wait's start from task storage and its split at the wait's end",
          "step:cause_run"),
         ("step:cause_ring", "step cache + a ring of runs written at every switch, walked back to "
          "the wait's start at its end, and the split (no wakeup hook)", "step:cache"),
         ("step:cause_wakeup", "--causes' wakeup program (task storage, two per-CPU lookups), "
          "per sched_wakeup run", "floor")]


def sw(arm):
    return series(arm, "ns_sched_switch")


def wk(arm):
    return series(arm, "ns_sched_wakeup")


def pair(arm):
    """switch + wakeup, the wakeup where attached."""
    return add(sw(arm), wk(arm)) if wk(arm) else sw(arm)


def per_switch(arm):
    """All of the arm's programs' run time over its sched_switch runs, per repeat."""
    progs = [m[3:] for m in data.get(arm, {}) if m.startswith("ns_")]
    out = {}
    for r in repeats:
        try:
            tot = sum(series(arm, "ns_" + t)[r] * series(arm, "cnt_" + t)[r] for t in progs)
            out[r] = tot / series(arm, "cnt_sched_switch")[r]
        except (KeyError, ZeroDivisionError):
            pass
    return out


def wakeups_per_switch(arm):
    return per_repeat(lambda w, s: w / s, series(arm, "cnt_sched_wakeup"),
                      series(arm, "cnt_sched_switch"))


def slowdown(arm, w):
    return per_repeat(lambda a, n: a / n, series(arm, "t_" + w), series("none", "t_" + w))


def excess_vs_runqlat(arm, w):
    return per_repeat(lambda a, q: (a - 1) / (q - 1), slowdown(arm, w), slowdown("runqlat", w))


out = []
p = out.append
p("# schedhist overhead benchmark")
p("")
p(f"- date: {args.date}")
p(f"- kernel: {args.kernel}")
p(f"- CPUs: {args.cpus} online, {args.possible_cpus} possible; model: {args.cpu_model}; "
  f"clocksource: {args.clocksource}")
p(f"- schedhist: {args.commit}; runqlat: {args.runqlat}; perf: {args.perf}")
npoll = len(series("poller:1", "cpu_ms_per_interval"))
p(f"- repeats: {len(repeats)}, every arm once per repeat, arm order shuffled per repeat; "
  f"the poller in {npoll} of them; {args.elapsed} s of measuring")
busy = series("host", "cpu_busy_pct")
if busy:
    p(f"- CPU busy (2 s sample before each repeat, other work included): "
      f"{cell(busy, '{:.1f}')} % (min / median / max)")
p(f"- workloads: {args.workloads}")
p("- cells: min / median / max over the repeats; ratios are taken within a repeat, "
  "then summarised")
p("")

p("## In-kernel cost per context switch")
p("")
p("ns per program run = delta run_time_ns / delta run_cnt with kernel.bpf_stats_enabled=1 "
  "over the pinned pipe run (the stats' own clock reads are inside every figure, "
  "the floor's included). \"per switch\" is the run time of all of the arm's programs "
  "(sched_switch plus the wakeup programs, weighted by their runs) over its sched_switch runs; "
  "\"− floor\" subtracts the empty sched_switch program's ns per run.")
p("")
p("| arm | sched_switch ns | sched_wakeup ns | wakeups / switch | per switch ns | per switch − floor ns "
  "| per switch / runqlat's |")
p("|---|---|---|---|---|---|---|")
for a in arms:
    if a == "none":
        continue
    p(f"| {arm_name(a)} | {cell(sw(a))} | {cell(wk(a))} "
      f"| {cell(wakeups_per_switch(a), '{:.2f}')} | {cell(per_switch(a))} "
      f"| {cell(per_repeat(lambda x, f: x - f, per_switch(a), sw('floor')))} "
      f"| {cell(per_repeat(lambda x, q: x / q, per_switch(a), per_switch('runqlat')), '{:.2f}')} |")
p("")

steps = [st for st in STEPS if st[0] in data]
if steps:
    p("## Where the time goes: the step programs")
    p("")
    p("bench/floor.bpf.c's step programs, each a sched_switch program (one a sched_wakeup program) "
      "that does one more part of schedhist's work than the step it is measured over, on the same "
      "data structures: a model of the hot path, not the path itself (which also keeps the event "
      "counters, checks the first run of a task and its state's origin). ns per run, same run and "
      "workload as above; \"over its base\" is within a repeat. The wakeup step's figures are per "
      "sched_wakeup run, over the floor's wakeup program.")
    p("")
    p("| step | ns per run | − floor | over its base | base |")
    p("|---|---|---|---|---|")
    for a, what, base in steps:
        f = wk if a == "step:cause_wakeup" else sw
        p(f"| {what} | {cell(f(a))} | {cell(per_repeat(lambda x, y: x - y, f(a), f('floor')))} "
          f"| {cell(per_repeat(lambda x, y: x - y, f(a), f(base)))} | {base} |")
    p("")

exits = [m for m in ("mark", "fold") if f"exit:{m}" in data]
if exits:
    p("## Reclaiming the key of an exited task")
    p("")
    p("schedhist -M runq -k tid while the churn helper (tests/helpers/churn -m both -c 16) creates "
      "and ends threads and processes as fast as it can, stats on: ns per sched_process_free run. "
      "mark: default capacity, the key is only marked for the poller; fold: --max-keys 64, the "
      "kernel folds every key into [exited] (a loop over the possible CPUs).")
    p("")
    p("| mode | tasks / s | sched_process_free runs | ns per run | sched_switch ns during the churn |")
    p("|---|---|---|---|---|")
    for m in exits:
        a = f"exit:{m}"
        p(f"| {m} | {cell(series(a, 'tasks_per_s'))} | {cell(series(a, 'cnt_sched_process_free'))} "
          f"| {cell(series(a, 'ns_sched_process_free'))} | {cell(series(a, 'ns_sched_switch'))} |")
    p("")

p("## Workload slowdown (stats off)")
p("")
p("t_arm / t_none within the same repeat. \"excess / runqlat's\" is (slowdown − 1) of the arm "
  "over runqlat's (slowdown − 1) for the pinned pipe, per repeat. RSS is the arm process's "
  "VmHWM.")
p("")
p("| arm | pipe pinned | pipe unpinned | messaging | pinned excess / runqlat's | RSS MiB |")
p("|---|---|---|---|---|---|")
for a in arms:
    if a == "none":
        t = [f"{cell(series(a, 't_' + w), '{:.3f}')} s" for w in ("pipe_pinned", "pipe",
                                                                    "messaging")]
        p(f"| {arm_name(a)} (absolute) | {t[0]} | {t[1]} | {t[2]} | – | – |")
        continue
    rss = {r: v / 1024 for r, v in series(a, "rss_kb").items()}
    p(f"| {arm_name(a)} | {cell(slowdown(a, 'pipe_pinned'), '{:.3f}')} "
      f"| {cell(slowdown(a, 'pipe'), '{:.3f}')} | {cell(slowdown(a, 'messaging'), '{:.3f}')} "
      f"| {cell(excess_vs_runqlat(a, 'pipe_pinned'), '{:.2f}') if a != 'runqlat' else '1'} "
      f"| {cell(rss, '{:.1f}')} |")
p("")

pollers = sorted((a for a in data if a.startswith("poller:")),
                 key=lambda a: (int(a.split(":")[1]), a))
def own_rss(a):
    """VmRSS less the mapped BPF maps, per repeat (kB)."""
    maps = series(a, "rss_maps_kb")
    return {r: v - maps.get(r, 0) for r, v in series(a, "rss_now_kb").items()}


if pollers:
    p("## Poller")
    p("")
    p("schedhist -M offcpu -k tid -p KEYS -i 1 (text report to /dev/null) over bench/keys: N "
      "threads, each its own tid and comm, each switching every 250 ms. CPU per interval "
      "from the threads' schedstat (ns); the utime+stime column is /proc/PID/stat in clock "
      "ticks, too coarse below 10 ms. VmRSS counts the maps the poller maps (the slot "
      "array, its keys, the skeleton's globals): kernel memory, in bytes_memlock already; "
      "\"own\" is VmRSS less those mappings (/proc/PID/smaps, anon_inode:bpf-map), the "
      "poller's own memory. Memory: bytes_memlock of the maps (bpftool map show).")
    p("")
    p("| live keys | output | CPU ms / interval | utime+stime ms / interval | VmHWM MiB "
      "| VmRSS MiB (steady) | own MiB (steady) | slots KiB | hists KiB | keydir KiB "
      "| all maps KiB |")
    p("|---|---|---|---|---|---|---|---|---|---|---|")
    kib = lambda a, m: cell({r: v / 1024 for r, v in series(a, m).items()}, '{:.0f}')
    for a in pollers:
        n = a.split(":")[1]
        mode = a.split(":")[2] if a.count(":") > 1 else "text"
        mem = [m for m in data[a] if m.startswith("memlock_")]
        total = add(*(series(a, m) for m in mem))
        p(f"| {n} | {mode} | {cell(series(a, 'cpu_ms_per_interval'), '{:.3f}')} "
          f"| {cell(series(a, 'cpu_ticks_ms_per_interval'), '{:.1f}')} "
          f"| {cell({r: v / 1024 for r, v in series(a, 'rss_kb').items()}, '{:.1f}')} "
          f"| {cell({r: v / 1024 for r, v in series(a, 'rss_now_kb').items()}, '{:.1f}')} "
          f"| {cell({r: v / 1024 for r, v in own_rss(a).items()}, '{:.1f}')} "
          f"| {kib(a, 'memlock_slots')} | {kib(a, 'memlock_hists')} | {kib(a, 'memlock_keydir')} "
          f"| {cell({r: v / 1024 for r, v in total.items()}, '{:.0f}')} |")
    p("")
    # every map's memory, from its definition and from bpftool, follows
    # (run.sh appends bench/kmem's tables for 2, 64 and 384 possible CPUs)


def target(name, value, limit, fmt, ok=None):
    if value is None:
        p(f"| {name} | not measured | {limit} | – |")
        return
    p(f"| {name} | {fmt.format(value)} | {limit} | {'met' if ok else 'MISSED'} |")


def figure(name, value, fmt):
    """A row of the targets' table that is not a target: shown beside them."""
    p(f"| {name} | {'not measured' if value is None else fmt.format(value)} | – |  |")


pairs = [a for a in data if a.startswith("pair:")]


def pair(a, b, what):
    return series(f"pair:{a}|{b}", what)


if pairs:
    p("## Pairs: two arms attached at once")
    p("")
    p("Each pair's two arms attached together over one more pinned pipe run with stats on "
      "(both sets of programs run on every event; which attaches first alternates between "
      "repeats), so the difference and the ratio come from the same events under the same "
      "host conditions: on a shared VM the host's speed moves between runs by more than the "
      "differences the targets are about. Each arm's programs also run next to the other's, "
      "so its own figure is above its figure alone, the more so the more memory it touches: "
      "the difference is an upper bound of the one alone, and only arms of the same shape "
      "are paired. Per switch, as above.")
    p("")
    p("| A | B | A per switch ns | B per switch ns | B − A ns | B / A |")
    p("|---|---|---|---|---|---|")
    for a_ in sorted(pairs):
        a, b = a_[5:].split("|")
        x = series(a_, "a_per_switch")
        y = series(a_, "b_per_switch")
        p(f"| {arm_name(a)} | {arm_name(b)} | {cell(x)} | {cell(y)} "
          f"| {cell(per_repeat(lambda u, v: v - u, x, y))} "
          f"| {cell(per_repeat(lambda u, v: v / u, x, y), '{:.2f}')} |")
    p("")

p("## Targets (medians of this run)")
p("")
p("| target | measured | limit | |")
p("|---|---|---|---|")
fl = sw("floor")


def over_floor(arm):
    return med(per_repeat(lambda x, f: x - f, per_switch(arm), fl))


q = med(per_repeat(lambda x, r: x / r, per_switch("sh:runq:none"), per_switch("runqlat")))
target("runq/none per switch / runqlat's", q, "≤ 0.15", "{:.2f}", q is not None and q <= 0.15)
if "profile" in data and "offcputime" in data:
    q = med(per_repeat(lambda x, o: x / o, per_switch("profile"), per_switch("offcputime")))
    target("--profile (sampled) per switch / offcputime's", q, "≤ 0.1", "{:.2f}",
           q is not None and q <= 0.1)
if "profile:exact" in data and "offcputime" in data:
    q = med(per_repeat(lambda x, o: x / o, per_switch("profile:exact"), per_switch("offcputime")))
    figure("--profile-sample exact per switch / offcputime's", q, "{:.2f}")
if "profile:none" in data:
    d = over_floor("profile:none")
    target("--profile-stacks none per switch − floor", d, "≤ 100 ns", "{:.0f} ns",
           d is not None and d <= 100)
d = over_floor("sh:offcpu:none")
target("offcpu/none per switch − floor", d, "≤ 55 ns", "{:.0f} ns", d is not None and d <= 55)
# --culprits against the same arm without it
for k in ("comm", "cgroup"):
    d = med(per_repeat(lambda x, b: x - b, per_switch(f"sh:runq:{k}:auto:culprits"),
                       per_switch(f"sh:runq:{k}")))
    target(f"runq/{k} --culprits per switch − runq/{k}", d, "≤ 30 ns", "{:.0f} ns",
           d is not None and d <= 30)
# issue 29: --culprit-mode time against the default mode (a figure: no target yet)
d = med(per_repeat(lambda x, b: x - b, per_switch("sh:runq:comm:auto:culprits+culprit-mode=time"),
                   per_switch("sh:runq:comm:auto:culprits")))
figure("runq/comm --culprits --culprit-mode time per switch − --culprits", d, "{:.0f} ns")
v = med(per_switch("sh:runq:none:wakeup"))
target("runq/none --method wakeup per switch", v, "≤ 239 ns", "{:.0f} ns",
       v is not None and v <= 239)
v = med(per_switch("sh:runq:none:wakeup:clock=ktime"))
figure("runq/none --method wakeup --clock=ktime per switch (bpf_ktime_get_ns per stamp)", v,
       "{:.0f} ns")
for a, lim in (("poller:1000:summary", 1), ("poller:1000:json", 1), ("poller:1000", 2),
               ("poller:10000:summary", 10), ("poller:10000:json", 10)):
    v = med(series(a, "cpu_ms_per_interval"))
    target(f"poller CPU per interval, {a.split(':')[1]} keys, "
           f"{a.split(':')[2] if a.count(':') > 1 else 'text'}", v, f"≤ {lim} ms", "{:.3f} ms",
           v is not None and v <= lim)
v = med(own_rss("poller:1000"))
target("poller steady RSS (own: less the mapped maps), 1 000 keys", v / 1024 if v else None,
       "≤ 10 MiB", "{:.1f} MiB", v is not None and v / 1024 <= 10)
# the hot path (issue 43), each arm beside the floor and runqlat of this run
p("")
p("## Hot path targets (floor, runqlat and every arm of this run)")
p("")
p("\"− floor\": the arm's per switch less the empty sched_switch program's ns per run; --causes "
  "counts every program it attaches.")
p("")
p("| target | measured | limit | |")
p("|---|---|---|---|")
for a, lim in (("sh:runq:none", 25), ("sh:runq:comm", 40), ("sh:runq:tid", 40),
               ("sh:runq:cgroup", 40), ("sh:runq:comm:auto:culprits+culprit-mode=time", 60),
               ("sh:runq:tid:auto:allmiss", 150)):
    v = over_floor(a)
    target(f"{arm_name(a)[10:]}: per switch − floor", v, f"≤ {lim} ns", "{:.0f} ns",
           v is not None and v <= lim)
d = med(per_repeat(lambda x, c: x - c, per_switch("sh:runq:cgroup"), per_switch("sh:runq:comm")))
target("-M runq -k cgroup per switch − -k comm's", d, "≤ 5 ns", "{:.0f} ns",
       d is not None and d <= 5)
for one in ("sh:offcpu:none", "sh:runq:none"):
    q = med(per_repeat(lambda x, o: x / o, per_switch("sh:offcpu+runq+blocked:none"),
                       per_switch(one)))
    target(f"three metrics per switch / {arm_name(one)[10:]}'s", q, "≤ 1.15", "{:.2f}",
           q is not None and q <= 1.15)
for k in ("comm", "cgroup"):
    q = med(per_repeat(lambda x, r: x / r, per_switch(f"sh:runq:{k}:auto:causes"),
                       per_switch("runqlat")))
    target(f"-M runq -k {k} --causes per switch (all its programs) / runqlat's", q, "≤ 0.30",
           "{:.2f}", q is not None and q <= 0.30)
p("")
if pairs:
    p("## Cross-check from the pairs (both arms of each attached at once)")
    p("")
    p("The same quantities from the pairs above: the cost of a key over key none, of "
      "--culprits, and of the three metrics over offcpu, each within one run (an upper "
      "bound: see Pairs). The key's cost plus the sequential runq/none − floor above is "
      "the pairs' estimate of runq/KEY − floor.")
    p("")
    p("| quantity | measured | limit | |")
    p("|---|---|---|---|")

    def pdiff(a, b):
        return med(per_repeat(lambda u, v: v - u, pair(a, b, "a_per_switch"),
                              pair(a, b, "b_per_switch")))

    base = over_floor("sh:runq:none")
    for k, lim in (("comm", 80), ("tid", 80), ("cgroup", 90)):
        d = pdiff("sh:runq:none", f"sh:runq:{k}")
        est = d + base if d is not None and base is not None else None
        target(f"runq/{k} − runq/none (pair) + runq/none − floor", est, f"≤ {lim} ns",
               "{:.0f} ns", est is not None and est <= lim)
    q = med(per_repeat(lambda u, v: v / u, pair("sh:offcpu:none", "sh:offcpu+runq+blocked:none",
                                                 "a_per_switch"),
                       pair("sh:offcpu:none", "sh:offcpu+runq+blocked:none", "b_per_switch")))
    target("offcpu,runq,blocked/none / offcpu/none (pair)", q, "≤ 1.25", "{:.2f}",
           q is not None and q <= 1.25)
    for k in ("comm", "cgroup"):
        d = pdiff(f"sh:runq:{k}", f"sh:runq:{k}:auto:culprits")
        target(f"runq/{k} --culprits − runq/{k} (pair)", d, "≤ 30 ns", "{:.0f} ns",
               d is not None and d <= 30)
    p("")
sys.stdout.write("\n".join(out) + "\n")
