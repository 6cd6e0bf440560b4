#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The result of make vmtest (tests/vm/vmtest.sh) as Markdown.

    report.py RUNS_DIR RESULT.md RUN...

Per run (RUNS_DIR/RUN: status, wall, accel, kernel, job.log, kmem-*.txt):
the kernel and where it came from, the accelerator, vCPUs and possible
CPUs (the guest's own first line), the wall time of the boot, every
test's PASS/SKIP/FAIL line, then the memory tables and the storms' summaries.
Exits 1 when a run failed. Wall times are of TCG guests on this host's
two cores, never a host figure.
"""
import glob
import os
import re
import subprocess
import sys


def read(path, default=""):
    try:
        return open(path).read().strip()
    except OSError:
        return default


def main():
    runs, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    rev = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                         text=True).stdout.strip()
    lines = ["# make vmtest", "",
             f"- runs: {os.path.basename(runs)} UTC, schedhist {rev}",
             "- guests: QEMU q35, -cpu max, 2 GiB (3 GiB at 16 vCPUs), the host's / read-only "
             "over virtio-9p (tests/vm/boot.sh); the host run is native",
             "- times are wall seconds of TCG guests sharing the host's 2 cores with other work: "
             "no timing here is a host figure", "",
             "| run | kernel | accelerator | CPUs in the guest | wall s | result |",
             "|---|---|---|---|---|---|"]
    failed, detail = 0, []
    for n in names:
        d = os.path.join(runs, n)
        status = read(f"{d}/status", "1")
        log = read(f"{d}/job.log")
        guest = re.search(r"^guest: (.*)$", log, re.M)
        tests = re.findall(r"^(PASS|FAIL|SKIP) (\S+)(.*)$", log, re.M)
        ok = status == "0" and tests and not any(t[0] == "FAIL" for t in tests)
        failed += not ok
        cpus = guest.group(1).split(", ", 1)[1] if guest and ", " in guest.group(1) else "?"
        lines.append(f"| {n} | {read(f'{d}/kernel', '?')} | {read(f'{d}/accel', '?')} | "
                     f"{cpus} | {read(f'{d}/wall', '?')} | {'PASS' if ok else 'FAIL'} |")
        detail += [f"## {n}", ""]
        detail += [f"- {t[0]} {t[1]}{t[2]}" for t in tests] or ["- no test ran"]
        if not ok:
            boot = read(os.path.join(runs, f"{n}.boot"))
            fails = re.findall(r"^FAIL \S+.*(?:\n    .*)*", log, re.M)
            detail += ["", "```"] + (fails or [boot[-3000:]]) + ["```"]
        for k in sorted(glob.glob(f"{d}/storm-*.txt")):
            detail += ["", f"Storm on {os.path.basename(k)[6:-4]} CPUs (each instance's last "
                       "report, after the programs detached):", "", "```", read(k), "```"]
        for k in sorted(glob.glob(f"{d}/kmem-*.txt")):
            detail += ["", f"Memory, {os.path.basename(k)[5:-4]} possible CPUs "
                       "(bytes; bpftool map show's bytes_memlock beside bench/kmem):", "", "```",
                       read(k), "```"]
        detail.append("")
    lines += [""] + detail
    lines.append(f"{len(names) - failed} runs passed, {failed} failed")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"vmtest: {len(names) - failed} runs passed, {failed} failed; result in {out}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
