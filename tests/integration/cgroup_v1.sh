#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The same per-cgroup checks on the v1 hierarchy of the cpu controller
# (--cgroup-hier cpu), for hosts that still run containers under v1.
. "$(dirname "$0")/../lib.sh"
need_root
MNT=$(cgroup_mount cpu)
[ -n "$MNT" ] || skip "no cgroup v1 hierarchy with the cpu controller (a pure cgroup2 host)"
HIER_ARGS="--cgroup-hier cpu"
. "$(dirname "$0")/../cgroup_checks.sh"
