// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/model/kmem.c: the maps' kernel memory from their
 * definitions, and fitting the key capacity into --max-kernel-mem (the
 * largest that fits, a capacity given that does not fit refused, a
 * budget too small for one key refused). The per-map figures against
 * the kernel's own are tests/integration/kmem_bpftool.sh's.
 */
#include <string.h>

#include "schedhist.h"
#include "model/kmem.h"
#include "check.h"

#define MIB (1ULL << 20)

static struct kmem_cfg cfg(int ncpus, int nmetrics, __u32 keys)
{
	return (struct kmem_cfg){ .ncpus = ncpus, .nmetrics = nmetrics, .keyed = true,
				  .max_keys = keys, .task_entries = 32768, .cache_entries = SH_CACHE };
}

/* The key map's value: one sh_hist per metric per CPU (and a list node each), behind an element. */
static void test_formula(void)
{
	struct kmem_cfg c = cfg(384, 1, 1000);
	struct kmem_plan p;
	__u64 sum = 0;
	int i;

	kmem_layout(&c, &p);
	CHECK_EQ_U64(SH_HIST_SIZE(SH_NBUCKETS(0)), 296);
	CHECK_EQ_U64(p.entry_bytes[KMEM_HISTS], 56 + 24 + 8 + 384 * (296 + 8));
	/* every key in the store, one entry for all CPUs; the key map holds [other] and [exited] */
	CHECK_EQ_U64(p.nr_slots, 1000);
	CHECK_EQ_U64(p.max_entries[KMEM_SLOTS], 1000);
	CHECK_EQ_U64(p.bytes[KMEM_SLOTS], 4096 + (1000 * 296 + 4095) / 4096 * 4096);
	CHECK_EQ_U64(p.max_entries[KMEM_CACHE], 384 * SH_CACHE);
	CHECK_EQ_U64(p.bytes[KMEM_CACHE], 4096 + (384 * SH_CACHE * (8 + 296) + 4095) / 4096 * 4096);
	CHECK_EQ_U64(p.max_entries[KMEM_HISTS], 2);
	CHECK_EQ_U64(p.max_entries[KMEM_KEYDIR], 1002);
	for (i = 0; i < KMEM_NR; i++)
		sum += p.bytes[i];
	CHECK_EQ_U64(p.total, sum);
	/* the targets of issue 27 at 384 CPUs: 1000 keys of one metric in 16 MiB ... */
	CHECK(p.total <= 16 * MIB);
	/* ... of three metrics in 32 MiB, 10 000 keys of one in 24 MiB; 64 CPUs, 1000 keys: 8 MiB */
	c.nmetrics = 3;
	kmem_layout(&c, &p);
	CHECK(p.total <= 32 * MIB);
	c = cfg(384, 1, 10000);
	kmem_layout(&c, &p);
	CHECK(p.total <= 24 * MIB);
	c = cfg(64, 1, 1000);
	kmem_layout(&c, &p);
	CHECK(p.total <= 8 * MIB);
	c = cfg(384, 1, 1000);
	/* three metrics: three histograms per value */
	c.nmetrics = 3;
	kmem_layout(&c, &p);
	CHECK_EQ_U64(p.entry_bytes[KMEM_HISTS], 56 + 24 + 8 + 384 * (3 * 296 + 8));
	/* keys none: no key maps at all */
	c = cfg(384, 1, 10240);
	c.keyed = false;
	kmem_layout(&c, &p);
	CHECK_EQ_U64(p.nr_slots, 0);
	CHECK_EQ_U64(p.max_entries[KMEM_HISTS], 1);
	CHECK(p.total < 8 * MIB);
}

static void test_fit(void)
{
	struct kmem_cfg c = cfg(2, 1, 10240), more;
	struct kmem_plan p, q;

	/* 2 CPUs: the default capacity fits the default budget as asked */
	CHECK(!kmem_fit(&c, 64 * MIB, false, &p));
	CHECK_EQ_U64(c.max_keys, 10240);
	CHECK(p.total <= 64 * MIB);
	/* 384 CPUs: the default capacity fits too (the store grows with keys, not keys x CPUs) */
	c = cfg(384, 1, 10240);
	CHECK(!kmem_fit(&c, 64 * MIB, false, &p));
	CHECK_EQ_U64(c.max_keys, 10240);
	/* a budget below that: fewer keys, the most that fit */
	c = cfg(384, 1, 10240);
	CHECK(!kmem_fit(&c, 8 * MIB, false, &p));
	CHECK(c.max_keys < 10240 && c.max_keys > 100);
	CHECK(p.total <= 8 * MIB);
	more = c;
	more.max_keys++;
	kmem_layout(&more, &q);
	CHECK(q.total > 8 * MIB);
	/* --max-keys given: refused, not lowered, with what it needs */
	c = cfg(384, 1, 10240);
	CHECK(kmem_fit(&c, 8 * MIB, true, &p) == -1);
	CHECK_EQ_U64(c.max_keys, 10240);
	CHECK(p.total > 8 * MIB);
	/* too small for a single key: refused either way */
	c = cfg(2, 1, 10240);
	CHECK(kmem_fit(&c, 1 * MIB, false, &p) == -1);
	CHECK_EQ_U64(c.max_keys, 10240);
	/* keys none over the budget: nothing to lower */
	c = cfg(2, 1, 10240);
	c.keyed = false;
	CHECK(kmem_fit(&c, 1 * MIB, false, &p) == -1);
}

/* Memory only grows with the capacity (kmem_fit()'s search relies on it). */
static void test_monotone(void)
{
	struct kmem_cfg c = cfg(64, 2, 1);
	struct kmem_plan p;
	__u64 last = 0;
	__u32 k;

	c.culprits = c.stacks = true;
	for (k = 1; k < 5000; k += 7) {
		c.max_keys = k;
		kmem_layout(&c, &p);
		CHECK(p.total >= last);
		last = p.total;
	}
}

/* --culprit-mode time: a ring of runs per CPU, none in any other mode. */
static void test_run_ring(void)
{
	struct kmem_cfg c = cfg(64, 1, 1000);
	struct kmem_plan p, q;

	c.culprits = true;
	kmem_layout(&c, &p);
	CHECK_EQ_U64(p.max_entries[KMEM_RUN_RING], 1);
	c.culprit_time = true;
	kmem_layout(&c, &q);
	CHECK_EQ_U64(q.max_entries[KMEM_RUN_RING], 64);
	CHECK_EQ_U64(q.total - p.total, 63 * sizeof(struct sh_run_ring));
}

/*
 * The culprit, stack and cause maps are shared by the CPUs: an entry is
 * an element, its key and one value, at 2 CPUs as at 384, and fleet mode
 * keeps thousands of keys in the default budget on a big host.
 */
static void test_shared(void)
{
	struct kmem_cfg c = cfg(384, 3, 1000), d = cfg(2, 3, 1000);
	struct kmem_plan p, q;

	c.culprits = c.stacks = c.causes = d.culprits = d.stacks = d.causes = true;
	kmem_layout(&c, &p);
	kmem_layout(&d, &q);
	CHECK_EQ_U64(p.entry_bytes[KMEM_CULPRITS],
		     56 + sizeof(struct sh_culprit_key) + sizeof(struct sh_culprit_val));
	CHECK_EQ_U64(p.entry_bytes[KMEM_STACKS], 56 + sizeof(struct sh_key) + sizeof(struct sh_stacks));
	CHECK_EQ_U64(p.entry_bytes[KMEM_CAUSES], 56 + sizeof(struct sh_key) + sizeof(struct sh_causes));
	CHECK_EQ_U64(p.bytes[KMEM_STACK_ZERO], 312 + sizeof(struct sh_stacks));
	/* the same bytes on 2 CPUs as on 384 */
	CHECK_EQ_U64(p.bytes[KMEM_CULPRITS], q.bytes[KMEM_CULPRITS]);
	CHECK_EQ_U64(p.bytes[KMEM_STACKS], q.bytes[KMEM_STACKS]);
	CHECK_EQ_U64(p.bytes[KMEM_CAUSES], q.bytes[KMEM_CAUSES]);
	/* -M offcpu,runq,blocked --culprits --stacks at 384 CPUs in 64 MiB: every key of 10240 */
	c = cfg(384, 3, 10240);
	c.culprits = c.stacks = true;
	CHECK(!kmem_fit(&c, 64 * MIB, false, &p));
	CHECK_EQ_U64(c.max_keys, 10240);
}

int main(void)
{
	TEST(test_formula);
	TEST(test_shared);
	TEST(test_run_ring);
	TEST(test_fit);
	TEST(test_monotone);
	return test_summary();
}
