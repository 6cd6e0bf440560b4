#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Many CPUs writing at once (tests/vm runs it on 8 and 16 vCPUs: TCG's
# vCPUs are threads on the host's cores, so their interleavings are real
# though their speed is not): for STORM_SECONDS (20), on every CPU, a fork
# storm (one tests/helpers/churn per two CPUs, threads and processes),
# a cgroup storm (cgchurn, a cgroup made and removed every 20 ms) and
# 2 x CPUs unpinned CPU-bound threads (spinners, comm vmspin) that the
# load balancer moves between all the CPUs. Six instances watch, -M runq
# --cumulative: -k tid (--stacks), -k comm and -k cgroup, each with the
# key store's default cache and with a cache of one entry per CPU
# (SCHEDHIST_CACHE_ENTRIES=1: a flush into the shared store at nearly
# every switch, from every CPU at once). Checked, from the last report
# (taken after the programs detached):
#  - the accounting identity, exactly, in every instance;
#  - the spinners (asleep for good when read) against their own schedstat,
#    as tests/integration/runq_oracle.sh does for sched_info: per thread
#    (-k tid) count <= pcount and sum_ns <= run_delay, short only by the
#    arrivals counted as merged, each at most the thread's longest wait;
#    -k comm the same for the process, its keys vmspin and spinners (a
#    thread's first waits come before it names itself), short at most by
#    the main thread's waits before its execve() (spinners -E);
#  - max_lost and stack_lost counted, and at most 1 % of the waits recorded
#    (a try-lock that lost to another CPU, never a count);
#  - -k cgroup: each cgroup that cgchurn made (each task in it waited)
#    has its key, [removed id=N] once removed;
#  - no key of an exited task left (-k tid): the keys made are those the
#    kernel folded into [exited], those the poller removed and those live
#    at the end, which are no more than the tasks alive then.
# With VMOUT set (in a guest), the summary is left in $VMOUT/storm-CPUS.txt.
. "$(dirname "$0")/../../lib.sh"
need_root
[ -r /proc/self/schedstat ] || skip "kernel without schedstat"
secs=${STORM_SECONDS:-20}
ncpu=$(nproc)
MNT=$(cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup2 hierarchy mounted"
CG=$MNT/vmstorm-$$
mkdir "$CG" || fail "cannot create $CG"
test_cleanup() { remove_cgroup_tree "$CG"; }

declare -A P
for k in tid comm cgroup; do
	extra=()
	[ $k = tid ] && extra=(--stacks -v)
	start_sh "$k" -M runq -k $k "${extra[@]}" --cumulative -j -i 2
	P[$k]=$SH_PID
	SCHEDHIST_CACHE_ENTRIES=1 start_sh "${k}1" -M runq -k $k "${extra[@]}" --cumulative -j -i 2
	P[${k}1]=$SH_PID
done
"$HELPERS/spinners" -n $((2 * ncpu)) -c -1 -t "$secs" -N vmspin -E "$TMP/spin.exec" >"$TMP/spin.out" &
SPIN=$!
CHILD_PIDS+=($SPIN)
for i in $(seq 1 $(((ncpu + 1) / 2))); do
	"$HELPERS/churn" -t "$secs" -m both -c 4 -N vmchurn >"$TMP/churn$i.out" &
	CHILD_PIDS+=($!)
	churns+=($!)
done
"$HELPERS/cgchurn" -d "$CG" -p 20 -l 5 -t "$secs" >"$TMP/cg.out" &
CHILD_PIDS+=($!)
churns+=($!)
wait "${churns[@]}" || fail "a churn helper failed: $(cat "$TMP"/churn*.out "$TMP/cg.out")"
for i in $(seq 1 600); do	# a hang guard: ends when every spinner has reported
	[ "$(wc -l <"$TMP/spin.out")" -ge $((2 * ncpu)) ] && break
	sleep 0.1
done
[ "$(wc -l <"$TMP/spin.out")" -ge $((2 * ncpu)) ] || fail "spinners did not report"
# every spinner asleep in pause() for good: its schedstat is final
: >"$TMP/final"
for tid in $(ls "/proc/$SPIN/task"); do
	for i in $(seq 1 600); do
		[ "$(sed 's/^.*) //' "/proc/$SPIN/task/$tid/stat" | cut -c1)" = S ] && break
		sleep 0.1
	done
	read -r _ rd pc <"/proc/$SPIN/task/$tid/schedstat"
	echo "$tid $rd $pc $(cat "/proc/$SPIN/task/$tid/comm")" >>"$TMP/final"
done
sleep 3	# the churn's last tasks freed (RCU), and a reading after it
for k in "${!P[@]}"; do stop_sh "${P[$k]}" || fail "$k: schedhist exited with $?"; done
tasks=$(ls -d /proc/[0-9]*/task/[0-9]* | wc -l)	# every task alive now
cat "$TMP"/churn*.out "$TMP/cg.out" | grep -v '^ready'

read -r _ cgs _ < <(grep '^created' "$TMP/cg.out")
sum=${VMOUT:-$TMP}/storm-$ncpu.txt
python3 - "$TMP" "$SPIN" "$tasks" "$cgs" <<'PY' >"$sum"
import json, re, sys
tmp, spin, tasks, cgs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
final = {t: (int(rd), int(pc), c) for t, rd, pc, c in (l.split() for l in open(f"{tmp}/final"))}
bad = []
for k in ("tid", "tid1", "comm", "comm1", "cgroup", "cgroup1"):
    r = [json.loads(l) for l in open(f"{tmp}/{k}.out") if l.startswith("{")][-1]
    ev, lost, km = r["events"], r["lost"], r["kernel_memory"]
    g = {x["key"]: x for x in r["groups"]}
    print(f"{k}: seen {ev['seen']} recorded {ev['recorded']} lost {lost} merged {ev['merged']}; "
          f"cache {km['cache_entries']}: {km['cache_hits']} hits {km['cache_misses']} misses, "
          f"max_lost {km['max_lost']} stack_lost {km['stack_lost']}; {len(g)} keys")
    if ev["seen"] != ev["recorded"] + sum(lost.values()):
        bad.append(f"{k}: identity")
    if km["max_lost"] + km["stack_lost"] > ev["recorded"] / 100:
        bad.append(f"{k}: max_lost + stack_lost above 1 % of the waits")
    if k.startswith("tid"):
        short = 0
        for tid, (rd, pc, _) in final.items():
            if tid == spin:
                continue
            t = g.get(tid)
            if not t:
                bad.append(f"{k}: spinner {tid} missing"); continue
            miss = pc - t["count"]
            short += miss
            if t["count"] > pc or t["sum_ns"] > rd or rd - t["sum_ns"] > miss * t["max_ns"]:
                bad.append(f"{k}: tid {tid} count {t['count']} sum {t['sum_ns']}, "
                           f"pcount {pc} run_delay {rd}")
        if short > ev["merged"]:
            bad.append(f"{k}: {short} waits missing, {ev['merged']} merged")
        # every key made was folded by the kernel, removed by the poller or
        # is live at the end, and the live ones are at most the tasks alive
        mo = re.search(r"keys made (\d+), reclaimed by the kernel (\d+), removed by the poller (\d+)",
                       open(f"{tmp}/{k}.err").read())
        if not mo:
            bad.append(f"{k}: no totals line"); continue
        made, rec, rem = map(int, mo.groups())
        print(f"{k}: keys made {made} = reclaimed {rec} + removed {rem} + live {ev['live_keys']}"
              f" ({tasks} tasks alive after the run)")
        if made != rec + rem + ev["live_keys"] or ev["live_keys"] > tasks:
            bad.append(f"{k}: keys of exited tasks left")
    if k.startswith("cgroup"):
        gone = [x for x in g if x.startswith("[removed id=")]
        print(f"{k}: {len(gone)} removed cgroups keyed, of the {cgs} cgchurn made")
        if len(gone) < cgs:
            bad.append(f"{k}: {cgs} cgroups made and removed, {len(gone)} keyed")
    if k.startswith("comm"):
        # a thread is vmspin once it named itself: its first waits, and the
        # main thread's, are under the process's name, spinners (no other
        # task has it): the two keys hold every wait of the process but the
        # main thread's before execve() named it (under the shell's comm):
        # at most those its schedstat showed when main() began (spin.exec)
        t = [g[c] for c in ("vmspin", "spinners") if c in g]
        rd, pc = sum(v[0] for v in final.values()), sum(v[1] for v in final.values())
        ex = open(f"{tmp}/spin.exec").read().split()
        rd0, pc0 = int(ex[1]), int(ex[3])
        cnt, sm = sum(x["count"] for x in t), sum(x["sum_ns"] for x in t)
        mx = max((x["max_ns"] for x in t), default=0)
        miss = pc - cnt
        if "vmspin" not in g:
            bad.append(f"{k}: no vmspin key")
        elif (cnt > pc or sm > rd or miss > ev["merged"] + pc0 or
              rd - sm > rd0 + max(0, miss - pc0) * mx):
            bad.append(f"{k}: vmspin and spinners count {cnt} sum {sm}, pcount {pc} run_delay {rd}"
                       f" ({pc0} waits, {rd0} ns before the exec)")
        else:
            print(f"{k}: vmspin and spinners count {cnt} of pcount {pc}, sum {sm} of run_delay {rd}"
                  f" ({pc0} waits, {rd0} ns before the exec)")
for b in bad:
    print("  FAIL:", b)
sys.exit(1 if bad else 0)
PY
rc=$?
cat "$sum"
[ $rc -eq 0 ] || fail "storm on $ncpu CPUs"
echo "PASS"
