/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Fleet mode (--listen, --prom-file): after each report tick the views are updated, rendered
 * into kept buffers and published to the HTTP server and the file.
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

/* Before loading: bind --listen, open the --prom-file directory. 0 (also if off) or exit code. */
int exporter_open(struct exporter *x, const struct exporter_spec *sp);

/* Once attached and unprivileged (@as_user): publish the empty view, serve. 0 or an exit code. */
int exporter_start(struct exporter *x, const char *as_user);

/*
 * After each report tick, before snapshot_gc() and culprits_sweep(): add @t's every-key reports
 * and their extras to the views; publish. 0, or -1 when out of memory.
 */
int exporter_publish(struct exporter *x, const struct tick *t);

void exporter_close(struct exporter *x);

#endif /* SH_EXPORTER_H */
