#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Memory safety of the poller under the real kernel: a representative
# subset of the integration tests again, against the ASan+UBSan build
# ($OUTPUT-asan/schedhist, made by `make asan`; `make test` builds it)
# with leak detection on. A sanitizer report makes schedhist print to
# stderr and exit non-zero, which each of these tests checks: start and
# every way to end (lifecycle), every bad input (bad_input), closed and
# full pipes (closed_pipe), the map overflowing (overflow), comm changes,
# task churn with pruning (churn), a context-switch storm (storm), the
# last two shortened, and fleet mode with --culprits and the cgroup
# counters (prom_culprits). LeakSanitizer cannot work under ptrace, so the
# strace-driven cases run without leak detection.
. "$(dirname "$0")/../lib.sh"
need_root
bin=${ASAN_SCHEDHIST:-${OUTPUT}-asan/schedhist}
[ -x "$bin" ] || fail "$bin missing: run make asan (make test builds it)"
nm "$bin" | grep -q __asan_init || fail "$bin is not built with AddressSanitizer"
export ASAN_OPTIONS=detect_leaks=1:exitcode=23 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
bad=0
for t in lifecycle bad_input closed_pipe overflow comm_change churn storm prom_culprits; do
	start=$(date +%s)
	SCHEDHIST=$bin CHURN_SECONDS=6 STORM_SECONDS=8 timeout 200 bash "$(dirname "$0")/$t.sh" \
		>"$TMP/$t.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$TMP/$t.log"; then
		echo "asan $t: ok ($(( $(date +%s) - start )) s)"
	else
		echo "asan $t: FAILED (exit $rc)"
		tail -40 "$TMP/$t.log" | sed 's/^/    /'
		bad=$((bad + 1))
	fi
done
[ $bad -eq 0 ] || fail "$bad test(s) failed against the ASan+UBSan binary"
