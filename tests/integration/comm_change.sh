#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# comm changes mid-run: a thread named rn_before sleeps 5 ms 60 times,
# renames itself rn_after (prctl PR_SET_NAME) and sleeps 60 more times.
# It reads its own schedstat switch-in count around the rename, which
# splits its off-CPU waits exactly: under -k comm, rn_before has the
# waits that ended before the rename and rn_after all the later ones;
# under -k tid the thread's key shows its new name and all its waits.
. "$(dirname "$0")/../lib.sh"
need_root

start_sh comm -M offcpu -k comm -j
C=$SH_PID
start_sh tid -M offcpu -k tid -j
T=$SH_PID
"$HELPERS/renamer" -m 5 -a 60 -b 60 -o rn_before -n rn_after >"$TMP/rn.out" || fail "renamer failed"
stop_sh "$C" || fail "comm instance exited with $?"
stop_sh "$T" || fail "tid instance exited with $?"
cat "$TMP/rn.out"
python3 - "$TMP/comm.out" "$TMP/tid.out" "$TMP/rn.out" <<'PY' || fail "waits not split at the rename"
import json, sys
comm = json.loads(open(sys.argv[1]).read().splitlines()[-1])
tid = json.loads(open(sys.argv[2]).read().splitlines()[-1])
f = open(sys.argv[3]).read().split()
t, before, after, end = f[1], int(f[3]), int(f[5]), int(f[7])
def count(r, key):
    return sum(g["count"] for g in r["groups"] if g["key"] == key)
old, new = count(comm, "rn_before"), count(comm, "rn_after")
print(f"-k comm: rn_before {old} (schedstat says {before - 1}..{after - 1}), "
      f"rn_after {new} (schedstat says {end - after}..{end - before})")
# the first switch-in of a new thread ends no wait (no switch-out before it);
# a switch-in between the two schedstat readings could belong to either
# side, and one after the last reading (before the thread exits) is not in it
# on a loaded host one wait next to the rename has been seen on the other
# side of it (the schedstat readings and the rename are not atomic): +-1
assert before - 2 <= old <= after, "waits before the rename are not all under the old name"
assert end - after - 1 <= new <= end - before + 2, "waits after the rename are not under the new name"
assert new >= 59 and old >= 58
g = [g for g in tid["groups"] if g["key"] == t]
assert g, f"tid {t} missing from the -k tid report"
print(f"-k tid: tid {t} comm {g[0]['comm']}, {g[0]['count']} waits (schedstat {end})")
assert g[0]["comm"] == "rn_after", "the tid key does not show the new name"
# every switch-in ends an off-CPU wait, the first one too (from creation);
# that first wait is under the parent's name, before the thread took its own
assert g[0]["count"] == end, f"want {end} waits under the tid, one per switch-in"
assert old + new == end - 1, "the waits under the two names do not add up"
PY
