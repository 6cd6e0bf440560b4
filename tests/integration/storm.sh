#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# A context-switch storm for 20 s (STORM_SECONDS): 8 threads ping-pong
# bytes over pipes (hundreds of thousands of switches per second) while two
# instances run with -i 1 -k tid -p (the workload's process: a fixed set
# of keys whatever else the host runs, so memory growth can only be a
# leak), one per interval and one --cumulative.
# Neither crashes (both exit 0 on SIGINT with nothing on stderr but the
# start line), the accounting identity holds in every report within the
# read-skew tolerance and exactly over the run (sum of the interval
# reports; last cumulative report), and the poller's memory is flat from
# its second report on (its first reading sizes the reader's arrays): its
# heap (RssAnon in /proc/PID/status) within 64 kB, its whole resident set
# (VmRSS, which also counts code pages of libraries as new paths first
# touch them) within 512 kB.
. "$(dirname "$0")/../lib.sh"
need_root
secs=${STORM_SECONDS:-20}

# the workload's threads exist before the instances attach (filtered on
# its pid: -p), and its storm starts once they have, through a fifo
mkfifo "$TMP/go"
"$HELPERS/pingpong" -g -p 4 -t "$secs" <"$TMP/go" >"$TMP/pp.out" &
PP=$!
CHILD_PIDS+=($PP)
exec 3>"$TMP/go"
wait_for "$TMP/pp.out" '^ready'
read -r _ pp_pid <"$TMP/pp.out"
start_sh iv -i 1 -k tid -j -p "$pp_pid"
IV=$SH_PID
remember_ids
ids_iv=$SH_IDS
start_sh cu -i 1 -k tid -j --cumulative -p "$pp_pid"
CU=$SH_PID
echo go >&3
exec 3>&-
for i in $(seq 1 "$secs"); do
	for p in $IV $CU; do
		kill -0 "$p" 2>/dev/null || fail "schedhist $p died during the storm: $(cat "$TMP"/*.err)"
	done
	# and how many reports each has printed so far (its warm-up, below)
	echo "$i $(awk '/^(VmRSS|RssAnon)/ {printf "%s ", $2}' /proc/$IV/status /proc/$CU/status)" \
		"$(wc -l <"$TMP/iv.out") $(wc -l <"$TMP/cu.out")" >>"$TMP/rss"
	sleep 1
done
wait $PP || fail "pingpong failed"
cat "$TMP/pp.out"
stop_sh $IV || fail "interval instance exited with $?"
stop_sh $CU || fail "cumulative instance exited with $?"
assert_unloaded $ids_iv
for n in iv cu; do
	[ "$(grep -vc '^Tracing' "$TMP/$n.err")" -eq 0 ] || fail "$n: noise on stderr: $(cat "$TMP/$n.err")"
done

# at least one report per 3 s of storm: -i 1 asks for one a second, but a
# poller starved on a loaded host folds the ticks it missed into its next
# report (interval_s says how long each was); that the reports together
# cover the whole storm is checked below
python3 "$(dirname "$0")/../identity.py" "$TMP/iv.out" --min-reports $((secs / 3)) || fail "identity (interval reports)"
python3 "$(dirname "$0")/../identity.py" "$TMP/cu.out" --cumulative --min-reports $((secs / 3)) ||
	fail "identity (cumulative reports)"
# ASan's quarantine holds freed memory on purpose: RSS says nothing there
rss_check=1
nm "$SCHEDHIST" 2>/dev/null | grep -q __asan_init && rss_check=0
read -r _ trips < <(grep '^roundtrips' "$TMP/pp.out")
python3 - "$TMP/iv.out" "$TMP/rss" "$secs" "$rss_check" "$trips" <<'PY' || fail "storm checks"
import json, sys
reports = [json.loads(l) for l in open(sys.argv[1])]
secs, trips = int(sys.argv[3]), int(sys.argv[5])
# the storm was measured, whatever this machine's pace: every round trip
# of the workload is two switch-ins of its threads, each one event
seen = sum(r["events"]["seen"] for r in reports)
rate = min(r["events"]["seen"] / r["interval_s"] for r in reports[2:-2])
# the storm loop above took at least secs seconds (secs sleeps of 1 s):
# the interval reports, back to back, cover all of it
span = sum(r["interval_s"] for r in reports)
print(f"{len(reports)} interval reports spanning {span:.1f} s (the storm: {secs} s and more)")
assert span >= secs, "the interval reports do not cover the storm"
print(f"events seen {seen} for {trips} round trips; slowest interval {rate:.0f} events/s")
assert seen >= 2 * trips, "fewer events than the workload's own switches"
rss = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
# columns: second, then VmRSS and RssAnon of each instance, then each
# instance's reports printed so far
for col, name, what, limit, reps in ((1, "interval", "VmRSS", 512, 5), (2, "interval", "RssAnon", 64, 5),
                                     (3, "cumulative", "VmRSS", 512, 6),
                                     (4, "cumulative", "RssAnon", 64, 6)):
    series = [r[col] for r in rss]
    print(f"{name} instance {what} (kB), one a second: {' '.join(map(str, series))}")
    if sys.argv[4] == "0":
        continue
    # the warm-up is the instance's own: its first reading sizes the
    # reader's arrays from the maps' capacity (hundreds of kB at once) and
    # its first reports grow the output buffer, so memory is flat from its
    # second report on, however late a starved poller prints it (never
    # from a number of seconds, which a loaded host stretches)
    after = [r[col] for r in rss if r[reps] >= 2]
    assert len(after) >= 2, f"{name}: {len(after)} samples after its second report"
    # a leak of even one small allocation per report (~30 reports) or per
    # event would show in the heap; allocator noise stays within a few pages
    assert max(after) - min(after) <= limit, f"{name}: {what} grew {max(after) - min(after)} kB"
if sys.argv[4] == "0":
    print("ASan build: memory not checked")
PY
