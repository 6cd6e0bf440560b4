#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Writing into a closed pipe ends quietly: `schedhist -i 0.2 | head -3`
# returns promptly, schedhist exits 0 with nothing on stderr but the
# start line, and its programs are gone.
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
