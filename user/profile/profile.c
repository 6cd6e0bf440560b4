// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --profile: load bpf/profile.bpf.c, read its maps on the loop's schedule, report (profile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "schedhist.h"
#include "schedhist_profile.h"
#include "profile.skel.h"
#include "lib/atomic_file.h"
#include "lib/clock.h"
#include "lib/exit_codes.h"
#include "lib/log.h"
#include "lib/loop.h"
#include "lib/names.h"
#include "profile/execwatch.h"
#include "profile/profile.h"
#include "profile/prof_report.h"
#include "profile/prof_table.h"
#include "profile/sandbox.h"

/* The period of readings (new processes' maps read while they run) and of the stacks' GC. */
#define READ_NS NSEC_PER_SEC
#define GC_NS (2 * NSEC_PER_SEC)

struct profile {
	const struct profile_spec *sp;
	struct profile_bpf *skel;
	struct prof_table t;
	struct ksyms ks;
	struct atomic_file fg, pp;
	bool fg_open, pp_open;
	struct broker *brk;		/* opens files for the unprivileged poller */
	struct execwatch *ew;		/* new programs' maps read while they run */
};

/* /proc/TGID/stat, through the broker once the poller runs unprivileged */
static int open_stat(void *arg, __u32 tgid)
{
	struct profile *pr = arg;

	return pr->brk ? broker_open(pr->brk, SYM_STAT, tgid, 0, 0, 0, NULL)
		       : sym_open_direct("/proc", SYM_STAT, tgid, 0, 0, 0, NULL);
}

/* Once attached: the exec watcher, then the broker and the privilege drop. 0 or an exit code. */
static int sandbox(struct profile *pr)
{
	const struct profile_spec *sp = pr->sp;
	struct atomic_file *out = pr->fg_open ? &pr->fg : pr->pp_open ? &pr->pp : NULL;
	int e;

	pr->ew = execwatch_start(pn_sym(pr->t.names), &(struct execwatch_spec){
		.tgid = sp->tgid, .cgroup_hier = sp->cgroup_hier, .cgroup_id = sp->cgroup_id,
		.cgroup_level = sp->cgroup_level,
		.ns_per_tick = NSEC_PER_SEC / (__u64)sysconf(_SC_CLK_TCK) });
	/* attached: the poller parses untrusted files from now on, unprivileged */
	e = sandbox_enter(&(struct sandbox_spec){ .user = sp->user, .map_fd = pr->t.prof_fd,
						  .key_size = sizeof(struct sh_prof_key),
						  .out_dirfd = out ? out->dirfd : -1,
						  .out_what = pr->fg_open ? "--flamegraph" : "--pprof" },
			  pn_sym(pr->t.names), &pr->brk);
	if (e)
		return e;
	if (sp->tgid)
		pn_process(pr->t.names, sp->tgid);	/* -p: its maps now, unprivileged */
	return 0;
}

static int open_files(struct profile *pr)
{
	char err[256];

	if (pr->sp->flamegraph) {
		if (atomic_file_open(&pr->fg, "--flamegraph", pr->sp->flamegraph, err, sizeof(err))) {
			pr_warn("%s\n", err);
			return SH_EXIT_USAGE;
		}
		pr->fg_open = true;
	}
	if (pr->sp->pprof) {
		if (atomic_file_open(&pr->pp, "--pprof", pr->sp->pprof, err, sizeof(err))) {
			pr_warn("%s\n", err);
			return SH_EXIT_USAGE;
		}
		pr->pp_open = true;
	}
	return 0;
}

static void configure(struct profile *pr)
{
	const struct profile_spec *sp = pr->sp;
	struct profile_bpf *s = pr->skel;

	s->rodata->metric = sp->metric;
	s->rodata->filter_tgid = sp->tgid;
	s->rodata->cgroup_hier = sp->cgroup_hier;
	s->rodata->filter_cgid = sp->cgroup_id;
	s->rodata->filter_cglevel = sp->cgroup_level;
	s->rodata->stack_kinds = sp->stack_kinds;
	s->rodata->sample_fixed_p = sp->sample_p;
	s->rodata->sample_ns = sp->sample_ns ? sp->sample_ns : SH_PROF_SAMPLE_NS;
	bpf_map__set_max_entries(s->maps.profile, sp->max_entries);
	bpf_map__set_max_entries(s->maps.ustacks, 2 * sp->max_entries);
	/* offcpu needs no wakeups: the wait is the whole off-CPU period */
	bpf_program__set_autoload(s->progs.profile_wakeup, sp->metric != SH_METRIC_OFFCPU);
}

static int start(struct profile *pr)
{
	const struct profile_spec *sp = pr->sp;
	int e;

	pr->t.ncpus = libbpf_num_possible_cpus();
	if (pr->t.ncpus <= 0) {
		pr_warn("cannot count the possible CPUs: %s\n", strerror(-pr->t.ncpus));
		return -1;
	}
	if ((e = open_files(pr)))
		return e;
	/* before the load: real addresses need the privileges we start with */
	if (ksyms_load(&pr->ks, "/proc/kallsyms"))
		pr_warn("cannot read /proc/kallsyms: kernel frames shown as addresses\n");
	pr->skel = profile_bpf__open();
	if (!pr->skel) {
		pr_warn("cannot open the profile's BPF object: %s\n", strerror(errno));
		return -1;
	}
	configure(pr);
	e = profile_bpf__load(pr->skel);
	if (e) {
		pr_warn("cannot load the profile's BPF programs: %s%s\n", strerror(-e),
			geteuid() ? " (run as root, or with CAP_BPF and CAP_PERFMON)" : "");
		return -1;
	}
	pr->t.prof_fd = bpf_map__fd(pr->skel->maps.profile);
	pr->t.kfd = bpf_map__fd(pr->skel->maps.kstacks);
	pr->t.ufd = bpf_map__fd(pr->skel->maps.ustacks);
	pr->t.cnt_fd = bpf_map__fd(pr->skel->maps.counters);
	pr->t.names = pn_new(&pr->ks, pr->t.kfd, pr->t.ufd);
	if (!pr->t.names) {
		pr_warn("out of memory\n");
		return -1;
	}
	pr->t.open_stat = open_stat;
	pr->t.open_arg = pr;
	e = profile_bpf__attach(pr->skel);
	if (e) {
		pr_warn("cannot attach the profile's BPF programs: %s\n", strerror(-e));
		return -1;
	}
	if ((e = sandbox(pr)))
		return e;
	pr_info("profile: %s waits, %u entries, %u kernel and %u user stacks at most\n",
		metric_name(sp->metric), sp->max_entries, SH_PROF_KSTACKS, 2 * sp->max_entries);
	fprintf(stderr, "Tracing where tasks wait (%s)... Hit Ctrl-C to end.\n",
		metric_name(sp->metric));
	return 0;
}

static void finish(struct profile *pr)
{
	profile_bpf__destroy(pr->skel);
	table_free(&pr->t);
	execwatch_stop(pr->ew);
	pn_free(pr->t.names);
	broker_stop(pr->brk);
	ksyms_free(&pr->ks);
	if (pr->fg_open)
		atomic_file_close(&pr->fg);
	if (pr->pp_open)
		atomic_file_close(&pr->pp);
}

static int report(struct profile *pr, __u64 t, __u64 t0, __u64 last)
{
	const struct profile_spec *sp = pr->sp;

	if (prof_report(&pr->t, sp, (double)(t - (sp->cumulative ? t0 : last)) / 1e9))
		return -1;
	if (pr->fg_open && prof_flamegraph(&pr->t, sp, &pr->fg))
		return -1;
	if (pr->pp_open && prof_pprof(&pr->t, sp, (double)(t - t0) / 1e9, &pr->pp))
		return -1;
	return 0;
}

/* Readings every READ_NS, reports on the interval's grid, until the end. The exit code. */
static int run(struct profile *pr)
{
	const struct profile_spec *sp = pr->sp;
	__u64 t0 = now_ns(), last = t0, read_next = t0 + READ_NS, t;
	__u64 next = sp->interval_ns ? t0 + sp->interval_ns : 0;
	__u64 stop = sp->duration_ns ? t0 + sp->duration_ns : 0, printed = 0;

	for (;;) {
		__u64 wake = read_next;
		bool final, due;

		if (next && next < wake)
			wake = next;
		if (stop && stop < wake)
			wake = stop;
		loop_sleep_until(wake);
		t = now_ns();
		final = stop_count() || (stop && t >= stop);
		due = final || (next && t >= next);
		if (final)
			profile_bpf__detach(pr->skel);	/* the last report: exact counts */
		if (table_read(&pr->t) || table_gc(&pr->t, t, GC_NS)) {
			pr_warn("cannot read the profile's maps: %s\n", strerror(errno));
			return SH_EXIT_FAIL;
		}
		read_next = schedule_next(read_next, t, READ_NS);
		if (!due)
			continue;
		if (report(pr, t, t0, last))
			return SH_EXIT_FAIL;
		last = t;
		if (final || (sp->count && ++printed >= sp->count))
			return SH_EXIT_OK;
		next = schedule_next(next, t, sp->interval_ns);
	}
}

int profile_run(const struct profile_spec *sp)
{
	static struct profile pr;
	size_t procs, reused, execs, files;
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
	ret = run(&pr);
	pn_sym_counts(pr.t.names, &procs, &reused, &execs, &files);
	pr_info("profile totals: seen %llu, walked %llu, recorded %llu, map_full %llu, kernel "
		"stacks lost %llu, user stacks lost %llu; %zu entries (%llu removed from the "
		"kernel), %llu kernel and %llu user stacks removed, %zu processes (%zu tgids "
		"reused, %zu execs), %zu ELF files\n",
		(unsigned long long)pr.t.cnt.c[SH_PROF_SEEN],
		(unsigned long long)pr.t.cnt.c[SH_PROF_WALKED],
		(unsigned long long)pr.t.cnt.c[SH_PROF_RECORDED],
		(unsigned long long)pr.t.cnt.c[SH_PROF_MAP_FULL],
		(unsigned long long)pr.t.cnt.c[SH_PROF_KSTACK_LOST],
		(unsigned long long)pr.t.cnt.c[SH_PROF_USTACK_LOST], pr.t.n,
		(unsigned long long)pr.t.removed, (unsigned long long)pr.t.kremoved,
		(unsigned long long)pr.t.uremoved, procs, reused, execs, files);
	if (pr.ew) {
		execwatch_end(pr.ew);
		pr_info("exec watcher: %llu execve()s seen, %llu programs' maps read at once, "
			"%llu missed (overwritten in the exec log before a poll took them)\n",
			(unsigned long long)execwatch_seen(pr.ew),
			(unsigned long long)execwatch_read(pr.ew),
			(unsigned long long)execwatch_missed(pr.ew));
	}
	finish(&pr);
	return ret;
}
