#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Writing into a closed pipe ends quietly: `schedhist -i 0.2 | head -3`
# returns promptly, schedhist exits 0 with nothing on stderr but the
# start line, and its programs are gone. Then: a full pipe (no CPU spent
# while blocked; SIGTERM waits for the reader, which is only slow, and
# the reader's end is a quiet exit 0), the reader exiting while it is
# blocked (EPIPE, quiet exit 0), a reader that stalls (interval timing
# stays right) and a closed stdout (refused before loading).
. "$(dirname "$0")/../lib.sh"
need_root

start=$(date +%s%N)
( "$SCHEDHIST" -i 0.2 2>"$TMP/err"; echo $? >"$TMP/rc" ) | head -3 >/dev/null
for i in $(seq 1 100); do [ -s "$TMP/rc" ] && break; sleep 0.05; done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ -s "$TMP/rc" ] || fail "schedhist still running 5 s after head exited"
[ "$(cat "$TMP/rc")" -eq 0 ] || fail "exit $(cat "$TMP/rc"), want 0"
[ "$(grep -vc '^Tracing' "$TMP/err")" -eq 0 ] || fail "noise on stderr: $(cat "$TMP/err")"
echo "ended ${ms} ms after start"
[ $ms -lt 5000 ] || fail "took $ms ms"

# A full pipe (`| sleep 300`): once the pipe is full schedhist waits for
# room and uses no CPU. SIGTERM asks for the final report, which must not
# be cut: schedhist goes on waiting, still without CPU. When the reader
# ends (EPIPE) it exits quietly, status 0, nothing left loaded.
mkfifo "$TMP/fifo"
sleep 300 <"$TMP/fifo" &
READER=$!
CHILD_PIDS+=($READER)
"$SCHEDHIST" -i 0.02 -k tid >"$TMP/fifo" 2>"$TMP/full.err" &
SH=$!
SH_PIDS+=($SH)
exec 8<"$TMP/fifo"	# a second reader end, to see what the pipe holds
# reports are coming (each ~10 KB, 50 a second) and nobody reads. The pipe
# is full, and schedhist blocked, once what it holds stops growing over
# 0.2 s (ten report periods): measured, not assumed from this machine's speed
pipe_bytes() {
	python3 -c 'import fcntl,sys; print(int.from_bytes(fcntl.ioctl(8, 0x541B, b"\0"*4), sys.byteorder))'
}
prev=-1
while :; do
	kill -0 $SH 2>/dev/null || fail "schedhist exited before writing: $(cat "$TMP/full.err")"
	now=$(pipe_bytes)
	[ "$now" -gt 0 ] && [ "$now" -eq "$prev" ] && break
	prev=$now
	sleep 0.2
done
SH_IDS=$(prog_ids $SH)
blocked_ticks() {	# blocked_ticks WHAT: CPU ticks of schedhist over 2 s
	local t0 t1
	t0=$(cpu_ticks $SH)
	sleep 2
	t1=$(cpu_ticks $SH)
	echo "CPU time while blocked on a full pipe for 2 s ($1): $((t1 - t0)) ticks" >&2
	[ $((t1 - t0)) -le 2 ] || fail "schedhist spins on a full pipe ($1): $((t1 - t0)) ticks in 2 s"
}
blocked_ticks "before SIGTERM"
kill -TERM $SH
blocked_ticks "after SIGTERM"
kill -0 $SH 2>/dev/null || fail "SIGTERM cut the report: schedhist exited with the reader still there"
exec 8<&-
kill $READER
wait $SH; rc=$?
echo "reader gone after SIGTERM: exit $rc"
[ $rc -eq 0 ] || fail "reader gone after SIGTERM: exit $rc, want 0; stderr: $(cat "$TMP/full.err")"
[ "$(grep -vc '^Tracing' "$TMP/full.err")" -eq 0 ] || fail "noise on stderr: $(cat "$TMP/full.err")"
assert_unloaded $SH_IDS

# The reader goes away while schedhist is blocked on the full pipe: the
# write fails with EPIPE (SIGPIPE is ignored) and it ends quietly, exit 0.
( "$SCHEDHIST" -i 0.02 -k tid 2>"$TMP/gone.err"; echo $? >"$TMP/gone.rc" ) | sleep 2
for i in $(seq 1 40); do [ -s "$TMP/gone.rc" ] && break; sleep 0.05; done
[ -s "$TMP/gone.rc" ] || fail "schedhist still running 2 s after its reader exited"
[ "$(cat "$TMP/gone.rc")" -eq 0 ] || fail "reader gone: exit $(cat "$TMP/gone.rc"), want 0"
[ "$(grep -vc '^Tracing' "$TMP/gone.err")" -eq 0 ] || fail "noise on stderr: $(cat "$TMP/gone.err")"

# A reader that stalls for 2 s: schedhist blocks, then goes on. Interval
# timing stays right: the reports' spans are contiguous (each interval_s is
# the time since the previous reading, the stall included), exactly one
# report comes late (the one taken when the write returned), and the
# others stay on the 0.2 s grid: no burst of catch-up reports, no drift.
python3 - "$SCHEDHIST" "$TMP/slow.err" >"$TMP/slow.out" <<'PY' || fail "slow reader run failed: $(cat "$TMP/slow.err")"
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)	# F_SETPIPE_SZ: a one-page pipe fills at once
p = subprocess.Popen([sys.argv[1], "-i", "0.2", "-d", "4", "-k", "tid", "-j"], stdout=w,
                     stderr=open(sys.argv[2], "w"))
os.close(w)
f = os.fdopen(r, "rb")
first = f.readline()
time.sleep(2)
sys.stdout.buffer.write(first + f.read())
sys.exit(p.wait())
PY
python3 - "$TMP/slow.out" <<'PY' || fail "interval timing after a stalled reader"
import datetime, json, sys
reports = [json.loads(l) for l in open(sys.argv[1])]
def ts(r):
    return datetime.datetime.strptime(r["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()
t = [ts(r) for r in reports]
gaps = [b - a for a, b in zip(t, t[1:])]
print(f"{len(reports)} reports; gaps: " + " ".join(f"{g:.2f}" for g in gaps))
assert max(gaps) >= 1.0, "the reader's stall did not block schedhist"
# "time" is taken after the maps are read, the span ends before: allow for
# a slow reading (ASan, a loaded machine) per report, but not over the run
for r, g in zip(reports[1:], gaps):
    assert abs(r["interval_s"] - g) < 0.25, f"interval_s {r['interval_s']} but {g:.3f} s since the last"
total = sum(r["interval_s"] for r in reports[1:])
assert abs(total - (t[-1] - t[0])) < 0.25, f"spans add up to {total:.3f} s, the reports cover {t[-1] - t[0]:.3f} s"
off = [x for x in t[1:] if min((x - t[0]) % 0.2, 0.2 - (x - t[0]) % 0.2) > 0.06]
assert len(off) <= 1, f"{len(off)} reports off the 0.2 s grid"
assert min(gaps) > 0.1 or len([g for g in gaps if g < 0.1]) <= 1, "a burst of catch-up reports"
PY

# stdout closed (>&-): refused before anything is loaded, one line, exit 1.
before=$(our_objects)
start=$(date +%s%N)
"$SCHEDHIST" -d 5 >&- 2>"$TMP/closed.err"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "stdout closed: exit $rc after $ms ms: $(cat "$TMP/closed.err")"
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/closed.err")" -eq 1 ] && [ $ms -lt 1000 ] &&
	grep -q '^schedhist: standard output is closed' "$TMP/closed.err" || fail "stdout closed not refused"
assert_no_new_objects "$before"
