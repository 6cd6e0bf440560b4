#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The one writer of --prom-file and --heatmap, in a shared sticky
# directory (a small tmpfs, mode 1777), with the privileges dropped to
# nobody:
#  - both files are created by nobody (nothing root-owned is made before
#    loading), and names planted by another user (daemon) where a
#    predictable temporary name would be stop no rewrite;
#  - a full disk, then a read-only one: schedhist goes on, each file keeps
#    its last good version (still valid), each failure is warned once and
#    each recovery once, and the files are rewritten again;
#  - a directory removed and created again is written to again.
# Time is counted in schedhist's own reports (--print -j: a line per
# interval), never in seconds of this machine.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
command -v xmllint >/dev/null || skip "xmllint missing (Debian package libxml2-utils)"
id nobody >/dev/null 2>&1 && id daemon >/dev/null 2>&1 || skip "needs users nobody and daemon"
FS=$(mktemp -d /tmp/schedhist-fs.XXXXXX)
test_cleanup() { umount "$FS" 2>/dev/null; rm -rf "$FS"; }
mount -t tmpfs -o size=4m,mode=1777 schedhist-test "$FS" || skip "cannot mount a tmpfs"
before=$(our_objects)

# reports NAME: how many reports (lines) schedhist NAME has printed so far
reports() { wc -l <"$TMP/$1.out"; }
# after NAME N: until N more reports than now are out (schedhist must stay up)
after() {
	local want=$(( $(reports "$1") + $2 ))
	while [ "$(reports "$1")" -lt "$want" ]; do
		kill -0 "$SH_PID" 2>/dev/null || fail "schedhist exited: $(cat "$TMP/$1.err")"
		sleep 0.05
	done
}
# valid: both files are whole, valid versions
valid() {
	python3 tests/prom-check.py "$FS/x.prom" >/dev/null || fail "x.prom is not a valid exposition"
	xmllint --noout "$FS/h.svg" || fail "h.svg is not well-formed"
}
# warned PATTERN N: stderr has N lines matching PATTERN
warned() {
	local n
	n=$(grep -c -- "$1" "$TMP/w.err")
	[ "$n" -eq "$2" ] || fail "$n lines matching '$1' on stderr, want $2: $(cat "$TMP/w.err")"
}
ino() { stat -c %i "$1"; }

start_sh w -M runq --prom-file "$FS/x.prom" --heatmap "$FS/h.svg" -i 100ms --print -j --user nobody
after w 2
for f in x.prom h.svg; do
	[ "$(stat -c %U "$FS/$f")" = nobody ] || fail "$f is owned by $(stat -c %U "$FS/$f"), want nobody"
done
valid

# another user plants files at the names a predictable scheme would use
for f in x.prom h.svg; do
	setpriv --reuid=daemon --regid=daemon --clear-groups \
		sh -c 'echo planted >"$1"' sh "$FS/.$f.$SH_PID.tmp"
done
i1=$(ino "$FS/x.prom") h1=$(ino "$FS/h.svg")
after w 3
[ "$(ino "$FS/x.prom")" != "$i1" ] && [ "$(ino "$FS/h.svg")" != "$h1" ] ||
	fail "a planted name stopped the rewrites: $(cat "$TMP/w.err")"
warned 'cannot write' 0
echo "files owned by nobody; planted names stop nothing"

# the disk full: every write fails, the last good files stay
dd if=/dev/zero of="$FS/fill" bs=64k 2>/dev/null
after w 1	# a write under way when the disk filled may still have gone through
i1=$(ino "$FS/x.prom") h1=$(ino "$FS/h.svg")
after w 5
[ "$(ino "$FS/x.prom")" = "$i1" ] && [ "$(ino "$FS/h.svg")" = "$h1" ] || fail "written on a full disk?"
valid
warned 'cannot write --prom-file .*No space left on device' 1
warned 'cannot write --heatmap .*No space left on device' 1
rm -f "$FS/fill"
after w 3
[ "$(ino "$FS/x.prom")" != "$i1" ] && [ "$(ino "$FS/h.svg")" != "$h1" ] || fail "no rewrite once space returned"
warned 'prom-file .* written again' 1
warned 'heatmap .* written again' 1
valid
echo "disk full: last good files kept, one warning each, recovered"

# read-only
mount -o remount,ro "$FS"
after w 1
i1=$(ino "$FS/x.prom") h1=$(ino "$FS/h.svg")
after w 5
[ "$(ino "$FS/x.prom")" = "$i1" ] && [ "$(ino "$FS/h.svg")" = "$h1" ] || fail "written on a read-only disk?"
warned 'cannot write --prom-file .*Read-only file system' 1
warned 'cannot write --heatmap .*Read-only file system' 1
mount -o remount,rw "$FS"
after w 3
[ "$(ino "$FS/x.prom")" != "$i1" ] && [ "$(ino "$FS/h.svg")" != "$h1" ] || fail "no rewrite once writable"
warned 'written again' 4
valid
stop_sh "$SH_PID" TERM || fail "exit $? on SIGTERM: $(cat "$TMP/w.err")"
echo "read-only disk: last good files kept, one warning each, recovered"

# the directory removed, then made again
mkdir -m 1777 "$FS/sub"
start_sh d -M runq --prom-file "$FS/sub/x.prom" --heatmap "$FS/sub/h.svg" -i 100ms --print -j --user nobody
after d 2
rm -rf "$FS/sub"
after d 3
mkdir -m 1777 "$FS/sub"
after d 3
[ -s "$FS/sub/x.prom" ] && [ -s "$FS/sub/h.svg" ] || fail "not written into the directory made again: $(cat "$TMP/d.err")"
grep -q 'prom-file .* written again' "$TMP/d.err" || fail "no recovery message: $(cat "$TMP/d.err")"
stop_sh "$SH_PID" TERM || fail "exit $? on SIGTERM: $(cat "$TMP/d.err")"
echo "directory removed and made again: written again"
assert_no_new_objects "$before"
