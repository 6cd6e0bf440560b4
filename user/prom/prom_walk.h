/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The samples of an exposition, walked once for every encoding (text, OpenMetrics, protobuf):
 * family by family, each sample's labels in order and its value or histogram.
 */
#ifndef SH_PROM_WALK_H
#define SH_PROM_WALK_H

#include <stdbool.h>
#include "prom/prom_series.h"

/* Labels of a sample at most: metric, key_type, key, five cgroup names, two more. */
#define PROM_LABELS_MAX 10

struct prom_label {
	const char *name;
	const char *value;
	bool is_name;			/* a name (a key, comm, culprit): escaped (escape.h) */
};

/* One sample; valid during the encoder's call only. */
struct prom_sample {
	int family;			/* enum prom_family_id */
	struct prom_label label[PROM_LABELS_MAX];
	int nlabels;
	__u64 value;			/* not a histogram: a count, or ns (@seconds) */
	bool seconds;			/* @value is ns, written as seconds */
	const struct totals *hist;	/* a histogram: its buckets and sum */
	const struct prom_max *exemplar; /* ... the interval's worst wait, or NULL */
};

/* An encoding: what it writes at a family's start and end, and per sample. 0 or -1. */
struct prom_encoder {
	int (*family)(void *ctx, int family, const char *help);
	int (*sample)(void *ctx, const struct prom_sample *s);
	int (*family_end)(void *ctx, int family);	/* may be NULL */
};

/* Walk the families present in the @nv views and their samples ([other] last). 0 or -1. */
int prom_walk(const struct prom_view *views, size_t nv, const struct prom_encoder *enc,
	      void *ctx);

#endif /* SH_PROM_WALK_H */
