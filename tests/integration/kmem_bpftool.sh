#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The kernel memory schedhist reports (user/model/kmem.c, from the maps'
# definitions) is what the kernel accounts (bpftool map show's
# bytes_memlock), map by map: equal for the arrays, the stack and the
# global sections (allocated whole); for a hash (entries allocated as
# made) the report is its worst, every entry taken, so it exceeds the
# kernel's by a whole number of entries, at most max_entries of them.
# The JSON report and the -v start line say the same total, the key
# capacity and the budget (and JSON the store's cache entries per CPU). Then --max-kernel-mem: a budget below the
# default capacity's needs lowers the capacity to what bench/kmem says
# fits; a --max-keys that does not fit, or a budget too small for one
# key, is a usage error (exit 2, one line, nothing loaded).
. "$(dirname "$0")/../lib.sh"
need_root
KMEM=$OUTPUT/bench/kmem
[ -x "$KMEM" ] || fail "$KMEM not built (make $KMEM)"
possible=$(tr ',' '\n' </sys/devices/system/cpu/possible |
	awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')

# --culprit-mode time and --causes: every map there is, the run ring (an
# entry per CPU) and the cause maps too
start_sh km -i 1 -M offcpu,runq -k tid --max-keys 200 --task-table 4096 --culprits \
	--culprit-mode time --stacks --causes -j -v
KM=$SH_PID
remember_ids
ids=$SH_IDS
wait_for "$TMP/km.out" '^[{]' 20
for m in $(map_ids "$KM"); do
	bpftool map show id "$m" --json
	echo
done >"$TMP/maps.json"
"$KMEM" -M 2 -k keyed -n 200 -t 4096 -T -S -X "$possible" >"$TMP/kmem.txt" ||
	fail "bench/kmem failed: $(cat "$TMP/kmem.txt")"
not_reports "$TMP/maps.json"
stop_sh "$KM" || fail "schedhist exited with $?"
assert_unloaded $ids
python3 - "$TMP/maps.json" "$TMP/kmem.txt" "$TMP/km.out" "$TMP/km.err" <<'PY' || fail "kernel memory"
import json, re, sys
dec = json.JSONDecoder()
text, maps, i = open(sys.argv[1]).read(), {}, 0
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    m, i = dec.raw_decode(text, i)
    maps[m["name"]] = m
est, total = {}, None
for line in open(sys.argv[2]):
    f = line.split()
    if f[1] == "total":
        total = (int(f[2]), int(f[3]))
    else:
        est[f[1]] = (int(f[2]), int(f[3]), int(f[4]))
hashes = {"keydir", "hists", "culprit_map", "stack_map", "cause_map"}
for name, (entries, want, entry) in est.items():
    if name == "globals":
        got = [m for n, m in maps.items() if n.endswith((".rodata", ".data", ".bss"))]
        assert len(got) == entries, f"{len(got)} global sections, want {entries}"
        have = sum(m["bytes_memlock"] for m in got)
        assert have == want, f"global sections: bpftool {have} bytes, reported {want}"
        continue
    assert name in maps, f"no map {name} (maps: {sorted(maps)})"
    m = maps[name]
    assert m["max_entries"] == entries, f"{name}: max_entries {m['max_entries']}, reported {entries}"
    have = m["bytes_memlock"]
    if name in hashes:
        d = want - have
        assert d >= 0 and d % entry == 0 and d // entry <= entries, \
            f"{name}: bpftool {have} bytes, reported {want} at most ({entries} entries of {entry})"
    else:
        assert have == want, f"{name}: bpftool {have} bytes, reported {want}"
    print(f"{name}: bpftool {have}, reported {want}")
rs = [json.loads(l) for l in open(sys.argv[3]) if l.startswith("{")]
for r in rs:
    k = r["kernel_memory"]
    have = {f: k[f] for f in ("bytes", "budget", "keys", "cache_entries")}
    assert have == {"bytes": total[1], "budget": 64 << 20, "keys": 200, "cache_entries": 16}, \
        f"JSON {k}, want {total} and a cache of 16 entries per CPU"
err = open(sys.argv[4]).read()
mo = re.search(r"key map capacity (\d+) .*kernel memory (\d+) bytes at most \(--max-kernel-mem 64 MiB\)", err)
assert mo and int(mo.group(1)) == 200 and int(mo.group(2)) == total[1], f"start line: {err}"
PY

# a budget below the default capacity's needs: the capacity bench/kmem fits
budget=$(( ($("$KMEM" -n 10240 "$possible" | awk '$2 == "total" { print $4 }') >> 20) - 1 ))
[ "$budget" -ge 2 ] || fail "the default capacity needs under 3 MiB here: nothing to lower"
fits=$("$KMEM" -n 10240 -b "$budget" "$possible" | awk '$2 == "total" { print $3 }')
"$SCHEDHIST" -k tid --max-kernel-mem "$budget" -j -i 1 -n 1 >"$TMP/low.out" 2>"$TMP/low.err" ||
	fail "schedhist --max-kernel-mem $budget failed: $(cat "$TMP/low.err")"
python3 - "$TMP/low.out" "$budget" "$fits" <<'PY' || fail "lowered capacity"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
k, budget, fits = r["kernel_memory"], int(sys.argv[2]) << 20, int(sys.argv[3])
assert k["budget"] == budget and k["bytes"] <= budget, k
assert k["keys"] == fits and 0 < fits < 10240, f"{k}, want {fits} keys"
PY

# usage errors: exit 2, one line on stderr, nothing loaded
before=$(our_objects)
bad() {
	local rc
	"$SCHEDHIST" "$@" -i 1 -n 1 >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	[ $rc -eq 2 ] || fail "schedhist $* exited $rc, want 2: $(cat "$TMP/bad.err")"
	[ "$(wc -l <"$TMP/bad.err")" -eq 1 ] || fail "schedhist $*: not one line: $(cat "$TMP/bad.err")"
	grep -q 'max-kernel-mem' "$TMP/bad.err" || fail "schedhist $*: $(cat "$TMP/bad.err")"
	[ ! -s "$TMP/bad.out" ] || fail "schedhist $* printed a report"
}
bad -k tid --max-kernel-mem 1
bad -k tid --max-keys 100000 --max-kernel-mem 8
bad -k tid --max-kernel-mem 0
assert_no_new_objects "$before"
check_reports
echo "PASS"
