#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The container image (contrib/image/build.sh, make image), run by podman
# the way a fleet runs it:
#  - it builds from this tree alone, holds the binary, its libraries, the
#    man page and the schema and nothing to run but schedhist, under 30 MB;
#  - run with --pid=host, a read-only root, no new privileges, every
#    capability dropped but CAP_BPF and CAP_PERFMON, the seccomp profile of
#    contrib/image/seccomp-profile.py, the host's /sys/kernel/btf and
#    /sys/fs/cgroup read-only: its JSON reports pass the schema (tests/lib.sh)
#    and name the host's cgroups: a spinner's cgroup made by this test,
#    with waits, and every other key a cgroup directory of the host;
#  - those two capabilities are the least: without either, one line naming
#    the missing one and exit 2 (the image's entrypoint is schedhist
#    itself, so podman's exit status is schedhist's), nothing loaded; without
#    /sys/kernel/btf mounted, the same for the BTF.
source "$(dirname "$0")/../lib.sh"
need_root
source "$(dirname "$0")/../container-lib.sh"
MNT=$(cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup2 hierarchy mounted"
before=$(our_objects)
CG=schedhist-img-$$
test_cleanup() { podman_cleanup; remove_cgroup_tree "$MNT/$CG"; }

build_image
echo "image $IMAGE: $IMAGE_KIB KiB"
[ "$IMAGE_KIB" -lt $((30 * 1024)) ] || fail "image is $IMAGE_KIB KiB, over 30 MB"
# its files: what the build put there and nothing else (no shell, no tools)
ctr=$(buildah from "$IMAGE") || fail "buildah from $IMAGE failed"
root=$(buildah mount "$ctr")
( cd "$root" && find . -type f | sort ) >"$TMP/files"
buildah umount "$ctr" >/dev/null; buildah rm "$ctr" >/dev/null
for f in ./usr/sbin/schedhist ./usr/share/man/man8/schedhist.8.gz \
	./usr/share/schedhist/report.schema.json ./etc/passwd; do
	grep -qx "$f" "$TMP/files" || fail "the image lacks $f"
done
grep -E '/(sh|bash|busybox)$' "$TMP/files" && fail "the image holds a shell"
others=$(grep -vE '^\./(usr/)?lib(64|/x86_64-linux-gnu)?/|^\./usr/sbin/schedhist$|^\./usr/share/|^\./etc/(passwd|group)$' "$TMP/files")
[ -z "$others" ] || fail "unexpected files in the image: $others"
echo "files: $(wc -l <"$TMP/files") ($(grep -c '\.so' "$TMP/files") shared libraries)"

seccomp_profile
mkdir "$MNT/$CG" "$MNT/$CG/w" || fail "cannot make cgroups under $MNT"
in_cgroup "$MNT/$CG/w" "$HELPERS/spinners" -n 2 -c 0 -t 3 -N imgspin -x >"$TMP/spin.out" &
CHILD_PIDS+=($!)

# run NAME CAPS [PODMAN OPTIONS...] -- [SCHEDHIST ARGS...]: the image as a
# fleet runs it; stdout in $TMP/NAME.out, stderr in $TMP/NAME.err, exit status in rc
run() {
	local name=$1 caps=$2 opts=()
	shift 2
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	PODMAN_CTRS+=("sh-$RUN_TAG-$name")
	podman run --rm --name "sh-$RUN_TAG-$name" --pid=host --cgroupns=host --read-only \
		--security-opt no-new-privileges --security-opt seccomp="$TMP/seccomp.json" \
		--cap-drop=all ${caps:+--cap-add=$caps} "${opts[@]}" \
		"$IMAGE" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
}
RO="-v /sys/kernel/btf:/sys/kernel/btf:ro -v /sys/fs/cgroup:/sys/fs/cgroup:ro"
# shellcheck disable=SC2086
run json bpf,perfmon $RO -- -M runq -k cgroup -c "/$CG" -j 1 2
[ $rc -eq 0 ] || { cat "$TMP/json.err"; fail "the image with CAP_BPF, CAP_PERFMON exited with $rc"; }
python3 - "$TMP/json.out" "$MNT" "$CG" <<'PY' || fail "the image's reports do not name the host's cgroups"
import json, os, sys
out, mnt, cg = sys.argv[1:]
reps = [json.loads(l) for l in open(out) if l.startswith('{')]
assert len(reps) == 2, f'{len(reps)} reports, want 2'
seen = {}
for r in reps:
    assert r['key'] == 'cgroup', r['key']
    for g in r['groups']:
        k = g['key']
        if k.startswith('['):
            continue
        assert os.path.isdir(mnt + k), f'key {k!r} is no cgroup directory of the host under {mnt}'
        seen[k] = seen.get(k, 0) + g['count']
want = f'/{cg}/w'
assert seen.get(want, 0) > 0, f'no waits of the spinners\' cgroup {want}: {seen}'
print(f'keys {sorted(seen)}; {want}: {seen[want]} waits')
PY
echo "ok: reports from the container name the host's cgroups"

# the least capabilities: each of the two alone fails, named, exit 2
for caps in bpf perfmon ""; do
	# shellcheck disable=SC2086
	run "caps${caps:-none}" "$caps" $RO -- -M runq -d 1
	case $caps in
	bpf) want="missing capability CAP_PERFMON: grant it" ;;
	perfmon) want="missing capability CAP_BPF: grant it" ;;
	*) want="missing capabilities CAP_BPF and CAP_PERFMON: grant them" ;;
	esac
	if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/caps${caps:-none}.err")" -ne 1 ] ||
	   ! grep -q "^schedhist: $want (podman --cap-add" "$TMP/caps${caps:-none}.err"; then
		cat "$TMP/caps${caps:-none}.err"
		fail "--cap-add=${caps:-nothing}: exit $rc, want 2 and one line '$want'"
	fi
	echo "ok: --cap-add=${caps:-nothing}: $(cat "$TMP/caps${caps:-none}.err")"
done
# no BTF: an empty directory over the container's /sys/kernel/btf
mkdir "$TMP/empty"
run nobtf bpf,perfmon -v "$TMP/empty:/sys/kernel/btf:ro" -- -d 1
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/nobtf.err")" -eq 1 ] &&
	grep -q '^schedhist: kernel BTF not found at /sys/kernel/btf/vmlinux' "$TMP/nobtf.err" ||
	{ cat "$TMP/nobtf.err"; fail "without BTF: exit $rc, want 2 and one line"; }
echo "ok: no BTF: $(cat "$TMP/nobtf.err")"

wait "${CHILD_PIDS[0]}" || fail "spinners failed"
assert_no_new_objects "$before"
echo "PASS: image $IMAGE_KIB KiB; runs with CAP_BPF and CAP_PERFMON only"
