#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --pprof: the gzipped pprof profile of a run, read by go tool pprof
# (Debian's golang-go), against the folded stacks of the same instance:
#  - -top's total (off-CPU ns, and the samples beside it) is the folded
#    values' sum, to the nanosecond (both are the same estimates)
#  - -traces' stacks, leaf first, are the folded lines reversed (the
#    task's name as the root, kernel frames without "_[k]"), the 10
#    largest with the folded line's time exactly, and the samples of the
#    JSON-free run add up to the report's "weighted" count on stderr
#  - -raw: the helper's mapping carries the build id readelf reads, and
#    its functions their source file where its symbol table names one
. "$(dirname "$0")/../lib.sh"
need_root
GO=$(command -v go || true)
[ -n "$GO" ] || skip "go not installed (Debian package golang-go)"
command -v readelf >/dev/null || skip "readelf not installed (Debian package binutils)"
export HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local
BID=$(readelf -n "$HELPERS/waiters" | awk '/Build ID:/ { print $3 }')
own_cgroup profpprof
# --profile writes as nobody once attached: a directory it may write in
chmod 0711 "$TMP" && mkdir "$TMP/out" && chown nobody "$TMP/out"
start_sh run --profile -M offcpu --unit ns --pprof "$TMP/out/p.pb.gz" "${OWN_FILTER[@]}"
in_cgroup "$OWN" "$HELPERS/waiters" -m 1 -t 3 >"$TMP/w.txt" || fail "the workload failed"
stop_sh "$SH_PID" || fail "schedhist exited with $?: $(cat "$TMP/run.err")"
[ -s "$TMP/out/p.pb.gz" ] || fail "no pprof profile written"
pp() { "$GO" tool pprof -symbolize=none "$@" "$TMP/out/p.pb.gz" 2>"$TMP/pprof.err" || fail "go tool pprof $*: $(cat "$TMP/pprof.err")"; }
pp -top -unit=ns -nodefraction=0 >"$TMP/top.txt"
pp -top -sample_index=samples -nodefraction=0 >"$TMP/top_samples.txt"
pp -traces -unit=ns >"$TMP/traces.txt"
pp -raw >"$TMP/raw.txt"

python3 - "$TMP" "$BID" <<'PY' || exit 1
import re, sys
tmp, bid = sys.argv[1:3]
bad = []
folded = {}
for l in open(f"{tmp}/run.out"):
    if l.strip():
        st, v = l.rsplit(" ", 1)
        folded[st] = folded.get(st, 0) + int(v)
total = sum(folded.values())
m = re.search(r"of (\d+)ns total", open(f"{tmp}/top.txt").read())
print(f"folded total {total} ns, pprof -top {m.group(1) if m else None}")
if not m or int(m.group(1)) != total:
    bad.append(f"pprof total {m.group(1) if m else None} ns, folded {total} ns")
weighted = re.findall(r"(\d+) weighted", open(f"{tmp}/run.err").read())
m = re.search(r"of (\d+) total", open(f"{tmp}/top_samples.txt").read())
if not m or not weighted or int(m.group(1)) != int(weighted[-1]):
    bad.append(f"pprof samples {m.group(1) if m else None}, the report's weighted {weighted}")
# -traces: blocks between dashed lines; labels, then "VALUEns  leaf", then frames
traces = {}
for block in open(f"{tmp}/traces.txt").read().split("-----------+")[1:]:
    frames, v = [], None
    for l in block.splitlines():
        mm = re.match(r"^\s*(\d+)ns\s+(.*)$", l)
        if mm:
            v, frames = int(mm.group(1)), [mm.group(2).strip()]
        elif v is not None and l.strip() and not l.startswith("---"):
            frames.append(l.strip())
    if v is not None:
        k = ";".join(reversed(frames))
        traces[k] = traces.get(k, 0) + v
norm = {}
for st, v in folded.items():
    k = ";".join(f[:-4] if f.endswith("_[k]") else f for f in st.split(";"))
    norm[k] = norm.get(k, 0) + v
for k in sorted(norm, key=norm.get, reverse=True)[:10]:
    print(f"  {norm[k]:>12} ns folded  {traces.get(k, 0):>12} ns pprof  {k[:90]}")
    if traces.get(k) != norm[k]:
        bad.append(f"stack {k}: folded {norm[k]} ns, pprof {traces.get(k)}")
if set(traces) - set(norm):
    bad.append(f"pprof stacks the folded output has not: {sorted(set(traces) - set(norm))[:3]}")
raw = open(f"{tmp}/raw.txt").read()
maps = [l for l in raw.split("Mappings")[-1].splitlines() if "/waiters" in l]
if not maps or not all(bid in l for l in maps):
    bad.append(f"the helper's mappings without its build id {bid}: {maps}")
locs = [l for l in raw.splitlines() if re.search(r"\b(pipe_reader|nap_sleeper|futex_waiter)\b", l)]
print("locations:", locs[:3])
if not locs:
    bad.append("no location of the helper's thread functions")
elif not any(re.search(r"waiters\.c", l) for l in locs):
    bad.append(f"the helper's functions without their source file: {locs[:3]}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
