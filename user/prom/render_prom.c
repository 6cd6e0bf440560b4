// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Prometheus text 0.0.4 and OpenMetrics 1.0.0 of the series table (prom_series.h). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prom/render_prom.h"
#include "prom/prom_walk.h"
#include "lib/outbuf.h"
#include "lib/escape.h"
#include "lib/names.h"
#include "lib/util.h"

static void label_value(FILE *f, const char *s)
{
	fputc('"', f);
	name_write(f, s, ESC_LABEL);
	fputc('"', f);
}

/* A count of nanoseconds as an exact decimal number of seconds. */
static void fmt_seconds(char *buf, size_t n, __u64 ns)
{
	__u64 frac = ns % NSEC_PER_SEC;
	int w = 9;

	if (!frac) {
		snprintf(buf, n, "%" PRIu64, (uint64_t)(ns / NSEC_PER_SEC));
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		w--;
	}
	snprintf(buf, n, "%" PRIu64 ".%0*" PRIu64, (uint64_t)(ns / NSEC_PER_SEC), w,
		 (uint64_t)frac);
}

/* Classic bucket @i's "le", 2^(i-20) s, in Go's shortest 'g' form; +Inf for the last. */
static void fmt_le(char *buf, size_t n, int i)
{
	double le = ldexp(1.0, i + SH_NATIVE_INDEX0(0));
	int prec;

	if (i >= SH_NBUCKETS(0) - 1) {
		snprintf(buf, n, "+Inf");
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, n, "%.*g", prec, le);
		if (strtod(buf, NULL) == le)
			return;
	}
	snprintf(buf, n, "%.17g", le);
}

static void family(FILE *f, bool om, int fi, const char *help)
{
	const struct prom_family *fam = &prom_families[fi];
	static const char *const types[] = {
		[PROM_TYPE_COUNTER] = "counter", [PROM_TYPE_GAUGE] = "gauge",
		[PROM_TYPE_HISTOGRAM] = "histogram", [PROM_TYPE_INFO] = "info",
	};
	/* the text format 0.0.4 has no info type: a gauge of 1 under the full name */
	const char *type = !om && fam->type == PROM_TYPE_INFO ? "gauge" : types[fam->type];
	int len = om ? prom_om_name_len(fi) : (int)strlen(fam->name);

	fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", len, fam->name, help, len, fam->name, type);
	if (om && fam->unit)
		fprintf(f, "# UNIT %.*s %s\n", len, fam->name, fam->unit);
}

/* OpenMetrics: the interval's worst wait as its bucket line's exemplar (labels <= 101 chars). */
static void put_exemplar(FILE *f, const struct prom_max *m)
{
	char val[32];

	fprintf(f, " # {tid=\"%" PRIu32 "\",comm=", (uint32_t)m->tid);
	label_value(f, m->comm);
	if (m->has_stack)
		fprintf(f, ",stack_id=\"%016" PRIx64 "\"", (uint64_t)m->stack_id);
	fmt_seconds(val, sizeof(val), m->ns);
	fprintf(f, "} %s %lld.%03ld", val, (long long)m->when.tv_sec, m->when.tv_nsec / 1000000);
}

struct text_enc {
	FILE *f;
	bool om;			/* OpenMetrics (exemplars, # UNIT, # EOF) */
	char le[SH_NBUCKETS(0)][32];
	struct outbuf labels;		/* kept from one sample to the next */
};

/* The sample's labels, escaped once (not once per bucket line), without braces. */
static const char *labels_of(struct text_enc *t, const struct prom_sample *s)
{
	FILE *m;
	int i;

	ob_reset(&t->labels);
	if (!(m = ob_stream(&t->labels)))
		return NULL;
	for (i = 0; i < s->nlabels; i++) {
		fprintf(m, "%s%s=", i ? "," : "", s->label[i].name);
		if (s->label[i].is_name)
			label_value(m, s->label[i].value);
		else
			fprintf(m, "\"%s\"", s->label[i].value);
	}
	if (fclose(m) || t->labels.failed)
		return NULL;
	return ob_cstr(&t->labels);
}

static void put_histogram(struct text_enc *t, const char *labels, const struct prom_sample *s)
{
	const struct totals *h = s->hist;
	const struct prom_max *ex = t->om ? s->exemplar : NULL;
	int i, ex_bucket = ex ? bucket_of(ex->ns) : sh_nb, per = 1 << sh_schema;
	__u64 cum = 0;
	char sum[32];

	for (i = 0; i < sh_nb; i++) {
		cum += h->buckets[i];
		/* at each power of two: every per-th edge of the grid */
		if (i % per)
			continue;
		fprintf(t->f, "schedhist_wait_seconds_bucket{%s,le=\"%s\"} %" PRIu64, labels,
			t->le[i / per], (uint64_t)cum);
		/* the first line whose count holds the wait's bucket */
		if (i >= ex_bucket) {
			put_exemplar(t->f, ex);
			ex_bucket = sh_nb;
		}
		fputc('\n', t->f);
	}
	fmt_seconds(sum, sizeof(sum), h->sum_ns);
	fprintf(t->f, "schedhist_wait_seconds_sum{%s} %s\n", labels, sum);
	/* the +Inf bucket, so the two always agree */
	fprintf(t->f, "schedhist_wait_seconds_count{%s} %" PRIu64 "\n", labels, (uint64_t)cum);
}

static int text_sample(void *ctx, const struct prom_sample *s)
{
	struct text_enc *t = ctx;
	const char *labels = labels_of(t, s);
	char buf[32];

	if (!labels)
		return -1;
	if (s->hist) {
		put_histogram(t, labels, s);
		return 0;
	}
	fputs(prom_families[s->family].name, t->f);
	if (s->nlabels)
		fprintf(t->f, "{%s}", labels);
	if (s->seconds)
		fmt_seconds(buf, sizeof(buf), s->value);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)s->value);
	fprintf(t->f, " %s\n", buf);
	return 0;
}

static int text_family(void *ctx, int fi, const char *help)
{
	struct text_enc *t = ctx;

	family(t->f, t->om, fi, help);
	return 0;
}

int render_prom(FILE *f, const struct prom_view *views, size_t nv, bool om)
{
	static const struct prom_encoder text = { .family = text_family, .sample = text_sample };
	/* Kept across expositions, made on one thread (ob_stream() in outbuf.h). */
	static struct text_enc t;
	int i;

	t.f = f;
	t.om = om;
	for (i = 0; i < SH_NBUCKETS(0); i++)
		fmt_le(t.le[i], sizeof(t.le[i]), i);
	if (prom_walk(views, nv, &text, &t))
		return -1;
	if (om)
		fputs("# EOF\n", f);
	return ferror(f);
}
