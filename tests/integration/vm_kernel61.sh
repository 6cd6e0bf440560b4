#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Debian 12's stock kernel (6.1, fetched and cached by tests/vm): booted
# under QEMU, the load matrix there (tests/integration/feature_matrix.sh,
# every metric set, method, --culprits, --culprit-mode time and --stacks;
# tests/vm/checks/load_schemas.sh, --schema 0 to 3 and --profile) and what
# it lacks refused at start (tests/vm/checks/kernel_features.sh: --causes).
# The rest of make vmtest (6.12, PREEMPT_RT, storms) is not in make test.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../vm/suite.sh"
need_root
vm_suite 6.1 feature_matrix "load_schemas kernel_features"
check_reports
