#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Task churn: for 15 s (CHURN_SECONDS) a helper creates and reaps
# short-lived threads and processes (tens of thousands; pid_max is often
# 32768, so ids get reused). Three instances watch it at once:
#   tid  -k tid --cumulative -j            default key map capacity
#   pid  -k pid -j (per interval)          default capacity
#   tiny -k tid --max-keys 64 --cumulative -v  (text)
# Every second the keys in each instance's kernel map ("hists", found by
# its map id in /proc/PID/fdinfo) are counted: never more than the cap +
# [other]. The identity holds exactly over each run, so the last counts of
# the pruned keys were kept; the cumulative reports fold them into
# "[exited]"; with the default cap pruning keeps up (the map is never
# full: no map_full); with --max-keys 64 the overflow goes to [other],
# exactly the map_full (+ no_mem) events, and the text report says so on
# its "overflow:" line. (no_mem: the kernel had no memory for a new key at
# that instant, which heavy churn provokes; those waits go to [other] too
# and are reported as such, never as "map full".)
. "$(dirname "$0")/../lib.sh"
need_root
secs=${CHURN_SECONDS:-15}

declare -A P MAP CAP=([tid]=10240 [pid]=10240 [tiny]=64)
start_sh tid -i 1 -k tid --cumulative -j
P[tid]=$SH_PID
start_sh pid -i 1 -k pid -j
P[pid]=$SH_PID
start_sh tiny -i 1 -k tid --max-keys 64 --cumulative -v
P[tiny]=$SH_PID
for n in tid pid tiny; do
	MAP[$n]=$(hists_map_id "${P[$n]}") || fail "$n: no hists map in /proc/${P[$n]}/fdinfo"
	max=$(bpftool map show id "${MAP[$n]}" | awk '{for (i = 1; i < NF; i++) if ($i == "max_entries") print $(i + 1)}')
	[ "$max" -eq $((CAP[$n] + 1)) ] || fail "$n: max_entries $max, want ${CAP[$n]} + 1 ([other])"
done

# a walk of a changing map can count a key deleted and one added meanwhile:
# only three walks over the cap in a row are a failure
check_cap() {
	local name=$1 r n
	for r in 1 2 3; do
		n=$("$HELPERS/mapcount" "${MAP[$name]}" | awk '{print $2}')
		[ -n "$n" ] || fail "$name: cannot count map ${MAP[$name]}"
		if [ "$n" -le $((CAP[$name] + 1)) ]; then
			echo "$n" >>"$TMP/$name.entries"
			return 0
		fi
	done
	fail "$name: key map holds $n entries, more than ${CAP[$name]} + [other]"
}

"$HELPERS/churn" -t "$secs" -m both -c 16 >"$TMP/churn.out" &
CH=$!
CHILD_PIDS+=($CH)
while kill -0 $CH 2>/dev/null; do
	for n in tid pid tiny; do check_cap $n; done
	sleep 1
done
wait $CH || fail "churn helper failed"
cat "$TMP/churn.out"
# the churn is over: within two readings every key of an exited task is
# pruned, so the kernel maps hold little more than the live tasks' keys
for n in tid pid; do
	# two readings are enough on an idle machine; allow a loaded one (or
	# the ASan build) up to 8 s
	for i in $(seq 1 32); do
		sleep 0.25
		left=$("$HELPERS/mapcount" "${MAP[$n]}" | awk '{print $2}')
		[ "$left" -lt 300 ] && [ $i -ge 10 ] && break
	done
	echo "$n: $left keys left in the kernel map after the churn"
	[ "$left" -lt 300 ] || fail "$n: $left keys still in the kernel map 8 s after the churn ended"
done
for n in tid pid tiny; do stop_sh "${P[$n]}" || fail "$n: schedhist exited with $?"; done
for n in tid pid tiny; do
	echo "$n: keys in the kernel map, per second: $(sort -n "$TMP/$n.entries" | tr '\n' ' ')"
	[ "$(grep -vc '^Tracing\|^schedhist: attached\|^schedhist: totals' "$TMP/$n.err")" -eq 0 ] ||
		fail "$n: noise on stderr: $(cat "$TMP/$n.err")"
done
[ "$(sort -n "$TMP/tiny.entries" | tail -1)" -eq 65 ] || fail "tiny: the 64-key map never filled"

read -r _ threads _ procs _ < <(tail -1 "$TMP/churn.out")
# tens of thousands at the default 15 s (about 2500 a second here)
[ $((threads + procs)) -ge $((secs * 1300)) ] ||
	fail "only $((threads + procs)) tasks created in $secs s, want $((secs * 1300))"

id=$(dirname "$0")/../identity.py
python3 "$id" "$TMP/tid.out" --cumulative --min-reports $((secs - 2)) || fail "tid: identity"
python3 "$id" "$TMP/pid.out" --min-reports $((secs - 2)) || fail "pid: identity"
python3 - "$TMP/tid.out" "$TMP/pid.out" <<'PY' || fail "tid/pid reports"
import json, sys
tid = [json.loads(l) for l in open(sys.argv[1])]
pid = [json.loads(l) for l in open(sys.argv[2])]
last = tid[-1]
ex = [g for g in last["groups"] if g["key"] == "[exited]"]
assert ex and ex[0]["count"] > 1000, "no [exited] entry with the pruned keys' waits"
print(f"tid: [exited] holds {ex[0]['count']} waits of pruned keys; live keys at most "
      f"{max(r['events']['live_keys'] for r in tid)}")
for name, rs in (("tid", tid), ("pid", pid)):
    assert all(r["events"]["map_full"] == 0 for r in rs), f"{name}: map full with the default cap"
    assert max(r["events"]["live_keys"] for r in rs) < 10240
    print(f"{name}: no_mem (new key not allocatable at that instant) "
          f"{sum(r['events']['no_mem'] for r in rs) if name == 'pid' else rs[-1]['events']['no_mem']}")
PY

# the text report of the small map: the last one, after SIGINT
awk '/^off-CPU wait/ {buf = ""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$TMP/tiny.out" >"$TMP/tiny.last"
python3 - "$TMP/tiny.last" <<'PY' || fail "tiny: overflow report"
import re, sys
text = open(sys.argv[1]).read()
ov = re.search(r"^overflow: key map full, (\d+) waits of new keys counted under \[other\]", text, re.M)
ev = re.search(r"^events: seen (\d+)  recorded (\d+)  no_start (\d+)  filtered (\d+)  "
               r"dropped (\d+)  map_full (\d+)  no_mem (\d+)", text, re.M)
assert ov, "no overflow: line in the final report"
assert ev, "no events: line (-v) in the final report"
seen, rec, nostart, filt, drop, full, nomem = map(int, ev.groups())
other = re.search(r"^tid = \[other\]\n(?:.*\n)*?count (\d+) ", text, re.M)
assert other, "no [other] entry in the final report"
other = int(other.group(1))
assert "tid = [exited]" in text, "no [exited] entry in the final report"
nm = re.search(r"^overflow: no kernel memory for a new key at the time, (\d+) waits", text, re.M)
print(f"tiny: seen {seen} = recorded {rec} + lost {nostart + filt + drop}; map_full {full}, "
      f"no_mem {nomem}, overflow line {ov.group(1)}, [other] {other}")
assert seen == rec + nostart + filt + drop, "identity broken"
assert int(ov.group(1)) == full > 0, "overflow line and map_full disagree"
assert (int(nm.group(1)) if nm else 0) == nomem, "no-memory overflow line and no_mem disagree"
assert other == full + nomem, "[other] is not map_full + no_mem"
PY
