#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Stop signals and the standard output:
#  - a reader slower than schedhist, that reads only once SIGINT has been
#    delivered, gets every report whole: each line parses as JSON, the
#    last one is the final report, exit 0; and the pipe it shares with
#    schedhist is never left O_NONBLOCK (checked after schedhist exited);
#  - a reader that never reads: the first SIGTERM waits for it (the final
#    report is written whole or not at all), a second SIGTERM gives up:
#    exit 1 and one line saying the report is cut;
#  - SIGHUP (an ssh session dropped) is a stop like SIGTERM: the final
#    report is written, exit 0;
#  - a report that cannot be written (/dev/full) gives exit 1 and why.
# Nothing is left loaded after any of them.
. "$(dirname "$0")/../lib.sh"
need_root
before=$(our_objects)
# 200 threads that wake every 10 ms: -k tid reports of tens of KB, many
# times the one-page pipes below
"$HELPERS/threads" -n 200 -m 10 -t 60 >/dev/null &
CHILD_PIDS+=($!)

python3 - "$SCHEDHIST" "$TMP/slow.err" <<'PY' || fail "slow reader after SIGINT"
import fcntl, json, os, select, signal, subprocess, sys
sh, errpath = sys.argv[1], sys.argv[2]

def delivered(pid, sig):
    """Until signal @sig is no longer pending for @pid (its handler ran or runs)."""
    bit = 1 << (sig - 1)
    while True:
        try:
            st = open(f"/proc/{pid}/status").read()
        except FileNotFoundError:
            return
        pend = [int(l.split()[1], 16) for l in st.splitlines() if l.startswith(("SigPnd", "ShdPnd"))]
        if not any(p & bit for p in pend):
            return
        select.select([], [], [], 0.01)

r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)	# F_SETPIPE_SZ: one page, full at once
p = subprocess.Popen([sh, "-k", "tid", "-j", "--cumulative", "-i", "0.05"], stdout=w,
                     stderr=open(errpath, "w"))
w2 = os.dup(w)	# the same open pipe as schedhist's stdout: its flags are shared
os.close(w)
# schedhist has written into the one-page pipe, which nobody reads: it is
# blocked, or soon will be, with the rest of its reports (each is larger
# than the last: --cumulative keeps every thread seen since start)
while True:
    n = fcntl.ioctl(r, 0x541B, b"\0\0\0\0")	# FIONREAD
    if int.from_bytes(n, sys.byteorder) > 0:
        break
    if p.poll() is not None:
        sys.exit(f"schedhist exited {p.returncode} before the pipe filled")
    select.select([], [], [], 0.01)
p.send_signal(signal.SIGINT)
delivered(p.pid, signal.SIGINT)
# only now the reader reads, to the end
data = b""
while True:
    ready, _, _ = select.select([r], [], [], 0.1)
    if ready:
        data += os.read(r, 1 << 16)
    elif p.poll() is not None:
        break
rc = p.wait()
flags = fcntl.fcntl(w2, fcntl.F_GETFL)
os.close(w2)
while True:
    chunk = os.read(r, 1 << 16)
    if not chunk:
        break
    data += chunk
lines = data.split(b"\n")
assert lines[-1] == b"", f"output does not end with a whole line: ...{lines[-1][-80:]!r}"
for i, l in enumerate(lines[:-1]):
    try:
        json.loads(l)
    except ValueError as e:
        sys.exit(f"line {i + 1} of {len(lines) - 1} ({len(l)} bytes) is not JSON: {e}")
print(f"{len(lines) - 1} reports, {len(data)} bytes, all whole; exit {rc}")
assert len(lines) - 1 >= 2, "no final report"
assert rc == 0, f"exit {rc}, want 0"
assert not flags & os.O_NONBLOCK, "schedhist left O_NONBLOCK on the shared pipe"
PY
[ "$(grep -vc '^Tracing' "$TMP/slow.err")" -eq 0 ] || fail "noise on stderr: $(cat "$TMP/slow.err")"

python3 - "$SCHEDHIST" "$TMP/stuck.err" <<'PY' || fail "reader that never reads"
import fcntl, os, select, signal, subprocess, sys
sh, errpath = sys.argv[1], sys.argv[2]
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)
p = subprocess.Popen([sh, "-k", "tid", "-j", "--cumulative", "-i", "0.05"], stdout=w,
                     stderr=open(errpath, "w"))
os.close(w)
while int.from_bytes(fcntl.ioctl(r, 0x541B, b"\0\0\0\0"), sys.byteorder) == 0:
    if p.poll() is not None:
        sys.exit(f"schedhist exited {p.returncode} before the pipe filled")
    select.select([], [], [], 0.01)
try:
    p.send_signal(signal.SIGTERM)	# the first: write the final report, whole
    while p.poll() is None:	# until it is delivered (no longer pending), then the second
        st = open(f"/proc/{p.pid}/status").read()
        if not any(int(l.split()[1], 16) & (1 << (signal.SIGTERM - 1)) for l in st.splitlines()
                   if l.startswith(("SigPnd", "ShdPnd"))):
            break
        select.select([], [], [], 0.01)
    p.send_signal(signal.SIGTERM)
except ProcessLookupError:
    pass
rc = p.wait()	# the runner's timeout ends a hang
err = open(errpath).read()
print(f"second SIGTERM: exit {rc}: {err.strip().splitlines()[-1]}")
assert rc == 1, f"exit {rc}, want 1"
assert "the report is cut" in err, err
PY

start_sh hup -d 1h
stop_sh "$SH_PID" HUP; rc=$?
[ $rc -eq 0 ] || fail "SIGHUP: exit $rc, want 0 (final report, like SIGTERM)"
grep -q '^off-CPU wait' "$TMP/hup.out" || fail "SIGHUP: no final report in: $(cat "$TMP/hup.out")"
# the first screen of the default says which question it answers
grep -q '^Tracing off-CPU wait .*sleeping included (-M runq: waiting for a CPU)\.\.\.' "$TMP/hup.err" ||
	fail "the start line does not point to -M runq: $(cat "$TMP/hup.err")"
echo "SIGHUP: final report written, exit 0"
# started with SIGHUP ignored (nohup): it stays ignored (SigIgn bit 0)
nohup "$SCHEDHIST" -d 1h >"$TMP/nohup.out" 2>"$TMP/nohup.err" &
SH_PID=$!
SH_PIDS+=("$SH_PID")
wait_for "$TMP/nohup.err" '^Tracing'
ign=$(awk '/^SigIgn:/ { print $2 }' "/proc/$SH_PID/status")
(( 0x$ign & 1 )) || fail "under nohup, SIGHUP is no longer ignored (SigIgn $ign)"
stop_sh "$SH_PID" INT || fail "under nohup: exit $? on SIGINT"
grep -q '^off-CPU wait' "$TMP/nohup.out" || fail "under nohup: no final report"
echo "under nohup: SIGHUP stays ignored"

"$SCHEDHIST" -d 0.5 >/dev/full 2>"$TMP/full.err"; rc=$?
[ $rc -eq 1 ] || fail "stdout /dev/full: exit $rc, want 1"
grep -q 'cannot write the report: No space left on device' "$TMP/full.err" ||
	fail "stdout /dev/full: $(cat "$TMP/full.err")"
echo "stdout /dev/full: exit 1, $(grep -v ^Tracing "$TMP/full.err")"
assert_no_new_objects "$before"
