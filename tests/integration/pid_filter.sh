#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# -p traces one process only, filtered in the kernel: every key of a -k tid
# run belongs to that process, and the other tasks' events are counted as
# filtered.
. "$(dirname "$0")/../lib.sh"
need_root

"$HELPERS/spinners" -n 3 -c 1 -t 4 >"$TMP/spin.out" &
SP=$!
CHILD_PIDS+=($SP)
sleep 0.2
start_sh pid -M runq -L -p "$SP" -j
"$HELPERS/sleeper" -m 5 -t 1 -N outsider >/dev/null
stop_sh "$SH_PID" || fail "schedhist exited with $?"
ls "/proc/$SP/task" >"$TMP/tids"
python3 - "$TMP/pid.out" "$TMP/tids" "$SP" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
tids = set(open(sys.argv[2]).read().split())
keys = {g["key"] for g in r["groups"]}
print("keys:", sorted(keys), "process tids:", sorted(tids))
assert keys, "nothing recorded for the process"
assert keys <= tids, f"keys outside process {sys.argv[3]}: {keys - tids}"
assert all(g["max_pid"] == int(sys.argv[3]) for g in r["groups"])
assert r["lost"]["filtered"] > 0, "other tasks' events were not counted as filtered"
PY
