#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# make vmtest: the tests on Debian's kernels in QEMU guests (tests/vm/boot.sh)
# and on the host's own kernel, natively; the result, with the kernels, the
# accelerator, every test's PASS/FAIL and the memory tables, in
# bench/results/vmtest-YYYY-MM-DD-HHMM.md (RESULT=FILE to write elsewhere).
#   tests/vm/vmtest.sh [RUN...]     default: every run below
# Runs (name: kernel, vCPUs / possible CPUs, what):
#   6.1, 6.12, rt, host   the per-kernel set: the load matrix (feature_matrix,
#                         load_schemas), kernel_features, the identity
#                         (metrics_one_run), -k tid against schedstat and
#                         -k cgroup on cgroups made there (storm_cpus on 2
#                         CPUs), the exporter's scrape (prom_scrape)
#   mem64, mem384         6.1 booted with possible_cpus=64 / 384: kmem_cpus
#   mem612                6.12 (the kernel's own map accounting) on 2 CPUs: kmem_cpus
#   storm8, storm16       6.1 on 8 / 16 vCPUs, storm8-612 6.12 on 8: storm_cpus
# Each boot has a wall limit (VM_TIMEOUT); every run is kept under
# $OUTPUT/vm/runs/STAMP/NAME (job.log, console.log, kmem-*.txt).
set -u
cd "$(dirname "$0")/../.."
export OUTPUT=$(realpath "${OUTPUT:-.output}")
stamp=$(date -u +%Y-%m-%d-%H%M)
runs=$OUTPUT/vm/runs/$stamp
result=${RESULT:-bench/results/vmtest-$stamp.md}
mkdir -p "$runs"
SET_INT="feature_matrix metrics_one_run prom_scrape"
SET_VM="load_schemas kernel_features storm_cpus"
all="6.1 6.12 rt host mem64 mem384 mem612 storm8 storm8-612 storm16"
[ $# -gt 0 ] && all="$*"
lock=/tmp/schedhist-cpu.lock	# as tests/run-integration.sh: one load at a time

# vm NAME KERNEL JOB ARGS...: one boot (VM_* settings from the environment)
vm() {
	local name=$1 kernel=$2 start rc
	shift 2
	start=$(date +%s)
	flock "$lock" tests/vm/boot.sh "$kernel" "$runs/$name" "$@" >"$runs/$name.boot" 2>&1
	rc=$?
	echo "$(($(date +%s) - start))" >"$runs/$name/wall"
	echo "$rc" >"$runs/$name/status"
	echo "vmtest: $name ($kernel${VM_SMP:+, -smp $VM_SMP}${VM_POSSIBLE:+, possible_cpus=$VM_POSSIBLE}):" \
		"exit $rc in $(cat "$runs/$name/wall") s"
	grep -hE '^(PASS|FAIL|SKIP) ' "$runs/$name/job.log" 2>/dev/null | sed 's/^/    /'
	[ $rc -eq 0 ] || sed 's/^/    /' "$runs/$name.boot" | tail -45
}

tests_job=tests/vm/jobs/tests.sh
for r in $all; do
	case $r in
	6.1 | 6.12 | rt) vm "$r" "$r" $tests_job "$SET_INT" "$SET_VM" ;;
	host)
		# the host's kernel is this machine's: no package to boot, run natively
		mkdir -p "$runs/host"
		start=$(date +%s)
		{
			echo "guest: none, the host itself: $(uname -r), $(nproc) CPUs"
			ONLY=$SET_INT tests/run-integration.sh
			rc1=$?
			TESTDIR=tests/vm/checks ONLY=$SET_VM tests/run-integration.sh
			rc2=$?
		} >"$runs/host/job.log" 2>&1
		[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && echo 0 >"$runs/host/status" || echo 1 >"$runs/host/status"
		echo native >"$runs/host/accel"
		echo "$(uname -r) (the host's own, run natively)" >"$runs/host/kernel"
		echo "$(($(date +%s) - start))" >"$runs/host/wall"
		echo "vmtest: host: exit $(cat "$runs/host/status")"
		grep -hE '^(PASS|FAIL|SKIP) ' "$runs/host/job.log" | sed 's/^/    /'
		;;
	mem64) VM_POSSIBLE=64 vm mem64 6.1 $tests_job "" kmem_cpus ;;
	mem384) VM_POSSIBLE=384 vm mem384 6.1 $tests_job "" kmem_cpus ;;
	mem612) vm mem612 6.12 $tests_job "" kmem_cpus ;;
	storm8) VM_SMP=8 vm storm8 6.1 $tests_job "" storm_cpus ;;
	storm8-612) VM_SMP=8 vm storm8-612 6.12 $tests_job "" storm_cpus ;;
	storm16) VM_SMP=16 VM_MEM=3072 vm storm16 6.1 $tests_job "" storm_cpus ;;
	*) echo "vmtest: unknown run '$r' (runs: $all)" >&2; exit 2 ;;
	esac
done
python3 tests/vm/report.py "$runs" "$result" $all
