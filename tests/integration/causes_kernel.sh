#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --causes, kernel: a CPU-bound thread pinned to CPU 0 in cgroup k while
# writers on CPU 1 flood /proc/sys/vm/stat_refresh, which runs a work item
# on every CPU's kworker each time (schedule_on_each_cpu): CPU 0's
# kworkers run during k's waits. k's kernel cause holds at least what the
# kernel threads bound to CPU 0 ran while it waited (their schedstat),
# and at most what every kernel thread ran in its life.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../causes_lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
[ -w /proc/sys/vm/stat_refresh ] || skip "no /proc/sys/vm/stat_refresh"

# kthreads FILE: "bound0 run_ns" of every kernel thread (PF_KTHREAD in
# /proc/PID/stat's flags), bound0 1 for those that only run on CPU 0
kthreads() {
	python3 - >"$1" <<'PY'
import os
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        st = open(f"/proc/{p}/stat").read()
        flags = int(st[st.rindex(")") + 2:].split()[6])
        if not flags & 0x00200000:
            continue
        cpus = [l.split()[1] for l in open(f"/proc/{p}/status") if l.startswith("Cpus_allowed_list")]
        run = open(f"/proc/{p}/schedstat").read().split()[0]
    except (OSError, ValueError, IndexError):
        continue	# gone meanwhile
    print(p, 1 if cpus == ["0"] else 0, run)
PY
}
# flood SECONDS: writes to stat_refresh from CPU 1 for that long
flood() {
	taskset -c 1 python3 -c '
import os, sys, time
fd = os.open("/proc/sys/vm/stat_refresh", os.O_WRONLY)
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    os.pwrite(fd, b"1", 0)' "$1"
}

cause_cgroups schedhist-ckern k
test_cleanup() { remove_cgroup_tree "$PARENT"; }
start_causes
kthreads "$TMP/k0"
in_cgroup "$PARENT/k" "$HELPERS/spinners" -n 1 -c 0 -t 4 -N ckern >"$TMP/k.out" &
CHILD_PIDS+=($!)
for i in $(seq 1 200); do
	[ "$(cgroup_run "$PARENT/k" | cut -d' ' -f1)" -gt 0 ] 2>/dev/null && break
	sleep 0.05
done
# the flood and its two readings inside k's life (it spins 4 s)
kthreads "$TMP/k1"
flood 1.5 & F1=$!
flood 1.5 & F2=$!
CHILD_PIDS+=($F1 $F2)
wait $F1 $F2
kthreads "$TMP/k2"
[ "$(grep -c '^tid' "$TMP/k.out")" -eq 0 ] || fail "k ended before the flood did"
wait_lines "$TMP/k.out" 1
kthreads "$TMP/k3"
sleep 0.6	# one more reading with the spinner blocked
stop_sh "$SH_PID" || fail "schedhist exited with $?"

python3 - "$TMP" "$PARENT" "$MNT" "$TICK_NS" <<PY
$CAUSES_PY
tick = int(sys.argv[4])
def load(n):
    return {p: (int(b), int(r)) for p, b, r in (l.split() for l in open(f"{tmp}/{n}"))}
k0, k1, k2, k3 = (load(n) for n in ("k0", "k1", "k2", "k3"))
# a kernel thread made meanwhile ran from 0; one gone meanwhile is left out
def ran(a, b, bound_only):
    return sum(r - a.get(p, (0, 0))[1] for p, (bound, r) in b.items() if bound or not bound_only)
low = ran(k1, k2, True)
high = ran(k0, k3, False)
g, c = causes("k")
print(f"kernel threads bound to CPU 0 ran {low} ns during the flood; every kernel thread "
      f"{high} ns in k's life")
# Between k1 and k2 the thread spins on CPU 0, so all that CPU 0's own
# kernel threads ran then was during its waits; from before its start to
# after its end, no kernel thread ran more than every kernel thread did.
# Both give or take the steal and a tick per reading.
slack = c["steal"] + 2 * tick
if c["kernel"] < low - slack:
    bad.append(f"k: kernel {c['kernel']} ns, below the {low} ns CPU 0's kernel threads ran "
               f"(less {slack} ns)")
if c["kernel"] > high + slack:
    bad.append(f"k: kernel {c['kernel']} ns, above the {high} ns all kernel threads ran "
               f"(and {slack} ns)")
if not low:
    bad.append("the flood ran no kernel thread on CPU 0")
done()
PY
