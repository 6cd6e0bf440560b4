#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The keys of removed cgroups leave every map, those whose waits went to
# [other] included. Under -M runq -k cgroup --max-keys 4 --culprits
# --stacks (4 slots and no room in the key map: a key beyond goes to
# [other], after key_slot() made its directory entry), tests/helpers/
# cgchurn makes 300 cgroups of this test's, one every 20 ms, each with a
# task that sleeps 1 ms ten times, and removes each. Once the kernel has
# released them all (no dying cgroup left below this test's parent) and
# two reports later, no entry of the key directory, the key map or the
# stack map names one of them, and the culprit map holds at most the
# pairs the CPUs' pair caches still hold (SH_CCACHE = 16 a CPU, written
# back only when another pair takes their entry). The run must have sent
# waits to [other] (map_full > 0, its own count): else the path this
# checks was not taken and the test says so.
. "$(dirname "$0")/../lib.sh"
need_root

MNT=$(cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup2 hierarchy mounted (-k cgroup keys cgroup2)"
G=$MNT/schedhist-churnmaps-$$
test_cleanup() { remove_cgroup_tree "$G"; }
mkdir "$G" || fail "cannot create $G"

start_sh a -M runq -k cgroup --max-keys 4 --culprits --stacks -i 0.5 -j
A=$SH_PID
"$HELPERS/cgchurn" -d "$G" -p 20 -l 10 -n 300 -v >"$TMP/cg.out" 2>"$TMP/cg.err" ||
	{ cat "$TMP/cg.err"; fail "cgchurn failed"; }
grep -q '^created 300 removed 300 failed 0' "$TMP/cg.out" || { cat "$TMP/cg.out"; fail "cgchurn"; }
awk '$1 == "cgroup" {print $2}' "$TMP/cg.out" >"$TMP/ids"
[ "$(wc -l <"$TMP/ids")" -eq 300 ] || fail "cgchurn named $(wc -l <"$TMP/ids") cgroups, want 300"

# released: a removed cgroup is dying until its last reference goes
# (a hang guard: released within an RCU grace period or two of its last task's free)
for i in $(seq 1 600); do
	[ "$(awk '$1 == "nr_dying_descendants" {print $2}' "$G/cgroup.stat")" = 0 ] && break
	sleep 0.1
done
[ "$(awk '$1 == "nr_dying_descendants" {print $2}' "$G/cgroup.stat")" = 0 ] ||
	fail "cgroups of this test still dying after 60 s"
# two reports after that: the poller has read and removed every key marked since
n=$(wc -l <"$TMP/a.out")
for i in $(seq 1 600); do
	[ "$(wc -l <"$TMP/a.out")" -ge $((n + 2)) ] && break
	sleep 0.1
done
[ "$(wc -l <"$TMP/a.out")" -ge $((n + 2)) ] || fail "no reports for 60 s"

ncpus=$(python3 -c 'import os; print(os.cpu_count())')
for m in keydir hists stack_map culprit_map; do
	id=$(named_map_id "$A" "$m") || fail "no map $m"
	bpftool map dump id "$id" -j >"$TMP/dump.$m" || fail "cannot dump $m"
done
not_reports dump.keydir dump.hists dump.stack_map dump.culprit_map
python3 - "$TMP" "$ncpus" <<'PY' || fail "keys of removed cgroups left in the maps"
import json, sys
t, ncpus = sys.argv[1], int(sys.argv[2])
ours = {int(x) for x in open(f"{t}/ids")}
def ids(e, pair):
    raw = bytes(int(x, 16) for x in e["key"])
    w = int.from_bytes(raw[0:8], "little")
    # struct sh_culprit_key: the waiter's sh_key (24 bytes), then the culprit's
    return [w, int.from_bytes(raw[24:32], "little")] if pair else [w]
left = {}
for m in ("keydir", "hists", "stack_map", "culprit_map"):
    d = json.load(open(f"{t}/dump.{m}"))
    left[m] = sum(1 for e in d if set(ids(e, m == "culprit_map")) & ours)
    print(f"{m}: {len(d)} entries, {left[m]} of removed cgroups of this test")
reports = [json.loads(l) for l in open(f"{t}/a.out")]
full = sum(r["events"]["map_full"] + r["events"]["no_mem"] for r in reports)
print(f"{full} waits went to [other] (map_full + no_mem)")
assert full > 0, "no key went to [other]: the overflow path was not taken"
assert left["keydir"] == 0 and left["hists"] == 0 and left["stack_map"] == 0
assert left["culprit_map"] <= 16 * ncpus
PY
stop_sh "$A" || fail "schedhist exited with $?"
