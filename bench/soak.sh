#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The soak: schedhist in fleet mode for MINUTES (default 60) while tasks
# and cgroups churn, to show that nothing grows. Not part of `make test`.
#
#   make && make helpers && bench/soak.sh [MINUTES]      (as root)
#
# schedhist runs as the fleet runs it (-M offcpu,runq,blocked -k cgroup
# --culprits --stacks --listen, dropping to user nobody), with --heatmap,
# reading every second, printing JSON reports to a file for the
# accounting identity. Meanwhile:
#   - tests/helpers/churn makes short-lived threads and processes
#     (thousands per second, at nice 19: the host is shared);
#   - tests/helpers/cgchurn makes a cgroup every 100 ms on cgroup2 (the
#     mount read from /proc/self/mountinfo) and the v1 cpu hierarchy
#     where there is one, puts a task in it that sleeps 1 ms five times,
#     then removes it: a new -k cgroup key, new culprit pairs and a new
#     stack per cgroup;
#   - curl scrapes /metrics and /live.json every second (the answers to
#     files), and the live page / every minute, timing each;
#   - every SOAK_SAMPLE_S seconds (default 60) a sample: the poller's RSS
#     and open fds, each BPF map's kernel memory (bpftool's memlock) and,
#     for the hashes, its entries (tests/helpers/mapcount), the poller's
#     own gauges (schedhist_keys), the lost and overflow counters, the
#     scrape times of the minute, the host's load.
# At the end schedhist is stopped (its last report is read after the
# programs are detached) and bench/soak-report.py fits each figure after
# the first SOAK_WARMUP_MIN minutes (default 5), checks the scrapes and
# the identity, and writes bench/results/soak-YYYY-MM-DD-HHMM.md with the
# samples as .csv next to it. Exit 0 when it passes, 1 when it fails.
# Ctrl-C (or SIGTERM) ends schedhist and the workload and removes the
# cgroups; the report is written for what was sampled.
set -u
cd "$(dirname "$0")/.."

MINUTES=${1:-60}
SAMPLE_S=${SOAK_SAMPLE_S:-60}
WARMUP_MIN=${SOAK_WARMUP_MIN:-5}
PORT=${SOAK_PORT:-19474}
OUTPUT=${OUTPUT:-.output}
SCHEDHIST=${SCHEDHIST:-$OUTPUT/schedhist}
HELPERS=$OUTPUT/tests/helpers
RESULTS=${SOAK_RESULTS:-bench/results}

usage() { echo "usage: bench/soak.sh [MINUTES]   (root; env SOAK_SAMPLE_S, SOAK_WARMUP_MIN, SOAK_PORT)" >&2; exit 2; }
[[ $MINUTES =~ ^[0-9]+$ ]] && [ "$MINUTES" -ge 1 ] || usage
[[ $SAMPLE_S =~ ^[0-9]+$ ]] && [ "$SAMPLE_S" -ge 1 ] || usage
[ "$(id -u)" -eq 0 ] || { echo "bench/soak.sh: needs root (BPF, cgroups)" >&2; exit 2; }
for b in "$SCHEDHIST" "$HELPERS/churn" "$HELPERS/cgchurn" "$HELPERS/mapcount"; do
	[ -x "$b" ] || { echo "bench/soak.sh: $b missing: run make && make helpers" >&2; exit 2; }
done
for c in bpftool curl python3; do
	command -v "$c" >/dev/null || { echo "bench/soak.sh: $c not found" >&2; exit 2; }
done

STAMP=$(date -u +%Y-%m-%d-%H%M)
COMMIT=${SOAK_COMMIT:-$(git describe --always --dirty 2>/dev/null || echo unknown)}
RUN=$(mktemp -d /tmp/schedhist-soak.XXXXXX)
# schedhist drops to nobody: its heatmap goes to a directory nobody may write
chown nobody "$RUN"
declare -a PIDS=()
SH=
CGCHURN=
V2=
V1=

# mount point of the cgroup2 hierarchy, or (with CTRL) of the v1 one carrying CTRL
cgroup_mount() {
	awk -v ctrl="${1:-}" '{
		for (i = 7; $i != "-"; i++) ; fstype = $(i + 1); opts = "," $(i + 3) ","
		if (ctrl == "" && fstype == "cgroup2") { print $5; exit }
		if (ctrl != "" && fstype == "cgroup" && index(opts, "," ctrl ",")) { print $5; exit }
	}' /proc/self/mountinfo
}

# Kill the tasks of DIR's child cgroups and remove them, then DIR.
remove_cgroups() {
	local d p
	[ -n "$1" ] && [ -d "$1" ] || return 0
	for d in "$1"/*/; do
		[ -d "$d" ] || continue
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		rmdir "$d" 2>/dev/null || { sleep 0.2; rmdir "$d"; }
	done
	rmdir "$1"
}

STOPPED=
stop_all() {
	local p
	[ -n "$STOPPED" ] && return
	STOPPED=1
	# the churners first (cgchurn removes its cgroups on SIGTERM), then schedhist
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	[ -n "$CGCHURN" ] && wait "$CGCHURN" 2>/dev/null
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	if [ -n "$SH" ] && kill -0 "$SH" 2>/dev/null; then
		kill -INT "$SH"
		wait "$SH"
		echo "schedhist exit status $?" >>"$RUN/status"
	fi
	remove_cgroups "$V2"
	remove_cgroups "$V1"
}
interrupted() {
	echo "bench/soak.sh: interrupted: stopping, then reporting what was sampled" >&2
	INTERRUPTED=1
}
INTERRUPTED=
trap interrupted INT TERM
# SOAK_KEEP=1 keeps the run's directory (the raw scrapes, reports and map dumps)
trap 'stop_all; [ -n "${SOAK_KEEP:-}" ] && echo "soak: kept $RUN" >&2 || rm -rf "$RUN"' EXIT

V2MNT=$(cgroup_mount)
V1MNT=$(cgroup_mount cpu)
[ -n "$V2MNT" ] || { echo "bench/soak.sh: no cgroup2 hierarchy mounted" >&2; exit 2; }
V2=$V2MNT/schedhist-soak-$$
mkdir "$V2" || exit 1
if [ -n "$V1MNT" ]; then
	V1=$V1MNT/schedhist-soak-$$
	mkdir "$V1" || exit 1
fi

"$SCHEDHIST" -M offcpu,runq,blocked -k cgroup --culprits --stacks \
	--listen "127.0.0.1:$PORT" --heatmap "$RUN/heatmap.svg" -i 1 --print -j \
	>"$RUN/reports.jsonl" 2>"$RUN/schedhist.err" &
SH=$!
for i in $(seq 1 1200); do
	grep -q '^Tracing' "$RUN/schedhist.err" 2>/dev/null && break
	kill -0 "$SH" 2>/dev/null || { cat "$RUN/schedhist.err"; exit 1; }
	sleep 0.05
done
PROGS=$(grep -h '^prog_id:' /proc/"$SH"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -un)
MAPS=$(grep -h '^map_id:' /proc/"$SH"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -un)
# the maps sampled, one per line: id, name, type, key and value bytes
for id in $MAPS; do
	bpftool map show id "$id" -j | python3 -c '
import json, sys; m = json.load(sys.stdin)
print(m["id"], m.get("name", "?"), m["type"], m["bytes_key"], m["bytes_value"])'
done >"$RUN/maps"

DURATION=$((MINUTES * 60))
nice -n 19 "$HELPERS/churn" -t "$DURATION" -m both >"$RUN/churn.out" 2>&1 &
PIDS+=($!)
"$HELPERS/cgchurn" -d "$V2" ${V1:+-D "$V1"} -p 100 -t "$DURATION" -v >"$RUN/cgchurn.out" 2>&1 &
CGCHURN=$!
PIDS+=($CGCHURN)

# The server's thread: libmicrohttpd's, the one neither the poller nor
# the reaper ("schedhist-reap").
HTTP_TID=
for t in /proc/"$SH"/task/*; do
	[ "${t##*/}" = "$SH" ] || [ "$(cat "$t/comm")" = schedhist-reap ] || HTTP_TID=${t##*/}
done
[ -n "$HTTP_TID" ] || { echo "bench/soak.sh: no HTTP server thread in schedhist" >&2; exit 1; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))

# One scrape of PATH into FILE, one line: time, path, HTTP status, bytes,
# seconds in all, to connect and to the first byte (curl's), then where
# the time went, in microseconds: the server thread's time on a CPU and
# waiting for one (its schedstat), and the time the hypervisor stole
# from the guest's CPUs (/proc/stat, in ticks). A slow scrape is then
# the server's (CPU), the host's load (run-queue wait), the hypervisor's
# (steal) or the client's (none of these). Builtins only around curl.
scrape() {
	local path=$1 file=$2 w r0 q0 r1 q1 st0 st1 _
	read -r r0 q0 _ <"/proc/$SH/task/$HTTP_TID/schedstat"
	read -r _ _ _ _ _ _ _ _ st0 _ </proc/stat
	w=$(curl -s -o "$file" -w '%{http_code} %{size_download} %{time_total} %{time_connect} %{time_starttransfer}' \
		--max-time 5 "http://127.0.0.1:$PORT$path")
	read -r r1 q1 _ <"/proc/$SH/task/$HTTP_TID/schedstat"
	read -r _ _ _ _ _ _ _ _ st1 _ </proc/stat
	echo "$EPOCHREALTIME $path $w $(((r1 - r0) / 1000)) $(((q1 - q0) / 1000)) $(((st1 - st0) * TICK_US))"
}

# Scrapes: every second /metrics and /live.json, every minute the page.
scraper() {
	local next=${EPOCHREALTIME/./} n=0 path d
	while :; do
		for path in /metrics /live.json; do
			scrape "$path" "$RUN/last${path//\//_}"
		done
		[ $((n % 60)) -eq 0 ] && scrape / "$RUN/last_page"
		# the copy the sampler reads is never half written
		cp "$RUN/last_metrics" "$RUN/metrics.tmp" 2>/dev/null && mv "$RUN/metrics.tmp" "$RUN/metrics.prom"
		n=$((n + 1))
		# (microseconds: the next whole second of the schedule, however long this one took)
		next=$((next + 1000000))
		d=$((next - ${EPOCHREALTIME/./}))
		[ "$d" -gt 0 ] && sleep "$(printf '%d.%06d' $((d / 1000000)) $((d % 1000000)))"
	done >>"$RUN/scrapes.log"
}
scraper &
PIDS+=($!)

# One sample line (CSV): see bench/soak-report.py for the columns.
sample() {
	local t=$1 id name type ml ent _
	# VmRSS, and of it the heap (RssAnon): the rest is the binary, the
	# libraries and the BPF arrays it maps (the slots: kernel memory)
	printf '%s,%s,%s,%s,%s' "$t" "$(awk '/^VmRSS/ {print $2}' /proc/"$SH"/status)" \
		"$(awk '/^RssAnon/ {print $2}' /proc/"$SH"/status)" \
		"$(ls /proc/"$SH"/fd | wc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
	while read -r id name type _; do
		ml=$(bpftool map show id "$id" -j | python3 -c 'import json, sys; print(json.load(sys.stdin).get("bytes_memlock", 0))')
		case $type in
		hash | percpu_hash) ent=$("$HELPERS/mapcount" "$id" | awk '{print $2}') ;;
		*) ent= ;;
		esac
		printf ',%s,%s' "$ml" "$ent"
	done <"$RUN/maps"
	printf ',%s,%s' "$(awk '$1 == "processes" {print $2}' /proc/stat)" \
		"$(awk '$1 == "nr_dying_descendants" {print $2}' "$V2/cgroup.stat")"
	echo
}
{
	printf 't_s,rss_kb,rss_anon_kb,fds,load1'
	while read -r id name type _; do printf ',%s_bytes,%s_entries' "$name" "$name"; done <"$RUN/maps"
	echo ',forks,dying_cgroups'
} >"$RUN/samples.csv"

T0=${EPOCHREALTIME%.*}
echo "soak: $MINUTES min, sampling every $SAMPLE_S s, in $RUN (schedhist pid $SH)" >&2
k=0
while [ -z "$INTERRUPTED" ]; do
	now=${EPOCHREALTIME%.*}
	[ $((now - T0)) -gt "$DURATION" ] && break
	sample $((now - T0)) >>"$RUN/samples.csv"
	# the gauges and counters of the latest scrape, with the sample's time
	{ echo "# t_s $((now - T0))"; grep -E '^schedhist_(keys|events_total|lost_events_total|overflow_events_total|kernel_memory)' \
		"$RUN/metrics.prom" 2>/dev/null; } >>"$RUN/gauges.log"
	k=$((k + 1))
	while [ -z "$INTERRUPTED" ] && [ $((${EPOCHREALTIME%.*} - T0)) -lt $((k * SAMPLE_S)) ]; do
		sleep 1
	done
done
# the last cgroups' keys are reclaimed at the next readings: a last sample after two
if [ -z "$INTERRUPTED" ]; then
	kill -TERM "$CGCHURN" 2>/dev/null
	wait "$CGCHURN"
	sleep 3
	now=${EPOCHREALTIME%.*}
	{ head -1 "$RUN/samples.csv"; sample $((now - T0)); } >"$RUN/final.csv"
fi
# what the hashes hold at the end: a key of one of the soak's cgroups
# (cgchurn -v names their ids), all removed now, is one nobody deletes
while read -r id name type _; do
	case $type in hash | percpu_hash) bpftool map dump id "$id" -j >"$RUN/dump.$name.json" 2>/dev/null ;; esac
done <"$RUN/maps"
LOAD="$(cat /proc/loadavg)"
stop_all

# the kernel frees programs and maps shortly after their last reference: up to 2 s
for i in $(seq 1 40); do
	LEFT=
	for id in $PROGS; do bpftool prog show id "$id" >/dev/null 2>&1 && LEFT="$LEFT prog:$id"; done
	for id in $MAPS; do bpftool map show id "$id" >/dev/null 2>&1 && LEFT="$LEFT map:$id"; done
	[ -z "$LEFT" ] && break
	sleep 0.05
done
[ -d "$V2" ] && LEFT="$LEFT $V2"
[ -n "$V1" ] && [ -d "$V1" ] && LEFT="$LEFT $V1"

mkdir -p "$RESULTS"
python3 bench/soak-report.py --run "$RUN" --minutes "$MINUTES" --warmup "$WARMUP_MIN" \
	--stamp "$STAMP" --out "$RESULTS/soak-$STAMP" --left "$LEFT" --load "$LOAD" \
	--interrupted "${INTERRUPTED:+yes}" --cmd "bench/soak.sh $MINUTES" --commit "$COMMIT"
