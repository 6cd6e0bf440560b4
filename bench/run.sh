#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# schedhist overhead benchmark. As root, after `make bench`:
#   bench/run.sh              full run: 5 repeats, about 15 minutes
#   bench/run.sh --quick      2 repeats, short workloads, about 4 minutes
#   bench/run.sh -r N         N repeats (with the full run's workloads)
#   bench/run.sh --arms 'none floor sh:runq:comm runqlat'   only these arms
#   bench/run.sh --poller '1000:summary 10000:json'   only the poller, these KEYS:OUTPUT
#   bench/run.sh --hotpath [-r N]   the hot path's target arms, floor, runqlat, steps:
#                             ns per event only (no slowdown, pairs or poller), 3 repeats
# Environment: BENCH_BEST_OF (runs per slowdown workload, default 2) and
# BENCH_POLL_REPEATS (repeats that measure the poller, default 3); the
# committed 2026-11-29 result used 3 and 7 (32 minutes).
#
# Arms: none (nothing attached), floor (bench/floor.bpf.c: empty programs
# on sched_switch and sched_wakeup), clock (programs there that only read
# bpf_ktime_get_ns(): the floor plus the one clock read per event every
# latency tool needs), schedhist arms sh:METRICS:KEY[:METHOD[:FLAG[+FLAG]]]
# (-M METRICS -k KEY --method METHOD --FLAG...): runq with every key, offcpu, the
# three metrics at once, runq by the wakeup-hook fallback, runq with
# --culprits (comm, cgroup: next to the same arm without it; comm with
# --culprit-mode time, next to the default mode), with
# --causes (comm, cgroup: likewise; its wakeup programs count in its cost)
# and with --stacks (comm); profile (--profile -M offcpu: kernel and user stacks of
# the sampled waits) and offcputime (libbpf-tools, its job), side by side, with
# profile:exact (every wait walked), profile:kernel:exact, profile:user:exact
# and profile:none (--profile-stacks: the cost of each walk alone and of the
# mode without walks); and
# runqlat from Debian's
# libbpf-tools (installed with apt-get if missing). Each repeat runs every
# arm once, in a new random order; with each arm attached:
#   1. stats off: `perf bench sched pipe` pinned to CPU 0 (every switch on
#      the critical path), unpinned, and `perf bench sched messaging`,
#      each the best (shortest) of 2 runs, which filters out the bursts of
#      interference a shared or virtual machine adds; slowdown = t_arm /
#      t_none of the same repeat;
#   2. kernel.bpf_stats_enabled=1 around one more pinned pipe run: ns per
#      event of each of the arm's programs = delta run_time_ns / delta
#      run_cnt (programs found through the arm's own fds, so other BPF
#      users of the host do not count);
#   3. the arm process's peak RSS (VmHWM).
# Per context switch = the run time of all of an arm's programs over that
# run divided by its sched_switch runs (so wakeup programs count weighted
# by how many wakeups there were per switch).
# Then, in every repeat, the pairs (PAIRS below): two arms attached at once
# over one more pinned pipe run with stats on, each arm's per switch from
# its own programs, so their difference and ratio come from the same
# events under the same host conditions. Then the cost of reclaiming the
# key of an exited task:
# schedhist -M runq -k tid (default capacity: keys are marked for the
# poller; and --max-keys 64: the kernel folds every one) while the churn
# helper (tests/helpers/churn) creates and ends tasks for 3 s with stats
# on: ns per sched_process_free run. And in the first 3 repeats, the
# poller's cost: schedhist -M offcpu -k tid -p KEYS -i 1 over bench/keys
# (1, 100, 1000, 10000 threads, each its own tid and comm, each switching
# every 250 ms; text histograms, --summary and -j at 1000 and 10000, and
# --stacks at 1, 100 and 1000: the cost of reading and symbolizing the
# stacks of every key's max each interval): CPU per
# interval (ns precision from /proc/PID/task/*/schedstat; /proc/PID/stat
# utime+stime in 10 ms ticks kept in the CSV too), VmHWM, VmRSS (steady,
# after the warm-up) and the maps' bytes_memlock, printed at the end beside
# every map's memory from its definition (bench/kmem) for 2, 64 and 384
# possible CPUs.
#
# --poller 'KEYS:OUTPUT ...' (OUTPUT text, summary, json, stacks, or mem3:
# --summary of -M offcpu,runq,blocked, whose values are three times as
# big, so that keys go to the key map as well: the memory model's) measures
# only the poller, with those key counts and outputs, in each of the
# POLL_REPEATS repeats (-r N sets both).
# Output: bench/results/DATE.csv (every sample) and DATE.md (header,
# min / median / max tables, targets); --quick, -r, --arms and --poller
# runs write to bench/results/tmp/ (not committed). Holds /tmp/schedhist-cpu.lock (the
# integration tests take it too) while measuring. Leaves nothing loaded
# and nothing running on any exit, and restores kernel.bpf_stats_enabled.
# Exit: 0 done, 1 failure, 2 usage.
set -u
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-.output}
RUNQLAT=/usr/sbin/runqlat
OFFCPUTIME=/usr/sbin/offcputime
LOCK=/tmp/schedhist-cpu.lock

# Workload sizes (loops), full run; --quick scales them down.
REPEATS=5
PIPE_PINNED_LOOPS=40000		# each loop: 2 switches and 2 wakeups on CPU 0
PIPE_LOOPS=16000
MSG_GROUPS=5
MSG_LOOPS=16
BEST_OF=${BENCH_BEST_OF:-2}	# runs per slowdown workload; the shortest counts
STATS_LOOPS=100000
POLL_INTERVALS=4		# intervals (of 1 s) the poller CPU is averaged over
POLL_REPEATS=${BENCH_POLL_REPEATS:-3}	# repeats that also measure the poller (~70 s each)
KEY_COUNTS="1 100 1000 10000"
KEY_PERIOD_MS=250
OUTDIR=bench/results
ALL_ARMS="none floor clock sh:offcpu:none sh:offcpu+runq+blocked:none"
for k in none comm tid cgroup; do ALL_ARMS="$ALL_ARMS sh:runq:$k"; done
ALL_ARMS="$ALL_ARMS sh:runq:none:wakeup sh:runq:comm:wakeup runqlat"
# the fallback where the run queue clock is out of reach: bpf_ktime_get_ns() per stamp
ALL_ARMS="$ALL_ARMS sh:runq:none:wakeup:clock=ktime"
# --culprits next to the same arm without it, --stacks
ALL_ARMS="$ALL_ARMS sh:runq:comm:auto:culprits sh:runq:cgroup:auto:culprits"
# issue 29: culprits by time (every switch writes its CPU's run ring)
ALL_ARMS="$ALL_ARMS sh:runq:comm:auto:culprits+culprit-mode=time"
ALL_ARMS="$ALL_ARMS sh:runq:comm:auto:stacks profile offcputime"
# issue 29: --causes next to the same arm without it
ALL_ARMS="$ALL_ARMS sh:runq:comm:auto:causes sh:runq:cgroup:auto:causes"
# issue 32: the finest grid, 8 buckets per power of two (target: floor + 45 ns)
ALL_ARMS="$ALL_ARMS sh:runq:none:auto:schema=3"
# every keyed switch a miss of the key store's cache (one entry per CPU,
# SCHEDHIST_CACHE_ENTRIES=1; the pinned pipe's two tasks take turns on
# CPU 0's one entry), next to sh:runq:tid, every switch a hit
ALL_ARMS="$ALL_ARMS sh:runq:tid:auto:allmiss"
# where --profile's time goes: exact (every wait walked, as offcputime),
# each stack walk alone in exact mode, and the default (sampled) without walks
ALL_ARMS="$ALL_ARMS profile:exact profile:kernel:exact profile:user:exact profile:none"
# where -M runq's time goes: bench/floor.bpf.c's steps (ns per event only)
STEPS="clock sched_info table storage hist max hash store_hash slot cache seq gate"
STEPS="$STEPS cause_adds cause_map cause_run cause_read cause_ring cause_wakeup"
for st in $STEPS; do ALL_ARMS="$ALL_ARMS step:$st"; done
# Pairs: two arms attached at once, measured over the same pinned pipe run
# (every program of both runs on every event): on a shared or virtual
# machine the host's speed changes from one run to the next by more than
# the differences the targets are about, and a difference taken within one
# run cancels that. Which arm attaches first (and so runs first on each
# event) alternates between repeats. Only arms of the same shape are
# paired (one adds a key, a flag or metrics to the other): running next
# to another program makes an arm dearer by more the more memory it
# touches, so a pair of unlike arms (the floor and an arm, runqlat and an
# arm) would overstate their difference.
PAIRS="sh:runq:none,sh:runq:comm sh:runq:none,sh:runq:tid sh:runq:none,sh:runq:cgroup"
PAIRS="$PAIRS sh:offcpu:none,sh:offcpu+runq+blocked:none sh:runq:none,sh:runq:none:auto:schema=3"
PAIRS="$PAIRS sh:runq:comm,sh:runq:comm:auto:culprits sh:runq:cgroup,sh:runq:cgroup:auto:culprits"
PAIRS="$PAIRS sh:runq:comm,sh:runq:comm:auto:causes sh:runq:cgroup,sh:runq:cgroup:auto:causes"
PAIRS="$PAIRS sh:runq:tid,sh:runq:tid:auto:allmiss"
PAIRS="$PAIRS sh:runq:comm:auto:culprits,sh:runq:comm:auto:culprits+culprit-mode=time"
EXIT_SECONDS=3			# churn per exit-cost measurement
ARMS=$ALL_ARMS
# the poller's measurements, KEYS:OUTPUT; --poller runs only these
POLLER_RUNS=
for n in $KEY_COUNTS; do POLLER_RUNS="$POLLER_RUNS $n:text"; done
for n in 1000 10000; do POLLER_RUNS="$POLLER_RUNS $n:summary $n:json"; done
for n in 1 100 1000; do POLLER_RUNS="$POLLER_RUNS $n:stacks"; done
# three metrics (values 3 x as big: fewer slots, keys in the key map too),
# for the memory model's key map element (summarize.py)
POLLER_RUNS="$POLLER_RUNS 1000:mem3 10000:mem3"
POLLER_ONLY=
# --hotpath: the arms of the hot path's targets (summarize.py "Targets"), beside the floor and runqlat
HOT_ARMS="floor runqlat sh:runq:none sh:runq:comm sh:runq:tid sh:runq:cgroup sh:offcpu:none"
HOT_ARMS="$HOT_ARMS sh:offcpu+runq+blocked:none sh:runq:comm:auto:causes sh:runq:cgroup:auto:causes"
HOT_ARMS="$HOT_ARMS sh:runq:comm:auto:culprits+culprit-mode=time sh:runq:tid:auto:allmiss"
HOTPATH=

usage() {
	sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--quick)
		REPEATS=2 PIPE_PINNED_LOOPS=20000 PIPE_LOOPS=8000 MSG_LOOPS=10
		STATS_LOOPS=50000 POLL_INTERVALS=3 OUTDIR=bench/results/tmp ;;
	-r|--repeats)
		[ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]?$ ]] || usage
		REPEATS=$2 REPEATS_SET=1 OUTDIR=bench/results/tmp; shift ;;
	--poller)
		[ $# -ge 2 ] && [ -n "$2" ] || usage
		POLLER_RUNS=$2 POLLER_ONLY=1 PAIRS= OUTDIR=bench/results/tmp; shift
		for a in $POLLER_RUNS; do
			[[ $a =~ ^[1-9][0-9]{0,4}:(text|summary|json|stacks|mem3)$ ]] ||
				{ echo "run.sh: bad poller run '$a' (want KEYS:OUTPUT)" >&2; usage; }
		done ;;
	--arms)
		[ $# -ge 2 ] || usage
		ARMS=$2 PAIRS= OUTDIR=bench/results/tmp; shift
		for a in $ARMS; do
			[[ " $ALL_ARMS " == *" $a "* ]] || { echo "run.sh: unknown arm '$a'" >&2; usage; }
		done ;;
	--hotpath)
		HOTPATH=1 ARMS=$HOT_ARMS PAIRS= POLL_REPEATS=0 OUTDIR=bench/results/tmp
		[ -n "${REPEATS_SET:-}" ] || REPEATS=3
		for st in $STEPS; do ARMS="$ARMS step:$st"; done ;;
	-h|--help) usage ;;
	*) echo "run.sh: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done

if [ -n "$POLLER_ONLY" ]; then
	# the poller alone: every repeat measures it (-r N repeats, else BENCH_POLL_REPEATS)
	ARMS=
	[ -n "${REPEATS_SET:-}" ] && POLL_REPEATS=$REPEATS || REPEATS=$POLL_REPEATS
fi
die() { echo "run.sh: $*" >&2; exit 1; }
[[ $BEST_OF =~ ^[1-9]$ && $POLL_REPEATS =~ ^[0-9]+$ ]] ||
	{ echo "run.sh: BENCH_BEST_OF wants 1 to 9, BENCH_POLL_REPEATS a count" >&2; exit 2; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ "$(id -u)" -eq 0 ] || die "needs root (loads BPF programs, sets kernel.bpf_stats_enabled)"
for f in schedhist bench/floor bench/keys tests/helpers/churn; do
	[ -x "$OUTPUT/$f" ] || die "$OUTPUT/$f not built: run 'make bench' first"
done
command -v bpftool >/dev/null || die "bpftool not found: install the Debian package bpftool"
command -v python3 >/dev/null || die "python3 not found: install the Debian package python3"
[ -r /proc/sys/kernel/bpf_stats_enabled ] || die "kernel without kernel.bpf_stats_enabled"

apt_install() {
	log "installing the Debian package $1"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1" \
		>/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1" \
			>/dev/null 2>&1; } || die "cannot install the Debian package $1"
}
if [ -z "$POLLER_ONLY" ]; then
	[ -x "$RUNQLAT" ] || apt_install libbpf-tools
	[ -x "$RUNQLAT" ] || die "$RUNQLAT missing after installing libbpf-tools"
fi

# Debian's linux-perf ships /usr/bin/perf, older releases /usr/bin/perf_X.Y.
find_perf() {
	local p
	for p in $(command -v perf) $(ls -r /usr/bin/perf_[0-9]* 2>/dev/null); do
		"$p" bench sched pipe -l 1 >/dev/null 2>&1 && { echo "$p"; return 0; }
	done
	return 1
}
PERF=$(find_perf) || { apt_install linux-perf; PERF=$(find_perf); } ||
	die "no working perf: install the Debian package linux-perf"

TMP=$(mktemp -d /tmp/schedhist-bench.XXXXXX)
STATS_OLD=$(cat /proc/sys/kernel/bpf_stats_enabled)
ARM_PID= PAIR_PID= WL_PID= KEYS_PID= LOCK_PID=

# Stop one process we started: SIGINT/SIGTERM, then SIGKILL after 5 s.
stop_pid() {
	local pid=$1 sig=$2 i
	[ -n "$pid" ] || return 0
	kill -"$sig" "$pid" 2>/dev/null
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null	# no "Killed" job notice
	return 0
}

cleanup() {
	local rc=$?
	# a second Ctrl-C or SIGTERM must not cut the cleanup short
	trap '' INT TERM
	trap - EXIT
	exec 2>/dev/null
	# workloads run in their own process group (setsid): end the group
	[ -n "$WL_PID" ] && kill -KILL -- -"$WL_PID"
	stop_pid "$ARM_PID" INT
	stop_pid "$PAIR_PID" INT
	stop_pid "$KEYS_PID" INT
	stop_pid "$LOCK_PID" TERM
	wait
	echo "$STATS_OLD" >/proc/sys/kernel/bpf_stats_enabled
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# private copies: a rebuild of $OUTPUT during the run must not change the arms
cp "$OUTPUT/schedhist" "$OUTPUT/bench/floor" "$OUTPUT/bench/keys" "$OUTPUT/tests/helpers/churn" \
	"$TMP/" || die "cannot copy the binaries to $TMP"
SCHEDHIST=$TMP/schedhist FLOOR=$TMP/floor KEYS=$TMP/keys CHURN=$TMP/churn
# the sizes the map-memory formula needs, from the header the build used
printf '#include <stdio.h>\n#include "schedhist.h"\nint main(void) { printf("%%zu %%zu\\n", sizeof(struct sh_hist), sizeof(struct sh_pcpu)); return 0; }\n' |
	${CC:-cc} -Iinclude -x c - -o "$TMP/sizes" || die "cannot compile the size probe (is gcc installed?)"
read -r HIST_BYTES PCPU_BYTES < <("$TMP/sizes")

set_stats() { echo "$1" >/proc/sys/kernel/bpf_stats_enabled || die "cannot set kernel.bpf_stats_enabled"; }
set_stats 0

# Run a workload in its own process group, bounded in time; its stdout to $TMP/wl.out.
workload() {
	setsid timeout 300 "$@" >"$TMP/wl.out" 2>&1 &
	WL_PID=$!
	wait "$WL_PID"
	local rc=$?
	WL_PID=
	return $rc
}

# The "Total time: S [sec]" line of perf bench.
total_time() {
	awk '/Total time:/ { print $3; found = 1 } END { exit !found }' "$TMP/wl.out"
}

# The named workload, BEST_OF times; the shortest run's seconds in T (no
# subshell: a signal meanwhile must find WL_PID set in this shell).
time_workload() {
	local i t
	T=
	for i in $(seq 1 "$BEST_OF"); do
		case $1 in
		pipe_pinned) workload taskset -c 0 "$PERF" bench sched pipe -l "$PIPE_PINNED_LOOPS" ;;
		pipe) workload "$PERF" bench sched pipe -l "$PIPE_LOOPS" ;;
		messaging) workload "$PERF" bench sched messaging -g "$MSG_GROUPS" -l "$MSG_LOOPS" ;;
		esac || die "perf bench ($1) failed: $(tail -3 "$TMP/wl.out")"
		t=$(total_time) || die "no 'Total time' in perf bench ($1) output"
		if [ -z "$T" ] || awk -v a="$t" -v b="$T" 'BEGIN { exit !(a < b) }'; then
			T=$t
		fi
	done
}

# "prog_id tp_name" for each program process $1 has attached (its link fds).
arm_links() {
	awk '/^prog_id:/ { id = $2 } /^tp_name:/ { print id, $2 }' /proc/"$1"/fdinfo/* 2>/dev/null |
		sort -u
}

# "id run_time_ns run_cnt" of the given program ids, from bpftool.
prog_stats() {
	bpftool prog show --json | python3 -c '
import json, sys
want = set(int(a) for a in sys.argv[1:])
for p in json.load(sys.stdin):
    if p["id"] in want:
        print(p["id"], p.get("run_time_ns", 0), p.get("run_cnt", 0))
' "$@"
}

# Start arm $1 (more schedhist options after it) and wait until all its
# programs are attached; sets ARM_PID.
start_arm() {
	local arm=$1 want ready i m k meth flag
	ARM_PID=
	case $arm in
	none) return 0 ;;
	floor|clock)
		"$FLOOR" $([ "$arm" = clock ] && echo -c) 2>"$TMP/arm.err" &
		want=2 ready='^Attached' ;;
	step:*)
		"$FLOOR" -s "${arm#step:}" 2>"$TMP/arm.err" &
		want=1 ready='^Attached' ;;
	sh:*)
		IFS=: read -r _ m k meth flag <<<"$arm"
		m=${m//+/,}	# "+" in arm names: the CSV is comma-separated
		shift
		# allmiss: not an option, a cache of one entry per CPU
		local entries=16
		[ "$flag" = allmiss ] && entries=1 flag=
		# FLAG+FLAG: one --FLAG each (word splitting makes them two words)
		# shellcheck disable=SC2068,SC2086
		SCHEDHIST_CACHE_ENTRIES=$entries "$SCHEDHIST" -M "$m" -k "$k" --method "${meth:-auto}" \
			${flag:+--${flag//+/ --}} $@ >/dev/null 2>"$TMP/arm.err" &
		# "Tracing" comes once every program is attached
		ready='^Tracing' want=1 ;;
	profile|profile:*)
		# profile[:STACKS][:exact]: --profile-stacks STACKS (kernel, user or
		# none), --profile-sample exact (every wait walked)
		local pargs=() part
		IFS=: read -ra part <<<"${arm#profile}"
		for k in "${part[@]}"; do
			case $k in
			"") ;;
			exact) pargs+=(--profile-sample exact) ;;
			*) pargs+=(--profile-stacks "$k") ;;
			esac
		done
		"$SCHEDHIST" --profile -M offcpu "${pargs[@]}" >/dev/null 2>"$TMP/arm.err" &
		ready='^Tracing' want=1 ;;
	offcputime)
		# silent until it ends: its one sched_switch link is the sign
		"$OFFCPUTIME" 100000 >/dev/null 2>"$TMP/arm.err" &
		want=1 ready= ;;
	runqlat)
		# its "Tracing" line is block-buffered: count its attached links
		"$RUNQLAT" 1000 >/dev/null 2>"$TMP/arm.err" &
		want=3 ready= ;;
	esac
	ARM_PID=$!
	for i in $(seq 1 200); do
		kill -0 "$ARM_PID" 2>/dev/null ||
			die "arm $arm exited at start: $(head -5 "$TMP/arm.err")"
		if [ "$(arm_links "$ARM_PID" | wc -l)" -ge "$want" ] &&
		   { [ -z "$ready" ] || grep -q "$ready" "$TMP/arm.err"; }; then
			return 0
		fi
		sleep 0.05
	done
	die "arm $arm did not attach within 10 s"
}

# Stop the arm and check that none of its programs is left in the kernel.
stop_arm() {
	local ids=$1 id i left
	[ -n "$ARM_PID" ] || return 0
	stop_pid "$ARM_PID" INT
	ARM_PID=
	for i in $(seq 1 40); do
		left=
		for id in $ids; do
			bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"
		done
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	die "program(s)$left still loaded after the arm ended"
}

CSV_ROWS=$TMP/rows.csv
: >"$CSV_ROWS"
row() { echo "$1,$2,$3,$4,$5" >>"$CSV_ROWS"; }	# repeat,order,arm,measure,value

# Share of the 2 s just gone that the CPUs spent busy, in percent.
cpu_busy() {
	local a b
	a=$(awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $5+$6 }' /proc/stat)
	sleep 2
	b=$(awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $5+$6 }' /proc/stat)
	echo "$a $b" | awk '{ busy = $3 - $1; idle = $4 - $2; printf "%.1f\n", 100 * busy / (busy + idle) }'
}

measure_arm() {
	local r=$1 order=$2 arm=$3 w links ids= rss before after
	start_arm "$arm"
	sleep 0.3
	# the steps are a model of the hot path: their ns per event only (all arms with --hotpath)
	[[ $arm == step:* || -n $HOTPATH ]] || for w in pipe_pinned pipe messaging; do
		time_workload "$w"
		row "$r" "$order" "$arm" "t_$w" "$T"
	done
	if [ -n "$ARM_PID" ]; then
		links=$(arm_links "$ARM_PID")
		ids=$(echo "$links" | awk '{ print $1 }')
		# shellcheck disable=SC2086
		before=$(prog_stats $ids)
		set_stats 1
		workload taskset -c 0 "$PERF" bench sched pipe -l "$STATS_LOOPS" ||
			die "perf bench (stats) failed"
		set_stats 0
		# shellcheck disable=SC2086
		after=$(prog_stats $ids)
		join <(echo "$links") <(join <(echo "$before" | sort) <(echo "$after" | sort)) |
		while read -r _ tp rt0 cnt0 rt1 cnt1; do
			row "$r" "$order" "$arm" "cnt_$tp" "$((cnt1 - cnt0))"
			[ "$cnt1" -gt "$cnt0" ] &&
				row "$r" "$order" "$arm" "ns_$tp" \
				    "$(awk -v t=$((rt1 - rt0)) -v c=$((cnt1 - cnt0)) 'BEGIN { printf "%.1f", t / c }')"
		done
		rss=$(awk '/^VmHWM:/ { print $2 }' /proc/"$ARM_PID"/status)
		row "$r" "$order" "$arm" rss_kb "$rss"
	fi
	stop_arm "$ids"
}

# Per switch of the programs $1 ("id tp" lines) between stats $2 and $3.
per_switch() {
	join <(echo "$1") <(join <(echo "$2" | sort) <(echo "$3" | sort)) | awk '
		{ rt += $5 - $3; if ($2 == "sched_switch") sw += $6 - $4 }
		END { if (sw) printf "%.1f\n", rt / sw }'
}

# Pair $2 ("A,B") in repeat $1: both attached, one pinned pipe run with stats.
measure_pair() {
	local r=$1 a=${2%,*} b=${2#*,} first second pa pb la lb ids before after
	if [ $((r % 2)) -eq 1 ]; then first=$a second=$b; else first=$b second=$a; fi
	start_arm "$first"
	pa=$ARM_PID PAIR_PID=$ARM_PID
	mv "$TMP/arm.err" "$TMP/arm1.err"
	start_arm "$second"
	pb=$ARM_PID
	[ "$first" = "$a" ] || { local t=$pa; pa=$pb; pb=$t; }
	sleep 0.3
	la=$(arm_links "$pa") lb=$(arm_links "$pb")
	ids=$(printf '%s\n%s\n' "$la" "$lb" | awk '{ print $1 }')
	# shellcheck disable=SC2086
	before=$(prog_stats $ids)
	set_stats 1
	workload taskset -c 0 "$PERF" bench sched pipe -l "$STATS_LOOPS" || die "perf bench (pair) failed"
	set_stats 0
	# shellcheck disable=SC2086
	after=$(prog_stats $ids)
	row "$r" 0 "pair:$a|$b" a_per_switch "$(per_switch "$la" "$before" "$after")"
	row "$r" 0 "pair:$a|$b" b_per_switch "$(per_switch "$lb" "$before" "$after")"
	ARM_PID=$pb
	stop_arm "$(echo "$lb" | awk '{ print $1 }')"
	ARM_PID=$pa
	stop_arm "$(echo "$la" | awk '{ print $1 }')"
	PAIR_PID=
}

# The cost of reclaiming exited tasks' keys: -k tid under the churn helper.
measure_exit() {
	local r=$1 mode=$2 links ids before after
	case $mode in
	mark) start_arm sh:runq:tid ;;
	fold) start_arm sh:runq:tid --max-keys 64 ;;
	esac
	links=$(arm_links "$ARM_PID")
	ids=$(echo "$links" | awk '{ print $1 }')
	# shellcheck disable=SC2086
	before=$(prog_stats $ids)
	set_stats 1
	workload "$CHURN" -t "$EXIT_SECONDS" -m both -c 16 || die "churn helper failed"
	set_stats 0
	# shellcheck disable=SC2086
	after=$(prog_stats $ids)
	join <(echo "$links") <(join <(echo "$before" | sort) <(echo "$after" | sort)) |
	while read -r _ tp rt0 cnt0 rt1 cnt1; do
		row "$r" 0 "exit:$mode" "cnt_$tp" "$((cnt1 - cnt0))"
		[ "$cnt1" -gt "$cnt0" ] &&
			row "$r" 0 "exit:$mode" "ns_$tp" \
			    "$(awk -v t=$((rt1 - rt0)) -v c=$((cnt1 - cnt0)) 'BEGIN { printf "%.1f", t / c }')"
	done
	row "$r" 0 "exit:$mode" tasks_per_s "$(( ($(tail -1 "$TMP/wl.out" | awk '{ print $2 + $4 }')) / EXIT_SECONDS ))"
	stop_arm "$ids"
}

# The key store's cache: hits and misses of -M runq -k tid
# (default cache) over each of the pipe, messaging and churn workloads,
# from the final report's kernel_memory object.
measure_cache() {
	local r=$1 w i hits misses
	for w in pipe messaging churn; do
		"$SCHEDHIST" -M runq -k tid -j >"$TMP/cache.out" 2>"$TMP/arm.err" &
		ARM_PID=$!
		for i in $(seq 1 200); do
			grep -q '^Tracing' "$TMP/arm.err" && break
			kill -0 "$ARM_PID" 2>/dev/null || die "schedhist (cache) exited: $(cat "$TMP/arm.err")"
			sleep 0.05
		done
		case $w in
		pipe) workload "$PERF" bench sched pipe -l "$PIPE_LOOPS" ;;
		messaging) workload "$PERF" bench sched messaging -g "$MSG_GROUPS" -l "$MSG_LOOPS" ;;
		churn) workload "$CHURN" -t "$EXIT_SECONDS" -m both -c 16 ;;
		esac || die "workload $w (cache) failed"
		stop_arm "$(arm_links "$ARM_PID" | awk '{ print $1 }')"
		read -r hits misses < <(tail -1 "$TMP/cache.out" | python3 -c \
			'import json,sys; k=json.load(sys.stdin)["kernel_memory"]; print(k["cache_hits"], k["cache_misses"])')
		row "$r" 0 "cache:$w" cache_hits "$hits"
		row "$r" 0 "cache:$w" cache_misses "$misses"
	done
}

# CPU time of process $1 in ns (all its threads), and in clock ticks.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/"$1"/stat; }

# Poller cost with N live keys (-k tid over bench/keys' N threads), output
# MODE: text (histograms), summary (--summary), json (-j) or stacks
# (--stacks: text with each key's max stack).
measure_poller() {
	local r=$1 n=$2 mode=$3 arm="poller:$2" i ns0 ns1 tk0 tk1 maps m bytes name ids out
	local metric=offcpu
	[ "$mode" = text ] || arm="poller:$n:$mode"
	case $mode in
	text) out= ;; summary) out=--summary ;; json) out=-j ;; stacks) out=--stacks ;;
	mem3) out=--summary metric=offcpu,runq,blocked ;;
	esac
	"$KEYS" -n "$n" -p "$KEY_PERIOD_MS" -t $((POLL_INTERVALS + 60)) >"$TMP/keys.out" 2>&1 &
	KEYS_PID=$!
	for i in $(seq 1 200); do
		grep -q '^ready' "$TMP/keys.out" && break
		kill -0 "$KEYS_PID" 2>/dev/null || die "bench/keys -n $n failed: $(cat "$TMP/keys.out")"
		sleep 0.05
	done
	grep -q '^ready' "$TMP/keys.out" || die "bench/keys -n $n did not start within 10 s"
	# the default --max-keys (10240) holds the 10000 threads of -p KEYS
	# shellcheck disable=SC2086
	"$SCHEDHIST" -M "$metric" -k tid -p "$KEYS_PID" -i 1 $out >/dev/null 2>"$TMP/arm.err" &
	ARM_PID=$!
	for i in $(seq 1 200); do
		grep -q '^Tracing' "$TMP/arm.err" && break
		kill -0 "$ARM_PID" 2>/dev/null || die "schedhist (poller, $n keys) exited: $(cat "$TMP/arm.err")"
		sleep 0.05
	done
	grep -q '^Tracing' "$TMP/arm.err" || die "schedhist (poller, $n keys) did not attach"
	# warm-up: every key created, first reports (and their allocations) done
	sleep 2.5
	ns0=$(cpu_ns "$ARM_PID") tk0=$(cpu_ticks "$ARM_PID")
	sleep "$POLL_INTERVALS"
	ns1=$(cpu_ns "$ARM_PID") tk1=$(cpu_ticks "$ARM_PID")
	row "$r" 0 "$arm" cpu_ms_per_interval \
	    "$(awk -v d=$((ns1 - ns0)) -v k="$POLL_INTERVALS" 'BEGIN { printf "%.3f", d / k / 1e6 }')"
	row "$r" 0 "$arm" cpu_ticks_ms_per_interval \
	    "$(awk -v d=$((tk1 - tk0)) -v k="$POLL_INTERVALS" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.1f", d * 1000 / hz / k }')"
	row "$r" 0 "$arm" rss_kb "$(awk '/^VmHWM:/ { print $2 }' /proc/"$ARM_PID"/status)"
	row "$r" 0 "$arm" rss_now_kb "$(awk '/^VmRSS:/ { print $2 }' /proc/"$ARM_PID"/status)"
	# of it, the BPF maps the poller maps (kernel memory, counted in bytes_memlock)
	row "$r" 0 "$arm" rss_maps_kb "$(awk '/^[0-9a-f]+-[0-9a-f]+ / { m = /anon_inode:bpf-map/ }
		m && /^Rss:/ { s += $2 } END { print s + 0 }' /proc/"$ARM_PID"/smaps)"
	maps=$(awk '/^map_id:/ { print $2 }' /proc/"$ARM_PID"/fdinfo/* 2>/dev/null | sort -u)
	for m in $maps; do
		read -r name bytes < <(bpftool map show id "$m" --json |
			python3 -c 'import json,sys; m=json.load(sys.stdin); print(m.get("name","?"), m.get("bytes_memlock",0))')
		row "$r" 0 "$arm" "memlock_$name" "$bytes"
	done
	ids=$(arm_links "$ARM_PID" | awk '{ print $1 }')
	stop_arm "$ids"
	stop_pid "$KEYS_PID" INT	# INT: no "Killed" notice from bash
	KEYS_PID=
}

# --- measure, holding the CPU lock -----------------------------------------
exec 9>"$LOCK"
if ! flock -n 9; then
	log "waiting for $LOCK (integration tests or another bench run hold it)"
	# in the background, so that a signal meanwhile is handled at once; the
	# lock belongs to the open file, which this shell shares
	flock -w 1800 9 &
	LOCK_PID=$!
	wait "$LOCK_PID" || die "could not take $LOCK within 30 minutes"
	LOCK_PID=
fi

narms=$(echo "$ARMS" | wc -w)
log "$REPEATS repeat(s) x $narms arm(s), plus $(echo "$POLLER_RUNS" | wc -w) poller run(s)"
busy=$(cpu_busy)
for i in $(seq 1 30); do
	awk -v b="$busy" 'BEGIN { exit !(b > 10) }' || break
	[ "$i" -eq 1 ] && log "CPUs ${busy}% busy with other work: waiting up to 60 s for it to calm down"
	busy=$(cpu_busy)
done
START=$(date -u '+%Y-%m-%d %H:%M UTC')
STAMP=$(date -u +%Y-%m-%d-%H%M)
t_start=$(date +%s)
for r in $(seq 1 "$REPEATS"); do
	row "$r" 0 host cpu_busy_pct "$(cpu_busy)"
	order=0
	for arm in $(shuf -e $ARMS); do
		order=$((order + 1))
		log "repeat $r/$REPEATS, arm $order/$narms: $arm"
		measure_arm "$r" "$order" "$arm"
	done
	for pair in $PAIRS; do
		log "repeat $r/$REPEATS, pair $pair"
		measure_pair "$r" "$pair"
	done
	for mode in mark fold; do
		[ -n "$POLLER_ONLY$HOTPATH" ] && break
		log "repeat $r/$REPEATS, exit cost ($mode)"
		measure_exit "$r" "$mode"
	done
	if [ -z "$POLLER_ONLY$HOTPATH" ]; then
		log "repeat $r/$REPEATS, the key store's cache hit rate"
		measure_cache "$r"
	fi
	[ "$r" -le "$POLL_REPEATS" ] || continue
	for run in $POLLER_RUNS; do
		log "repeat $r/$REPEATS, poller with ${run%%:*} key(s), ${run#*:}"
		measure_poller "$r" "${run%%:*}" "${run#*:}"
	done
done
elapsed=$(( $(date +%s) - t_start ))
flock -u 9

# --- report ----------------------------------------------------------------
mkdir -p "$OUTDIR"
CSV=$OUTDIR/$STAMP.csv
MD=$OUTDIR/$STAMP.md
{ echo "repeat,order,arm,measure,value"; cat "$CSV_ROWS"; } >"$CSV"
cpus=$(nproc)
# what per-CPU maps are sized by: /sys/devices/system/cpu/possible, e.g. 0-63
possible_cpus() {
	tr ',' '\n' </sys/devices/system/cpu/possible |
		awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }'
}
python3 bench/summarize.py "$CSV" \
	--date "$START" --kernel "$(uname -r)" --cpus "$cpus" \
	--possible-cpus "$(possible_cpus)" \
	--cpu-model "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
	--clocksource "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" \
	--commit "$(git describe --always --dirty 2>/dev/null || echo unknown)" \
	--runqlat "libbpf-tools $(dpkg-query -W -f='${Version}' libbpf-tools 2>/dev/null)" \
	--perf "$("$PERF" version 2>/dev/null)" \
	--workloads "best of $BEST_OF runs each of pipe pinned: taskset -c 0 perf bench sched pipe -l $PIPE_PINNED_LOOPS; pipe: perf bench sched pipe -l $PIPE_LOOPS; messaging: perf bench sched messaging -g $MSG_GROUPS -l $MSG_LOOPS; ns/event: taskset -c 0 perf bench sched pipe -l $STATS_LOOPS with kernel.bpf_stats_enabled=1; poller: bench/keys -p $KEY_PERIOD_MS, schedhist -M offcpu -k tid -p KEYS -i 1, CPU over $POLL_INTERVALS intervals" \
	--hist-bytes "$HIST_BYTES" --pcpu-bytes "$PCPU_BYTES" \
	--elapsed "$elapsed" >"$MD" || die "summarize.py failed"
# every map's kernel memory from its definition (bench/kmem, user/model/kmem.c)
# for 2, 64 and 384 possible CPUs at the bench's key counts, beside what
# bpftool map show said here in the poller runs (default --max-keys, so
# also the definition at that capacity on this host's CPUs)
kmem_section() {
	local arm metrics keys
	echo
	echo "## Kernel memory of every map, from its definition (bench/kmem) and from bpftool"
	for arm in poller:1000:summary:1:1000 poller:1000:mem3:3:1000 poller:10000:summary:1:10000; do
		metrics=$(echo "$arm" | cut -d: -f4) keys=$(echo "$arm" | cut -d: -f5)
		"$OUTPUT/bench/kmem" -M "$metrics" -n 10240 "$(possible_cpus)" >"$TMP/kmem.here"
		"$OUTPUT/bench/kmem" -M "$metrics" -n "$keys" 2 64 384 >"$TMP/kmem.big"
		python3 - "$CSV" "$(echo "$arm" | cut -d: -f1-3)" "$TMP/kmem.here" "$TMP/kmem.big" \
			"$metrics" "$keys" <<'PY'
import csv, statistics, sys
rows, arm, here, big, metrics, keys = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
got = {}
for r in csv.DictReader(open(rows)):
    if r["arm"] == arm and r["measure"].startswith("memlock_"):
        got.setdefault(r["measure"][8:], []).append(float(r["value"]))
def table(path):
    t = {}
    for l in open(path):
        f = l.split()
        t.setdefault(f[1], {})[int(f[0])] = int(f[3] if f[1] != "total" else f[3])
    return t
h, b = table(here), table(big)
print(f"\n{metrics} metric(s), -k tid: {keys} keys at 2 / 64 / 384 possible CPUs; "
      f"bpftool beside the definition at --max-keys 10240 here ({arm})\n")
print("| map | bpftool here | definition here | 2 CPUs | 64 CPUs | 384 CPUs |")
print("|---|---:|---:|---:|---:|---:|")
tot = 0
for name in b:
    cpus_here = next(iter(h[name]))
    if name == "globals":
        bt = sum(statistics.median(v) for k, v in got.items() if k.endswith(("rodata", ".data", ".bss")))
    elif name == "total":
        bt = tot
    else:
        bt = statistics.median(got[name]) if name in got else 0
    tot += bt if name != "total" else 0
    print(f"| {name} | {bt:.0f} | {h[name][cpus_here]} | {b[name][2]} | {b[name][64]} | {b[name][384]} |")
PY
	done
}
[ -n "$HOTPATH" ] || kmem_section >>"$MD" || die "kernel memory section failed"
# the key store's cache: hit rate per workload, over the repeats
cache_section() {
	echo
	echo "## The key store's cache: hits of -M runq -k tid (16 entries per CPU)"
	echo
	python3 - "$CSV" <<'PY'
import csv, sys
t = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["arm"].startswith("cache:"):
        t.setdefault(r["arm"][6:], {}).setdefault(r["measure"], []).append(float(r["value"]))
print("| workload | hits | misses | hit rate |")
print("|---|---:|---:|---:|")
for w, m in t.items():
    h, x = sum(m.get("cache_hits", [])), sum(m.get("cache_misses", []))
    print(f"| {w} | {h:.0f} | {x:.0f} | {100 * h / (h + x) if h + x else 0:.1f} % |")
PY
}
[ -n "$HOTPATH" ] || cache_section >>"$MD" || die "cache section failed"
log "wrote $CSV and $MD (${elapsed} s of measuring)"
cat "$MD"
