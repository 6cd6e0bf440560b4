#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# -k cgroup names people recognise, on real cgroups: under a private
# parent in the cgroup2 hierarchy (found in /proc/self/mountinfo), cgroups
# named as systemd, Docker, Podman, containerd, CRI-O and the kubelet
# (systemd and cgroupfs drivers) name theirs, one spinner in each, all on
# CPU 0 so that each waits on the run queue. Each key must carry exactly
# the unit, container id, pod uid and QoS class its name gives (the
# expected labels are written out below, not computed by schedhist's
# rules), in JSON, as Prometheus labels of a live scrape, and beside the
# path in the text and --summary reports; each key's count is its
# spinner's own pcount (plus its main thread's few waits), so the labels
# sit on the waits of the right cgroup. On a hybrid host (v1 controllers
# beside cgroup2) the same names under the v1 cpu hierarchy, with
# --cgroup-hier cpu, give the same labels. A unit label only where systemd
# manages the hierarchy (/run/systemd/system, or init.scope at its root):
# on a host without systemd, "system.slice/x.service" is a directory.
. "$(dirname "$0")/../lib.sh"
need_root
MNT=$(cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup2 hierarchy mounted"
command -v curl >/dev/null || skip "curl not installed (Debian package curl)"

NAME=schedhist-names-$$
PARENT=$MNT/$NAME
C1=3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f
C2=b16a2f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a
C3=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
C4=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
C5=a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90
C6=5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f
U1=0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b
U2=9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
U3=11223344-5566-4778-8899-aabbccddeeff
# leaf (below $PARENT) -> the JSON fields it must have, besides key and cgroup_id
LEAVES=(
	"kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${U1//-/_}.slice/cri-containerd-$C1.scope"
	"kubepods/besteffort/pod$U2/$C2"
	"kubepods.slice/kubepods-pod${U3//-/_}.slice/crio-$C6.scope"
	"docker/$C3"
	"system.slice/docker-$C4.scope"
	"machine.slice/libpod-$C5.scope/container"
	"system.slice/schedhist-names.service"
)
# the v1 cpu hierarchy too, where there is one
V1=$(cgroup_mount cpu)
PARENTS=("$PARENT")
[ -n "$V1" ] && PARENTS+=("$V1/$NAME")
test_cleanup() {
	local d par
	for par in "${PARENTS[@]}"; do
		for d in $(find "$par" -depth -type d 2>/dev/null); do
			for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		done
	done
	sleep 0.1
	for par in "${PARENTS[@]}"; do
		find "$par" -depth -type d -exec rmdir {} + 2>/dev/null
	done
}
for par in "${PARENTS[@]}"; do
	for l in "${LEAVES[@]}"; do
		mkdir -p "$par/$l" || fail "cannot create $par/$l"
	done
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# one report at the end covering the whole run (the counts), text and
# --summary, and an exporter scraped while the spinners run
start_sh json -M runq -k cgroup -c "$PARENT" -j
JS=$SH_PID
start_sh text -M runq -k cgroup -c "$PARENT"
TX=$SH_PID
start_sh summary -M runq -k cgroup -c "$PARENT" --summary
SU=$SH_PID
start_sh prom -M runq -k cgroup -c "$PARENT" --listen "127.0.0.1:$port" -i 0.3
PR=$SH_PID
V1PID=
if [ -n "$V1" ]; then
	start_sh v1 -M runq -k cgroup --cgroup-hier cpu -c "$V1/$NAME" -j
	V1PID=$SH_PID
fi

i=0
for l in "${LEAVES[@]}"; do
	i=$((i + 1))
	# a member of the leaf of that name in each hierarchy
	sh -c 'while [ "$1" != -- ]; do echo $$ >"$1/cgroup.procs" || exit 1; shift; done
		shift; exec "$@"' sh "${PARENTS[@]/%//$l}" -- \
		"$HELPERS/spinners" -n 1 -c 0 -t 1.5 -N "names$i" -x >"$TMP/leaf$i.txt" &
	CHILD_PIDS+=($!)
done
wait "${CHILD_PIDS[@]}" || fail "a spinner failed"
# the exporter has read the maps at least once since the spinners ended
# (a reading every 0.3 s; the scrape loop ends when all seven are there)
for i in $(seq 1 100); do
	curl -sS --max-time 10 "http://127.0.0.1:$port/metrics" >"$TMP/metrics.txt" ||
		fail "scrape failed: $(cat "$TMP/prom.err")"
	[ "$(grep -c "^schedhist_wait_seconds_count{.*key=\"/$NAME/" "$TMP/metrics.txt")" -ge ${#LEAVES[@]} ] &&
		break
	sleep 0.3
done
for p in $JS $TX $SU $PR $V1PID; do
	stop_sh "$p" || fail "schedhist $p exited with $?"
done

# does systemd manage each hierarchy (the rule of schedhist(8), Cgroup names)
UNITS2=0 UNITS1=0
{ [ -d /run/systemd/system ] || [ -d "$MNT/init.scope" ]; } && UNITS2=1
{ [ -d /run/systemd/system ] || { [ -n "$V1" ] && [ -d "$V1/init.scope" ]; }; } && UNITS1=1
echo "units: cgroup2 $UNITS2, v1 $UNITS1 (1: systemd manages the hierarchy)"
UNITS2=$UNITS2 UNITS1=$UNITS1 python3 - "$TMP" "/$NAME" "$C1" "$C2" "$C3" "$C4" "$C5" "$C6" "$U1" "$U2" "$U3" "${LEAVES[@]}" \
	<<'PY' || fail "labels or counts wrong (above)"
import json, re, sys
tmp, parent = sys.argv[1], sys.argv[2]
C1, C2, C3, C4, C5, C6, U1, U2, U3 = sys.argv[3:12]
leaves = sys.argv[12:]
want = [
    {"unit": f"cri-containerd-{C1}.scope", "container_id": C1, "pod_uid": U1, "qos": "burstable"},
    {"container_id": C2, "pod_uid": U2, "qos": "besteffort"},
    {"unit": f"crio-{C6}.scope", "container_id": C6, "pod_uid": U3, "qos": "guaranteed"},
    {"container_id": C3},
    {"unit": f"docker-{C4}.scope", "container_id": C4},
    {"unit": f"libpod-{C5}.scope", "container_id": C5},
    {"unit": "schedhist-names.service"},
]
for w in want:
    if "container_id" in w:
        w["container_id_short"] = w["container_id"][:12]
import copy, os
# without systemd managing the hierarchy a unit-like name is no unit
want1 = copy.deepcopy(want)
for ws, managed in ((want, os.environ["UNITS2"]), (want1, os.environ["UNITS1"])):
    for w in ws:
        if managed != "1":
            w.pop("unit", None)
notes = [
    f"container {C1[:12]}, pod {U1}, burstable",
    f"container {C2[:12]}, pod {U2}, besteffort",
    f"container {C6[:12]}, pod {U3}, guaranteed",
    f"container {C3[:12]}",
    f"container {C4[:12]}",
    f"container {C5[:12]}",
    None,   # the path's last component is the unit: nothing beside it
]
LABELS = ("unit", "container_id", "container_id_short", "pod_uid", "qos")
bad = []
reports = [json.loads(l) for l in open(f"{tmp}/json.out")]
assert len(reports) == 1, f"{len(reports)} JSON reports, want the one at the end"
groups = {g["key"]: g for g in reports[0]["groups"]}
try:
    v1 = [json.loads(l) for l in open(f"{tmp}/v1.out")]
    assert len(v1) == 1, f"{len(v1)} v1 reports"
    v1groups = {g["key"]: g for g in v1[0]["groups"]}
except FileNotFoundError:
    v1groups = None     # a pure cgroup2 host
text = open(f"{tmp}/text.out").read()
summary = open(f"{tmp}/summary.out").read()
series = {}
for line in open(f"{tmp}/metrics.txt"):
    m = re.match(r'schedhist_wait_seconds_count\{(.*)\} (\d+)$', line)
    if m:
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1)))
        series[labels["key"]] = labels
for i, (leaf, w, w1, note) in enumerate(zip(leaves, want, want1, notes), 1):
    path = f"{parent}/{leaf}"
    g = groups.get(path)
    if not g:
        bad.append(f"{path}: no JSON group (have {sorted(groups)})")
        continue
    got = {k: g[k] for k in LABELS if k in g}
    if got != w:
        bad.append(f"{path}: JSON labels {got}, want {w}")
    tid, rd, pc = (lambda r: (r[1], int(r[3]), int(r[5])))(open(f"{tmp}/leaf{i}.txt").read().split())
    # its spinner thread's switch-ins, and the main thread's few
    if not 0 <= g["count"] - pc <= 10:
        bad.append(f"{path}: count {g['count']}, its spinner's pcount {pc}")
    if v1groups is not None:
        g1 = v1groups.get(path)
        if not g1:
            bad.append(f"{path}: no group under the v1 cpu hierarchy (have {sorted(v1groups)})")
        else:
            got1 = {k: g1[k] for k in LABELS if k in g1}
            if got1 != w1:
                bad.append(f"{path}: v1 labels {got1}, want {w1}")
            if not 0 <= g1["count"] - pc <= 10:
                bad.append(f"{path}: v1 count {g1['count']}, its spinner's pcount {pc}")
    s = series.get(path)
    if s is None:
        bad.append(f"{path}: no Prometheus series")
    else:
        got = {k: s[k] for k in LABELS if k in s}
        if got != w:
            bad.append(f"{path}: Prometheus labels {got}, want {w}")
    line = f"cgroup = {path}" + (f" ({note})" if note else "") + "\n"
    if line not in text:
        bad.append(f"text: no line {line!r}")
    if not re.search(re.escape(path + (f" ({note})" if note else "")) + r" +\d", summary):
        bad.append(f"--summary: no row for {path} with {note!r}")
    v1c = f", v1 count {v1groups[path]['count']}" if v1groups and path in v1groups else ""
    print(f"{leaf[:60]}...: count {g['count']} (pcount {pc}){v1c}, {sorted(got)}")
# the private parent itself: no convention, no labels
for k, g in groups.items():
    if not k.startswith(parent + "/") and any(f in g for f in LABELS):
        bad.append(f"{k}: labels it should not have: {g}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
