#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --stacks: the kernel stack of each key's longest wait is the one the task
# left the CPU with. A thread blocking in nanosleep shows a nanosleep frame
# in its worst wait's stack; a thread blocked in a pipe read shows the pipe
# read path. Text shows the frames indented under the summary line. No
# capture is lost (JSON kernel_memory.stack_lost 0): a tid's stack entry
# is written by one CPU at a time.
# Both instances trace only the workload's cgroup: host-wide, a busy host's
# new tids drain the key map's allocator and a new key's waits go to
# [other] (no_mem, counted), the workload's too.
. "$(dirname "$0")/../lib.sh"
need_root
own_cgroup schedhist-stk

start_sh js -M offcpu -k tid --stacks -j "${OWN_FILTER[@]}"
JS=$SH_PID
start_sh txt -M offcpu -k tid --stacks "${OWN_FILTER[@]}"
TXT=$SH_PID
sh -c "$JOIN_CGROUP" "$OWN" "$HELPERS/sleeper" -m 20 -t 2 -N stk_sleep >/dev/null &
SLEEPER=$!
CHILD_PIDS+=($!)
# cat blocks reading the pipe between the writer's lines
mkfifo "$TMP/pipe"
sh -c "$JOIN_CGROUP" "$OWN" cat <"$TMP/pipe" >/dev/null &
CAT=$!
CHILD_PIDS+=($!)
for i in $(seq 1 20); do echo x; sleep 0.1; done >"$TMP/pipe"
wait "$SLEEPER" "$CAT" || fail "the workload failed"
for p in $JS $TXT; do stop_sh "$p" || fail "schedhist exited with $?"; done

python3 - "$TMP" "$SLEEPER" "$CAT" <<'PY'
import json, re, sys
tmp, sleeper, cat = sys.argv[1:]
r = json.loads(open(f"{tmp}/js.out").read().splitlines()[-1])
groups = {g["key"]: g for g in r["groups"]}
bad = []
# the instance sees the workload's two keys only: no overflow
if r["events"]["map_full"] or r["events"]["no_mem"]:
    bad.append(f"keys overflowed: {r['events']}")
for tid, name, want in ((sleeper, "nanosleep", r"nanosleep"), (cat, "pipe read", r"pipe_read\+")):
    g = groups.get(tid)
    if not g:
        bad.append(f"{name}: tid {tid} not in the report")
        continue
    st = g.get("max_stack")
    print(f"{name} (tid {tid}): max {g['max_ns']} ns, stack {st}")
    if not st:
        bad.append(f"{name}: no max_stack")
        continue
    if not all(re.match(r"^[A-Za-z0-9_.$]+\+0x[0-9a-f]+/0x[0-9a-f]+( \[\S+\])?$", f) for f in st):
        bad.append(f"{name}: a frame is not func+0xOFF/0xSIZE: {st}")
    if not any(re.search(want, f) for f in st):
        bad.append(f"{name}: no frame matches {want}")
    # innermost first: the frame that switched it out comes before the syscall entry
    entry = [i for i, f in enumerate(st) if f.startswith("entry_SYSCALL")]
    hit = [i for i, f in enumerate(st) if re.search(want, f)]
    if entry and hit and not hit[0] < entry[0]:
        bad.append(f"{name}: {want} is not inside the syscall entry (frames out of order)")
# one stack entry per key for all CPUs, written under its lock: a tid is
# switched in on one CPU at a time, so its stack is never written by two
# CPUs at once and no capture is lost (the field is there, at 0)
for l in open(f"{tmp}/js.out").read().splitlines():
    k = json.loads(l)["kernel_memory"]
    if k.get("stack_lost") != 0:
        bad.append(f"kernel_memory.stack_lost {k.get('stack_lost')}, want 0 (-k tid)")
        break
# text: the frames, indented, under the sleeper's summary line
txt = open(f"{tmp}/txt.out").read()
m = re.search(r"^tid = %s \(stk_sleep\)\n(?:.*\n)*?count .*\n  stack of the max wait \(tid %s\):\n((?:    \S.*\n)+)"
              % (sleeper, sleeper), txt, re.M)
if not m:
    bad.append("text: no stack under the sleeper's summary line")
else:
    frames = m.group(1).splitlines()
    if len(frames) > 13 or not any("nanosleep" in f for f in frames):
        bad.append(f"text: frames {frames}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
