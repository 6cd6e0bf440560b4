#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# More keys than the map holds: 500 live threads, each sleeping 10 ms in a
# loop, under -k tid --max-keys 64. The kernel never holds more than 64
# keys (in slots and in the key map) + [other] + [exited], and fills
# its slots; every wait of a key that did not fit is counted in
# [other], exactly as many as map_full + no_mem say, and the identity
# holds over the run. Never silent: each JSON report with waits in
# [other] has its map_full/no_mem, and each text report of such an
# interval has an "overflow:" line (and none without).
. "$(dirname "$0")/../lib.sh"
need_root

start_sh js -i 1 -k tid --max-keys 64 -j
JS=$SH_PID
start_sh tx -i 1 -k tid --max-keys 64 --summary
TX=$SH_PID
MAP=$(hists_map_id "$JS") || fail "no hists map for $JS"
DIR=$(named_map_id "$JS" keydir) || fail "no keydir map for $JS"
SLOTS=$(map_max_entries "$(named_map_id "$JS" slot_keys)")
# all of --max-keys in slots (64 x 296 B is far below the byte cap), the
# key map only [other] and [exited]
[ "$SLOTS" -eq 64 ] && [ "$(map_max_entries "$MAP")" -eq 2 ] ||
	fail "capacity: $SLOTS slots, key map $(map_max_entries "$MAP"); want 64 and 0 + 2"
"$HELPERS/threads" -n 500 -m 10 -t 4 -N many >"$TMP/threads.out" &
CHILD_PIDS+=($!)
wait_for "$TMP/threads.out" '^ready'
max=0 smax=0
while kill -0 "${CHILD_PIDS[0]}" 2>/dev/null; do
	n=$("$HELPERS/mapcount" "$MAP" | awk '{print $2}')
	s=$(slot_keys "$DIR")
	[ $((n + s)) -gt "$max" ] && max=$((n + s))
	[ "$s" -gt "$smax" ] && smax=$s
	sleep 0.5
done
wait "${CHILD_PIDS[0]}" || fail "threads helper failed"
stop_sh "$JS" || fail "json instance exited with $?"
stop_sh "$TX" || fail "text instance exited with $?"
echo "most keys seen in the kernel: $max (in slots: $smax)"
[ "$max" -le 66 ] || fail "the kernel held $max keys, more than 64 + [other] + [exited]"
# that they filled is the map_full count below (more than 10 000 waits
# of keys that found no room): a sample of the slots cannot show it, as
# the kernel frees the slots of the host's short-lived tasks (this
# script's own) as they go once more than half are taken, and a new
# task takes the slot a moment later
[ "$smax" -ge 33 ] || fail "the slots never filled past half ($smax of 64)"

python3 "$(dirname "$0")/../identity.py" "$TMP/js.out" --min-reports 4 || fail "identity"
python3 - "$TMP/js.out" <<'PY' || fail "overflow accounting"
import json, sys
reports = [json.loads(l) for l in open(sys.argv[1])]
full = sum(r["events"]["map_full"] for r in reports)
nomem = sum(r["events"]["no_mem"] for r in reports)
other = sum(g["count"] for r in reports for g in r["groups"] if g["key"] == "[other]")
keys = max(len([g for g in r["groups"] if not g["key"].startswith("[")]) for r in reports)
print(f"[other] {other} waits = map_full {full} + no_mem {nomem}; at most {keys} keys per report")
assert full > 10000, "500 threads x 100 waits/s should overflow a 64-key map massively"
assert keys <= 64 and all(r["events"]["live_keys"] <= 64 for r in reports)
for r in reports:
    o = sum(g["count"] for g in r["groups"] if g["key"] == "[other]")
    if o and not (r["events"]["map_full"] or r["events"]["no_mem"]):
        sys.exit(f"report at {r['time']}: {o} waits in [other] and no map_full/no_mem")
PY
# text: one report per interval, split at the title line
python3 - "$TMP/tx.out" <<'PY' || fail "overflow line in text reports"
import re, sys
text = open(sys.argv[1]).read()
reports = re.split(r"^(?=off-CPU wait)", text, flags=re.M)[1:]
silent = 0
for rep in reports:
    other = re.search(r"^\[other\] +(\d+) ", rep, re.M)
    line = re.search(r"^overflow: ", rep, re.M)
    if bool(other and int(other.group(1))) != bool(line):
        silent += 1
        print("report disagrees:\n" + rep[:400])
print(f"{len(reports)} text reports, {sum(1 for r in reports if 'overflow:' in r)} with an overflow line")
assert len(reports) >= 4 and not silent
PY
