// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Prometheus exposition: the bounded, monotone series of the waits since
 * start (prom_series.h), rendered in the text format 0.0.4 or in
 * OpenMetrics 1.0.0. Reads the series only; never touches the maps.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prom/render_prom.h"
#include "lib/outbuf.h"
#include "lib/escape.h"
#include "lib/names.h"
#include "model/cgroup_names.h"
#include "lib/util.h"

/* A label value: a name escaped by the rule of escape.h, in label syntax. */
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

/*
 * The "le" of classic bucket @i: 2^(i-20) s, the upper edge of bucket
 * i << schema of the grid (schedhist.h): whatever the schema, the classic
 * exposition keeps one bucket per power of two (a finer grid adds its
 * buckets up; native histograms carry it whole), so a series keeps its 43
 * lines. In the
 * shortest form that reads back as the same double, as Go's strconv 'g'
 * writes it ("9.5367431640625e-07", "0.0009765625", "1", "512"); +Inf
 * for the last bucket, which holds every longer wait.
 */
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

/* The # HELP, # TYPE (and in OpenMetrics # UNIT) lines of family @fi. */
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

/*
 * -k cgroup: the names read from the key's path (cgroup_names.h), as
 * labels after key, those found only (an empty label is no label to
 * Prometheus). Each is a function of the key, so they add no series.
 */
static void cgroup_labels(FILE *f, const char *path)
{
	struct cg_labels l;
	const char *qos;

	if (!cg_labels_parse(path, &l))
		return;
	if (l.unit[0]) {
		fputs(",unit=", f);
		label_value(f, l.unit);
	}
	if (l.container_id[0])
		fprintf(f, ",container_id=\"%s\",container_id_short=\"%s\"", l.container_id,
			l.container_id_short);
	if (l.pod_uid[0])
		fprintf(f, ",pod_uid=\"%s\"", l.pod_uid);
	if ((qos = cg_qos_name(l.qos)))
		fprintf(f, ",qos=\"%s\"", qos);
}

/*
 * The key label's value and the labels read from it, escaped, in a buffer
 * kept from one call to the next (a series at a time; the poller renders
 * on one thread): valid until the next call. NULL: no memory.
 */
static const char *key_labels(const char *key, int key_type)
{
	static struct outbuf esc;
	FILE *m;

	ob_reset(&esc);
	m = ob_stream(&esc);
	if (!m)
		return NULL;
	label_value(m, key);
	if (key_type == SH_KEY_CGROUP)
		cgroup_labels(m, key);
	if (fclose(m) || esc.failed)
		return NULL;
	return ob_cstr(&esc);
}

/*
 * OpenMetrics: the exemplar of the worst wait @m of the last interval, at
 * the end of its bucket's line: tid, comm and with --stacks stack_id
 * (frames_id()); its value the wait in seconds, its timestamp the
 * reading's, in milliseconds as the JSON report's "time". The label
 * names and values hold at most 101 characters (tid 3 + 10 digits, comm
 * 4 + 15 bytes of at most 4 characters each once escaped, "\xNN",
 * stack_id 8 + 16), within OpenMetrics' limit of 128.
 */
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

/*
 * One histogram series: its labels are escaped once, not once per line.
 * @ex: the interval's worst wait, whose bucket carries its exemplar
 * (OpenMetrics only), or NULL.
 */
static int put_series(FILE *f, const char *labels, const char *key, int key_type,
		      const struct totals *t, const struct prom_max *ex,
		      char le[SH_NBUCKETS(0)][32])
{
	const char *esc = key_labels(key, key_type);
	char sum[32];
	int i, ex_bucket = ex ? bucket_of(ex->ns) : sh_nb, per = 1 << sh_schema;
	__u64 cum = 0;

	if (!esc)
		return -1;
	for (i = 0; i < sh_nb; i++) {
		cum += t->buckets[i];
		/* at each power of two: every per-th edge of the grid */
		if (i % per)
			continue;
		fprintf(f, "schedhist_wait_seconds_bucket{%s%s,le=\"%s\"} %" PRIu64, labels, esc,
			le[i / per], (uint64_t)cum);
		/* the first line whose count holds the wait's bucket */
		if (i >= ex_bucket) {
			put_exemplar(f, ex);
			ex_bucket = sh_nb;
		}
		fputc('\n', f);
	}
	fmt_seconds(sum, sizeof(sum), t->sum_ns);
	fprintf(f, "schedhist_wait_seconds_sum{%s%s} %s\n", labels, esc, sum);
	/* the +Inf bucket, so the two always agree */
	fprintf(f, "schedhist_wait_seconds_count{%s%s} %" PRIu64 "\n", labels, esc, (uint64_t)cum);
	return 0;
}

/* One view's histogram series, sorted by key; with exemplars in OpenMetrics (@om). */
static int put_view(FILE *f, const struct prom_view *v, bool om, char le[][32])
{
	struct prom_series **sorted;
	char labels[128];
	size_t n, i;
	int err = 0;

	snprintf(labels, sizeof(labels), "metric=\"%s\",key_type=\"%s\",key=",
		 metric_name(v->metric), key_name(v->key_type));
	sorted = prom_view_sorted(v, &n);
	if (!sorted)
		return -1;
	for (i = 0; i < n && !err; i++)
		err = put_series(f, labels, sorted[i]->key, v->key_type, &sorted[i]->t,
				 om && prom_max_now(v, &sorted[i]->max) ? &sorted[i]->max : NULL, le);
	free(sorted);
	if (!err && v->key_type != SH_KEY_NONE)
		err = put_series(f, labels, PROM_OTHER, v->key_type, &v->other,
				 om && prom_max_now(v, &v->other_max) ? &v->other_max : NULL, le);
	return err;
}

/* A counter's value: exact seconds of ns, or a count. */
static void put_value(FILE *f, bool seconds, __u64 v)
{
	char buf[32];

	if (seconds) {
		fmt_seconds(buf, sizeof(buf), v);
		fprintf(f, " %s\n", buf);
	} else {
		fprintf(f, " %" PRIu64 "\n", (uint64_t)v);
	}
}

/* The per-series counter @fi: the samples of every exported series that has one. */
static int put_counters(FILE *f, const struct prom_view *views, size_t nv, int fi)
{
	const struct prom_family *cf = &prom_families[fi];
	bool per_culprit = cf->source == PROM_FROM_CULPRIT, seconds = prom_family_seconds(fi);
	size_t j, i, k, n, nc;

	for (j = 0; j < nv; j++) {
		const struct prom_view *v = &views[j];
		struct prom_series **sorted;

		if (per_culprit ? !v->culprits : v->key_type != SH_KEY_CGROUP)
			continue;
		sorted = prom_view_sorted(v, &n);
		if (!sorted)
			return -1;
		for (i = 0; i < n; i++) {
			struct prom_culprit c[SH_CULPRIT_TOP + 1];
			const char *esc;
			__u64 val;

			if (per_culprit ? !(nc = prom_series_culprits(sorted[i], c))
					: !prom_series_cgstat(sorted[i], fi, &val))
				continue;
			esc = key_labels(sorted[i]->key, v->key_type);
			if (!esc) {
				free(sorted);
				return -1;
			}
			if (!per_culprit) {
				fprintf(f, "%s{metric=\"%s\",key_type=\"%s\",key=%s}", cf->name,
					metric_name(v->metric), key_name(v->key_type), esc);
				put_value(f, seconds, val);
			}
			for (k = 0; per_culprit && k < nc; k++) {
				fprintf(f, "%s{metric=\"%s\",key_type=\"%s\",key=%s,culprit=",
					cf->name, metric_name(v->metric), key_name(v->key_type), esc);
				label_value(f, c[k].name);
				fprintf(f, ",culprit_mode=\"%s\"}", culprit_mode_name(v->culprit_mode));
				put_value(f, seconds,
					  fi == PROM_CULPRIT_SECONDS ? c[k].sum_ns : c[k].count);
			}
				}
		free(sorted);
	}
	return 0;
}

/* --causes: the samples of one series, a cause each (prom_view_causes()). */
struct cause_put {
	FILE *f;
	const struct prom_view *v;
};

static int put_cause_series(void *ctx, const char *key, const struct cause_sums *c)
{
	struct cause_put *p = ctx;
	const char *esc = key_labels(key, p->v->key_type);
	int i;

	if (!esc)
		return -1;
	for (i = 0; i < SH_CAUSE_NR; i++) {
		fprintf(p->f, "%s{metric=\"%s\",key_type=\"%s\",key=%s,cause=\"%s\"}",
			prom_families[PROM_CAUSE_SECONDS].name, metric_name(p->v->metric),
			key_name(p->v->key_type), esc, cause_name(i));
		put_value(p->f, true, c->ns[i]);
	}
	return 0;
}

static int put_causes(FILE *f, const struct prom_view *views, size_t nv)
{
	size_t j;

	for (j = 0; j < nv; j++) {
		struct cause_put p = { f, &views[j] };

		if (prom_view_causes(&views[j], put_cause_series, &p))
			return -1;
	}
	return 0;
}

/* One sample of schedhist_interval_max_wait_seconds: key @key's max @m. */
static int put_max_sample(FILE *f, const struct prom_view *v, const char *key,
			  const struct prom_max *m)
{
	const char *esc = key_labels(key, v->key_type);

	if (!esc)
		return -1;
	fprintf(f, "schedhist_interval_max_wait_seconds{metric=\"%s\",key_type=\"%s\",key=%s,"
		   "tid=\"%" PRIu32 "\",comm=", metric_name(v->metric), key_name(v->key_type), esc,
		(uint32_t)m->tid);
	label_value(f, m->comm);
	fputc('}', f);
	put_value(f, true, m->ns);
	return 0;
}

/* The gauge of the interval's exact max: one sample per exported key that had a wait. */
static int put_max(FILE *f, const struct prom_view *views, size_t nv)
{
	size_t j, i, n;

	for (j = 0; j < nv; j++) {
		const struct prom_view *v = &views[j];
		struct prom_series **sorted = prom_view_sorted(v, &n);
		int err = 0;

		if (!sorted)
			return -1;
		for (i = 0; i < n && !err; i++)
			if (prom_max_now(v, &sorted[i]->max))
				err = put_max_sample(f, v, sorted[i]->key, &sorted[i]->max);
		free(sorted);
		if (!err && v->key_type != SH_KEY_NONE && prom_max_now(v, &v->other_max))
			err = put_max_sample(f, v, PROM_OTHER, &v->other_max);
		if (err)
			return -1;
	}
	return 0;
}

/* The "reason" counters @stats[0..n) of family @fi, per view. */
static void put_reasons(FILE *f, const struct prom_view *views, size_t nv, int fi,
			const int *stats, size_t n)
{
	size_t i, j;

	for (j = 0; j < nv; j++)
		for (i = 0; i < n; i++)
			fprintf(f, "%s{metric=\"%s\",reason=\"%s\"} %" PRIu64 "\n",
				prom_families[fi].name, metric_name(views[j].metric),
				stat_name(stats[i]), (uint64_t)views[j].stats[stats[i]]);
}

/* The samples of family @fi; @le: the buckets' "le" values. */
static int put_samples(FILE *f, const struct prom_view *views, size_t nv, int fi, bool om,
		       char le[][32])
{
	size_t j;

	switch (fi) {
	case PROM_WAIT_SECONDS:
		for (j = 0; j < nv; j++)
			if (put_view(f, &views[j], om, le))
				return -1;
		return 0;
	case PROM_EVENTS:
		for (j = 0; j < nv; j++)
			fprintf(f, "schedhist_events_total{metric=\"%s\"} %" PRIu64 "\n",
				metric_name(views[j].metric), (uint64_t)views[j].stats[SH_STAT_SEEN]);
		return 0;
	case PROM_LOST_EVENTS:
		put_reasons(f, views, nv, fi, sh_lost_stats, SH_NLOST);
		return 0;
	case PROM_OVERFLOW_EVENTS:
		put_reasons(f, views, nv, fi, sh_overflow_stats, SH_NOVERFLOW);
		return 0;
	case PROM_KEYS:
		for (j = 0; j < nv; j++)
			fprintf(f, "schedhist_keys{metric=\"%s\",key_type=\"%s\"} %" PRIu64 "\n",
				metric_name(views[j].metric), key_name(views[j].key_type),
				(uint64_t)views[j].live_keys);
		return 0;
	case PROM_INTERVAL_MAX:
		return put_max(f, views, nv);
	case PROM_CAUSE_SECONDS:
		return put_causes(f, views, nv);
	case PROM_KMEM_BYTES:
		fprintf(f, "schedhist_kernel_memory_bytes{kind=\"reserved\"} %" PRIu64 "\n",
			(uint64_t)views[0].kmem.bytes);
		fprintf(f, "schedhist_kernel_memory_bytes{kind=\"budget\"} %" PRIu64 "\n",
			(uint64_t)views[0].kmem.budget);
		return 0;
	case PROM_KMEM_KEYS:
		fprintf(f, "schedhist_kernel_memory_keys{key_type=\"%s\"} %" PRIu64 "\n",
			key_name(views[0].key_type), (uint64_t)views[0].kmem.keys);
		return 0;
	case PROM_STACKS_LOST:
		fprintf(f, "schedhist_stacks_lost_total %" PRIu64 "\n",
			(uint64_t)views[0].kmem.stack_lost);
		return 0;
	case PROM_BUILD_INFO:
		fprintf(f, "schedhist_build_info{version=");
		label_value(f, SCHEDHIST_VERSION);
		fputs("} 1\n", f);
		return 0;
	default:
		return put_counters(f, views, nv, fi);
	}
}

int render_prom(FILE *f, const struct prom_view *views, size_t nv, bool om)
{
	char le[SH_NBUCKETS(0)][32], help[PROM_HELP_MAX];
	int i;

	for (i = 0; i < SH_NBUCKETS(0); i++)
		fmt_le(le[i], sizeof(le[i]), i);
	for (i = 0; i < PROM_FAMILY_NR; i++) {
		if (!prom_family_present(views, nv, i))
			continue;
		family(f, om, i, prom_help(i, nv, views[0].metric, help));
		if (put_samples(f, views, nv, i, om, le))
			return -1;
	}
	if (om)
		fputs("# EOF\n", f);
	return ferror(f);
}
