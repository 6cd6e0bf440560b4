#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Kernel memory on 384 possible CPUs: Debian's 6.1 booted under QEMU with
# possible_cpus=384 (2 online), tests/vm/checks/kmem_cpus.sh there: every
# map's bpftool memlock beside bench/kmem's figure for 384 CPUs, the JSON
# kernel_memory, the default --max-kernel-mem, for 1 000 and 10 000 keys,
# one and three metrics, with and without --culprits --stacks.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../vm/suite.sh"
need_root
[ -x "$OUTPUT/bench/kmem" ] || fail "$OUTPUT/bench/kmem not built (make $OUTPUT/bench/kmem)"
VM_POSSIBLE=384 vm_suite 6.1 "" kmem_cpus
grep -q 'on 384 possible CPUs' "$TMP/vm/kmem-384.txt" || fail "the guest did not have 384 possible CPUs"
grep -E '^case|per-CPU maps' "$TMP/vm/kmem-384.txt"
check_reports
