#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --profile on a busy host: 20 s beside tests/helpers/churn (threads and
# processes made and ended, 16 at a time) and an exec storm (a shell
# running /bin/true in a loop: every process has new user stacks, ASLR),
# with waiters' w_pipe blocked in read(2) throughout, system-wide (no -c:
# the churn must reach the maps). The issue it guards: kernel stacks lost
# to user-stack churn in a shared stack map, nothing removed after the
# processes had gone, and a flame graph as tall as frames too thin to see.
# 20 s rather than 60: the poller removes what gone tasks left every
# second and their stacks every 2 s, so 20 s is ten of those rounds, and
# the maps' fill (reported as entries and stacks removed) has long reached
# its steady state; the suite's budget wants the minute back.
#  - no kernel stack lost (kstack_lost 0), and w_pipe's waits on its
#    anon_pipe_read stack, none on [lost kernel stack]
#  - user stacks lost are counted, and hold under 1 % of the time
#  - the poller removed entries and stacks (the GC ran)
#  - the flame graph is as tall as its deepest frame of 0.1 px or more
#    (computed here from the folded stacks of the same run)
. "$(dirname "$0")/../lib.sh"
need_root
# --profile writes as nobody once attached: a directory it may write in
chmod 0711 "$TMP" && mkdir "$TMP/out" && chown nobody "$TMP/out"
start_sh js --profile -k tid -j -d 20
JS=$SH_PID
start_sh fold --profile --unit ns -d 20 --flamegraph "$TMP/out/fg.svg"
FOLD=$SH_PID
"$HELPERS/churn" -t 18 -m both -c 16 >"$TMP/churn.txt" &
CHILD_PIDS+=($!)
(end=$((SECONDS + 18)); while [ $SECONDS -lt $end ]; do /bin/true; done) &
CHILD_PIDS+=($!)
"$HELPERS/waiters" -m 5 -t 18 >"$TMP/w.txt" &
CHILD_PIDS+=($!)
wait "${CHILD_PIDS[@]}" || fail "the workload failed"
for p in $JS $FOLD; do stop_sh "$p" || fail "schedhist exited with $?: $(cat "$TMP"/*.err)"; done

python3 - "$TMP" <<'PY' || exit 1
import json, re, sys
tmp = sys.argv[1]
bad = []
r = json.loads(open(f"{tmp}/js.out").read().splitlines()[-1])
ev = r["events"]
print(f"events: {ev}")
if ev["kstack_lost"]:
    bad.append(f"{ev['kstack_lost']} kernel stacks lost")
total = sum(s["wait_ns"] for g in r["groups"] for s in g["stacks"])
ulost = sum(s["wait_ns"] for g in r["groups"] for s in g["stacks"] if s["user"] == ["[lost user stack]"])
stacks_listed = sum(len(g["stacks"]) for g in r["groups"])
print(f"user stacks lost: {ev['ustack_lost']} walks, {100 * ulost / total:.3f} % of the listed time")
if ulost > 0.01 * total:
    bad.append(f"user stacks lost hold {100 * ulost / total:.2f} % of the time")
if not ev["entries_removed"] or not ev["stacks_removed"]:
    bad.append(f"nothing removed from the kernel: {ev}")
tid = next(l.split()[3] for l in open(f"{tmp}/w.txt") if l.startswith("thread w_pipe"))
g = next((g for g in r["groups"] if g["key"] == tid), None)
if not g:
    bad.append(f"w_pipe ({tid}) not in the report")
else:
    ok = sum(s["wait_ns"] for s in g["stacks"] if "anon_pipe_read" in s["kernel"])
    lost = sum(s["wait_ns"] for s in g["stacks"] if s["kernel"] == ["[lost kernel stack]"])
    print(f"w_pipe: {ok / 1e9:.3f} s on anon_pipe_read of {g['wait_ns'] / 1e9:.3f} s")
    if lost or ok < g["wait_ns"] / 2:
        bad.append(f"w_pipe: {lost} ns on a lost kernel stack, {ok} ns on its read path")
# the flame graph's height: 40 + levels x 17 + 10, the levels of the frames
# 0.1 px or wider at 1180 px for the total (flamegraph.h's geometry)
tree, tot = {}, 0
for l in open(f"{tmp}/fold.out"):
    if l.strip():
        st, v = l.rsplit(" ", 1)
        tot += int(v)
        node = tree
        for f in st.split(";"):
            c = node.setdefault(f, [0, {}])
            c[0] += int(v)
            node = c[1]
def depth(children):
    return max((1 + depth(c[1]) for c in children.values() if c[0] * 1180 / tot >= 0.1), default=0)
want = 40 + (1 + depth(tree)) * 17 + 10
svg = open(f"{tmp}/out/fg.svg").read()
h = int(re.search(r'<svg [^>]*height="(\d+)"', svg).group(1))
deepest = max(len(l.rsplit(" ", 1)[0].split(";")) for l in open(f"{tmp}/fold.out") if l.strip())
print(f"flame graph {h} px tall, {want} px by the frames drawn; deepest stack {deepest} frames")
if h != want:
    bad.append(f"flame graph {h} px tall, its frames want {want} px")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
