# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Shared by the integration tests (sourced). Each test is a script in
# tests/integration/ that exits 0 (pass), 77 (skip, with a reason on
# stdout) or anything else (fail, with the reason on stdout/stderr).

OUTPUT=${OUTPUT:-.output}
SCHEDHIST=${SCHEDHIST:-$OUTPUT/schedhist}
HELPERS=$OUTPUT/tests/helpers
TMP=$(mktemp -d /tmp/schedhist-test.XXXXXX)
SKIP=77
declare -a SH_PIDS=() CHILD_PIDS=()

# Debian's python3, where python3-jsonschema installs (a python3 earlier in
# PATH, e.g. a virtualenv's, may lack it)
PY_DEBIAN=${PY_DEBIAN:-/usr/bin/python3}

# not_reports PATH...: these files (or directory trees) under $TMP hold
# JSON that is not a schedhist report (Prometheus' answers, a browser's
# profile): check_reports leaves them out.
not_reports() {
	printf '%s\n' "$@" >>"$TMP/.not-reports"
}

# check_reports: every line starting with "{" in every file under $TMP
# must be a report that docs/report.schema.json accepts (see
# tests/check-reports.py). Run by cleanup when the test ends, whatever it
# did, so no test can leave a report unchecked; the runner fails a passing
# test that did not get here ($SH_REPORTS_CHECKED is its witness).
check_reports() {
	local out rc
	out=$("$PY_DEBIAN" "$(dirname "${BASH_SOURCE[0]}")/check-reports.py" \
		--not-reports "$TMP/.not-reports" "$TMP" 2>&1)
	rc=$?
	[ -n "${SH_REPORTS_CHECKED:-}" ] && printf '%s\n' "$out" | tail -1 >"$SH_REPORTS_CHECKED"
	[ $rc -eq 0 ] && return 0
	printf '%s\n' "$out" | head -20
	echo "FAIL: JSON output that docs/report.schema.json does not accept (above)"
	return 1
}

cleanup() {
	local rc=$? p
	exec 2>/dev/null	# no "Killed" job notices from the reaping below
	for p in "${SH_PIDS[@]}" "${CHILD_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	# a test's own cleanup (e.g. removing cgroups), after its processes died
	if declare -F test_cleanup >/dev/null; then test_cleanup; fi
	[ -n "$OWN_PARENT" ] && remove_cgroup_tree "$OWN_PARENT"
	switch_trace_end
	# a failure already explains itself; a pass or a skip must not hide bad JSON
	if ! check_reports && { [ $rc -eq 0 ] || [ $rc -eq $SKIP ]; }; then rc=1; fi
	rm -rf "$TMP"
	exit $rc
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit $SKIP; }

# start_sh NAME ARGS...: run schedhist in the background, stdout to
# $TMP/NAME.out, stderr to $TMP/NAME.err; waits until it has attached.
# Sets SH_PID.
start_sh() {
	local name=$1 i
	shift
	"$SCHEDHIST" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	SH_PID=$!
	SH_PIDS+=("$SH_PID")
	# a hang guard, not a bound on speed: it ends as soon as the line is
	# there (loading parses the kernel's BTF: slower on a busy host or
	# under ASan)
	for i in $(seq 1 1200); do
		grep -q '^Tracing' "$TMP/$name.err" 2>/dev/null && return 0
		kill -0 "$SH_PID" 2>/dev/null || { cat "$TMP/$name.err"; fail "schedhist $* exited at start"; }
		sleep 0.05
	done
	fail "schedhist $* did not attach within 60 s"
}

# stop_sh PID [SIGNAL]: stop it (SIGINT by default) and wait; returns its status.
stop_sh() {
	local pid=$1 sig=${2:-INT} i
	kill -"$sig" "$pid" 2>/dev/null
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	wait "$pid"
}

# prog_ids PID: ids of the BPF programs that process PID holds open
# (from the prog_id lines of its fds' fdinfo).
prog_ids() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u
}

# assert_unloaded IDS...: none of these program ids exists any more. The
# kernel frees programs shortly after the last reference goes: wait up to 2 s.
assert_unloaded() {
	local i id left
	for i in $(seq 1 40); do
		left=
		for id in "$@"; do
			bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"
		done
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	fail "program(s)$left still loaded after schedhist ended"
}

# start_sh_ids: after start_sh, the ids of its programs in SH_IDS.
remember_ids() {
	SH_IDS=$(prog_ids "$SH_PID")
	[ -n "$SH_IDS" ] || fail "no BPF program found for schedhist pid $SH_PID"
}

# No schedhist program left in the kernel at all (for tests that run alone,
# e.g. in CI; with other instances running use remember_ids/assert_unloaded).
assert_nothing_loaded() {
	local n i
	for i in $(seq 1 40); do
		n=$(bpftool prog show 2>/dev/null | grep -c 'name schedhist_' || true)
		[ "$n" -eq 0 ] && return 0
		sleep 0.05
	done
	fail "$n schedhist program(s) still loaded: $(bpftool prog show | grep schedhist_)"
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to load BPF programs"
}

# cpu_busy N: CPU N's busy time since boot, in clock ticks (/proc/stat:
# user, nice, system, irq, softirq, steal).
cpu_busy() { awk -v c="cpu$1" '$1 == c {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }

# switch_trace_start CPU: record the kernel's own sched_switch events on
# CPU (ftrace, a trace instance of this test's: the host's tracing is left
# as it was; tracefs is mounted for the test if it is not), an oracle
# for which task ran before which that shares no code with schedhist.
# Only for switches between two tasks: ftrace leaves out some of the
# switches from the idle task (after a switch to idle, the CPU's next
# event can have a task as prev), which schedhist's program sees.
# A second argument is an ftrace filter of the switches kept (e.g.
# 'next_comm == "culA"'): a busy host switches CPU 0 over 50 000 times a
# second, more than the buffer holds over a test.
# switch_trace_stop FILE: stop, and write one "PREV_PID NEXT_PID" line per
# switch to FILE; fails if the buffer overflowed (a count would be short).
TRACE_INST= TRACE_MNT=
switch_trace_start() {
	local t
	t=$(awk '$9 == "tracefs" {print $5; exit}' /proc/self/mountinfo)
	if [ -z "$t" ]; then
		TRACE_MNT=$(mktemp -d)
		mount -t tracefs nodev "$TRACE_MNT" || fail "cannot mount tracefs"
		t=$TRACE_MNT
	fi
	[ -d "$t/events/sched/sched_switch" ] || fail "no sched_switch trace event"
	TRACE_INST=$t/instances/schedhist-$$
	mkdir "$TRACE_INST" || fail "cannot make trace instance $TRACE_INST"
	printf '%x\n' $((1 << $1)) >"$TRACE_INST/tracing_cpumask"
	echo 8192 >"$TRACE_INST/buffer_size_kb"
	[ -z "${2:-}" ] || echo "$2" >"$TRACE_INST/events/sched/sched_switch/filter" ||
		fail "bad trace filter: $2"
	echo 1 >"$TRACE_INST/events/sched/sched_switch/enable"
	echo 1 >"$TRACE_INST/tracing_on"
}
switch_trace_stop() {
	echo 0 >"$TRACE_INST/tracing_on"
	grep -h '^overrun' "$TRACE_INST"/per_cpu/cpu*/stats | awk '$2 != 0 {exit 1}' ||
		fail "the trace buffer overflowed"
	sed -n 's/.*prev_pid=\([0-9]*\) .* next_pid=\([0-9]*\) .*/\1 \2/p' "$TRACE_INST/trace" >"$1"
	switch_trace_end
}
switch_trace_end() {
	[ -n "$TRACE_INST" ] && { echo 0 >"$TRACE_INST/tracing_on"; rmdir "$TRACE_INST"; }
	[ -n "$TRACE_MNT" ] && { umount "$TRACE_MNT"; rmdir "$TRACE_MNT"; }
	TRACE_INST= TRACE_MNT=
}

# tids PID...: every thread id of these processes, one a line.
tids() { local p; for p in "$@"; do ls /proc/"$p"/task; done; }

# trace_blame SWITCHES SPINNERS WDIR CDIR: "N WMAIN CMAIN", N the switches
# in SWITCHES (switch_trace_stop) from a thread of cgroup CDIR's processes
# to a thread of the "tid TID" lines of SPINNERS (the spinners helper's
# output), WMAIN and CMAIN the switch-ins of cgroups WDIR's and CDIR's
# main threads (each process's first: the shell that joined the cgroup,
# so some of its switches were outside it). While those processes live.
trace_blame() {
	local main_in n
	main_in() { awk '{print $3}' /proc/"$(head -1 "$1/cgroup.procs")"/schedstat; }
	n=$(awk 'FILENAME == ARGV[1] { c[$1] = 1; next }
		FILENAME == ARGV[2] { if ($1 == "tid") s[$2] = 1; next }
		($1 in c) && ($2 in s) { n++ } END { print n + 0 }' \
		<(tids $(cat "$4/cgroup.procs")) "$2" "$1")
	echo "$n $(main_in "$3") $(main_in "$4")"
}

# cgroup_mount [CTRL]: mount point of the cgroup2 hierarchy, or of the v1
# hierarchy carrying controller CTRL, read from /proc/self/mountinfo.
cgroup_mount() {
	awk -v ctrl="${1:-}" '{
		for (i = 7; i <= NF && $i != "-"; i++) ;
		fstype = $(i + 1); opts = "," $(i + 3) ","
		if ($4 != "/") next
		if (ctrl == "" && fstype == "cgroup2") { print $5; exit }
		if (ctrl != "" && fstype == "cgroup" && index(opts, "," ctrl ",")) { print $5; exit }
	}' /proc/self/mountinfo
}

# remove_cgroup_tree DIR: kill the tasks of DIR's child cgroups and remove
# them and DIR (a test's test_cleanup; quiet when it is already gone).
remove_cgroup_tree() {
	local d p
	for d in "$1"/*/; do
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	done
	sleep 0.1
	rmdir "$1"/*/ "$1" 2>/dev/null
}

# quota_cgroups NAME PERIOD_US QUOTA_US: cgroups $PARENT/t, limited to
# QUOTA_US of CPU time per PERIOD_US, and $PARENT/u, unlimited, under a
# new $PARENT named NAME-PID: on cgroup2 where it has the cpu controller
# (cpu.max), else on the v1 cpu hierarchy (cpu.cfs_quota_us). Sets MNT,
# PARENT and HIER (the schedhist options that pick that hierarchy);
# skips where there is neither.
quota_cgroups() {
	MNT=$(cgroup_mount)
	if [ -n "$MNT" ] && grep -qw cpu "$MNT/cgroup.controllers" 2>/dev/null; then
		HIER=()
		PARENT=$MNT/$1-$$
		mkdir "$PARENT" || fail "cannot create $PARENT"
		echo +cpu >"$PARENT/../cgroup.subtree_control" 2>/dev/null
		echo +cpu >"$PARENT/cgroup.subtree_control" || fail "cannot enable the cpu controller"
		mkdir "$PARENT/t" "$PARENT/u" || fail "cannot create cgroups"
		echo "$3 $2" >"$PARENT/t/cpu.max" || fail "cannot set cpu.max"
	else
		MNT=$(cgroup_mount cpu)
		[ -n "$MNT" ] || skip "no cpu controller on cgroup2 nor on a v1 hierarchy"
		HIER=(--cgroup-hier cpu)
		PARENT=$MNT/$1-$$
		mkdir "$PARENT" "$PARENT/t" "$PARENT/u" || fail "cannot create cgroups under $MNT"
		echo "$2" >"$PARENT/t/cpu.cfs_period_us" &&
			echo "$3" >"$PARENT/t/cpu.cfs_quota_us" || fail "cannot set the quota"
	fi
}

# in_cgroup DIR CMD...: run CMD (exec'd) as a member of cgroup DIR.
# In the background, `sh -c "$JOIN_CGROUP" DIR CMD... &` instead: sh execs
# CMD, so $! is CMD's pid (a backgrounded in_cgroup's is its subshell's).
JOIN_CGROUP='echo $$ > "$0/cgroup.procs" && exec "$@"'
in_cgroup() {
	local dir=$1
	shift
	sh -c "$JOIN_CGROUP" "$dir" "$@"
}

# map_ids PID: ids of the BPF maps that process PID holds open.
map_ids() {
	grep -h '^map_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u
}

# hists_map_id PID: id of the key map ("hists") of schedhist process PID.
hists_map_id() { named_map_id "$1" hists; }

# named_map_id PID NAME: id of the BPF map NAME of process PID.
named_map_id() {
	local id
	for id in $(map_ids "$1"); do
		bpftool map show id "$id" 2>/dev/null | grep -q " name $2 " && { echo "$id"; return 0; }
	done
	return 1
}

# map_max_entries ID: the capacity of map ID.
map_max_entries() {
	bpftool map show id "$1" | awk '{for (i = 1; i < NF; i++) if ($i == "max_entries") print $(i + 1)}'
}

# slot_keys ID: how many keys the key directory ID (schedhist's keydir)
# says are in slots now (its values that are not SH_SLOT_HASH).
slot_keys() {
	bpftool map dump id "$1" -j 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = lambda e: e["formatted"]["value"] if "formatted" in e else int.from_bytes(bytes(int(x, 16) for x in e["value"]), "little")
print(sum(1 for e in d if v(e) != 0xffffffff))'
}

# cgroup_v2_or_cpu: the hierarchy for tests that need cgroups with CPU
# contention of their own: cgroup2 where mounted, else the v1 cpu
# controller's. Sets MNT and HIER (schedhist's options for it), or skips.
cgroup_v2_or_cpu() {
	MNT=$(cgroup_mount)
	HIER=()
	if [ -z "$MNT" ]; then
		MNT=$(cgroup_mount cpu)
		HIER=(--cgroup-hier cpu)
	fi
	[ -n "$MNT" ] || skip "no cgroup2 and no v1 cpu hierarchy mounted"
}

# own_cgroup NAME: a cgroup of the test's own, $OWN (NAME-PID/w under the
# cgroup2 mount or the v1 cpu hierarchy, removed when the test ends), and
# OWN_FILTER, the options that trace only its tasks (-c, --cgroup-hier):
# a test that checks its own tasks' keys runs its workload in it
# (in_cgroup), so that a busy host's tasks (thousands of new tids a
# second) cannot fill the maps its keys need.
OWN= OWN_PARENT=
declare -a OWN_FILTER=()
own_cgroup() {
	cgroup_v2_or_cpu
	OWN_PARENT=$MNT/$1-$$
	OWN=$OWN_PARENT/w
	mkdir -p "$OWN" || fail "cannot create cgroup $OWN"
	OWN_FILTER=(-c "$OWN" "${HIER[@]}")
}

# map_entries ID: how many keys map ID holds now.
map_entries() {
	bpftool map dump id "$1" -j 2>/dev/null |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'
}

# assert_maps_gone IDS...: none of these map ids exists any more (a pinned
# map would outlive its process and keep its id).
assert_maps_gone() {
	local i id left
	for i in $(seq 1 40); do
		left=
		for id in "$@"; do
			bpftool map show id "$id" >/dev/null 2>&1 && left="$left $id"
		done
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	fail "map(s)$left still exist after schedhist ended"
}

# our_objects: one line per schedhist program or map in the kernel now
# ("prog ID NAME" / "map ID NAME"), to compare before and after a run
# whose ids are unknown (e.g. killed while loading).
our_objects() {
	bpftool prog show 2>/dev/null | awk '/ name schedhist_/ {sub(":", "", $1); print "prog", $1, $4}'
	bpftool map show 2>/dev/null |
		awk '/ name (hists|pcpu|task_ts|schedhis\.[a-z]+) / {sub(":", "", $1); print "map", $1, $4}'
}

# wait_for FILE REGEX [SECONDS]: until a line of FILE matches (default 10 s).
wait_for() {
	local i
	for i in $(seq 1 $((${3:-10} * 20))); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "no line matching '$2' in $1 within ${3:-10} s"
}

# cpu_ticks PID: user + system CPU time of PID so far, in clock ticks.
cpu_ticks() {
	awk '{print $14 + $15}' /proc/"$1"/stat
}

# assert_no_new_objects BEFORE: no schedhist program or map is in the
# kernel now that was not in BEFORE (an earlier our_objects); objects of
# other instances may come and go meanwhile. Waits up to 2 s for frees.
assert_no_new_objects() {
	local i new
	for i in $(seq 1 40); do
		new=$(comm -13 <(echo "$1" | sort) <(our_objects | sort))
		[ -z "$new" ] && return 0
		sleep 0.05
	done
	fail "left in the kernel: $(echo "$new" | tr '\n' ' ')"
}
