// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --profile: load bpf/profile.bpf.c, read and diff its map, write the reports. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/clock.h"
#include "schedhist.h"
#include "schedhist_profile.h"
#include "profile.skel.h"
#include "profile/profile.h"
#include "profile/symbolize.h"
#include "profile/sandbox.h"
#include "profile/execwatch.h"
#include "output/flamegraph.h"
#include "lib/atomic_file.h"
#include "lib/escape.h"
#include "lib/names.h"
#include "lib/exit_codes.h"
#include "lib/loop.h"
#include "lib/log.h"

#define BUCKETS 4096

/* One profile map entry as the poller knows it. */
struct entry {
	struct sh_prof_key k;
	struct sh_prof_val cur;		/* at the last reading */
	struct sh_prof_val base;	/* at the last report (0 for --cumulative) */
	char *folded;			/* "comm;user...;kernel_[k]...", made on first sight */
	const char **build_ids;		/* per user frame of @folded: its file's, or NULL */
	size_t nuser;			/* user frames in @folded */
	struct entry *next;		/* hash chain */
};

/* A report's line: the merged entries of one folded stack (and one key). */
struct row {
	const char *folded;
	const struct entry *e;		/* the first entry merged (its key) */
	__u64 wait_ns, count;
};

struct profile {
	const struct profile_spec *sp;
	struct profile_bpf *skel;
	int prof_fd, stack_fd, cnt_fd, ncpus;
	struct entry *tab[BUCKETS];
	struct entry **all;		/* every entry, in order of first sight */
	size_t n, cap;
	struct ksyms ks;
	struct sym_cache *sym;
	char **kcache;			/* kernel stacks' folded frames, by stack id */
	__u64 ns_per_tick;		/* of /proc/PID/stat's starttime (USER_HZ) */
	size_t kcache_n;
	struct sh_prof_counters cnt, cnt_base;
	struct atomic_file fg;
	bool fg_open;
	struct broker *brk;		/* opens files for the unprivileged poller */
	struct execwatch *ew;		/* new programs' maps read while they run */
};

static size_t key_hash(const struct sh_prof_key *k)
{
	const unsigned char *p = (const void *)k;
	size_t h = 2166136261u;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h % BUCKETS;
}

static int make_folded(struct profile *pr, struct entry *e);

static struct entry *entry_find(const struct profile *pr, const struct sh_prof_key *k)
{
	struct entry *e;

	for (e = pr->tab[key_hash(k)]; e; e = e->next)
		if (!memcmp(&e->k, k, sizeof(*k)))
			return e;
	return NULL;
}

static struct entry *entry_new(struct profile *pr, const struct sh_prof_key *k)
{
	size_t h = key_hash(k);
	struct entry *e;

	if (pr->n == pr->cap) {
		size_t nc = pr->cap ? pr->cap * 2 : 1024;
		struct entry **na = realloc(pr->all, nc * sizeof(*na));

		if (!na)
			return NULL;
		pr->all = na;
		pr->cap = nc;
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
	if (make_folded(pr, e)) {
		free(e);
		return NULL;
	}
	e->next = pr->tab[h];
	pr->tab[h] = e;
	pr->all[pr->n++] = e;
	return e;
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

/* Read the profile map and the counters into the entries. 0 or -errno. */
static int read_profile(struct profile *pr)
{
	struct sh_prof_key k, next, *prev = NULL;
	struct fresh *fresh = NULL;
	size_t nfresh = 0, capfresh = 0;
	struct sh_prof_counters *pc;
	struct sh_prof_val v;
	__u32 zero = 0;
	int err;

	while (!(err = bpf_map_get_next_key(pr->prof_fd, prev, &next))) {
		struct entry *e;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(pr->prof_fd, &k, &v))
			continue;	/* profile entries are never deleted: cannot happen */
		e = entry_find(pr, &k);
		if (e) {
			e->cur = v;
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
	if (nfresh)
		qsort(fresh, nfresh, sizeof(*fresh), cmp_fresh);
	for (size_t i = 0; i < nfresh; i++) {
		struct entry *e = entry_new(pr, &fresh[i].k);

		if (!e) {
			free(fresh);
			return -ENOMEM;
		}
		e->cur = fresh[i].v;
	}
	free(fresh);
	if (err != -ENOENT)
		return err;
	pc = calloc(pr->ncpus, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	err = bpf_map_lookup_elem(pr->cnt_fd, &zero, pc) ? -errno : 0;
	if (!err) {
		memset(&pr->cnt, 0, sizeof(pr->cnt));
		for (int c = 0; c < pr->ncpus; c++) {
			for (int i = 0; i < SH_PROF_NR; i++)
				pr->cnt.c[i] += pc[c].c[i];
			pr->cnt.map_full_ns += pc[c].map_full_ns;
		}
	}
	free(pc);
	return err;
}

/*
 * Append @s to the growing string *@b (of length *@len), ';' first unless
 * empty; @frames: @s is frames already joined by ';', else one frame,
 * whose own ';' become ':'.
 */
static int append_as(char **b, size_t *len, size_t *cap, const char *s, bool frames)
{
	size_t sl = strlen(s) + 1;

	if (*len + sl + 1 > *cap) {
		size_t nc = (*len + sl + 1) * 2;
		char *nb = realloc(*b, nc);

		if (!nb)
			return -1;
		*b = nb;
		*cap = nc;
	}
	if (*len)
		(*b)[(*len)++] = ';';
	memcpy(*b + *len, s, sl);
	/* a frame never holds the separator */
	for (char *q = *b + *len; !frames && *q; q++)
		if (*q == ';')
			*q = ':';
	*len += sl - 1;
	return 0;
}

static int append(char **b, size_t *len, size_t *cap, const char *s)
{
	return append_as(b, len, cap, s, false);
}

/* The ips of stack @id, innermost first; their number (0: gone). */
static int stack_ips(struct profile *pr, int id, __u64 *ips)
{
	int n;

	memset(ips, 0, SH_PROF_DEPTH * sizeof(*ips));
	if (bpf_map_lookup_elem(pr->stack_fd, &id, ips))
		return 0;
	for (n = 0; n < SH_PROF_DEPTH && ips[n]; n++)
		;
	return n;
}

/* The kernel frames of stack @id, outermost first, each "func_[k]" (cached). */
static const char *kernel_frames(struct profile *pr, int id)
{
	__u64 ips[SH_PROF_DEPTH];
	char name[256], *s = NULL;
	size_t len = 0, cap = 0;
	bool skipped = false;
	int n;

	if ((size_t)id >= pr->kcache_n) {
		size_t nn = (size_t)id * 2 + 64;
		char **nc = realloc(pr->kcache, nn * sizeof(*nc));

		if (!nc)
			return NULL;
		memset(nc + pr->kcache_n, 0, (nn - pr->kcache_n) * sizeof(*nc));
		pr->kcache = nc;
		pr->kcache_n = nn;
	}
	if (pr->kcache[id])
		return pr->kcache[id];
	n = stack_ips(pr, id, ips);
	if (!n && append(&s, &len, &cap, "[lost kernel stack]_[k]"))
		return NULL;
	/*
	 * the innermost frames are the tracepoint's: the BPF program,
	 * bpf_trace_run*() and, with several programs attached,
	 * __traceiter_sched_switch(); the stack starts at their caller
	 */
	for (int i = 0, last = -1; i < n && i < 5; i++) {
		sym_kernel(pr->sym, ips[i], i > 0, name, sizeof(name));
		if (!strncmp(name, "bpf_trace_run", 13) || !strncmp(name, "__traceiter_", 12))
			last = i;
		if (i == 4 || i == n - 1) {
			if (last >= 0) {
				memmove(ips, ips + last + 1, (n - last - 1) * sizeof(*ips));
				n -= last + 1;
				skipped = true;
			}
			break;
		}
	}
	for (int i = n - 1; i >= 0; i--) {
		size_t l;

		sym_kernel(pr->sym, ips[i], i > 0 || skipped, name, sizeof(name) - 4);
		l = strlen(name);
		memcpy(name + l, "_[k]", 5);
		if (append(&s, &len, &cap, name)) {
			free(s);
			return NULL;
		}
	}
	pr->kcache[id] = s;
	return s;
}

/* e->folded: "comm;user frames outermost first;kernel frames outermost first". */
static int make_folded(struct profile *pr, struct entry *e)
{
	char comm[4 * SH_COMM_LEN + 1], name[512], *s = NULL;
	size_t len = 0, cap = 0;
	__u64 ips[SH_PROF_DEPTH];
	const char *kf;

	name_escape(comm, sizeof(comm), e->k.comm);
	if (append(&s, &len, &cap, comm))
		return -1;
	if (e->k.ustack >= 0) {
		int n = stack_ips(pr, e->k.ustack, ips);
		const struct sym_proc *p = sym_process(pr->sym, e->k.tgid,
						       e->k.start_ns / pr->ns_per_tick, e->k.exec_id);

		e->build_ids = calloc(n ? n : 1, sizeof(*e->build_ids));
		if (!e->build_ids)
			goto nomem;
		if (!n && append(&s, &len, &cap, "[lost user stack]"))
			goto nomem;
		e->nuser = n ? n : 1;
		for (int i = n - 1; i >= 0; i--) {
			sym_user(p, ips[i], i > 0, name, sizeof(name), &e->build_ids[n - 1 - i]);
			if (append(&s, &len, &cap, name))
				goto nomem;
		}
	} else if (e->k.ustack == SH_PROF_LOST) {
		if (append(&s, &len, &cap, "[lost user stack]"))
			goto nomem;
		e->nuser = 1;
	}
	if (e->k.kstack == SH_PROF_NOT_TAKEN)
		kf = "";
	else if (e->k.kstack >= 0)
		kf = kernel_frames(pr, e->k.kstack);
	else
		kf = "[lost kernel stack]_[k]";
	if (!kf || (*kf && append_as(&s, &len, &cap, kf, true)))
		goto nomem;
	e->folded = s;
	return 0;
nomem:
	free(e->build_ids);
	e->build_ids = NULL;
	free(s);
	return -1;
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

static int key_type_g;		/* for the comparators: the report's key */

static int cmp_key(const struct entry *a, const struct entry *b)
{
	switch (key_type_g) {
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

static int cmp_row_key_folded(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	int c = cmp_key(a->e, b->e);

	return c ? c : strcmp(a->folded, b->folded);
}

/* rows of one key: biggest wait first, then by stack (a stable order) */
static int cmp_row_wait(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->wait_ns != b->wait_ns)
		return a->wait_ns > b->wait_ns ? -1 : 1;
	return strcmp(a->folded, b->folded);
}

/*
 * The rows of the report: entries with waits since @base (or since start),
 * merged per (key, folded stack) when @by_key, else per folded stack;
 * sorted by key then stack. Their number, or -1 (no memory).
 */
static ssize_t make_rows(struct profile *pr, bool since_start, bool by_key, struct row **out)
{
	struct row *r = calloc(pr->n ? pr->n : 1, sizeof(*r));
	size_t n = 0, m = 0;

	if (!r)
		return -1;
	for (size_t i = 0; i < pr->n; i++) {
		struct entry *e = pr->all[i];
		__u64 w = e->cur.wait_ns - (since_start ? 0 : e->base.wait_ns);
		__u64 c = e->cur.count - (since_start ? 0 : e->base.count);

		if (!c)
			continue;
		r[n++] = (struct row){ e->folded, e, w, c };
	}
	key_type_g = by_key ? pr->sp->key_type : SH_KEY_NONE;
	qsort(r, n, sizeof(*r), cmp_row_key_folded);
	for (size_t i = 0; i < n; i++) {
		if (m && !cmp_row_key_folded(&r[m - 1], &r[i])) {
			r[m - 1].wait_ns += r[i].wait_ns;
			r[m - 1].count += r[i].count;
		} else {
			r[m++] = r[i];
		}
	}
	*out = r;
	return (ssize_t)m;
}

static void write_folded(FILE *f, const struct row *r, size_t n, int unit)
{
	__u64 div = unit_ns(unit);

	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %llu\n", r[i].folded, (unsigned long long)(r[i].wait_ns / div));
}

/* The frames of @folded after its comm: user ones, or kernel ones ("_[k]" cut). */
static void json_frames(FILE *f, const char *folded, bool kernel)
{
	const char *p = strchr(folded, ';');
	bool first = true;

	putc('[', f);
	while (p) {
		const char *s = p + 1, *e = strchr(s, ';');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		bool k = len >= 4 && !memcmp(s + len - 4, "_[k]", 4);

		if (k == kernel) {
			char *fr = strndup(s, k ? len - 4 : len);

			if (!first)
				putc(',', f);
			escaped_write_json(f, fr ? fr : "");
			free(fr);
			first = false;
		}
		p = e;
	}
	putc(']', f);
}

static void write_json(struct profile *pr, FILE *f, struct row *r, size_t n, double secs,
		       const struct sh_prof_counters *d)
{
	const struct profile_spec *sp = pr->sp;
	__u32 top = sp->top ? sp->top : SH_PROF_TOP;
	struct timespec ts;
	struct utsname u;
	struct tm tm;
	char tbuf[40], key[80];
	__u64 total = 0, count = 0;
	size_t i, j;
	bool first = true;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%S", &tm);
	if (uname(&u))
		u.nodename[0] = '\0';
	for (i = 0; i < n; i++) {
		total += r[i].wait_ns;
		count += r[i].count;
	}
	fputs("{\"schema\":1,\"mode\":\"profile\",\"host\":", f);
	putc('"', f);
	name_write(f, u.nodename, ESC_JSON);
	putc('"', f);
	fprintf(f, ",\"time\":\"%s.%03ldZ\",\"interval_s\":%.3f,\"cumulative\":%s,\"metric\":\"%s\","
		"\"key\":\"%s\",\"wait_ns\":%llu,\"count\":%llu,\"groups\":[",
		tbuf, ts.tv_nsec / 1000000, secs, sp->cumulative ? "true" : "false",
		metric_name(sp->metric), key_name(sp->key_type), (unsigned long long)total,
		(unsigned long long)count);
	key_type_g = sp->key_type;
	for (i = 0; i < n; i = j) {
		__u64 gw = 0, gc = 0;
		size_t shown;

		for (j = i; j < n && !cmp_key(r[i].e, r[j].e); j++) {
			gw += r[j].wait_ns;
			gc += r[j].count;
		}
		qsort(r + i, j - i, sizeof(*r), cmp_row_wait);
		key_type_g = sp->key_type;
		key_str(sp->key_type, r[i].e, key, sizeof(key));
		fprintf(f, "%s{\"key\":", first ? "" : ",");
		first = false;
		escaped_write_json(f, key);
		shown = j - i < top ? j - i : top;
		fprintf(f, ",\"wait_ns\":%llu,\"count\":%llu,\"stacks_total\":%zu,\"stacks\":[",
			(unsigned long long)gw, (unsigned long long)gc, j - i);
		for (size_t s = i; s < i + shown; s++) {
			char comm[4 * SH_COMM_LEN + 1];

			name_escape(comm, sizeof(comm), r[s].e->k.comm);
			fprintf(f, "%s{\"comm\":", s == i ? "" : ",");
			escaped_write_json(f, comm);
			fprintf(f, ",\"wait_ns\":%llu,\"count\":%llu,\"share\":%.4f,\"user\":",
				(unsigned long long)r[s].wait_ns, (unsigned long long)r[s].count,
				gw ? (double)r[s].wait_ns / gw : 0.0);
			json_frames(f, r[s].folded, false);
			fputs(",\"user_build_ids\":[", f);
			for (size_t fr = 0; fr < r[s].e->nuser; fr++) {
				const char *id = r[s].e->build_ids ? r[s].e->build_ids[fr] : NULL;

				fprintf(f, "%s%s%s%s", fr ? "," : "", id ? "\"" : "", id ? id : "null",
					id ? "\"" : "");
			}
			fputs("],\"kernel\":", f);
			json_frames(f, r[s].folded, true);
			putc('}', f);
		}
		fputs("]}", f);
	}
	fprintf(f, "],\"events\":{\"seen\":%llu,\"recorded\":%llu,\"map_full\":%llu,"
		"\"map_full_ns\":%llu,\"kstack_lost\":%llu,\"ustack_lost\":%llu,\"entries\":%zu}}\n",
		(unsigned long long)d->c[SH_PROF_SEEN], (unsigned long long)d->c[SH_PROF_RECORDED],
		(unsigned long long)d->c[SH_PROF_MAP_FULL], (unsigned long long)d->map_full_ns,
		(unsigned long long)d->c[SH_PROF_KSTACK_LOST],
		(unsigned long long)d->c[SH_PROF_USTACK_LOST], pr->n);
}

/* The flame graph of the whole run so far, rewritten in place. */
static int write_flamegraph(struct profile *pr)
{
	struct fg_stack *fs = NULL;
	struct row *r = NULL;
	char title[128], *buf = NULL;
	size_t len = 0;
	ssize_t n = make_rows(pr, true, false, &r);
	FILE *f;
	int err = -1;

	if (n < 0)
		return -1;
	fs = calloc(n ? n : 1, sizeof(*fs));
	f = open_memstream(&buf, &len);
	if (fs && f) {
		for (ssize_t i = 0; i < n; i++)
			fs[i] = (struct fg_stack){ r[i].folded, r[i].wait_ns, r[i].count };
		snprintf(title, sizeof(title), "schedhist --profile: %s time by stack",
			 metric_name(pr->sp->metric));
		err = flamegraph_write(f, title, fs, n);
	}
	if (f)
		fclose(f);
	if (!err)
		atomic_file_update(&pr->fg, buf, len);
	free(buf);
	free(fs);
	free(r);
	return err;
}

/* One report of the waits since the last one (or since start). 0 or -1. */
static int report(struct profile *pr, double secs)
{
	const struct profile_spec *sp = pr->sp;
	struct sh_prof_counters d;
	struct row *r;
	char *buf = NULL;
	size_t len = 0;
	ssize_t n = make_rows(pr, sp->cumulative, sp->json, &r);
	FILE *f;
	int err = 0;

	if (n < 0)
		return -1;
	d = pr->cnt;
	if (!sp->cumulative) {
		for (int i = 0; i < SH_PROF_NR; i++)
			d.c[i] -= pr->cnt_base.c[i];
		d.map_full_ns -= pr->cnt_base.map_full_ns;
	}
	f = open_memstream(&buf, &len);
	if (!f) {
		free(r);
		return -1;
	}
	if (sp->json)
		write_json(pr, f, r, (size_t)n, secs, &d);
	else
		write_folded(f, r, (size_t)n, sp->unit);
	fclose(f);
	/* a blank line ends each report of folded stacks */
	if (!sp->json && buf)
		err = write_whole(STDOUT_FILENO, buf, len) || write_whole(STDOUT_FILENO, "\n", 1);
	else if (buf)
		err = write_whole(STDOUT_FILENO, buf, len);
	free(buf);
	free(r);
	if (d.c[SH_PROF_MAP_FULL] || d.c[SH_PROF_KSTACK_LOST] || d.c[SH_PROF_USTACK_LOST])
		pr_warn("profile: %llu waits (%.3f ms) not kept (profile map full, --max-keys), "
			"%llu kernel and %llu user stacks lost (stack map full, or their hash bucket "
			"held another stack)\n",
			(unsigned long long)d.c[SH_PROF_MAP_FULL], d.map_full_ns / 1e6,
			(unsigned long long)d.c[SH_PROF_KSTACK_LOST],
			(unsigned long long)d.c[SH_PROF_USTACK_LOST]);
	for (size_t i = 0; i < pr->n; i++)
		pr->all[i]->base = pr->all[i]->cur;
	pr->cnt_base = pr->cnt;
	if (!err && sp->flamegraph)
		err = write_flamegraph(pr);
	return err ? -1 : 0;
}

static int start(struct profile *pr)
{
	const struct profile_spec *sp = pr->sp;
	char err[256];
	int e;

	pr->ns_per_tick = NSEC_PER_SEC / (__u64)sysconf(_SC_CLK_TCK);
	pr->ncpus = libbpf_num_possible_cpus();
	if (pr->ncpus <= 0) {
		pr_warn("cannot count the possible CPUs: %s\n", strerror(-pr->ncpus));
		return -1;
	}
	if (sp->flamegraph) {
		if (atomic_file_open(&pr->fg, "--flamegraph", sp->flamegraph, err, sizeof(err))) {
			pr_warn("%s\n", err);
			return SH_EXIT_USAGE;
		}
		pr->fg_open = true;
	}
	/* before the load: real addresses need the privileges we start with */
	if (ksyms_load(&pr->ks, "/proc/kallsyms"))
		pr_warn("cannot read /proc/kallsyms: kernel frames shown as addresses\n");
	pr->sym = sym_new(&pr->ks, "/proc");
	if (!pr->sym) {
		pr_warn("out of memory\n");
		return -1;
	}
	pr->skel = profile_bpf__open();
	if (!pr->skel) {
		pr_warn("cannot open the profile's BPF object: %s\n", strerror(errno));
		return -1;
	}
	pr->skel->rodata->metric = sp->metric;
	pr->skel->rodata->filter_tgid = sp->tgid;
	pr->skel->rodata->cgroup_hier = sp->cgroup_hier;
	pr->skel->rodata->filter_cgid = sp->cgroup_id;
	pr->skel->rodata->filter_cglevel = sp->cgroup_level;
	pr->skel->rodata->stack_kinds = sp->stack_kinds;
	bpf_map__set_max_entries(pr->skel->maps.profile, sp->max_entries);
	bpf_map__set_max_entries(pr->skel->maps.stacks, 2 * sp->max_entries);
	/* offcpu needs no wakeups: the wait is the whole off-CPU period */
	bpf_program__set_autoload(pr->skel->progs.profile_wakeup, sp->metric != SH_METRIC_OFFCPU);
	e = profile_bpf__load(pr->skel);
	if (e) {
		pr_warn("cannot load the profile's BPF programs: %s%s\n", strerror(-e),
			geteuid() ? " (run as root, or with CAP_BPF and CAP_PERFMON)" : "");
		return -1;
	}
	e = profile_bpf__attach(pr->skel);
	if (e) {
		pr_warn("cannot attach the profile's BPF programs: %s\n", strerror(-e));
		return -1;
	}
	pr->prof_fd = bpf_map__fd(pr->skel->maps.profile);
	pr->stack_fd = bpf_map__fd(pr->skel->maps.stacks);
	pr->cnt_fd = bpf_map__fd(pr->skel->maps.counters);
	pr->ew = execwatch_start(pr->sym, &(struct execwatch_spec){
		.tgid = sp->tgid, .cgroup_hier = sp->cgroup_hier, .cgroup_id = sp->cgroup_id,
		.cgroup_level = sp->cgroup_level, .ns_per_tick = pr->ns_per_tick });
	/* attached: the poller parses untrusted files from now on, unprivileged */
	e = sandbox_enter(&(struct sandbox_spec){ .user = sp->user, .map_fd = pr->prof_fd,
						  .key_size = sizeof(struct sh_prof_key),
						  .out_dirfd = pr->fg_open ? pr->fg.dirfd : -1,
						  .out_what = "--flamegraph" },
			  pr->sym, &pr->brk);
	if (e)
		return e;
	if (sp->tgid)
		sym_process(pr->sym, sp->tgid, 0, 0);	/* -p: its maps now, unprivileged */
	pr_info("profile: %s waits, %u entries, %u stacks at most\n", metric_name(sp->metric),
		sp->max_entries, 2 * sp->max_entries);
	fprintf(stderr, "Tracing where tasks wait (%s)... Hit Ctrl-C to end.\n",
		metric_name(sp->metric));
	return 0;
}

static void finish(struct profile *pr)
{
	profile_bpf__destroy(pr->skel);
	for (size_t i = 0; i < pr->n; i++) {
		free(pr->all[i]->folded);
		free(pr->all[i]->build_ids);
		free(pr->all[i]);
	}
	free(pr->all);
	for (size_t i = 0; i < pr->kcache_n; i++)
		free(pr->kcache[i]);
	free(pr->kcache);
	execwatch_stop(pr->ew);
	sym_free(pr->sym);
	broker_stop(pr->brk);
	ksyms_free(&pr->ks);
	if (pr->fg_open)
		atomic_file_close(&pr->fg);
}

int profile_run(const struct profile_spec *sp)
{
	static struct profile pr;
	__u64 t0, last, next, stop, t;
	__u64 printed = 0;
	int ret;

	pr.sp = sp;
	if (loop_init()) {
		pr_warn("cannot install signal handlers: %s\n", strerror(errno));
		return SH_EXIT_FAIL;
	}
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	ret = start(&pr);
	if (ret) {
		finish(&pr);
		return ret < 0 ? SH_EXIT_FAIL : ret;
	}
	t0 = last = now_ns();
	next = sp->interval_ns ? t0 + sp->interval_ns : 0;
	stop = sp->duration_ns ? t0 + sp->duration_ns : 0;
	ret = SH_EXIT_OK;
	for (;;) {
		__u64 wake = t0 + ((now_ns() - t0) / NSEC_PER_SEC + 1) * NSEC_PER_SEC;
		bool final, due;

		/* a reading every second: new processes' maps read while they run */
		if (next && next < wake)
			wake = next;
		if (stop && stop < wake)
			wake = stop;
		loop_sleep_until(wake);
		t = now_ns();
		final = stop_count() || (stop && t >= stop);
		due = final || (next && t >= next);
		if (due && final)
			profile_bpf__detach(pr.skel);	/* the last report: exact counts */
		if (read_profile(&pr)) {
			pr_warn("cannot read the profile map: %s\n", strerror(errno));
			ret = SH_EXIT_FAIL;
			break;
		}
		if (!due)
			continue;
		if (report(&pr, (double)(t - (sp->cumulative ? t0 : last)) / 1e9)) {
			ret = SH_EXIT_FAIL;
			break;
		}
		last = t;
		printed++;
		if (final || (sp->count && printed >= sp->count))
			break;
		while (next <= t)
			next += sp->interval_ns;
	}
	pr_info("profile totals: seen %llu, recorded %llu, map_full %llu, kernel stacks lost %llu, "
		"user stacks lost %llu; %zu entries, %zu processes (%zu tgids reused, %zu execs), "
		"%zu ELF files\n",
		(unsigned long long)pr.cnt.c[SH_PROF_SEEN],
		(unsigned long long)pr.cnt.c[SH_PROF_RECORDED],
		(unsigned long long)pr.cnt.c[SH_PROF_MAP_FULL],
		(unsigned long long)pr.cnt.c[SH_PROF_KSTACK_LOST],
		(unsigned long long)pr.cnt.c[SH_PROF_USTACK_LOST], pr.n, sym_nprocs(pr.sym),
		sym_nreused(pr.sym), sym_nexecs(pr.sym), sym_nfiles(pr.sym));
	finish(&pr);
	return ret;
}
