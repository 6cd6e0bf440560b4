// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The SVG latency heatmap: its columns, one per report, and the file (heatmap_svg.c draws). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/heatmap.h"
#include "output/render.h"
#include "lib/escape.h"
#include "lib/log.h"
#include "lib/util.h"

static void init_common(struct heatmap *hm, const struct heatmap_spec *sp)
{
	memset(hm, 0, sizeof(*hm));
	hm->file.dirfd = -1;
	hm->metric = sp->metric;
	hm->key_type = sp->key_type;
	hm->lines = sp->lines;
	hm->cumulative = sp->cumulative;
	hm->max_cols = HEATMAP_MAX_COLUMNS;
	if (gethostname(hm->host, sizeof(hm->host) - 1))
		snprintf(hm->host, sizeof(hm->host), "?");
}

/* @hm's columns and buckets in one block, every page written now (resident from the start). */
static int alloc_cols(struct heatmap *hm)
{
	size_t c, size = hm->max_cols * (sizeof(*hm->cols) + (size_t)sh_nb * sizeof(__u64));
	long page = sysconf(_SC_PAGESIZE);
	volatile char *touch;

	hm->cols = calloc(1, size);
	if (!hm->cols)
		return -1;
	touch = (volatile char *)hm->cols;
	for (c = 0; c < size; c += page > 0 ? (size_t)page : 4096)
		touch[c] = 0;
	touch[size - 1] = 0;	/* the last page, where the block does not start on one */
	for (c = 0; c < hm->max_cols; c++)
		hm->cols[c].buckets = (__u64 *)(hm->cols + hm->max_cols) + c * (size_t)sh_nb;
	return 0;
}

int heatmap_init(struct heatmap *hm, const struct heatmap_spec *sp, char *err,
		 size_t errlen)
{
	init_common(hm, sp);
	hm->path = sp->path;
	hm->key = sp->key;
	if (hm->key) {
		/* the key as the reports print it: escapes stand for the name's bytes */
		hm->key_raw = malloc(strlen(hm->key) + 1);
		if (!hm->key_raw) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (name_unescape(hm->key, hm->key_raw, strlen(hm->key) + 1))
			strcpy(hm->key_raw, hm->key);	/* not an escaped name: the bytes as given */
	}
	if (alloc_cols(hm)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* checks the path and opens its directory; nothing is written yet */
	return hm->path ? atomic_file_open(&hm->file, "--heatmap", hm->path, err, errlen) : 0;
}

int heatmap_init_mem(struct heatmap *hm, const struct heatmap_spec *sp, size_t max_cols)
{
	init_common(hm, sp);
	hm->max_cols = max_cols < HEATMAP_MAX_COLUMNS ? max_cols : HEATMAP_MAX_COLUMNS;
	hm->inline_svg = true;
	return alloc_cols(hm);
}

void heatmap_free(struct heatmap *hm)
{
	/* never set up (zeroed): nothing to free, and file.dirfd 0 is not ours */
	if (!hm->max_cols)
		return;
	free(hm->cols);
	free(hm->key_raw);
	atomic_file_close(&hm->file);
	memset(hm, 0, sizeof(*hm));
	hm->file.dirfd = -1;
}

static const struct totals *pick(const struct report *r, const char *key)
{
	size_t i;

	if (!key)
		return &r->all;
	for (i = 0; i < r->nall; i++)
		if (!strcmp(r->groups[i].name, key))
			return &r->groups[i].t;
	return NULL;
}

int heatmap_add(struct heatmap *hm, const struct report *r)
{
	const struct totals *t = pick(r, hm->key_raw);
	struct hm_column *c;
	__u64 *b;
	int i;

	if (t)
		hm->key_seen = true;
	else if (!hm->key_seen && !hm->warned) {
		char key[HM_KEY_SHOWN + 8];

		/* a mistyped key draws an empty map: say so once, it may still come */
		if (name_escape(key, HM_KEY_SHOWN, hm->key_raw) >= HM_KEY_SHOWN)
			strcat(key, "...");
		pr_warn("--heatmap-key '%s': no such %s in this report; the heatmap says "
			"\"no waits for %s\" until it has some\n", key, key_name(hm->key_type), key);
		hm->warned = true;
	}
	/* a window of the latest columns: the oldest one makes room */
	if (hm->ncols == hm->max_cols) {
		b = hm->cols[0].buckets;	/* its buckets go to the new column */
		memmove(hm->cols, hm->cols + 1, (hm->max_cols - 1) * sizeof(*hm->cols));
		hm->ncols--;
		hm->cols[hm->ncols].buckets = b;
	}
	hm->total++;
	c = &hm->cols[hm->ncols++];
	b = c->buckets;
	memset(c, 0, sizeof(*c));
	c->buckets = b;
	c->when = r->when;
	/* since start: the column covers what is new since the previous report */
	c->span_s = hm->cumulative ? r->span_s - hm->prev_span : r->span_s;
	hm->prev_span = r->span_s;
	c->seen = t != NULL;
	/* since start, the max is the run's, not the column's: unknown */
	c->max_ns = t && !hm->cumulative ? t->max_ns : 0;
	for (i = 0; i < sh_nb; i++) {
		__u64 v = t ? t->buckets[i] : 0;

		if (hm->cumulative) {
			c->buckets[i] = v >= hm->prev[i] ? v - hm->prev[i] : 0;
			hm->prev[i] = v;
		} else {
			c->buckets[i] = v;
		}
	}
	return 0;
}

static int svg_fill(FILE *out, void *hm)
{
	heatmap_svg(out, hm);
	return 0;
}

static int write_svg(struct heatmap *hm, bool first)
{
	return first ? atomic_file_write_fill(&hm->file, svg_fill, hm)
		     : atomic_file_update_fill(&hm->file, svg_fill, hm);
}

int heatmap_write_first(struct heatmap *hm)
{
	return write_svg(hm, true);
}

int heatmap_write(struct heatmap *hm)
{
	int err = write_svg(hm, false);

	/* a failed write was warned about by atomic_file_update(): go on */
	return err == -ENOMEM ? err : 0;
}
