#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Runs every unit test binary in $1; each prints PASS/FAIL lines and a
# "N passed, N failed" line. Prints the sum and exits non-zero on failure.
set -u
dir=${1:-.output/tests}
pass=0 fail=0
for t in "$dir"/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed$'
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
	p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}')
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
	if [ $rc -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		echo "FAIL $(basename "$t") (exit $rc)"; fail=$((fail + 1))
	fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
