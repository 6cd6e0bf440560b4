// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The loader's sizing of the maps before load: the task table, the keys, the cache (loader.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "schedhist.h"
#include "schedhist.skel.h"
#include "kernel/loader.h"
#include "kernel/kernel_probe.h"
#include "model/kmem.h"
#include "model/hist.h"
#include "lib/log.h"

/* Live keys beyond which the kernel folds gone keys itself (see loader_start). */
#define FOLD_ABOVE 512

bool loader_keyed(const struct loader_spec *sp)
{
	return sp->key_type != SH_KEY_NONE && sp->key_type != SH_KEY_CPU;
}

/* Cache entries per CPU: SH_CACHE or SCHEDHIST_CACHE_ENTRIES (a power of two). 0, or -2. */
static int cache_size(struct loader *l)
{
	const char *e = getenv("SCHEDHIST_CACHE_ENTRIES");
	unsigned long n;
	char *end;

	l->cache_entries = SH_CACHE;
	if (!e)
		return 0;
	errno = 0;
	n = strtoul(e, &end, 10);
	if (errno || end == e || *end || !n || n > SH_CACHE_MAX || (n & (n - 1))) {
		pr_warn("SCHEDHIST_CACHE_ENTRIES '%s': want a power of two from 1 to %u\n", e,
			SH_CACHE_MAX);
		return -2;
	}
	l->cache_entries = (__u32)n;
	return 0;
}

static void size_maps(struct loader *l, const struct loader_spec *sp,
		      const struct kmem_plan *plan, __u32 max_keys)
{
	struct schedhist_bpf *skel = l->skel;
	bool keyed = loader_keyed(sp);

	skel->rodata->nr_slots = l->nr_slots;
	skel->rodata->cache_mask = l->cache_entries - 1;
	/*
	 * Gone keys stay marked for the poller up to half their place's capacity and
	 * FOLD_ABOVE: beyond, a fork storm fills it between readings (and no_mem in the
	 * key map); the kernel folds them then.
	 */
	skel->rodata->fold_above = (max_keys - l->nr_slots) / 2 < FOLD_ABOVE ?
				   (max_keys - l->nr_slots) / 2 : FOLD_ABOVE;
	skel->rodata->slot_fold_above = l->nr_slots / 2 < FOLD_ABOVE ? l->nr_slots / 2 : FOLD_ABOVE;
	bpf_map__set_max_entries(skel->maps.hists, keyed ? max_keys - l->nr_slots + 2 : 1);
	bpf_map__set_max_entries(skel->maps.slots, plan->max_entries[KMEM_SLOTS]);
	bpf_map__set_max_entries(skel->maps.slot_seq, plan->max_entries[KMEM_SLOT_SEQ]);
	bpf_map__set_max_entries(skel->maps.cache, plan->max_entries[KMEM_CACHE]);
	bpf_map__set_max_entries(skel->maps.slot_keys, l->nr_slots ? l->nr_slots : 1);
	bpf_map__set_max_entries(skel->maps.free_slots, l->nr_slots ? l->nr_slots : 1);
	/* every key of either place, and [other] and [exited] */
	bpf_map__set_max_entries(skel->maps.keydir, l->nr_slots ? max_keys + 2 : 1);
	/* --culprits: a few culprits per key (idle ones removed); --stacks: one per key. */
	if (sp->culprits)
		bpf_map__set_max_entries(skel->maps.culprit_map, SH_CULPRITS_PER_KEY *
					 (max_keys + 2));
	/* --causes: every key, [other] besides (key cpu: per CPU); the groups' run times */
	if (sp->causes) {
		bpf_map__set_max_entries(skel->maps.cause_map, keyed ? max_keys + 2 :
					 sp->key_type == SH_KEY_CPU ? (__u32)l->ncpus : 1);
		bpf_map__set_max_entries(skel->maps.cause_self, SH_CAUSE_GROUPS);
	}
	/* --culprit-mode time: each CPU's ring of its last runs */
	if (sp->culprits && sp->culprit_mode == SH_CULPRIT_TIME)
		bpf_map__set_max_entries(skel->maps.run_ring, (__u32)l->ncpus);
	if (sp->stacks)
		bpf_map__set_max_entries(skel->maps.stack_map, keyed ? max_keys + 2 :
					 sp->key_type == SH_KEY_CPU ? (__u32)l->ncpus : 1);
}

int loader_size(struct loader *l, const struct loader_spec *sp)
{
	struct schedhist_bpf *skel = l->skel;
	bool keyed = loader_keyed(sp);
	struct kmem_plan plan;
	struct kmem_cfg kc;
	__u32 max_keys;
	size_t vsize;

	if (cache_size(l))
		return -2;
	/* the task table (sched_info method): an entry per possible tid, up to a cap */
	l->task_entries = l->method != SH_METHOD_SCHED_INFO ? 1 :
			sp->task_table ? sp->task_table : probe_task_table_size();
	skel->rodata->task_mask = l->task_entries - 1;
	bpf_map__set_max_entries(skel->maps.tasks, l->task_entries);
	/* one histogram per metric in every value; [other] and [exited] besides the keys */
	vsize = (size_t)l->nmetrics * hist_bytes();
	/* A store slot per key, [other] and [exited] in the key map: --max-keys or fewer. */
	kc = (struct kmem_cfg){ .ncpus = l->ncpus, .nmetrics = l->nmetrics, .schema = sh_schema, .keyed = keyed,
				.key_cpu = sp->key_type == SH_KEY_CPU, .max_keys = sp->max_keys,
				.task_entries = l->task_entries, .culprits = sp->culprits,
				.culprit_time = sp->culprit_mode == SH_CULPRIT_TIME,
				.stacks = sp->stacks, .causes = sp->causes,
				.cache_entries = l->cache_entries };
	if (kmem_fit(&kc, sp->max_kernel_mem, sp->max_keys_set, &plan)) {
		if (sp->max_keys_set)
			pr_warn("--max-keys %u needs %llu MiB of kernel memory on %d possible CPUs, "
				"above --max-kernel-mem %llu MiB: raise it or lower --max-keys\n",
				sp->max_keys, (unsigned long long)(plan.total + (1 << 20) - 1) >> 20,
				l->ncpus, (unsigned long long)sp->max_kernel_mem >> 20);
		else
			pr_warn("--max-kernel-mem %llu MiB is too small: these settings need %llu MiB "
				"on %d possible CPUs for a single key\n",
				(unsigned long long)sp->max_kernel_mem >> 20,
				(unsigned long long)(plan.total + (1 << 20) - 1) >> 20, l->ncpus);
		return -2;
	}
	max_keys = kc.max_keys;
	if (keyed && max_keys < sp->max_keys)
		pr_info("--max-kernel-mem %llu MiB holds %u keys on %d possible CPUs (of %u asked): "
			"the keys beyond go to [other]\n", (unsigned long long)sp->max_kernel_mem >> 20,
			max_keys, l->ncpus, sp->max_keys);
	l->max_keys = keyed ? max_keys : 0;
	l->kmem_bytes = plan.total;
	l->kmem_budget = sp->max_kernel_mem;
	l->nr_slots = plan.nr_slots;
	size_maps(l, sp, &plan, max_keys);
	if (bpf_map__set_value_size(skel->maps.hists, vsize) ||
	    bpf_map__set_value_size(skel->maps.slots, vsize) ||
	    bpf_map__set_value_size(skel->maps.cache, sh_cent_size(l->nmetrics, sh_nb)) ||
	    bpf_map__set_value_size(skel->maps.cache_spare, sh_cent_size(l->nmetrics, sh_nb)) ||
	    bpf_map__set_value_size(skel->maps.newval, vsize)) {
		pr_warn("cannot size the key map's values: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}
