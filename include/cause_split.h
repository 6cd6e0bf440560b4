/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --causes: the split of one run-queue wait into its causes, from the
 * deltas of the waited-on CPU's counters between the wait's start and
 * its end (bpf/cause.bpf.h takes them). Pure integer arithmetic, shared
 * by the kernel side and the unit test (tests/unit/test_causes.c), which
 * checks it where this machine cannot: steal.
 *
 * The counters overlap: steal is time the hypervisor ran something else
 * while the run queue clock went on (whatever the CPU "ran" meanwhile is
 * charged that time too), and while the waiter's cfs_rq is throttled
 * other tasks may run. So the split takes, in order: steal, then the
 * throttled time, each up to what is left of the wait; then the time
 * tasks ran, kernel threads, the waiter's own group and the others,
 * scaled down together when they exceed what is left (they overlapped the
 * steal or the throttling, by an unknown part each: proportionally);
 * what is left then (the CPU idle) is other. The parts add up to @span
 * exactly; scaling (by a factor in 2^-16 units) rounds each part down by
 * at most one nanosecond plus 2^-16 of it, which goes to other.
 */
#ifndef SCHEDHIST_CAUSE_SPLIT_H
#define SCHEDHIST_CAUSE_SPLIT_H

#include "schedhist.h"

/* What the waited-on CPU did between a wait's start and its end, ns. */
struct sh_cause_delta {
	__u64 steal;		/* hypervisor steal */
	__u64 throttled;	/* the waiter's cfs_rq throttled */
	__u64 run;		/* tasks ran (not the idle task) */
	__u64 kernel;		/* ... of which kernel threads */
	__u64 self;		/* ... of which the waiter's group (no kernel thread) */
};

static inline __u64 sh_min64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

/* @x * @f / 2^16 for @f <= 2^16, rounded down, with no overflow. */
static inline __u64 sh_frac16(__u64 x, __u64 f)
{
	return (x >> 16) * f + (((x & 0xffff) * f) >> 16);
}

/*
 * Add to @out the split of @span ns of a wait spent queued on one CPU,
 * whose counters moved by @d meanwhile.
 */
static inline void sh_cause_split(__u64 span, const struct sh_cause_delta *d,
				  __u64 out[SH_CAUSE_NR])
{
	__u64 steal = sh_min64(d->steal, span);
	__u64 thr = sh_min64(d->throttled, span - steal);
	__u64 left = span - steal - thr;
	__u64 run = d->run;
	__u64 kern = sh_min64(d->kernel, run);
	__u64 self = sh_min64(d->self, run - kern);
	__u64 nb = run - kern - self;

	if (run > left) {
		/* left / run in 2^-16 units; a wait of 2^48 ns (78 h) and more is other */
		__u64 f = left < (1ULL << 48) ? (left << 16) / run : 0;

		kern = sh_frac16(kern, f);
		self = sh_frac16(self, f);
		nb = sh_frac16(nb, f);
	}
	out[SH_CAUSE_STEAL] += steal;
	out[SH_CAUSE_THROTTLED] += thr;
	out[SH_CAUSE_KERNEL] += kern;
	out[SH_CAUSE_SELF] += self;
	out[SH_CAUSE_NEIGHBOUR] += nb;
	out[SH_CAUSE_OTHER] += left - kern - self - nb;
}

#endif /* SCHEDHIST_CAUSE_SPLIT_H */
