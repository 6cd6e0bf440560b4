#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Installs, from Debian's archive, what this machine lacks for schedhist.
# Idempotent; quiet when nothing is missing.
#   scripts/install-deps.sh          building and running schedhist, nothing else
#                                    (what a production host that builds it needs)
#   scripts/install-deps.sh --deb    and building the Debian package (dpkg-buildpackage)
#   scripts/install-deps.sh --test   and everything the tests use (implies --deb)
#
#   build:  clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev pkg-config make gcc
#           libmicrohttpd-dev and libcap-ng-dev (fleet mode: --listen, dropping
#           privileges), libncurses-dev (--live, the terminal view),
#           liblzma-dev (--profile: minidebuginfo, the xz'ed .gnu_debugdata
#           symbols), libiberty-dev (--profile: C++ and Rust names demangled),
#           libseccomp-dev (the seccomp filter of --profile's unprivileged
#           poller); their runtime libraries come with them
#   --deb:  dpkg-dev debhelper fakeroot build-essential, and python3-jsonschema for
#           the unit tests the package build runs (debian/control's Build-Depends)
#   --test: python3 and python3-jsonschema (JSON checks, every report validated
#           against docs/report.schema.json), mandoc (man page lint),
#           libxml2-utils (xmllint for the heatmap SVG), linux-perf (workloads),
#           procps, chromium (renders the heatmap to PNG in a test), prometheus,
#           libbpf-tools (offcputime: the reference of --profile's test and bench arm),
#           util-linux (unshare: a process in another mount namespace),
#           binutils (strip and readelf: test_symbolize's ELF fixtures and
#           profile.sh's build ids; gcc pulls it in, named here all the same),
#           g++ (test_symbolize's C++ fixture), xz-utils (test_elf_syms'
#           minidebuginfo fixture),
#           (promtool and a real server scraping --listen), curl, iproute2 (ss),
#           libclang-rt-14-dev (libFuzzer and the sanitizers' runtimes),
#           valgrind (memcheck run), strace (fault injection at startup),
#           lintian, systemd (systemd-analyze) and man-db (the Debian package
#           test: lint, the unit's verification and its security score),
#           podman, buildah and runc (the container image, built and run, and
#           the Kubernetes pod under podman kube play; catatonit, the init of
#           its pause container, which podman only recommends), python3-yaml (the
#           manifests parsed), libcap2-bin (capsh: runs without a capability),
#           golang-go (go tool pprof reads --profile's --pprof output)
#           qemu-system-x86 and busybox-static (make vmtest and the tests/integration/vm_*
#           tests: Debian's kernels booted under QEMU, a busybox initramfs);
#           then Debian 12's kernel package for those tests, fetched once into
#           /var/cache/schedhist/vm with its initramfs, and whether KVM guests
#           run here (tests/vm/boot.sh --prepare 6.1): make test only boots it
set -eu
cd "$(dirname "$0")/.."

# vm_prepare: the VM tests' kernel and accelerator, cached (--test, as root)
vm_prepare() {
	[ "$(id -u)" -eq 0 ] || return 0
	tests/vm/boot.sh --prepare 6.1 >/dev/null ||
		echo "install-deps: could not fetch Debian's 6.1 kernel (the VM tests will skip or fail)" >&2
}
build="make gcc pkg-config clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev \
libmicrohttpd-dev libcap-ng-dev libncurses-dev liblzma-dev libiberty-dev libseccomp-dev"
deb="dpkg-dev debhelper fakeroot build-essential python3 python3-jsonschema"
test="python3 python3-jsonschema mandoc libxml2-utils linux-perf procps chromium \
prometheus curl iproute2 libclang-rt-14-dev valgrind strace lintian \
systemd man-db tmux podman buildah runc catatonit python3-yaml libcap2-bin \
libbpf-tools util-linux binutils g++ xz-utils golang-go qemu-system-x86 busybox-static"
pkgs=$build
case "${1:-}" in
"") ;;
--deb) pkgs="$build $deb" ;;
--test) pkgs="$build $deb $test" ;;
*)
	echo "install-deps: unknown option '$1' (use --deb or --test, or nothing)" >&2
	exit 2
	;;
esac
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ "${1:-}" = --test ] && vm_prepare
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing Debian packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
[ "${1:-}" = --test ] && vm_prepare
exit 0
