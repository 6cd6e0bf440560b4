#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Least privilege: once schedhist --listen has attached, every thread of it
# (the poller and libmicrohttpd's) has empty capability sets (CapInh,
# CapPrm, CapEff, CapAmb, and CapBnd too, as root may empty it),
# no_new_privs and no supplementary group; scrapes still return fresh
# data, so the maps are read without any capability. Started as root
# without --user it runs as nobody (every uid and gid nobody's, and -v
# says so); --user nobody the same; --user root keeps uid 0 but nothing
# else. It still detaches cleanly on SIGTERM (status 0, nothing left
# loaded). An unknown --user is refused (status 2) before loading.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
ZERO=0000000000000000
id nobody >/dev/null 2>&1 || skip "no user nobody"

check_run() {	# check_run NAME ARGS...: start, check privileges and data, stop
	local name=$1 port caps line spin uid gid user
	shift
	port=$(free_port)
	start_sh "$name" -M runq -k comm --listen "$port" -i 500ms -v "$@"
	# libmicrohttpd's thread exists once serving: check every task
	[ "$(ls "/proc/$SH_PID/task" | wc -l)" -ge 2 ] || fail "$name: no server thread"
	caps=$(status_caps "$SH_PID")
	while read -r line; do
		[ "$line" = "$ZERO $ZERO $ZERO $ZERO $ZERO" ] ||
			fail "$name: capabilities left (Inh Prm Eff Bnd Amb): $line"
	done <<<"$caps"
	grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$SH_PID/status" || fail "$name: no_new_privs not set"
	user=${2:-nobody}	# without --user: nobody
	uid=$(id -u "$user")
	gid=$(id -g "$user")
	grep -qE "^Uid:\s+$uid\s+$uid\s+$uid\s+$uid$" "/proc/$SH_PID/status" ||
		fail "$name: $(grep ^Uid: "/proc/$SH_PID/status")"
	grep -qE "^Gid:\s+$gid\s+$gid\s+$gid\s+$gid$" "/proc/$SH_PID/status" ||
		fail "$name: $(grep ^Gid: "/proc/$SH_PID/status")"
	grep -qE "^Groups:\s*$" "/proc/$SH_PID/status" ||
		fail "$name: supplementary groups left: $(grep ^Groups: "/proc/$SH_PID/status")"
	grep -q "^schedhist: running as user $user (uid $uid), .*no supplementary groups, no capabilities$" \
		"$TMP/$name.err" || fail "$name: -v does not say it runs as $user: $(cat "$TMP/$name.err")"
	# waits that happen after the drop still reach the scrapes
	"$HELPERS/spinners" -n 2 -c 0 -t 1.5 -x >/dev/null
	sleep 1.2
	spin=$(sample "$(scrape "$port")" \
		'schedhist_wait_seconds_count{metric="runq",key_type="comm",key="spinner"}')
	[ -n "$spin" ] && [ "$spin" -gt 0 ] || fail "$name: no fresh data in scrapes after the drop"
	stop_sh "$SH_PID" TERM || fail "$name: exited with $? on SIGTERM"
	assert_nothing_leaked
	echo "$name: all capabilities zero in $(wc -l <<<"$caps") threads, $spin spinner waits scraped"
}

check_run default
check_run nobody --user nobody
check_run root --user root

"$SCHEDHIST" --listen "$(free_port)" --user no-such-user-here >/dev/null 2>"$TMP/u.err"
rc=$?
[ "$rc" -eq 2 ] || fail "--user no-such-user-here exited $rc, want 2: $(cat "$TMP/u.err")"
grep -q "no such user" "$TMP/u.err" || fail "unknown user: $(cat "$TMP/u.err")"
assert_nothing_leaked
