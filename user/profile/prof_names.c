// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --profile: an entry's kernel and user stacks, named (prof_names.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "schedhist.h"
#include "lib/clock.h"
#include "lib/escape.h"
#include "lib/hash.h"
#include "profile/prof_names.h"
#include "profile/symbolize.h"

#define KBUCKETS 1024

struct prof_names {
	struct sym_cache *sym;
	int kfd, ufd;
	__u64 ns_per_tick;		/* of /proc/PID/stat's starttime (USER_HZ) */
	struct kstack_names *ktab[KBUCKETS];
	struct sh_prof_stack buf;	/* one stack map value */
};

/* The frames of the "lost" stacks and the user stack's cut. */
static char lost_kernel[] = "[lost kernel stack]";
static char lost_user[] = "[lost user stack]";
static char truncated[] = "[truncated]";
static struct pframe klost_frame = { .name = lost_kernel };
static struct kstack_names klost = { .folded = "[lost kernel stack]_[k]", .fr = &klost_frame,
				     .n = 1 };

struct prof_names *pn_new(const struct ksyms *ks, int kfd, int ufd)
{
	struct prof_names *pn = calloc(1, sizeof(*pn));

	if (!pn)
		return NULL;
	pn->sym = sym_new(ks, "/proc");
	if (!pn->sym) {
		free(pn);
		return NULL;
	}
	pn->kfd = kfd;
	pn->ufd = ufd;
	pn->ns_per_tick = NSEC_PER_SEC / (__u64)sysconf(_SC_CLK_TCK);
	return pn;
}

static void frames_free(struct pframe *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		if (f[i].name != lost_user && f[i].name != truncated)
			free(f[i].name);
		free(f[i].source);
		free(f[i].path);
	}
	free(f);
}

void pn_free(struct prof_names *pn)
{
	if (!pn)
		return;
	for (size_t b = 0; b < KBUCKETS; b++) {
		for (struct kstack_names *k = pn->ktab[b], *next; k; k = next) {
			next = k->next;
			free(k->folded);
			frames_free(k->fr, k->n);
			free(k);
		}
	}
	sym_free(pn->sym);
	free(pn);
}

struct sym_cache *pn_sym(struct prof_names *pn)
{
	return pn->sym;
}

void pn_process(struct prof_names *pn, __u32 tgid)
{
	sym_process(pn->sym, tgid, 0, 0);
}

void pn_sym_counts(const struct prof_names *pn, size_t *procs, size_t *reused, size_t *execs,
		   size_t *files)
{
	*procs = sym_nprocs(pn->sym);
	*reused = sym_nreused(pn->sym);
	*execs = sym_nexecs(pn->sym);
	*files = sym_nfiles(pn->sym);
}

/* Append @s to *@b (';' first unless empty), then @suffix; a frame's own ';' become ':'. */
static int append(char **b, size_t *len, size_t *cap, const char *s, const char *suffix)
{
	size_t sl = strlen(s), xl = strlen(suffix);

	if (*len + sl + xl + 2 > *cap) {
		size_t nc = (*len + sl + xl + 2) * 2;
		char *nb = realloc(*b, nc);

		if (!nb)
			return -1;
		*b = nb;
		*cap = nc;
	}
	if (*len)
		(*b)[(*len)++] = ';';
	for (size_t i = 0; i < sl; i++)
		(*b)[(*len)++] = s[i] == ';' ? ':' : s[i];
	memcpy(*b + *len, suffix, xl + 1);
	*len += xl;
	return 0;
}

/* The ips of stack @id of map @fd into pn->buf, innermost first; their number (0: gone). */
static int stack_ips(struct prof_names *pn, int fd, __u64 id)
{
	int n;

	if (bpf_map_lookup_elem(fd, &id, &pn->buf))
		return 0;
	for (n = 0; n < SH_PROF_DEPTH && pn->buf.ips[n]; n++)
		;
	return n;
}

/*
 * The innermost frames are the tracepoint's (the program, bpf_trace_run*(), maybe
 * __traceiter_sched_switch()): the stack starts at their caller. How many.
 */
static int tracing_frames(struct prof_names *pn, int n)
{
	char name[256];
	int last = -1;

	for (int i = 0; i < n && i < 5; i++) {
		sym_kernel(pn->sym, pn->buf.ips[i], i > 0, name, sizeof(name));
		if (!strncmp(name, "bpf_trace_run", 13) || !strncmp(name, "__traceiter_", 12))
			last = i;
	}
	return last + 1;
}

static const struct kstack_names *kernel_names(struct prof_names *pn, __u64 id)
{
	size_t b = hash_words(&id, 1) % KBUCKETS, len = 0, cap = 0;
	struct kstack_names *k;
	char name[256];
	int n, skip;

	for (k = pn->ktab[b]; k; k = k->next)
		if (k->id == id)
			return k;
	n = stack_ips(pn, pn->kfd, id);
	if (!n)
		return &klost;	/* gone: not cached, a later walk may bring it back */
	k = calloc(1, sizeof(*k));
	skip = tracing_frames(pn, n);
	if (!k || !(k->fr = calloc((size_t)(n - skip), sizeof(*k->fr))))
		goto nomem;
	k->id = id;
	for (int i = n - 1; i >= skip; i--) {
		struct pframe *f = &k->fr[k->n];

		sym_kernel(pn->sym, pn->buf.ips[i], i > 0 || skip, name, sizeof(name));
		f->addr = pn->buf.ips[i];
		f->name = strdup(name);
		k->n++;
		if (!f->name || append(&k->folded, &len, &cap, name, "_[k]"))
			goto nomem;
	}
	if (!k->folded && !(k->folded = strdup("")))
		goto nomem;
	k->next = pn->ktab[b];
	pn->ktab[b] = k;
	return k;
nomem:
	if (k) {
		free(k->folded);
		frames_free(k->fr, k->n);
	}
	free(k);
	return NULL;
}

/* Frame @i of the @n user ips in pn->buf, as @p names it, into @f. false: cut here. */
static bool user_frame(const struct sym_proc *p, __u64 addr, bool ret, struct pframe *f)
{
	struct sym_frame sf;

	sym_user_frame(p, addr, ret, &sf);
	if (!sf.in_exec_map)
		return false;
	f->addr = addr;
	f->name = strdup(sf.name);
	f->source = sf.source ? strdup(sf.source) : NULL;
	f->path = sf.path ? strdup(sf.path) : NULL;
	f->build_id = sf.build_id;
	f->map_start = sf.map_start;
	f->map_limit = sf.map_limit;
	f->map_pgoff = sf.map_pgoff;
	return true;
}

/* Stack @id's user frames, outermost first, cut at the first non-executable address. 0 or -1. */
static int user_names(struct prof_names *pn, const struct sh_prof_key *k, struct named_stack *s)
{
	int n = stack_ips(pn, pn->ufd, k->ustack), keep = 0;
	const struct sym_proc *p;
	struct pframe *f;

	if (!n) {
		s->ulost = true;
		s->uf = calloc(1, sizeof(*s->uf));
		if (!s->uf)
			return -1;
		s->uf[0].name = lost_user;
		s->nuser = 1;
		return 0;
	}
	p = sym_process(pn->sym, k->tgid, k->start_ns / pn->ns_per_tick, k->exec_id);
	f = calloc((size_t)n + 1, sizeof(*f));
	if (!f)
		return -1;
	/* innermost first, into f[1..]: f[0] is for the cut's marker */
	for (keep = 0; keep < n; keep++) {
		if (!user_frame(p, pn->buf.ips[keep], keep > 0, &f[n - keep]))
			break;
		if (!f[n - keep].name) {
			frames_free(f, (size_t)n + 1);
			return -1;
		}
	}
	s->truncated = keep < n;
	if (s->truncated)
		f[n - keep].name = truncated;
	/* outermost first: the kept frames (and the marker) move to the front */
	memmove(f, f + (n - keep) + (s->truncated ? 0 : 1),
		((size_t)keep + s->truncated) * sizeof(*f));
	s->uf = f;
	s->nuser = (size_t)keep + s->truncated;
	return 0;
}

int pn_name(struct prof_names *pn, const struct sh_prof_key *k, struct named_stack *out)
{
	char comm[4 * SH_COMM_LEN + 1], *s = NULL;
	size_t len = 0, cap = 0;

	memset(out, 0, sizeof(*out));
	name_escape(comm, sizeof(comm), k->comm);
	if (append(&s, &len, &cap, comm, ""))
		return -1;
	if (k->ustack < SH_PROF_ID_MAX) {
		if (user_names(pn, k, out))
			goto nomem;
	} else if (k->ustack == SH_PROF_LOST) {
		out->ulost = true;
		out->uf = calloc(1, sizeof(*out->uf));
		if (!out->uf)
			goto nomem;
		out->uf[0].name = lost_user;
		out->nuser = 1;
	}
	for (size_t i = 0; i < out->nuser; i++)
		if (append(&s, &len, &cap, out->uf[i].name, ""))
			goto nomem;
	if (k->kstack < SH_PROF_ID_MAX)
		out->ks = kernel_names(pn, k->kstack);
	else if (k->kstack == SH_PROF_LOST)
		out->ks = &klost;
	if (k->kstack != SH_PROF_NOT_TAKEN && k->kstack != SH_PROF_NO_USER && !out->ks)
		goto nomem;
	out->klost = out->ks == &klost;
	/* the cached kernel part, frames already joined */
	if (out->ks && *out->ks->folded) {
		size_t kl = strlen(out->ks->folded);
		char *nb = realloc(s, len + kl + 2);

		if (!nb)
			goto nomem;
		s = nb;
		s[len++] = ';';
		memcpy(s + len, out->ks->folded, kl + 1);
	}
	out->folded = s;
	return 0;
nomem:
	free(s);
	pn_stack_free(out);
	return -1;
}

void pn_stack_free(struct named_stack *s)
{
	frames_free(s->uf, s->nuser);
	free(s->folded);
	memset(s, 0, sizeof(*s));
}
