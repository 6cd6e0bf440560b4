#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Debian's kernels for the VM tests, fetched from the configured archive
# and cached. Sourced by tests/vm/boot.sh and tests/vm/vmtest.sh.
#   kernel_package NAME   the package that NAME means today (one line), or
#                         nothing and a reason on stderr:
#     6.1    Debian 12's stock kernel: what linux-image-amd64 depends on
#     rt     its PREEMPT_RT build: what linux-image-rt-amd64 depends on
#     6.12   the newest linux-image-6.12.*-amd64 apt knows (bookworm-security
#            carries Debian 12's 6.12 kernels, bookworm-backports too when
#            configured), never a fixed ABI number that a later upload retires
#   kernel_fetch NAME     sets KDIR: $VM_CACHE/PACKAGE with vmlinuz, initramfs.img,
#                         version (uname -r) and source (the archive it came from)
# The cache outlives a checkout (a clean one reuses it): /var/cache/schedhist/vm
# for root, $OUTPUT/vm/kernels otherwise; scripts/install-deps.sh --test fills
# it for 6.1 (tests/vm/prefetch.sh), so make test's VM tests only boot.
if [ -z "${VM_CACHE:-}" ]; then
	if [ "$(id -u)" -eq 0 ]; then VM_CACHE=/var/cache/schedhist/vm; else VM_CACHE=${OUTPUT:-.output}/vm/kernels; fi
fi
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUSYBOX=${BUSYBOX:-/bin/busybox}

# meta_dep META: the linux-image-* package that metapackage META depends on
meta_dep() {
	apt-cache depends "$1" 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

kernel_package() {
	local p
	# a machine whose package lists were never fetched knows no kernel: once
	if [ -z "$(meta_dep linux-image-amd64)" ] && [ "$(id -u)" -eq 0 ] && [ -z "${VM_APT_UPDATED:-}" ]; then
		apt-get update -qq >/dev/null 2>&1
		export VM_APT_UPDATED=1
	fi
	case $1 in
	6.1) p=$(meta_dep linux-image-amd64) ;;
	rt) p=$(meta_dep linux-image-rt-amd64) ;;
	6.12)
		p=$(apt-cache pkgnames linux-image-6.12 2>/dev/null |
			grep -E '^linux-image-6\.12\.[0-9]+(\+deb12|\+bpo)?-amd64$' | sort -V | tail -1)
		[ -n "$p" ] || echo "no linux-image-6.12.*-amd64 in the configured archive (sources:" \
			"$(grep -hsE '^(deb |Suites:)' /etc/apt/sources.list /etc/apt/sources.list.d/* |
				tr '\n' ' ')); bookworm-security or bookworm-backports carries it" >&2
		;;
	*) echo "unknown kernel '$1' (6.1, 6.12 or rt)" >&2; return 2 ;;
	esac
	[ -n "$p" ] || { [ "$1" = 6.12 ] || echo "apt knows no package for kernel $1 (apt-get update?)" >&2; return 1; }
	echo "$p"
}

# initramfs_key: what the initramfs is built from, as one hash (the
# content, not the mtime, of tests/vm/init and initramfs.py: a fresh
# checkout's files are all new)
initramfs_key() {
	cat "$VM_DIR/init" "$VM_DIR/initramfs.py" "$BUSYBOX" | sha256sum | cut -d' ' -f1
}

# kernel_fetch NAME: the package downloaded once (apt-get download, then
# dpkg-deb -x: never installed), its vmlinuz kept with an initramfs built
# from its modules; rebuilt when tests/vm/init, initramfs.py or busybox changed.
kernel_fetch() {
	local pkg dir x ver key
	pkg=$(kernel_package "$1") || return 1
	dir=$VM_CACHE/$pkg
	KDIR=$dir
	[ -x "$BUSYBOX" ] || { echo "no $BUSYBOX: install the Debian package busybox-static" >&2; return 1; }
	key=$(initramfs_key)
	if [ -s "$dir/initramfs.img" ] && [ "$(cat "$dir/initramfs.key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	mkdir -p "$dir"
	if ! ls "$dir"/*.deb >/dev/null 2>&1; then
		(cd "$dir" && apt-get download -q "$pkg" >download.log 2>&1) ||
			{ cat "$dir/download.log" >&2; echo "cannot download $pkg" >&2; return 1; }
		apt-cache policy "$pkg" | awk '/ http/ { print $2, $3; exit }' >"$dir/source"
	fi
	x=$(mktemp -d "$dir/x.XXXXXX")
	dpkg-deb -x "$dir"/*.deb "$x" || { rm -rf "$x"; return 1; }
	ver=$(ls "$x/lib/modules")
	cp "$x/boot/vmlinuz-$ver" "$dir/vmlinuz"
	grep -E '^CONFIG_(PREEMPT_RT|NR_CPUS|DEBUG_INFO_BTF|SCHEDSTATS|HZ)=' "$x/boot/config-$ver" >"$dir/config"
	echo "$ver" >"$dir/version"
	python3 "$VM_DIR/initramfs.py" "$x" "$BUSYBOX" "$VM_DIR/init" "$dir/initramfs.img" >"$dir/initramfs.log" ||
		{ cat "$dir/initramfs.log" >&2; rm -rf "$x"; return 1; }
	echo "$key" >"$dir/initramfs.key"
	rm -rf "$x"
}
