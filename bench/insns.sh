#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The size of every program of a BPF object, as root, without running a
# workload (so it needs no idle machine, unlike bench/run.sh):
#   bench/insns.sh [OBJ]      default .output/schedhist.bpf.o
# One line per program: its instructions in the object (the whole code:
# every configuration the settings select), after the verifier (xlated:
# what the settings' defaults leave), and the instructions the verifier
# processed. Loaded with `bpftool prog loadall` (the settings at their
# defaults) into a bpffs of its own, removed after; nothing stays
# attached. Compare two builds by running it on both objects.
set -euo pipefail

obj=${1:-.output/schedhist.bpf.o}
[ -f "$obj" ] || { echo "insns.sh: $obj not found (run make)" >&2; exit 2; }
command -v bpftool >/dev/null || { echo "insns.sh: bpftool not found (Debian package bpftool)" >&2; exit 1; }
command -v llvm-objdump >/dev/null || { echo "insns.sh: llvm-objdump not found (Debian package llvm)" >&2; exit 1; }

tmp=$(mktemp -d)
# bpffs refuses names with a dot
pin=$tmp/fs/progs
cleanup() {
	rm -rf "$pin" 2>/dev/null || true
	mountpoint -q "$tmp/fs" && umount "$tmp/fs"
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/fs"
mount -t bpf bpf "$tmp/fs"
mkdir "$pin"

# the object's program symbols: "NAME obj=N" (8 bytes an instruction)
llvm-objdump -t "$obj" | while read -r _ _ kind sec size name; do
	if [ "$kind" = F ] && [[ $sec != .text ]]; then
		echo "$name obj=$((16#$size / 8))"
	fi
done | sort >"$tmp/obj"

bpftool -d prog loadall "$obj" "$pin" >"$tmp/log" 2>&1 || {
	tail -20 "$tmp/log" >&2
	echo "insns.sh: bpftool prog loadall $obj failed" >&2
	exit 1
}
for f in "$pin"/*; do
	x=$(bpftool prog show pinned "$f" | grep -o 'xlated [0-9]*B' | grep -o '[0-9]*')
	echo "$(basename "$f") xlated=$((x / 8))"
done | sort >"$tmp/xlated"
# each program's "-- BEGIN PROG LOAD LOG --" line names it; its "processed N insns" follows
awk "/-- BEGIN PROG LOAD LOG/ { match(\$0, /prog '[^']*'/); n = substr(\$0, RSTART + 6, RLENGTH - 7) }
     /^processed [0-9]+ insns/ { print n, \"verified=\" \$2 }" "$tmp/log" | sort >"$tmp/verified"
join "$tmp/obj" "$tmp/xlated" | join - "$tmp/verified" | column -t
