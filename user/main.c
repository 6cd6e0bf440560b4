// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * schedhist: options -> loader -> poll loop. Each tick reads the kernel's
 * cumulative maps into a snapshot (sums CPUs, diffs the previous reading),
 * builds one report and hands it to the renderers.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "schedhist.h"
#include "options.h"
#include "loader.h"
#include "snapshot_read.h"
#include "report.h"
#include "render.h"
#include "heatmap.h"
#include "exporter.h"
#include "cgroup.h"
#include "loop.h"
#include "log.h"



static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + (__u64)ts.tv_nsec;
}

/*
 * The longest time between two readings: SH_READ_PERIOD_S, or less when
 * the events seen since the last call (@seen, over @t - the previous
 * call) would reach 2^31 in that time (half the 32-bit range: margin for
 * a rate that doubles).
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

/* Resolve the cgroup options; 0, or an exit code after printing why. */
static int setup_cgroups(const struct options *o, struct sh_cgroups *cg, bool *use_cg,
			 struct sh_cgroup_cfg *cfg)
{
	char err[512];

	memset(cfg, 0, sizeof(*cfg));
	cfg->hier = SH_CGROUP_V2;
	*use_cg = o->key_type == SH_KEY_CGROUP || o->cgroup_path;
	if (!*use_cg)
		return 0;
	if (o->cgroup_hier) {
		cfg->hier = loader_cgroup_subsys_id(o->cgroup_hier);
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
		return SH_EXIT_FAIL;
	}
	if (o->cgroup_path) {
		if (cg_lookup(cg, o->cgroup_path, &cfg->filter_id, &cfg->filter_level, err,
			      sizeof(err))) {
			pr_warn("%s\n", err);
			return SH_EXIT_USAGE;
		}
	}
	pr_info("cgroup hierarchy %s at %s\n", o->cgroup_hier ? o->cgroup_hier : "cgroup2",
		cg->mount);
	return 0;
}

/*
 * One reading of the kernel maps into the snapshots, with folds held off
 * while it runs; @fresh: it starts an interval. 0, or -1 after saying why.
 */
static int read_maps(struct sh_loader *l, struct sh_snapshot *snaps, int nsnap,
		     struct sh_reader *rd, const struct sh_maps *maps, bool fresh)
{
	int err;

	loader_read_begin(l);
	err = snapshot_read(snaps, nsnap, rd, maps, loader_next_epoch(l), fresh);
	loader_read_end(l);
	if (err)
		pr_warn("cannot read BPF maps: %s\n", strerror(-err));
	return err ? -1 : 0;
}

/*
 * Write one report, whole: rendered into memory first, then written with
 * write_whole(). The memory stream lives as long as the process and is
 * rewound for each report: its buffer grows to the largest report once
 * and is reused, instead of a buffer of tens of kB made and freed per
 * report, which fragments the heap between the snapshot's small blocks
 * (resident memory crept up by kBs a second at -i 1). 0, or its -errno
 * (-EPIPE: the reader is gone).
 */
static int emit(const struct sh_report *r, const struct options *o)
{
	static char *buf;
	static size_t len;
	static FILE *f;
	off_t n;

	if (!f && !(f = open_memstream(&buf, &len)))
		return -ENOMEM;
	rewind(f);
	if (o->json)
		render_json(f, r, o);
	else
		render_text(f, r, o);
	if (fflush(f) || (n = ftello(f)) < 0)
		return -ENOMEM;
	return write_whole(STDOUT_FILENO, buf, (size_t)n);
}

int main(int argc, char **argv)
{
	struct options o;
	struct sh_loader l;
	struct sh_reader rd;
	struct sh_snapshot snaps[SH_METRIC_NR];
	struct sh_report reps[SH_METRIC_NR] = {};
	struct sh_cgroups cg = {};
	struct sh_cgroup_cfg cgcfg;
	struct sh_maps maps;
	struct sh_heatmap hm = {};
	struct sh_exporter ex;
	bool use_cg, out_ok = true, fresh = true;
	int out_err;
	char errbuf[512];
	__u64 start, last, next = 0, deadline = 0, printed = 0, gen = 0, last_read, period;
	__u64 seen_last = 0;
	int ret, err, nsnap = 0, m, i;

	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = options_check_pid(&o);
	if (ret)
		return ret;
	log_set_level(o.verbose);
	ret = setup_cgroups(&o, &cg, &use_cg, &cgcfg);
	if (ret)
		return ret;
	if (loop_init()) {
		pr_warn("cannot install signal handlers: %s\n", strerror(errno));
		return SH_EXIT_FAIL;
	}
	/* a closed stdout would only show at the first report, maybe hours later */
	if (o.print && ((err = fcntl(STDOUT_FILENO, F_GETFL)) < 0 ||
			(err & O_ACCMODE) == O_RDONLY)) {
		pr_warn("standard output is %s: nowhere to print reports\n",
			err < 0 ? "closed" : "open read-only");
		return SH_EXIT_FAIL;
	}
	/* a bad heatmap path fails now, before anything is loaded (nothing is written yet) */
	if (o.heatmap && heatmap_init(&hm, &o, errbuf, sizeof(errbuf))) {
		pr_warn("%s\n", errbuf);
		heatmap_free(&hm);
		return SH_EXIT_USAGE;
	}
	/* what needs privileges: bind --listen, open the --prom-file directory */
	ret = exporter_open(&ex, &o);
	if (ret) {
		exporter_close(&ex);
		return ret;
	}
	/* one snapshot per metric measured, in enum order (as the kernel's values) */
	for (m = 0; m < SH_METRIC_NR; m++) {
		if (!(o.metrics & (1U << m)))
			continue;
		if (snapshot_init(&snaps[nsnap])) {
			pr_warn("out of memory\n");
			exporter_close(&ex);
			for (i = 0; i < nsnap; i++)
				snapshot_free(&snaps[i]);
			return SH_EXIT_FAIL;
		}
		snaps[nsnap].metric = m;
		/* removed cgroups keep their own line in reports since start */
		snaps[nsnap].keep_pruned = o.cumulative && o.key_type == SH_KEY_CGROUP;
		snaps[nsnap].keep_limit = o.max_keys;	/* bounded: older ones fold into [exited] */
		nsnap++;
	}
	if (loader_start(&l, &o, &cgcfg)) {
		exporter_close(&ex);
		for (i = 0; i < nsnap; i++)
			snapshot_free(&snaps[i]);
		cg_close(&cg);
		return SH_EXIT_FAIL;
	}
	for (i = 0; i < nsnap; i++)
		snaps[i].method = l.method;
	if (reader_init(&rd, l.ncpus, l.nmetrics)) {
		pr_warn("out of memory\n");
		ret = SH_EXIT_FAIL;
		goto out;
	}
	if (o.pid && kill(o.pid, 0) && errno == ESRCH) {
		pr_warn("process %d exited while schedhist was starting\n", o.pid);
		ret = SH_EXIT_FAIL;
		goto out;
	}
	maps = (struct sh_maps){ .pcpu_fd = l.pcpu_fd, .hists_fd = l.hists_fd,
				 .key_type = o.key_type, .live_keys = l.live_keys };
	/* name the cgroups of now while every directory can be listed */
	if (use_cg)
		cg_walk(&cg, 0);
	/* fleet mode: drop privileges (the map fds stay usable), then serve */
	ret = exporter_start(&ex, maps.pcpu_fd, rd.pcpu);
	if (ret)
		goto out;
	/* the first write, as the user it runs as from now on, tells at once */
	if (o.heatmap && (err = heatmap_write_first(&hm))) {
		pr_warn("cannot write --heatmap %s: %s%s%s%s\n", o.heatmap, strerror(-err),
			ex.user.set ? " (as user " : "", ex.user.set ? ex.user.name : "",
			ex.user.set ? "; --user names another)" : "");
		ret = SH_EXIT_FAIL;
		goto out;
	}

	/* on stderr, so it never mixes with JSON; tests wait for this line */
	/* the default answers "how long off CPU", not "how long waiting for a CPU": say so */
	fprintf(stderr, "Tracing %s%s%s... Hit Ctrl-C to end.\n", metric_words(o.metric),
		o.metric == SH_METRIC_OFFCPU ? ", sleeping included (-M runq: waiting for a CPU)"
					     : "", o.pid ? " of one process" : "");

	start = last = last_read = now_ns();
	if (o.interval_ns)
		next = start + o.interval_ns;
	if (o.duration_ns)
		deadline = start + o.duration_ns;
	/*
	 * Kernel counters are 32 bits per CPU: read at least every
	 * SH_READ_PERIOD_S (sooner at high event rates, below) whatever the
	 * interval, so that no difference between two readings reaches 2^32.
	 */
	period = SH_READ_PERIOD_S * NSEC_PER_SEC;

	ret = SH_EXIT_OK;
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
			/* a reading between reports: it only keeps the counts exact */
			if (read_maps(&l, snaps, nsnap, &rd, &maps, fresh)) {
				ret = SH_EXIT_FAIL;
				break;
			}
			fresh = false;
			last_read = t;
			period = read_period(snaps[0].stats_cum[SH_STAT_SEEN] - seen_last, t, &seen_last);
			continue;
		}

		if (final) {
			if (o.interval_ns && t == last)
				break;
		}
		if (final || (o.count && printed + 1 >= o.count)) {
			/* the last report: exact counts, nothing runs once detached */
			loader_detach(&l);
		}
		gen++;
		if (read_maps(&l, snaps, nsnap, &rd, &maps, fresh)) {
			ret = SH_EXIT_FAIL;
			break;
		}
		fresh = true;
		last_read = t;
		for (i = 0; i < nsnap; i++) {
			if (snaps[i].wraps) {
				pr_warn("more than 2^32 events between two readings: counts of "
					"this interval may be short by multiples of 2^32\n");
				snaps[i].wraps = 0;
			}
			if (report_build(&reps[i], &snaps[i], &o, use_cg ? &cg : NULL, gen,
					 (double)(t - (o.cumulative ? start : last)) / 1e9))
				break;
		}
		if (i < nsnap) {
			pr_warn("out of memory\n");
			ret = SH_EXIT_FAIL;
			break;
		}
		for (i = 0, out_err = 0; i < nsnap && o.print && !out_err; i++)
			out_err = emit(&reps[i], &o);
		out_ok = !out_err;
		/* the reader went away (EPIPE): a quiet end; anything else is a failure */
		if (out_err == -ECANCELED) {
			pr_warn("cannot write the report: a second stop signal came while the reader "
				"was not reading; the report is cut\n");
			ret = SH_EXIT_FAIL;
		} else if (out_err && out_err != -EPIPE) {
			pr_warn("cannot write the report: %s\n", strerror(-out_err));
			ret = SH_EXIT_FAIL;
		}
		/*
		 * the heatmap shows the first metric measured; a failed write
		 * (disk full) is warned once and retried: like --prom-file
		 */
		if (o.heatmap && (heatmap_add(&hm, &reps[0]) || heatmap_write(&hm))) {
			pr_warn("out of memory\n");
			ret = SH_EXIT_FAIL;
			break;
		}
		if (exporter_publish(&ex, snaps, nsnap, use_cg ? &cg : NULL, gen)) {
			pr_warn("out of memory\n");
			ret = SH_EXIT_FAIL;
			break;
		}
		for (i = 0; i < nsnap; i++)
			snapshot_gc(&snaps[i]);
		period = read_period(snaps[0].stats_cum[SH_STAT_SEEN] - seen_last, t, &seen_last);
		last = t;
		printed++;
		if (!out_ok || final || (o.count && printed >= o.count))
			break;
		if (o.interval_ns)
			next = schedule_next(next, t, o.interval_ns);
	}
	for (i = 0; i < nsnap && o.verbose; i++)
		pr_info("totals %s: seen %llu, recorded into histograms %llu, no_start %llu, "
			"filtered %llu, dropped %llu, map_full %llu, no_mem %llu, clock_skew %llu; "
			"keys made %llu, reclaimed by the kernel %llu, removed by the poller %llu\n",
			metric_name(snaps[i].metric),
			(unsigned long long)snaps[i].stats_cum[SH_STAT_SEEN],
			(unsigned long long)snapshot_recorded(&snaps[i]),
			(unsigned long long)snaps[i].stats_cum[SH_STAT_NO_START],
			(unsigned long long)snaps[i].stats_cum[SH_STAT_FILTERED],
			(unsigned long long)snaps[i].stats_cum[SH_STAT_DROPPED],
			(unsigned long long)snaps[i].stats_cum[SH_STAT_MAP_FULL],
			(unsigned long long)snaps[i].stats_cum[SH_STAT_NO_MEM],
			(unsigned long long)snaps[i].stats_cum[SH_STAT_CLOCK_SKEW],
			(unsigned long long)loader_keys_made(&l), (unsigned long long)rd.reclaimed,
			(unsigned long long)rd.pruned);
out:
	exporter_close(&ex);
	heatmap_free(&hm);
	for (i = 0; i < nsnap; i++) {
		report_free(&reps[i]);
		snapshot_free(&snaps[i]);
	}
	reader_free(&rd);
	loader_close(&l);
	cg_close(&cg);
	return ret;
}
