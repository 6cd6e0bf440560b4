#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The task table (sched_info method, --task-table) frees an entry with its
# task: sched_process_free clears it. While the churn helper creates and
# ends threads and processes for 5 s (thousands of tasks, far more than
# the 1024 entries, whose tids cover the table), schedhist -M runq
# --task-table 1024 runs; afterwards the entries that still have an owner
# are at most the tasks alive on the host, counted around the map's dump
# (plus the ones exited but not freed yet: an RCU grace period, which the
# 1 s wait before the dump covers). Entries that were never freed would
# fill the table: the churn alone passes more tids than the table has
# entries (checked: the helper reports how many tasks it made). The
# table's size is what the poller was asked for, and the waits of the
# churn are recorded (the accounting identity holds; nothing silent).
. "$(dirname "$0")/../lib.sh"
need_root

start_sh tt -i 1 -M runq --task-table 1024 -j -v
TT=$SH_PID
remember_ids
ids=$SH_IDS
id=
for m in $(map_ids "$TT"); do
	bpftool map show id "$m" 2>/dev/null | grep -q ' name tasks ' && id=$m
done
[ -n "$id" ] || fail "no task table map ('tasks') in /proc/$TT/fdinfo"
max=$(bpftool map show id "$id" | awk '{for (i = 1; i < NF; i++) if ($i == "max_entries") print $(i + 1)}')
[ "$max" -eq 1024 ] || fail "task table of $max entries, want 1024 (--task-table 1024)"

"$HELPERS/churn" -t 5 -m both -c 4 >"$TMP/churn.out" 2>&1 || fail "churn failed: $(cat "$TMP/churn.out")"
made=$(awk '$1 == "created" { print $2 + $4 }' "$TMP/churn.out")
[ -n "$made" ] || fail "churn did not say how many tasks it made: $(cat "$TMP/churn.out")"
[ "$made" -gt 2048 ] || fail "churn made $made tasks: too few to fill a table of 1024 entries"
sleep 1
live() { ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l; }
before=$(live)
bpftool map dump id "$id" -j >"$TMP/tasks.json" 2>"$TMP/dump.err" || fail "cannot dump the task table: $(cat "$TMP/dump.err")"
after=$(live)
owned=$(python3 -c '
import json, sys
print(sum(1 for e in json.load(open(sys.argv[1])) if e["formatted"]["value"]["owner"]))
' "$TMP/tasks.json") || fail "cannot read the task table dump"
alive=$((before > after ? before : after))
echo "churn made $made tasks; task table entries owned after it: $owned; tasks alive: $before, $after"
[ "$owned" -le "$alive" ] || fail "$owned entries owned but only $alive tasks alive: entries outlive their tasks"
[ "$owned" -gt 0 ] || fail "no entry owned: the table is not used"
stop_sh "$TT" || fail "schedhist exited with $?"
assert_unloaded $ids
# the identity is exact over the whole run (the last report is read after
# detach); one interval's report is read while the churn's waits land, its
# counters and histograms a few ms apart: identity.py bounds it
python3 "$(dirname "$0")/../identity.py" "$TMP/tt.out" || fail "accounting identity"
python3 - "$TMP/tt.out" <<'PY' || fail "reports"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert sum(r["events"]["recorded"] for r in rs) > 0, "no wait recorded"
PY
check_reports "$TMP/tt.out"
echo "PASS"
