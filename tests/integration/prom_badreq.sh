#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Hostile and broken HTTP clients against --listen, and schedhist keeps
# serving and collecting: a wrong path gets 404; POST, PUT and DELETE get
# 405 with "Allow: GET, HEAD"; a 1 MB header and a 1 MB URL are refused
# (4xx or the connection closed, never 200), and so are garbage, a request
# line without a version, a malformed header line and HTTP/9.9; a
# half-open request held open does not stall other scrapes and is closed
# by the server's timeout. Meanwhile the counters keep growing, and the
# process stays small.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root

port=$(free_port)
start_sh bad -M runq --listen "127.0.0.1:$port" -i 500ms
sh=$SH_PID
sleep 0.6
e0=$(sample "$(scrape "$port")" 'schedhist_events_total{metric="runq"}')

code() {	# code METHOD PATH: the HTTP status
	curl -sS --max-time 5 -o /dev/null -w '%{http_code}' -X "$1" "http://127.0.0.1:$port$2"
}
for p in /nope /metrics/ /metrics/x /index.html; do
	[ "$(code GET "$p")" = 404 ] || fail "GET $p did not get 404"
done
for m in POST PUT DELETE PATCH; do
	[ "$(code "$m" /metrics)" = 405 ] || fail "$m /metrics did not get 405"
done
curl -sS --max-time 5 -D "$TMP/h405" -o /dev/null -X POST --data 'x=1' "http://127.0.0.1:$port/metrics"
grep -qi '^Allow: GET, HEAD' "$TMP/h405" || fail "405 without 'Allow: GET, HEAD': $(cat "$TMP/h405")"

python3 - "$port" <<'EOF' || fail "a bad request was not refused, or blocked the server"
import socket, sys, time
port = int(sys.argv[1])

def request(raw, timeout=5):
    """Send raw bytes, return the status line (b'' if the server closed first)."""
    s = socket.create_connection(('127.0.0.1', port), timeout=timeout)
    try:
        s.sendall(raw)
    except (BrokenPipeError, ConnectionResetError):
        pass	# refused while we were still sending: fine
    data = b''
    try:
        while b'\r\n' not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        pass
    s.close()
    return data.split(b'\r\n', 1)[0]

def refused(what, status):
    print(f'{what}: {status.decode(errors="replace") or "closed"}')
    if status and not (status.startswith(b'HTTP/1.') and status.split()[1][:1] in b'45'):
        sys.exit(f'{what} answered {status!r}, want 4xx/5xx or a closed connection')

big = b'a' * (1 << 20)
refused('1 MB header', request(b'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ' + big + b'\r\n\r\n'))
refused('1 MB URL', request(b'GET /metrics?' + big + b' HTTP/1.1\r\nHost: x\r\n\r\n'))
refused('many headers', request(b'GET /metrics HTTP/1.1\r\nHost: x\r\n' +
                                b''.join(b'X-%d: y\r\n' % i for i in range(5000)) + b'\r\n'))
refused('garbage', request(b'GARBAGE\xff\x01\r\n\r\n'))
refused('no version', request(b'GET /metrics\r\n\r\n'))
refused('bad header line', request(b'GET /metrics HTTP/1.1\r\nHost x\r\n\r\n'))
refused('HTTP/9.9', request(b'GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n'))

# a half-open request held open: other scrapes go on
held = socket.create_connection(('127.0.0.1', port), timeout=20)
held.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n')
idle = [socket.create_connection(('127.0.0.1', port)) for _ in range(4)]
for i in range(5):
    t = time.time()
    status = request(b'GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    if not status.startswith(b'HTTP/1.1 200') or time.time() - t > 2:
        sys.exit(f'scrape {i} with a half-open request held: {status!r} in {time.time() - t:.1f} s')
# ... and the server drops it after its timeout (10 s)
t = time.time()
try:
    closed = held.recv(4096) == b''
except ConnectionResetError:
    closed = True
except socket.timeout:
    closed = False
if not closed:
    sys.exit('the half-open connection was not closed within 20 s')
print(f'half-open connection closed by the server after {time.time() - t:.1f} s more')
for s in idle:
    s.close()
EOF

e1=$(sample "$(scrape "$port")" 'schedhist_events_total{metric="runq"}')
[ -n "$e1" ] && [ "$e1" -gt "$e0" ] || fail "the collector stopped ($e0 -> $e1)"
rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$sh/status")
[ "$rss" -lt 102400 ] || fail "RSS grew to $rss kB"
kill -0 "$sh" || fail "schedhist died"
stop_sh "$sh" INT || fail "schedhist exited with $? on SIGINT"
assert_nothing_leaked
echo "bad requests refused; events $e0 -> $e1, RSS $rss kB"
