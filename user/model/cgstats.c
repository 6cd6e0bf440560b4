// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The previous cgroup accounting readings, and each report's deltas (cgstats.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cgstats.h"
#include "lib/util.h"

static struct cgstat_prev *find(struct cgstats *c, __u64 id, size_t *pos)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return lo < c->n && c->v[lo].id == id ? &c->v[lo] : NULL;
}

int cgstats_attach(struct cgstats *c, struct report *r, struct cgroups *cg, __u64 gen)
{
	char dir[PATH_MAX];
	size_t i, j, pos, n = r->nall ? r->nall : r->ngroups;

	for (i = 0; i < n; i++) {
		struct report_group *g = &r->groups[i];
		struct cgstat_prev *p;
		struct cgstat now;

		memset(&g->cgs, 0, sizeof(g->cgs));
		/* a path: only a cgroup that is there now has files to read */
		if (!g->is_cgroup || g->synthetic || g->key.id == SH_OTHER_ID || !cg ||
		    g->name[0] != '/')
			continue;
		if (snprintf(dir, sizeof(dir), "%s%s", cg->mount,
			     strcmp(g->name, "/") ? g->name : "") >= (int)sizeof(dir))
			continue;
		p = find(c, g->key.id, &pos);
		if (p && p->gen == gen) {
			g->cgs = p->delta;	/* read for another metric's report */
			continue;
		}
		cgstat_read(dir, &now);
		if (p) {
			cgstat_delta(&now, &p->raw, &g->cgs);
			p->delta = g->cgs;
			if (!c->cumulative)
				p->raw = now;
			p->gen = gen;
			continue;
		}
		if (array_reserve(&c->v, &c->cap, c->n, sizeof(*c->v), 64))
			return -1;
		memmove(&c->v[pos + 1], &c->v[pos], (c->n - pos) * sizeof(*c->v));
		c->v[pos] = (struct cgstat_prev){ .id = g->key.id, .raw = now, .gen = gen };
		c->n++;
	}
	/* a cgroup not in this report: its next delta would span several intervals */
	if (!c->cumulative) {
		for (i = j = 0; i < c->n; i++)
			if (c->v[i].gen == gen)
				c->v[j++] = c->v[i];
		c->n = j;
	}
	return 0;
}

/* no report has this generation: a seeded reading is never taken for a report's own */
#define SEED_GEN (~0ULL)

int cgstats_seed(struct cgstats *c, const struct cgroups *cg)
{
	char dir[PATH_MAX];
	size_t i;

	if (c->n || !cg->nnames)
		return 0;
	if (!(c->v = calloc(cg->nnames, sizeof(*c->v))))
		return -1;
	c->cap = cg->nnames;
	/* cg->names is sorted by id, as c->v must be */
	for (i = 0; i < cg->nnames; i++) {
		const struct cg_name *nm = &cg->names[i];
		struct cgstat_prev *p = &c->v[c->n];

		if (snprintf(dir, sizeof(dir), "%s%s", cg->mount,
			     strcmp(nm->path, "/") ? nm->path : "") >= (int)sizeof(dir))
			continue;
		cgstat_read(dir, &p->raw);
		p->id = nm->id;
		p->gen = SEED_GEN;
		c->n++;
	}
	return 0;
}

void cgstats_free(struct cgstats *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}
