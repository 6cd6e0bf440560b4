#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The ftrace oracle of time-weighted culprits: who ran while a task waited.

usage: culprit_oracle.py --victim COMM --out FILE [--cpus LIST] [--buffer-kb N] -- CMD [ARG...]

Records the kernel's own sched_switch, sched_wakeup, sched_wakeup_new and
sched_migrate_task events on every CPU (a trace instance of its own under
instances/, on a tracefs it mounts in a temporary directory when none is
mounted, so the host's tracing is left as it was; switches only on the CPUs of
--cpus, 0,1 say, where the waiting task can be queued, and wakeups and
migrations only of tasks named COMM, so that a busy host's other CPUs do
not fill the buffer) while CMD runs (CMD's
stdout and stderr are this script's), then, for each run-queue wait of a
task named COMM that ends in a switch to it under that name, the CPU time
every other task ran on the CPU the waiting task was queued on, segment
by segment (a migration while queued moves the rest of the wait to the
destination CPU): the wait begins when the task is woken (on the wakeup's
target CPU) or preempted (switched out still runnable), as the kernel's
run_delay does, and ends at its switch-in. A task is named by its comm
when its run ends (its switch-out), the idle task "[idle]".

Writes FILE, one JSON object:
  victim, waits (count), wait_ns (their sum), ran_ns {comm: ns}, the
  time each task ran during those waits; gap_ns: time of the waits on a
  CPU whose task the trace does not say (a switch the trace left out: the
  next switch's prev is not the last one's next), counted, never blamed;
  uncovered_ns: time of the waits before the first switch traced on their
  CPU (none expected: the trace starts before CMD).
Exits 1 when the trace buffer lost events (a share would be short).
"""
import argparse
import bisect
import json
import os
import re
import subprocess
import sys
import tempfile

EVENT = re.compile(r"\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (sched_\w+): (.*)$")
SWITCH = re.compile(r"prev_comm=(.*) prev_pid=(\d+) prev_prio=\S+ prev_state=(\S+) ==> "
                    r"next_comm=(.*) next_pid=(\d+) next_prio=\S+$")
WAKEUP = re.compile(r"comm=(.*) pid=(\d+) prio=\S+ target_cpu=(\d+)$")
MIGRATE = re.compile(r"comm=(.*) pid=(\d+) prio=\S+ orig_cpu=(\d+) dest_cpu=(\d+)")
EVENTS = ("sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task")


def tracefs():
    """The mounted tracefs, or one mounted here: (path, mounted by us)."""
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        sep = f.index("-")
        if f[sep + 1] == "tracefs":
            return f[4], False
    d = tempfile.mkdtemp(prefix="culprit-oracle-")
    subprocess.run(["mount", "-t", "tracefs", "nodev", d], check=True)
    return d, True


def put(path, value):
    with open(path, "w") as f:
        f.write(value)


def record(cmd, buffer_kb, victim, cpus):
    """Run @cmd under the trace; its exit code, the trace's lines, what it lost."""
    mnt, ours = tracefs()
    inst = f"{mnt}/instances/culprit-oracle-{os.getpid()}"
    os.mkdir(inst)
    try:
        put(f"{inst}/buffer_size_kb", str(buffer_kb))
        for e in EVENTS:
            if e == "sched_switch" and cpus is not None:
                put(f"{inst}/events/sched/{e}/filter",
                    " || ".join(f"CPU == {c}" for c in cpus))
            elif e != "sched_switch":
                put(f"{inst}/events/sched/{e}/filter", f'comm == "{victim}"')
            put(f"{inst}/events/sched/{e}/enable", "1")
        put(f"{inst}/tracing_on", "1")
        rc = subprocess.call(cmd)
        put(f"{inst}/tracing_on", "0")
        lost = []
        for cpu in sorted(os.listdir(f"{inst}/per_cpu")):
            for line in open(f"{inst}/per_cpu/{cpu}/stats"):
                k, _, v = line.partition(":")
                if k.strip() in ("overrun", "commit overrun", "dropped events") and int(v):
                    lost.append(f"{cpu} {k.strip()} {int(v)}")
        with open(f"{inst}/trace") as f:
            lines = f.readlines()
    finally:
        os.rmdir(inst)
        if ours:
            subprocess.run(["umount", mnt], check=True)
            os.rmdir(mnt)
    return rc, lines, lost


def parse(lines):
    """Events in time order: (ns, cpu, event, fields)."""
    out = []
    for line in lines:
        m = EVENT.search(line)
        if not m:
            continue
        cpu, sec, frac, ev, rest = m.groups()
        ns = int(sec) * 10**9 + int(frac.ljust(9, "0")[:9])
        pat = SWITCH if ev == "sched_switch" else MIGRATE if ev == "sched_migrate_task" else WAKEUP
        f = pat.match(rest) if pat is SWITCH else pat.search(rest)
        if f:
            out.append((ns, int(cpu), ev, f.groups()))
    out.sort(key=lambda e: e[0])
    return out


def runs_of(events):
    """Per CPU: sorted runs (start, end, name), and gaps (start, end)."""
    runs, gaps, last = {}, {}, {}
    for ns, cpu, ev, f in events:
        if ev != "sched_switch":
            continue
        pcomm, ppid, _, ncomm, npid = f
        if cpu in last:
            t0, pid = last[cpu]
            if pid == ppid:
                name = "[idle]" if ppid == "0" else pcomm
                runs.setdefault(cpu, []).append((t0, ns, name))
            else:
                gaps.setdefault(cpu, []).append((t0, ns))
        last[cpu] = (ns, npid)
    return runs, gaps


def overlap(spans, t0, t1, add):
    """add(item, ns) for every span (start, end, ...) of sorted @spans overlapping [t0, t1]."""
    i = bisect.bisect_right(spans, (t0,)) - 1
    i = max(i, 0)
    while i < len(spans) and spans[i][0] < t1:
        s, e = spans[i][0], spans[i][1]
        o = min(e, t1) - max(s, t0)
        if o > 0:
            add(spans[i], o)
        i += 1


def oracle(events, victim):
    runs, gaps = runs_of(events)
    segs = []		# (cpu, t0, t1): the victim's waits, CPU by CPU
    waits = wait_ns = 0
    # each queued task: [cpu, segment start, wait start, earlier segments]
    queued = {}
    vpids = set()
    for ns, cpu, ev, f in events:
        if ev == "sched_switch":
            pcomm, ppid, pstate, ncomm, npid = f
            q = queued.pop(npid, None)
            if q and ncomm == victim:
                segs += q[3] + [(cpu, q[1], ns)]
                waits += 1
                wait_ns += ns - q[2]
                vpids.add(npid)
            # preempted: still runnable, queued again on this CPU
            if ppid != "0" and pstate.startswith("R"):
                queued[ppid] = [cpu, ns, ns, []]
        elif ev in ("sched_wakeup", "sched_wakeup_new"):
            comm, pid, target = f
            if pid not in queued:
                queued[pid] = [int(target), ns, ns, []]
        else:
            comm, pid, orig, dest = f
            q = queued.get(pid)
            if q:
                q[3].append((q[0], q[1], ns))
                q[0], q[1] = int(dest), ns
    ran, gap_ns, seg_ns = {}, 0, 0

    def add_run(r, o):
        ran[r[2]] = ran.get(r[2], 0) + o

    def add_gap(g, o):
        nonlocal gap_ns
        gap_ns += o

    for cpu, t0, t1 in segs:
        seg_ns += t1 - t0
        overlap(runs.get(cpu, []), t0, t1, add_run)
        overlap(gaps.get(cpu, []), t0, t1, add_gap)
    return {"victim": victim, "pids": sorted(int(p) for p in vpids), "waits": waits,
            "wait_ns": wait_ns, "ran_ns": ran, "gap_ns": gap_ns,
            "uncovered_ns": seg_ns - sum(ran.values()) - gap_ns}


def main():
    ap = argparse.ArgumentParser(description="ftrace oracle of time-weighted culprits")
    ap.add_argument("--victim", required=True, help="comm of the waiting task")
    ap.add_argument("--out", required=True, help="JSON result file")
    ap.add_argument("--cpus", help="CPUs whose switches are traced, e.g. 0,1 (default all)")
    ap.add_argument("--buffer-kb", type=int, default=32768, help="trace buffer per CPU")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command to run")
    cpus = [int(c) for c in a.cpus.split(",")] if a.cpus else None
    rc, lines, lost = record(cmd, a.buffer_kb, a.victim, cpus)
    if lost:
        print("culprit_oracle: the trace lost events: " + ", ".join(lost), file=sys.stderr)
        return 1
    res = oracle(parse(lines), a.victim)
    res["cmd_rc"] = rc
    with open(a.out, "w") as f:
        json.dump(res, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
