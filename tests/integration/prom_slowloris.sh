#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Slowloris against --listen, from 127.0.0.1 only: scrapes go on while
#  - 16 connections send their headers a line a second (never idle, so an
#    idle timeout never ends them), and the server closes each of them
#    once its request has run out of time, though it keeps sending;
#  - 500 connections are opened at once and send nothing, or half a
#    request line;
# every scrape meanwhile is a 200 within the bound below, the server's
# descriptors stay bounded, the collector keeps collecting, and SIGTERM
# still ends it cleanly.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
[ "$(ulimit -n)" -ge 1100 ] || ulimit -n 4096 2>/dev/null || skip "needs 1100 open files"

port=$(free_port)
start_sh sl -M runq --listen "127.0.0.1:$port" -i 500ms
sh=$SH_PID
sleep 0.6
e0=$(sample "$(scrape "$port")" 'schedhist_events_total{metric="runq"}')
fds0=$(ls /proc/$sh/fd | wc -l)

python3 - "$port" "$sh" "$fds0" <<'EOF2' || fail "slowloris"
import os, socket, sys, threading, time
port, pid, fds0 = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
# the server's constants, as schedhist(8) documents them (OUTPUT, Prometheus)
REQUEST_TIMEOUT, HARD_LIMIT = 10, 256

def scrape():
    """A scrape like Prometheus's: the request at once. (status line, seconds)."""
    t = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, BrokenPipeError):
        data = b""
    s.close()
    return data.split(b"\r\n", 1)[0], time.monotonic() - t

status, base = scrape()
assert status.startswith(b"HTTP/1.1 200"), status
# the bound: 2 s, plus ten times this machine's own unattacked scrape (a
# loaded host is slower at everything); a refused or stalled scrape (one
# never answered) fails it on any machine
bound = 2.0 + 10 * base
print(f"unattacked scrape {base * 1000:.1f} ms; bound under attack {bound:.2f} s")

def scrapes(what):
    for i in range(5):
        status, took = scrape()
        if not status.startswith(b"HTTP/1.1 200") or took > bound:
            sys.exit(f"{what}: scrape {i}: {status!r} after {took:.2f} s")
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    if fds > fds0 + HARD_LIMIT:
        sys.exit(f"{what}: {fds} open files in schedhist (started with {fds0})")
    print(f"{what}: 5 scrapes answered, each under {bound:.2f} s; {fds} fds")

# 1. sixteen dribbling connections
closed_at = {}
started = threading.Semaphore(0)
def dribble(i):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    t0 = time.monotonic()
    try:
        try:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        finally:
            started.release()
        # keep sending for up to three request timeouts: only a whole-request
        # bound ends this, an idle timeout never does
        while time.monotonic() - t0 < 3 * REQUEST_TIMEOUT:
            time.sleep(1)
            s.sendall(b"X-Slow: %d\r\n" % i)
            s.settimeout(0.001)
            try:
                if s.recv(1 << 16) == b"":
                    break
            except socket.timeout:
                pass
            except ConnectionResetError:
                break
            s.settimeout(5)
        else:
            return
    except (BrokenPipeError, ConnectionResetError):
        pass
    closed_at[i] = time.monotonic() - t0
    s.close()

threads = [threading.Thread(target=dribble, args=(i,)) for i in range(16)]
for t in threads:
    t.start()
for t in threads:	# all sixteen are connected and inside their headers
    started.acquire()
scrapes("16 slow connections")
for t in threads:
    t.join()
if len(closed_at) < 16:
    sys.exit(f"{16 - len(closed_at)} dribbling connections not closed by the server "
             f"within {3 * REQUEST_TIMEOUT} s")
print(f"16 dribbling connections closed by the server after "
      f"{min(closed_at.values()):.1f}-{max(closed_at.values()):.1f} s")

# 2. five hundred idle or half-sent connections
idle = []
for i in range(500):
    s = socket.socket()
    s.settimeout(10)
    try:
        s.connect(("127.0.0.1", port))
        if i % 2:
            s.sendall(b"GET /metr")
    except (ConnectionResetError, BrokenPipeError):
        pass
    idle.append(s)
scrapes("500 idle or half-sent connections")
for s in idle:
    s.close()
EOF2

e1=$(sample "$(scrape "$port")" 'schedhist_events_total{metric="runq"}')
[ -n "$e1" ] && [ "$e1" -gt "$e0" ] || fail "the collector stopped ($e0 -> $e1)"
kill -0 "$sh" || fail "schedhist died"
stop_sh "$sh" TERM || fail "schedhist exited with $? on SIGTERM"
assert_nothing_leaked
echo "slowloris: scrapes answered throughout; events $e0 -> $e1"
