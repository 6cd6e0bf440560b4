// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * schedhist: parse, set up, loop over ticks, tear down. A tick reads the maps (to keep
 * 32-bit counters exact) or is a report tick that feeds every output; docs/architecture.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "schedhist.h"
#include "lib/clock.h"
#include "lib/hugemem.h"
#include "lib/log.h"
#include "lib/loop.h"
#include "model/cgroup.h"
#include "model/cgroup_names.h"
#include "model/hist.h"
#include "model/tick.h"
#include "kernel/extra_read.h"
#include "kernel/kernel_probe.h"
#include "kernel/loader.h"
#include "kernel/privdrop.h"
#include "kernel/snapshot_read.h"
#include "output/live.h"
#include "output/outputs.h"
#include "prom/prom_outputs.h"
#include "profile/profile.h"
#include "cli/options.h"
#include "cli/specs.h"

/* Outputs at most: stdout, heatmap, exporter, live page, live view. */
#define MAX_OUTPUTS 5

/* Everything the poller holds; zeroed at start, so teardown() frees any part made. */
struct poller {
	struct options o;
	struct loader l;
	struct snap_reader rd;
	struct snapshot snaps[SH_METRIC_NR];
	int nsnap;				/* metrics measured: snapshots made */
	struct tick tick;			/* the reports of the last reading, for every output */
	struct cgroups cg;
	bool use_cg;				/* cgroup names or the -c filter needed */
	struct read_maps maps;
	struct output outs[MAX_OUTPUTS];
	int nout;
	struct exporter *ex;			/* fleet mode's output */
	struct user user;			/* fleet mode: whom to switch to once attached */
	struct extras xt;			/* --culprits, --stacks, --causes */
};

/*
 * The longest time between readings: SH_READ_PERIOD_S, or less if the event rate (@seen
 * over @t) would reach 2^31 in it (half the 32-bit range: margin for a doubling).
 */
static __u64 read_period(__u64 seen, __u64 t, __u64 *seen_last)
{
	static __u64 t_last;
	__u64 p = SH_READ_PERIOD_S * NSEC_PER_SEC, dt = t - t_last;

	*seen_last += seen;
	t_last = t;
	if (seen && dt && (double)seen * p / dt > (double)(1ULL << 31))
		p = (__u64)((double)(1ULL << 31) * dt / seen);
	return p < NSEC_PER_SEC / 10 ? NSEC_PER_SEC / 10 : p;
}

/* privdrop()'s check that polling still works: a read of the per-CPU array. */
static int probe_maps(void *arg)
{
	struct poller *p = arg;

	return reader_probe(&p->rd, &p->maps);
}

static int setup_cgroups(const struct options *o, struct cgroups *cg, bool *use_cg,
			 struct cgroup_cfg *cfg)
{
	char err[512];

	memset(cfg, 0, sizeof(*cfg));
	cfg->hier = SH_CGROUP_V2;
	*use_cg = o->key_type == SH_KEY_CGROUP || o->cgroup_path;
	if (!*use_cg)
		return 0;
	if (o->cgroup_hier) {
		cfg->hier = probe_cgroup_subsys_id(o->cgroup_hier);
		if (cfg->hier < 0) {
			pr_warn("unknown cgroup controller '%s': not a controller of this kernel "
				"(cgroup_subsys_id in its BTF)\n", o->cgroup_hier);
			return SH_EXIT_USAGE;
		}
	}
	if (cg_open(cg, o->cgroup_hier)) {
		if (o->cgroup_hier)
			pr_warn("no cgroup v1 hierarchy with controller '%s' is mounted "
				"(see /proc/self/mountinfo)\n", o->cgroup_hier);
		else
			pr_warn("no cgroup2 hierarchy is mounted (see /proc/self/mountinfo): "
				"-k cgroup and -c need one, or --cgroup-hier CTRL for v1\n");
		return SH_EXIT_USAGE;	/* like a missing BTF: a host it cannot run on */
	}
	if (o->cgroup_path) {
		if (cg_lookup(cg, o->cgroup_path, &cfg->filter_id, &cfg->filter_level, err,
			      sizeof(err))) {
			pr_warn("%s\n", err);
			return SH_EXIT_USAGE;
		}
	}
	/* a directory named like a unit is one only where systemd manages the hierarchy */
	cg_names_systemd(cg_systemd_detect(cg->mount, "/run/systemd/system"));
	pr_info("cgroup hierarchy %s at %s (%s)\n", o->cgroup_hier ? o->cgroup_hier : "cgroup2",
		cg->mount, cg_systemd_detect(cg->mount, "/run/systemd/system")
				   ? "managed by systemd: unit names shown"
				   : "not managed by systemd: no unit names");
	return 0;
}

/* One reading into the snapshots, folds held off; @fresh: a new interval. 0, or -1 after why. */
static int read_maps(struct loader *l, struct snapshot *snaps, int nsnap,
		     struct snap_reader *rd, const struct read_maps *maps, struct extras *xt,
		     bool fresh)
{
	int err;

	loader_read_begin(l);
	err = snapshot_read(snaps, nsnap, rd, maps, loader_next_epoch(l), fresh);
	loader_read_end(l);
	if (err) {
		pr_warn("cannot read BPF maps: %s\n", strerror(-err));
		return -1;
	}
	err = extras_read(xt, maps->pcpu_fd, rd->pcpu, l->ncpus, fresh);
	if (err)
		pr_warn("cannot read the %s map: %s\n", xt->culprits ? "culprit or cause" : "cause",
			strerror(-err));
	return err ? -1 : 0;
}


static int setup_outputs(struct poller *p)
{
	const struct options *o = &p->o;
	struct render_spec rs = render_spec_of(o);
	struct heatmap_spec hs = heatmap_spec_of(o);
	struct exporter_spec es = exporter_spec_of(o);
	struct live_page_spec lps = live_page_spec_of(o);
	struct live_spec lvs = live_spec_of(o);
	int ret = 0;

	if (o->print)
		ret = print_output_open(&p->outs[p->nout++], &rs, o->json);
	if (!ret && o->heatmap)
		ret = heatmap_output_open(&p->outs[p->nout++], &hs);
	if (!ret && (o->listen || o->prom_file)) {
		ret = privdrop_fleet_user(o->user, &p->user) ? SH_EXIT_USAGE : 0;
		if (!ret)
			ret = exporter_output_open(&p->outs[p->nout++], &es, &p->ex);
	}
	/* after the exporter: its server is started first, then serves the page */
	if (!ret && o->listen)
		ret = live_page_output_open(&p->outs[p->nout++], &lps, p->ex);
	/* last: the terminal is the view's from its start to its close */
	if (!ret && o->live)
		ret = live_output_open(&p->outs[p->nout++], &lvs);
	return ret;
}

/* One snapshot per metric measured, in enum order (as the kernel's values). */
static int setup_snapshots(struct poller *p)
{
	const struct options *o = &p->o;
	int m;

	for (m = 0; m < SH_METRIC_NR; m++) {
		struct snapshot *s = &p->snaps[p->nsnap];

		if (!(o->metrics & (1U << m)))
			continue;
		if (snapshot_init(s)) {
			pr_warn("out of memory\n");
			return SH_EXIT_FAIL;
		}
		p->nsnap++;
		s->metric = m;
		/* removed cgroups keep their own line in reports since start */
		s->keep_pruned = o->cumulative && o->key_type == SH_KEY_CGROUP;
		/* Buckets since start: only --cumulative reads them (a cost per changed key). */
		s->cum_buckets = o->cumulative;
		s->keep_limit = o->max_keys;	/* bounded: older ones fold into [exited] */
	}
	return 0;
}

/*
 * Everything before the first tick, failing early: what the command line names before any
 * load, privileges dropped once attached, then the outputs. 0 or an exit code.
 */
static int setup(struct poller *p)
{
	const struct options *o = &p->o;
	struct cgroup_cfg cgcfg;
	struct loader_spec ls;
	int ret, i;

	if ((ret = options_check_pid(o)))
		return ret;
	log_set_level(o->verbose);
	/* the bucket grid (--schema) first: every histogram, kernel or not, is sized by it */
	grid_set((int)o->schema);
	tick_init(&p->tick, &(struct tick_spec){
		.report = report_spec_of(o), .every_key = o->listen || o->prom_file,
		.every_key_stacks = o->stacks && o->listen, .culprits = o->culprits,
		.stacks = o->stacks, .causes = o->causes, .cgstat = o->key_type == SH_KEY_CGROUP });
	/* a host or container schedhist cannot run on is a usage error, like a bad option */
	if (probe_preflight())
		return SH_EXIT_USAGE;
	if ((ret = setup_cgroups(o, &p->cg, &p->use_cg, &cgcfg)))
		return ret;
	if (loop_init()) {
		pr_warn("cannot install signal handlers: %s\n", strerror(errno));
		return SH_EXIT_FAIL;
	}
	if ((ret = setup_outputs(p)) || (ret = setup_snapshots(p)))
		return ret;
	ls = loader_spec_of(o, &cgcfg);
	if ((ret = loader_start(&p->l, &ls)))
		return ret == -2 ? SH_EXIT_USAGE : SH_EXIT_FAIL;
	for (i = 0; i < p->nsnap; i++) {
		p->snaps[i].method = p->l.method;
		p->snaps[i].clock = p->l.clock;
		p->snaps[i].kmem = (struct kmem_usage){ .bytes = p->l.kmem_bytes,
							 .budget = p->l.kmem_budget,
							 .keys = p->l.max_keys,
							 .cache_entries = p->l.nr_slots ?
									  p->l.cache_entries : 0 };
	}
	if (reader_init(&p->rd, p->l.ncpus, p->l.nmetrics)) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	if (o->pid && kill(o->pid, 0) && errno == ESRCH) {
		pr_warn("process %d exited while schedhist was starting\n", o->pid);
		return SH_EXIT_FAIL;
	}
	p->maps = loader_maps(&p->l, o->key_type);
	/* --stacks reads /proc/kallsyms: before any privilege drop */
	if (extras_init(&p->xt, o->culprits, o->culprit_mode, o->stacks, o->causes,
			o->cumulative, p->l.culprit_fd, p->l.stack_fd, p->l.cause_fd))
		return SH_EXIT_FAIL;
	if (p->use_cg)
		cg_walk(&p->cg, 0);
	if (p->use_cg && tick_start(&p->tick, &p->cg)) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	/* fleet mode: drop privileges (a map read checks the fds stay usable), then serve */
	if (p->ex && privdrop(&p->user, probe_maps, p))
		return SH_EXIT_FAIL;
	for (i = 0; i < p->nout; i++)
		if (p->outs[i].start &&
		    (ret = p->outs[i].start(p->outs[i].ctx, p->user.set ? p->user.name : NULL)))
			return ret;

	/* On stderr (never mixed with JSON; tests wait for it); say what the default measures. */
	fprintf(stderr, "Tracing %s%s%s... Hit Ctrl-C to end.\n", metric_words(o->metric),
		o->metric == SH_METRIC_OFFCPU ? ", sleeping included (-M runq: waiting for a CPU)"
					      : "", o->pid ? " of one process" : "");
	return 0;
}

/*
 * A report tick spanning @span_s: build, feed the outputs, forget what is gone. 0 to go on;
 * 1 to end after it (*@ret says how); -1 to end now (*@ret set).
 */
static int report_tick(struct poller *p, double span_s, int *ret)
{
	struct tick_sources src = extras_sources(&p->xt);
	int i, end = 0;

	for (i = 0; i < p->nsnap; i++)
		if (p->snaps[i].wraps) {
			pr_warn("more than 2^32 events between two readings: counts of "
				"this interval may be short by multiples of 2^32\n");
			p->snaps[i].wraps = 0;
		}
	if (tick_build(&p->tick, p->snaps, p->nsnap, p->use_cg ? &p->cg : NULL, &src, span_s)) {
		pr_warn("out of memory\n");
		*ret = SH_EXIT_FAIL;
		return -1;
	}
	for (i = 0; i < p->nout; i++) {
		switch (p->outs[i].emit(p->outs[i].ctx, &p->tick)) {
		case OUT_OK:
			break;
		case OUT_DONE:
			end = 1;
			break;
		case OUT_FAILED:
			*ret = SH_EXIT_FAIL;
			end = 1;
			break;
		case OUT_FATAL:
			*ret = SH_EXIT_FAIL;
			return -1;
		}
	}
	extras_done(&p->xt, p->snaps, p->nsnap);
	for (i = 0; i < p->nsnap; i++)
		snapshot_gc(&p->snaps[i]);
	return end;
}

/* Ticks until a stop signal, -d, the count, or an output ends the run. The exit code. */
static int run(struct poller *p)
{
	const struct options *o = &p->o;
	__u64 start, last, next = 0, deadline = 0, printed = 0, last_read, period, seen_last = 0;
	bool fresh = true;
	int ret = SH_EXIT_OK, end;

	start = last = last_read = now_ns();
	if (o->interval_ns)
		next = start + o->interval_ns;
	if (o->duration_ns)
		deadline = start + o->duration_ns;
	/* Kernel counters are 32 bits per CPU: read at least every SH_READ_PERIOD_S. */
	period = SH_READ_PERIOD_S * NSEC_PER_SEC;

	for (;;) {
		__u64 wake = next, t;
		bool final = false;

		if (deadline && (!wake || deadline < wake))
			wake = deadline;
		if (!wake || last_read + period < wake)
			wake = last_read + period;
		loop_sleep_until(wake);
		t = now_ns();
		if (stop_count() || (deadline && t >= deadline))
			final = true;
		else if (!next || t < next) {
			if (t < last_read + period)
				continue;
			if (read_maps(&p->l, p->snaps, p->nsnap, &p->rd, &p->maps, &p->xt, fresh))
				return SH_EXIT_FAIL;
			fresh = false;
			last_read = t;
			period = read_period(p->snaps[0].stats_cum[SH_STAT_SEEN] - seen_last, t,
					     &seen_last);
			continue;
		}

		if (final && o->interval_ns && t == last)
			break;
		/* the last report: exact counts, nothing runs once detached */
		if (final || (o->count && printed + 1 >= o->count))
			loader_detach(&p->l);
		if (read_maps(&p->l, p->snaps, p->nsnap, &p->rd, &p->maps, &p->xt, fresh))
			return SH_EXIT_FAIL;
		fresh = true;
		last_read = t;
		end = report_tick(p, (double)(t - (o->cumulative ? start : last)) / 1e9, &ret);
		if (end < 0)
			break;
		period = read_period(p->snaps[0].stats_cum[SH_STAT_SEEN] - seen_last, t, &seen_last);
		heap_trim(t);
		last = t;
		printed++;
		if (end || final || (o->count && printed >= o->count))
			break;
		if (o->interval_ns)
			next = schedule_next(next, t, o->interval_ns);
	}
	return ret;
}

static void print_totals(struct poller *p)
{
	char events[256];
	int i, j, n;

	for (i = 0; i < p->nsnap; i++) {
		struct snapshot *s = &p->snaps[i];

		for (j = 0, n = 0; j < SH_NEVENT_STATS; j++)
			n += snprintf(events + n, sizeof(events) - (size_t)n, ", %s %llu",
				      stat_name(sh_event_stats[j]),
				      (unsigned long long)s->stats_cum[sh_event_stats[j]]);
		pr_info("totals %s: seen %llu, recorded into histograms %llu%s; "
			"keys made %llu, reclaimed by the kernel %llu, removed by the poller %llu\n",
			metric_name(s->metric), (unsigned long long)s->stats_cum[SH_STAT_SEEN],
			(unsigned long long)snapshot_recorded(s), events,
			(unsigned long long)loader_keys_made(&p->l),
			(unsigned long long)p->rd.reclaimed, (unsigned long long)p->rd.pruned);
	}
}

/* The one cleanup path: frees whatever setup() made, in reverse. */
static void teardown(struct poller *p)
{
	int i;

	for (i = p->nout - 1; i >= 0; i--)
		p->outs[i].close(p->outs[i].ctx);
	tick_free(&p->tick);
	for (i = 0; i < p->nsnap; i++)
		snapshot_free(&p->snaps[i]);
	extras_free(&p->xt);
	reader_free(&p->rd);
	loader_close(&p->l);
	cg_close(&p->cg);
}

/* --profile: its own loader (profile.h), -c resolved as the histograms do; the exit code. */
static int profile(const struct options *o)
{
	struct cgroup_cfg cgcfg;
	struct cgroups cg = { 0 };
	struct profile_spec sp;
	bool use_cg;
	int ret = options_check_pid(o);

	if (ret)
		return ret;
	log_set_level(o->verbose);
	if (probe_preflight())
		return SH_EXIT_USAGE;
	ret = setup_cgroups(o, &cg, &use_cg, &cgcfg);
	cg_close(&cg);
	if (ret)
		return ret;
	sp = profile_spec_of(o, &cgcfg);
	return profile_run(&sp);
}

int main(int argc, char **argv)
{
	static struct poller p;
	int ret;

	heap_map_big();
	ret = parse_options(argc, argv, &p.o);
	if (ret >= 0)
		return ret;
	if (p.o.profile)
		return profile(&p.o);
	ret = setup(&p);
	if (!ret) {
		ret = run(&p);
		print_totals(&p);
	}
	teardown(&p);
	return ret;
}
