#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Fleet mode drops to nobody by default (-v says so: uid, gid, no
# supplementary groups, no capabilities), and cgroups stay named as far as
# that allows: with a cgroup directory of mode 0700 (nobody may not list
# it), its child that existed at start keeps its path, one made after the
# drop shows as [unresolved id=N], and no live cgroup is ever reported as
# [removed id=N]. Intervals are counted in schedhist's own reports.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip "no user nobody"
MNT=$(cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup2 hierarchy mounted"
NAME=schedhist-privs-$$
PARENT=$MNT/$NAME
test_cleanup() { remove_cgroup_tree "$PARENT"; }
mkdir "$PARENT" "$PARENT/early" || fail "cannot create cgroups under $MNT"
chmod 0700 "$PARENT"
in_cgroup "$PARENT/early" "$HELPERS/spinners" -n 1 -c 0 -t 60 -d 30 -N cgEarly >/dev/null &
CHILD_PIDS+=($!)

reports() { wc -l <"$TMP/p.out"; }
after() {	# after N: until N more reports are out
	local want=$(( $(reports) + $1 ))
	while [ "$(reports)" -lt "$want" ]; do
		kill -0 "$SH_PID" 2>/dev/null || fail "schedhist exited: $(cat "$TMP/p.err")"
		sleep 0.05
	done
}
port=$(free_port)
start_sh p -M runq -k cgroup --listen "127.0.0.1:$port" -i 200ms --print -j -v
grep -q '^schedhist: running as user nobody (uid [0-9]*), group [^ ]* (gid [0-9]*), no supplementary groups, no capabilities$' \
	"$TMP/p.err" || fail "-v does not say it runs as nobody: $(cat "$TMP/p.err")"
grep -qE "^Uid:\s+$(id -u nobody)\s" "/proc/$SH_PID/status" || fail "$(grep ^Uid: "/proc/$SH_PID/status")"
grep -qE '^Groups:\s*$' "/proc/$SH_PID/status" || fail "$(grep ^Groups: "/proc/$SH_PID/status")"

mkdir "$PARENT/late"
late=$(stat -c %i "$PARENT/late")
in_cgroup "$PARENT/late" "$HELPERS/spinners" -n 1 -c 0 -t 60 -d 30 -N cgLate >/dev/null &
CHILD_PIDS+=($!)
after 5
text=$(scrape "$port")
early=$(sample "$text" "schedhist_wait_seconds_count{metric=\"runq\",key_type=\"cgroup\",key=\"/$NAME/early\"}")
[ -n "$early" ] && [ "$early" -gt 0 ] || fail "/$NAME/early is not named: $(grep -o 'key="[^"]*"' <<<"$text" | sort -u | tr '\n' ' ')"
unres=$(sample "$text" "schedhist_wait_seconds_count{metric=\"runq\",key_type=\"cgroup\",key=\"[unresolved id=$late]\"}")
[ -n "$unres" ] && [ "$unres" -gt 0 ] || fail "the cgroup made after the drop is not [unresolved id=$late]: $(grep -o 'key="[^"]*"' <<<"$text" | sort -u | tr '\n' ' ')"
grep -q 'removed id=' <<<"$text" && fail "a live cgroup reported as removed: $(grep -o 'key="\[removed[^"]*"' <<<"$text" | sort -u)"
grep -q 'removed id=' "$TMP/p.out" && fail "a report calls a live cgroup removed"
stop_sh "$SH_PID" TERM || fail "exit $? on SIGTERM"
assert_nothing_leaked
echo "as nobody: /$NAME/early named, the late one [unresolved id=$late], none called removed"
