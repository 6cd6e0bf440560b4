// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* One reading into every report of a tick, extras attached once (tick.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "model/tick.h"

void tick_init(struct tick *t, const struct tick_spec *sp)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->spec = *sp;
	for (i = 0; i < SH_METRIC_NR; i++) {
		report_init(&t->m[i].shown);
		report_init(&t->m[i].interval);
		report_init(&t->m[i].since_start);
		stacks_init(&t->m[i].shown_stacks);
		stacks_init(&t->m[i].interval_stacks);
	}
	/* a report since start takes its deltas from each cgroup's first reading */
	t->cgstats.keep_all = sp->report.cumulative;
}

static bool cgroup_dir(const struct cgroups *cg, const char *path, char *dir, size_t len)
{
	return snprintf(dir, len, "%s%s", cg->mount, strcmp(path, "/") ? path : "") < (int)len;
}

int tick_start(struct tick *t, const struct cgroups *cg)
{
	char dir[PATH_MAX];
	size_t i;

	if (!t->spec.cgstat)
		return 0;
	/* cg->names is sorted by id, as the table must be */
	for (i = 0; i < cg->nnames; i++)
		if (cgroup_dir(cg, cg->names[i].path, dir, sizeof(dir)) &&
		    cgstat_table_seed(&t->cgstats, cg->names[i].id, dir))
			return -1;
	return 0;
}

/* Learn the paths of cgroup ids not named yet (at most one walk): the reports only look up. */
static void name_cgroups(struct cgroups *cg, struct snapshot *snaps, int n)
{
	struct snap_entry *e;
	size_t it;
	int i;

	for (i = 0; i < n; i++)
		for (e = NULL, it = 0; (e = snapshot_next(&snaps[i], &it, e));)
			if (e->key.id != SH_OTHER_ID && e->key.id != SH_EXITED_ID)
				cg_path(cg, e->key.id, snaps[0].gen);
}

void tick_attach_causes(const struct cause_table *causes, struct report *r)
{
	struct cause_sums all;
	size_t i;

	causes_total(causes, r->cumulative, &all);
	for (i = 0; i < r->ngroups; i++) {
		struct report_group *g = &r->groups[i];

		memset(&g->causes, 0, sizeof(g->causes));
		g->has_causes = !g->synthetic;
		if (g->synthetic)
			continue;
		g->causes = *causes_of(causes, &g->key, r->cumulative);
		causes_add(&g->causes, -1, &all);
	}
	memset(&r->rest.causes, 0, sizeof(r->rest.causes));
	r->rest.has_causes = r->rest.nkeys > 0;
	if (r->rest.has_causes)
		r->rest.causes = all;
}

int tick_attach_cgstat(struct cgstat_table *c, struct report *r, const struct cgroups *cg,
		       __u64 gen, bool since_start)
{
	char dir[PATH_MAX];
	size_t i, n = r->nall ? r->nall : r->ngroups;

	for (i = 0; i < n; i++) {
		struct report_group *g = &r->groups[i];

		memset(&g->cgs, 0, sizeof(g->cgs));
		/* a path: only a cgroup that is there now has files to read */
		if (!g->is_cgroup || g->synthetic || g->key.id == SH_OTHER_ID || !cg ||
		    g->name[0] != '/' || !cgroup_dir(cg, g->name, dir, sizeof(dir)))
			continue;
		if (cgstat_table_get(c, g->key.id, dir, gen, since_start, &g->cgs))
			return -1;
	}
	return 0;
}

static int build_shown(struct tick *t, int i, struct snapshot *s, const struct tick_sources *src,
		       double span_s)
{
	struct tick_metric *m = &t->m[i];
	struct report *r = &m->shown;
	bool runq = s->metric == SH_METRIC_RUNQ;

	if (report_build(r, s, &t->spec.report, t->cg, span_s))
		return -1;
	r->when = t->when;
	if (t->spec.culprits && runq && src->culprits &&
	    culprits_attach(src->culprits, r, t->cg, t->gen))
		return -1;
	if (t->spec.stacks && stacks_attach(&m->shown_stacks, src->stack_lookup, src->stack_ctx,
					    src->ksyms, r))
		return -1;
	if (t->spec.cgstat &&
	    tick_attach_cgstat(&t->cgstats, r, t->cg, t->gen, t->spec.report.cumulative))
		return -1;
	if (t->spec.causes && runq && src->causes)
		tick_attach_causes(src->causes, r);
	return 0;
}

/* Fleet mode's every-key reports of metric @i, interval and since start. 0, or -1 (no memory). */
static int build_every_key(struct tick *t, int i, struct snapshot *s,
			   const struct tick_sources *src)
{
	struct report_spec sp = { .key_type = t->spec.report.key_type,
				  .sort = t->spec.report.sort };
	struct tick_metric *m = &t->m[i];
	bool runq = s->metric == SH_METRIC_RUNQ;

	if (report_build(&m->interval, s, &sp, t->cg, 0))
		return -1;
	m->interval.when = t->when;
	sp.cumulative = true;
	if (report_build(&m->since_start, s, &sp, t->cg, 0))
		return -1;
	m->since_start.when = t->when;
	/* the exemplars' stacks */
	if (t->spec.every_key_stacks &&
	    stacks_attach(&m->interval_stacks, src->stack_lookup, src->stack_ctx, src->ksyms,
			  &m->interval))
		return -1;
	/* every live cgroup's interval deltas, whatever the span of the reports shown */
	if (t->spec.cgstat && tick_attach_cgstat(&t->cgstats, &m->since_start, t->cg, t->gen, false))
		return -1;
	if (t->spec.causes && runq && src->causes)
		tick_attach_causes(src->causes, &m->interval);
	if (t->spec.culprits && runq && src->culprits &&
	    culprits_every(src->culprits, &m->interval, t->cg, t->gen, &m->culprits))
		return -1;
	return 0;
}

int tick_build(struct tick *t, struct snapshot *snaps, int n, struct cgroups *cg,
	       const struct tick_sources *src, double span_s)
{
	int i;

	t->n = n;
	t->cg = cg;
	t->gen = n ? snaps[0].gen : 0;
	if (cg)
		name_cgroups(cg, snaps, n);
	/* one time for every report of the reading (JSON, the exemplars) */
	clock_gettime(CLOCK_REALTIME, &t->when);
	for (i = 0; i < n; i++) {
		/* Every key's first: it reads the cgroup counters the shown ones share. */
		if (t->spec.every_key && build_every_key(t, i, &snaps[i], src))
			return -1;
		if (build_shown(t, i, &snaps[i], src, span_s))
			return -1;
	}
	if (t->spec.cgstat)
		cgstat_table_end(&t->cgstats, t->gen);
	return 0;
}

void tick_free(struct tick *t)
{
	int i;

	for (i = 0; i < SH_METRIC_NR; i++) {
		report_free(&t->m[i].shown);
		report_free(&t->m[i].interval);
		report_free(&t->m[i].since_start);
		culprit_set_free(&t->m[i].culprits);
		stacks_free(&t->m[i].shown_stacks);
		stacks_free(&t->m[i].interval_stacks);
	}
	cgstat_table_free(&t->cgstats);
	memset(t, 0, sizeof(*t));
}
