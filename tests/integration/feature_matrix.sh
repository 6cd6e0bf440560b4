#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Every set of metrics loads with every kernel-side feature it takes on at
# once: -k tid (the comm copies of named keys), --stacks, --schema 3 and,
# with runq, --culprits --culprit-mode time and (sched_info method)
# --causes; each set under both methods. These are the largest programs
# the verifier sees (the most code, the most paths): a combination it
# refuses (too many instructions, too deep a stack) is one the user
# cannot run. Each run must attach, end with status 0 and print one
# report per metric asked, on schema 3's buckets, by the method asked.
. "$(dirname "$0")/../lib.sh"
need_root
# --causes where the kernel has what it reads (a kernel without it refuses
# it at start: tests/vm/checks/kernel_features.sh)
causes=1
bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -qw throttled_clock_self_time ||
	{ causes=0; echo "no cfs_rq::throttled_clock_self_time in this kernel: --causes left out"; }

n=0
for M in offcpu blocked offcpu,blocked runq offcpu,runq runq,blocked offcpu,runq,blocked; do
	for METHOD in sched_info wakeup; do
		args=(-M "$M" --method "$METHOD" -k tid --stacks --schema 3)
		case $M in *runq*) args+=(--culprits --culprit-mode time) ;; esac
		case $causes:$M:$METHOD in 1:*runq*:sched_info) args+=(--causes) ;; esac
		n=$((n + 1))
		"$SCHEDHIST" "${args[@]}" -d 0.3 -j >"$TMP/run$n.out" 2>"$TMP/run$n.err"
		rc=$?
		[ $rc -eq 0 ] || { cat "$TMP/run$n.err"; fail "schedhist ${args[*]} exited with $rc"; }
		python3 - "$TMP/run$n.out" "$M" "$METHOD" <<'PY' || fail "schedhist ${args[*]}: wrong reports (above)"
import json, sys
path, metrics, method = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
reports = [json.loads(l) for l in open(path) if l.startswith("{")]
got = sorted(r["metric"] for r in reports)
assert got == sorted(metrics), f"reports of {got}, want one of each of {metrics}"
for r in reports:
    assert r["bucket_schema"] == 3, f"{r['metric']}: bucket_schema {r['bucket_schema']}"
    assert r["method"] == method, f"{r['metric']}: method {r['method']}, want {method}"
PY
	done
done
echo "$n combinations loaded and reported"
