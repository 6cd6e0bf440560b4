#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Guest job: the named integration tests (tests/run-integration.sh), then
# the named checks of tests/vm/checks, each with the runner's PASS/SKIP/FAIL
# line; a first line says what kernel this is.
#   tests/vm/jobs/tests.sh "INTEGRATION TESTS" ["VM CHECKS"]
echo "guest: $(uname -r), $(nproc) CPUs online, possible $(cat /sys/devices/system/cpu/possible)," \
	"realtime $(cat /sys/kernel/realtime 2>/dev/null || echo 0)"
rc=0
[ -n "${1:-}" ] && { TEST_TIMEOUT=${TEST_TIMEOUT:-900} ONLY=$1 tests/run-integration.sh || rc=1; }
[ -n "${2:-}" ] && { TEST_TIMEOUT=${TEST_TIMEOUT:-900} TESTDIR=tests/vm/checks ONLY=$2 \
	tests/run-integration.sh || rc=1; }
exit $rc
