#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Fork storm: for 20 s (CHURN_SECONDS), and on until it has made more
# than twice the key maps' capacity in tasks and processes, the churn
# helper creates and reaps short-lived threads and processes as fast as
# this machine allows, one loop per CPU (pid_max is often 32768, so ids
# get reused). Three
# instances watch it at once:
#   tid  -k tid --cumulative -j            default key map capacity
#   pid  -k pid -j (per interval)          default capacity
#   tiny -k tid --max-keys 16 --cumulative -v  (text)
#   tid1 -k tid --cumulative -j, with a cache of one entry per CPU
#        (SCHEDHIST_CACHE_ENTRIES=1: the store's eviction path at nearly
#        every switch, and the kernel's folds taking gone keys' entries
#        from every CPU's cache), checked as tid is
# The kernel reclaims the key of every task when it is freed, folding its
# counts into [exited], so however fast tasks come and go, with the
# default capacity: no map_full, no no_mem and nothing in [other], every
# wait under its own key or [exited], the accounting identity exact over
# the run, and the key map never above its capacity. (Every key has a
# slot, and the key map holds [other] and [exited] from the start: the
# one allocation a new key makes is its key directory entry, from BPF's
# per-CPU caches, refilled asynchronously; one that fails is a no_mem,
# and a storm of tens of thousands of keys that loses none is what
# shows that the caches keep up with the task creation rate printed.) With 16 keys
# (fewer than the 40 threads kept alive beside the churn) the overflow goes to [other],
# exactly the map_full + no_mem events, and the text report says so.
# The creation rate reached is printed, to compare machines.
. "$(dirname "$0")/../lib.sh"
need_root
secs=${CHURN_SECONDS:-20}

# capacity: the keys, plus [other] and [exited]
declare -A P MAP left CAP=([tid]=10240 [pid]=10240 [tiny]=16 [tid1]=10240)
start_sh tid -i 1 -k tid --cumulative -j -v
P[tid]=$SH_PID
start_sh pid -i 1 -k pid -j -v
P[pid]=$SH_PID
start_sh tiny -i 1 -k tid --max-keys 16 --cumulative -v
P[tiny]=$SH_PID
SCHEDHIST_CACHE_ENTRIES=1 start_sh tid1 -i 1 -k tid --cumulative -j -v
P[tid1]=$SH_PID
# the keys go to slots of the key store (schedhist.h "Keys": the whole
# capacity), the key map holds what a key beyond would take; the kernel
# folds gone keys into [exited] (and frees their slots): HCAP is the key
# map's share
declare -A HCAP
for n in tid pid tiny tid1; do
	MAP[$n]=$(hists_map_id "${P[$n]}") || fail "$n: no hists map in /proc/${P[$n]}/fdinfo"
	slots=$(sed -n 's/.*key map capacity [0-9]* (\([0-9]*\) in slots,.*/\1/p' "$TMP/$n.err")
	[ -n "$slots" ] && [ "$slots" -ge 1 ] && [ "$slots" -le "${CAP[$n]}" ] ||
		fail "$n: '$slots' slots, want 1 to ${CAP[$n]}"
	HCAP[$n]=$((CAP[$n] - slots))
	max=$(map_max_entries "${MAP[$n]}")
	[ "$max" -eq $((HCAP[$n] + 2)) ] ||
		fail "$n: max_entries $max, want ${CAP[$n]} - $slots slots + 2 ([other], [exited])"
done

# a walk of a changing map can count a key deleted and one added meanwhile:
# only three walks over the cap in a row are a failure
check_cap() {
	local name=$1 r n
	for r in 1 2 3; do
		n=$("$HELPERS/mapcount" "${MAP[$name]}" | awk '{print $2}')
		[ -n "$n" ] || fail "$name: cannot count map ${MAP[$name]}"
		if [ "$n" -le $((HCAP[$name] + 2)) ]; then
			echo "$n" >>"$TMP/$name.entries"
			return 0
		fi
	done
	fail "$name: key map holds $n entries, more than ${HCAP[$name]} + 2"
}

# 40 live threads that wait every 10 ms: more keys alive at once than
# tiny's 16, whatever the churn's own pace
# (they end with the test: CHILD_PIDS)
"$HELPERS/threads" -n 40 -m 10 -t 600 >"$TMP/threads.out" &
CHILD_PIDS+=($!)
# full speed on both CPUs: a thread loop and a process loop, for $secs s
# and then on, 2 s at a time, until the storm is one: more tasks than
# twice the tid map's capacity and more processes than twice the pid
# map's, so that without reclaim both would have filled. A count, not a
# time: a slower machine (or the ASan build) churns longer instead of
# failing; the 240 s are a hang guard.
threads=0 procs=0 round=$secs t0=$(date +%s)
while :; do
	"$HELPERS/churn" -t "$round" -m both -c 16 >"$TMP/churn.out" &
	CH=$!
	CHILD_PIDS+=($CH)
	while kill -0 $CH 2>/dev/null; do
		for n in tid pid tiny tid1; do check_cap $n; done
		sleep 1
	done
	wait $CH || fail "churn helper failed"
	read -r _ t _ p _ < <(tail -1 "$TMP/churn.out")
	threads=$((threads + t)) procs=$((procs + p))
	[ "$procs" -ge $((CAP[pid] * 2 + 100)) ] && [ $((threads + procs)) -ge $((CAP[tid] * 2 + 100)) ] && break
	[ $(( $(date +%s) - t0 )) -lt 240 ] ||
		fail "only $threads threads and $procs processes in 240 s: no storm to test"
	round=2
done
churned=$(( $(date +%s) - t0 ))
echo "created $threads threads and $procs processes in $churned s:" \
	"$(( (threads + procs) / churned )) tasks/s"
# the storm must be one: tens of thousands of tasks, far more than the
# 16-key map and than one reading's worth of keys
[ $((threads + procs)) -ge $((CAP[tid] * 2)) ] ||
	fail "only $((threads + procs)) tasks created: no storm to test"

# The churn is over and reaped. A task's key goes when the kernel frees
# the task (sched_process_free), and the kernel frees some task_structs
# late (seen here: a few dozen of 100 000 still not freed 30 s later),
# so keys of such tasks can stay: they hold exactly their own waits. What
# must hold is that every key made was reclaimed (by the kernel or the
# poller) or is still there, exactly: checked below from the -v totals
# and the live keys of the last report (read after detach).
for n in tid pid tid1; do
	read -r _ _ _ _ _ left[$n] < <("$HELPERS/mapcount" -c churn "${MAP[$n]}" | paste -sd' ')
done
for n in tid pid tiny tid1; do stop_sh "${P[$n]}" || fail "$n: schedhist exited with $?"; done
for n in tid pid tiny tid1; do
	echo "$n: keys in the kernel map, per second: $(sort -n "$TMP/$n.entries" | tail -3 | tr '\n' ' ')(highest)"
	[ "$(grep -vc '^Tracing\|^schedhist: attached\|^schedhist: totals' "$TMP/$n.err")" -eq 0 ] ||
		fail "$n: noise on stderr: $(cat "$TMP/$n.err")"
done

id=$(dirname "$0")/../identity.py
python3 "$id" "$TMP/tid.out" --cumulative --min-reports $((secs - 2)) || fail "tid: identity"
python3 "$id" "$TMP/tid1.out" --cumulative --min-reports $((secs - 2)) || fail "tid1: identity"
python3 "$id" "$TMP/pid.out" --min-reports $((secs - 2)) || fail "pid: identity"
for n in tid pid tid1; do
	read -r made rec rem < <(sed -n 's/.*keys made \([0-9]*\), reclaimed by the kernel \([0-9]*\), removed by the poller \([0-9]*\)$/\1 \2 \3/p' "$TMP/$n.err")
	live=$(tail -1 "$TMP/$n.out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["events"]["live_keys"])')
	echo "$n: keys made $made = reclaimed by the kernel $rec + removed by the poller $rem" \
		"+ live at the end $live ($((threads + procs)) churn tasks; ${left[$n]} churn keys" \
		"left when it ended)"
	[ "$made" -eq $((rec + rem + live)) ] || fail "$n: keys made and keys reclaimed do not add up"
	# more keys than the map holds: without reclaim it would have filled
	[ "$made" -ge $((CAP[$n] * 2)) ] || fail "$n: only $made keys made: no storm measured"
done
python3 - "$TMP/tid.out" "$TMP/pid.out" "$((threads + procs))" "$TMP/tid1.out" <<'PY' ||
import json, sys
tid = [json.loads(l) for l in open(sys.argv[1])]
pid = [json.loads(l) for l in open(sys.argv[2])]
created = int(sys.argv[3])
tid1 = [json.loads(l) for l in open(sys.argv[4])]
for last in (tid[-1], tid1[-1]):
    ex = [g for g in last["groups"] if g["key"] == "[exited]"]
    assert ex, "no [exited] entry"
    # each created task waited at least once (it sleeps 50 us): its waits are
    # under its own key while it lives, then in [exited]
    assert ex[0]["count"] >= created // 2, f"[exited] has {ex[0]['count']} waits for {created} tasks"
km = tid1[-1]["kernel_memory"]
print(f"tid1: cache of {km['cache_entries']} entry, {km['cache_hits']} hits, {km['cache_misses']} misses")
assert km["cache_entries"] == 1 and km["cache_misses"] > 0, km
for name, rs in (("tid", tid), ("pid", pid), ("tid1", tid1)):
    # cumulative (tid): the last report has it all; per interval (pid): add up
    evs = [rs[-1]["events"]] if name != "pid" else [r["events"] for r in rs]
    full = sum(e["map_full"] for e in evs)
    nomem = sum(e["no_mem"] for e in evs)
    other = sum(g["count"] for r in (rs[-1:] if name != "pid" else rs)
                for g in r["groups"] if g["key"] == "[other]")
    print(f"{name}: map_full {full}, no_mem {nomem}, [other] {other}, live keys at most "
          f"{max(r['events']['live_keys'] for r in rs)}")
    assert full == 0, f"{name}: the key map filled up: waits went to [other]"
    assert nomem == 0, f"{name}: {nomem} waits of new keys the kernel had no memory for"
    assert other == 0, f"{name}: [other] holds {other} waits"
    assert max(r["events"]["live_keys"] for r in rs) <= 10240
PY
	fail "tid/pid reports"

# the text report of the small map: the last one, after SIGINT
awk '/^off-CPU wait/ {buf = ""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$TMP/tiny.out" >"$TMP/tiny.last"
python3 - "$TMP/tiny.last" <<'PY' || fail "tiny: overflow report"
import re, sys
text = open(sys.argv[1]).read()
ov = re.search(r"^overflow: key map full, (\d+) waits of new keys counted under \[other\]", text, re.M)
ev = re.search(r"^events: seen (\d+)  recorded (\d+)  no_start (\d+)  filtered (\d+)  "
               r"dropped (\d+)  map_full (\d+)  no_mem (\d+)  clock_skew (\d+)", text, re.M)
assert ov, "no overflow: line in the final report"
assert ev, "no events: line (-v) in the final report"
seen, rec, nostart, filt, drop, full, nomem, skew = map(int, ev.groups())
other = re.search(r"^tid = \[other\]\n(?:.*\n)*?count (\d+) ", text, re.M)
assert other, "no [other] entry in the final report"
other = int(other.group(1))
assert "tid = [exited]" in text, "no [exited] entry in the final report"
nm = re.search(r"^overflow: no kernel memory for a new key at the time, (\d+) waits", text, re.M)
print(f"tiny: seen {seen} = recorded {rec} + lost {nostart + filt + drop + skew}; map_full "
      f"{full}, no_mem {nomem}, overflow line {ov.group(1)}, [other] {other}")
assert seen == rec + nostart + filt + drop + skew, "identity broken"
assert int(ov.group(1)) == full > 0, "overflow line and map_full disagree"
assert (int(nm.group(1)) if nm else 0) == nomem, "no-memory overflow line and no_mem disagree"
assert other == full + nomem, "[other] is not map_full + no_mem"
PY
