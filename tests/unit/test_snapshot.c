// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/model/snapshot.c on synthetic per-CPU readings: sums over
 * CPUs at any stride, deltas between readings (also across 32-bit
 * wrap-around), per-epoch maxes, totals since start, event counters,
 * pruning into [exited], and a table grown far past its first size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schedhist.h"
#include "model/snapshot.h"
#include "check.h"


/* Per-CPU values as the map returns them: @ncpu struct sh_hist, @stride apart. */
struct pcpu_vals {
	char *buf;
	int ncpu;
	size_t stride;
};

static void vals_init(struct pcpu_vals *v, int ncpu, size_t stride)
{
	v->ncpu = ncpu;
	v->stride = stride;
	v->buf = calloc(ncpu, stride);
	if (!v->buf)
		abort();
}

static struct sh_hist *cpu(struct pcpu_vals *v, int c)
{
	return (struct sh_hist *)(v->buf + c * v->stride);
}

/* Record @n waits of @ns each on CPU @c, as the kernel would. */
static void record(struct pcpu_vals *v, int c, __u64 ns, __u32 n)
{
	struct sh_hist *h = cpu(v, c);
	int b = bucket_of(ns);

	h->buckets[b] += n;
	h->count += n;
	h->sum_ns += ns * n;
}

static void set_max(struct pcpu_vals *v, int c, __u32 epoch, __u64 max_ns, __u32 tid,
		    const char *comm)
{
	struct sh_hist *h = cpu(v, c);

	h->max[epoch & 1].epoch = epoch;
	h->max[epoch & 1].ns = max_ns;
	h->max[epoch & 1].tid = tid;
	h->max[epoch & 1].pid = tid + 1000;
	h->max[epoch & 1].cpu = (__u32)c;
	strncpy(h->max[epoch & 1].comm, comm, SH_COMM_LEN - 1);
}

static struct snap_entry *ingest(struct snapshot *s, __u64 id, struct pcpu_vals *v, bool final)
{
	struct sh_key k = { .id = id };

	return snapshot_ingest(s, &k, v->buf, v->ncpu, v->stride, final);
}

static struct snap_entry *find(struct snapshot *s, __u64 id)
{
	struct sh_key k = { .id = id };

	return snapshot_find(s, &k);
}

/*
 * What the snapshot keeps count of without a walk, against a walk: nlive
 * (entries not pruned, [other] and [exited] not counted) and the list of
 * this interval's entries (each entry whose delta is this interval's,
 * once, and no other: a freed one would be read after its free).
 */
static void check_counts(struct snapshot *s)
{
	struct snap_entry *e;
	size_t it = 0, live = 0, cur = 0, i, listed;

	for (e = NULL; (e = snapshot_next(s, &it, e));) {
		live += !e->pruned && e->key.id != SH_OTHER_ID && e->key.id != SH_EXITED_ID;
		if (e->interval != s->interval)
			continue;
		cur++;
		for (i = 0, listed = 0; i < s->ntouched; i++)
			listed += s->touched[i] == e;
		CHECK_EQ_U64(listed, 1);
	}
	CHECK_EQ_U64(s->nlive, live);
	CHECK_EQ_U64(s->ntouched, cur);
}

/* Sum over CPUs, then the difference to the previous reading, at several layouts. */
static void check_sums(int ncpu, size_t stride)
{
	struct snapshot s;
	struct pcpu_vals v;
	struct snap_entry *e;
	int c;

	CHECK(!snapshot_init(&s));
	vals_init(&v, ncpu, stride);
	for (c = 0; c < ncpu; c++) {
		record(&v, c, 1500, 10 + c);		/* bucket_of(1500) */
		record(&v, c, 70000, 2 * c + 1);	/* bucket_of(70000) */
	}
	strcpy(cpu(&v, ncpu - 1)->comm, "worker");

	snapshot_begin(&s, 1);
	e = ingest(&s, 42, &v, false);
	CHECK(e != NULL);
	if (!e)
		return;
	/* 1st reading: the delta is everything, summed over CPUs */
	/* bucket 10: sum of 10 + c; bucket 16: sum of 2c + 1 = ncpu^2 */
	CHECK_EQ_U64(e->delta.buckets[bucket_of(1500)], 10 * ncpu + ncpu * (ncpu - 1) / 2);
	CHECK_EQ_U64(e->delta.buckets[bucket_of(70000)], ncpu * ncpu);
	CHECK_EQ_U64(e->delta.count, e->delta.buckets[bucket_of(1500)] + e->delta.buckets[bucket_of(70000)]);
	CHECK_EQ_U64(e->delta.sum_ns, 1500 * e->delta.buckets[bucket_of(1500)] + 70000 * e->delta.buckets[bucket_of(70000)]);
	CHECK_EQ_U64(e->cum.count, e->delta.count);
	CHECK_EQ_U64(e->cum.sum_ns, e->delta.sum_ns);
	CHECK(!strcmp(e->comm, "worker"));
	CHECK_EQ_U64(s.nentries, 1);

	/* 2nd reading: the difference only */
	for (c = 0; c < ncpu; c++)
		record(&v, c, 3000, 1);		/* another bucket */
	record(&v, 0, 1500, 5);
	snapshot_begin(&s, 2);
	e = ingest(&s, 42, &v, false);
	CHECK_EQ_U64(e->delta.buckets[bucket_of(1500)], 5);
	CHECK_EQ_U64(e->delta.buckets[bucket_of(3000)], ncpu);
	CHECK_EQ_U64(e->delta.buckets[bucket_of(70000)], 0);
	CHECK_EQ_U64(e->delta.count, 5 + ncpu);
	CHECK_EQ_U64(e->delta.sum_ns, 5 * 1500 + ncpu * 3000);
	/* since start: both readings */
	CHECK_EQ_U64(e->cum.buckets[bucket_of(1500)], 10 * ncpu + ncpu * (ncpu - 1) / 2 + 5);
	CHECK_EQ_U64(e->cum.buckets[bucket_of(3000)], ncpu);
	CHECK_EQ_U64(e->cum.buckets[bucket_of(70000)], ncpu * ncpu);
	CHECK_EQ_U64(e->cum.count, 10 * ncpu + ncpu * (ncpu - 1) / 2 + 5 + ncpu + ncpu * ncpu);
	CHECK_EQ_U64(s.nentries, 1);

	/* 3rd reading, nothing new: a zero delta, cum unchanged */
	snapshot_begin(&s, 3);
	e = ingest(&s, 42, &v, false);
	CHECK_EQ_U64(snapshot_delta(&s, e)->count, 0);
	CHECK_EQ_U64(snapshot_delta(&s, e)->sum_ns, 0);
	CHECK_EQ_U64(snapshot_delta(&s, e)->max_ns, 0);
	CHECK_EQ_U64(e->cum.count, 10 * ncpu + ncpu * (ncpu - 1) / 2 + 5 + ncpu + ncpu * ncpu);

	free(v.buf);
	snapshot_free(&s);
}

static void test_sum_and_delta(void)
{
	check_sums(1, hist_bytes());
	check_sums(2, hist_bytes());
	check_sums(4, hist_bytes());
	/* the key-none layout: the histogram inside struct sh_pcpu */
	check_sums(2, sizeof(struct sh_pcpu));
	check_sums(4, sizeof(struct sh_pcpu));
	check_sums(4, hist_bytes() + 40);
}

/* The key-none reading: &pcpu[0].hist with the stride of struct sh_pcpu. */
static void test_pcpu_layout(void)
{
	struct sh_pcpu pc[3] = {};
	struct snapshot s;
	struct sh_key k = {};
	struct snap_entry *e;
	int c;

	for (c = 0; c < 3; c++) {
		pc[c].stats[SH_METRIC_OFFCPU][SH_STAT_SEEN] = 999;	/* must not leak into the histogram */
		struct sh_hist *h = (struct sh_hist *)pc[c].hist;

		h->buckets[12] = 7;
		h->count = 7;
		h->sum_ns = 7 * 5000;
	}
	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	e = snapshot_ingest(&s, &k, pc[0].hist, 3, sizeof(pc[0]), false);
	CHECK(e && e->delta.count == 21);
	CHECK(e && e->delta.buckets[12] == 21);
	CHECK(e && e->delta.sum_ns == 21 * 5000);
	snapshot_free(&s);
}

/* A key that appears in the 2nd reading: its delta is all its values. */
static void test_new_key_mid_run(void)
{
	struct snapshot s;
	struct pcpu_vals a, b;
	struct snap_entry *e;

	CHECK(!snapshot_init(&s));
	vals_init(&a, 2, hist_bytes());
	vals_init(&b, 2, hist_bytes());
	record(&a, 0, 2000, 3);
	snapshot_begin(&s, 1);
	ingest(&s, 1, &a, false);
	CHECK(find(&s, 2) == NULL);

	record(&a, 1, 2000, 1);
	record(&b, 0, 9000, 4);
	record(&b, 1, 100000, 6);
	snapshot_begin(&s, 2);
	ingest(&s, 1, &a, false);
	e = ingest(&s, 2, &b, false);
	CHECK_EQ_U64(e->delta.count, 10);
	CHECK_EQ_U64(e->delta.buckets[bucket_of(9000)], 4);
	CHECK_EQ_U64(e->delta.buckets[bucket_of(100000)], 6);
	CHECK_EQ_U64(e->delta.sum_ns, 4 * 9000 + 6 * 100000);
	CHECK_EQ_U64(e->cum.count, 10);
	CHECK_EQ_U64(find(&s, 1)->delta.count, 1);
	CHECK_EQ_U64(s.nentries, 2);
	free(a.buf);
	free(b.buf);
	snapshot_free(&s);
}

/*
 * 32-bit kernel counters wrap, per CPU and in their sum: every delta is
 * taken modulo 2^32 and added into 64-bit totals, exact as long as fewer
 * than 2^32 waits happen between two readings (which the poller ensures
 * by reading at least every SH_READ_PERIOD_S). Every delta is checked,
 * the first one too, and the totals since start go past 2^32.
 */
static void test_wraparound(void)
{
	const __u32 step = 0x60000000;	/* 1.6e9 waits per reading: under 2^32 */
	struct snapshot s;
	struct pcpu_vals v;
	struct snap_entry *e;
	__u64 want = 0;
	int i;

	CHECK(!snapshot_init(&s));
	vals_init(&v, 2, hist_bytes());
	/* first reading: a key made since the last one, well under 2^32 */
	cpu(&v, 0)->buckets[5] = 3;
	cpu(&v, 0)->count = 3;
	snapshot_begin(&s, 1);
	e = ingest(&s, 9, &v, false);
	CHECK_EQ_U64(e->delta.buckets[5], 3);
	CHECK_EQ_U64(e->delta.count, 3);
	want = 3;
	/* eight readings of 1.6e9 waits each, split over both CPUs: both wrap */
	for (i = 0; i < 8; i++) {
		cpu(&v, 0)->buckets[5] += step / 2;
		cpu(&v, 1)->buckets[5] += step / 2;
		cpu(&v, 0)->count += step / 2;
		cpu(&v, 1)->count += step / 2;
		cpu(&v, 1)->sum_ns += 1000;
		snapshot_begin(&s, 2 + i);
		e = ingest(&s, 9, &v, false);
		CHECK_EQ_U64(e->delta.buckets[5], step);
		CHECK_EQ_U64(e->delta.count, step);
		CHECK_EQ_U64(e->delta.sum_ns, 1000);
		want += step;
		CHECK_EQ_U64(e->cum.buckets[5], want);
		CHECK_EQ_U64(e->cum.count, want);
	}
	/* 12.9e9 waits since start: three times past 2^32 */
	CHECK(e->cum.count > 3 * (1ULL << 32));
	/* several readings within one interval add up (internal readings) */
	snapshot_begin(&s, 20);
	for (i = 0; i < 3; i++) {
		cpu(&v, 0)->buckets[5] += step;
		cpu(&v, 0)->count += step;
		if (i)
			snapshot_begin_read(&s, 20 + i);
		e = ingest(&s, 9, &v, false);
	}
	CHECK_EQ_U64(e->delta.count, 3ULL * step);
	CHECK_EQ_U64(e->delta.buckets[5], 3ULL * step);

	free(v.buf);
	snapshot_free(&s);
}

static struct snap_entry *ingest_b(struct snapshot *s, __u64 id, struct pcpu_vals *v,
				 __u32 birth, bool final)
{
	struct sh_key k = { .id = id };

	return snapshot_ingest_key(s, &k, v->buf, v->ncpu, v->stride, birth, final);
}

/*
 * Keys the kernel reclaims: their counts move into [exited], which the
 * poller reads in the same reading. Nothing is counted twice or lost,
 * whether the key vanished, was made anew (another birth) or was removed
 * by the poller itself; and [exited] alone shows only new waits.
 */
static void test_reclaim(void)
{
	struct pcpu_vals a, c, d, ex;
	struct snapshot s;
	struct snap_entry *e;

	CHECK(!snapshot_init(&s));
	vals_init(&a, 2, hist_bytes());
	vals_init(&c, 2, hist_bytes());
	vals_init(&d, 2, hist_bytes());
	vals_init(&ex, 2, hist_bytes());

	/* reading 1: A has 10 waits, C (birth 5) 7, D 4; [exited] nothing */
	record(&a, 0, 1000000, 6);
	record(&a, 1, 1000000, 4);
	record(&c, 1, 64000, 7);
	record(&d, 0, 5000, 4);
	snapshot_begin(&s, 1);
	ingest_b(&s, 1, &a, 11, false);
	ingest_b(&s, 3, &c, 5, false);
	ingest_b(&s, 4, &d, 12, false);
	snapshot_vanished(&s);
	ingest(&s, SH_EXITED_ID, &ex, false);
	/* D was marked dead while the poller read: it removes D itself */
	e = ingest_b(&s, 4, &d, 12, true);
	CHECK(e->pruned);
	CHECK_EQ_U64(e->delta.count, 4);
	CHECK_EQ_U64(snapshot_recorded(&s), 21);
	snapshot_gc(&s);
	CHECK_EQ_U64(s.exited_cum.count, 4);

	/*
	 * reading 2: A had 3 more waits, then its task was freed: the
	 * kernel folded its 13 into [exited]; B came and went unseen (5);
	 * C was folded (7 + 1) and made anew (birth 6, 2 waits so far)
	 */
	record(&ex, 0, 1000000, 13);
	record(&ex, 1, 200000, 5);
	record(&ex, 0, 64000, 8);
	memset(c.buf, 0, c.ncpu * c.stride);
	record(&c, 0, 64000, 2);
	snapshot_begin(&s, 2);
	e = ingest_b(&s, 3, &c, 6, false);
	CHECK_EQ_U64(e->delta.count, 2);
	CHECK_EQ_U64(e->cum.count, 9);
	snapshot_vanished(&s);
	CHECK(find(&s, 1)->pruned);
	CHECK(find(&s, 4) == NULL);	/* removed by the poller: not subtracted again */
	e = ingest(&s, SH_EXITED_ID, &ex, false);
	/* new waits only: 3 of A, 5 of B, 1 of C's first life */
	CHECK_EQ_U64(e->delta.count, 9);
	CHECK_EQ_U64(e->delta.buckets[bucket_of(1000000)], 3);
	CHECK_EQ_U64(e->delta.buckets[bucket_of(200000)], 5);
	CHECK_EQ_U64(e->delta.buckets[bucket_of(64000)], 1);
	CHECK_EQ_U64(e->delta.sum_ns, 3 * 1000000 + 5 * 200000 + 64000);
	/* every wait once: 10 + 3 (A) + 5 (B) + 8 + 2 (C) + 4 (D) */
	CHECK_EQ_U64(snapshot_recorded(&s), 32);
	snapshot_gc(&s);
	CHECK_EQ_U64(snapshot_recorded(&s), 32);

	free(a.buf);
	free(c.buf);
	free(d.buf);
	free(ex.buf);
	snapshot_free(&s);
}

/* The bound is checked: 2^32 events or more between two readings is counted. */
static void test_wrap_detected(void)
{
	struct snapshot s;
	__u64 st[SH_STAT_NR] = {};

	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	st[SH_STAT_SEEN] = (1ULL << 32) - 1;
	snapshot_stats(&s, st);
	CHECK_EQ_U64(s.wraps, 0);
	snapshot_begin_read(&s, 2);
	st[SH_STAT_SEEN] += 1ULL << 32;
	snapshot_stats(&s, st);
	CHECK_EQ_U64(s.wraps, 1);
	/* deltas of one interval add up across its readings */
	CHECK_EQ_U64(s.stats_delta[SH_STAT_SEEN], (1ULL << 33) - 1);
	snapshot_free(&s);
}

/*
 * The poller advances the epoch, then reads: a wait recorded in between
 * (epoch E + 1, the other slot) must not hide the max of epoch E.
 */
static void test_max_survives_next_epoch(void)
{
	struct snapshot s;
	struct pcpu_vals v;
	struct snap_entry *e;

	CHECK(!snapshot_init(&s));
	vals_init(&v, 2, hist_bytes());
	record(&v, 0, 5000, 1);
	set_max(&v, 0, 10, 5000, 11, "old");
	/* after the advance to 11, before the read: a smaller wait */
	record(&v, 0, 100, 1);
	set_max(&v, 0, 11, 100, 12, "new");
	snapshot_begin(&s, 10);
	e = ingest(&s, 5, &v, false);
	CHECK_EQ_U64(e->delta.max_ns, 5000);
	CHECK_EQ_U64(e->delta.max_tid, 11);
	/* the next interval (another wait in it) sees epoch 11's max */
	record(&v, 0, 50, 1);
	snapshot_begin(&s, 11);
	e = ingest(&s, 5, &v, false);
	CHECK_EQ_U64(e->delta.max_ns, 100);
	CHECK_EQ_U64(e->delta.max_tid, 12);
	free(v.buf);
	snapshot_free(&s);
}

/* The interval's max comes only from CPUs whose max is of this epoch. */
static void test_max_epoch(void)
{
	struct snapshot s;
	struct pcpu_vals v;
	struct snap_entry *e;

	CHECK(!snapshot_init(&s));
	vals_init(&v, 4, hist_bytes());
	record(&v, 0, 5000, 1);
	record(&v, 1, 9000, 1);
	record(&v, 2, 4000, 1);
	set_max(&v, 0, 7, 5000, 11, "a");
	set_max(&v, 1, 6, 9000, 22, "stale");	/* older epoch: not this interval */
	set_max(&v, 2, 7, 4000, 33, "c");
	set_max(&v, 3, 7, 8000, 44, "idle");	/* no waits on this CPU at all */

	snapshot_begin(&s, 7);
	e = ingest(&s, 5, &v, false);
	CHECK_EQ_U64(e->delta.max_ns, 5000);
	CHECK_EQ_U64(e->delta.max_tid, 11);
	CHECK_EQ_U64(e->delta.max_pid, 1011);
	CHECK_EQ_U64(e->delta.max_cpu, 0);
	CHECK(!strcmp(e->delta.max_comm, "a"));
	CHECK_EQ_U64(e->cum.max_ns, 5000);
	CHECK_EQ_U64(e->cum.max_tid, 11);

	/* epoch 8: CPU 1 has a new, smaller max; the others are stale */
	record(&v, 1, 3000, 1);
	set_max(&v, 1, 8, 3000, 23, "b");
	snapshot_begin(&s, 8);
	e = ingest(&s, 5, &v, false);
	CHECK_EQ_U64(e->delta.count, 1);
	CHECK_EQ_U64(e->delta.max_ns, 3000);
	CHECK_EQ_U64(e->delta.max_tid, 23);
	CHECK_EQ_U64(e->delta.max_cpu, 1);
	/* since start: the larger of the intervals' maxes */
	CHECK_EQ_U64(e->cum.max_ns, 5000);
	CHECK_EQ_U64(e->cum.max_tid, 11);

	/* epoch 9: waits, but no CPU's max is of this epoch: unknown (0) */
	record(&v, 2, 6000, 2);
	snapshot_begin(&s, 9);
	e = ingest(&s, 5, &v, false);
	CHECK_EQ_U64(e->delta.count, 2);
	CHECK_EQ_U64(e->delta.max_ns, 0);
	CHECK_EQ_U64(e->cum.max_ns, 5000);

	/* epoch 10: a later larger max takes over since start */
	record(&v, 3, 20000, 1);
	set_max(&v, 3, 10, 20000, 55, "big");
	snapshot_begin(&s, 10);
	e = ingest(&s, 5, &v, false);
	CHECK_EQ_U64(e->delta.max_ns, 20000);
	CHECK_EQ_U64(e->cum.max_ns, 20000);
	CHECK_EQ_U64(e->cum.max_tid, 55);
	CHECK(!strcmp(e->cum.max_comm, "big"));

	/* epoch 11: nothing new, though CPU 3's max were of this epoch: no max */
	set_max(&v, 3, 11, 20000, 55, "big");
	snapshot_begin(&s, 11);
	e = ingest(&s, 5, &v, false);
	CHECK_EQ_U64(snapshot_delta(&s, e)->count, 0);
	CHECK_EQ_U64(snapshot_delta(&s, e)->max_ns, 0);

	free(v.buf);
	snapshot_free(&s);
}

/* snapshot_begin clears every delta; cum keeps growing. */
static void test_cum_accumulates(void)
{
	struct snapshot s;
	struct pcpu_vals v;
	struct snap_entry *e;
	__u64 total = 0;
	int r;

	CHECK(!snapshot_init(&s));
	vals_init(&v, 2, hist_bytes());
	for (r = 1; r <= 10; r++) {
		record(&v, r % 2, 1000ULL * r, (__u32)r);
		total += r;
		snapshot_begin(&s, (__u32)r);
		e = ingest(&s, 3, &v, false);
		CHECK_EQ_U64(e->delta.count, r);
		CHECK_EQ_U64(e->delta.sum_ns, 1000ULL * r * r);
		CHECK_EQ_U64(e->cum.count, total);
		CHECK_EQ_U64(e->gen, s.gen);
	}
	/* a key not read in a reading keeps a zero delta, its cum stays */
	snapshot_begin(&s, 11);
	e = find(&s, 3);
	CHECK_EQ_U64(snapshot_delta(&s, e)->count, 0);
	CHECK_EQ_U64(snapshot_delta(&s, e)->sum_ns, 0);
	CHECK_EQ_U64(e->cum.count, total);
	CHECK(e->gen != s.gen);
	CHECK_EQ_U64(snapshot_recorded(&s), total);
	free(v.buf);
	snapshot_free(&s);
}

static void test_stats(void)
{
	struct snapshot s;
	__u64 a[SH_STAT_NR] = { 100, 5, 7, 0, 2 };
	__u64 b[SH_STAT_NR] = { 150, 6, 17, 1, 2 };
	int i;

	CHECK(!snapshot_init(&s));
	snapshot_begin(&s, 1);
	snapshot_stats(&s, a);
	for (i = 0; i < SH_STAT_NR; i++) {
		CHECK_EQ_U64(s.stats_delta[i], a[i]);
		CHECK_EQ_U64(s.stats_cum[i], a[i]);
	}
	snapshot_begin(&s, 2);
	snapshot_stats(&s, b);
	CHECK_EQ_U64(s.stats_delta[SH_STAT_SEEN], 50);
	CHECK_EQ_U64(s.stats_delta[SH_STAT_NO_START], 1);
	CHECK_EQ_U64(s.stats_delta[SH_STAT_FILTERED], 10);
	CHECK_EQ_U64(s.stats_delta[SH_STAT_DROPPED], 1);
	CHECK_EQ_U64(s.stats_delta[SH_STAT_MAP_FULL], 0);
	for (i = 0; i < SH_STAT_NR; i++)
		CHECK_EQ_U64(s.stats_cum[i], b[i]);
	/* a new reading starts with zero deltas */
	snapshot_begin(&s, 3);
	for (i = 0; i < SH_STAT_NR; i++) {
		CHECK_EQ_U64(s.stats_delta[i], 0);
		CHECK_EQ_U64(s.stats_cum[i], b[i]);
	}
	snapshot_free(&s);
}

/* Pruned keys: final values kept, folded into exited_cum, then freed. */
static void test_prune_gc(void)
{
	struct snapshot s;
	struct pcpu_vals v1, v2, v3;
	struct snap_entry *e;
	size_t it = 0, n = 0;

	CHECK(!snapshot_init(&s));
	vals_init(&v1, 2, hist_bytes());
	vals_init(&v2, 2, hist_bytes());
	vals_init(&v3, 2, hist_bytes());
	record(&v1, 0, 1000, 4);
	record(&v2, 1, 2000, 6);
	record(&v3, 0, 3000, 8);
	set_max(&v2, 1, 1, 2500, 77, "gone");
	snapshot_begin(&s, 1);
	ingest(&s, 1, &v1, false);
	ingest(&s, 2, &v2, false);
	ingest(&s, 3, &v3, false);
	CHECK_EQ_U64(snapshot_recorded(&s), 18);
	check_counts(&s);

	/* key 2 gets 1 more wait, then its task is gone: the final reading */
	record(&v2, 0, 2000, 1);
	snapshot_begin(&s, 2);
	ingest(&s, 1, &v1, false);
	ingest(&s, 2, &v2, false);
	ingest(&s, 3, &v3, false);
	record(&v2, 1, 2000, 2);	/* between the batch read and the delete */
	e = ingest(&s, 2, &v2, true);
	CHECK(e->pruned);
	CHECK_EQ_U64(e->delta.count, 3);	/* both parts of this reading */
	CHECK_EQ_U64(e->cum.count, 9);
	CHECK(!find(&s, 1)->pruned);
	CHECK_EQ_U64(snapshot_recorded(&s), 21);
	check_counts(&s);
	CHECK_EQ_U64(s.nlive, 2);

	/* key 2, the one read with new counts in this interval, is freed: off the list */
	CHECK_EQ_U64(s.ntouched, 1);
	snapshot_gc(&s);
	check_counts(&s);
	CHECK_EQ_U64(s.ntouched, 0);
	CHECK_EQ_U64(s.nentries, 2);
	CHECK(find(&s, 2) == NULL);
	CHECK(find(&s, 1) != NULL);
	CHECK(find(&s, 3) != NULL);
	CHECK_EQ_U64(s.exited_keys, 1);
	CHECK_EQ_U64(s.exited_cum.count, 9);
	CHECK_EQ_U64(s.exited_cum.buckets[bucket_of(2000)], 9);
	CHECK_EQ_U64(s.exited_cum.sum_ns, 9 * 2000);
	CHECK_EQ_U64(s.exited_cum.max_ns, 2500);
	CHECK_EQ_U64(s.exited_cum.max_tid, 77);
	/* the recorded total does not change when keys move to [exited] */
	CHECK_EQ_U64(snapshot_recorded(&s), 21);
	for (e = NULL; (e = snapshot_next(&s, &it, e));)
		n++;
	CHECK_EQ_U64(n, 2);

	/* a 2nd gc has nothing left to fold */
	snapshot_gc(&s);
	CHECK_EQ_U64(s.exited_keys, 1);
	CHECK_EQ_U64(s.exited_cum.count, 9);

	/* the same key coming back starts from zero */
	snapshot_begin(&s, 3);
	e = ingest(&s, 2, &v2, false);
	CHECK_EQ_U64(e->delta.count, 9);
	CHECK(!e->pruned);
	CHECK_EQ_U64(snapshot_recorded(&s), 30);
	check_counts(&s);
	CHECK_EQ_U64(s.ntouched, 1);

	/* pruning every key empties the table */
	ingest(&s, 1, &v1, true);
	ingest(&s, 2, &v2, true);
	ingest(&s, 3, &v3, true);
	snapshot_gc(&s);
	check_counts(&s);
	CHECK_EQ_U64(s.nentries, 0);
	CHECK_EQ_U64(s.ntouched, 0);
	CHECK_EQ_U64(s.exited_keys, 4);
	CHECK_EQ_U64(s.exited_cum.count, 30);
	CHECK_EQ_U64(snapshot_recorded(&s), 30);
	it = 0;
	CHECK(snapshot_next(&s, &it, NULL) == NULL);

	free(v1.buf);
	free(v2.buf);
	free(v3.buf);
	snapshot_free(&s);
}

/* keep_pruned (cgroups since start): pruned entries stay, under their key. */
static void test_keep_pruned(void)
{
	struct snapshot s;
	struct pcpu_vals v;
	struct snap_entry *e;

	CHECK(!snapshot_init(&s));
	s.keep_pruned = true;
	s.keep_limit = 1;
	vals_init(&v, 2, hist_bytes());
	record(&v, 0, 1000, 4);
	snapshot_begin(&s, 1);
	ingest(&s, 8, &v, false);
	snapshot_begin(&s, 2);
	record(&v, 1, 1000, 1);
	e = ingest(&s, 8, &v, true);
	CHECK(e->pruned);
	CHECK_EQ_U64(e->delta.count, 1);
	snapshot_gc(&s);
	CHECK_EQ_U64(s.nentries, 1);
	CHECK_EQ_U64(s.exited_keys, 0);
	CHECK_EQ_U64(s.exited_cum.count, 0);
	e = find(&s, 8);
	CHECK(e && e->pruned && e->cum.count == 5);
	/* kept: still on the interval's list, not live */
	check_counts(&s);
	CHECK_EQ_U64(s.ntouched, 1);
	CHECK_EQ_U64(s.nlive, 0);
	/* no new counts: a zero delta in the next interval, the same total */
	snapshot_begin(&s, 3);
	CHECK(e && snapshot_delta(&s, e)->count == 0);
	CHECK_EQ_U64(snapshot_recorded(&s), 5);
	/* past keep_limit, a pruned entry folds into [exited] after all */
	record(&v, 0, 2000, 2);
	e = ingest(&s, 9, &v, true);
	CHECK(e && e->pruned);
	snapshot_gc(&s);
	CHECK(find(&s, 8) != NULL);
	CHECK(find(&s, 9) == NULL);
	check_counts(&s);
	CHECK_EQ_U64(s.exited_keys, 1);
	CHECK_EQ_U64(s.nkept, 1);
	CHECK_EQ_U64(snapshot_recorded(&s), 5 + 7);
	free(v.buf);
	snapshot_free(&s);
}

/* Keys differ by id or by comm; both make distinct entries. */
static void test_comm_keys(void)
{
	struct snapshot s;
	struct pcpu_vals v;
	struct sh_key a = {}, b = {}, c = {};

	CHECK(!snapshot_init(&s));
	vals_init(&v, 1, hist_bytes());
	record(&v, 0, 1000, 1);
	strcpy(a.comm, "bash");
	strcpy(b.comm, "bas");
	c.id = SH_OTHER_ID;
	snapshot_begin(&s, 1);
	CHECK(snapshot_ingest(&s, &a, v.buf, 1, v.stride, false) != NULL);
	CHECK(snapshot_ingest(&s, &b, v.buf, 1, v.stride, false) != NULL);
	CHECK(snapshot_ingest(&s, &c, v.buf, 1, v.stride, false) != NULL);
	CHECK_EQ_U64(s.nentries, 3);
	CHECK(snapshot_find(&s, &a) && !strcmp(snapshot_find(&s, &a)->key.comm, "bash"));
	CHECK(snapshot_find(&s, &b) && !strcmp(snapshot_find(&s, &b)->key.comm, "bas"));
	CHECK(snapshot_find(&s, &c) && snapshot_find(&s, &c)->key.id == SH_OTHER_ID);
	free(v.buf);
	snapshot_free(&s);
}

/* Far past the first 1024 slots: every key stays findable, once. */
static void test_growth(void)
{
	enum { N = 5000 };
	struct snapshot s;
	struct pcpu_vals v;
	struct snap_entry *e;
	size_t it = 0, n = 0;
	__u64 id, idsum = 0, bad = 0;

	CHECK(!snapshot_init(&s));
	vals_init(&v, 2, hist_bytes());
	snapshot_begin(&s, 1);
	for (id = 1; id <= N; id++) {
		memset(v.buf, 0, 2 * v.stride);
		record(&v, (int)(id % 2), 1000, (__u32)id);
		e = ingest(&s, id, &v, false);
		if (!e || e->delta.count != id)
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(s.nentries, N);
	CHECK(s.nbuckets >= N);
	CHECK_EQ_U64(s.nbuckets & (s.nbuckets - 1), 0);	/* still a power of two */
	for (id = 1; id <= N; id++) {
		e = find(&s, id);
		if (!e || e->key.id != id || e->cum.count != id)
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK(find(&s, 0) == NULL);
	CHECK(find(&s, N + 1) == NULL);
	for (e = NULL; (e = snapshot_next(&s, &it, e));) {
		n++;
		idsum += e->key.id;
	}
	CHECK_EQ_U64(n, N);
	CHECK_EQ_U64(idsum, (__u64)N * (N + 1) / 2);
	CHECK_EQ_U64(snapshot_recorded(&s), (__u64)N * (N + 1) / 2);

	/* a 2nd reading finds the same entries, it makes no new ones */
	snapshot_begin(&s, 2);
	for (id = 1; id <= N; id++) {
		memset(v.buf, 0, 2 * v.stride);
		record(&v, (int)(id % 2), 1000, (__u32)id + 1);
		e = ingest(&s, id, &v, false);
		if (!e || e->delta.count != 1 || e->cum.count != id + 1)
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(s.nentries, N);

	snapshot_free(&s);
	CHECK(s.table == NULL);
	CHECK_EQ_U64(s.nentries, 0);
	free(v.buf);
}

/*
 * A key with no new wait since the last reading takes the short way
 * (snapshot_ingest_entry's unchanged()): a zero delta, nothing moved, and
 * the next change counts in full. Equal counts under a new incarnation
 * are not "unchanged": the kernel folded and remade the key.
 */
static void test_unchanged(void)
{
	struct snapshot s;
	struct pcpu_vals v;
	struct snap_entry *e;

	vals_init(&v, 2, hist_bytes());
	CHECK(snapshot_init(&s) == 0);
	record(&v, 0, 1500, 3);
	record(&v, 1, 70000, 2);
	snapshot_begin(&s, 1);
	e = ingest_b(&s, 7, &v, 5, false);
	CHECK_EQ_U64(snapshot_delta(&s, e)->count, 5);

	/* nothing new: zero, read in this reading (not vanished), cum as it was */
	snapshot_begin(&s, 2);
	e = ingest_b(&s, 7, &v, 5, false);
	CHECK_EQ_U64(snapshot_delta(&s, e)->count, 0);
	CHECK_EQ_U64(snapshot_delta(&s, e)->sum_ns, 0);
	CHECK_EQ_U64(e->gen, s.gen);
	CHECK_EQ_U64(e->cum.count, 5);
	snapshot_vanished(&s);
	CHECK(!e->pruned);

	/* new waits after the quiet interval: exactly them */
	record(&v, 1, 3000, 4);
	snapshot_begin(&s, 3);
	e = ingest_b(&s, 7, &v, 5, false);
	CHECK_EQ_U64(snapshot_delta(&s, e)->count, 4);
	CHECK_EQ_U64(snapshot_delta(&s, e)->buckets[bucket_of(3000)], 4);
	CHECK_EQ_U64(snapshot_delta(&s, e)->sum_ns, 12000);
	CHECK_EQ_U64(e->cum.count, 9);

	/* the same counts, another incarnation: folded and made anew, not unchanged */
	snapshot_begin(&s, 4);
	e = ingest_b(&s, 7, &v, 6, false);
	CHECK_EQ_U64(snapshot_delta(&s, e)->count, 9);
	CHECK_EQ_U64(s.gone.count, 9);	/* its old counts, for [exited] */

	/* a final reading of an unchanged key prunes it, once */
	snapshot_begin(&s, 5);
	e = ingest_b(&s, 7, &v, 6, true);
	CHECK(e->pruned);
	CHECK_EQ_U64(s.newly_pruned, 1);
	snapshot_gc(&s);
	CHECK_EQ_U64(s.newly_pruned, 0);
	CHECK(!find(&s, 7));
	CHECK_EQ_U64(s.exited_cum.count, 18);

	free(v.buf);
	snapshot_free(&s);
}

/*
 * Without buckets since start (no report since start is made): each
 * interval's buckets are still exact over several readings of it, and
 * cum keeps its count and sum (the run's totals), its buckets 0.
 */
static void test_no_cum_buckets(void)
{
	struct snapshot s;
	struct pcpu_vals v;
	struct snap_entry *e;

	vals_init(&v, 2, hist_bytes());
	CHECK(snapshot_init(&s) == 0);
	s.cum_buckets = false;
	record(&v, 0, 1500, 3);
	snapshot_begin(&s, 1);
	e = ingest_b(&s, 7, &v, 5, false);
	CHECK_EQ_U64(snapshot_delta(&s, e)->buckets[bucket_of(1500)], 3);
	/* a second reading of the same interval adds to it */
	record(&v, 1, 70000, 2);
	snapshot_begin_read(&s, 1);
	e = ingest_b(&s, 7, &v, 5, false);
	CHECK_EQ_U64(snapshot_delta(&s, e)->buckets[bucket_of(1500)], 3);
	CHECK_EQ_U64(snapshot_delta(&s, e)->buckets[bucket_of(70000)], 2);
	CHECK_EQ_U64(snapshot_delta(&s, e)->count, 5);
	/* the next interval's first reading starts from its own waits only */
	record(&v, 0, 1500, 4);
	snapshot_begin(&s, 2);
	e = ingest_b(&s, 7, &v, 5, false);
	CHECK_EQ_U64(snapshot_delta(&s, e)->buckets[bucket_of(1500)], 4);
	CHECK_EQ_U64(snapshot_delta(&s, e)->buckets[bucket_of(70000)], 0);
	CHECK_EQ_U64(snapshot_delta(&s, e)->count, 4);
	CHECK_EQ_U64(snapshot_delta(&s, e)->sum_ns, 6000);
	CHECK_EQ_U64(e->cum.count, 9);
	CHECK_EQ_U64(e->cum.sum_ns, 3 * 1500 + 2 * 70000 + 4 * 1500);
	CHECK_EQ_U64(e->cum.buckets[bucket_of(1500)], 0);

	free(v.buf);
	snapshot_free(&s);
}

int main(void)
{
	TEST(test_sum_and_delta);
	TEST(test_pcpu_layout);
	TEST(test_new_key_mid_run);
	TEST(test_wraparound);
	TEST(test_wrap_detected);
	TEST(test_reclaim);
	TEST(test_max_epoch);
	TEST(test_max_survives_next_epoch);
	TEST(test_cum_accumulates);
	TEST(test_stats);
	TEST(test_prune_gc);
	TEST(test_keep_pruned);
	TEST(test_comm_keys);
	TEST(test_growth);
	TEST(test_unchanged);
	TEST(test_no_cum_buckets);
	return test_summary();
}
