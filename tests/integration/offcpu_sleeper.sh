#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# A thread sleeping 20 ms in a loop: under offcpu keyed by comm nearly all
# of its waits fall in the (2^-6 s, 2^-5 s] = (15.625 ms, 31.25 ms] bucket.
. "$(dirname "$0")/../lib.sh"
need_root

start_sh off -M offcpu -k comm -j
remember_ids
"$HELPERS/sleeper" -m 20 -t 2 -N sleeper20 >/dev/null
stop_sh "$SH_PID" || fail "schedhist exited with $?"
assert_unloaded $SH_IDS

python3 - "$TMP/off.out" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert r["metric"] == "offcpu" and r["key"] == "comm"
g = [g for g in r["groups"] if g["key"] == "sleeper20"]
assert g, "sleeper20 missing"
g = g[0]
# the bucket of 20 ms: (2^-6 s, 2^-5 s], i.e. (15.625 ms, 31.25 ms]
inb = sum(b["count"] for b in g["buckets"] if b["lo_ns"] == 15625001 and b["hi_ns"] == 31250001)
print(f"sleeper20: {inb} of {g['count']} waits in (15.625 ms, 31.25 ms]")
assert g["count"] >= 60, "too few waits (want ~90 in 2 s)"
assert inb >= 0.95 * g["count"], "waits outside the 20 ms bucket"
assert 19e6 <= g["sum_ns"] / g["count"] <= 26e6, f"avg {g['sum_ns']/g['count']:.0f} ns is not ~20 ms"
PY
