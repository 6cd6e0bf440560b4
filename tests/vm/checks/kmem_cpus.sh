#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Kernel memory on this many possible CPUs (tests/vm boots guests with 64
# and 384): for 1 000 and 10 000 keys, one and three metrics, with and
# without --culprits --stacks --causes (--causes only where the kernel has
# it: tests/vm/checks/kernel_features.sh), every map's bpftool map show
# bytes_memlock beside bench/kmem's figure for the same settings and CPU
# count, and the JSON report's kernel_memory:
#  - where the kernel accounts each map's allocation (bpf_map_ops::
#    map_mem_usage, 6.4 and later): an array, allocated whole (per-CPU ones
#    once per possible CPU), within 1 % of bench/kmem's figure or its
#    header's size (struct bpf_map and its kin differ between kernel
#    versions; bench/kmem has this tree's kernel's); a hash, whose entries
#    are allocated as made, at most bench/kmem's figure (its worst);
#    and the maps allocated whole, summed, within 1 % of bench/kmem's;
#  - where it does not (6.1: memlock is its estimate, round_up(max_entries
#    x round_up(key + value, 8), page)), an array within 1 %, a page, and
#    the 8 bytes of key and rounding per entry that this estimate adds, and
#    the per-CPU maps, summed, within 1 % (what possible CPUs multiply);
#    hashes (entries without their overhead) and the global sections are
#    shown, not checked;
#  - the JSON's kernel_memory bytes is bench/kmem's total, under the
#    default --max-kernel-mem (64 MiB); a setting that would not fit is
#    refused at start (exit 2, one line).
# With VMOUT set (in a guest), the table is left in $VMOUT/kmem-CPUS.txt.
. "$(dirname "$0")/../../lib.sh"
need_root
KMEM=$OUTPUT/bench/kmem
[ -x "$KMEM" ] || fail "$KMEM not built (make $KMEM)"
possible=$(tr ',' '\n' </sys/devices/system/cpu/possible |
	awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')
bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$TMP/vmlinux.h" || fail "bpftool btf dump"
not_reports "$TMP/vmlinux.h"
usage=1
grep -qw map_mem_usage "$TMP/vmlinux.h" || usage=0
causes=1
grep -qw throttled_clock_self_time "$TMP/vmlinux.h" || causes=0
table=${VMOUT:-$TMP}/kmem-$possible.txt
: >"$table"

n=0
for keys in 1000 10000; do
	for M in runq offcpu,runq,blocked; do
		for extra in 0 1; do
			args=(-M "$M" -k tid --max-keys "$keys")
			kargs=(-M "$(echo "$M" | tr ',' '\n' | wc -l)" -k keyed -n "$keys")
			if [ $extra = 1 ]; then
				args+=(--culprits --stacks)
				kargs+=(-C -S)
				[ $causes = 1 ] && { args+=(--causes); kargs+=(-X); }
			fi
			n=$((n + 1))
			"$SCHEDHIST" "${args[@]}" -j -i 1 >"$TMP/c$n.out" 2>"$TMP/c$n.err" &
			pid=$!
			SH_PIDS+=($pid)
			for i in $(seq 1 1200); do	# a hang guard: ends at the first report
				grep -q '^{' "$TMP/c$n.out" 2>/dev/null && break
				kill -0 $pid 2>/dev/null || break
				sleep 0.1
			done
			if ! kill -0 $pid 2>/dev/null; then
				wait $pid
				rc=$?
				# refused: the budget holds by refusing (the settings' need, said)
				[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/c$n.err")" -eq 1 ] &&
					grep -q 'max-kernel-mem' "$TMP/c$n.err" ||
					fail "schedhist ${args[*]} exited $rc: $(cat "$TMP/c$n.err")"
				echo "case ${args[*]}: refused: $(cat "$TMP/c$n.err")" | tee -a "$table"
				continue
			fi
			for m in $(map_ids $pid); do bpftool map show id "$m" --json; echo; done >"$TMP/m$n.json"
			not_reports "$TMP/m$n.json"
			tasks=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.strip() and json.loads(l)["name"] == "tasks": print(json.loads(l)["max_entries"])' "$TMP/m$n.json")
			"$KMEM" "${kargs[@]}" -t "$tasks" "$possible" >"$TMP/k$n.txt" || fail "bench/kmem failed"
			stop_sh $pid || fail "schedhist ${args[*]} exited with $?"
			python3 - "$TMP/m$n.json" "$TMP/k$n.txt" "$TMP/c$n.out" "${args[*]}" "$possible" \
				"$usage" <<'PY' >>"$table" || { cat "$table"; fail "kernel memory of ${args[*]}"; }
import json, sys
maps = {}
for l in open(sys.argv[1]):
    if l.strip():
        m = json.loads(l)
        maps[m["name"]] = m
est, total = {}, None
for l in open(sys.argv[2]):
    f = l.split()
    if f[1] == "total":
        total = int(f[3])
    else:
        est[f[1]] = (int(f[2]), int(f[3]), int(f[4]))
r = [json.loads(l) for l in open(sys.argv[3]) if l.startswith("{")][0]
km = r["kernel_memory"]
usage = sys.argv[6] == "1"
HEADER = 256	# the largest difference of a map's header between kernel versions
print(f"case {sys.argv[4]} on {sys.argv[5]} possible CPUs"
      + ("" if usage else " (this kernel's memlock: its 6.1 estimate)"))
print(f"  {'map':12} {'type':14} {'entries':>8} {'bpftool':>10} {'bench/kmem':>11}")
fixed_b = fixed_k = hash_b = hash_k = pcpu_b = pcpu_k = pcpu_n = 0
bad = []
for name, (entries, want, entry) in est.items():
    if name == "globals":
        got = [m for k, m in maps.items() if k.endswith((".rodata", ".data", ".bss"))]
        have, mtype = sum(m["bytes_memlock"] for m in got), "array"
    elif name not in maps:
        bad.append(f"no map {name}"); continue
    else:
        have, mtype = maps[name]["bytes_memlock"], maps[name]["type"]
        if maps[name]["max_entries"] != entries:
            bad.append(f"{name}: max_entries {maps[name]['max_entries']}, bench/kmem {entries}")
    is_hash = "hash" in mtype
    if mtype.startswith(("percpu", "lru_percpu")):
        pcpu_b += have; pcpu_k += want; pcpu_n += 1
    if is_hash and usage:
        ok = have <= want + HEADER
        hash_b += have; hash_k += want
    elif usage:
        ok = abs(have - want) <= max(want / 100, HEADER)
        fixed_b += have; fixed_k += want
    else:
        ok = is_hash or name == "globals" or abs(have - want) <= want / 100 + 4096 + 8 * entries
        fixed_b += have; fixed_k += want
    if not ok:
        bad.append(f"{name}: bpftool {have}, bench/kmem {want}")
    note = "  (entries made as needed: bench/kmem's is its worst)" if is_hash and usage else \
        f"  ({(have - want) / want:+.2%})" if have != want else ""
    print(f"  {name:12} {mtype:14} {entries:8} {have:10} {want:11}{note}{'' if ok else '  FAIL'}")
print(f"  {'allocated whole':36} {fixed_b:10} {fixed_k:11}  ({(fixed_b - fixed_k) / fixed_k:+.3%})")
if hash_k:
    print(f"  {'hashes (made / worst)':36} {hash_b:10} {hash_k:11}")
print(f"  {'total':36} {fixed_b + hash_b:10} {total:11}  JSON kernel_memory {km['bytes']},"
      f" budget {km['budget']}")
print(f"  {'per-CPU maps':36} {pcpu_b:10} {pcpu_k:11}  ({(pcpu_b - pcpu_k) / pcpu_k:+.3%})")
if usage and abs(fixed_b - fixed_k) > fixed_k / 100:
    bad.append("the maps allocated whole differ by more than 1 %")
# 6.1's estimate rounds each map up to a whole page (bpf_map_memory_footprint):
# up to a page more per map, which on 64 CPUs is more than 1 % of the sum
if not usage and abs(pcpu_b - pcpu_k) > pcpu_k / 100 + 4096 * pcpu_n:
    bad.append("the per-CPU maps differ by more than 1 % and a page a map")
if km["bytes"] != total or km["keys"] != int(sys.argv[4].split("--max-keys ")[1].split()[0]):
    bad.append(f"JSON kernel_memory {km}, bench/kmem total {total}")
if km["bytes"] > km["budget"] or km["budget"] != 64 << 20:
    bad.append(f"over the default budget: {km}")
for b in bad:
    print("  FAIL:", b)
sys.exit(1 if bad else 0)
PY
		done
	done
done
cat "$table"
echo "PASS"
