/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Fleet mode (--listen, --prom-file): after each reading, the Prometheus
 * view (render_prom.h) is updated, rendered into the exporter's buffers
 * (kept from one reading to the next) and published to the HTTP server
 * (which copies it) and to the file. Set up in two steps
 * around the loader: what needs privileges (binding the socket, opening
 * the file's directory, looking up --user) before loading, and the
 * privilege drop and the server thread once the programs are attached.
 */
#ifndef SH_EXPORTER_H
#define SH_EXPORTER_H

#include <stdbool.h>
#include "model/snapshot.h"
#include "model/report.h"
#include "model/cgstats.h"
#include "model/cgroup.h"
#include "prom/render_prom.h"
#include "prom/http_server.h"
#include "lib/atomic_file.h"
#include "kernel/privdrop.h"
#include "lib/outbuf.h"

struct extras;

/* The expositions rendered every reading. */
enum exporter_format {
	EXPORT_TEXT,			/* Prometheus text 0.0.4 (also --prom-file) */
	EXPORT_OM,			/* OpenMetrics text */
	EXPORT_PROTOBUF,		/* protobuf, with native histograms */
	EXPORT_FORMAT_NR,
};

struct exporter {
	bool on;			/* --listen or --prom-file given */
	bool listening;			/* @http is bound */
	bool filing;			/* @file is open */
	struct http_server http;
	struct atomic_file file;
	struct user user;		/* --user, if set */
	struct prom_view view[SH_METRIC_NR];	/* one per metric measured */
	int nviews;
	struct report interval;	/* the reports the view is built from */
	struct report since_start;
	struct report_spec rspec;	/* theirs: every key (the view bounds keys itself) */
	bool native;			/* serve native histograms (not --prom-classic) */
	struct cgstats cgs;		/* -k cgroup: the readings of the view's counters, its
					 * own (interval deltas whatever the reports' span) */
	struct outbuf page[EXPORT_FORMAT_NR];	/* the view rendered, by enum exporter_format */
};

/* Fleet mode's settings. */
struct exporter_spec {
	const struct listen_addr *listen; /* --listen, parsed; NULL = no server */
	const char *prom_file;		/* --prom-file FILE, NULL = no file */
	const char *user;		/* --user NAME, NULL = the default (root: nobody) */
	__u32 metrics;			/* bit per enum sh_metric: a view each */
	int key_type;			/* enum sh_key_type */
	int sort;			/* enum sort_key: which keys the view keeps */
	__u32 max_series;		/* keys a view keeps (--top, else --max-keys) */
	bool prom_classic;		/* --prom-classic: no native histograms (protobuf) */
	bool culprits;			/* --culprits: the runq view exports culprit series */
	bool causes;			/* --causes: the runq view exports cause series */
	bool stacks;			/* --stacks: schedhist_stacks_lost_total */
	int culprit_mode;		/* --culprit-mode: their culprit_mode label */
	__u64 interval_ns;		/* -i: /healthz calls a reading older than 3 stale */
};

/*
 * Before loading: bind --listen, open the --prom-file directory, look up
 * --user. 0 (also when fleet mode is off), or an exit code after
 * printing why.
 */
int exporter_open(struct exporter *x, const struct exporter_spec *sp);

/*
 * Once attached: drop privileges (the map read through @map_fd into
 * @buf, a buffer for one per-CPU value of that map, checks polling still
 * works). 0 (also when fleet mode is off) or an exit code.
 */
int exporter_drop(struct exporter *x, int map_fd, void *buf);

/* The user switched to, or NULL. */
const char *exporter_user(const struct exporter *x);

/* Then: publish the empty view, start serving. 0 or an exit code. */
int exporter_start(struct exporter *x);

/*
 * After each interval's reading, before snapshot_gc() and
 * culprits_sweep(): add the @n snapshots (one per metric, as the views)
 * to the views, with every culprit of @cul (--culprits, else NULL) and,
 * for -k cgroup, each cgroup's cpu.stat and cpu.pressure (read here);
 * publish. @cg as for report_build() (culprit cgroups not named yet are
 * looked up). @when: the reading's wall clock, as the tick's other reports
 * have it (the exemplars' timestamp); @xt: --stacks' map and symbols
 * (extras_stacks()), or NULL. 0, or -1 when out of memory.
 */
int exporter_publish(struct exporter *x, struct snapshot *snaps, int n,
		     struct cgroups *cg, struct culprits *cul,
		     const struct cause_table *causes, const struct timespec *when,
		     struct extras *xt);

void exporter_close(struct exporter *x);

#endif /* SH_EXPORTER_H */
