/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Fleet mode (--listen, --prom-file): after each report tick, the
 * Prometheus views (prom_series.h) are updated from the tick's reports of
 * every key, rendered into the exporter's buffers (kept from one reading
 * to the next) and published to the HTTP server (which copies them) and
 * to the file. Set up in two steps around the loader: what needs
 * privileges (binding the socket, opening the file's directory) before
 * loading, the server thread once the programs are attached and the
 * privileges dropped (main, kernel/privdrop.h).
 */
#ifndef SH_EXPORTER_H
#define SH_EXPORTER_H

#include <stdbool.h>
#include "model/tick.h"
#include "prom/render_prom.h"
#include "prom/http_server.h"
#include "lib/atomic_file.h"
#include "lib/outbuf.h"

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
	struct prom_view view[SH_METRIC_NR];	/* one per metric measured */
	int nviews;
	bool native;			/* serve native histograms (not --prom-classic) */
	struct outbuf page[EXPORT_FORMAT_NR];	/* the view rendered, by enum exporter_format */
};

/* Fleet mode's settings. */
struct exporter_spec {
	const struct listen_addr *listen; /* --listen, parsed; NULL = no server */
	const char *prom_file;		/* --prom-file FILE, NULL = no file */
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
 * Before loading: bind --listen, open the --prom-file directory. 0 (also
 * when fleet mode is off), or an exit code after printing why.
 */
int exporter_open(struct exporter *x, const struct exporter_spec *sp);

/*
 * Once attached, privileges dropped (@as_user: the user switched to, or
 * NULL): publish the empty view, start serving. 0 or an exit code.
 */
int exporter_start(struct exporter *x, const char *as_user);

/*
 * After each report tick, before snapshot_gc() and culprits_sweep(): add
 * tick @t's reports of every key (one per metric, as the views), with
 * their culprits, causes and cgroup counters, to the views; publish. 0,
 * or -1 when out of memory.
 */
int exporter_publish(struct exporter *x, const struct tick *t);

void exporter_close(struct exporter *x);

#endif /* SH_EXPORTER_H */
