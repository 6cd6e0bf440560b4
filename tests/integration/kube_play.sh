#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# contrib/kubernetes/ under podman kube play (no cluster here):
#  - the manifests parse and carry what the DaemonSet must (tests/kube-pod.py
#    checks each field: hostPID, read-only root, no escalation, only CAP_BPF,
#    CAP_PERFMON, CAP_SETUID, CAP_SETGID, resources, probes on /metrics at
#    the --listen port, scrape annotations, read-only host mounts, a
#    PodMonitor selecting the pods);
#  - its pod template, played as a Pod (podman 4.3 plays no DaemonSet) with
#    the image of this tree, serves /metrics the way its probes ask for it
#    (GET /metrics on the container port: 200 and schedhist's families),
#    with a read-only root, as nobody, with no capability left once
#    attached and no_new_privs set;
#  - the same pod without its capabilities: schedhist exits 2 with one line
#    naming them, and /metrics never answers, so the readiness probe fails.
# podman 4.3 builds its pod's infra image locally from catatonit
# (localhost/podman-pause), no registry needed; the test removes it again
# if it made it. It does not honour hostPID (the pod gets a PID namespace of
# its own), which schedhist does not need to serve /metrics.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root
source "$(dirname "$0")/../container-lib.sh"
"$PY_DEBIAN" -c 'import yaml' 2>/dev/null || skip "no python3-yaml (Debian package python3-yaml)"
before=$(our_objects)
pause_before=$(podman images -q --filter reference=localhost/podman-pause)
test_cleanup() {
	podman_cleanup
	[ -n "$pause_before" ] || podman rmi -f $(podman images -q --filter reference=localhost/podman-pause) >/dev/null 2>&1
}

build_image
# play NAME PORT [CAPS]: the template as Pod NAME, serving PORT
play() {
	"$PY_DEBIAN" tests/kube-pod.py contrib/kubernetes "$IMAGE" "$2" "$1" ${3+"$3"} >"$TMP/$1.yaml" ||
		fail "the manifests of contrib/kubernetes/ fail their checks (above)"
	PODMAN_PODS+=("$1")
	podman kube play "$TMP/$1.yaml" >"$TMP/$1.play" 2>&1 || { cat "$TMP/$1.play"; fail "podman kube play $1 failed"; }
}
# probe PORT: what the probes get, GET /metrics with their timeout (5 s); the status code
probe() { curl -s -o "$TMP/probe.body" -w '%{http_code}' --max-time 5 "http://127.0.0.1:$1/metrics"; }

port=$(free_port)
pod=sh-$RUN_TAG-ok
play "$pod" "$port"
ctr=$pod-schedhist
for i in $(seq 1 300); do	# a hang guard of 30 s: the first answer after attaching
	[ "$(probe "$port")" = 200 ] && break
	[ "$(podman inspect -f '{{.State.Running}}' "$ctr")" = true ] ||
		{ podman logs "$ctr"; fail "the pod's schedhist exited"; }
	[ "$i" -lt 300 ] || { podman logs "$ctr"; fail "no /metrics within 30 s"; }
	sleep 0.1
done
grep -q '^schedhist_build_info{' "$TMP/probe.body" && grep -q '^schedhist_events_total{metric="runq"}' "$TMP/probe.body" ||
	fail "the probe's answer lacks schedhist's families"
pid=$(podman inspect -f '{{.State.Pid}}' "$ctr")
st=$(awk '/^(Uid|CapEff|NoNewPrivs):/ { printf "%s %s ", $1, $2 }' "/proc/$pid/status")
echo "pod's schedhist: $st"
[ "$st" = "Uid: 65534 CapEff: 0000000000000000 NoNewPrivs: 1 " ] ||
	fail "the pod's schedhist is not nobody without capabilities under no_new_privs: $st"
[ "$(podman inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$ctr")" = true ] || fail "the root is not read-only"
echo "ok: the pod serves /metrics ($(grep -c '^schedhist_' "$TMP/probe.body") samples)"
podman pod rm -f -t 5 "$pod" >/dev/null || fail "cannot remove pod $pod"

# without the capabilities: exit 2, one line, readiness never met
port=$(free_port)
pod=sh-$RUN_TAG-nocaps
play "$pod" "$port" ""
ctr=$pod-schedhist
for i in $(seq 1 300); do	# hang guard
	[ "$(podman inspect -f '{{.State.Status}}' "$ctr")" = exited ] && break
	[ "$i" -lt 300 ] || fail "the pod without capabilities still runs after 30 s"
	sleep 0.1
done
rc=$(podman inspect -f '{{.State.ExitCode}}' "$ctr")
podman logs "$ctr" >"$TMP/nocaps.log" 2>&1
[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/nocaps.log")" -eq 1 ] &&
	grep -q '^schedhist: missing capabilities CAP_BPF and CAP_PERFMON' "$TMP/nocaps.log" ||
	{ cat "$TMP/nocaps.log"; fail "without capabilities: exit $rc, want 2 and one line"; }
code=$(probe "$port")
[ "$code" != 200 ] || fail "/metrics answers without capabilities"
echo "ok: no capabilities: $(cat "$TMP/nocaps.log") (exit 2; the readiness probe gets ${code/000/no answer})"
podman pod rm -f -t 5 "$pod" >/dev/null
assert_no_new_objects "$before"
