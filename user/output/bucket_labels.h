/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The text and JSON renderers' fixed pieces of every bucket of the grid in use. */
#ifndef SH_BUCKET_LABELS_H
#define SH_BUCKET_LABELS_H

/*
 * Built once on first use (thread-safe), copied whole into each row; snprintf's bytes (test_fmt.c).
 */
#define FMT_LABEL_MAX 80
struct fmt_label {
	unsigned char len;		/* bytes of @s, not counting its NUL */
	char s[FMT_LABEL_MAX];
};

/* The text histogram's row labels in @unit, sh_nb of them: "%13s -> %-11s : " of the bounds. */
const struct fmt_label *fmt_row_labels(int unit);

/* The text histogram's head in @unit: "%10s%-5s%13s : count      distribution\n". */
const struct fmt_label *fmt_hist_head(int unit);

/* JSON: each bucket's ',{"lo_ns":LO,"hi_ns":HI,"count":' (HI null: unbounded). */
const struct fmt_label *fmt_json_buckets(void);

#endif /* SH_BUCKET_LABELS_H */
