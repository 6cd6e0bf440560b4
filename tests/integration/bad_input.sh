#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Bad input: one clear line on stderr naming the problem, exit code 2 for
# usage errors (1 for runtime ones), nothing loaded in the kernel.
. "$(dirname "$0")/../lib.sh"
need_root

# a pid that surely does not exist: above pid_max
nopid=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))
[ "$nopid" -le 4194304 ] || nopid=4194304
: >"$TMP/file"
bad=0
check() {	# check WANT_RC WANT_REGEX ARGS...
	local want=$1 re=$2 rc lines
	shift 2
	timeout 10 "$SCHEDHIST" "$@" >"$TMP/o" 2>"$TMP/e"; rc=$?
	lines=$(wc -l <"$TMP/e")
	if [ $rc -ne "$want" ] || [ "$lines" -ne 1 ] || ! grep -qE "^schedhist: .*$re" "$TMP/e" ||
	   [ -s "$TMP/o" ]; then
		echo "FAIL: schedhist $* -> exit $rc (want $want), stderr: $(cat "$TMP/e")"
		bad=$((bad + 1))
	fi
}
check 2 "unknown option" --bogus
check 2 "unknown option" -Z
check 2 "unknown metric" -M latency
check 2 "unknown key" -k user
check 2 "unknown unit" --unit s
check 2 "conflicting keys" -L -P
check 2 "conflicting keys" -k comm -L
check 2 "invalid count" --count 0 -i 1
check 2 "invalid count" -i 1 -n -3
check 2 "invalid interval" --interval 0
check 2 "invalid interval" --interval 1e9
check 2 "invalid interval" -i -1
check 2 "invalid interval" -i 5x
check 2 "invalid interval" 99999999999
check 2 "invalid interval" ""
check 2 "invalid duration" -d 0
check 2 "invalid duration" -d abc
check 2 "invalid pid" -p 0
check 2 "invalid pid" -p -1
check 2 "invalid pid" -p 12ab
check 2 "invalid pid" -p 99999999999999999999
check 2 "no such process" -p "$nopid"
check 2 "needs an argument" -p
check 2 "needs an argument" --metric
check 2 "count needs an interval" -n 3
check 2 "unexpected argument" 1 2 3
check 2 "invalid --max-keys" --max-keys 0
check 2 "invalid --max-keys" --max-keys 10000001
check 2 "--cgroup-depth needs -k cgroup" --cgroup-depth 2
check 2 "invalid cgroup depth" -k cgroup --cgroup-depth 0
check 2 "not found" -c /no/such/cgroup
check 2 "not a cgroup directory" -c /proc
check 2 "not a cgroup directory" -c "$TMP/file"
check 2 "unknown cgroup controller" -k cgroup --cgroup-hier nosuchctrl
check 2 "unknown sort" --sort median
check 2 "invalid --top" --top 0
check 2 "invalid --min-wait" --min-wait 5parsecs
check 2 "--heatmap-key needs --heatmap" -k comm --heatmap-key bash
[ $bad -eq 0 ] || fail "$bad bad input(s) not rejected as documented"
[ -z "$(bpftool prog show | grep 'name schedhist_')" ] || echo "note: another instance is loaded"
