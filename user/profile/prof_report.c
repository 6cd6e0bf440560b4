// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --profile's reports: folded stacks, JSON, flame graph, pprof (prof_report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "schedhist.h"
#include "lib/escape.h"
#include "lib/loop.h"
#include "lib/log.h"
#include "lib/names.h"
#include "output/flamegraph.h"
#include "output/pprof.h"
#include "profile/prof_report.h"

/* A report's line: the merged entries of one folded stack (and one key). */
struct row {
	const struct entry *e;		/* the first entry merged (its key) */
	__u64 est_ns, est_waits, samples;
};

/* estimated waits, from their sum in units of 1 / SH_PROF_P_ONE */
static unsigned long long waits_of(__u64 est_waits)
{
	return (unsigned long long)((est_waits + SH_PROF_P_ONE / 2) >> SH_PROF_P_BITS);
}

static int cmp_key(int key_type, const struct entry *a, const struct entry *b)
{
	switch (key_type) {
	case SH_KEY_COMM:
		return strncmp(a->k.comm, b->k.comm, SH_COMM_LEN);
	case SH_KEY_PID:
		return a->k.tgid < b->k.tgid ? -1 : a->k.tgid > b->k.tgid;
	case SH_KEY_TID:
		return a->k.pid < b->k.pid ? -1 : a->k.pid > b->k.pid;
	default:
		return 0;
	}
}

static int key_type_g;		/* for the comparators: the report's key */

static int cmp_row_key_folded(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	int c = cmp_key(key_type_g, a->e, b->e);

	return c ? c : strcmp(a->e->ns.folded, b->e->ns.folded);
}

/* rows of one key: biggest wait first, then by stack (a stable order) */
static int cmp_row_wait(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->est_ns != b->est_ns)
		return a->est_ns > b->est_ns ? -1 : 1;
	return strcmp(a->e->ns.folded, b->e->ns.folded);
}

/* Entries sampled since the last report, merged per (key, folded stack), sorted. Count or -1. */
static ssize_t make_rows(const struct prof_table *t, bool since_start, int key_type,
			 struct row **out)
{
	struct row *r = calloc(t->n ? t->n : 1, sizeof(*r));
	size_t n = 0, m = 0;

	if (!r)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = t->all[i];
		const struct sh_prof_val *b = &e->base;
		__u64 s = e->cur.samples - (since_start ? 0 : b->samples);

		if (!s)
			continue;
		r[n++] = (struct row){ e, e->cur.est_ns - (since_start ? 0 : b->est_ns),
				       e->cur.est_waits - (since_start ? 0 : b->est_waits), s };
	}
	key_type_g = key_type;
	qsort(r, n, sizeof(*r), cmp_row_key_folded);
	for (size_t i = 0; i < n; i++) {
		if (m && !cmp_row_key_folded(&r[m - 1], &r[i])) {
			r[m - 1].est_ns += r[i].est_ns;
			r[m - 1].est_waits += r[i].est_waits;
			r[m - 1].samples += r[i].samples;
		} else {
			r[m++] = r[i];
		}
	}
	*out = r;
	return (ssize_t)m;
}

/* The report's key of @e in @buf: "all", the comm, the pid or the tid. */
static void key_str(int key_type, const struct entry *e, char *buf, size_t len)
{
	switch (key_type) {
	case SH_KEY_COMM:
		name_escape(buf, len, e->k.comm);
		break;
	case SH_KEY_PID:
		snprintf(buf, len, "%u", e->k.tgid);
		break;
	case SH_KEY_TID:
		snprintf(buf, len, "%u", e->k.pid);
		break;
	default:
		snprintf(buf, len, "all");
	}
}

static void json_user(FILE *f, const struct named_stack *ns)
{
	fputs(",\"user\":[", f);
	for (size_t i = 0; i < ns->nuser; i++) {
		if (i)
			putc(',', f);
		escaped_write_json(f, ns->uf[i].name);
	}
	fputs("],\"user_build_ids\":[", f);
	for (size_t i = 0; i < ns->nuser; i++) {
		const char *id = ns->uf[i].build_id;

		fprintf(f, "%s%s%s%s", i ? "," : "", id ? "\"" : "", id ? id : "null", id ? "\"" : "");
	}
	fputs("],\"kernel\":[", f);
	for (size_t i = 0; ns->ks && i < ns->ks->n; i++) {
		if (i)
			putc(',', f);
		escaped_write_json(f, ns->ks->fr[i].name);
	}
	fprintf(f, "],\"truncated\":%s", ns->truncated ? "true" : "false");
}

/* One key's group of rows @r[0..@n), sorted here biggest first. */
static void json_group(FILE *f, const struct profile_spec *sp, struct row *r, size_t n)
{
	__u32 top = sp->top ? sp->top : SH_PROF_TOP;
	__u64 gw = 0, gc = 0, gs = 0;
	char key[80];

	for (size_t j = 0; j < n; j++) {
		gw += r[j].est_ns;
		gc += r[j].est_waits;
		gs += r[j].samples;
	}
	qsort(r, n, sizeof(*r), cmp_row_wait);
	key_str(sp->key_type, r[0].e, key, sizeof(key));
	fputs("{\"key\":", f);
	escaped_write_json(f, key);
	fprintf(f, ",\"wait_ns\":%llu,\"count\":%llu,\"samples\":%llu,\"stacks_total\":%zu,"
		"\"stacks\":[", (unsigned long long)gw, waits_of(gc), (unsigned long long)gs, n);
	for (size_t s = 0; s < n && s < top; s++) {
		char comm[4 * SH_COMM_LEN + 1];

		name_escape(comm, sizeof(comm), r[s].e->k.comm);
		fprintf(f, "%s{\"comm\":", s ? "," : "");
		escaped_write_json(f, comm);
		fprintf(f, ",\"wait_ns\":%llu,\"count\":%llu,\"samples\":%llu,\"share\":%.4f",
			(unsigned long long)r[s].est_ns, waits_of(r[s].est_waits),
			(unsigned long long)r[s].samples, gw ? (double)r[s].est_ns / gw : 0.0);
		json_user(f, &r[s].e->ns);
		putc('}', f);
	}
	fputs("]}", f);
}

static void json_head(FILE *f, const struct profile_spec *sp, double secs)
{
	struct timespec ts;
	struct utsname u;
	struct tm tm;
	char tbuf[40];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%S", &tm);
	if (uname(&u))
		u.nodename[0] = '\0';
	fputs("{\"schema\":1,\"mode\":\"profile\",\"host\":\"", f);
	name_write(f, u.nodename, ESC_JSON);
	fprintf(f, "\",\"time\":\"%s.%03ldZ\",\"interval_s\":%.3f,\"cumulative\":%s,\"metric\":\"%s\","
		"\"key\":\"%s\",\"sampling\":", tbuf, ts.tv_nsec / 1000000, secs,
		sp->cumulative ? "true" : "false", metric_name(sp->metric), key_name(sp->key_type));
	if (sp->sample_p == SH_PROF_P_ONE)
		fputs("{\"mode\":\"exact\"}", f);
	else if (sp->sample_p)
		fprintf(f, "{\"mode\":\"fixed\",\"p\":%.9g}", (double)sp->sample_p / SH_PROF_P_ONE);
	else
		fprintf(f, "{\"mode\":\"expected_wait\",\"threshold_ns\":%llu,\"min_p\":%.9g,"
			"\"min_p_preempted\":%.9g}", (unsigned long long)sp->sample_ns,
			(double)SH_PROF_P_MIN / SH_PROF_P_ONE,
			(double)SH_PROF_P_MIN_PREEMPTED / SH_PROF_P_ONE);
}

static void write_json(const struct prof_table *t, const struct profile_spec *sp, FILE *f,
		       struct row *r, size_t n, double secs, const struct sh_prof_counters *d)
{
	__u64 total = 0, count = 0, samples = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		total += r[i].est_ns;
		count += r[i].est_waits;
		samples += r[i].samples;
	}
	json_head(f, sp, secs);
	fprintf(f, ",\"wait_ns\":%llu,\"count\":%llu,\"samples\":%llu,\"groups\":[",
		(unsigned long long)total, waits_of(count), (unsigned long long)samples);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && !cmp_key(sp->key_type, r[i].e, r[j].e); j++)
			;
		if (i)
			putc(',', f);
		json_group(f, sp, r + i, j - i);
	}
	fprintf(f, "],\"events\":{\"seen\":%llu,\"seen_ns\":%llu,\"walked\":%llu,\"recorded\":%llu,"
		"\"map_full\":%llu,\"map_full_ns\":%llu,\"kstack_lost\":%llu,\"ustack_lost\":%llu,"
		"\"entries\":%zu,\"entries_removed\":%llu,\"stacks_removed\":%llu}}\n",
		(unsigned long long)d->c[SH_PROF_SEEN], (unsigned long long)d->seen_ns,
		(unsigned long long)d->c[SH_PROF_WALKED], (unsigned long long)d->c[SH_PROF_RECORDED],
		(unsigned long long)d->c[SH_PROF_MAP_FULL], (unsigned long long)d->map_full_ns,
		(unsigned long long)d->c[SH_PROF_KSTACK_LOST],
		(unsigned long long)d->c[SH_PROF_USTACK_LOST], t->n, (unsigned long long)t->removed,
		(unsigned long long)(t->kremoved + t->uremoved));
}

static void write_folded(FILE *f, const struct row *r, size_t n, int unit)
{
	__u64 div = unit_ns(unit);

	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %llu\n", r[i].e->ns.folded, (unsigned long long)(r[i].est_ns / div));
}

/* The interval's counters: since the last report, or since start. */
static struct sh_prof_counters counters_of(const struct prof_table *t, bool cumulative)
{
	struct sh_prof_counters d = t->cnt;

	if (!cumulative) {
		for (int i = 0; i < SH_PROF_NR; i++)
			d.c[i] -= t->cnt_base.c[i];
		d.seen_ns -= t->cnt_base.seen_ns;
		d.map_full_ns -= t->cnt_base.map_full_ns;
	}
	return d;
}

static void warn_counts(const struct sh_prof_counters *d, bool json, __u64 est_ns)
{
	/* the JSON carries these in "events"; folded text has no room for them */
	if (!json)
		fprintf(stderr, "profile: %llu waits (%.3f ms), %llu walked, %llu weighted: "
			"%.3f ms estimated\n", (unsigned long long)d->c[SH_PROF_SEEN],
			d->seen_ns / 1e6, (unsigned long long)d->c[SH_PROF_WALKED],
			(unsigned long long)d->c[SH_PROF_RECORDED], est_ns / 1e6);
	if (d->c[SH_PROF_MAP_FULL] || d->c[SH_PROF_KSTACK_LOST] || d->c[SH_PROF_USTACK_LOST])
		pr_warn("profile: %llu waits (%.3f ms) not kept (profile map full, --max-keys), "
			"%llu kernel and %llu user stacks lost (a stack map full)\n",
			(unsigned long long)d->c[SH_PROF_MAP_FULL], d->map_full_ns / 1e6,
			(unsigned long long)d->c[SH_PROF_KSTACK_LOST],
			(unsigned long long)d->c[SH_PROF_USTACK_LOST]);
}

int prof_report(struct prof_table *t, const struct profile_spec *sp, double secs)
{
	struct sh_prof_counters d = counters_of(t, sp->cumulative);
	struct row *r;
	char *buf = NULL;
	size_t len = 0;
	ssize_t n = make_rows(t, sp->cumulative, sp->json ? sp->key_type : SH_KEY_NONE, &r);
	__u64 est = 0;
	FILE *f;
	int err = 0;

	if (n < 0)
		return -1;
	f = open_memstream(&buf, &len);
	if (!f) {
		free(r);
		return -1;
	}
	for (ssize_t i = 0; i < n; i++)
		est += r[i].est_ns;
	if (sp->json)
		write_json(t, sp, f, r, (size_t)n, secs, &d);
	else
		write_folded(f, r, (size_t)n, sp->unit);
	fclose(f);
	/* a blank line ends each report of folded stacks */
	if (buf)
		err = write_whole(STDOUT_FILENO, buf, len) ||
		      (!sp->json && write_whole(STDOUT_FILENO, "\n", 1));
	free(buf);
	free(r);
	warn_counts(&d, sp->json, est);
	for (size_t i = 0; i < t->n; i++)
		t->all[i]->base = t->all[i]->cur;
	t->cnt_base = t->cnt;
	return err ? -1 : 0;
}

int prof_flamegraph(struct prof_table *t, const struct profile_spec *sp, struct atomic_file *af)
{
	struct fg_stack *fs = NULL;
	struct row *r = NULL;
	char title[128], *buf = NULL;
	size_t len = 0;
	ssize_t n = make_rows(t, true, SH_KEY_NONE, &r);
	FILE *f;
	int err = -1;

	if (n < 0)
		return -1;
	fs = calloc(n ? n : 1, sizeof(*fs));
	f = open_memstream(&buf, &len);
	if (fs && f) {
		for (ssize_t i = 0; i < n; i++)
			fs[i] = (struct fg_stack){ r[i].e->ns.folded, r[i].est_ns,
						   waits_of(r[i].est_waits) };
		snprintf(title, sizeof(title), "schedhist --profile: %s time by stack%s",
			 metric_name(sp->metric), sp->sample_p == SH_PROF_P_ONE ? "" : " (sampled)");
		err = flamegraph_write(f, title, fs, n);
	}
	if (f)
		fclose(f);
	if (!err)
		err = atomic_file_update(af, buf, len) ? -1 : 0;
	free(buf);
	free(fs);
	free(r);
	return err;
}

/* The frames of @ns leaf first, the comm last, into @f (room for all). How many. */
static size_t pprof_frames(const struct entry *e, struct pprof_frame *f, char *comm, size_t clen)
{
	const struct named_stack *ns = &e->ns;
	size_t n = 0;

	for (size_t i = ns->ks ? ns->ks->n : 0; i-- > 0;) {
		const struct pframe *p = &ns->ks->fr[i];

		f[n++] = (struct pprof_frame){ .name = p->name, .addr = p->addr,
					       .map_file = p->addr ? "[kernel.kallsyms]" : NULL };
	}
	for (size_t i = ns->nuser; i-- > 0;) {
		const struct pframe *p = &ns->uf[i];

		f[n++] = (struct pprof_frame){ p->name, p->source, p->path, p->build_id, p->addr,
					       p->map_start, p->map_limit, p->map_pgoff };
	}
	name_escape(comm, clen, e->k.comm);
	f[n++] = (struct pprof_frame){ .name = comm };
	return n;
}

static int gzip(const char *p, size_t len, char **out, size_t *olen)
{
	z_stream z = { 0 };
	int ret;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return -1;
	*olen = deflateBound(&z, len) + 32;
	*out = malloc(*olen);
	if (!*out) {
		deflateEnd(&z);
		return -1;
	}
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)*out;
	z.avail_out = (uInt)*olen;
	ret = deflate(&z, Z_FINISH);
	*olen = z.total_out;
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(*out);
		return -1;
	}
	return 0;
}

int prof_pprof(struct prof_table *t, const struct profile_spec *sp, double secs,
	       struct atomic_file *af)
{
	struct pprof *pp = pprof_new(metric_name(sp->metric));
	struct pprof_frame *f = NULL;
	char comm[4 * SH_COMM_LEN + 1], *raw = NULL, *gz = NULL;
	size_t cap = 0, rlen, glen;
	struct timespec ts;
	int err = -1;

	if (!pp)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = t->all[i];
		size_t need = (e->ns.ks ? e->ns.ks->n : 0) + e->ns.nuser + 1;

		if (!e->cur.samples)
			continue;
		if (need > cap) {
			struct pprof_frame *nf = realloc(f, need * sizeof(*nf));

			if (!nf)
				goto out;
			f = nf;
			cap = need;
		}
		if (pprof_add(pp, f, pprof_frames(e, f, comm, sizeof(comm)), e->cur.samples,
			      e->cur.est_ns, comm, e->k.tgid, e->k.pid))
			goto out;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	if (pprof_encode(pp, (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec,
			 (__u64)(secs * 1e9), &raw, &rlen) || gzip(raw, rlen, &gz, &glen))
		goto out;
	err = atomic_file_update(af, gz, glen) ? -1 : 0;
out:
	free(gz);
	free(raw);
	free(f);
	pprof_free(pp);
	return err;
}
