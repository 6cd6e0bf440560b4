#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --profile: waits per (task, kernel stack, user stack), against workloads
# that time their own waits (tests/helpers/waiters.c: three threads that
# block in read(2) on a pipe, nanosleep(2) and FUTEX_WAIT).
#  - each thread gets its own stack, whose user frames name the thread's
#    function and whose kernel frames are the blocking path, with a wait
#    within 2 % of the thread's own timing of its calls (the off-CPU wait
#    of a call is its time but the call's own on-CPU part, microseconds
#    per 10 ms call: 0.1 % at most on any host)
#  - the processes exit before the only report (no -i: one report at the
#    end): their frames still resolve (maps read while they ran)
#  - a binary without frame pointers: its time is all there, its
#    innermost user frame (the libc call) named; a stripped one: the
#    thread's frame is module+offset, never dropped; one run in another
#    mount namespace, from a tmpfs only it sees: names resolve through
#    /proc/PID/root
#  - build ids: every user frame has its file's (or null), the stripped
#    binary's module+offset frames carry the one readelf reads, and the
#    copy run in the other namespace the same as the original
#  - a process seen, then running execve(): the new program's frames are
#    named from its own maps (a shell that waits twice, then execs)
#  - folded stacks (text) of the same run carry the same totals
#  - -M blocked and -M runq of the same waits add up to -M offcpu
#  - bounded: with --max-keys 4 the profile map holds 4 entries and the
#    user stack map 8 stacks; the rest is counted (seen = recorded + map_full,
#    stacks lost) and warned about
#  - every instance walks every wait (--profile-sample exact): the exact
#    mode, whose counts these checks hold to the wait (profile_sample.sh
#    tests the default, sampled)
#  - -c: every instance traces only the test's own cgroup (own_cgroup),
#    where the workload runs: a busy host's other tasks (thousands of new
#    tids a second) cannot fill the maps, so every thread of the workload
#    is in the report, no wait of the uncapped instances is map_full, and
#    no task from outside the cgroup (a comm the workload has not) is in
#    any report
. "$(dirname "$0")/../lib.sh"
need_root
command -v unshare >/dev/null || skip "unshare not installed (Debian package util-linux)"
command -v readelf >/dev/null || skip "readelf not installed (Debian package binutils)"
build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
BID_FP=$(build_id "$HELPERS/waiters")
BID_STRIPPED=$(build_id "$HELPERS/waiters_stripped")
[ -n "$BID_FP" ] && [ -n "$BID_STRIPPED" ] || fail "the helpers have no GNU build id: no test"
own_cgroup profile

start_sh js --profile -k tid -j --profile-sample exact "${OWN_FILTER[@]}"
JS=$SH_PID
start_sh folded --profile -M offcpu --profile-sample exact "${OWN_FILTER[@]}"
FOLDED=$SH_PID
# bounded: 4 entries, 8 user stacks; what does not fit is counted (the
# workload alone has 15 threads of 5 processes: more entries and more
# distinct user stacks than that)
start_sh cap --profile -k tid -j --max-keys 4 --profile-sample exact "${OWN_FILTER[@]}"
CAP=$SH_PID
# the other metrics: blocked + runq is offcpu, thread by thread
start_sh blocked --profile -M blocked -k tid -j --profile-sample exact "${OWN_FILTER[@]}"
BLK=$SH_PID
start_sh runq --profile -M runq -k tid -j --profile-sample exact "${OWN_FILTER[@]}"
RQ=$SH_PID

in_cgroup "$OWN" "$HELPERS/waiters" -m 10 -t 2 >"$TMP/fp.txt" &
A=$!
in_cgroup "$OWN" "$HELPERS/waiters_nofp" -m 10 -t 2 >"$TMP/nofp.txt" &
B=$!
in_cgroup "$OWN" "$HELPERS/waiters_stripped" -m 10 -t 2 >"$TMP/stripped.txt" &
C=$!
# another mount namespace: the binary exists only on a tmpfs mounted there
mkdir "$TMP/ns"
in_cgroup "$OWN" unshare -m sh -c 'mount -t tmpfs none "$1" && cp "$2" "$1/waiters_ns" && exec "$1/waiters_ns" -m 10 -t 2' \
	- "$TMP/ns" "$HELPERS/waiters" >"$TMP/ns.txt" &
D=$!
# a process the profile sees (two waits of the shell, a reading between
# them: 1.2 s > the 1 s reading period), then another program (execve)
in_cgroup "$OWN" sh -c 'sleep 0.2; sleep 1.2; exec "$1" -m 10 -t 2' - "$HELPERS/waiters" >"$TMP/exec.txt" &
E=$!
CHILD_PIDS+=("$A" "$B" "$C" "$D" "$E")
wait "$A" "$B" "$C" "$D" "$E" || fail "the workload failed"
[ ! -e "$TMP/ns/waiters_ns" ] || fail "the tmpfs is visible outside its namespace: no test"
for p in $JS $FOLDED $CAP $BLK $RQ; do stop_sh "$p" || fail "schedhist exited with $?: $(cat "$TMP"/*.err)"; done

python3 - "$TMP" "$BID_FP" "$BID_STRIPPED" <<'PY' || exit 1
import json, re, sys
tmp, bid_fp, bid_stripped = sys.argv[1:4]
r = json.loads(open(f"{tmp}/js.out").read().splitlines()[-1])
groups = {g["key"]: g for g in r["groups"]}
ev = r["events"]
bad = []
if ev["seen"] != ev["recorded"] + ev["map_full"]:
    bad.append(f"events do not add up: {ev}")
kpath = {"w_pipe": "anon_pipe_read", "w_sleep": "do_nanosleep", "w_futex": "futex_wait"}
ufunc = {"w_pipe": "pipe_reader", "w_sleep": "nap_sleeper", "w_futex": "futex_waiter"}
leaf = {"w_pipe": r"^(__)?read$", "w_sleep": r"^clock_nanosleep$", "w_futex": r"^syscall$"}
lost = []
# -c: the profile map (10240 entries) holds only the test's own tasks (a
# few dozen entries): every helper thread is there, and nothing is
# map_full; a thread missing is a failure, counted or not
if ev["map_full"]:
    bad.append(f"the profile map of the test's own cgroup was full: {ev}")
# the tasks of the cgroup: the helpers and the shells, unshare, mount, cp
# and sleep that start them (comm as the kernel truncates it, 15 bytes)
ours = {"waiters", "waiters_nofp", "waiters_strippe", "waiters_ns", "w_pipe", "w_sleep",
        "w_futex", "w_feed", "sh", "unshare", "mount", "cp", "sleep"}
for name in ("js", "blocked", "runq", "cap"):
    rep = json.loads(open(f"{tmp}/{name}.out").read().splitlines()[-1])
    others = {s["comm"] for g in rep["groups"] for s in g["stacks"]} - ours
    if others:
        bad.append(f"{name}: tasks from outside the cgroup of -c: {sorted(others)}")
for g in r["groups"]:
    for s in g["stacks"]:
        if len(s["user_build_ids"]) != len(s["user"]):
            bad.append(f"{len(s['user_build_ids'])} build ids for {len(s['user'])} user frames: {s}")
for run, binary in (("fp", "waiters"), ("nofp", "waiters_nofp"), ("stripped", "waiters_stripped"),
                    ("ns", "waiters_ns"), ("exec", "waiters")):
    threads = [l.split() for l in open(f"{tmp}/{run}.txt") if l.startswith("thread ")]
    if len(threads) != 3:
        bad.append(f"{run}: the helper printed {len(threads)} threads")
    for t in threads:
        comm, tid, calls, own = t[1], t[3], int(t[5]), int(t[7])
        g = groups.get(tid)
        if not g:
            bad.append(f"{run} {comm}: thread {tid} not in the report (events {ev})")
            continue
        st = [s for s in g["stacks"] if any(kpath[comm] in f for f in s["kernel"])]
        # a stack the maps could not take is counted (kstack_lost,
        # ustack_lost: a walk that failed), so a thread may show a lost
        # stack if the run counted losses, two threads of the 15 at most
        if not st and any(s["kernel"] == ["[lost kernel stack]"] for s in g["stacks"]):
            lost.append(f"{run} {comm} kernel")
            continue
        if len(st) != 1:
            bad.append(f"{run} {comm}: {len(st)} stacks with {kpath[comm]}: {g['stacks']}")
            continue
        s = st[0]
        # the thread's waits: its blocking stack, and any preemption inside
        # a call (another stack: on a busy host a call's on-CPU part can be
        # preempted, and that wait is inside the thread's own timing too)
        err = abs(g["wait_ns"] - own) / own
        print(f"{run} {comm}: {s['wait_ns']} ns in {s['count']} waits ({g['wait_ns']} ns in all), "
              f"own {own} ns in {calls} calls ({100 * err:.2f} %), user {s['user']}")
        if err > 0.02:
            bad.append(f"{run} {comm}: {g['wait_ns']} ns vs its own {own} ns")
        if s["wait_ns"] < g["wait_ns"] / 2:
            bad.append(f"{run} {comm}: the blocking stack holds under half the waits")
        if s["user"] == ["[lost user stack]"]:
            lost.append(f"{run} {comm} user")
            continue
        if not s["user"] or not re.match(leaf[comm], s["user"][-1]):
            bad.append(f"{run} {comm}: innermost user frame not the libc call: {s['user']}")
        if run in ("fp", "ns", "exec") and ufunc[comm] not in s["user"]:
            bad.append(f"{run} {comm}: user frames without {ufunc[comm]}: {s['user']}")
        # the thread function's frame: its file's build id (the copy in
        # the other namespace is the same file: the same id)
        if ufunc[comm] in s["user"]:
            i = s["user"].index(ufunc[comm])
            if s["user_build_ids"][i] != bid_fp:
                bad.append(f"{run} {comm}: build id {s['user_build_ids'][i]} of {ufunc[comm]}, "
                           f"readelf says {bid_fp}")
        if run == "stripped":
            if any(f in s["user"] for f in ufunc.values()):
                bad.append(f"stripped {comm}: a name from a stripped binary: {s['user']}")
            mo = [i for i, f in enumerate(s["user"]) if re.match(r"^waiters_stripped\+0x[0-9a-f]+$", f)]
            if not mo:
                bad.append(f"stripped {comm}: no module+offset frame: {s['user']}")
            elif any(s["user_build_ids"][i] != bid_stripped for i in mo):
                bad.append(f"stripped {comm}: build ids {s['user_build_ids']}, readelf says {bid_stripped}")
if lost:
    print(f"stacks lost to the stack map (counted: {ev['kstack_lost']} kernel, "
          f"{ev['ustack_lost']} user): {lost}")
    if len(lost) > 2:
        bad.append(f"{len(lost)} of the helpers' stacks lost: {lost}")
    if any(l.endswith(" kernel") for l in lost) and not ev["kstack_lost"]:
        bad.append(f"a kernel stack lost and not counted: {lost}")
    if any(l.endswith(" user") for l in lost) and not ev["ustack_lost"]:
        bad.append(f"a user stack lost and not counted: {lost}")
# the folded report: same stacks, same waits (ns to us: each line rounds down)
folded = {}
for l in open(f"{tmp}/folded.out"):
    if l.strip():
        stack, v = l.rsplit(" ", 1)
        folded[stack] = folded.get(stack, 0) + int(v)
if re.search(r"profile: [1-9][0-9]* waits .* not kept", open(f"{tmp}/folded.err").read()):
    bad.append("folded: the profile map of the test's own cgroup was full")
for comm in ("w_pipe", "w_sleep", "w_futex"):
    js = sum(s["wait_ns"] for g in r["groups"] for s in g["stacks"]
             if s["comm"] == comm and any(kpath[comm] in f for f in s["kernel"]))
    fo = sum(v for k, v in folded.items() if k.startswith(comm + ";") and kpath[comm] in k)
    # two profiles of one run: the second attached later (a few ms of waits)
    if abs(fo * 1000 - js) > 0.02 * js:
        bad.append(f"folded {comm}: {fo} us vs JSON {js} ns")
    if not any(re.match(rf"^{comm};.*{ufunc[comm]};.*;{kpath[comm]}[^;]*_\[k\];.*__schedule_\[k\]$", k)
               for k in folded):
        bad.append(f"folded {comm}: no comm;user...;kernel..._[k] line with {ufunc[comm]}")
# all five instances see every wait of the workload (attached before it,
# stopped after): per thread, blocked + runq = offcpu (1 %, below)
def tid_waits(name):
    rep = json.loads(open(f"{tmp}/{name}.out").read().splitlines()[-1])
    if rep["events"]["map_full"]:
        bad.append(f"{name}: the profile map of the test's own cgroup was full: {rep['events']}")
    return {g["key"]: g["wait_ns"] for g in rep["groups"]}
blk, rq = tid_waits("blocked"), tid_waits("runq")
for run in ("fp", "nofp", "stripped", "ns", "exec"):
    for t in (l.split() for l in open(f"{tmp}/{run}.txt") if l.startswith("thread ")):
        tid, off = t[3], groups[t[3]]["wait_ns"] if t[3] in groups else 0
        if not off:
            continue	# not in the report: a failure above
        b, q = blk.get(tid, 0), rq.get(tid, 0)
        # each instance stamps each switch itself, at its own place in
        # the tracepoint's program list: a thread's stamps differ by the
        # other programs' run times, microseconds per wait on a busy host
        if not b or abs(b + q - off) > 0.01 * off:
            bad.append(f"{run} {t[1]}: blocked {b} + runq {q} ns != offcpu {off} ns")
c = json.loads(open(f"{tmp}/cap.out").read().splitlines()[-1])
ce = c["events"]
print(f"--max-keys 4: {ce}")
# the poller keeps the entries of gone tasks it removed from the kernel's
# map: the map itself never held more than 4
if ce["entries"] - ce["entries_removed"] > 4 or not ce["map_full"] or not ce["map_full_ns"]:
    bad.append(f"--max-keys 4: {ce['entries']} entries, map_full {ce['map_full']}")
if ce["seen"] != ce["recorded"] + ce["map_full"]:
    bad.append(f"--max-keys 4: events do not add up: {ce}")
if not ce["kstack_lost"] + ce["ustack_lost"]:
    bad.append(f"--max-keys 4: 8 user stacks held every stack of the workload: {ce}")
if "not kept (profile map full" not in open(f"{tmp}/cap.err").read():
    bad.append("--max-keys 4: no warning on stderr")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
