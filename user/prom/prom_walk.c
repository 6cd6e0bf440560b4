// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The one walk of an exposition's samples (prom_walk.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "prom/prom_walk.h"
#include "prom/prom_family.h"
#include "model/cgroup_names.h"
#include "lib/names.h"
#include "lib/util.h"

struct walk {
	const struct prom_encoder *enc;
	void *ctx;
	struct prom_sample s;
	struct cg_labels cg;		/* -k cgroup: the names of the sample's key */
	char tid[16];
};

static void add_label(struct walk *w, const char *name, const char *value, bool is_name)
{
	if (w->s.nlabels < PROM_LABELS_MAX)
		w->s.label[w->s.nlabels++] = (struct prom_label){ name, value, is_name };
}

static void begin(struct walk *w, int fi)
{
	w->s = (struct prom_sample){ .family = fi, .seconds = prom_family_seconds(fi) };
}

/* A key's labels (with -k cgroup the names found in its path): a function of the key. */
static void key_labels(struct walk *w, const struct prom_view *v, const char *key)
{
	struct cg_labels *l = &w->cg;
	const char *qos;

	add_label(w, "metric", metric_name(v->metric), false);
	add_label(w, "key_type", key_name(v->key_type), false);
	add_label(w, "key", key, true);
	if (v->key_type != SH_KEY_CGROUP || !cg_labels_parse(key, l))
		return;
	if (l->unit[0])
		add_label(w, "unit", l->unit, true);
	if (l->container_id[0]) {
		add_label(w, "container_id", l->container_id, false);
		add_label(w, "container_id_short", l->container_id_short, false);
	}
	if (l->pod_uid[0])
		add_label(w, "pod_uid", l->pod_uid, false);
	if ((qos = cg_qos_name(l->qos)))
		add_label(w, "qos", qos, false);
}

static int emit(struct walk *w)
{
	return w->enc->sample(w->ctx, &w->s);
}

static int value(struct walk *w, __u64 v)
{
	w->s.value = v;
	return emit(w);
}

static int histogram(struct walk *w, const struct prom_view *v, const char *key,
		     const struct totals *t, const struct prom_max *ex)
{
	begin(w, PROM_WAIT_SECONDS);
	key_labels(w, v, key);
	w->s.hist = t;
	w->s.exemplar = ex;
	return emit(w);
}

static int wait_histograms(struct walk *w, const struct prom_view *v)
{
	struct prom_series **sorted;
	size_t n, i;
	int err = 0;

	if (!(sorted = prom_view_sorted(v, &n)))
		return -1;
	for (i = 0; i < n && !err; i++)
		err = histogram(w, v, sorted[i]->key, &sorted[i]->t,
				prom_max_now(v, &sorted[i]->max) ? &sorted[i]->max : NULL);
	free(sorted);
	if (!err && v->key_type != SH_KEY_NONE)
		err = histogram(w, v, PROM_OTHER, &v->other,
				prom_max_now(v, &v->other_max) ? &v->other_max : NULL);
	return err;
}

static int max_sample(struct walk *w, const struct prom_view *v, const char *key,
		      const struct prom_max *m)
{
	begin(w, PROM_INTERVAL_MAX);
	key_labels(w, v, key);
	snprintf(w->tid, sizeof(w->tid), "%" PRIu32, (uint32_t)m->tid);
	add_label(w, "tid", w->tid, false);
	add_label(w, "comm", m->comm, true);
	return value(w, m->ns);
}

static int interval_max(struct walk *w, const struct prom_view *v)
{
	struct prom_series **sorted;
	size_t n, i;
	int err = 0;

	if (!(sorted = prom_view_sorted(v, &n)))
		return -1;
	for (i = 0; i < n && !err; i++)
		if (prom_max_now(v, &sorted[i]->max))
			err = max_sample(w, v, sorted[i]->key, &sorted[i]->max);
	free(sorted);
	if (!err && v->key_type != SH_KEY_NONE && prom_max_now(v, &v->other_max))
		err = max_sample(w, v, PROM_OTHER, &v->other_max);
	return err;
}

static int series_counters(struct walk *w, const struct prom_view *v,
			   const struct prom_series *s, int fi)
{
	struct prom_culprit c[SH_CULPRIT_TOP + 1];
	size_t k, nc;
	__u64 val;

	if (prom_families[fi].source != PROM_FROM_CULPRIT) {
		if (!prom_series_cgstat(s, fi, &val))
			return 0;
		begin(w, fi);
		key_labels(w, v, s->key);
		return value(w, val);
	}
	nc = prom_series_culprits(s, c);
	for (k = 0; k < nc; k++) {
		begin(w, fi);
		key_labels(w, v, s->key);
		add_label(w, "culprit", c[k].name, true);
		add_label(w, "culprit_mode", culprit_mode_name(v->culprit_mode), false);
		if (value(w, fi == PROM_CULPRIT_SECONDS ? c[k].sum_ns : c[k].count))
			return -1;
	}
	return 0;
}

static int counters(struct walk *w, const struct prom_view *v, int fi)
{
	bool per_culprit = prom_families[fi].source == PROM_FROM_CULPRIT;
	struct prom_series **sorted;
	size_t n, i;
	int err = 0;

	if (per_culprit ? !v->culprits : v->key_type != SH_KEY_CGROUP)
		return 0;
	if (!(sorted = prom_view_sorted(v, &n)))
		return -1;
	for (i = 0; i < n && !err; i++)
		err = series_counters(w, v, sorted[i], fi);
	free(sorted);
	return err;
}

/* --causes: one series' samples, a cause each (prom_view_causes()). */
struct cause_walk {
	struct walk *w;
	const struct prom_view *v;
};

static int cause_series(void *ctx, const char *key, const struct cause_sums *c)
{
	struct cause_walk *cw = ctx;
	int i;

	for (i = 0; i < SH_CAUSE_NR; i++) {
		begin(cw->w, PROM_CAUSE_SECONDS);
		key_labels(cw->w, cw->v, key);
		add_label(cw->w, "cause", cause_name(i), false);
		if (value(cw->w, c->ns[i]))
			return -1;
	}
	return 0;
}

static int reasons(struct walk *w, const struct prom_view *v, int fi, const int *stats,
		   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		begin(w, fi);
		add_label(w, "metric", metric_name(v->metric), false);
		add_label(w, "reason", stat_name(stats[i]), false);
		if (value(w, v->stats[stats[i]]))
			return -1;
	}
	return 0;
}

static int view_samples(struct walk *w, const struct prom_view *v, int fi)
{
	struct cause_walk cw = { w, v };

	switch (fi) {
	case PROM_WAIT_SECONDS:
		return wait_histograms(w, v);
	case PROM_EVENTS:
		begin(w, fi);
		add_label(w, "metric", metric_name(v->metric), false);
		return value(w, v->stats[SH_STAT_SEEN]);
	case PROM_LOST_EVENTS:
		return reasons(w, v, fi, sh_lost_stats, SH_NLOST);
	case PROM_OVERFLOW_EVENTS:
		return reasons(w, v, fi, sh_overflow_stats, SH_NOVERFLOW);
	case PROM_KEYS:
		begin(w, fi);
		add_label(w, "metric", metric_name(v->metric), false);
		add_label(w, "key_type", key_name(v->key_type), false);
		return value(w, v->live_keys);
	case PROM_INTERVAL_MAX:
		return interval_max(w, v);
	case PROM_CAUSE_SECONDS:
		return prom_view_causes(v, cause_series, &cw);
	default:
		return counters(w, v, fi);
	}
}

/* The families of the whole instance (the first view's figures): 1 if @fi is one. */
static int instance_samples(struct walk *w, const struct prom_view *v, int fi)
{
	switch (fi) {
	case PROM_KMEM_BYTES:
		begin(w, fi);
		add_label(w, "kind", "reserved", false);
		if (value(w, v->kmem.bytes))
			return -1;
		begin(w, fi);
		add_label(w, "kind", "budget", false);
		return value(w, v->kmem.budget) ? -1 : 1;
	case PROM_KMEM_KEYS:
		begin(w, fi);
		add_label(w, "key_type", key_name(v->key_type), false);
		return value(w, v->kmem.keys) ? -1 : 1;
	case PROM_STACKS_LOST:
		begin(w, fi);
		return value(w, v->kmem.stack_lost) ? -1 : 1;
	case PROM_BUILD_INFO:
		begin(w, fi);
		add_label(w, "version", SCHEDHIST_VERSION, true);
		return value(w, 1) ? -1 : 1;
	default:
		return 0;
	}
}

int prom_walk(const struct prom_view *views, size_t nv, const struct prom_encoder *enc,
	      void *ctx)
{
	struct walk w = { .enc = enc, .ctx = ctx };
	char help[PROM_HELP_MAX];
	size_t j;
	int fi, err;

	for (fi = 0; fi < PROM_FAMILY_NR; fi++) {
		if (!prom_family_present(views, nv, fi))
			continue;
		if (enc->family(ctx, fi, prom_help(fi, nv, views[0].metric, help)))
			return -1;
		err = instance_samples(&w, &views[0], fi);
		for (j = 0; !err && j < nv; j++)
			err = view_samples(&w, &views[j], fi);
		if (err < 0 || (enc->family_end && enc->family_end(ctx, fi)))
			return -1;
	}
	return 0;
}
