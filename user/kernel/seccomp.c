// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The seccomp filters of the unprivileged poller and of --profile's broker (libseccomp). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <seccomp.h>

#include "kernel/seccomp.h"
#include "lib/log.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* What any process of ours calls: memory, time, signals, exit. */
static const int common[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
	SCMP_SYS(statx), SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(madvise), SCMP_SYS(mremap),
	SCMP_SYS(futex), SCMP_SYS(clock_gettime), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
	SCMP_SYS(gettimeofday), SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack), SCMP_SYS(restart_syscall),
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getrandom), SCMP_SYS(exit),
	SCMP_SYS(exit_group), SCMP_SYS(rseq), SCMP_SYS(sched_yield),
};

/* The poller's more: descriptors, its outputs, the BPF maps, the broker. */
static const int poller[] = {
	SCMP_SYS(writev), SCMP_SYS(readv), SCMP_SYS(pread64), SCMP_SYS(pwrite64), SCMP_SYS(lseek),
	SCMP_SYS(fcntl), SCMP_SYS(dup), SCMP_SYS(dup3), SCMP_SYS(poll), SCMP_SYS(ppoll),
	SCMP_SYS(select), SCMP_SYS(pselect6), SCMP_SYS(bpf), SCMP_SYS(sendmsg), SCMP_SYS(recvmsg),
	SCMP_SYS(sendto), SCMP_SYS(recvfrom), SCMP_SYS(fsync), SCMP_SYS(fdatasync),
	SCMP_SYS(ftruncate), SCMP_SYS(fchmod), SCMP_SYS(renameat), SCMP_SYS(renameat2),
	SCMP_SYS(unlinkat), SCMP_SYS(wait4), SCMP_SYS(getuid), SCMP_SYS(geteuid),
	SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(getppid), SCMP_SYS(tgkill),
	SCMP_SYS(getrusage), SCMP_SYS(uname), SCMP_SYS(sysinfo), SCMP_SYS(prlimit64),
	SCMP_SYS(set_robust_list), SCMP_SYS(membarrier), SCMP_SYS(sched_getaffinity),
};

/* The broker's more: a request in, a descriptor out. */
static const int broker[] = {
	SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(openat2), SCMP_SYS(getppid),
};

static int allow_list(scmp_filter_ctx ctx, const int *sys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, sys[i], 0))
			return -1;
	return 0;
}

/* mmap and mprotect, never of executable memory: no code but the program's */
static int allow_memory(scmp_filter_ctx ctx)
{
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) ||
	       seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
}

/* openat(2) of @want under @mask of its flags (the third argument). */
static int allow_open(scmp_filter_ctx ctx, unsigned long mask, unsigned long want)
{
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
				SCMP_A2(SCMP_CMP_MASKED_EQ, mask, want)) ||
	       seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1,
				SCMP_A1(SCMP_CMP_MASKED_EQ, mask, want));
}

static int load(scmp_filter_ctx ctx, const char *who)
{
	int err = seccomp_load(ctx);

	seccomp_release(ctx);
	if (err)
		pr_warn("cannot load the seccomp filter of the %s: %s\n", who, strerror(-err));
	return err ? -1 : 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define ASAN_BUILD 1
#else
#define ASAN_BUILD 0
#endif

int seccomp_poller(void)
{
	const unsigned long flags = O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND |
				    O_DIRECTORY | O_PATH;
	scmp_filter_ctx ctx;

	if (ASAN_BUILD) {
		pr_info("an AddressSanitizer build: no seccomp filter (LeakSanitizer needs ptrace)\n");
		return 0;
	}
	ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!ctx || allow_list(ctx, common, ARRAY_LEN(common)) ||
	    allow_list(ctx, poller, ARRAY_LEN(poller)) || allow_memory(ctx) ||
	    /* stdio asks whether stdout is a terminal */
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
			     SCMP_A1(SCMP_CMP_EQ, TCGETS, 0)) ||
	    /* new output files, and their directory read-only: no existing file read */
	    allow_open(ctx, flags, O_WRONLY | O_CREAT | O_EXCL) ||
	    allow_open(ctx, flags, O_RDONLY | O_DIRECTORY)) {
		pr_warn("cannot build the poller's seccomp filter\n");
		if (ctx)
			seccomp_release(ctx);
		return -1;
	}
	return load(ctx, "poller");
}

int seccomp_broker(void)
{
	const unsigned long flags = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
	scmp_filter_ctx ctx;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	/* read-only opens only (O_PATH ones among them; openat2's flags are out of reach) */
	if (!ctx || allow_list(ctx, common, ARRAY_LEN(common)) ||
	    allow_list(ctx, broker, ARRAY_LEN(broker)) || allow_memory(ctx) ||
	    allow_open(ctx, flags, O_RDONLY)) {
		if (ctx)
			seccomp_release(ctx);
		return -1;
	}
	return load(ctx, "broker");
}
