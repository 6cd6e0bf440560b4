// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/prom/prom_native.c: Accept negotiation of the protobuf
 * format, and the exposition decoded by a protobuf reader of this file's
 * own (independent of the encoder): delimited MetricFamily messages, the
 * native histogram of each key (zero bucket, spans, deltas) rebuilt into
 * the grid's buckets and compared with the view's, and every family, help
 * text, label and sample compared with the text format's, the classic
 * buckets included (so the two expositions say the same), and the families
 * of both those of the table (prom_family.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedhist.h"
#include "cli/options.h"
#include "model/snapshot.h"
#include "model/report.h"
#include "cli/specs.h"
#include "prom/render_prom.h"
#include "prom/prom_native.h"
#include "prom/http_server.h"
#include "check.h"


/* ---- a protobuf reader: just what the test needs ---- */

struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static __u64 rd_varint(struct rd *r)
{
	__u64 v = 0;
	int shift = 0;

	while (r->p < r->end && shift < 64) {
		unsigned char c = *r->p++;

		v |= (__u64)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	r->bad = true;
	return 0;
}

/* The next field of @r: its number, wire type, and value or sub-reader. */
struct field {
	int num, wt;
	__u64 u;		/* varint, or the bits of a 64-bit field */
	struct rd sub;		/* length-delimited */
};

static bool rd_field(struct rd *r, struct field *f)
{
	__u64 tag, n;
	int i;

	if (r->p >= r->end || r->bad)
		return false;
	tag = rd_varint(r);
	f->num = (int)(tag >> 3);
	f->wt = (int)(tag & 7);
	switch (f->wt) {
	case 0:
		f->u = rd_varint(r);
		break;
	case 1:
		if (r->end - r->p < 8) {
			r->bad = true;
			return false;
		}
		for (f->u = 0, i = 0; i < 8; i++)
			f->u |= (__u64)r->p[i] << (8 * i);
		r->p += 8;
		break;
	case 2:
		n = rd_varint(r);
		if (n > (__u64)(r->end - r->p)) {
			r->bad = true;
			return false;
		}
		f->sub.p = r->p;
		f->sub.end = r->p + n;
		f->sub.bad = false;
		r->p += n;
		break;
	default:
		r->bad = true;
		return false;
	}
	return !r->bad;
}

static double as_double(__u64 u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static __s64 unzigzag(__u64 u)
{
	return (__s64)(u >> 1) ^ -(__s64)(u & 1);
}

static void copy_str(char *dst, size_t n, const struct rd *s)
{
	size_t len = (size_t)(s->end - s->p);

	if (len >= n)
		len = n - 1;
	memcpy(dst, s->p, len);
	dst[len] = '\0';
}

#define MAX_LABELS 10
#define MAX_METRICS 32
#define MAX_FAMILIES 16

struct metric {
	int nlabels;
	char lname[MAX_LABELS][32], lval[MAX_LABELS][256];
	int kind;			/* 2 gauge, 3 counter, 7 histogram (the Metric field) */
	double value;			/* counter, gauge */
	__u64 count, zero_count;	/* histogram */
	double sum, zero_threshold;
	__s64 schema;
	bool has_schema;
	__u64 buckets[SH_NBUCKETS_MAX];	/* rebuilt: slot = native index - SH_NATIVE_INDEX0(schema) */
	int nspans;
	bool bad_index;			/* a bucket outside the grid */
	int nclassic;			/* classic buckets: the exemplar's, if any */
	__u64 b_cum;			/* its cumulative count ... */
	double b_le;			/* ... and upper bound */
	bool has_ex;			/* its exemplar: */
	int nex;
	char exname[4][32], exval[4][256];
	double ex_value;
	__s64 ex_sec, ex_nanos;
};

struct family {
	char name[64], help[512];
	int type;
	int nmetrics;
	struct metric m[MAX_METRICS];
};

/* A classic Bucket, with its Exemplar (labels, value, Timestamp). */
static void decode_bucket(struct rd *r, struct metric *m)
{
	struct field f, g, h;

	m->nclassic++;
	while (rd_field(r, &f)) {
		if (f.num == 1)
			m->b_cum = f.u;
		else if (f.num == 2)
			m->b_le = as_double(f.u);
		else if (f.num != 3)
			m->bad_index = true;
		for (m->has_ex |= f.num == 3; f.num == 3 && rd_field(&f.sub, &g);) {
			if (g.num == 1 && m->nex < 4) {
				while (rd_field(&g.sub, &h)) {
					if (h.num == 1)
						copy_str(m->exname[m->nex], 32, &h.sub);
					else if (h.num == 2)
						copy_str(m->exval[m->nex], 256, &h.sub);
				}
				m->nex++;
			} else if (g.num == 2) {
				m->ex_value = as_double(g.u);
			} else if (g.num == 3) {
				while (rd_field(&g.sub, &h)) {
					if (h.num == 1)
						m->ex_sec = (__s64)h.u;
					else if (h.num == 2)
						m->ex_nanos = (__s64)h.u;
				}
			} else {
				m->bad_index = true;
			}
		}
	}
}

static void decode_histogram(struct rd *r, struct metric *m)
{
	__s32 offs[SH_NBUCKETS_MAX + 1];
	__u32 lens[SH_NBUCKETS_MAX + 1];
	__s64 deltas[SH_NBUCKETS_MAX + 1], count = 0;
	int nd = 0, i, k, idx = 0, d = 0;
	struct field f;

	while (rd_field(r, &f)) {
		if (f.num == 1)
			m->count = f.u;
		else if (f.num == 2)
			m->sum = as_double(f.u);
		else if (f.num == 5) {
			m->schema = unzigzag(f.u);
			m->has_schema = true;
		} else if (f.num == 6)
			m->zero_threshold = as_double(f.u);
		else if (f.num == 7)
			m->zero_count = f.u;
		else if (f.num == 12 && m->nspans <= SH_NBUCKETS_MAX) {
			struct field g;

			offs[m->nspans] = 0;
			lens[m->nspans] = 0;
			while (rd_field(&f.sub, &g)) {
				if (g.num == 1)
					offs[m->nspans] = (__s32)unzigzag(g.u);
				else if (g.num == 2)
					lens[m->nspans] = (__u32)g.u;
			}
			m->nspans++;
		} else if (f.num == 13 && nd <= SH_NBUCKETS_MAX)
			deltas[nd++] = unzigzag(f.u);
		else if (f.num == 3)
			decode_bucket(&f.sub, m);
		else
			m->bad_index = true;	/* a field this exposition never writes */
	}
	m->buckets[0] = m->zero_count;
	for (i = 0; i < m->nspans && i <= SH_NBUCKETS_MAX; i++) {
		idx += offs[i];
		for (k = 0; k < (int)lens[i]; k++, idx++) {
			int slot = idx - SH_NATIVE_INDEX0(sh_schema);

			if (d >= nd || slot < 1 || slot >= sh_nb) {
				m->bad_index = true;
				return;
			}
			count += deltas[d++];
			m->buckets[slot] = (__u64)count;
		}
	}
	if (d != nd)
		m->bad_index = true;
}

static void decode_metric(struct rd *r, struct metric *m)
{
	struct field f, g;

	memset(m, 0, sizeof(*m));
	while (rd_field(r, &f)) {
		if (f.num == 1 && m->nlabels < MAX_LABELS) {
			while (rd_field(&f.sub, &g)) {
				if (g.num == 1)
					copy_str(m->lname[m->nlabels], 32, &g.sub);
				else if (g.num == 2)
					copy_str(m->lval[m->nlabels], 256, &g.sub);
			}
			m->nlabels++;
		} else if (f.num == 2 || f.num == 3) {
			m->kind = f.num;
			while (rd_field(&f.sub, &g))
				if (g.num == 1)
					m->value = as_double(g.u);
		} else if (f.num == 7) {
			m->kind = 7;
			decode_histogram(&f.sub, m);
		}
	}
}

/* The delimited stream @buf of @len bytes into @fams; how many, or -1 if malformed. */
static int decode(const char *buf, size_t len, struct family *fams, int max)
{
	struct rd all = { (const unsigned char *)buf, (const unsigned char *)buf + len, false };
	int n = 0;

	while (all.p < all.end && n < max) {
		__u64 flen = rd_varint(&all);
		struct rd r = { all.p, all.p + flen, false };
		struct family *fa = &fams[n++];
		struct field f;

		if (all.bad || flen > (__u64)(all.end - all.p))
			return -1;
		all.p += flen;
		memset(fa, 0, sizeof(*fa));
		while (rd_field(&r, &f)) {
			if (f.num == 1)
				copy_str(fa->name, sizeof(fa->name), &f.sub);
			else if (f.num == 2)
				copy_str(fa->help, sizeof(fa->help), &f.sub);
			else if (f.num == 3)
				fa->type = (int)f.u;
			else if (f.num == 4 && fa->nmetrics < MAX_METRICS)
				decode_metric(&f.sub, &fa->m[fa->nmetrics++]);
		}
		if (r.bad)
			return -1;
	}
	return all.p == all.end ? n : -1;
}

/* ---- the view, fed as the exporter feeds it (as in test_prom.c) ---- */

#define MAX_ARGS 16

static int opts(struct options *o, const char *const *args)
{
	char *argv[MAX_ARGS];
	int argc = 0;

	argv[argc++] = "schedhist";
	while (*args && argc < MAX_ARGS - 1)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	return parse_options(argc, argv, o);
}

#define OPTS(o, ...) opts((o), (const char *const[]){ __VA_ARGS__, NULL })

struct fake {
	__u64 id;
	const char *comm;
	union {	/* with its buckets: room for the finest grid */
		struct sh_hist h;
		char h_room[SH_HIST_SIZE(SH_NBUCKETS_MAX)];
	};
};

static void add_waits(struct fake *k, __u64 ns, __u32 n)
{
	int b = bucket_of(ns);

	k->h.buckets[b] += n;
	k->h.count += n;
	k->h.sum_ns += ns * n;
}

struct rig {
	struct options o;
	struct snapshot s;
	struct report iv, since;
	struct prom_view v;
	__u64 stats[SH_STAT_NR];
};

static void rig_init(struct rig *r, const char *const *args)
{
	memset(r, 0, sizeof(*r));
	CHECK(opts(&r->o, args) == -1);
	CHECK(!snapshot_init(&r->s));
	CHECK(!prom_view_init(&r->v, r->o.metric, r->o.key_type, r->o.max_keys));
}

/* One reading of @n keys. */
static void rig_read(struct rig *r, struct fake *k, int n)
{
	struct report_spec sp;
	int i;

	snapshot_begin(&r->s, (__u32)r->v.updates + 1);
	for (i = 0; i < n; i++) {
		struct sh_key key = { .id = k[i].id };

		if (r->o.key_type == SH_KEY_COMM && k[i].id != SH_OTHER_ID)
			snprintf(key.comm, SH_COMM_LEN, "%s", k[i].comm), key.id = 0;
		CHECK(snapshot_ingest(&r->s, &key, &k[i].h, 1, sizeof(k[i].h), false) != NULL);
	}
	r->stats[SH_STAT_SEEN] += 11;
	r->stats[SH_STAT_NO_START] += 1;
	r->stats[SH_STAT_CLOCK_SKEW] += 2;
	r->stats[SH_STAT_MAP_FULL] += 3;
	snapshot_stats(&r->s, r->stats);
	sp = report_spec_of(&r->o);
	sp.top = 0;
	r->s.metric = r->o.metric;	/* the poller keeps one snapshot per metric */
	sp.cumulative = false;
	CHECK(!report_build(&r->iv, &r->s, &sp, NULL, 1));
	sp.cumulative = true;
	CHECK(!report_build(&r->since, &r->s, &sp, NULL, 1));
	CHECK(!prom_view_update(&r->v, &r->iv, &r->since));
	snapshot_gc(&r->s);
}

static void rig_free(struct rig *r)
{
	prom_view_free(&r->v);
	report_free(&r->iv);
	report_free(&r->since);
	snapshot_free(&r->s);
}

static char *render_as(const struct prom_view *v, size_t nv, bool pb, bool om, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	CHECK(f != NULL);
	CHECK((pb ? render_prom_native(f, v, nv) : render_prom(f, v, nv, om)) == 0);
	fclose(f);
	return buf;
}

static char *render(const struct prom_view *v, size_t nv, bool pb, size_t *len)
{
	return render_as(v, nv, pb, false, len);
}

/*
 * The series of @m in text syntax, name{l="v",...} (the name alone
 * without labels): values in label syntax (\\ and \").
 */
static void series(char *buf, size_t n, const char *name, const struct metric *m,
		   const char *extra)
{
	size_t o = (size_t)snprintf(buf, n, "%s{", name);
	int i;

	/* a family without labels (schedhist_stacks_lost_total): the bare name */
	if (!m->nlabels && !extra) {
		snprintf(buf, n, "%s", name);
		return;
	}

	for (i = 0; i < m->nlabels && o + 8 < n; i++) {
		const char *v;

		o += (size_t)snprintf(buf + o, n - o, "%s%s=\"", i ? "," : "", m->lname[i]);
		for (v = m->lval[i]; *v && o + 4 < n; v++) {
			if (*v == '\\' || *v == '"')
				buf[o++] = '\\';
			buf[o++] = *v;
		}
		buf[o++] = '"';
		buf[o] = '\0';
	}
	if (extra && o < n)
		o += (size_t)snprintf(buf + o, n - o, ",%s", extra);
	if (o < n)
		snprintf(buf + o, n - o, "}");
}

/* The value of the text line "@s VALUE", or NAN. */
static double text_sample(const char *text, const char *s)
{
	size_t n = strlen(s);
	const char *p = text;

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, s, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return NAN;
}

/* The help text of family @name in the text format. */
static bool text_help(const char *text, const char *name, char *out, size_t n)
{
	char want[96];
	const char *p, *e;

	snprintf(want, sizeof(want), "# HELP %s ", name);
	p = strstr(text, want);
	if (!p)
		return false;
	p += strlen(want);
	e = strchr(p, '\n');
	snprintf(out, n, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
	return true;
}

/* A label value in label syntax (\\ and \"), appended at @o of @buf. */
static size_t label_syntax(char *buf, size_t n, size_t o, const char *v)
{
	for (; *v && o + 4 < n; v++) {
		if (*v == '\\' || *v == '"')
			buf[o++] = '\\';
		buf[o++] = *v;
	}
	buf[o] = '\0';
	return o;
}

/*
 * The exemplar of histogram @m, if any, is OpenMetrics' (@om): the one
 * classic bucket it comes in is the OpenMetrics line of the same le, with
 * that line's cumulative count, and the line's exemplar has the same
 * labels in the same order, value and timestamp (in ms). Returns 1 for an
 * exemplar, else 0.
 */
static int same_exemplar(const char *om, const struct metric *m)
{
	char le[32], s[1024], *p;
	size_t o;
	int i;

	if (!m->nclassic)
		return 0;
	CHECK(m->nclassic == 1 && m->has_ex);
	if (isinf(m->b_le))
		snprintf(le, sizeof(le), "le=\"+Inf\"");
	else
		snprintf(le, sizeof(le), "le=\"%.17g\"", m->b_le);
	series(s, sizeof(s), "schedhist_wait_seconds_bucket", m, le);
	o = strlen(s);
	o += (size_t)snprintf(s + o, sizeof(s) - o, " %llu # {", (unsigned long long)m->b_cum);
	for (i = 0; i < m->nex && o + 8 < sizeof(s); i++) {
		o += (size_t)snprintf(s + o, sizeof(s) - o, "%s%s=\"", i ? "," : "", m->exname[i]);
		o = label_syntax(s, sizeof(s), o, m->exval[i]);
		s[o++] = '"';
		s[o] = '\0';
	}
	snprintf(s + o, sizeof(s) - o, "} ");
	p = strstr(om, s);
	CHECK(p && (p == om || p[-1] == '\n'));
	if (!p)
		return 1;
	p += strlen(s);
	CHECK(strtod(p, &p) == m->ex_value);
	snprintf(s, sizeof(s), " %lld.%03lld\n", (long long)m->ex_sec,
		 (long long)(m->ex_nanos / 1000000));
	CHECK(!strncmp(p, s, strlen(s)));
	return 1;
}

/*
 * The protobuf exposition of @v and the text one say the same: families,
 * types, help texts, every counter and gauge, and each native histogram's
 * buckets (the classic cumulative le buckets, _count and _sum). Returns the
 * number of histograms seen.
 */
static int same_as_text(const struct prom_view *v, size_t nv, struct family *fams, int *nfams)
{
	static const char *const types[] = { [0] = "counter", [1] = "gauge", [4] = "histogram" };
	size_t tlen, plen, olen;
	char *text = render(v, nv, false, &tlen), *pb = render(v, nv, true, &plen);
	char *om = render_as(v, nv, false, true, &olen), help[512], s[512];
	int nf, i, k, j, nh = 0, nex = 0;
	const char *q;

	nf = decode(pb, plen, fams, MAX_FAMILIES);
	{
		/* every family of the text, no more (those without samples in neither) */
		int ntext = 0;
		const char *p;

		for (p = text; (p = strstr(p, "# TYPE ")); p++)
			ntext++;
		CHECK(nf == ntext);
	}
	*nfams = nf;
	/* exactly the table's families with samples, in its order, under its help texts */
	for (i = 0, k = 0; i < PROM_FAMILY_NR; i++) {
		if (!prom_family_present(v, nv, i))
			continue;
		CHECK(k < nf && !strcmp(fams[k].name, prom_families[i].name));
		CHECK(k < nf && !strcmp(fams[k].help, prom_help(i, nv, v[0].metric, help)));
		k++;
	}
	CHECK(k == nf);
	for (i = 0; i < nf; i++) {
		struct family *fa = &fams[i];
		char want[96];

		CHECK(text_help(text, fa->name, help, sizeof(help)));
		CHECK(!strcmp(help, fa->help));
		snprintf(want, sizeof(want), "# TYPE %s %s\n", fa->name,
			 fa->type <= 4 && types[fa->type] ? types[fa->type] : "?");
		CHECK(strstr(text, want) != NULL);
		for (k = 0; k < fa->nmetrics; k++) {
			const struct metric *m = &fa->m[k];
			double cum;

			if (m->kind != 7) {
				series(s, sizeof(s), fa->name, m, NULL);
				CHECK(text_sample(text, s) == m->value);
				continue;
			}
			nh++;
			CHECK(!m->bad_index);
			CHECK(m->has_schema && m->schema == sh_schema);
			CHECK(m->zero_threshold == 0x1p-20);
			for (cum = 0, j = 0; j < sh_nb; j++)
				cum += (double)m->buckets[j];
			series(s, sizeof(s), "schedhist_wait_seconds_count", m, NULL);
			CHECK(text_sample(text, s) == (double)m->count);
			CHECK(cum == (double)m->count);
			series(s, sizeof(s), "schedhist_wait_seconds_sum", m, NULL);
			CHECK(fabs(text_sample(text, s) - m->sum) <= 1e-9 * (m->sum + 1));
			nex += same_exemplar(om, m);
		}
	}
	/* as many exemplars in both */
	for (i = 0, q = om; (q = strstr(q, " # {")); q++)
		i++;
	CHECK(i == nex);
	free(text);
	free(pb);
	free(om);
	return nh;
}

/*
 * The cumulative count of the text's classic bucket of @m that ends where
 * bucket @j of the grid does, 2^(j/2^s - 20) s: one at each power of two
 * (NAN for the others, which the classic exposition does not have).
 */
static double text_bucket(const char *text, const struct metric *m, int j)
{
	char pre[512];
	const char *p;

	series(pre, sizeof(pre), "schedhist_wait_seconds_bucket", m, "le=\"");
	pre[strlen(pre) - 1] = '\0';	/* drop the closing brace: the le value follows */
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q;
		double le;

		if (strncmp(p, pre, strlen(pre)))
			continue;
		q = p + strlen(pre);
		le = !strncmp(q, "+Inf", 4) ? INFINITY : strtod(q, NULL);
		if ((j == sh_nb - 1 && isinf(le)) ||
		    (j % (1 << sh_schema) == 0 && le == ldexp(1, j / (1 << sh_schema) - 20))) {
			q = strchr(q, ' ');
			return q ? strtod(q + 1, NULL) : NAN;
		}
	}
	return NAN;
}

/* ---- the tests ---- */

static void test_accept(void)
{
	/* what Prometheus 2.42 sends with --enable-feature=native-histograms */
	CHECK(http_accept_protobuf("application/vnd.google.protobuf;"
				   "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,"
				   "text/plain;version=0.0.4;q=0.3,*/*;q=0.2"));
	/* ... and without it: never protobuf */
	CHECK(!http_accept_protobuf("application/openmetrics-text;version=1.0.0,"
				    "application/openmetrics-text;version=0.0.1;q=0.75,"
				    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	CHECK(!http_accept_protobuf(NULL));
	CHECK(!http_accept_protobuf(""));
	CHECK(!http_accept_protobuf("*/*"));
	CHECK(!http_accept_protobuf("text/plain"));
	/* both parameters are needed: another message, or another encoding, is not ours */
	CHECK(!http_accept_protobuf("application/vnd.google.protobuf;encoding=delimited"));
	CHECK(!http_accept_protobuf("application/vnd.google.protobuf;"
				    "proto=io.prometheus.client.MetricFamily;encoding=text"));
	CHECK(!http_accept_protobuf("application/vnd.google.protobuf;"
				    "proto=io.prometheus.client.Other;encoding=delimited"));
	CHECK(http_accept_protobuf(" Application/Vnd.Google.Protobuf ; proto = "
				   "io.prometheus.client.MetricFamily ; encoding = delimited"));
	/* quality decides; a tie goes to protobuf, q=0 is never */
	CHECK(!http_accept_protobuf("application/vnd.google.protobuf;"
				    "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.2,"
				    "text/plain;q=0.5"));
	CHECK(http_accept_protobuf("text/plain;q=0.5,application/vnd.google.protobuf;"
				   "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5"));
	CHECK(!http_accept_protobuf("application/vnd.google.protobuf;"
				    "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0"));
	CHECK(!http_accept_protobuf("application/vnd.google.protobuf;"
				    "proto=io.prometheus.client.MetricFamily;encoding=delimited;q=bad"));
}

/* Key none: the zero bucket, spans with gaps, the last bucket, sum and count. */
static void test_none(void)
{
	struct fake all = { .id = 0 };
	struct family fams[MAX_FAMILIES];
	struct rig r;
	int nf, j;
	size_t tlen;
	char *text;
	const struct metric *m;

	rig_init(&r, (const char *const[]){ "-M", "runq", "--listen", "9464", NULL });
	/* before any reading: the one series, empty, and still native */
	CHECK(same_as_text(&r.v, 1, fams, &nf) == 1);
	m = &fams[0].m[0];
	CHECK(!strcmp(fams[0].name, "schedhist_wait_seconds") && fams[0].type == 4);
	CHECK(m->count == 0 && m->nspans == 0 && m->zero_threshold > 0);

	add_waits(&all, 0, 1);			/* the zero bucket, [0, 2^-20 s] */
	add_waits(&all, 953, 1);		/* its last whole ns */
	add_waits(&all, 954, 1);		/* index -19 */
	add_waits(&all, 1908, 1);		/* index -18: one span of two */
	add_waits(&all, 1500000000ULL, 4);	/* (1 s, 2 s]: index 1 */
	add_waits(&all, 300000ULL * 1000000000ULL, 1);	/* 300000 s, index 19 (2^18 s < w <= 2^19 s) */
	add_waits(&all, UINT64_MAX, 1);		/* the last bucket, index 20 */
	rig_read(&r, &all, 1);
	CHECK(same_as_text(&r.v, 1, fams, &nf) == 1);
	m = &fams[0].m[0];
	CHECK(m->nlabels == 3 && !strcmp(m->lname[0], "metric") && !strcmp(m->lval[0], "runq"));
	CHECK(!strcmp(m->lname[1], "key_type") && !strcmp(m->lval[1], "none"));
	CHECK(!strcmp(m->lname[2], "key") && !strcmp(m->lval[2], "all"));
	CHECK_EQ_U64(m->count, 10);
	CHECK_EQ_U64(m->zero_count, 2);
	CHECK_EQ_U64(m->nspans, 3);	/* {-19, 2}, {1}, {19, 2} */
	for (j = 0; j < sh_nb; j++)
		CHECK_EQ_U64(m->buckets[j], all.h.buckets[j]);
	CHECK_EQ_U64(m->buckets[bucket_of(UINT64_MAX)], 1);
	CHECK_EQ_U64(bucket_of(UINT64_MAX) + SH_NATIVE_INDEX0(0), 20);
	/* and the text's classic buckets are the cumulative native ones */
	text = render(&r.v, 1, false, &tlen);
	{
		double cum = 0;

		for (j = 0; j < sh_nb; j++) {
			cum += (double)m->buckets[j];
			CHECK(text_bucket(text, m, j) == cum);
		}
	}
	free(text);
	rig_free(&r);
}

/* Keys by name: one native series each, sorted, [other] last, names escaped as in text. */
static void test_keys(void)
{
	struct fake k[4] = {
		{ .comm = "zeta" }, { .comm = "alpha" }, { .comm = "bad\xff" },
		{ .id = SH_OTHER_ID },
	};
	struct family fams[MAX_FAMILIES];
	struct rig r;
	size_t tlen;
	char *text;
	int nf, i, j;

	rig_init(&r, (const char *const[]){ "-M", "runq", "-k", "comm", "--listen", "9464",
					   NULL });
	add_waits(&k[0], 2000, 3);
	add_waits(&k[0], 9000000, 1);
	add_waits(&k[1], 40000, 5);
	add_waits(&k[2], 700, 2);
	add_waits(&k[3], 5000, 3);
	rig_read(&r, k, 4);
	add_waits(&k[1], 40000, 1);
	add_waits(&k[1], 1000000000ULL, 1);	/* exactly 1 s: index 0, (0.5 s, 1 s] */
	/* the kernel's max of this reading's epoch: the interval's max gauge */
	k[1].h.max[(r.v.updates + 1) & 1] = (struct sh_max){
		.ns = 1000000000ULL, .min_ns = 40000, .epoch = (__u32)r.v.updates + 1,
		.tid = 7, .pid = 7, .comm = "alpha-w",
	};
	rig_read(&r, k, 4);
	CHECK(same_as_text(&r.v, 1, fams, &nf) == 4);
	CHECK(fams[0].nmetrics == 4);
	CHECK(!strcmp(fams[0].m[0].lval[2], "alpha"));
	CHECK(!strcmp(fams[0].m[1].lval[2], "bad\\xff"));	/* the rule of escape.h */
	CHECK(!strcmp(fams[0].m[2].lval[2], "zeta"));
	CHECK(!strcmp(fams[0].m[3].lval[2], "[other]"));
	CHECK_EQ_U64(fams[0].m[0].count, 7);
	CHECK_EQ_U64(fams[0].m[0].buckets[20], 1);	/* the 1 s wait */
	CHECK_EQ_U64(fams[0].m[2].nspans, 2);		/* 2 us and 9 ms: two spans */
	/*
	 * alpha's worst wait of the interval, its exemplar in the one classic
	 * bucket of its slot, (0.5 s, 1 s], which holds all 7 of its waits
	 */
	CHECK(fams[0].m[0].nclassic == 1 && fams[0].m[0].has_ex);
	CHECK(fams[0].m[0].b_le == 1.0 && fams[0].m[0].b_cum == 7);
	CHECK(fams[0].m[0].nex == 2 && !strcmp(fams[0].m[0].exname[0], "tid") &&
	      !strcmp(fams[0].m[0].exval[0], "7") && !strcmp(fams[0].m[0].exname[1], "comm") &&
	      !strcmp(fams[0].m[0].exval[1], "alpha-w"));
	CHECK(fams[0].m[0].ex_value == 1.0 && fams[0].m[0].ex_sec == r.iv.when.tv_sec &&
	      fams[0].m[0].ex_nanos == r.iv.when.tv_nsec);
	for (i = 1; i < 4; i++)
		CHECK(!fams[0].m[i].nclassic);	/* no max in this interval: none */
	text = render(&r.v, 1, false, &tlen);
	for (i = 0; i < 3; i++) {
		double cum = 0;

		for (j = 0; j < sh_nb; j++) {
			cum += (double)fams[0].m[i].buckets[j];
			if (j % (1 << sh_schema) == 0 || j == sh_nb - 1)
				CHECK(text_bucket(text, &fams[0].m[i], j) == cum);
		}
	}
	free(text);
	/* the counters: reasons in text order, values as in text (checked above) */
	CHECK(!strcmp(fams[2].name, "schedhist_lost_events_total") && fams[2].nmetrics == 4);
	CHECK(fams[2].m[3].value == 4);	/* clock_skew: 2 per reading */
	/* the interval's max: a gauge of alpha only (the others had no max), tid and comm */
	CHECK(!strcmp(fams[5].name, "schedhist_interval_max_wait_seconds"));
	CHECK(fams[5].type == 1 && fams[5].nmetrics == 1 && fams[5].m[0].value == 1);
	CHECK(fams[5].m[0].nlabels == 5 && !strcmp(fams[5].m[0].lval[2], "alpha"));
	CHECK(!strcmp(fams[5].m[0].lname[3], "tid") && !strcmp(fams[5].m[0].lval[3], "7"));
	CHECK(!strcmp(fams[5].m[0].lname[4], "comm") && !strcmp(fams[5].m[0].lval[4], "alpha-w"));
	CHECK(!strcmp(fams[6].name, "schedhist_kernel_memory_bytes") && fams[6].nmetrics == 2);
	CHECK(!strcmp(fams[7].name, "schedhist_kernel_memory_keys") && fams[7].nmetrics == 1);
	CHECK(!strcmp(fams[8].name, "schedhist_build_info") && fams[8].m[0].value == 1);
	rig_free(&r);
}

/* Two metrics: one family, the help text for several, series of both. */
static void test_two_views(void)
{
	struct fake all = { .id = 0 };
	struct family fams[MAX_FAMILIES];
	struct rig a, b;
	struct prom_view v[2];
	int nf;

	rig_init(&a, (const char *const[]){ "-M", "runq", "--listen", "9464", NULL });
	rig_init(&b, (const char *const[]){ "-M", "offcpu", "--listen", "9464", NULL });
	add_waits(&all, 5000, 2);
	rig_read(&a, &all, 1);
	add_waits(&all, 80000, 2);
	rig_read(&b, &all, 1);
	v[0] = a.v;
	v[1] = b.v;
	CHECK(same_as_text(v, 2, fams, &nf) == 2);
	CHECK(strstr(fams[0].help, "the label metric says which wait") != NULL);
	CHECK(strstr(fams[0].help, "Never sum across metric") != NULL);
	CHECK(!strcmp(fams[0].m[0].lval[0], "runq") && fams[0].m[0].count == 2);
	CHECK(!strcmp(fams[0].m[1].lval[0], "offcpu") && fams[0].m[1].count == 4);
	CHECK(fams[1].nmetrics == 2);	/* events_total of each */
	rig_free(&a);
	rig_free(&b);
}

/*
 * -k cgroup with --culprits: the culprit and cgroup counter families, the
 * cgroup's labels (unit here) on every family, the culprit label last, the
 * values as in text (same_as_text()).
 */
static void test_counters(void)
{
	struct fake k[2] = { { .id = 11 }, { .id = 22 } };
	static const char *const paths[] = { "/system.slice/db.service", "/batch" };
	struct culprit in[2] = { { .name = "/batch", .count = 3, .sum_ns = 1500000000 },
				    { .name = "[idle]", .count = 1, .sum_ns = 7 } };
	struct family fams[MAX_FAMILIES];
	struct report_spec sp;
	struct rig r;
	int nf, i, f, found = 0;
	size_t g;

	rig_init(&r, (const char *const[]){ "-M", "runq", "-k", "cgroup", "--culprits",
					   "--listen", "9464", NULL });
	r.v.culprits = true;
	add_waits(&k[0], 400000000, 5);
	add_waits(&k[1], 1000, 2);
	snapshot_begin(&r.s, 1);
	for (i = 0; i < 2; i++) {
		struct sh_key key = { .id = k[i].id };

		CHECK(snapshot_ingest(&r.s, &key, &k[i].h, 1, sizeof(k[i].h), false) != NULL);
	}
	snapshot_stats(&r.s, r.stats);
	sp = report_spec_of(&r.o);
	sp.top = 0;
	r.s.metric = r.o.metric;
	CHECK(!report_build(&r.iv, &r.s, &sp, NULL, 1));
	sp.cumulative = true;
	CHECK(!report_build(&r.since, &r.s, &sp, NULL, 1));
	for (g = 0; g < 2; g++) {
		r.iv.groups[g].name = paths[r.iv.groups[g].key.id / 11 - 1];
		r.iv.groups[g].name_in_idbuf = false;
		r.since.groups[g].name = paths[r.since.groups[g].key.id / 11 - 1];
		r.since.groups[g].name_in_idbuf = false;
		if (r.since.groups[g].key.id == 11)
			r.since.groups[g].cgs = (struct cgstat){
				.has_throttle = true, .nr_throttled = 4, .throttled_ns = 123456789,
				.has_some = true, .pressure_some_ns = 2000000000 };
	}
	CHECK(!prom_view_update(&r.v, &r.iv, &r.since));
	CHECK(!prom_view_culprits(&r.v, paths[0], 5, 2000000000, in, 2));
	/* --stacks: the stacks not kept, one counter */
	r.v.stacks = true;
	r.v.kmem.stack_lost = 2;
	CHECK(same_as_text(&r.v, 1, fams, &nf) == 3);
	/* the histogram carries the unit label in protobuf too */
	CHECK(!strcmp(fams[0].m[1].lval[2], paths[0]));
	CHECK(fams[0].m[1].nlabels == 4 && !strcmp(fams[0].m[1].lname[3], "unit") &&
	      !strcmp(fams[0].m[1].lval[3], "db.service"));
	for (f = 0; f < nf; f++) {
		const struct family *fa = &fams[f];

		if (!strcmp(fa->name, "schedhist_culprit_wait_seconds_total")) {
			found++;
			CHECK(fa->type == 0 && fa->nmetrics == 3);	/* /batch, [idle], [rest] */
			CHECK(fa->m[0].nlabels == 6 && !strcmp(fa->m[0].lname[4], "culprit"));
			CHECK(!strcmp(fa->m[0].lname[5], "culprit_mode") &&
			      !strcmp(fa->m[0].lval[5], "switch"));
			CHECK(!strcmp(fa->m[0].lval[4], "/batch") && fa->m[0].value == 1.5);
			CHECK(!strcmp(fa->m[2].lval[4], "[rest]") && fa->m[2].value == 0.499999993);
		}
		if (!strcmp(fa->name, "schedhist_culprit_waits_total")) {
			found++;
			CHECK(fa->nmetrics == 3 && fa->m[2].value == 1);
		}
		if (!strcmp(fa->name, "schedhist_cgroup_throttled_seconds_total")) {
			found++;
			CHECK(fa->nmetrics == 1 && fa->m[0].value == 0.123456789);
			CHECK(!strcmp(fa->m[0].lname[3], "unit"));
		}
		if (!strcmp(fa->name, "schedhist_cgroup_throttled_periods_total") ||
		    !strcmp(fa->name, "schedhist_cgroup_pressure_some_seconds_total"))
			found++;
		if (!strcmp(fa->name, "schedhist_stacks_lost_total")) {
			found++;
			CHECK(fa->type == 0 && fa->nmetrics == 1 && fa->m[0].nlabels == 0 &&
			      fa->m[0].value == 2);
		}
		CHECK(strcmp(fa->name, "schedhist_cgroup_pressure_full_seconds_total"));
	}
	CHECK(found == 6);
	CHECK(!strcmp(fams[nf - 1].name, "schedhist_build_info"));
	rig_free(&r);
}

int main(void)
{
	TEST(test_accept);
	TEST(test_none);
	TEST(test_keys);
	TEST(test_two_views);
	TEST(test_counters);
	return test_summary();
}
