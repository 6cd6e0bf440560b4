# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Shared by the container tests (container_image.sh, kube_play.sh), sourced
# after tests/lib.sh: builds the image of contrib/image/build.sh under a
# name of this run, and removes it and every container and pod of the run
# on exit (podman_cleanup, called from the test's test_cleanup).

command -v podman >/dev/null || skip "podman not installed (Debian package podman)"
command -v buildah >/dev/null || skip "buildah not installed (Debian package buildah)"
command -v runc >/dev/null || skip "runc not installed (Debian package runc)"

# podman's settings for the run, in a file of its own (CONTAINERS_CONF):
#  - runc: crun refuses hosts with hybrid cgroups ("cgroups in hybrid mode
#    not supported") while runc takes them, and a test runs on both kinds;
#  - ulimits no higher than this shell's: podman's default raises
#    RLIMIT_NOFILE, which a runtime without CAP_SYS_RESOURCE (a sandboxed
#    machine) cannot do. The values bound nothing schedhist does.
cat >"$TMP/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF=$TMP/containers.conf
RUN_TAG=t$$
IMAGE=localhost/schedhist-test:$RUN_TAG
PODMAN_PODS=() PODMAN_CTRS=()

# build_image: contrib/image/build.sh of $SCHEDHIST as $IMAGE; its size in
# KiB in IMAGE_KIB
build_image() {
	local out
	out=$(contrib/image/build.sh "$SCHEDHIST" test "$IMAGE" 2>&1) || { echo "$out"; fail "image build failed"; }
	IMAGE_KIB=$(printf '%s\n' "$out" | sed -n 's/^image: .*, \([0-9]*\) KiB$/\1/p')
	[ -n "$IMAGE_KIB" ] || { echo "$out"; fail "the build did not say the image's size"; }
}

# seccomp_profile: the profile of contrib/image/seccomp-profile.py in $TMP/seccomp.json
seccomp_profile() {
	not_reports "$TMP/seccomp.json"
	contrib/image/seccomp-profile.py >"$TMP/seccomp.json" || fail "seccomp-profile.py failed"
}

podman_cleanup() {
	local p c
	for p in "${PODMAN_PODS[@]}"; do podman pod rm -f -t 2 "$p" >/dev/null 2>&1; done
	for c in "${PODMAN_CTRS[@]}"; do podman rm -f -t 2 "$c" >/dev/null 2>&1; done
	podman rmi -f "$IMAGE" >/dev/null 2>&1
	true
}
