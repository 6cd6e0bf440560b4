#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The rest of the load matrix beside tests/integration/feature_matrix.sh,
# for a kernel under test (tests/vm runs it in each guest): every bucket
# schema (--schema 0 to 3) with the three metrics, -k tid, --culprits and
# --stacks (the largest values and flushes the verifier sees at each grid
# size), and --profile with each metric. Each run must attach, exit 0 and
# report: one report per metric on the asked grid whose identity holds
# over the run (its one report is taken after the programs detached:
# exact), and for --profile a report of its metric with waits in it (a
# second of any kernel has some: the report counts them).
. "$(dirname "$0")/../../lib.sh"
need_root

for s in 0 1 2 3; do
	args=(-M offcpu,runq,blocked -k tid --culprits --stacks --schema "$s")
	"$SCHEDHIST" "${args[@]}" -d 0.5 -j >"$TMP/s$s.out" 2>"$TMP/s$s.err" ||
		{ cat "$TMP/s$s.err"; fail "schedhist ${args[*]} exited with $?"; }
	python3 - "$TMP/s$s.out" "$s" <<'PY' || fail "schedhist ${args[*]}: wrong reports (above)"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
assert sorted(r["metric"] for r in rs) == ["blocked", "offcpu", "runq"], [r["metric"] for r in rs]
for r in rs:
    assert r["bucket_schema"] == int(sys.argv[2]), r["bucket_schema"]
    ev, lost = r["events"], r["lost"]
    assert ev["seen"] == ev["recorded"] + sum(lost.values()), f"{r['metric']}: identity {ev} {lost}"
    assert ev["recorded"] == sum(g["count"] for g in r["groups"]), f"{r['metric']}: groups' counts"
print(f"schema {sys.argv[2]}: " + ", ".join(f"{r['metric']} {r['events']['seen']} seen" for r in rs))
PY
done
for M in offcpu runq blocked; do
	"$SCHEDHIST" --profile -M "$M" -k tid -j -i 1 -n 1 >"$TMP/p$M.out" 2>"$TMP/p$M.err" ||
		{ cat "$TMP/p$M.err"; fail "schedhist --profile -M $M exited with $?"; }
	not_reports "$TMP/p$M.out"	# --profile's JSON is its own, not a report
	python3 - "$TMP/p$M.out" "$M" <<'PY' || fail "--profile -M $M: wrong output (above)"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
assert len(rs) == 1 and rs[0]["mode"] == "profile" and rs[0]["metric"] == sys.argv[2], rs
assert rs[0]["count"] > 0 and rs[0]["groups"], f"no waits profiled: {rs[0]}"
print(f"--profile -M {sys.argv[2]}: {rs[0]['count']} waits in {len(rs[0]['groups'])} keys")
PY
done
echo "PASS"
