# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Sourced by tests/integration/vm_*.sh (after tests/lib.sh): the part of
# make vmtest that make test runs.
#   vm_suite KERNEL INTEGRATION_TESTS VM_CHECKS   one boot (VM_* settings from
#       the environment) running tests/vm/jobs/tests.sh; fails with the
#       guest's failing tests or its console's tail, skips where QEMU,
#       busybox or the kernel package cannot be had.
vm_suite() {
	local kernel=$1 rc
	command -v qemu-system-x86_64 >/dev/null ||
		skip "no qemu-system-x86_64 (scripts/install-deps.sh --test: qemu-system-x86)"
	[ -x /bin/busybox ] || skip "no /bin/busybox (scripts/install-deps.sh --test: busybox-static)"
	(. tests/vm/kernels.sh && kernel_package "$kernel" >/dev/null) ||
		skip "no Debian package for kernel $kernel in the configured archive"
	# under the runner's 300 s: a hung guest is reported, with its console
	VM_TIMEOUT=${VM_TIMEOUT:-270} tests/vm/boot.sh "$kernel" "$TMP/vm" tests/vm/jobs/tests.sh \
		"$2" "$3" >"$TMP/boot.out" 2>&1
	rc=$?
	not_reports "$TMP/vm" "$TMP/boot.out"
	grep -hE '^guest: |^(PASS|FAIL|SKIP) |^    ' "$TMP/vm/job.log" 2>/dev/null
	[ $rc -eq 0 ] || { cat "$TMP/boot.out"; fail "kernel $kernel: the guest's tests failed (above)"; }
	grep -q '^PASS ' "$TMP/vm/job.log" || fail "kernel $kernel: no test passed in the guest"
	echo "kernel $(cat "$TMP/vm/kernel"), $(cat "$TMP/vm/accel"), $(cat "$TMP/vm/seconds") s"
}
