#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Checks the accounting identity in schedhist's JSON Lines output.

    seen == recorded + no_start + filtered + dropped

("events" has seen and recorded, "lost" the three reasons). The last
report is taken after the programs are detached, so the identity is exact
over a whole run: for the last report of a --cumulative run, and for the
sum of all reports of an interval run. A single interval report is read
while the programs run (counters and histograms are not read at the same
instant: events in between count in one and not the other; with many
keys to read and prune that is tens of ms, more under ASan or Valgrind),
so it holds within --tol (a fraction of seen, default 0.05, at least 500
events). It also checks, in every report, that "recorded" is
the sum of the groups' counts ([other], [exited] and [rest] included) and,
over the whole run, that the [other] entry got exactly the map_full and
no_mem events (new keys the kernel could not add: map full, or no memory
for one at that moment).

usage: identity.py FILE [--cumulative] [--tol FRACTION] [--min-reports N] [--metric M]
(--metric: only the reports of metric M, for a run measuring several)
"""
import json
import sys


def main():
    args = sys.argv[1:]
    path = args.pop(0)
    cumulative = "--cumulative" in args
    # interval reports: the counters and the histograms are read one after
    # the other, so events in flight meanwhile (many under churn and load)
    # can sit on either side; the whole run, read after detach, is exact
    tol = float(args[args.index("--tol") + 1]) if "--tol" in args else 0.15
    min_reports = int(args[args.index("--min-reports") + 1]) if "--min-reports" in args else 1
    reports = [json.loads(line) for line in open(path)]
    if "--metric" in args:
        reports = [r for r in reports if r["metric"] == args[args.index("--metric") + 1]]
    if len(reports) < min_reports:
        sys.exit(f"{path}: {len(reports)} reports, want at least {min_reports}")
    tot = {"seen": 0, "recorded": 0, "lost": 0, "map_full": 0, "no_mem": 0, "other": 0}
    worst = 0
    for i, r in enumerate(reports):
        if r["cumulative"] != cumulative:
            sys.exit(f"{path}: report {i} has cumulative={r['cumulative']}")
        e, lost = r["events"], r["lost"]
        nlost = lost["no_start"] + lost["filtered"] + lost["dropped"] + lost["clock_skew"]
        if sum(g["count"] for g in r["groups"]) != e["recorded"]:
            sys.exit(f"{path}: report {i}: groups add up to "
                     f"{sum(g['count'] for g in r['groups'])}, recorded says {e['recorded']}")
        diff = e["seen"] - e["recorded"] - nlost
        worst = max(worst, abs(diff))
        if abs(diff) > max(2000, tol * e["seen"]):
            sys.exit(f"{path}: report {i}: seen {e['seen']} != recorded {e['recorded']} + "
                     f"lost {nlost} (off by {diff}, more than the tolerance)")
        other = sum(g["count"] for g in r["groups"] if g["key"] == "[other]")
        if cumulative:
            tot = {"seen": e["seen"], "recorded": e["recorded"], "lost": nlost,
                   "map_full": e["map_full"], "no_mem": e["no_mem"], "other": other}
        else:
            for k, v in (("seen", e["seen"]), ("recorded", e["recorded"]), ("lost", nlost),
                         ("map_full", e["map_full"]), ("no_mem", e["no_mem"]),
                         ("other", other)):
                tot[k] += v
    print(f"{path}: {len(reports)} reports; whole run: seen {tot['seen']} = recorded "
          f"{tot['recorded']} + lost {tot['lost']}; map_full {tot['map_full']}, no_mem "
          f"{tot['no_mem']}, [other] "
          f"{tot['other']}; worst single-report imbalance {worst}")
    if tot["seen"] != tot["recorded"] + tot["lost"]:
        sys.exit(f"{path}: identity broken over the run: off by "
                 f"{tot['seen'] - tot['recorded'] - tot['lost']}")
    if tot["other"] != tot["map_full"] + tot["no_mem"]:
        sys.exit(f"{path}: [other] has {tot['other']} waits but map_full + no_mem is "
                 f"{tot['map_full'] + tot['no_mem']}")
    if tot["seen"] == 0:
        sys.exit(f"{path}: no events at all")


main()
