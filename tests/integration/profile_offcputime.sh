#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --profile against offcputime (libbpf-tools), the tool it replaces: the
# same workload under both in one window (both attached before it starts,
# stopped after it ends), the 10 largest stacks of the workload's threads
# by offcputime and their shares of its off-CPU time agree within 3
# points. A stack is (thread, kernel frames): the user frames are named
# differently (offcputime guesses the nearest exported symbol of a
# stripped libc, schedhist says libc.so.6+0x...). Two waiters processes
# at different rates give stacks of different shares.
. "$(dirname "$0")/../lib.sh"
need_root
OFFCPU=$(command -v offcputime || echo /usr/sbin/offcputime)
[ -x "$OFFCPU" ] || skip "offcputime not installed (Debian package libbpf-tools)"

# a busy host's other tasks (thousands of new ones a second) would fill
# both tools' maps before the workload's appear: schedhist traces only the
# test's own cgroup, and offcputime, whose one filter is -p PID, runs once
# per workload process, each process held at a gate until both tools are
# attached, so its pid is known first
own_cgroup profoc
start_sh js --profile -M offcpu -k tid -j --top 50 "${OWN_FILTER[@]}"
mkfifo "$TMP/goa" "$TMP/gob"
# shellcheck disable=SC2016
(echo "$BASHPID" >"$OWN/cgroup.procs" && read -r _ <"$TMP/goa" &&
	exec "$HELPERS/waiters" -m 10 -t 2) >"$TMP/a.txt" &
A=$!
(echo "$BASHPID" >"$OWN/cgroup.procs" && read -r _ <"$TMP/gob" &&
	exec "$HELPERS/waiters" -m 3 -t 2) >"$TMP/b.txt" &
B=$!
CHILD_PIDS+=("$A" "$B")
OCS=()
for p in "$A" "$B"; do
	"$OFFCPU" -p "$p" --stack-storage-size 16384 6 >"$TMP/offcputime.$p.out" \
		2>"$TMP/offcputime.$p.err" &
	OC=$!
	CHILD_PIDS+=("$OC")
	OCS+=("$OC")
	# offcputime says nothing when it attaches: its loaded program is the
	# sign, and its attach follows at once (a hang guard, not a speed bound)
	for i in $(seq 1 1200); do
		[ -n "$(prog_ids "$OC")" ] && break
		kill -0 "$OC" 2>/dev/null || fail "offcputime exited at start: $(cat "$TMP/offcputime.$p.err")"
		sleep 0.05
	done
done
sleep 0.2
echo go >"$TMP/goa"
echo go >"$TMP/gob"
wait "$A" "$B" || fail "the workload failed"
for OC in "${OCS[@]}"; do
	kill -0 "$OC" 2>/dev/null || fail "offcputime ended before the workload did: the windows differ"
done
# its status is not its output's: it fails when a gone process's files
# (another test's memfd, say) do not open, after printing every stack
for OC in "${OCS[@]}"; do wait "$OC"; done
{ cat "$TMP/offcputime.$A.out"; echo; cat "$TMP/offcputime.$B.out"; } >"$TMP/offcputime.out"	# blocks are blank-line separated
grep -q ' -  *w_' "$TMP/offcputime.out" || fail "offcputime printed no stack of the workload"
stop_sh "$SH_PID" || fail "schedhist exited with $?: $(cat "$TMP/js.err")"

python3 - "$TMP" <<'PY' || exit 1
import json, re, sys
tmp = sys.argv[1]
tids = {}
for f in ("a", "b"):
    for l in open(f"{tmp}/{f}.txt"):
        if l.startswith("thread "):
            tids[l.split()[3]] = l.split()[1]
# the workload's four threads per process: the three waiters and the feeder
comms = {"w_pipe", "w_sleep", "w_futex", "w_feed"}
ksyms = {l.split()[2] for l in open("/proc/kallsyms") if l.split()[1] in "tTwW"}
tracing = re.compile(r"^(bpf_prog_|bpf_trace_run|__traceiter_)")

ours = {}
r = json.loads(open(f"{tmp}/js.out").read().splitlines()[-1])
for g in r["groups"]:
    for s in g["stacks"]:
        if s["comm"] in comms:
            k = (g["key"], tuple(reversed(s["kernel"])))
            ours[k] = ours.get(k, 0) + s["wait_ns"] / 1000

theirs = {}
for block in open(f"{tmp}/offcputime.out").read().split("\n\n"):
    lines = [l.strip() for l in block.strip().splitlines()]
    if len(lines) < 2 or not lines[-1].isdigit():
        continue
    m = re.match(r"^-\s+(.*) \((\d+)\)$", lines[-2])
    if not m or m.group(1) not in comms:
        continue
    kernel = []
    for f in lines[:-2]:
        if tracing.match(f):
            continue
        if f not in ksyms:
            break
        kernel.append(f)
    k = (m.group(2), tuple(kernel))
    theirs[k] = theirs.get(k, 0) + int(lines[-1])

tot_o, tot_t = sum(ours.values()), sum(theirs.values())
if not tot_o or not tot_t:
    sys.exit(f"FAIL: no workload stacks: schedhist {len(ours)}, offcputime {len(theirs)}")
bad = []
top = sorted(theirs, key=theirs.get, reverse=True)[:10]
for k in top:
    st, so = 100 * theirs[k] / tot_t, 100 * ours.get(k, 0) / tot_o
    print(f"{tids.get(k[0], '?'):8} {k[0]:>7} {st:6.2f} % {so:6.2f} %  {k[1][:3]}")
    if abs(st - so) > 3:
        bad.append(f"stack {k}: offcputime {st:.2f} %, schedhist {so:.2f} %")
if len(top) < 8:
    bad.append(f"only {len(top)} stacks of the workload in offcputime's output")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
