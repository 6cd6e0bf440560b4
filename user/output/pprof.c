// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The pprof encoder (pprof.h): profile.proto written by hand, field by field. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "output/pprof.h"

/* An interning table: bytes -> the id first given to them (1, 2, ...). */
struct inode {
	struct inode *next;
	__u64 id;
	size_t len;
	unsigned char key[];
};

struct intern {
	struct inode **b;
	size_t nb, n;
	struct inode **by_id;	/* in id order */
	size_t cap;
};

struct pbuf {
	unsigned char *p;
	size_t len, cap;
	bool err;
};

struct psample {
	__u64 *locs;
	size_t n;
	__u64 count, ns, comm, pid, tid;
};

struct pprof {
	struct intern str, map, fn, loc;
	struct psample *s;
	size_t ns, caps;
	__u64 value_type;
};

static void intern_free(struct intern *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->by_id[i]);
	free(t->b);
	free(t->by_id);
}

/* The id of @len bytes at @key, made if new; 0: no memory. */
static __u64 intern(struct intern *t, const void *key, size_t len)
{
	struct inode *e;
	size_t h;

	if (t->n >= t->nb) {
		size_t nb = t->nb ? 2 * t->nb : 256;
		struct inode **b = calloc(nb, sizeof(*b));

		if (!b)
			return 0;
		for (size_t i = 0; i < t->n; i++) {
			e = t->by_id[i];
			h = hash_bytes(e->key, e->len) & (nb - 1);
			e->next = b[h];
			b[h] = e;
		}
		free(t->b);
		t->b = b;
		t->nb = nb;
	}
	h = hash_bytes(key, len) & (t->nb - 1);
	for (e = t->b[h]; e; e = e->next)
		if (e->len == len && !memcmp(e->key, key, len))
			return e->id;
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 256;
		struct inode **n = realloc(t->by_id, nc * sizeof(*n));

		if (!n)
			return 0;
		t->by_id = n;
		t->cap = nc;
	}
	e = malloc(sizeof(*e) + len);
	if (!e)
		return 0;
	memcpy(e->key, key, len);
	e->len = len;
	e->id = t->n + 1;
	e->next = t->b[h];
	t->b[h] = e;
	t->by_id[t->n++] = e;
	return e->id;
}

/* The string table's index of @s ("" is index 0). */
static __u64 str_idx(struct pprof *pp, const char *s)
{
	__u64 id = intern(&pp->str, s ? s : "", s ? strlen(s) : 0);

	return id ? id - 1 : 0;
}

struct pprof *pprof_new(const char *value_type)
{
	struct pprof *pp = calloc(1, sizeof(*pp));

	if (!pp)
		return NULL;
	if (!intern(&pp->str, "", 0)) {
		free(pp);
		return NULL;
	}
	pp->value_type = str_idx(pp, value_type);
	return pp;
}

void pprof_free(struct pprof *pp)
{
	if (!pp)
		return;
	intern_free(&pp->str);
	intern_free(&pp->map);
	intern_free(&pp->fn);
	intern_free(&pp->loc);
	for (size_t i = 0; i < pp->ns; i++)
		free(pp->s[i].locs);
	free(pp->s);
	free(pp);
}

/* The location of frame @f: its mapping, its function and the address. 0: no memory. */
static __u64 location(struct pprof *pp, const struct pprof_frame *f)
{
	__u64 m[5] = { 0 }, fn[2], loc[3], mid = 0;

	if (f->map_file) {
		m[0] = f->map_start;
		m[1] = f->map_limit;
		m[2] = f->map_pgoff;
		m[3] = str_idx(pp, f->map_file);
		m[4] = str_idx(pp, f->build_id);
		mid = intern(&pp->map, m, sizeof(m));
		if (!mid)
			return 0;
	}
	fn[0] = str_idx(pp, f->name);
	fn[1] = str_idx(pp, f->file);
	loc[0] = mid;
	loc[1] = f->addr;
	loc[2] = intern(&pp->fn, fn, sizeof(fn));
	return loc[2] ? intern(&pp->loc, loc, sizeof(loc)) : 0;
}

int pprof_add(struct pprof *pp, const struct pprof_frame *f, size_t n, __u64 count, __u64 ns,
	      const char *comm, __u32 pid, __u32 tid)
{
	struct psample *s;

	if (pp->ns == pp->caps) {
		size_t nc = pp->caps ? 2 * pp->caps : 256;
		struct psample *na = realloc(pp->s, nc * sizeof(*na));

		if (!na)
			return -1;
		pp->s = na;
		pp->caps = nc;
	}
	s = &pp->s[pp->ns];
	*s = (struct psample){ .count = count, .ns = ns, .comm = str_idx(pp, comm), .pid = pid,
			       .tid = tid };
	s->locs = malloc((n ? n : 1) * sizeof(*s->locs));
	if (!s->locs)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(s->locs[s->n++] = location(pp, &f[i]))) {
			free(s->locs);
			return -1;
		}
	pp->ns++;
	return 0;
}

static void put(struct pbuf *b, const void *p, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		size_t nc = (b->len + n) * 2;
		unsigned char *np = realloc(b->p, nc);

		if (!np) {
			b->err = true;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void varint(struct pbuf *b, __u64 v)
{
	unsigned char c[10];
	size_t n = 0;

	do {
		c[n++] = (unsigned char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put(b, c, n);
}

/* field @f, wire type varint; a zero is left out, as proto3 does */
static void uint_field(struct pbuf *b, unsigned int f, __u64 v)
{
	if (!v)
		return;
	varint(b, (__u64)f << 3);
	varint(b, v);
}

/* field @f, length-delimited: @len bytes at @p */
static void bytes_field(struct pbuf *b, unsigned int f, const void *p, size_t len)
{
	varint(b, (__u64)f << 3 | 2);
	varint(b, len);
	put(b, p, len);
}

/* field @f holding the message in @m, which is emptied for the next one */
static void msg_field(struct pbuf *b, unsigned int f, struct pbuf *m)
{
	bytes_field(b, f, m->p, m->len);
	b->err |= m->err;
	m->len = 0;
}

/* a repeated field @f of @n numbers, packed */
static void packed_field(struct pbuf *b, struct pbuf *tmp, unsigned int f, const __u64 *v,
			 size_t n)
{
	for (size_t i = 0; i < n; i++)
		varint(tmp, v[i]);
	msg_field(b, f, tmp);
}

static void value_type(struct pbuf *b, struct pbuf *m, unsigned int f, __u64 type, __u64 unit)
{
	uint_field(m, 1, type);
	uint_field(m, 2, unit);
	msg_field(b, f, m);
}

static void label(struct pbuf *s, struct pbuf *m, __u64 key, __u64 str, __u64 num)
{
	uint_field(m, 1, key);
	uint_field(m, 2, str);
	uint_field(m, 3, num);
	msg_field(s, 3, m);
}

static void samples(struct pprof *pp, struct pbuf *b, struct pbuf *m, struct pbuf *t)
{
	__u64 kcomm = str_idx(pp, "comm"), kpid = str_idx(pp, "pid"), ktid = str_idx(pp, "tid");

	for (size_t i = 0; i < pp->ns; i++) {
		const struct psample *s = &pp->s[i];
		__u64 v[2] = { s->count, s->ns };
		struct pbuf sm = { 0 };

		packed_field(&sm, t, 1, s->locs, s->n);
		packed_field(&sm, t, 2, v, 2);
		label(&sm, m, kcomm, s->comm, 0);
		label(&sm, m, kpid, 0, s->pid);
		label(&sm, m, ktid, 0, s->tid);
		bytes_field(b, 2, sm.p, sm.len);
		b->err |= sm.err;
		free(sm.p);
	}
}

static void tables(struct pprof *pp, struct pbuf *b, struct pbuf *m, struct pbuf *t)
{
	for (size_t i = 0; i < pp->map.n; i++) {
		const __u64 *k = (const __u64 *)pp->map.by_id[i]->key;

		uint_field(m, 1, i + 1);
		uint_field(m, 2, k[0]);
		uint_field(m, 3, k[1]);
		uint_field(m, 4, k[2]);
		uint_field(m, 5, k[3]);
		uint_field(m, 6, k[4]);
		uint_field(m, 7, 1);	/* has_functions */
		msg_field(b, 3, m);
	}
	for (size_t i = 0; i < pp->loc.n; i++) {
		const __u64 *k = (const __u64 *)pp->loc.by_id[i]->key;

		uint_field(m, 1, i + 1);
		uint_field(m, 2, k[0]);
		uint_field(m, 3, k[1]);
		uint_field(t, 1, k[2]);
		msg_field(m, 4, t);	/* one Line: the function */
		msg_field(b, 4, m);
	}
	for (size_t i = 0; i < pp->fn.n; i++) {
		const __u64 *k = (const __u64 *)pp->fn.by_id[i]->key;

		uint_field(m, 1, i + 1);
		uint_field(m, 2, k[0]);
		uint_field(m, 3, k[0]);	/* system_name: the same */
		uint_field(m, 4, k[1]);
		msg_field(b, 5, m);
	}
}

int pprof_encode(struct pprof *pp, __u64 time_ns, __u64 duration_ns, char **buf, size_t *len)
{
	struct pbuf b = { 0 }, m = { 0 }, t = { 0 };
	__u64 ns = str_idx(pp, "nanoseconds"), sm = str_idx(pp, "samples");
	__u64 cnt = str_idx(pp, "count");

	value_type(&b, &m, 1, sm, cnt);
	value_type(&b, &m, 1, pp->value_type, ns);
	samples(pp, &b, &m, &t);
	tables(pp, &b, &m, &t);
	for (size_t i = 0; i < pp->str.n; i++)
		bytes_field(&b, 6, pp->str.by_id[i]->key, pp->str.by_id[i]->len);
	uint_field(&b, 9, time_ns);
	uint_field(&b, 10, duration_ns);
	value_type(&b, &m, 11, pp->value_type, ns);
	uint_field(&b, 12, 1);
	uint_field(&b, 14, pp->value_type);
	free(m.p);
	free(t.p);
	if (b.err || m.err || t.err) {
		free(b.p);
		return -1;
	}
	*buf = (char *)b.p;
	*len = b.len;
	return 0;
}
