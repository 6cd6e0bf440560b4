// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The protobuf exposition with native histograms, hand-encoded (why: docs/architecture.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include <math.h>

#include "prom/prom_native.h"
#include "prom/prom_walk.h"
#include "lib/outbuf.h"
#include "lib/escape.h"
#include "lib/util.h"

/* Field numbers of io.prometheus.client (metrics.proto). */
enum {
	MF_NAME = 1, MF_HELP = 2, MF_TYPE = 3, MF_METRIC = 4,		/* MetricFamily */
	M_LABEL = 1, M_GAUGE = 2, M_COUNTER = 3, M_HISTOGRAM = 7,	/* Metric */
	LP_NAME = 1, LP_VALUE = 2,					/* LabelPair */
	VALUE = 1,							/* Gauge, Counter */
	H_COUNT = 1, H_SUM = 2, H_BUCKET = 3, H_SCHEMA = 5, H_ZERO_THRESHOLD = 6,
	H_ZERO_COUNT = 7, H_POS_SPAN = 12, H_POS_DELTA = 13,		/* Histogram */
	SPAN_OFFSET = 1, SPAN_LENGTH = 2,				/* BucketSpan */
	B_CUMULATIVE = 1, B_UPPER_BOUND = 2, B_EXEMPLAR = 3,		/* Bucket */
	EX_LABEL = 1, EX_VALUE = 2, EX_TIMESTAMP = 3,			/* Exemplar */
	TS_SECONDS = 1, TS_NANOS = 2,				/* google.protobuf.Timestamp */
};

enum { TYPE_COUNTER = 0, TYPE_GAUGE = 1, TYPE_HISTOGRAM = 4 };

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

/* The zero bucket's threshold: bucket 0's upper edge, 2^-20 s (schedhist.h). */
#define ZERO_THRESHOLD_S 0x1p-20

static void pb_varint(struct outbuf *b, __u64 v)
{
	unsigned char buf[10];
	size_t n = 0;

	do {
		buf[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	ob_mem(b, buf, n);
}

static void pb_tag(struct outbuf *b, int field, int wt)
{
	pb_varint(b, (__u64)field << 3 | (__u64)wt);
}

static void pb_uint(struct outbuf *b, int field, __u64 v)
{
	pb_tag(b, field, WT_VARINT);
	pb_varint(b, v);
}

/* sint32/sint64: zigzag, so small negative numbers stay short */
static void pb_sint(struct outbuf *b, int field, __s64 v)
{
	pb_uint(b, field, ((__u64)v << 1) ^ (__u64)(v >> 63));
}

static void pb_double(struct outbuf *b, int field, double d)
{
	unsigned char buf[8];
	__u64 u;
	int i;

	memcpy(&u, &d, sizeof(u));
	for (i = 0; i < 8; i++)
		buf[i] = (unsigned char)(u >> (8 * i));	/* little-endian on the wire */
	pb_tag(b, field, WT_I64);
	ob_mem(b, buf, sizeof(buf));
}

static void pb_bytes(struct outbuf *b, int field, const void *data, size_t n)
{
	pb_tag(b, field, WT_LEN);
	pb_varint(b, n);
	ob_mem(b, data, n);
}

static void pb_string(struct outbuf *b, int field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

static void pb_msg(struct outbuf *b, int field, struct outbuf *child)
{
	pb_bytes(b, field, child->p, child->len);
	b->failed |= child->failed;
	child->len = 0;
}

/* Scratch buffers, one per nesting level, reused for every message. */
struct enc {
	struct outbuf out;		/* the exposition */
	struct outbuf fam;		/* MetricFamily */
	struct outbuf met;		/* Metric */
	struct outbuf sub;		/* LabelPair, Counter, Gauge, Histogram */
	struct outbuf span;		/* BucketSpan, Bucket */
	struct outbuf ex;		/* Exemplar */
	struct outbuf leaf;		/* the Exemplar's LabelPair, Timestamp */
};

/* A label pair; the value escaped as in the text formats, so every format names the same series. */
static void pair(struct enc *e, struct outbuf *lp, struct outbuf *parent, int field,
		 const char *name, const char *value)
{
	char buf[256], *esc = buf;
	size_t n = name_escape(buf, sizeof(buf), value);

	if (n >= sizeof(buf)) {
		esc = malloc(n + 1);
		if (!esc) {
			e->out.failed = true;
			return;
		}
		name_escape(esc, n + 1, value);
	}
	pb_string(lp, LP_NAME, name);
	pb_string(lp, LP_VALUE, esc);
	pb_msg(parent, field, lp);
	if (esc != buf)
		free(esc);
}

static void label(struct enc *e, const char *name, const char *value)
{
	pair(e, &e->sub, &e->met, M_LABEL, name, value);
}

static void family(struct enc *e, int fi, const char *help)
{
	static const int types[] = {
		[PROM_TYPE_COUNTER] = TYPE_COUNTER, [PROM_TYPE_GAUGE] = TYPE_GAUGE,
		[PROM_TYPE_HISTOGRAM] = TYPE_HISTOGRAM, [PROM_TYPE_INFO] = TYPE_GAUGE,
	};

	pb_string(&e->fam, MF_NAME, prom_families[fi].name);
	pb_string(&e->fam, MF_HELP, help);
	pb_uint(&e->fam, MF_TYPE, (__u64)types[prom_families[fi].type]);
}

/* End a family: length-delimited, as "encoding=delimited" says. */
static void family_end(struct enc *e)
{
	pb_varint(&e->out, e->fam.len);
	ob_mem(&e->out, e->fam.p, e->fam.len);
	e->out.failed |= e->fam.failed;
	e->fam.len = 0;
}

static void span(struct enc *e, __s32 offset, __u32 length)
{
	pb_sint(&e->span, SPAN_OFFSET, offset);
	pb_uint(&e->span, SPAN_LENGTH, length);
	pb_msg(&e->sub, H_POS_SPAN, &e->span);
}

/* The worst wait's exemplar, in its grid bucket's classic bucket with the true cumulative count. */
static void exemplar_bucket(struct enc *e, const struct totals *t, const struct prom_max *m)
{
	int i, b = bucket_of(m->ns);
	char tid[16], id[20];
	__u64 cum = 0;

	for (i = 0; i <= b; i++)
		cum += t->buckets[i];
	snprintf(tid, sizeof(tid), "%u", (unsigned)m->tid);
	pair(e, &e->leaf, &e->ex, EX_LABEL, "tid", tid);
	pair(e, &e->leaf, &e->ex, EX_LABEL, "comm", m->comm);
	if (m->has_stack) {
		snprintf(id, sizeof(id), "%016llx", (unsigned long long)m->stack_id);
		pair(e, &e->leaf, &e->ex, EX_LABEL, "stack_id", id);
	}
	pb_double(&e->ex, EX_VALUE, (double)m->ns / 1e9);
	pb_uint(&e->leaf, TS_SECONDS, (__u64)m->when.tv_sec);
	if (m->when.tv_nsec)
		pb_uint(&e->leaf, TS_NANOS, (__u64)m->when.tv_nsec);
	pb_msg(&e->ex, EX_TIMESTAMP, &e->leaf);
	pb_uint(&e->span, B_CUMULATIVE, cum);
	/* the grid bucket's upper edge, the native bucket's: 2^(index / 2^schema) s */
	pb_double(&e->span, B_UPPER_BOUND,
		  b >= sh_nb - 1 ? INFINITY
				 : exp2((double)(b + SH_NATIVE_INDEX0(sh_schema)) /
					   (double)(1 << sh_schema)));
	pb_msg(&e->span, B_EXEMPLAR, &e->ex);
	pb_msg(&e->sub, H_BUCKET, &e->span);
}

/* @t as a native histogram: bucket 0 the zero bucket, spans of non-empty buckets, delta counts. */
static void histogram(struct enc *e, const struct totals *t, const struct prom_max *ex)
{
	__u64 count = 0, prev = 0;
	int i, start, last_end = 0;
	bool first = true;

	for (i = 0; i < sh_nb; i++)
		count += t->buckets[i];
	pb_uint(&e->sub, H_COUNT, count);
	pb_double(&e->sub, H_SUM, (double)t->sum_ns / 1e9);
	pb_sint(&e->sub, H_SCHEMA, sh_schema);
	/* > 0 also tells Prometheus that the histogram is native while it is empty */
	pb_double(&e->sub, H_ZERO_THRESHOLD, ZERO_THRESHOLD_S);
	pb_uint(&e->sub, H_ZERO_COUNT, t->buckets[0]);
	for (i = 1; i < sh_nb; i++) {
		if (!t->buckets[i])
			continue;
		for (start = i; i + 1 < sh_nb && t->buckets[i + 1]; i++)
			;
		/* the first span's offset is its index, the others' the gap before them */
		span(e, first ? start + SH_NATIVE_INDEX0(sh_schema) : start - last_end,
		     (__u32)(i - start + 1));
		first = false;
		last_end = i + 1;
	}
	for (i = 1; i < sh_nb; i++) {
		if (!t->buckets[i])
			continue;
		pb_sint(&e->sub, H_POS_DELTA, (__s64)(t->buckets[i] - prev));
		prev = t->buckets[i];
	}
	if (ex)
		exemplar_bucket(e, t, ex);
	pb_msg(&e->met, M_HISTOGRAM, &e->sub);
	pb_msg(&e->fam, MF_METRIC, &e->met);
}

static int native_sample(void *ctx, const struct prom_sample *s)
{
	struct enc *e = ctx;
	int i;

	for (i = 0; i < s->nlabels; i++)
		label(e, s->label[i].name, s->label[i].value);
	if (s->hist) {
		histogram(e, s->hist, s->exemplar);
		return 0;
	}
	/* protobuf has no info type: a gauge of 1, as in the text format 0.0.4 */
	pb_double(&e->sub, VALUE, s->seconds ? (double)s->value / 1e9 : (double)s->value);
	pb_msg(&e->met, prom_families[s->family].type == PROM_TYPE_COUNTER ? M_COUNTER : M_GAUGE,
	       &e->sub);
	pb_msg(&e->fam, MF_METRIC, &e->met);
	return 0;
}

static int native_family(void *ctx, int fi, const char *help)
{
	family(ctx, fi, help);
	return 0;
}

static int native_family_end(void *ctx, int fi)
{
	family_end(ctx);
	return 0;
}

int render_prom_native(FILE *f, const struct prom_view *views, size_t nv)
{
	/* Buffers kept across expositions: freed in changing sizes they left heap holes. */
	static struct enc e;
	struct outbuf *all[] = { &e.out, &e.fam, &e.met, &e.sub, &e.span, &e.ex, &e.leaf };
	size_t i;
	int err = 0;

	static const struct prom_encoder native = {
		.family = native_family, .sample = native_sample, .family_end = native_family_end
	};

	for (i = 0; i < ARRAY_SIZE(all); i++)
		ob_reset(all[i]);
	if (prom_walk(views, nv, &native, &e))
		e.out.failed = true;
	for (i = 0; i < ARRAY_SIZE(all); i++)
		err |= all[i]->failed;
	if (!err && e.out.len && fwrite(e.out.p, 1, e.out.len, f) != e.out.len)
		err = -1;
	return err || ferror(f);
}
