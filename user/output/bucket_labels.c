// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The renderers' bucket labels, built once from the grid (bucket_labels.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "output/bucket_labels.h"
#include "lib/fmt.h"
#include "lib/names.h"
#include "model/hist.h"

static struct fmt_label row_label[SH_UNIT_NR][SH_NBUCKETS_MAX];	/* of the grid in use */
static struct fmt_label hist_head[SH_UNIT_NR];
static struct fmt_label json_bucket[SH_NBUCKETS_MAX];
static pthread_once_t labels_once = PTHREAD_ONCE_INIT;

static void make_labels(void)
{
	char lo[32], hi[32];
	int u, i;

	for (u = 0; u < SH_UNIT_NR; u++) {
		hist_head[u].len = (unsigned char)snprintf(hist_head[u].s, FMT_LABEL_MAX,
							   "%10s%-5s%13s : count      distribution\n",
							   "", unit_name(u), "");
		for (i = 0; i < sh_nb; i++) {
			/* a row counts the waits w with lo < w <= hi; the first 0 <= w <= hi */
			if (i == 0)
				snprintf(lo, sizeof(lo), "0");
			else
				fmt_wait(lo, sizeof(lo), bucket_floor(i), u);
			if (bucket_edge(i) == UINT64_MAX)
				snprintf(hi, sizeof(hi), "longer");
			else
				fmt_wait(hi, sizeof(hi), bucket_edge(i), u);
			row_label[u][i].len = (unsigned char)snprintf(row_label[u][i].s, FMT_LABEL_MAX,
								      "%13s -> %-11s : ", lo, hi);
		}
	}
	for (i = 0; i < sh_nb; i++) {
		fmt_u64(lo, bucket_lo(i));
		if (bucket_hi(i) == UINT64_MAX)
			snprintf(hi, sizeof(hi), "null");
		else
			fmt_u64(hi, bucket_hi(i));
		json_bucket[i].len = (unsigned char)snprintf(json_bucket[i].s, FMT_LABEL_MAX,
							     ",{\"lo_ns\":%s,\"hi_ns\":%s,\"count\":",
							     lo, hi);
	}
}

const struct fmt_label *fmt_row_labels(int unit)
{
	pthread_once(&labels_once, make_labels);
	return row_label[unit];
}

const struct fmt_label *fmt_hist_head(int unit)
{
	pthread_once(&labels_once, make_labels);
	return &hist_head[unit];
}

const struct fmt_label *fmt_json_buckets(void)
{
	pthread_once(&labels_once, make_labels);
	return json_bucket;
}
