// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --profile's table: the profile map read, named and cleaned of gone processes (prof_table.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "lib/proc_stat.h"
#include "lib/clock.h"
#include "lib/hash.h"
#include "profile/prof_table.h"

/* An entry is checked for a gone thread once in this many readings in which it did not move. */
#define THREAD_CHECK_EVERY 8

static size_t key_bucket(const struct sh_prof_key *k)
{
	return hash_words((const __u64 *)k, sizeof(*k) / sizeof(__u64)) % PROF_BUCKETS;
}

static struct entry *entry_find(const struct prof_table *t, const struct sh_prof_key *k)
{
	for (struct entry *e = t->tab[key_bucket(k)]; e; e = e->next)
		if (!memcmp(&e->k, k, sizeof(*k)))
			return e;
	return NULL;
}

static struct entry *entry_new(struct prof_table *t, const struct sh_prof_key *k)
{
	size_t h = key_bucket(k);
	struct entry *e;

	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		struct entry **na = realloc(t->all, nc * sizeof(*na));

		if (!na)
			return NULL;
		t->all = na;
		t->cap = nc;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->k = *k;
	/*
	 * named now, with the maps of the process that had the wait: read
	 * while it runs (kept after it exits), dropped once its tgid is a
	 * new process's or it runs another program
	 */
	if (pn_name(t->names, k, &e->ns)) {
		free(e);
		return NULL;
	}
	e->next = t->tab[h];
	t->tab[h] = e;
	t->all[t->n++] = e;
	return e;
}

static void val_add(struct sh_prof_val *d, const struct sh_prof_val *a, const struct sh_prof_val *b)
{
	d->est_ns = a->est_ns + b->est_ns;
	d->est_waits = a->est_waits + b->est_waits;
	d->samples = a->samples + b->samples;
	d->sampled_ns = a->sampled_ns + b->sampled_ns;
}

/* A profile map entry first seen in this reading. */
struct fresh {
	struct sh_prof_key k;
	struct sh_prof_val v;
};

/* by process, and its newest program first: its maps are the ones /proc has */
static int cmp_fresh(const void *x, const void *y)
{
	const struct sh_prof_key *a = &((const struct fresh *)x)->k;
	const struct sh_prof_key *b = &((const struct fresh *)y)->k;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns > b->start_ns ? -1 : 1;
	if (a->exec_id != b->exec_id)
		return (__s32)(b->exec_id - a->exec_id) < 0 ? -1 : 1;
	return 0;
}

/* The entries first seen, named in cmp_fresh() order. 0 or -ENOMEM. */
static int add_fresh(struct prof_table *t, struct fresh *fresh, size_t n)
{
	if (n)
		qsort(fresh, n, sizeof(*fresh), cmp_fresh);
	for (size_t i = 0; i < n; i++) {
		struct entry *e = entry_new(t, &fresh[i].k);

		if (!e)
			return -ENOMEM;
		e->cur = fresh[i].v;
		e->in_kernel = true;
		e->moved = true;
	}
	return 0;
}

static int read_counters(struct prof_table *t)
{
	struct sh_prof_counters *pc = calloc((size_t)t->ncpus, sizeof(*pc));
	__u32 zero = 0;
	int err;

	if (!pc)
		return -ENOMEM;
	err = bpf_map_lookup_elem(t->cnt_fd, &zero, pc) ? -errno : 0;
	if (!err) {
		memset(&t->cnt, 0, sizeof(t->cnt));
		for (int c = 0; c < t->ncpus; c++) {
			for (int i = 0; i < SH_PROF_NR; i++)
				t->cnt.c[i] += pc[c].c[i];
			t->cnt.seen_ns += pc[c].seen_ns;
			t->cnt.map_full_ns += pc[c].map_full_ns;
		}
	}
	free(pc);
	return err;
}

int table_read(struct prof_table *t)
{
	struct sh_prof_key k, next, *prev = NULL;
	struct fresh *fresh = NULL;
	size_t nfresh = 0, capfresh = 0;
	struct sh_prof_val v;
	int err;

	while (!(err = bpf_map_get_next_key(t->prof_fd, prev, &next) ? -errno : 0)) {
		struct entry *e;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(t->prof_fd, &k, &v))
			continue;	/* removed by table_gc() meanwhile: cannot happen */
		e = entry_find(t, &k);
		if (e) {
			struct sh_prof_val now;

			/* a key removed comes back (a thread's tid reused in its process) */
			if (!e->in_kernel)
				e->carry = e->cur;
			e->in_kernel = true;
			val_add(&now, &e->carry, &v);
			e->moved = now.samples != e->cur.samples;
			e->cur = now;
			continue;
		}
		if (nfresh == capfresh) {
			size_t nc = capfresh ? capfresh * 2 : 64;
			struct fresh *nf = realloc(fresh, nc * sizeof(*nf));

			if (!nf) {
				free(fresh);
				return -ENOMEM;
			}
			fresh = nf;
			capfresh = nc;
		}
		fresh[nfresh++] = (struct fresh){ k, v };
	}
	if (err == -ENOENT)
		err = add_fresh(t, fresh, nfresh);
	free(fresh);
	return err ? err : read_counters(t);
}

/* field 22 of /proc/@tgid/stat, its start in clock ticks; 0: no such process, -1: unknown */
static __u64 proc_start(const struct prof_table *t, __u32 tgid)
{
	int fd = t->open_stat(t->open_arg, tgid);

	if (fd == -ENOENT || fd == -ESRCH)
		return 0;
	if (fd < 0)
		return (__u64)-1;
	return proc_stat_start(fd);
}

/*
 * Is the task of @e gone? One /proc read per process per pass (@memo: the
 * last asked); a process that cannot be read is not gone.
 */
static bool entry_gone(const struct prof_table *t, const struct entry *e, __u64 ns_per_tick,
		       __u32 *memo_tgid, __u64 *memo_start, bool check_thread)
{
	char path[64];
	struct stat st;

	if (*memo_tgid != e->k.tgid) {
		*memo_tgid = e->k.tgid;
		*memo_start = proc_start(t, e->k.tgid);
	}
	if (*memo_start == (__u64)-1)
		return false;
	if (*memo_start != e->k.start_ns / ns_per_tick)
		return true;
	if (!check_thread || e->k.pid == e->k.tgid)
		return false;
	snprintf(path, sizeof(path), "/proc/%u/task/%u", e->k.tgid, e->k.pid);
	return stat(path, &st) && errno == ENOENT;
}

/* Remove the entries of gone tasks from the kernel map; how many. */
static size_t remove_gone(struct prof_table *t)
{
	static unsigned int pass;
	__u64 ns_per_tick = NSEC_PER_SEC / (__u64)sysconf(_SC_CLK_TCK), memo_start = 0;
	__u32 memo_tgid = 0;
	size_t removed = 0;

	pass++;
	for (size_t i = 0; i < t->n; i++) {
		struct entry *e = t->all[i];
		struct sh_prof_val v;
		bool thread = (pass + i) % THREAD_CHECK_EVERY == 0;

		if (!e->in_kernel || e->moved || !entry_gone(t, e, ns_per_tick, &memo_tgid,
							     &memo_start, thread))
			continue;
		/* its last counts, atomically with the removal */
		if (bpf_map_lookup_and_delete_elem(t->prof_fd, &e->k, &v))
			continue;
		val_add(&e->cur, &e->carry, &v);
		e->in_kernel = false;
		removed++;
	}
	t->removed += removed;
	return removed;
}

/* A set of stack ids: open addressing, 0 marks a free slot (ids are hashes). */
struct idset {
	__u64 *v;
	size_t mask;
};

static int idset_init(struct idset *s, size_t n)
{
	size_t cap = 64;

	while (cap < 2 * n)
		cap *= 2;
	s->v = calloc(cap, sizeof(*s->v));
	s->mask = cap - 1;
	return s->v ? 0 : -ENOMEM;
}

static void idset_add(struct idset *s, __u64 id)
{
	size_t i = hash_words(&id, 1) & s->mask;

	if (!id || id >= SH_PROF_ID_MAX)
		return;
	while (s->v[i] && s->v[i] != id)
		i = (i + 1) & s->mask;
	s->v[i] = id;
}

static bool idset_has(const struct idset *s, __u64 id)
{
	size_t i = hash_words(&id, 1) & s->mask;

	while (s->v[i]) {
		if (s->v[i] == id)
			return true;
		i = (i + 1) & s->mask;
	}
	return false;
}

/* Every stack id the kernel's entries reference now (a fresh pass over the map). */
static int referenced(struct prof_table *t, struct idset *ref)
{
	struct sh_prof_key k, next, *prev = NULL;
	int err;

	if (idset_init(ref, 2 * t->n + 1024))
		return -ENOMEM;
	while (!(err = bpf_map_get_next_key(t->prof_fd, prev, &next) ? -errno : 0)) {
		k = next;
		prev = &k;
		idset_add(ref, k.kstack);
		idset_add(ref, k.ustack);
	}
	return err == -ENOENT ? 0 : err;
}

/* Remove the stacks of map @fd nobody references and no walk took since @old; how many. */
static __u64 remove_stacks(int fd, const struct idset *ref, __u64 old, size_t *left)
{
	struct sh_prof_stack s;
	__u64 id, next, *prev = NULL, n = 0, *del = NULL;
	size_t ndel = 0, cap = 0;

	*left = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		id = next;
		prev = &id;
		++*left;
		if (idset_has(ref, id) || bpf_map_lookup_elem(fd, &id, &s) || s.walked_ns >= old)
			continue;
		if (ndel == cap) {
			__u64 *nd = realloc(del, (cap = cap ? 2 * cap : 256) * sizeof(*nd));

			if (!nd)
				break;
			del = nd;
		}
		del[ndel++] = id;
	}
	/* after the pass: a removal during it would restart get_next_key() */
	for (size_t i = 0; i < ndel; i++)
		n += !bpf_map_delete_elem(fd, &del[i]);
	free(del);
	*left -= n;
	return n;
}

int table_gc(struct prof_table *t, __u64 now, __u64 period_ns)
{
	struct idset ref;
	int err;

	remove_gone(t);
	if (now < t->gc_last_ns + period_ns || now < period_ns)
		return 0;
	t->gc_last_ns = now;
	err = referenced(t, &ref);
	if (!err) {
		t->kremoved += remove_stacks(t->kfd, &ref, now - period_ns, &t->nstacks[0]);
		t->uremoved += remove_stacks(t->ufd, &ref, now - period_ns, &t->nstacks[1]);
	}
	free(ref.v);
	return err;
}

void table_free(struct prof_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		pn_stack_free(&t->all[i]->ns);
		free(t->all[i]);
	}
	free(t->all);
	t->all = NULL;
	t->n = t->cap = 0;
}
