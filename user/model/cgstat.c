// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* -k cgroup: cpu.stat throttling and cpu.pressure, and the readings they are deltas of. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/cgstat.h"
#include "lib/util.h"

/* The value after "@name " at the start of a line of @text; 0 or -1. */
static int stat_field(const char *text, const char *name, __u64 *out)
{
	size_t len = strlen(name);
	const char *p = text;
	char *end;

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ' ') {
			unsigned long long v;

			errno = 0;
			v = strtoull(p + len + 1, &end, 10);
			if (errno || end == p + len + 1 || (*end && *end != '\n'))
				return -1;
			*out = v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* "total=N" (us) of the cpu.pressure line starting with @kind; 0 or -1. */
static int psi_total(const char *text, const char *kind, __u64 *out_ns)
{
	size_t len = strlen(kind);
	const char *p = text, *t, *eol;

	while (p && *p) {
		eol = strchr(p, '\n');
		if (!strncmp(p, kind, len) && p[len] == ' ') {
			t = strstr(p, " total=");
			if (t && (!eol || t < eol)) {
				unsigned long long v;
				char *end;

				errno = 0;
				v = strtoull(t + 7, &end, 10);
				if (errno || end == t + 7 || (*end && *end != '\n' && *end != ' '))
					return -1;
				*out_ns = v * 1000ULL;
				return 0;
			}
			return -1;
		}
		p = eol ? eol + 1 : NULL;
	}
	return -1;
}

void cgstat_parse(const char *stat, const char *psi, struct cgstat *out)
{
	__u64 v;

	memset(out, 0, sizeof(*out));
	if (stat && !stat_field(stat, "nr_throttled", &out->nr_throttled)) {
		/* v2 in microseconds, the v1 cpu controller in nanoseconds */
		if (!stat_field(stat, "throttled_usec", &v)) {
			out->throttled_ns = v * 1000ULL;
			out->has_throttle = true;
		} else if (!stat_field(stat, "throttled_time", &v)) {
			out->throttled_ns = v;
			out->has_throttle = true;
		}
	}
	if (!out->has_throttle)
		out->nr_throttled = 0;
	/* periods elapsed: the denominator of a throttled fraction (0 without a quota) */
	else if (stat_field(stat, "nr_periods", &out->nr_periods))
		out->nr_periods = 0;
	if (psi) {
		out->has_some = !psi_total(psi, "some", &out->pressure_some_ns);
		out->has_full = !psi_total(psi, "full", &out->pressure_full_ns);
	}
}

static bool slurp(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n, got = 0;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got > 0;
}

void cgstat_read(const char *dir, struct cgstat *out)
{
	char stat[1024], psi[256];
	bool hs = slurp(dir, "cpu.stat", stat, sizeof(stat));
	bool hp = slurp(dir, "cpu.pressure", psi, sizeof(psi));

	cgstat_parse(hs ? stat : NULL, hp ? psi : NULL, out);
}

void cgstat_delta(const struct cgstat *now, const struct cgstat *then,
		  struct cgstat *out)
{
	memset(out, 0, sizeof(*out));
	/* a counter that went down: another cgroup of that id (never expected) */
	if (now->has_throttle && then->has_throttle && now->nr_throttled >= then->nr_throttled &&
	    now->throttled_ns >= then->throttled_ns && now->nr_periods >= then->nr_periods) {
		out->has_throttle = true;
		out->nr_periods = now->nr_periods - then->nr_periods;
		out->nr_throttled = now->nr_throttled - then->nr_throttled;
		out->throttled_ns = now->throttled_ns - then->throttled_ns;
	}
	if (now->has_some && then->has_some && now->pressure_some_ns >= then->pressure_some_ns) {
		out->has_some = true;
		out->pressure_some_ns = now->pressure_some_ns - then->pressure_some_ns;
	}
	if (now->has_full && then->has_full && now->pressure_full_ns >= then->pressure_full_ns) {
		out->has_full = true;
		out->pressure_full_ns = now->pressure_full_ns - then->pressure_full_ns;
	}
}

void cgstat_add(struct cgstat *dst, const struct cgstat *src)
{
	if (src->has_throttle) {
		dst->has_throttle = true;
		dst->nr_periods += src->nr_periods;
		dst->nr_throttled += src->nr_throttled;
		dst->throttled_ns += src->throttled_ns;
	}
	if (src->has_some) {
		dst->has_some = true;
		dst->pressure_some_ns += src->pressure_some_ns;
	}
	if (src->has_full) {
		dst->has_full = true;
		dst->pressure_full_ns += src->pressure_full_ns;
	}
}

static struct cgstat_prev *find(struct cgstat_table *c, __u64 id, size_t *pos)
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

/* no reading has this generation: a seeded reading is never taken for a reading's own */
#define SEED_GEN (~0ULL)

int cgstat_table_get(struct cgstat_table *c, __u64 id, const char *dir, __u64 gen,
		     bool since_start, struct cgstat *out)
{
	struct cgstat_prev *p;
	struct cgstat now;
	size_t pos;

	memset(out, 0, sizeof(*out));
	p = find(c, id, &pos);
	if (p && p->gen != gen) {
		cgstat_read(dir, &now);
		cgstat_delta(&now, &p->raw, &p->interval);
		cgstat_delta(&now, &p->first, &p->since_start);
		p->raw = now;
		p->gen = gen;
	}
	if (p) {
		*out = since_start ? p->since_start : p->interval;
		return 0;
	}
	if (array_reserve(&c->v, &c->cap, c->n, sizeof(*c->v), 64))
		return -1;
	cgstat_read(dir, &now);
	memmove(&c->v[pos + 1], &c->v[pos], (c->n - pos) * sizeof(*c->v));
	c->v[pos] = (struct cgstat_prev){ .id = id, .first = now, .raw = now, .gen = gen };
	c->n++;
	return 0;
}

void cgstat_table_end(struct cgstat_table *c, __u64 gen)
{
	size_t i, j;

	if (c->keep_all)
		return;
	for (i = j = 0; i < c->n; i++)
		if (c->v[i].gen == gen)
			c->v[j++] = c->v[i];
	c->n = j;
}

int cgstat_table_seed(struct cgstat_table *c, __u64 id, const char *dir)
{
	struct cgstat_prev *p;

	if (array_reserve(&c->v, &c->cap, c->n, sizeof(*c->v), 64))
		return -1;
	p = &c->v[c->n++];
	*p = (struct cgstat_prev){ .id = id, .gen = SEED_GEN };
	cgstat_read(dir, &p->first);
	p->raw = p->first;
	return 0;
}

void cgstat_table_free(struct cgstat_table *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}
