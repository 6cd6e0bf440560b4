/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The text and JSON renderers' fixed pieces of every bucket of the grid in use. */
#ifndef SH_BUCKET_LABELS_H
#define SH_BUCKET_LABELS_H

/*
 * The renderers' fixed pieces of every bucket, the same in every report:
 * built once, on first use (thread-safe), copied whole into each row.
 * The bytes are snprintf's of the formats below (test_fmt.c checks).
 */
#define FMT_LABEL_MAX 80
struct fmt_label {
	unsigned char len;		/* bytes of @s, not counting its NUL */
	char s[FMT_LABEL_MAX];
};

/*
 * The text histogram's row labels in @unit, one per bucket of the grid in use (sh_nb):
 * "%13s -> %-11s : " of its bounds as fmt_wait() writes them (the first
 * row's low bound "0", the last's high "longer").
 */
const struct fmt_label *fmt_row_labels(int unit);

/* The text histogram's head in @unit: "%10s%-5s%13s : count      distribution\n". */
const struct fmt_label *fmt_hist_head(int unit);

/*
 * JSON: each bucket's object up to its count, one per bucket
 * (sh_nb): ',{"lo_ns":LO,"hi_ns":HI,"count":' (HI null: unbounded).
 */
const struct fmt_label *fmt_json_buckets(void);

#endif /* SH_BUCKET_LABELS_H */
