#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Boot one Debian kernel under QEMU and run one job in it.
#   tests/vm/boot.sh KERNEL OUTDIR JOB [ARGS...]
#   tests/vm/boot.sh --prepare KERNEL   only fetch KERNEL and settle the
#                   accelerator, both cached (scripts/install-deps.sh --test)
# KERNEL is 6.1, 6.12 or rt (tests/vm/kernels.sh fetches it); JOB a
# script (relative to the source tree) that the guest runs as root in
# this source tree, seen read-only with the host's whole / over virtio-9p,
# OUTPUT pointing at this build; OUTDIR (made, emptied) is the guest's
# /tmp/vmout, writable: the job's log (job.log), anything it leaves, and
# console.log, rc, accel, kernel. Settings (environment):
#   VM_SMP N        vCPUs (default 2)
#   VM_POSSIBLE N   possible_cpus=N on the kernel command line (CPUs that
#                   may be hotplugged: what per-CPU maps are sized for)
#   VM_MEM MiB      guest memory (default 2048)
#   VM_TIMEOUT S    wall limit of the whole boot (default 900): the guest
#                   is killed past it
#   VM_ACCEL        auto (default: KVM if a probe boot under KVM reaches
#                   its job, else TCG), kvm or tcg
# Exit status: the job's, or 1 when the guest never wrote one (panic,
# a boot that failed, the wall limit), with the console's tail.
set -u
cd "$(dirname "$0")/../.."
export OUTPUT=$(realpath "${OUTPUT:-.output}")
. tests/vm/kernels.sh
prepare=
[ "${1:-}" = --prepare ] && [ $# -eq 2 ] && { prepare=1; set -- "$2" "" :; }
[ $# -ge 3 ] || { echo "usage: tests/vm/boot.sh KERNEL OUTDIR JOB [ARGS...] | --prepare KERNEL" >&2; exit 2; }
kname=$1 out=$2
shift 2
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "boot: qemu-system-x86_64 not found: install the Debian package qemu-system-x86" >&2; exit 1; }
kernel_fetch "$kname" || exit 1

# qemu_run ACCEL OUT TIMEOUT: one boot of $KDIR, console to OUT/console.log
qemu_run() {
	local accel=$1 dir=$2 cpu=max cmdline
	cmdline="console=ttyS0 panic=-1 oops=panic loglevel=4 mitigations=off"
	[ -n "${VM_POSSIBLE:-}" ] && cmdline="$cmdline possible_cpus=$VM_POSSIBLE"
	[ "$accel" = tcg ] && accel=tcg,thread=multi
	timeout --kill-after=10 "$3" qemu-system-x86_64 -nodefaults -no-reboot -display none \
		-machine q35 -cpu "$cpu" -accel "$accel" -smp "${VM_SMP:-2}" -m "${VM_MEM:-2048}" \
		-kernel "$KDIR/vmlinuz" -initrd "$KDIR/initramfs.img" -append "$cmdline" \
		-serial "file:$dir/console.log" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$dir,mount_tag=vmout,security_model=none" \
		>"$dir/qemu.log" 2>&1
}

# KVM where it works: a probe boot (its job exits at once) must reach the
# job within 30 s (TCG boots in about 5); the answer is kept for this
# boot of the host (/proc's boot_id: it cannot change while the machine runs)
accel=${VM_ACCEL:-auto}
if [ "$accel" = auto ]; then
	probe=$VM_CACHE/kvm-probe
	boot_id=$(cat /proc/sys/kernel/random/boot_id)
	if [ "$(sed -n 1p "$probe" 2>/dev/null)" != "$boot_id" ]; then
		a=tcg
		if [ -w /dev/kvm ]; then
			d=$(mktemp -d)
			printf 'exit 0\n' >"$d/job.sh"
			qemu_run kvm "$d" 30 && [ -s "$d/rc" ] && a=kvm
			cp "$d/console.log" "$probe.console" 2>/dev/null
			rm -rf "$d"
		fi
		printf '%s\n%s\n' "$boot_id" "$a" >"$probe.tmp" && mv "$probe.tmp" "$probe"
	fi
	accel=$(sed -n 2p "$probe")
fi
[ -n "$prepare" ] && { echo "boot: kernel $kname in $KDIR, accelerator $accel"; exit 0; }

mkdir -p "$out" && out=$(realpath "$out")
rm -rf "${out:?}"/* 2>/dev/null
# the job, as the guest's init runs it: in this tree, its log to the console too
printf '%s\n' "cd $(printf %q "$PWD")" "export OUTPUT=$(printf %q "$OUTPUT") VMOUT=/tmp/vmout" \
	'exec > >(tee /tmp/vmout/job.log) 2>&1' "bash $(printf '%q ' "$@")" 'rc=$?' \
	'echo "job: exit $rc"' 'exit $rc' >"$out/job.sh"
echo "$accel" >"$out/accel"
echo "$(cat "$KDIR/version") ($(basename "$KDIR"), $(cat "$KDIR/source" 2>/dev/null))" >"$out/kernel"
start=$(date +%s)
qemu_run "$accel" "$out" "${VM_TIMEOUT:-900}"
qrc=$?
echo $(($(date +%s) - start)) >"$out/seconds"
if [ ! -s "$out/rc" ]; then
	case $qrc in
	124 | 137) why="killed at the wall limit of ${VM_TIMEOUT:-900} s" ;;
	*) why="ended without the job's status (qemu exit $qrc)" ;;
	esac
	echo "boot: FAIL kernel $kname, $accel: the guest $why; console's tail:"
	tail -40 "$out/console.log" | sed 's/^/    /'
	[ -s "$out/qemu.log" ] && sed 's/^/    qemu: /' "$out/qemu.log" | tail -5
	exit 1
fi
exit "$(cat "$out/rc")"
