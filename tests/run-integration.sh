#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Runs tests/integration/*.sh one by one (they load BPF programs into the
# running kernel, so never in parallel). Prints PASS/SKIP/FAIL per test and
# "integration: N passed, N failed, N skipped". ONLY: names or globs, by
# spaces (default all); TESTDIR: where the tests are (default
# tests/integration; tests/vm runs its guest checks from tests/vm/checks);
# TEST_TIMEOUT: each test's wall limit in seconds (default 300).
set -u
cd "$(dirname "$0")/.."
export OUTPUT=${OUTPUT:-.output}
pass=0 fail=0 skipped=0
# Integration tests and bench/ runs take this lock so that two of them never
# load programs or load the CPUs at the same time on a shared machine.
exec 9>/tmp/schedhist-cpu.lock
flock 9
tests=()
set -f	# the names split on spaces, globbed only under the test directory
pats=(${ONLY:-*})
set +f
for pat in "${pats[@]}"; do
	tests+=("${TESTDIR:-tests/integration}"/$pat.sh)
done
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	start=$(date +%s)
	# the test's JSON reports are checked against the schema when it ends
	# (tests/lib.sh cleanup), which leaves its count here
	witness=$(mktemp)
	rm -f "$witness"
	out=$(SH_REPORTS_CHECKED=$witness timeout "${TEST_TIMEOUT:-300}" bash "$t" 2>&1); rc=$?
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ] && [ ! -s "$witness" ]; then
		out="$out
its output was not checked against docs/report.schema.json: a test must source tests/lib.sh and keep its EXIT trap"
		rc=1
	fi
	rm -f "$witness"
	case $rc in
	0) echo "PASS $name (${secs}s)"; pass=$((pass + 1)) ;;
	77) echo "SKIP $name: $(printf '%s\n' "$out" | grep -m1 '^SKIP' | sed 's/^SKIP: //')"
	    skipped=$((skipped + 1)) ;;
	*) echo "FAIL $name (exit $rc, ${secs}s)"; printf '%s\n' "$out" | sed 's/^/    /' | tail -40
	   fail=$((fail + 1)) ;;
	esac
done
echo "integration: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
