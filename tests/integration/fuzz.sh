#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The libFuzzer targets of every parser of outside input (tests/fuzz/:
# the command line, durations and numbers, /proc/self/mountinfo, cgroup
# paths, escaped names as --heatmap-key takes them; --profile's ELF, symbol-table,
# minidebuginfo and build-id readers, truncated and corrupt, and its broker's check of the
# requests), built by `make fuzz` with ASan+UBSan, each run for FUZZ_SECONDS
# (6 by default: a smoke run on top of the seed corpus, replayed whole every run), two at a time, from the seed corpus in
# tests/fuzz/corpus/NAME (left untouched: new inputs go to a temporary
# directory). Any crash, sanitizer report, leak or failed check fails the
# test and prints the input that did it.
. "$(dirname "$0")/../lib.sh"
secs=${FUZZ_SECONDS:-6}
targets=$(ls "$OUTPUT"/fuzz/fuzz_* 2>/dev/null)
[ -n "$targets" ] || fail "no fuzz targets in $OUTPUT/fuzz: run make fuzz (make test builds them)"
for src in tests/fuzz/fuzz_*.c; do
	[ -x "$OUTPUT/fuzz/$(basename "$src" .c)" ] || fail "$src is not built: run make fuzz"
done

run() {
	local bin=$1 name=${1##*/fuzz_}
	mkdir -p "$TMP/corpus-$name"
	not_reports "$TMP/corpus-$name"	# inputs the fuzzer made, not reports
	TMPDIR=$TMP ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$TMP/$name-" -print_final_stats=1 \
		"$TMP/corpus-$name" "tests/fuzz/corpus/$name" >"$TMP/$name.log" 2>&1
	echo $? >"$TMP/$name.rc"
}
set -- $targets
while [ $# -gt 0 ]; do
	run "$1" &
	[ $# -gt 1 ] && run "$2" &
	wait
	shift $(( $# > 1 ? 2 : 1 ))
done
bad=0
for bin in $targets; do
	name=${bin##*/fuzz_}
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/$name.log")
	if [ "$(cat "$TMP/$name.rc")" -ne 0 ] || [ -z "$runs" ]; then
		echo "FAIL fuzz_$name (exit $(cat "$TMP/$name.rc")):"
		grep -vE '^(INFO|#[0-9])' "$TMP/$name.log" | head -30 | sed 's/^/    /'
		for a in "$TMP/$name"-*; do
			[ -e "$a" ] && echo "    input $(basename "$a"): $(base64 -w0 "$a")"
		done
		bad=$((bad + 1))
	else
		echo "fuzz_$name: $runs inputs in ${secs} s, corpus $(ls "$TMP/corpus-$name" | wc -l) new + $(ls "tests/fuzz/corpus/$name" | wc -l) seeds"
	fi
done
[ $bad -eq 0 ] || fail "$bad fuzz target(s) failed"
