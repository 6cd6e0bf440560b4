#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Startup failures: each ends with one clear line on stderr and exit 1
# (the documented runtime-failure code), or 2 where the host or the
# process lacks what loading needs (found before anything is loaded),
# nothing on stdout and nothing left in the kernel; with -vv, libbpf's own
# log comes first.
#  - no capabilities: an unprivileged user, and root without CAP_BPF or
#    without CAP_PERFMON (capsh)
#  - tracepoint missing: a kernel BTF without btf_trace_sched_switch (a
#    minimal BTF from `bpftool gen min_core_btf`, bind-mounted over
#    /sys/kernel/btf/vmlinux in a private mount namespace)
#  - no kernel BTF at all (an empty tmpfs over /sys/kernel/btf)
#  - kernel errors injected with strace at each step: the key map's
#    creation (ENOMEM), the program load (EPERM), the attach (EBUSY), the
#    [other] entry (ENOSPC)
#  - RLIMIT_MEMLOCK 0: since Linux 5.11 BPF memory is charged to the
#    memory cgroup and libbpf leaves the limit alone, so the run works (on
#    older kernels it must fail with one line instead)
. "$(dirname "$0")/../lib.sh"
need_root
before=$(our_objects)

# expect RC REGEX CMD...: exit RC, stdout empty, stderr exactly one line
# matching "^schedhist: REGEX"
bad=0
expect() {
	local want=$1 re=$2 rc
	shift 2
	"$@" >"$TMP/o" 2>"$TMP/e"; rc=$?	# every case has -d: bounded
	if [ $rc -ne "$want" ] || [ "$(wc -l <"$TMP/e")" -ne 1 ] || [ -s "$TMP/o" ] ||
	   ! grep -qE "^schedhist: $re" "$TMP/e"; then
		echo "FAIL: $* -> exit $rc (want $want), stdout $(wc -c <"$TMP/o") bytes, stderr:"
		sed 's/^/    /' "$TMP/e"
		bad=$((bad + 1))
	else
		echo "ok: $(cat "$TMP/e")"
	fi
}

# 1. no capabilities: found before loading, exit 2 (a host or container
# schedhist cannot run in), the missing ones named, even with -vv (libbpf
# never runs); each of the two alone; CAP_SYS_ADMIN stands for both
nopriv="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"
expect 2 "missing capabilities CAP_BPF and CAP_PERFMON: run as root, or grant them \(podman --cap-add, Kubernetes securityContext.capabilities.add\)$" \
	$nopriv "$SCHEDHIST" -d 1
expect 2 "missing capabilities CAP_BPF and CAP_PERFMON" $nopriv "$SCHEDHIST" -d 1 -vv
if command -v capsh >/dev/null; then
	expect 2 "missing capability CAP_BPF: grant it" \
		capsh --drop=cap_bpf,cap_sys_admin -- -c '"$0" -d 1' "$SCHEDHIST"
	expect 2 "missing capability CAP_PERFMON: grant it" \
		capsh --drop=cap_perfmon,cap_sys_admin -- -c '"$0" -d 1' "$SCHEDHIST"
	capsh --drop=cap_bpf,cap_perfmon -- -c '"$0" -d 0.3 -j' "$SCHEDHIST" >"$TMP/o" 2>"$TMP/e" &&
		[ "$(wc -l <"$TMP/o")" -eq 1 ] && echo "ok: CAP_SYS_ADMIN alone runs" ||
		{ echo "FAIL: CAP_SYS_ADMIN without CAP_BPF, CAP_PERFMON:"; sed 's/^/    /' "$TMP/e"; bad=$((bad + 1)); }
else
	echo "note: no capsh (Debian package libcap2-bin): single-capability cases skipped"
fi

# 2. tracepoint missing, and 3. no BTF at all
if bpftool gen min_core_btf /sys/kernel/btf/vmlinux "$TMP/min.btf" "$OUTPUT/schedhist.bpf.o" 2>"$TMP/btf.err"; then
	ns() { unshare -m sh -c 'mount --bind "$0" /sys/kernel/btf/vmlinux && exec "$@"' "$TMP/min.btf" "$@"; }
	expect 1 "cannot load BPF programs: this kernel has no BTF tracepoint sched_switch \(no btf_trace_sched_switch in /sys/kernel/btf/vmlinux\); -vv shows libbpf's log$" \
		ns "$SCHEDHIST" -d 1
	ns "$SCHEDHIST" -d 1 -vv >"$TMP/o" 2>"$TMP/e"
	grep -Eq "libbpf: prog 'schedhist_switch[a-z_]*': failed to find kernel BTF type ID of 'sched_switch'" "$TMP/e" ||
		{ echo "FAIL: -vv does not show libbpf's reason:"; sed 's/^/    /' "$TMP/e"; bad=$((bad + 1)); }
else
	echo "note: bpftool gen min_core_btf failed ($(cat "$TMP/btf.err")): missing-tracepoint case skipped"
fi
expect 2 "kernel BTF not found at /sys/kernel/btf/vmlinux: schedhist needs a kernel built with CONFIG_DEBUG_INFO_BTF=y \(in a container: mount /sys/kernel/btf\)$" \
	unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' sh "$SCHEDHIST" -d 1

# 3b. no cgroup2 hierarchy (unmounted in a private mount namespace):
# -k cgroup and -c refuse with exit 2, a run without them works; and a
# read-only /sys/fs/bpf changes nothing (schedhist pins nothing there)
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -n "$cg2" ]; then
	nocg() { unshare -m --propagation private sh -c \
		'awk '"'"'$9 == "cgroup2" { print $5 }'"'"' /proc/self/mountinfo | xargs -r umount -l && exec "$@"' sh "$@"; }
	expect 2 "no cgroup2 hierarchy is mounted \(see /proc/self/mountinfo\): -k cgroup and -c need one, or --cgroup-hier CTRL for v1$" \
		nocg "$SCHEDHIST" -d 1 -k cgroup
	expect 2 "no cgroup2 hierarchy is mounted" nocg "$SCHEDHIST" -d 1 -c /
	nocg "$SCHEDHIST" -d 0.3 -j >"$TMP/o" 2>"$TMP/e" && [ "$(wc -l <"$TMP/o")" -eq 1 ] &&
		echo "ok: without cgroup2, a run without -k cgroup works" ||
		{ echo "FAIL: without cgroup2, a plain run:"; sed 's/^/    /' "$TMP/e"; bad=$((bad + 1)); }
fi
robpf() { unshare -m --propagation private sh -c \
	'mount -t bpf -o ro bpf /sys/fs/bpf && exec "$@"' sh "$@"; }
robpf "$SCHEDHIST" -d 0.3 -j -k cgroup >"$TMP/o" 2>"$TMP/e" && [ "$(wc -l <"$TMP/o")" -eq 1 ] &&
	echo "ok: a read-only /sys/fs/bpf changes nothing" ||
	{ echo "FAIL: with a read-only /sys/fs/bpf:"; sed 's/^/    /' "$TMP/e"; bad=$((bad + 1)); }

# 4. kernel errors injected at each step (strace counts bpf() calls; each
# step is found in a traced run first; libbpf retries a failed map
# creation without BTF and a failed load with a log buffer, so the
# injection covers two calls)
if command -v strace >/dev/null; then
	strace -qq -o "$TMP/trace" -e trace=bpf "$SCHEDHIST" -d 0.3 -k tid >/dev/null 2>&1 ||
		fail "schedhist under strace failed"
	nth() { grep -nE "$1" "$TMP/trace" | head -1 | cut -d: -f1; }
	map=$(nth 'BPF_MAP_CREATE.*map_name="hists"')
	# its fd: the create that succeeded (a per-schema value size differs from
	# its BTF type's, so libbpf's first try, with BTF, fails and its retry
	# without BTF makes the map)
	fd=$(grep -E 'BPF_MAP_CREATE.*map_name="hists".*= [0-9]+$' "$TMP/trace" | head -1 |
		sed -E 's/.*= ([0-9]+)$/\1/')
	prog=$(nth 'BPF_PROG_LOAD.*prog_name="schedhist_swi')
	att=$(nth 'BPF_RAW_TRACEPOINT_OPEN|BPF_LINK_CREATE')
	other=$(nth "BPF_MAP_UPDATE_ELEM, \\{map_fd=$fd,")
	echo "bpf() calls: hists created by #$map (fd $fd), switch program #$prog, first attach #$att, [other] #$other"
	[ -n "$map" ] && [ -n "$prog" ] && [ -n "$att" ] && [ -n "$other" ] || fail "cannot find the steps in the trace"
	inj() { local n=$1 e=$2; shift 2; strace -qq -o /dev/null -e trace=bpf -e inject=bpf:error=$e:when=$n..$((n + 1)) "$@"; }
	expect 1 "cannot load BPF programs: Cannot allocate memory; -vv shows libbpf's log$" \
		inj "$map" ENOMEM "$SCHEDHIST" -d 1 -k tid
	expect 1 "cannot load BPF programs: Operation not permitted \(is BPF restricted by lockdown, a security module or a seccomp profile\?\)" \
		inj "$prog" EPERM "$SCHEDHIST" -d 1 -k tid
	# the first attach is sched_process_free (it frees task table entries before any is taken)
	expect 1 "cannot attach to tracepoint sched_process_free: Device or resource busy$" \
		inj "$att" EBUSY "$SCHEDHIST" -d 1 -k tid
	expect 1 "cannot create the \[other\] entry of the key map: No space left on device$" \
		inj "$other" ENOSPC "$SCHEDHIST" -d 1 -k tid
else
	echo "note: no strace: injected kernel errors skipped"
fi

# 5. RLIMIT_MEMLOCK 0
kv=$(uname -r | awk -F. '{print $1 * 1000 + $2}')
prlimit --memlock=0:0 "$SCHEDHIST" -d 0.5 -j >"$TMP/o" 2>"$TMP/e"; rc=$?
if [ "$kv" -ge 5011 ]; then
	if [ $rc -ne 0 ] || [ "$(wc -l <"$TMP/o")" -ne 1 ]; then
		echo "FAIL: RLIMIT_MEMLOCK 0 on $(uname -r) (memcg-accounted BPF): exit $rc, want a normal run; stderr:"
		sed 's/^/    /' "$TMP/e"; bad=$((bad + 1))
	else
		echo "ok: RLIMIT_MEMLOCK 0 is irrelevant on $(uname -r): the run works"
	fi
elif [ $rc -ne 1 ] || [ "$(wc -l <"$TMP/e")" -ne 1 ]; then
	echo "FAIL: RLIMIT_MEMLOCK 0 on $(uname -r): exit $rc, want one line and exit 1"; bad=$((bad + 1))
fi

[ $bad -eq 0 ] || fail "$bad startup failure(s) not reported as documented"
assert_no_new_objects "$before"
