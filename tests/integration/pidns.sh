#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --pidnss (-k pidns), as runqlat takes it: one histogram per PID
# namespace, named by its inode number (as /proc/PID/ns/pid shows it). A
# spinner pinned to CPU 0 runs in a second namespace (unshare -p -f); that
# namespace's key must have the spinner's own run-queue waits (its
# schedstat pcount, plus the few of its main thread and of the child
# before it became the spinner), the host's namespace its own key, in
# JSON (key "pidns") and in the text report ("pidns = INODE").
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
command -v unshare >/dev/null || skip "unshare not installed (Debian package util-linux)"

HOSTNS=$(readlink /proc/self/ns/pid | tr -dc 0-9)
[ -n "$HOSTNS" ] || fail "no inode in $(readlink /proc/self/ns/pid)"

start_sh json --pidnss -M runq -j
JS=$SH_PID
start_sh text -M runq -k pidns
TX=$SH_PID

unshare -p -f --mount-proc "$HELPERS/spinners" -n 1 -c 0 -t 1.5 -N nsspin -x \
	>"$TMP/spin.txt" &
up=$!
CHILD_PIDS+=($up)
NS=
for i in $(seq 1 600); do	# a hang guard only: until unshare has forked
	child=$(pgrep -P "$up" | head -1)
	[ -n "$child" ] && NS=$(readlink "/proc/$child/ns/pid" | tr -dc 0-9)
	[ -n "$NS" ] && break
	sleep 0.01
done
[ -n "$NS" ] || fail "no namespace of the unshared child"
[ "$NS" != "$HOSTNS" ] || fail "unshare -p made no second namespace ($NS)"
wait "$up" || fail "the spinner in the second namespace failed"
stop_sh "$JS" || fail "schedhist --pidnss exited with $?"
stop_sh "$TX" || fail "schedhist -k pidns exited with $?"

python3 - "$TMP" "$NS" "$HOSTNS" <<'PY' || fail "the namespaces' keys are wrong (above)"
import json, sys
tmp, ns, hostns = sys.argv[1:4]
reports = [json.loads(l) for l in open(f"{tmp}/json.out")]
assert len(reports) == 1, f"{len(reports)} JSON reports, want the one at the end"
r = reports[0]
assert r["key"] == "pidns", r["key"]
groups = {g["key"]: g for g in r["groups"]}
assert hostns in groups and groups[hostns]["count"] > 0, f"no host namespace {hostns}: {sorted(groups)}"
assert ns in groups, f"no key for the second namespace {ns}: {sorted(groups)}"
tid, rd, pc = (lambda f: (f[1], int(f[3]), int(f[5])))(open(f"{tmp}/spin.txt").read().split())
count = groups[ns]["count"]
# the spinner's switch-ins, and a few more: its main thread's (start, the
# join) and the unshared child's before it exec'd the spinner (fork, mount)
assert 0 <= count - pc <= 20, f"namespace {ns}: count {count}, the spinner's pcount {pc}"
print(f"pidns {ns}: count {count} (spinner pcount {pc}); host {hostns}: {groups[hostns]['count']}")
text = open(f"{tmp}/text.out").read()
for n in (ns, hostns):
    assert f"pidns = {n}\n" in text, f"text: no line 'pidns = {n}'"
PY
assert_nothing_leaked
