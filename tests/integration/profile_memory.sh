#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --profile's memory against a hostile ELF file: user nobody maps r-x a
# valid 156 KB file of 2 000 STT_FUNC symbols whose names all point at one
# 100 KB string (tests/helpers/bigsyms.c; unbounded, 2 000 copies took the
# poller from 19 to 209 MB), and one whose 20 000 names each start at
# their own offset of that string (2 GB of names if each were copied),
# and blocks in sleeps. The poller's peak RSS (VmHWM) under `--profile -p
# PID -i 1` stays under the cap: its peak in the same kind of run against
# a benign file of 8 symbols, plus the most one file's symbols may take
# (ELF_SYMS_MAX_BYTES: 256 Ki symbols x 24 bytes + 8 MiB of names, 14 MiB),
# plus the file itself (libelf maps it and reads its tables: each page
# counts once), plus 2 MiB for the reader's transient tables (the
# name-dedup index, 12 bytes x 2 slots per symbol: under 1 MiB here) and
# malloc's rounding. Each run holds as many ELF files as the benign one:
# the hostile file was read and kept, within its bounds, not refused.
. "$(dirname "$0")/../lib.sh"
need_root
command -v setpriv >/dev/null || skip "setpriv not installed (Debian package util-linux)"
chmod 0711 "$TMP"
mkdir "$TMP/nob"
chown nobody "$TMP/nob"

# run NAME BIGSYMS-ARGS...: the poller's VmHWM in KiB against that file, into $HWM
run() {
	local name=$1 pid
	shift
	setpriv --reuid nobody --regid nogroup --clear-groups "$HELPERS/bigsyms" "$@" 4 \
		>"$TMP/$name.txt" &
	CHILD_PIDS+=($!)
	wait_for "$TMP/$name.txt" "^ready" 5
	pid=$(awk '/^ready/ { print $2 }' "$TMP/$name.txt")
	start_sh "$name" --profile -p "$pid" -i 1 -v
	sleep 2.5
	HWM=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$SH_PID/status")
	grep -q "^Uid:[[:space:]]*$(id -u nobody)" "/proc/$SH_PID/status" || fail "$name: the poller is not nobody"
	stop_sh "$SH_PID" || fail "$name: schedhist exited with $?: $(cat "$TMP/$name.err")"
	FILES=$(sed -n 's/.*execs), \([0-9]*\) ELF files$/\1/p' "$TMP/$name.err")
	[ -n "$FILES" ] || fail "$name: no totals line: $(cat "$TMP/$name.err")"
	kill "$pid" 2>/dev/null
	local f
	for f in "$@"; do case $f in *.elf) FILE_KB=$(( $(stat -c %s "$f") / 1024 + 1 )) ;; esac; done
}
run benign "$TMP/nob/small.elf" 8 24
BASE=$HWM
BASE_FILES=$FILES
run one "$TMP/nob/one.elf" 2000 100000
ONE=$HWM
ONE_FILE=$FILE_KB
ONE_FILES=$FILES
run distinct -d "$TMP/nob/distinct.elf" 20000 100000
DIST=$HWM
DIST_FILE=$FILE_KB
DIST_FILES=$FILES
# ELF_SYMS_MAX_BYTES in KiB, and the slack above
BOUND=$(( (256 * 1024 * 24 + 8 * 1024 * 1024) / 1024 ))
SLACK=2048
echo "poller VmHWM: benign $BASE KiB, one string $ONE KiB (file $ONE_FILE KiB), distinct $DIST KiB (file $DIST_FILE KiB); cap base + $BOUND + file + $SLACK KiB"
[ "$ONE" -le $((BASE + BOUND + ONE_FILE + SLACK)) ] || fail "one string: $ONE KiB over the cap"
[ "$DIST" -le $((BASE + BOUND + DIST_FILE + SLACK)) ] || fail "distinct names: $DIST KiB over the cap"
# each hostile file was read and kept like the benign one (the same files
# in each run but that one): bounded, not refused
[ "$ONE_FILES" = "$BASE_FILES" ] && [ "$DIST_FILES" = "$BASE_FILES" ] ||
	fail "ELF files held: benign $BASE_FILES, one string $ONE_FILES, distinct $DIST_FILES"
