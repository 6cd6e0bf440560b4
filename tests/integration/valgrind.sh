#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Valgrind memcheck: schedhist -i 1 -k tid for 30 s (VALGRIND_SECONDS)
# under task churn (new keys, pruning, [exited]), then SIGINT. memcheck
# must report no error of any kind and no leak (definite, indirect or
# possible; memory still reachable at exit is listed but is not a leak);
# the only suppressions (tests/valgrind.supp) are two bpf() parameter
# checks inside libbpf's own feature probe, each justified there. The run
# itself must still be right (one report a second, the identity).
# --max-keys 2048: 2048 slots, where the kernel folds gone keys and frees
# their slots once more than 512 are taken; more slots made every
# interval of the churn several times the work under memcheck (the run
# ran near the suite's time limit) and tested nothing more.
. "$(dirname "$0")/../lib.sh"
need_root
command -v valgrind >/dev/null || skip "valgrind not installed (Debian package valgrind)"
secs=${VALGRIND_SECONDS:-30}

valgrind --suppressions="$(dirname "$0")/../valgrind.supp" --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=definite,indirect,possible \
	--error-exitcode=99 --log-file="$TMP/vg.log" "$SCHEDHIST" -i 1 -k tid --max-keys 2048 -j \
	>"$TMP/vg.out" 2>"$TMP/vg.err" &
VG=$!
SH_PIDS+=($VG)
for i in $(seq 1 600); do
	grep -q '^Tracing' "$TMP/vg.err" && break
	kill -0 $VG 2>/dev/null || { cat "$TMP/vg.err" "$TMP/vg.log"; fail "schedhist under valgrind exited at start"; }
	sleep 0.05
done
grep -q '^Tracing' "$TMP/vg.err" || fail "schedhist under valgrind did not attach within 30 s"
"$HELPERS/churn" -t "$secs" -m both -c 8 >"$TMP/churn.out" || fail "churn helper failed"
cat "$TMP/churn.out"
kill -INT $VG
for i in $(seq 1 600); do kill -0 $VG 2>/dev/null || break; sleep 0.05; done
wait $VG; rc=$?
grep -E 'ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable' "$TMP/vg.log" | sed 's/^==[0-9]*== */    /'
if [ $rc -ne 0 ]; then
	grep -vE "^==[0-9]+== *$|WARNING: unhandled eBPF command" "$TMP/vg.log" | head -80
	fail "valgrind: exit $rc (99: memcheck found errors or leaks)"
fi
grep -q 'ERROR SUMMARY: 0 errors' "$TMP/vg.log" || fail "memcheck reported errors"
grep -q 'All heap blocks were freed\|definitely lost: 0 bytes' "$TMP/vg.log" || fail "memcheck: leaks"
[ "$(grep -vc '^Tracing' "$TMP/vg.err")" -eq 0 ] || fail "noise on stderr: $(cat "$TMP/vg.err")"
python3 "$(dirname "$0")/../identity.py" "$TMP/vg.out" --min-reports $((secs - 5)) || fail "identity under valgrind"
