#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Every systemd unit in the tree (git ls-files '*.service': the Debian
# package's and contrib/'s) stays hardened: systemd-analyze security
# --offline=yes scores it at or under 2.0 ("OK"), and it holds the rules
# the image and the DaemonSet follow too: no capability in its bounding set
# but CAP_BPF and CAP_PERFMON, no new privileges, a read-only system
# (ProtectSystem=strict), not root (User=, or DynamicUser=yes).
source "$(dirname "$0")/../lib.sh"
command -v systemd-analyze >/dev/null || skip "no systemd-analyze (Debian package systemd)"
command -v git >/dev/null && git rev-parse --show-toplevel >/dev/null 2>&1 || skip "not a git tree"
MAX=2.0
units=$(git ls-files '*.service')
[ -n "$units" ] || fail "no systemd unit in the tree"
for u in $units; do
	systemd-analyze security --offline=yes "$u" >"$TMP/sec.out" 2>&1 ||
		{ cat "$TMP/sec.out"; fail "systemd-analyze security $u failed"; }
	score=$(sed -n 's/.*Overall exposure level for [^ ]*: \([0-9.]*\) .*/\1/p' "$TMP/sec.out")
	[ -n "$score" ] || { cat "$TMP/sec.out"; fail "no exposure level for $u"; }
	awk -v s="$score" -v m="$MAX" 'BEGIN { exit !(s <= m) }' ||
		{ grep '✗' "$TMP/sec.out" | head -20; fail "$u scores $score, over $MAX"; }
	bound=$(sed -n 's/^CapabilityBoundingSet=//p' "$u" | tr ' ' '\n' | sort -u | tr '\n' ' ')
	[ "$bound" = "CAP_BPF CAP_PERFMON " ] || fail "$u: capability bounding set '$bound', want CAP_BPF CAP_PERFMON"
	grep -qx 'NoNewPrivileges=yes' "$u" || fail "$u: no NoNewPrivileges=yes"
	grep -qx 'ProtectSystem=strict' "$u" || fail "$u: no ProtectSystem=strict"
	user=$(sed -n 's/^User=//p' "$u")
	{ [ -n "$user" ] && [ "$user" != root ]; } || grep -qx 'DynamicUser=yes' "$u" ||
		fail "$u: runs as root"
	echo "ok: $u: $score"
done
