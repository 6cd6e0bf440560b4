#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --causes, neighbour: a CPU-bound thread in cgroup v and one in cgroup n,
# both pinned to CPU 0, n's whole life inside v's: v's neighbour cause
# holds all that n's tasks ran (their schedstat) and v's self cause only
# what v's own sleeping main thread ran; neighbour is v's largest cause.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../causes_lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

cause_cgroups schedhist-cnbr v n
test_cleanup() { remove_cgroup_tree "$PARENT"; }
start_causes
in_cgroup "$PARENT/v" "$HELPERS/spinners" -n 1 -c 0 -t 5 -N cvictim >"$TMP/v.out" &
CHILD_PIDS+=($!)
# n starts once v's thread has run (it is spinning), and ends 3 s before v
for i in $(seq 1 200); do
	[ "$(cgroup_run "$PARENT/v" | cut -d' ' -f1)" -gt 0 ] 2>/dev/null && break
	sleep 0.05
done
in_cgroup "$PARENT/n" "$HELPERS/spinners" -n 1 -c 0 -t 2 -N cnbr >"$TMP/n.out" &
CHILD_PIDS+=($!)
wait_lines "$TMP/n.out" 1
cgroup_run "$PARENT/n" >"$TMP/n.run"
[ "$(grep -c '^tid' "$TMP/v.out")" -eq 0 ] || fail "v ended before n: n's life is not inside v's"
wait_lines "$TMP/v.out" 1
cgroup_run "$PARENT/v" >"$TMP/v.run"
awk '{print $1, $2}' /proc/"$(head -1 "$PARENT/v/cgroup.procs")"/schedstat >"$TMP/v.main"
sleep 0.6	# one more reading with the spinners blocked
stop_sh "$SH_PID" || fail "schedhist exited with $?"

python3 - "$TMP" "$PARENT" "$MNT" "$TICK_NS" <<PY
$CAUSES_PY
tick = int(sys.argv[4])
nrun, _ = (int(x) for x in open(f"{tmp}/n.run").read().split())
vrun, vdelay = (int(x) for x in open(f"{tmp}/v.run").read().split())
g, c = causes("v")
print(f"n: its tasks ran {nrun} ns; v's ran {vrun} ns")
# everything n ran (its main thread too, on either CPU: at most) was
# while v's thread waited on CPU 0, so v's neighbour cause holds it, but
# for the steal and a tick per reading; n's main thread may have run on
# CPU 1, so it is not a lower bound: n's threads' is (its main thread only
# creates the thread and sleeps, within the slack)
slack = c["steal"] + 2 * tick
if c["neighbour"] < nrun - slack:
    bad.append(f"v: neighbour {c['neighbour']} ns, below n's run time {nrun} ns less {slack} ns")
# v's own group besides the thread is its main thread, asleep but for its
# start: self is what it ran during the thread's waits and what the thread
# ran during its waits, at most its run time and run_delay
mrun, mdelay = (int(x) for x in open(f"{tmp}/v.main").read().split())
if c["self"] > mrun + mdelay + slack:
    bad.append(f"v: self {c['self']} ns, above its main thread's run {mrun} and run_delay "
               f"{mdelay} ns and {slack} ns")
if largest(c) != "neighbour":
    bad.append(f"v: largest cause {largest(c)}, want neighbour")
done()
PY
