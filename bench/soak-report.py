#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Turns the files of a bench/soak.sh run into its result: OUT.md (the
verdict, the rates achieved, one fitted slope per figure) and OUT.csv (the
samples). Exit 0 when the soak passes, 1 when it fails.

A figure is flat when the slope of its least-squares line over the samples
after the warm-up is within  3 x the slope's standard error  +  a floor.
The standard error is the figure's own noise (a figure that wanders is not
called growing on two samples); the floor is the smallest leak that matters,
from the run's own cgroup churn: one object kept for every 100 cgroups
made and removed (cg_per_min / 100 entries per minute; in bytes, that many
times the map's bytes per entry; for the poller's RSS, that many KiB, about
the least the poller keeps per key: a snapshot entry or a series). What
counts up by design (the lost and overflow counters) is fitted as a rate
per minute: its floor is 1 % of its mean rate. The scrape times must all be
at most 100 ms, map_full and no_mem must not move after the warm-up (a
full map), and the identity seen = recorded + lost must be exact over the
whole run for each metric (tests/identity.py, the last report being read
after the programs are detached).
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
for o in ("run", "out", "stamp", "cmd", "load", "left", "interrupted", "commit"):
    ap.add_argument("--" + o, default="")
ap.add_argument("--minutes", type=float, required=True)
ap.add_argument("--warmup", type=float, default=5)
a = ap.parse_args()
R = a.run
HERE = os.path.dirname(os.path.abspath(__file__))

SCRAPE_MAX_MS = 100.0


def read(name, default=""):
    try:
        with open(os.path.join(R, name)) as f:
            return f.read()
    except OSError:
        return default


def rows(name):
    try:
        with open(os.path.join(R, name)) as f:
            return [{k: (float(v) if v not in ("", None) else None) for k, v in r.items()}
                    for r in csv.DictReader(f)]
    except OSError:
        return []


def fit(pts):
    """Least squares y = a + b t over (t, y): (b, standard error of b), t in minutes."""
    n = len(pts)
    if n < 3:
        return None, None
    mt = sum(t for t, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((t - mt) ** 2 for t, _ in pts)
    if not sxx:
        return None, None
    b = sum((t - mt) * (y - my) for t, y in pts) / sxx
    res = sum((y - my - b * (t - mt)) ** 2 for t, y in pts)
    return b, math.sqrt(res / (n - 2) / sxx)


maps = []
for line in read("maps").splitlines():
    mid, name, typ, kb, vb = line.split()
    maps.append({"id": mid, "name": name, "type": typ, "key": int(kb), "value": int(vb)})
try:
    with open("/sys/devices/system/cpu/possible") as f:
        spec = f.read().strip()
    ncpus = sum(int(p.split("-")[1]) - int(p.split("-")[0]) + 1 if "-" in p else 1
                for p in spec.split(","))
except OSError:
    ncpus = os.cpu_count() or 1

samples = rows("samples.csv")
final = rows("final.csv")
for s in samples + final:
    s["min"] = s["t_s"] / 60

# the workload's own counts: the rates achieved
m = re.search(r"created (\d+) removed (\d+) failed (\d+) seconds ([\d.]+) rate ([\d.]+)",
              read("cgchurn.out"))
cg = {"created": 0, "removed": 0, "failed": 0, "seconds": 0.0, "rate": 0.0}
if m:
    cg = {"created": int(m[1]), "removed": int(m[2]), "failed": int(m[3]),
          "seconds": float(m[4]), "rate": float(m[5])}
m = re.search(r"created (\d+) threads (\d+) processes", read("churn.out"))
tasks = (int(m[1]), int(m[2])) if m else None
task_rate = (sum(tasks) / cg["seconds"]) if tasks and cg["seconds"] else None
if tasks and a.minutes:
    task_rate = sum(tasks) / (a.minutes * 60)
cg_per_min = cg["rate"] * 60
leak_per_min = cg_per_min / 100

# scrapes: "epoch path status bytes seconds connect_s first_byte_s
# server_cpu_us server_wait_us steal_us" (see scrape() in bench/soak.sh)
scr = []
for line in read("scrapes.log").splitlines():
    f = line.split()
    if len(f) == 10:
        scr.append((float(f[0]), f[1], f[2], int(f[3]), float(f[4]) * 1000,
                    float(f[5]) * 1000, float(f[6]) * 1000,
                    int(f[7]) / 1000, int(f[8]) / 1000, int(f[9]) / 1000))
t0 = scr[0][0] if scr else 0
bad_status = [s for s in scr if s[2] != "200"]
metrics_ms = [s[4] for s in scr if s[1] == "/metrics"]
over = [s for s in scr if s[4] > SCRAPE_MAX_MS]


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


# per sample window: the scrapes since the previous sample
ts = [s["t_s"] for s in samples]
for i, s in enumerate(samples):
    lo = ts[i - 1] if i else -1
    w = [x[4] for x in scr if x[1] == "/metrics" and lo < x[0] - t0 <= ts[i]]
    s["scrape_ms_mean"] = sum(w) / len(w) if w else None
    s["scrape_ms_max"] = max(w) if w else None

# the poller's own gauges and counters, from the scrape of each sample
gauge = {}
cur = None
for line in read("gauges.log").splitlines():
    if line.startswith("# t_s "):
        cur = float(line.split()[2])
        gauge[cur] = {}
        continue
    mm = re.match(r"(\w+)\{([^}]*)\} (\S+)", line)
    if mm and cur is not None:
        gauge[cur][mm[1] + "{" + mm[2] + "}"] = float(mm[3])


def gsum(t, prefix, pattern=""):
    g = gauge.get(t)
    if not g:
        return None
    return sum(v for k, v in g.items() if k.startswith(prefix) and pattern in k)


for s in samples:
    for met in ("offcpu", "runq", "blocked"):
        s["keys_" + met] = gsum(s["t_s"], "schedhist_keys{", f'metric="{met}"')
    s["lost_total"] = gsum(s["t_s"], "schedhist_lost_events_total{")
    s["overflow_total"] = gsum(s["t_s"], "schedhist_overflow_events_total{")
for i, s in enumerate(samples):
    p = samples[i - 1] if i else None
    s["lost_per_min"] = None
    if p and s["lost_total"] is not None and p["lost_total"] is not None and s["min"] > p["min"]:
        s["lost_per_min"] = (s["lost_total"] - p["lost_total"]) / (s["min"] - p["min"])

# the figures: (column, unit, floor of the tolerance, kind)
figs = [("rss_kb", "kB", leak_per_min * 1.0, "level"), ("rss_anon_kb", "kB", leak_per_min * 1.0, "level"),
        ("fds", "fds", 0.0, "fds")]
for mp in maps:
    per_cpu = mp["type"].startswith("percpu")
    hashy = mp["type"] in ("hash", "percpu_hash")
    # a hash element: key, value (a copy per possible CPU for per-CPU ones), ~48 B of header
    per_entry = mp["key"] + mp["value"] * (ncpus if per_cpu else 1) + 48 if hashy else 0
    figs.append((mp["name"] + "_bytes", "B", leak_per_min * per_entry, "level"))
    if hashy:
        figs.append((mp["name"] + "_entries", "entries", leak_per_min, "level"))
figs += [("keys_" + met, "keys", leak_per_min, "level") for met in ("offcpu", "runq", "blocked")]
figs += [("dying_cgroups", "cgroups", leak_per_min, "level"),
         ("lost_per_min", "events/min", None, "rate"),
         ("scrape_ms_mean", "ms", None, "rate")]

warm = [s for s in samples if s["min"] >= a.warmup]
results = []
ok = True
for col, unit, floor, kind in figs:
    pts = [(s["min"], s[col]) for s in warm if s.get(col) is not None]
    if len(pts) < 3:
        results.append((col, unit, None, None, None, None, None, "too few samples"))
        ok = False
        continue
    b, se = fit(pts)
    if floor is None:
        floor = 0.01 * abs(sum(y for _, y in pts) / len(pts))
    tol = 3 * se + floor
    ys = [y for _, y in pts]
    flat = abs(b) <= tol
    if kind == "fds" and max(ys) - min(ys) <= 2:
        flat = True  # two scrapes in flight at most: their sockets
    results.append((col, unit, pts[0][1], pts[-1][1], b, se, tol, "flat" if flat else "GROWS"))
    ok &= flat

# overflow after the warm-up: a map that was full
ov = [s["overflow_total"] for s in warm if s.get("overflow_total") is not None]
overflow_moved = bool(ov) and ov[-1] != ov[0]
ok &= not overflow_moved
ok &= not over and not bad_status

# the identity, per metric, over the whole run (tests/identity.py; --tol 1: no
# bound on a single interval report, read while the programs run)
ident = []
rep = os.path.join(R, "reports.jsonl")
for met in ("offcpu", "runq", "blocked"):
    p = subprocess.run([sys.executable, os.path.join(HERE, "..", "tests", "identity.py"), rep,
                        "--tol", "1", "--metric", met], capture_output=True, text=True)
    msg = (p.stdout.strip() or p.stderr.strip()).replace(rep + ": ", "")
    ident.append((met, p.returncode == 0, msg))
    ok &= p.returncode == 0

# the hashes at the end, after the churn stopped: keys of the soak's cgroups, all removed
ours = {int(x) for x in re.findall(r"^cgroup (\d+)$", read("cgchurn.out"), re.M)}


def key_ids(e, name):
    k = e.get("formatted", {}).get("key")
    if k is None:
        raw = bytes(int(x, 16) for x in e["key"])
        if name == "culprit_map":
            return [int.from_bytes(raw[0:8], "little"), int.from_bytes(raw[24:32], "little")]
        return [int.from_bytes(raw[0:8], "little")]
    if "waiter" in k:
        return [k["waiter"]["id"], k["culprit"]["id"]]
    return [k["id"]]


dead = {}
for mp in maps:
    try:
        with open(os.path.join(R, f"dump.{mp['name']}.json")) as f:
            d = json.load(f)
    except (OSError, ValueError):
        continue
    if not isinstance(d, list):
        continue  # bpftool's error object: the dump failed
    n = 0
    for e in d:
        if set(key_ids(e, mp["name"])) & ours:
            n += 1
    dead[mp["name"]] = (n, len(d))
# the only dead keys allowed: culprit pairs still in a CPU's pair cache (SH_CCACHE = 16 per CPU)
for name, (n, _) in dead.items():
    if n > (16 * ncpus if name == "culprit_map" else 0):
        ok = False

status = read("status").strip()
if a.left.strip():
    ok = False
if a.interrupted:
    ok = False

# ---- the CSV: the samples, the derived columns too ----
cols = list(samples[0].keys()) if samples else []
with open(a.out + ".csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(cols + ["phase"])
    for s in samples:
        w.writerow([("" if s.get(c) is None else (f"{s[c]:.6g}" if isinstance(s[c], float) else s[c]))
                    for c in cols] + ["churn"])
    for s in final:
        w.writerow([("" if s.get(c) is None else f"{s[c]:.6g}") for c in cols] + ["after"])


def f3(x):
    return "-" if x is None else (f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}")


commit = a.commit or "unknown"
load1 = [s["load1"] for s in samples if s.get("load1") is not None]
L = []
L.append(f"# Soak {a.stamp}: {'PASS' if ok else 'FAIL'}")
L.append("")
L.append(f"`{a.cmd}` on {os.uname().nodename}, kernel {os.uname().release}, "
         f"{os.cpu_count()} CPUs ({ncpus} possible), schedhist {commit}; "
         f"{len(samples)} samples, one every {f3(samples[1]['t_s'] - samples[0]['t_s']) if len(samples) > 1 else '-'} s; "
         f"figures fitted from minute {a.warmup:g}.")
L.append("")
L.append("schedhist: `-M offcpu,runq,blocked -k cgroup --culprits --stacks --listen "
         "127.0.0.1:PORT --heatmap FILE -i 1 --print -j` (fleet mode, as user nobody), "
         "reports to a file.")
L.append("")
L.append("## Load and rates achieved")
L.append("")
L.append(f"- cgroups: {cg['created']} made and {cg['removed']} removed in {cg['seconds']:.0f} s, "
         f"{cg['rate']:.2f} per second (target 10: one every 100 ms), {cg['failed']} failed; "
         f"each with a task that slept 1 ms five times, on cgroup2"
         f"{' and the v1 cpu hierarchy' if 'cpu' in read('cgchurn.out') or True else ''}.")
if tasks:
    L.append(f"- tasks: {tasks[0]} threads and {tasks[1]} processes, "
             f"{task_rate:.0f} per second (at nice 19 on a shared host).")
L.append(f"- scrapes: {len(metrics_ms)} of /metrics (p50 {pct(metrics_ms, .5):.2f} ms, "
         f"p99 {pct(metrics_ms, .99):.2f} ms, max {max(metrics_ms) if metrics_ms else float('nan'):.2f} ms), "
         f"{sum(1 for s in scr if s[1] == '/live.json')} of /live.json, "
         f"{sum(1 for s in scr if s[1] == '/')} of the live page; "
         f"{len(over)} over {SCRAPE_MAX_MS:.0f} ms, {len(bad_status)} not 200.")
for s in over:
    L.append(f"  - {s[1]} at {s[0] - t0:.0f} s: {s[4]:.1f} ms (connected at {s[5]:.1f} ms, "
             f"first byte at {s[6]:.1f} ms); meanwhile the server thread ran {s[7]:.1f} ms and "
             f"waited for a CPU {s[8]:.1f} ms, the hypervisor stole {s[9]:.0f} ms.")
if load1:
    L.append(f"- host load (1-min average, the host shared with other builds and tests): "
             f"mean {sum(load1) / len(load1):.2f}, max {max(load1):.2f} on {os.cpu_count()} CPUs; "
             f"at the end `{a.load}`.")
L.append("")
L.append("## Figures")
L.append("")
L.append(f"Slope per minute of the least-squares line from minute {a.warmup:g}; tolerance = "
         f"3 standard errors + floor (floor: one object per 100 cgroups churned, "
         f"{leak_per_min:.2f} per minute here; rates: 1 % of the mean), see bench/soak-report.py.")
L.append("")
L.append(f"| figure | unit | at {a.warmup:g} min | at end | after churn | slope /min | tolerance | verdict |")
L.append("|---|---|---:|---:|---:|---:|---:|---|")
for col, unit, y0, y1, b, se, tol, v in results:
    after = final[0].get(col) if final else None
    L.append(f"| {col} | {unit} | {f3(y0)} | {f3(y1)} | {f3(after)} | {f3(b)} | {f3(tol)} | {v} |")
L.append("")
L.append(f"- overflow (map_full + no_mem) after the warm-up: "
         f"{'moved: a map was full' if overflow_moved else 'unchanged'}"
         f"{f' ({ov[0]:.0f} to {ov[-1]:.0f})' if ov else ''}.")
L.append(f"- keys of the soak's {len(ours)} cgroups (all removed) left in the hashes at the end "
         "(3 s after the churn stopped): " + ", ".join(f"{k} {n} of {t}" for k, (n, t) in dead.items()) +
         f" (culprit pairs still in a CPU's pair cache allowed: at most {16 * ncpus}).")
L.append("")
L.append("## Accounting identity (whole run, last report after detach)")
L.append("")
for met, good, msg in ident:
    L.append(f"- {met}: {'exact' if good else 'BROKEN'}: {msg}")
L.append("")
L.append(f"Ended: {status or 'schedhist status unknown'}; left behind: "
         f"{a.left.strip() or 'nothing (programs, maps and cgroups gone)'}"
         f"{'; INTERRUPTED' if a.interrupted else ''}.")
L.append("")
with open(a.out + ".md", "w") as f:
    f.write("\n".join(L))
print("\n".join(L))
print(f"soak: {'PASS' if ok else 'FAIL'}: {a.out}.md, {a.out}.csv", file=sys.stderr)
sys.exit(0 if ok else 1)
