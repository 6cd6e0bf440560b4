#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The whole suite: unit tests, then the integration tests on the real
# kernel. Ends with one line "N passed, N failed, N skipped" and exits
# non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
export OUTPUT=${OUTPUT:-.output}
log=$(mktemp)
tests/run-unit.sh "$OUTPUT/tests" | tee "$log"
# the same unit tests under ASan+UBSan (make asan), leaks included
if [ -d "$OUTPUT-asan/tests" ]; then
	echo "unit tests under ASan+UBSan ($OUTPUT-asan):"
	ASAN_OPTIONS=detect_leaks=1 tests/run-unit.sh "$OUTPUT-asan/tests" | tee -a "$log"
fi
tests/run-integration.sh | tee -a "$log"
p=0 f=0 s=0
while read -r _ a _ b _ c _; do
	p=$((p + a)); f=$((f + b)); s=$((s + ${c:-0}))
done < <(grep -E '^(unit|integration): [0-9]+ passed, [0-9]+ failed' "$log" | sed 's/,//g')
rm -f "$log"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
