#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Bad input: one clear line on stderr naming the problem, exit code 2 for
# usage errors (1 for runtime ones), nothing loaded in the kernel. Every
# option gets malformed, empty, negative, huge and conflicting values;
# also cgroup paths that are missing, outside the hierarchy or a file,
# and a pid that exits while schedhist starts (held there by strace).
. "$(dirname "$0")/../lib.sh"
need_root

before=$(our_objects)
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
# --profile's -c: the histograms' cgroup checks, before anything loads
check 2 "not found" --profile -c /no/such/cgroup
check 2 "not a cgroup directory" --profile -c /proc
check 2 "not a cgroup directory" --profile -c "$TMP/file"
check 2 "empty cgroup path" --profile -c ""
check 2 "unknown cgroup controller" --profile -c / --cgroup-hier nosuchctrl
check 2 "--cgroup-hier needs -k cgroup or -c" --profile --cgroup-hier cpu
check 2 "--profile groups by -k none, comm, pid or tid" --profile -k cgroup -c /
check 2 "--cgroup-depth needs -k cgroup" --profile -c / --cgroup-depth 2
check 2 "--profile takes only" --profile -c / --stacks
check 2 "unknown sort" --sort median
check 2 "invalid --top" --top 0
check 2 "invalid --min-wait" --min-wait 5parsecs
check 2 "--heatmap-key needs --heatmap" -k comm --heatmap-key bash

# every option: malformed, empty, negative, huge and conflicting values
check 2 "unknown metric ''" -M ""
check 2 "unknown metric 'OFFCPU'" -M OFFCPU
check 2 "unknown metric 'latency'" -M offcpu,latency
check 2 "unknown metric ''" -M offcpu,
check 2 "unknown metric ''" -M ,runq
check 2 "metric 'runq' named twice" -M runq,offcpu,runq
check 2 "unknown method 'fast'" --method fast
check 2 "unknown clock 'tsc'" --clock tsc
check 2 "--clock ktime needs the wakeup method" --clock ktime --method sched_info
check 2 "--clock ktime needs the wakeup method" --method sched_info --clock ktime
check 2 "--task-table needs the sched_info method \\(--clock ktime" --clock ktime --task-table 4
check 2 "unknown metric 'off\?cpu'" -M "$(printf 'off\ncpu')"	# stays one line
check 2 "unknown key ''" -k ""
check 2 "unknown key 'TID'" -k TID
check 2 "conflicting keys" -k tid -k pid
check 2 "conflicting keys" -P -k comm
check 2 "invalid interval ''" -i ""
check 2 "invalid interval" -i 86401
check 2 "invalid interval" -i 1.5.5
check 2 "invalid interval" -i " 1"
check 2 "invalid interval" -i "1 "
check 2 "invalid interval" -i 0.0000000001
check 2 "invalid interval .1ns.: want a duration from 10ms" -i 1ns
check 2 "invalid interval .9ms.: want a duration from 10ms" 9ms
check 2 "invalid interval" -i 18446744073709551616
check 2 "invalid interval" -i 1h1m
check 2 "invalid interval" -i .s
check 2 "invalid interval" -i 0x10
check 2 "invalid count ''" -i 1 -n ""
check 2 "invalid count" -i 1 -n 1000000001
check 2 "invalid count" -i 1 -n 3.5
check 2 "invalid count" -i 1 -n 0x10
check 2 "invalid count" -i 1 -n " 3"
check 2 "invalid duration ''" -d ""
check 2 "invalid duration" -d -5
check 2 "invalid duration" -d 1e3
check 2 "invalid duration" -d 2d
check 2 "invalid duration" -d 31536001
check 2 "invalid duration" -d 99999999999999h
check 2 "unknown unit ''" --unit ""
check 2 "unknown unit" --unit US
check 2 "invalid pid ''" -p ""
check 2 "invalid pid" -p 4194305
check 2 "invalid pid" -p +5
check 2 "invalid pid" -p " 5"
check 2 "empty cgroup path" -c ""
check 2 "--cgroup-depth needs -k cgroup" --cgroup-depth 2 -k tid
check 2 "invalid cgroup depth ''" -k cgroup --cgroup-depth ""
check 2 "invalid cgroup depth" -k cgroup --cgroup-depth 256
check 2 "invalid cgroup depth" -k cgroup --cgroup-depth -1
check 2 "empty cgroup controller" -k cgroup --cgroup-hier ""
check 2 "--cgroup-hier needs -k cgroup or -c" --cgroup-hier cpu
check 2 "invalid --top ''" --top ""
check 2 "invalid --top" --top -1
check 2 "invalid --top" --top 1000001
check 2 "invalid --top" --top abc
check 2 "unknown sort ''" --sort ""
check 2 "unknown sort" --sort P99
check 2 "invalid --min-wait ''" --min-wait ""
check 2 "invalid --min-wait" --min-wait -1ms
check 2 "invalid --min-wait" --min-wait 2d
check 2 "invalid --min-wait" --min-wait 86401s
check 2 "empty heatmap path" --heatmap ""
check 2 "--heatmap-key needs a key other than none" --heatmap "$TMP/h.svg" --heatmap-key x
check 2 "invalid --max-keys ''" --max-keys ""
check 2 "invalid --max-keys" --max-keys -1
check 2 "invalid --max-keys" --max-keys 1e3
check 2 "invalid --max-keys" --max-keys 64k
check 2 "interval given twice" -i 1 2
check 2 "count given twice" -n 3 1 5
check 2 "option '--json' takes no argument" --json=1
check 2 "option '--cumulative' takes no argument" --cumulative=yes
check 2 "ambiguous option '--c'" --c 1
check 2 "unknown option '--bogus'" --bogus=3
for opt in -M -k -i -n -d --unit -p -c --cgroup-depth --cgroup-hier --top --sort --min-wait \
	--heatmap --heatmap-key --max-keys --method --clock; do
	check 2 "option '$opt' needs an argument" -d 1 "$opt"
done
# a --heatmap path that cannot be: refused before anything is loaded
check 2 "cannot open the directory of --heatmap '/no/such/dir/h.svg'" --heatmap /no/such/dir/h.svg -d 1
check 2 "refusing --heatmap '$TMP': it exists and is not a regular file" --heatmap "$TMP" -d 1
ln -s "$TMP/target.svg" "$TMP/link.svg"
check 2 "refusing --heatmap '$TMP/link.svg': it is a symbolic link" --heatmap "$TMP/link.svg" -d 1

# cgroup paths: missing, relative and missing, escaping the hierarchy, a
# file of the hierarchy (not a directory)
cgm=$(cgroup_mount)
if [ -n "$cgm" ]; then
	check 2 "not found" -c no-such.slice -d 1
	check 2 "not found under $cgm" -c /no/such/cgroup -d 1
	check 2 "not a cgroup directory" -c ../../../etc -d 1
	check 2 "not a cgroup directory" -c "$cgm/cgroup.procs" -d 1
else
	echo "note: no cgroup2 hierarchy mounted, cgroup path cases skipped"
fi

# a pid that exits while schedhist starts: it exists when the options are
# parsed; strace holds the second kill(pid, 0) (the check after the
# programs are attached) for 2 s, during which the process is killed and
# reaped. Exit 1, one line, nothing left loaded.
if command -v strace >/dev/null; then
	sleep 60 &
	victim=$!
	CHILD_PIDS+=($victim)
	# (LeakSanitizer, in the ASan build, cannot run under ptrace)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -o /dev/null -e trace=kill -e inject=kill:delay_enter=2000000:when=2 \
		"$SCHEDHIST" -p "$victim" -d 10 >"$TMP/o" 2>"$TMP/e" &
	st=$!
	CHILD_PIDS+=($st)
	# a hang guard, not a bound on speed (as start_sh's): it ends as soon as
	# the programs are loaded, or at once if schedhist ended before
	for i in $(seq 1 1200); do
		sh=$(pgrep -P $st | head -1)
		[ -n "$sh" ] && [ -n "$(prog_ids "$sh")" ] && break
		kill -0 $st 2>/dev/null || break
		sleep 0.05
	done
	[ -n "$sh" ] && [ -n "$(prog_ids "$sh")" ] ||
		fail "schedhist under strace never loaded its programs (after $((i / 20)) s;" \
		     "stderr: $(cat "$TMP/e"))"
	sleep 0.3
	kill -KILL $victim
	wait $victim 2>/dev/null
	wait $st; rc=$?
	if [ $rc -ne 1 ] || [ "$(wc -l <"$TMP/e")" -ne 1 ] ||
	   ! grep -q "^schedhist: process $victim exited while schedhist was starting" "$TMP/e"; then
		echo "FAIL: pid exiting while starting -> exit $rc, stderr: $(cat "$TMP/e")"
		bad=$((bad + 1))
	fi
else
	echo "note: no strace, the pid-exits-while-starting case is skipped"
fi

[ $bad -eq 0 ] || fail "$bad bad input(s) not rejected as documented"
assert_no_new_objects "$before"
