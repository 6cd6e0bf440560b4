#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# -k cgroup, --cgroup-depth, -c and a cgroup removed mid-run, on the
# cgroup2 hierarchy (found in /proc/self/mountinfo), checked against the
# workloads' own schedstat. See tests/cgroup_checks.sh.
. "$(dirname "$0")/../lib.sh"
need_root
MNT=$(cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup2 hierarchy mounted"
HIER_ARGS=
. "$(dirname "$0")/../cgroup_checks.sh"
