#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Installs, from Debian's archive, what building and testing schedhist
# needs and this machine lacks. Idempotent; quiet when nothing is missing.
#   build:  clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev pkg-config make gcc
#           libmicrohttpd-dev and libcap-ng-dev (fleet mode: --listen, dropping privileges)
#           libncurses-dev (--live, the terminal view)
#   tests:  python3 (JSON checks), mandoc (man page lint), libxml2-utils
#           (xmllint for the heatmap SVG), linux-perf (workloads), chromium
#           (renders the heatmap and the live page in tests), tmux (drives
#           --live in a test), prometheus (promtool and a
#           real server scraping --listen), curl, iproute2 (ss),
#           libclang-rt-14-dev (libFuzzer and the sanitizers' runtimes),
#           valgrind (memcheck run), strace (fault injection at startup)
set -eu
pkgs="make gcc pkg-config clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev \
python3 mandoc libxml2-utils linux-perf procps chromium tmux \
libmicrohttpd-dev libcap-ng-dev libncurses-dev prometheus curl iproute2 \
libclang-rt-14-dev valgrind strace"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing Debian packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
