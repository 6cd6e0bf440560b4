#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# What a kernel lacks is refused at start, never a verifier dump: for each
# kernel feature an option needs, read from the kernel's own BTF (bpftool,
# not schedhist's probe), the option either loads and reports (the kernel
# has it) or exits 2 with one line on stderr that names the missing member,
# nothing on stdout and nothing left in the kernel.
#   --causes            cfs_rq::throttled_clock_self_time (the throttled cause)
#   --method sched_info sched_info::run_delay, last_queued, pcount
. "$(dirname "$0")/../../lib.sh"
need_root
bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$TMP/vmlinux.h" || fail "bpftool btf dump"
not_reports "$TMP/vmlinux.h"
# has STRUCT MEMBER: the member is in the struct's definition
has() {
	awk -v s="struct $1 {" -v m="$2" '$0 == s { in_s = 1; next }
		in_s && /^};/ { exit } in_s && $0 ~ ("[ *]" m "(\\[.*\\])?;") { f = 1 } END { exit !f }' \
		"$TMP/vmlinux.h"
}
# check WANT OPTIONS...: schedhist with OPTIONS exits 0 (WANT=ok) or is refused
# naming WANT
before=$(our_objects)
check() {
	local want=$1 rc
	shift
	"$SCHEDHIST" "$@" -d 0.3 -j >"$TMP/run.out" 2>"$TMP/run.err"
	rc=$?
	if [ "$want" = ok ]; then
		[ $rc -eq 0 ] || fail "schedhist $* exited $rc on a kernel with what it needs: $(cat "$TMP/run.err")"
		grep -q '^{' "$TMP/run.out" || fail "schedhist $*: no report"
		echo "schedhist $*: loads"
		return
	fi
	[ $rc -eq 2 ] || fail "schedhist $* exited $rc, want 2 (no $want): $(head -5 "$TMP/run.err")"
	[ "$(grep -vc '^Tracing' "$TMP/run.err")" -eq 1 ] ||
		fail "schedhist $*: not one line: $(head -5 "$TMP/run.err")"
	grep -q "$want" "$TMP/run.err" || fail "schedhist $*: the line does not name $want: $(cat "$TMP/run.err")"
	[ ! -s "$TMP/run.out" ] || fail "schedhist $* printed a report"
	echo "schedhist $*: refused: $(cat "$TMP/run.err")"
}
if has cfs_rq throttled_clock_self_time; then
	check ok -M runq --causes
else
	check throttled_clock_self_time -M runq --causes
	check throttled_clock_self_time -M runq -k comm --causes --culprits
fi
if has sched_info run_delay && has sched_info last_queued && has sched_info pcount; then
	check ok -M runq --method sched_info
else
	check sched_info -M runq --method sched_info
fi
assert_no_new_objects "$before"
echo "PASS"
