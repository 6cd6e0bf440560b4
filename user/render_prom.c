// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Prometheus exposition: the bounded, monotone view of the waits since
 * start (see render_prom.h), rendered in the text format 0.0.4 or in
 * OpenMetrics 1.0.0. Reads reports only; never touches the maps.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render_prom.h"
#include "escape.h"

#ifndef SCHEDHIST_VERSION
#define SCHEDHIST_VERSION "0.0.0-dev"
#endif

#define INITIAL_SLOTS 256

static size_t name_hash(const char *s)
{
	__u64 h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

static struct prom_series *find(const struct prom_view *v, const char *key)
{
	struct prom_series *s = v->table[name_hash(key) & (v->nslots - 1)];

	for (; s; s = s->next)
		if (!strcmp(s->key, key))
			return s;
	return NULL;
}

static void grow(struct prom_view *v)
{
	size_t n = v->nslots * 2, i;
	struct prom_series **t = calloc(n, sizeof(*t));

	if (!t)
		return;	/* longer chains, still correct */
	for (i = 0; i < v->nslots; i++) {
		struct prom_series *s = v->table[i], *next;

		for (; s; s = next) {
			size_t h = name_hash(s->key) & (n - 1);

			next = s->next;
			s->next = t[h];
			t[h] = s;
		}
	}
	free(v->table);
	v->table = t;
	v->nslots = n;
}

/* A new, exported name. */
static struct prom_series *admit(struct prom_view *v, const char *key)
{
	struct prom_series *s;
	size_t h;

	if (v->nexported + v->nwithdrawn >= v->nslots)
		grow(v);
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->key = strdup(key);
	if (!s->key) {
		free(s);
		return NULL;
	}
	h = name_hash(key) & (v->nslots - 1);
	s->next = v->table[h];
	v->table[h] = s;
	s->exported = true;
	s->admitted = v->updates;
	v->nexported++;
	return s;
}

static void list_unlink(struct prom_view *v, struct prom_series *s)
{
	if (s->older)
		s->older->newer = s->newer;
	else
		v->oldest = s->newer;
	if (s->newer)
		s->newer->older = s->older;
	else
		v->newest = s->older;
	s->older = s->newer = NULL;
	v->nwithdrawn--;
}

/* Drop a withdrawn name for good. */
static void forget(struct prom_view *v, struct prom_series *s)
{
	struct prom_series **pp = &v->table[name_hash(s->key) & (v->nslots - 1)];

	list_unlink(v, s);
	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	free(s->key);
	free(s);
}

static void withdraw(struct prom_view *v, struct prom_series *s)
{
	s->exported = false;
	v->nexported--;
	s->older = v->newest;
	s->newer = NULL;
	if (v->newest)
		v->newest->newer = s;
	else
		v->oldest = s;
	v->newest = s;
	v->nwithdrawn++;
}

static void readmit(struct prom_view *v, struct prom_series *s)
{
	list_unlink(v, s);
	s->exported = true;
	s->admitted = v->updates;
	v->nexported++;
}

int prom_view_init(struct prom_view *v, int metric, int key_type, __u32 limit)
{
	memset(v, 0, sizeof(*v));
	v->metric = metric;
	v->key_type = key_type;
	v->limit = limit ? limit : 1;
	v->nslots = INITIAL_SLOTS;
	v->table = calloc(v->nslots, sizeof(*v->table));
	if (!v->table)
		return -1;
	/* the one series of key none exists from the start, at zero */
	if (key_type == SH_KEY_NONE && !admit(v, "all")) {
		prom_view_free(v);
		return -1;
	}
	return 0;
}

void prom_view_free(struct prom_view *v)
{
	size_t i;

	for (i = 0; v->table && i < v->nslots; i++) {
		struct prom_series *s = v->table[i], *next;

		for (; s; s = next) {
			next = s->next;
			free(s->key);
			free(s);
		}
	}
	free(v->table);
	memset(v, 0, sizeof(*v));
}

/* Groups that never get a label of their own. */
static bool folds_into_other(const struct sh_group *g)
{
	/* [exited] and [rest] are not kernel keys; [other] is the kernel's overflow
	 * entry, or a task that happens to be named "[other]" */
	return g->synthetic || g->key.id == SH_OTHER_ID || !strcmp(g->name, PROM_OTHER);
}

/* Only pid, tid and cgroup keys are ever pruned from the snapshot. */
static bool prunable(int key_type)
{
	return key_type == SH_KEY_PID || key_type == SH_KEY_TID || key_type == SH_KEY_CGROUP;
}

static const struct sh_group *group_at(const struct sh_report *r, size_t i)
{
	return i < r->ngroups ? &r->groups[i] : &r->rest;
}

int prom_view_update(struct prom_view *v, const struct sh_report *iv,
		     const struct sh_report *since,
		     bool (*live)(const struct sh_group *g, void *arg), void *arg)
{
	size_t n, i;

	v->updates++;
	/* which names still have a kernel key behind them */
	n = since->ngroups + (since->rest.nkeys ? 1 : 0);
	for (i = 0; i < n; i++) {
		const struct sh_group *g = group_at(since, i);
		struct prom_series *s;

		if (!folds_into_other(g) && (!live || live(g, arg)) && (s = find(v, g->name)))
			s->seen = v->updates;
	}
	/* the waits of names exported already, even if their key was just pruned */
	n = iv->ngroups + (iv->rest.nkeys ? 1 : 0);
	for (i = 0; i < n; i++) {
		const struct sh_group *g = group_at(iv, i);
		struct prom_series *s;

		if (!folds_into_other(g) && (s = find(v, g->name)) && s->exported) {
			totals_add(&s->t, &g->t);
			s->seen = v->updates;
		}
	}
	/* names whose every kernel key was pruned give their room back */
	if (prunable(v->key_type)) {
		for (i = 0; i < v->nslots; i++) {
			struct prom_series *s = v->table[i], *next;

			for (; s; s = next) {
				next = s->next;
				if (s->exported && s->seen != v->updates)
					withdraw(v, s);
			}
		}
		/* remember the last @limit withdrawn names (after the walk: forget() unlinks) */
		while (v->nwithdrawn > v->limit)
			forget(v, v->oldest);
	}
	/* the other waits: to new (or returning) names in ranking order, or to [other] */
	for (i = 0; i < n; i++) {
		const struct sh_group *g = group_at(iv, i);
		struct prom_series *s = NULL;

		if (!folds_into_other(g)) {
			s = find(v, g->name);
			if (s && s->exported && s->admitted != v->updates)
				continue;	/* counted above */
			if (s && !s->exported && v->nexported < v->limit)
				readmit(v, s);
			if (!s && v->nexported < v->limit && !(s = admit(v, g->name)))
				return -1;
		}
		if (s && s->exported) {
			totals_add(&s->t, &g->t);
			s->seen = v->updates;
		} else {
			totals_add(&v->other, &g->t);
		}
	}
	memcpy(v->stats, since->stats, sizeof(v->stats));
	v->live_keys = since->live_keys;
	return 0;
}

size_t prom_view_series(const struct prom_view *v)
{
	return v->nexported + (v->key_type != SH_KEY_NONE ? 1 : 0);
}

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
 * The "le" of bucket @i: its upper edge in seconds, shortest form as Go's
 * strconv 'g' writes it ("2e-09", "0.000131072", "549.755813888"), the
 * way most exporters write their bounds. The edges are 2^k ns: at most 12
 * significant digits, so %.12g is exact.
 */
static void fmt_le(char *buf, size_t n, int i)
{
	if (bucket_hi(i) == UINT64_MAX)
		snprintf(buf, n, "+Inf");
	else
		snprintf(buf, n, "%.12g", (double)bucket_hi(i) / 1e9);
}

/* @help must need no escaping in either format: no backslash, quote or newline. */
static void family(FILE *f, bool om, const char *name, const char *type, const char *help)
{
	/* OpenMetrics names a counter family without its _total suffix */
	size_t len = strlen(name);

	if (om && !strcmp(type, "counter") && len > 6 && !strcmp(name + len - 6, "_total"))
		len -= 6;
	fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, name, help, (int)len, name, type);
}

/* One histogram series: its labels are escaped once, not once per line. */
static int put_series(FILE *f, const char *labels, const char *key, const struct sh_totals *t,
		      char le[SH_NBUCKETS][32])
{
	char *esc = NULL, sum[32];
	size_t esc_len = 0;
	FILE *m = open_memstream(&esc, &esc_len);
	__u64 cum = 0;
	int i;

	if (!m)
		return -1;
	label_value(m, key);
	if (fclose(m)) {
		free(esc);
		return -1;
	}
	for (i = 0; i < SH_NBUCKETS; i++) {
		cum += t->slots[i];
		fprintf(f, "schedhist_wait_seconds_bucket{%s%s,le=\"%s\"} %" PRIu64 "\n", labels, esc,
			le[i], (uint64_t)cum);
	}
	fmt_seconds(sum, sizeof(sum), t->sum_ns);
	fprintf(f, "schedhist_wait_seconds_sum{%s%s} %s\n", labels, esc, sum);
	/* the +Inf bucket, so the two always agree */
	fprintf(f, "schedhist_wait_seconds_count{%s%s} %" PRIu64 "\n", labels, esc, (uint64_t)cum);
	free(esc);
	return 0;
}

static int cmp_series(const void *a, const void *b)
{
	const struct prom_series *x = *(const struct prom_series *const *)a;
	const struct prom_series *y = *(const struct prom_series *const *)b;

	return strcmp(x->key, y->key);
}

/* One view's histogram series, sorted by key. */
static int put_view(FILE *f, const struct prom_view *v, char le[][32])
{
	struct prom_series **sorted;
	char labels[128];
	size_t n = 0, i;
	int err = 0;

	snprintf(labels, sizeof(labels), "metric=\"%s\",key_type=\"%s\",key=",
		 metric_name(v->metric), key_name(v->key_type));
	sorted = malloc((v->nexported ? v->nexported : 1) * sizeof(*sorted));
	if (!sorted)
		return -1;
	for (i = 0; i < v->nslots; i++) {
		struct prom_series *s = v->table[i];

		for (; s; s = s->next)
			if (s->exported)
				sorted[n++] = s;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_series);
	for (i = 0; i < n && !err; i++)
		err = put_series(f, labels, sorted[i]->key, &sorted[i]->t, le);
	free(sorted);
	if (!err && v->key_type != SH_KEY_NONE)
		err = put_series(f, labels, PROM_OTHER, &v->other, le);
	return err;
}

int render_prom(FILE *f, const struct prom_view *views, size_t nv, bool om)
{
	static const char *const reasons[] = { "no_start", "filtered", "dropped", "clock_skew" };
	static const int reason_stat[] = { SH_STAT_NO_START, SH_STAT_FILTERED, SH_STAT_DROPPED,
					   SH_STAT_CLOCK_SKEW };
	char le[SH_NBUCKETS][32], help[256];
	size_t i, j;

	for (i = 0; i < SH_NBUCKETS; i++)
		fmt_le(le[i], sizeof(le[i]), (int)i);

	if (nv == 1)
		snprintf(help, sizeof(help),
			 "How long tasks waited, in seconds, since schedhist started: %s.",
			 metric_words(views[0].metric));
	else
		snprintf(help, sizeof(help),
			 "How long tasks waited, in seconds, since schedhist started; the label "
			 "metric says which wait (offcpu = runq + blocked).");
	family(f, om, "schedhist_wait_seconds", "histogram", help);
	if (om)
		fputs("# UNIT schedhist_wait_seconds seconds\n", f);
	for (j = 0; j < nv; j++)
		if (put_view(f, &views[j], le))
			return -1;

	family(f, om, "schedhist_events_total", "counter",
	       "Candidate waits the kernel side saw: switch-ins of non-idle tasks (for blocked: "
	       "those whose switch-out was a sleep).");
	for (j = 0; j < nv; j++)
		fprintf(f, "schedhist_events_total{metric=\"%s\"} %" PRIu64 "\n",
			metric_name(views[j].metric), (uint64_t)views[j].stats[SH_STAT_SEEN]);
	family(f, om, "schedhist_lost_events_total", "counter",
	       "Candidate waits not recorded, by reason: no_start (the wait began before "
	       "tracing), filtered (outside -p or -c), dropped (histogram update failed), "
	       "clock_skew (two CPUs' clocks disagreed: the end was stamped before the start).");
	for (j = 0; j < nv; j++)
		for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
			fprintf(f, "schedhist_lost_events_total{metric=\"%s\",reason=\"%s\"} %" PRIu64
				   "\n", metric_name(views[j].metric), reasons[i],
				(uint64_t)views[j].stats[reason_stat[i]]);
	family(f, om, "schedhist_overflow_events_total", "counter",
	       "Waits of new keys that the kernel counted under the key [other], by reason: "
	       "map_full (its key map was full: raise --max-keys), no_mem (no kernel memory "
	       "for a new key at that instant); together, every wait of [other].");
	for (j = 0; j < nv; j++)
		fprintf(f, "schedhist_overflow_events_total{metric=\"%s\",reason=\"map_full\"} %" PRIu64
			   "\nschedhist_overflow_events_total{metric=\"%s\",reason=\"no_mem\"} %"
			   PRIu64 "\n", metric_name(views[j].metric),
			(uint64_t)views[j].stats[SH_STAT_MAP_FULL], metric_name(views[j].metric),
			(uint64_t)views[j].stats[SH_STAT_NO_MEM]);
	family(f, om, "schedhist_keys", "gauge", "Keys in the kernel's histogram map now.");
	for (j = 0; j < nv; j++)
		fprintf(f, "schedhist_keys{metric=\"%s\",key_type=\"%s\"} %" PRIu64 "\n",
			metric_name(views[j].metric), key_name(views[j].key_type),
			(uint64_t)views[j].live_keys);
	/* OpenMetrics has a type for it: the info family schedhist_build, same sample */
	if (om)
		family(f, om, "schedhist_build", "info", "The schedhist version.");
	else
		family(f, om, "schedhist_build_info", "gauge", "The schedhist version; always 1.");
	fprintf(f, "schedhist_build_info{version=");
	label_value(f, SCHEDHIST_VERSION);
	fputs("} 1\n", f);
	if (om)
		fputs("# EOF\n", f);
	return ferror(f);
}

/* One media range of an Accept header: raises the quality found for either format. */
static void accept_range(const char *p, size_t len, double *q_om, double *q_text)
{
	char buf[256], *save = NULL, *tok, *type;
	bool om = false, text = false, version_ok = true;
	double q = 1.0;

	if (len >= sizeof(buf))
		return;
	memcpy(buf, p, len);
	buf[len] = '\0';
	type = strtok_r(buf, ";", &save);
	if (!type)
		return;
	while (isspace((unsigned char)*type))
		type++;
	for (tok = type + strlen(type); tok > type && isspace((unsigned char)tok[-1]);)
		*--tok = '\0';
	if (!strcasecmp(type, "application/openmetrics-text"))
		om = true;
	else if (!strcasecmp(type, "text/plain") || !strcasecmp(type, "text/*") ||
		 !strcmp(type, "*/*"))
		text = true;
	else
		return;
	while ((tok = strtok_r(NULL, ";", &save))) {
		char *eq, *val, *end;

		while (isspace((unsigned char)*tok))
			tok++;
		eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		val = eq + 1;
		for (end = eq; end > tok && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		while (isspace((unsigned char)*val))
			val++;
		for (end = val + strlen(val); end > val && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		if (!strcasecmp(tok, "q")) {
			q = strtod(val, &end);
			if (*end || q < 0 || q > 1)
				q = 0;
		} else if (!strcasecmp(tok, "version")) {
			version_ok = om ? !strcmp(val, "1.0.0") : !strcmp(val, "0.0.4");
		}
	}
	if (!version_ok)
		return;
	if (om && q > *q_om)
		*q_om = q;
	if (text && q > *q_text)
		*q_text = q;
}

bool prom_accept_openmetrics(const char *accept)
{
	double q_om = 0, q_text = 0;
	const char *p = accept, *comma;

	if (!accept)
		return false;
	for (; *p; p = comma + 1) {
		comma = strchr(p, ',');
		if (!comma)
			comma = p + strlen(p);
		accept_range(p, (size_t)(comma - p), &q_om, &q_text);
		if (!*comma)
			break;
	}
	return q_om > 0 && q_om >= q_text;
}
