/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Reclaim: when a task is freed (sched_process_free: after its last
 * switch) or a cgroup released (cgroup_release: after its last css_set
 * reference), its key (-k tid, pid, cgroup) takes no more waits. While
 * few keys are live (at most fold_above in the key map, slot_fold_above
 * slots taken) the key is only marked (SH_BIRTH_DEAD) and the poller
 * removes it with its last values, so the waits stay under their own
 * key. Beyond, it is folded into [exited] here, in the kernel, and
 * deleted (a slot zeroed and freed), so no storm of short-lived tasks
 * fills the slots or the key map between two readings. The states and
 * who moves a key between them: docs/key-lifecycle.md.
 * Cost: a sched_process_free run per task exit, which marks (default
 * capacity) or folds (a loop over the possible CPUs); docs/overhead.md,
 * "In the kernel", has the figures of a storm.
 */
#ifndef __SCHEDHIST_RECLAIM_BPF_H
#define __SCHEDHIST_RECLAIM_BPF_H

#include "keys.bpf.h"
#include "maxstack.bpf.h"

/* ---- reclaim: fold a gone key into [exited], delete it ---- */

/* (libbpf's own bpf_ksym_exists() is from 1.2; Debian 12 has 1.1) */
#ifndef bpf_ksym_exists
#define bpf_ksym_exists(sym) (!!(sym))
#endif
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;

/* A task has id @id now (a tid or tgid reused); true when that cannot be told. */
static __always_inline bool tid_in_use(__s32 id)
{
	struct task_struct *t;

	if (!bpf_ksym_exists(bpf_task_from_pid))
		return true;
	t = bpf_task_from_pid(id);
	if (!t)
		return false;
	bpf_task_release(t);
	return true;
}

/* @dst += @src, keeping per epoch parity the newer or longer max. */
static __always_inline void fold_hist(struct sh_hist *dst, const struct sh_hist *src)
{
	int i;

	for (i = 0; i < SH_NBUCKETS_MAX && i < nbuckets; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	max_merge(&dst->max[0], &src->max[0]);
	max_merge(&dst->max[1], &src->max[1]);
}

struct fold_ctx {
	struct sh_key *key;
	struct sh_hist *dst;	/* this CPU's copy of [exited] */
	__u32 slot;		/* claim_slot_cpu(): the slot folded ... */
	struct sh_slot_seq *q;	/* ... and its seq bracket */
	struct sh_pcpu *pc;	/* this CPU's counters */
};

/*
 * One CPU's value (a histogram per metric) @src into @dst; with @zero,
 * @src is zeroed after (a slot, for its next key).
 */
static __always_inline void fold_value(struct sh_hist *dst, struct sh_hist *src, bool zero)
{
	const struct cfg cfg = cfg_metrics(), *cf = &cfg;

	if (has(cf, SH_METRIC_OFFCPU)) {
		fold_hist(hist_at(dst, idx(cf, SH_METRIC_OFFCPU)), hist_at(src, idx(cf, SH_METRIC_OFFCPU)));
		if (zero)
			hist_zero(hist_at(src, idx(cf, SH_METRIC_OFFCPU)));
	}
	if (has(cf, SH_METRIC_RUNQ)) {
		fold_hist(hist_at(dst, idx(cf, SH_METRIC_RUNQ)), hist_at(src, idx(cf, SH_METRIC_RUNQ)));
		if (zero)
			hist_zero(hist_at(src, idx(cf, SH_METRIC_RUNQ)));
	}
	if (has(cf, SH_METRIC_BLOCKED)) {
		fold_hist(hist_at(dst, idx(cf, SH_METRIC_BLOCKED)), hist_at(src, idx(cf, SH_METRIC_BLOCKED)));
		if (zero)
			hist_zero(hist_at(src, idx(cf, SH_METRIC_BLOCKED)));
	}
}

static long fold_cpu(__u32 cpu, struct fold_ctx *c)
{
	struct sh_hist *src = bpf_map_lookup_percpu_elem(&hists, c->key, cpu);

	if (src)
		fold_value(c->dst, src, false);
	return 0;
}

/* CPU @cpu's cache entry for the slot folded, if it holds it, into the slot's store entry. */
static long claim_slot_cpu(__u32 cpu, struct fold_ctx *c)
{
	cache_claim(cpu, c->slot);
	return 0;
}

/* Stops bpf_loop() once no flush into the slot is under way. */
static long slot_settled(__u32 n, struct fold_ctx *c)
{
	return !(c->q->seq & SH_SEQ_BUSY);
}

/* Waits at most this many looks for a flush of a slot being folded to end. */
#define FOLD_SETTLE_TRIES 4096

/*
 * The gone key @key has slot @i: take the slot's entries from every CPU's
 * cache into its store entry, fold the store entry into this CPU's
 * [exited], zero it, and free the slot, here in the kernel, so that a
 * storm of short-lived tasks never waits for the poller to free slots:
 * FOLDING -> FREE in docs/key-lifecycle.md, whose rules say when that is
 * safe (no run can hit the slot's cache entries, only flush them: the
 * flushes are waited for). False when not done (the caller marks the
 * key for the poller).
 */
static __always_inline bool recycle_slot(struct sh_key *key, __u32 i)
{
	struct sh_key ex = { .id = SH_EXITED_ID };
	struct fold_ctx c = { .key = key, .slot = i };
	struct sh_hist *h0;
	struct sh_key *sk;
	__u32 zero = 0;

	h0 = store_hists(i);
	c.q = store_seq(i);
	sk = bpf_map_lookup_elem(&slot_keys, &i);
	c.dst = bpf_map_lookup_elem(&hists, &ex);
	c.pc = bpf_map_lookup_elem(&pcpu, &zero);
	if (!h0 || !c.q || !sk || !c.dst || !c.pc)
		return false;
	/* one folder per slot: -k pid's frees of two threads may race on two CPUs */
	if (__sync_fetch_and_or(&h0->birth, SH_BIRTH_FOLDING) & SH_BIRTH_FOLDING)
		return true;
	/* the id first: a torn key never matches a task's */
	sk->id = SH_FREE_ID;
	__builtin_memset(sk->comm, 0, sizeof(sk->comm));
	bpf_map_delete_elem(&keydir, key);
	/* every CPU's cached counts into the store, in a bracket of its own */
	__sync_fetch_and_add(&c.q->seq, SH_SEQ_OPEN);
	bpf_loop(nr_cpus, claim_slot_cpu, &c, 0);
	__sync_fetch_and_add(&c.q->seq, SH_SEQ_CLOSE);
	/*
	 * a CPU that took its entry before us is still adding it to the
	 * store: it runs with interrupts off and ends in a few hundred ns;
	 * one that does not end in time (its vCPU preempted) leaves the key
	 * to the poller, as it was, its counts all in the store
	 */
	bpf_loop(FOLD_SETTLE_TRIES, slot_settled, &c, 0);
	if (c.q->seq & SH_SEQ_BUSY) {
		*sk = *key;
		bpf_map_update_elem(&keydir, key, &i, BPF_NOEXIST);
		__sync_fetch_and_or(&h0->birth, SH_BIRTH_DEAD);
		__sync_fetch_and_and(&h0->birth, ~SH_BIRTH_FOLDING);
		return true;
	}
	if (stacks)
		bpf_map_delete_elem(&stack_map, key);
	fold_value(c.dst, h0, true);
	/* (the push takes the stack's lock: the zeroing is seen by the slot's next taker) */
	bpf_map_push_elem(&free_slots, &i, 0);
	__sync_fetch_and_sub(&sh_slots_taken, 1);
	c.pc->reclaimed++;
	return true;
}

/*
 * The task or cgroup of @key is gone: no wait can be recorded under it
 * any more. While its map holds at most fold_above keys (slots:
 * slot_fold_above), or the poller is reading, the key is only marked
 * for the poller, which removes it with its last values (the waits stay
 * under their own key). Beyond, a key in a slot that no program run can
 * still write (@recyclable, and no task has the id @reuse_id now, when
 * not 0) is folded into [exited] and its slot freed
 * (recycle_slot()); a key in the key map is folded likewise and
 * deleted (docs/key-lifecycle.md). Runs in the RCU callback or
 * workqueue that frees the object: never nested with itself on one CPU,
 * so this CPU's [exited] has one writer.
 */
static __always_inline void reclaim(struct sh_key *key, bool recyclable, __s32 reuse_id)
{
	struct sh_key ex = { .id = SH_EXITED_ID };
	struct fold_ctx c = { .key = key };
	struct sh_hist *h, *h0;
	struct sh_pcpu *pc;
	__u32 zero = 0, *ip;

	ip = nr_slots ? bpf_map_lookup_elem(&keydir, key) : 0;
	if (ip && *ip != SH_SLOT_HASH) {
		__u32 i = *ip;

		if (i >= nr_slots)	/* never; a bound for the verifier */
			return;
		/* (the reuse check, a task lookup, only once the rest says fold) */
		if (recyclable && !sh_reading && sh_slots_taken > slot_fold_above &&
		    !(reuse_id && tid_in_use(reuse_id)) && recycle_slot(key, i))
			return;
		h = store_hists(i);
		if (h)
			__sync_fetch_and_or(&h->birth, SH_BIRTH_DEAD);
		return;
	}
	h = bpf_map_lookup_elem(&hists, key);
	if (!h) {
		/*
		 * its waits went to [other] (the key map full): the directory
		 * entry key_slot() made for it is all there is to delete, and
		 * nobody else would, so a churn of such keys would fill the
		 * directory and keep every later key out of the free slots
		 */
		if (ip)
			bpf_map_delete_elem(&keydir, key);
		return;
	}
	if (sh_reading || sh_live_keys <= fold_above) {
		h->birth |= SH_BIRTH_DEAD;
		return;
	}
	/*
	 * -k pid: the frees of two threads of one dead process may race on
	 * two CPUs; the one that sets the claim on CPU 0's copy folds
	 */
	h0 = bpf_map_lookup_percpu_elem(&hists, key, 0);
	if (!h0 || (__sync_fetch_and_or(&h0->birth, SH_BIRTH_FOLDING) & SH_BIRTH_FOLDING))
		return;
	c.dst = bpf_map_lookup_elem(&hists, &ex);
	pc = bpf_map_lookup_elem(&pcpu, &zero);
	if (!c.dst || !pc)
		return;
	bpf_loop(nr_cpus, fold_cpu, &c, 0);
	if (stacks)
		bpf_map_delete_elem(&stack_map, key);
	if (!bpf_map_delete_elem(&hists, key)) {
		pc->reclaimed++;
		__sync_fetch_and_sub(&sh_live_keys, 1);
		if (nr_slots)
			bpf_map_delete_elem(&keydir, key);
	}
}

#endif /* __SCHEDHIST_RECLAIM_BPF_H */
