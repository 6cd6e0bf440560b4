#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Slots are reused, and a reused slot starts from zero. Under -M runq -k
# tid --max-keys 8 (8 slots; gone keys are left to the poller while at
# most 4 are taken, so a wave of 4 is freed by the poller) with -c on a cgroup of
# this test's own, four waves of the spinners helper run one after the
# other in that cgroup, each 4 tasks (its main thread and 3 spinners),
# each wave only once the poller has freed every slot of the one before
# (the key directory names no slot any more): so every wave after the
# first gets slots that held another thread's waits. The kernel is the
# oracle: once a wave's spinners sleep for good (in pause()), each
# one's count and sum_ns in the cumulative report must not exceed its own
# schedstat pcount and run_delay (the sched_info method records a wait
# only for an arrival the kernel counted, and exactly its run_delay; it
# can fall short only by arrivals no sched_switch event showed, "merged",
# and each thread's last arrival, which no later switch-in can show as
# merged: those bound the shortfall): a slot that kept its last key's counts
# would put a thread hundreds of waits above its pcount. Nothing goes to
# [other] (16 keys in a capacity of 8: only because slots and keys are
# freed), and each wave is seen in slots while it runs.
. "$(dirname "$0")/../lib.sh"
need_root
[ -r /proc/self/schedstat ] || skip "kernel without schedstat (CONFIG_SCHED_INFO)"

cgroup_v2_or_cpu
G=$MNT/schedhist-slots-$$
test_cleanup() { remove_cgroup_tree "$G"; }
mkdir "$G" || fail "cannot create $G"

start_sh a -M runq -k tid --max-keys 8 -c "$G" "${HIER[@]}" --cumulative -i 1 -j -v
A=$SH_PID
DIR=$(named_map_id "$A" keydir) || fail "no keydir map"
[ "$(map_max_entries "$(named_map_id "$A" slot_keys)")" -eq 8 ] || fail "want 8 slots for --max-keys 8"

thread_state() { sed 's/^.*) //' "/proc/$1/task/$2/stat" | cut -c1; }
# reports_after N: wait until the instance has printed more than N lines
reports_after() {
	local i
	for i in $(seq 1 600); do	# a hang guard: 1 report a second
		[ "$(wc -l <"$TMP/a.out")" -gt "$1" ] && return 0
		sleep 0.1
	done
	fail "no report for 60 s"
}

for w in 1 2 3 4; do
	# the previous wave's keys are gone and their slots free
	for i in $(seq 1 600); do
		[ "$(slot_keys "$DIR")" -eq 0 ] && break
		sleep 0.1
	done
	if [ "$(slot_keys "$DIR")" != 0 ]; then
		# what was left, for the failure's cause
		kill -0 "$A" 2>/dev/null || echo "schedhist is gone"
		tail -5 "$TMP/a.err"
		echo "key directory:"; bpftool map dump id "$DIR" -j
		echo "slot keys:"; bpftool map dump id "$(named_map_id "$A" slot_keys)" -j
		echo "last report:"; tail -1 "$TMP/a.out"
		fail "wave $w: the slots of wave $((w - 1)) were not freed in 60 s"
	fi
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$G" "$HELPERS/spinners" -n 3 -c -1 -t 1 -d 50 -N "wave$w" \
		>"$TMP/w$w.out" &
	pid=$!
	CHILD_PIDS+=($pid)
	for i in $(seq 1 600); do
		[ "$(grep -c '^tid' "$TMP/w$w.out")" -eq 3 ] && break
		sleep 0.1
	done
	[ "$(grep -c '^tid' "$TMP/w$w.out")" -eq 3 ] || fail "wave $w: the spinners did not finish"
	inslots=$(slot_keys "$DIR")
	# asleep for good: then their schedstat is final
	for tid in $(awk '/^tid/ {print $2}' "$TMP/w$w.out"); do
		for i in $(seq 1 100); do
			[ "$(thread_state "$pid" "$tid")" = S ] && break
			sleep 0.05
		done
		echo "$tid $(cat "/proc/$pid/task/$tid/schedstat")" >>"$TMP/w$w.oracle"
	done
	# a report read after that (the one after the next: the next may have begun before)
	n=$(wc -l <"$TMP/a.out")
	reports_after $((n + 1))
	tail -1 "$TMP/a.out" >"$TMP/w$w.report"
	echo "wave $w: $inslots keys in slots while it ran"
	[ "$inslots" -ge 3 ] || fail "wave $w: only $inslots keys in slots (want its 3 spinners at least)"
	kill -TERM "$pid"
	wait "$pid"
done
stop_sh "$A" || fail "schedhist exited with $?"

python3 - "$TMP" <<'PY' || fail "slot reuse"
import json, sys
tmp = sys.argv[1]
bad = []
for w in (1, 2, 3, 4):
    r = json.loads(open(f"{tmp}/w{w}.report").read())
    groups = {g["key"]: g for g in r["groups"]}
    merged = r["events"].get("merged", 0)
    print(f"wave {w}: events {r['events']}")
    short = 0
    for line in open(f"{tmp}/w{w}.oracle"):
        tid, run, delay, pcount = line.split()
        g = groups.get(tid)
        if not g:
            bad.append(f"wave {w}: no group for tid {tid}")
            continue
        print(f"wave {w} tid {tid}: count {g['count']} (pcount {pcount}), sum_ns {g['sum_ns']} "
              f"(run_delay {delay})")
        if g["count"] > int(pcount) or g["sum_ns"] > int(delay):
            bad.append(f"wave {w} tid {tid}: more than the kernel counted: a slot kept old counts")
        short += int(pcount) - g["count"]
    # an arrival the program did not see shows as merged at the thread's
    # next switch-in; a thread's last one (it then sleeps for good) has
    # none: at most one a thread is short without a merged count
    nthreads = sum(1 for _ in open(f"{tmp}/w{w}.oracle"))
    if short > merged + nthreads:
        bad.append(f"wave {w}: {short} waits short of pcount, only {merged} merged "
                   f"(and {nthreads} last arrivals)")
    if r["events"]["map_full"] or r["events"]["no_mem"] or "[other]" in groups:
        bad.append(f"wave {w}: waits in [other]: keys were not freed")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
