// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Map I/O of --culprits, --stacks and --causes, so the modules themselves stay pure. */
#include <errno.h>
#include <bpf/bpf.h>

#include "kernel/extra_read.h"
#include "model/snapshot.h"
#include "model/report.h"
#include "lib/log.h"
#include <stdlib.h>
#include <string.h>

static int read_one_by_one(struct culprits *c, int fd)
{
	struct sh_culprit_key cur, next;
	void *prev = NULL;
	int err;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		cur = next;
		prev = &cur;
		if (bpf_map_lookup_elem(fd, &cur, c->vals))
			continue;	/* removed meanwhile */
		err = culprits_add(c, &cur, c->vals, false);
		if (err)
			return err;
	}
	return errno == ENOENT ? 0 : -errno;
}

static int read_map(struct culprits *c, int fd)
{
	struct sh_culprit_key in, out;
	void *inp = NULL;
	__u32 n, i;
	int last, err;

	if (c->no_batch)
		return read_one_by_one(c, fd);
	for (;;) {
		n = SH_CULPRIT_BATCH;
		last = bpf_map_lookup_batch(fd, inp, &out, c->keys, c->vals, &n, NULL);
		if (last && errno != ENOENT) {
			if ((errno == EINVAL || errno == ENOTSUP || errno == 524) && !inp) {
				c->no_batch = true;
				return read_one_by_one(c, fd);
			}
			return -errno;
		}
		for (i = 0; i < n; i++) {
			err = culprits_add(c, &c->keys[i], &c->vals[i], false);
			if (err)
				return err;
		}
		if (last)
			return 0;
		in = out;
		inp = &in;
	}
}

int culprits_read(struct culprits *c, int fd, int pcpu_fd, struct sh_pcpu *pcpu, int ncpus)
{
	__u32 zero = 0;
	__u64 lost = 0;
	int cpu, i, err;

	culprits_begin(c);
	err = read_map(c, fd);
	if (err)
		return err;
	/* then what each CPU's pair cache holds: part of its pair's total */
	if (bpf_map_lookup_elem(pcpu_fd, &zero, pcpu))
		return -errno;
	for (cpu = 0; cpu < ncpus; cpu++)
		lost += pcpu[cpu].culprit_lost;
	c->lost = lost - c->lost_raw;
	c->lost_raw = lost;
	for (cpu = 0; !err && cpu < ncpus; cpu++)
		for (i = 0; !err && i < SH_CCACHE; i++) {
			const struct sh_culprit_ent *e = &pcpu[cpu].ccache[i];

			if (e->v.count)
				err = culprits_add(c, &e->key, &e->v, true);
		}
	if (!err)
		culprits_end(c);
	return err;
}


/* lookup-and-delete: the pair's final value, atomically with its removal */
static int remove_pair(void *ctx, const struct sh_culprit_key *key, struct sh_culprit_val *val)
{
	return bpf_map_lookup_and_delete_elem(*(int *)ctx, key, val) ? -errno : 0;
}

void culprits_sweep_map(struct culprits *c, int fd)
{
	culprits_sweep(c, remove_pair, &fd);
}

static int lookup_stack(void *ctx, const struct sh_key *key, struct sh_stacks *val)
{
	return bpf_map_lookup_elem(*(int *)ctx, key, val) ? -errno : 0;
}

void stacks_prune(int fd, struct snapshot *s)
{
	struct snap_entry *e;
	size_t it = 0;

	for (e = NULL; (e = snapshot_next(s, &it, e));)
		if (e->pruned)
			bpf_map_delete_elem(fd, &e->key);
}

int causes_read(struct cause_table *t, int fd, bool fresh)
{
	struct sh_key key, next;
	struct sh_causes val;
	void *prev = NULL;

	causes_begin(t, fresh);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		/* a key removed meanwhile (causes_prune() only: gone keys) */
		if (bpf_map_lookup_elem(fd, &key, &val))
			continue;
		if (causes_ingest(t, &key, &val))
			return -ENOMEM;
	}
	return errno == ENOENT ? 0 : -errno;
}

void causes_prune(struct cause_table *t, int fd, struct snapshot *s)
{
	struct snap_entry *e;
	size_t it = 0;

	size_t kept = s->nkept;

	/* The pruning reading read the key's last causes; a kept entry keeps them. */
	for (e = NULL; (e = snapshot_next(s, &it, e));) {
		if (!e->pruned || e->kept)
			continue;
		bpf_map_delete_elem(fd, &e->key);
		if (s->keep_pruned && kept < s->keep_limit)
			kept++;
		else
			causes_forget(t, &e->key);
	}
}

int extras_init(struct extras *x, bool culprits, int culprit_mode, bool stacks, bool causes,
		bool cumulative, int culprit_fd, int stack_fd, int cause_fd)
{
	memset(x, 0, sizeof(*x));
	x->culprits = culprits;
	x->stacks = stacks;
	x->causes = causes;
	x->culprit_fd = culprit_fd;
	x->stack_fd = stack_fd;
	x->cause_fd = cause_fd;
	if (x->causes && causes_init(&x->ctab)) {
		pr_warn("out of memory\n");
		return -1;
	}
	if (x->culprits && culprits_init(&x->cul, cumulative)) {
		pr_warn("out of memory\n");
		return -1;
	}
	x->cul.mode = culprit_mode;
	if (x->stacks && ksyms_load(&x->ksyms, "/proc/kallsyms")) {
		pr_warn("--stacks: cannot read kernel symbols from /proc/kallsyms (%s): run "
			"as root, with kernel.kptr_restrict below 2\n",
			errno ? strerror(errno) : "every address reads 0");
		return -1;
	}
	return 0;
}

int extras_read(struct extras *x, int pcpu_fd, struct sh_pcpu *pcpu, int ncpus, bool fresh)
{
	int err = 0;

	if (x->culprits)
		err = culprits_read(&x->cul, x->culprit_fd, pcpu_fd, pcpu, ncpus);
	if (!err && x->causes)
		err = causes_read(&x->ctab, x->cause_fd, fresh);
	return err;
}

struct tick_sources extras_sources(struct extras *x)
{
	return (struct tick_sources){ .culprits = x->culprits ? &x->cul : NULL,
				      .causes = x->causes ? &x->ctab : NULL,
				      .ksyms = &x->ksyms, .stack_lookup = lookup_stack,
				      .stack_ctx = &x->stack_fd };
}

void extras_done(struct extras *x, struct snapshot *snaps, int n)
{
	int i;

	if (x->culprits)
		culprits_sweep_map(&x->cul, x->culprit_fd);
	for (i = 0; x->stacks && i < n; i++)
		stacks_prune(x->stack_fd, &snaps[i]);
	for (i = 0; x->causes && i < n; i++)
		if (snaps[i].metric == SH_METRIC_RUNQ)
			causes_prune(&x->ctab, x->cause_fd, &snaps[i]);
}

void extras_free(struct extras *x)
{
	if (x->culprits)
		culprits_free(&x->cul);
	ksyms_free(&x->ksyms);
	if (x->causes)
		causes_free(&x->ctab);
}
