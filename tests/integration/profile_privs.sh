#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --profile parses untrusted files unprivileged: once attached the poller
# runs as nobody (the default as root) or --user's user, with no
# capability and a seccomp filter, while a forked broker (root, three
# capabilities, its own filter) opens the files for it.
#  - /proc/PID/status of the running poller: Uid non-zero (all four),
#    CapEff, CapPrm and CapBnd 0, Seccomp 2; its broker child
#    (schedhist-brk): Uid 0, CapEff exactly CAP_DAC_READ_SEARCH,
#    CAP_SYS_PTRACE and CAP_CHECKPOINT_RESTORE (CAP_SYS_ADMIN on a kernel
#    before 5.9), Seccomp 2
#  - the frames of a root-owned process whose binary only root may read
#    (mode 0700: the poller, nobody, cannot open it, nor that process's
#    maps) and of a nobody-owned process both resolve: each thread's
#    function is named
#  - --user NAME: the poller runs as NAME; --flamegraph in a directory
#    the user cannot write: status 1 at start, naming the user
. "$(dirname "$0")/../lib.sh"
need_root
command -v setpriv >/dev/null || skip "setpriv not installed (Debian package util-linux)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
own_cgroup profile_privs
chmod 0711 "$TMP"
mkdir "$TMP/root" "$TMP/nobody"
chmod 0700 "$TMP/root"
cp "$HELPERS/waiters" "$TMP/root/waiters_root"
chmod 0700 "$TMP/root/waiters_root"
cp "$HELPERS/waiters" "$TMP/nobody/waiters_nob"
chown nobody "$TMP/nobody" "$TMP/nobody/waiters_nob"

start_sh js --profile -k pid -j -v "${OWN_FILTER[@]}"
JS=$SH_PID
in_cgroup "$OWN" "$TMP/root/waiters_root" -m 10 -t 3 >"$TMP/root.txt" &
A=$!
in_cgroup "$OWN" setpriv --reuid nobody --regid nogroup --clear-groups \
	"$TMP/nobody/waiters_nob" -m 10 -t 3 >"$TMP/nob.txt" &
B=$!
CHILD_PIDS+=("$A" "$B")
sleep 1
status() { awk -v k="$2:" '$1 == k { $1 = ""; print substr($0, 2) }' "/proc/$1/status"; }
uid=$(status "$JS" Uid)
nob=$(id -u nobody)
[ "$uid" = "$nob $nob $nob $nob" ] ||
	fail "the poller's Uid is '$uid', not nobody's ($nob) four times"
for k in CapEff CapPrm CapBnd CapAmb; do
	[ "$(status "$JS" $k)" = 0000000000000000 ] || fail "the poller's $k is $(status "$JS" $k), not 0"
done
[ "$(status "$JS" Seccomp)" = 2 ] || fail "the poller has no seccomp filter: Seccomp $(status "$JS" Seccomp)"
BRK=$(pgrep -P "$JS")
[ -n "$BRK" ] && [ "$(cat "/proc/$BRK/comm")" = schedhist-brk ] || fail "no broker child of the poller"
[ "$(status "$BRK" Uid | awk '{print $1}')" = 0 ] || fail "the broker is not root"
if [ "$(cat /proc/sys/kernel/cap_last_cap)" -ge 40 ]; then want=0000010000080004; else want=0000000000280004; fi
[ "$(status "$BRK" CapEff)" = $want ] || fail "the broker's CapEff is $(status "$BRK" CapEff), want $want"
[ "$(status "$BRK" Seccomp)" = 2 ] || fail "the broker has no seccomp filter"
wait "$A" "$B" || fail "the workload failed"
stop_sh "$JS" || fail "schedhist exited with $?: $(cat "$TMP/js.err")"
grep -q "running as user nobody (uid $nob).*no capabilities" "$TMP/js.err" ||
	fail "-v does not say it runs as nobody: $(cat "$TMP/js.err")"
[ -z "$(pgrep -P "$JS")" ] || fail "the broker outlived the poller"

python3 - "$TMP" <<'PY' || exit 1
import json, sys
tmp = sys.argv[1]
r = json.loads(open(f"{tmp}/js.out").read().splitlines()[-1])
stacks = {s["comm"]: s for g in r["groups"] for s in g["stacks"]}
ufunc = {"w_pipe": "pipe_reader", "w_sleep": "nap_sleeper", "w_futex": "futex_waiter"}
bad = []
for run in ("root", "nob"):
    threads = [l.split() for l in open(f"{tmp}/{run}.txt") if l.startswith("thread ")]
    if len(threads) != 3:
        bad.append(f"{run}: the helper printed {len(threads)} threads")
    ready = [l.split()[1] for l in open(f"{tmp}/{run}.txt") if l.startswith("ready ")]
    pid = next((g for g in r["groups"] if ready and g["key"] == ready[0]), None)
    if not pid:
        bad.append(f"{run}: its process is not in the report")
        continue
    for comm, fn in ufunc.items():
        named = [s for s in pid["stacks"] if s["comm"] == comm and fn in s["user"]]
        if not named:
            bad.append(f"{run} {comm}: no stack names {fn}: "
                       f"{[s['user'] for s in pid['stacks'] if s['comm'] == comm]}")
        else:
            print(f"{run} {comm}: {named[0]['user']}")
if bad:
    sys.exit("FAIL: " + "\n".join(bad))
PY

# --user: another user; a --flamegraph directory it cannot write fails at start
start_sh u --profile -d 1 --user daemon "${OWN_FILTER[@]}"
[ "$(status "$SH_PID" Uid | awk '{print $1}')" = "$(id -u daemon)" ] || fail "--user daemon: Uid $(status "$SH_PID" Uid)"
stop_sh "$SH_PID" || fail "--user daemon: exit $?"
"$SCHEDHIST" --profile -d 1 --flamegraph "$TMP/root/fg.svg" "${OWN_FILTER[@]}" >/dev/null 2>"$TMP/fg.err"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot write in the directory of --flamegraph.*(as user nobody; --user names another)" "$TMP/fg.err" ||
	fail "--flamegraph in a root-only directory: exit $rc, $(cat "$TMP/fg.err")"
echo "poller uid $nob, no capabilities, seccomp; broker root with CapEff $want; both processes' frames named"
