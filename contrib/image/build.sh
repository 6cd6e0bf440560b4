#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Builds the schedhist container image from this tree and the host's Debian
# libraries only (no base image, no registry): an empty image (buildah from
# scratch) holding the binary, the shared libraries ldd names for it, the
# man page, and /etc/passwd and /etc/group with root and nobody (--user
# nobody drops to it once attached). Nothing else: no shell, no package
# manager, no CA or zone data (schedhist makes no outgoing connections and
# prints times in UTC).
#   contrib/image/build.sh BINARY VERSION [NAME]    (make image does this)
# NAME defaults to localhost/schedhist:VERSION. Prints the image's size.
set -eu
bin=$1 version=$2 name=${3:-localhost/schedhist:$2}
command -v buildah >/dev/null || { echo "image: buildah not found (Debian package buildah)" >&2; exit 2; }
[ -x "$bin" ] || { echo "image: $bin is not an executable (run make first)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "image: run as root (buildah mount needs it)" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)

ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null' EXIT
root=$(buildah mount "$ctr")

install -D -m 0755 "$bin" "$root/usr/sbin/schedhist"
strip --strip-unneeded "$root/usr/sbin/schedhist"
# every library at the path ldd resolves it to, and the dynamic loader
ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	while read -r lib; do
		install -D -m 0644 "$(readlink -f "$lib")" "$root$lib"
	done
chmod 0755 "$root"/lib*/ld-linux* "$root"/lib*/*/ld-linux* 2>/dev/null || true
install -d -m 0755 "$root/usr/share/man/man8" "$root/etc" "$root/tmp" "$root/proc" "$root/sys"
gzip -9n <"$src/man/schedhist.8" >"$root/usr/share/man/man8/schedhist.8.gz"
install -D -m 0644 "$src/docs/report.schema.json" "$root/usr/share/schedhist/report.schema.json"
printf 'root:x:0:0:root:/:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/:/usr/sbin/nologin\n' \
	>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
buildah umount "$ctr" >/dev/null

# The default command is the exporter of the DaemonSet (contrib/kubernetes/):
# run-queue latency per cgroup at depth 2 (the pod level under kubepods)
# and its culprits,
# every address of the pod's network, privileges dropped once attached.
buildah config \
	--entrypoint '["/usr/sbin/schedhist"]' \
	--cmd '["-M", "runq", "-k", "cgroup", "--cgroup-depth", "2", "--top", "100", "--culprits", "--listen", "0.0.0.0:9464", "--user", "nobody"]' \
	--port 9464/tcp \
	--label org.opencontainers.image.title=schedhist \
	--label org.opencontainers.image.version="$version" \
	--label org.opencontainers.image.description="Task wait-time histograms from eBPF, for Prometheus" \
	--label org.opencontainers.image.licenses="GPL-2.0 OR BSD-3-Clause" \
	"$ctr"
buildah commit --quiet --rm "$ctr" "$name" >/dev/null
trap - EXIT
size=$(buildah inspect --type image --format '{{.Size}}' "$name" 2>/dev/null ||
	podman image inspect --format '{{.Size}}' "$name")
echo "image: $name, $((size / 1024)) KiB"
