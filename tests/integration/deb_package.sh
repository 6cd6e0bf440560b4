#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The Debian package: debian/ builds with `dpkg-buildpackage -us -uc -b`
# from a copy of this tree, lintian finds no error, the package holds
# /usr/sbin/schedhist, the man page, the systemd unit, the report schema
# and (when the tree has it) the Prometheus rules file; `dpkg -i` makes the
# unprivileged system user schedhist; the unit verifies, grants CAP_BPF and
# CAP_PERFMON only and scores no worse than now on `systemd-analyze
# security` (offline: systemd need not run); the installed binary, run as
# the unit runs it (that user, those two capabilities, its command line),
# attaches to the real kernel, serves cgroup metrics, holds no capability
# once attached, and leaves nothing loaded; `dpkg -r` removes the files,
# `dpkg -P` the user, and nothing named schedhist is left on the system.
. "$(dirname "$0")/../lib.sh"
need_root
for c in dpkg-buildpackage dh lintian setpriv curl systemd-analyze man adduser; do
	command -v "$c" >/dev/null ||
		skip "$c not installed (scripts/install-deps.sh --test installs what this test needs)"
done
# never touch a schedhist the host has installed, nor a user of that name
! dpkg-query -W -f='${Status}' schedhist 2>/dev/null | grep -q 'installed' ||
	skip "a schedhist package is installed on this host: not replacing it"
! getent passwd schedhist >/dev/null || skip "a user schedhist exists already: not touching it"
! getent group schedhist >/dev/null || skip "a group schedhist exists already: not touching it"
UNIT=/lib/systemd/system/schedhist.service
installed=
test_cleanup() {
	[ -n "$installed" ] && dpkg -P schedhist >/dev/null 2>&1
}

# everything named schedhist outside the places a test may write
footprint() {
	find /etc /lib /usr /var -xdev -name '*schedhist*' -not -path '/var/tmp/*' \
		-not -path '/var/cache/*' -not -path '/var/log/*' 2>/dev/null | sort
	getent passwd schedhist
	getent group schedhist
}
before=$(footprint)
objects=$(our_objects)

# a copy of the tree as it is now (not only what is committed); the copy
# holds JSON that is not a report (the schema itself)
src=$TMP/src
mkdir -p "$src"
not_reports "$src"
tar -C . --exclude='./.output*' --exclude=./.git -cf - . | tar -C "$src" -xf - ||
	fail "cannot copy the source tree"
# nocheck: the unit tests run in their own suite; this one stays short
(cd "$src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) >"$TMP/build.log" 2>&1 ||
	{ tail -30 "$TMP/build.log"; fail "dpkg-buildpackage -us -uc -b failed"; }
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
deb=$TMP/schedhist_${version}_${arch}.deb
[ -f "$deb" ] || fail "no $deb after the build: $(ls "$TMP")"

lintian --fail-on error "$TMP/schedhist_${version}_${arch}.changes" >"$TMP/lintian.out" 2>&1 ||
	{ cat "$TMP/lintian.out"; fail "lintian reports errors"; }
! grep -q '^E: ' "$TMP/lintian.out" || { cat "$TMP/lintian.out"; fail "lintian: E: lines"; }
echo "lintian: $(grep -c '^[WIP]: ' "$TMP/lintian.out") warning/info line(s), no error"

contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/sbin/schedhist ./usr/share/man/man8/schedhist.8.gz ./lib/systemd/system/schedhist.service \
	./usr/share/schedhist/report.schema.json; do
	grep -qx -- "$f" <<<"$contents" || fail "$f not in the package"
done
rules=./usr/share/schedhist/prometheus/schedhist.rules.yml
if [ -f contrib/prometheus/schedhist.rules.yml ]; then
	grep -qx -- "$rules" <<<"$contents" || fail "the tree has the rules file, the package does not"
else
	! grep -qx -- "$rules" <<<"$contents" || fail "a rules file the tree does not have"
fi

# ---- install ----
dpkg -i "$deb" >"$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; fail "dpkg -i failed"; }
installed=1
IFS=: read -r _ _ uid gid _ home shell < <(getent passwd schedhist) ||
	fail "dpkg -i made no user schedhist"
echo "user schedhist: uid $uid gid $gid home $home shell $shell"
[ "$uid" -lt 1000 ] || fail "schedhist is not a system user (uid $uid)"
[ "$uid" -ne 0 ] && [ "$gid" -ne 0 ] || fail "schedhist has root's uid or gid"
[ "$(getent group schedhist | cut -d: -f3)" = "$gid" ] || fail "no group schedhist as its primary group"
case $shell in */nologin | */false) ;; *) fail "schedhist has a login shell: $shell" ;; esac
[ ! -e "$home" ] || fail "a home directory $home for schedhist"

[ -x /usr/sbin/schedhist ] || fail "/usr/sbin/schedhist not installed"
got=$(/usr/sbin/schedhist --version) || fail "schedhist --version exited with $?"
grep -qw -- "$version" <<<"$got" || fail "installed --version '$got', package version $version"
[ -f /usr/share/man/man8/schedhist.8.gz ] || fail "no man page installed"
systemd-analyze verify "$UNIT" >"$TMP/verify.out" 2>&1 ||
	{ cat "$TMP/verify.out"; fail "systemd-analyze verify $UNIT"; }
grep -qx 'User=schedhist' "$UNIT" || fail "the unit does not run as schedhist"
for k in CapabilityBoundingSet AmbientCapabilities; do
	[ "$(grep -c "^$k=" "$UNIT")" -eq 1 ] || fail "$k set more than once in the unit"
	grep -qx "$k=CAP_BPF CAP_PERFMON" "$UNIT" || fail "$k is not exactly CAP_BPF CAP_PERFMON"
done
# 1.2 on the 0-10 scale now (threshold 12 of 100): any weakening fails
systemd-analyze security --offline=yes --threshold=12 "$UNIT" >"$TMP/security.out" 2>&1 ||
	{ grep '✗' "$TMP/security.out"; tail -1 "$TMP/security.out"; fail "the unit's exposure rose"; }
echo "unit: $(tail -1 "$TMP/security.out")"

# ---- the installed binary against the kernel, as the unit runs it ----
cmd=$(sed -n 's/^ExecStart=//p' "$UNIT")
[ "$(wc -l <<<"$cmd")" -eq 1 ] && [ "${cmd%% *}" = /usr/sbin/schedhist ] ||
	fail "unexpected ExecStart: $cmd"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
read -ra args <<<"${cmd#* }"
for i in "${!args[@]}"; do
	[ "${args[$i]}" = --listen ] && args[i + 1]=127.0.0.1:$port
done
grep -q -- "--listen 127.0.0.1:$port" <<<"${args[*]}" || fail "no --listen in ExecStart: $cmd"
# the unit's privileges: its user, no other group, its two capabilities
# ambient (and nothing else even in the bounding set); -i 0.5: readings
# every half second instead of every 5
SCHEDHIST=setpriv start_sh unit --reuid=schedhist --regid=schedhist --clear-groups \
	--inh-caps=-all,+bpf,+perfmon --ambient-caps=+bpf,+perfmon --bounding-set=-all,+bpf,+perfmon \
	-- /usr/sbin/schedhist "${args[@]}" -i 0.5
remember_ids
[ "$(stat -c %U /proc/"$SH_PID")" = schedhist ] || fail "the exporter does not run as schedhist"
# scrape until a reading has counted waits (every switch-in after a wait
# counts, the curl's own among them); 60 s is a hang guard, not a bound
for i in $(seq 1 120); do
	curl -sS --max-time 10 "http://127.0.0.1:$port/metrics" >"$TMP/metrics.txt" ||
		fail "no answer on 127.0.0.1:$port/metrics: $(cat "$TMP/unit.err")"
	n=$(awk '/^schedhist_wait_seconds_count\{metric="runq",key_type="cgroup"/ {n += $2}
		END {print n + 0}' "$TMP/metrics.txt")
	[ "$n" -gt 0 ] && break
	sleep 0.5
done
echo "installed exporter: $n run-queue waits in cgroup series"
[ "$n" -gt 0 ] || fail "no run-queue waits served in 60 s: $(head -20 "$TMP/metrics.txt")"
caps=$(grep -E '^Cap(Prm|Eff|Inh|Amb)' /proc/"$SH_PID"/status)
stop_sh "$SH_PID" TERM || fail "the installed exporter exited with $? ($(cat "$TMP/unit.err"))"
assert_unloaded $SH_IDS
echo "$caps"
! grep -vqE ':\s+0+$' <<<"$caps" || fail "capabilities left once attached: $caps"
# and one JSON run as root (its reports are checked against the installed schema below)
/usr/sbin/schedhist -M runq -k cgroup -j -i 0.3 -n 2 >"$TMP/installed.json" 2>"$TMP/installed.err" ||
	fail "installed schedhist -j exited with $?: $(cat "$TMP/installed.err")"
"$PY_DEBIAN" - "$TMP/installed.json" <<'PY' || fail "installed binary's JSON"
import json, os, sys
import jsonschema
schema = json.load(open("/usr/share/schedhist/report.schema.json"))
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, f"{len(lines)} reports, want 2"
for l in lines:
    r = json.loads(l)
    jsonschema.validate(r, schema)
    assert r["host"] == os.uname().nodename, r["host"]
    assert r["key"] == "cgroup" and r["groups"], "no cgroup groups"
print(f"installed JSON: {len(lines)} reports valid against the installed schema")
PY
assert_no_new_objects "$objects"

# ---- remove, purge ----
dpkg -r schedhist >"$TMP/remove.log" 2>&1 || { cat "$TMP/remove.log"; fail "dpkg -r failed"; }
for f in /usr/sbin/schedhist /usr/share/man/man8/schedhist.8.gz "$UNIT" /usr/share/schedhist; do
	[ ! -e "$f" ] || fail "$f left after dpkg -r"
done
getent passwd schedhist >/dev/null || fail "dpkg -r removed the user (only a purge should)"
dpkg -P schedhist >"$TMP/purge.log" 2>&1 || { cat "$TMP/purge.log"; fail "dpkg -P failed"; }
installed=
! dpkg-query -W schedhist >/dev/null 2>&1 || fail "dpkg still knows schedhist after the purge"
after=$(footprint)
left=$(comm -13 <(echo "$before") <(echo "$after"))
[ -z "$left" ] || fail "left behind after dpkg -P: $left"
echo "package $version: built, lintian clean, installed, ran, removed and purged without a trace"
