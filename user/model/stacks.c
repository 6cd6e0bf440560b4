// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --stacks: the longest wait's kernel stack, read from the map, symbolized. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/stacks.h"
#include "model/report.h"

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ksyms_parse(struct ksyms *k, const char *text)
{
	size_t cap = 0, off = 0, len = strlen(text);
	const char *p = text;

	memset(k, 0, sizeof(*k));
	k->names = malloc(len + 1);
	if (!k->names)
		return -1;
	while (*p) {
		const char *eol = strchr(p, '\n'), *name, *end;
		unsigned long long addr;
		char type, *ep;
		size_t nl;

		if (!eol)
			eol = p + strlen(p);
		addr = strtoull(p, &ep, 16);
		/* "ADDR TYPE NAME[\t[MODULE]]": text symbols only */
		if (ep != p && ep + 3 <= eol && ep[0] == ' ' && ep[2] == ' ') {
			type = ep[1];
			name = ep + 3;
			end = eol;
			if ((type == 't' || type == 'T' || type == 'w' || type == 'W') && addr) {
				if (k->n == cap) {
					size_t c = cap ? cap * 2 : 4096;
					struct ksym *s = realloc(k->syms, c * sizeof(*s));

					if (!s) {
						ksyms_free(k);
						return -1;
					}
					k->syms = s;
					cap = c;
				}
				nl = (size_t)(end - name);
				memcpy(k->names + off, name, nl);
				k->names[off + nl] = '\0';
				/* the module's tab becomes a space: "func [module]" */
				for (char *q = k->names + off; *q; q++)
					if (*q == '\t')
						*q = ' ';
				k->syms[k->n].addr = addr;
				/* a pointer once every name is in: names does not move */
				k->syms[k->n].name = (const char *)(uintptr_t)off;
				k->n++;
				off += nl + 1;
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	for (size_t i = 0; i < k->n; i++)
		k->syms[i].name = k->names + (uintptr_t)k->syms[i].name;
	if (k->n)
		qsort(k->syms, k->n, sizeof(*k->syms), cmp_sym);
	return 0;
}

int ksyms_load(struct ksyms *k, const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0;
	ssize_t n;
	int r;

	if (!f)
		return -1;
	/* getdelim on NUL: the whole file (it has no NUL) in one buffer */
	n = getdelim(&text, &len, '\0', f);
	fclose(f);
	if (n < 0) {
		free(text);
		return -1;
	}
	r = ksyms_parse(k, text);
	free(text);
	/* kptr_restrict or no privileges: every address reads 0 */
	if (!r && !k->n) {
		ksyms_free(k);
		return -1;
	}
	return r;
}

void ksyms_free(struct ksyms *k)
{
	free(k->syms);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

void ksyms_format(const struct ksyms *k, __u64 addr, char *buf, size_t len)
{
	size_t lo = 0, hi = k->n, i;
	__u64 size;
	const char *mod;

	/* the last symbol at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)addr);
		return;
	}
	i = lo - 1;
	/* its size: to the next symbol at a higher address (aliases share one) */
	for (hi = lo; hi < k->n && k->syms[hi].addr == k->syms[i].addr; hi++)
		;
	size = hi < k->n ? k->syms[hi].addr - k->syms[i].addr : 0;
	mod = strchr(k->syms[i].name, ' ');
	if (mod)
		snprintf(buf, len, "%.*s+0x%" PRIx64 "/0x%" PRIx64 "%s",
			 (int)(mod - k->syms[i].name), k->syms[i].name,
			 (uint64_t)(addr - k->syms[i].addr), (uint64_t)size, mod);
	else
		snprintf(buf, len, "%s+0x%" PRIx64 "/0x%" PRIx64, k->syms[i].name,
			 (uint64_t)(addr - k->syms[i].addr), (uint64_t)size);
}

void stacks_init(struct stacks_state *st)
{
	memset(st, 0, sizeof(*st));
}

void stacks_free(struct stacks_state *st)
{
	free(st->frames);
	memset(st, 0, sizeof(*st));
}

/* @g's max's stack in @v: its epoch parity's slot, if it is that max's, has frames, unlocked. */
static const struct sh_stack *stack_of(const struct sh_stacks *v, const struct report_group *g,
				       int metric)
{
	const struct totals *t = &g->t;
	const struct sh_stack *s = &v->s[metric][t->max_epoch & 1];

	if (s->lock || s->epoch != t->max_epoch || s->ns != t->max_ns || !s->nr)
		return NULL;
	return s;
}

/*
 * Read @key's value twice and give @g's max's stack (in @st->val) or NULL. The kernel writes in
 * place under the stack's lock, so a copy may be torn: used only when both copies are unlocked
 * and equal (an overlapping write still holds the lock, or changed the ns, epoch or frames).
 */
static const struct sh_stack *read_stack(struct stacks_state *st, stack_lookup_fn lookup,
					 void *ctx, const struct report_group *g, int metric)
{
	const struct sh_stack *s, *again;

	if (lookup(ctx, &g->key, &st->val) || !(s = stack_of(&st->val, g, metric)))
		return NULL;
	if (lookup(ctx, &g->key, &st->again) || !(again = stack_of(&st->again, g, metric)))
		return NULL;
	return memcmp(s, again, sizeof(*s)) ? NULL : s;
}

__u64 frames_id(const struct frames *s)
{
	__u64 h = 1469598103934665603ULL;
	size_t i;
	const unsigned char *c;

	for (i = 0; i < s->n; i++) {
		for (c = (const unsigned char *)s->f[i]; *c; c++)
			h = (h ^ *c) * 1099511628211ULL;
		h *= 1099511628211ULL;	/* the NUL: frames "ab","c" differ from "a","bc" */
	}
	return h;
}

int stacks_attach(struct stacks_state *st, stack_lookup_fn lookup, void *ctx,
		  const struct ksyms *k, struct report *r)
{
	size_t i, j;

	if (r->ngroups > st->cap) {
		struct frames *f = realloc(st->frames, r->ngroups * sizeof(*f));

		if (!f)
			return -1;
		st->frames = f;
		st->cap = r->ngroups;
	}
	for (i = 0; i < r->ngroups; i++) {
		struct report_group *g = &r->groups[i];
		const struct sh_stack *sk;

		g->max_stack = NULL;
		/* [exited] and [rest] fold many keys: no one key's stack */
		if (g->synthetic || !g->t.max_ns || !g->t.count)
			continue;
		sk = read_stack(st, lookup, ctx, g, r->metric);
		if (!sk)
			continue;
		st->frames[i].n = sk->nr < SH_STACK_DEPTH ? sk->nr : SH_STACK_DEPTH;
		for (j = 0; j < st->frames[i].n; j++)
			ksyms_format(k, sk->ip[j], st->frames[i].f[j], sizeof(st->frames[i].f[j]));
		g->max_stack = &st->frames[i];
	}
	return 0;
}
