/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --flamegraph: an SVG of folded stacks, widths by waited time, a <title> per frame; labels only
 * where they fit (FG_CHAR_W covers a monospace character; tests/svg_layout.py measures it).
 */
#ifndef SH_FLAMEGRAPH_H
#define SH_FLAMEGRAPH_H

#include <stdio.h>
#include <linux/types.h>

/* One folded stack: "comm;outermost;...;innermost" and its waited time. */
struct fg_stack {
	const char *folded;
	__u64 wait_ns;
	__u64 count;
};

#define FG_WIDTH 1200		/* px */
#define FG_FRAME_H 17		/* px per stack level */
#define FG_FONT_PX 12		/* label font size */
#define FG_CHAR_W 7.6		/* px per character, above the font's 0.6 em advance */
#define FG_MIN_W 0.1		/* px: a narrower frame is not drawn (flamegraph.pl's minwidth) */

/* Write the SVG of the @n stacks, titled @title; frames under FG_MIN_W are not drawn. 0 or -1. */
int flamegraph_write(FILE *f, const char *title, const struct fg_stack *s, size_t n);

#endif /* SH_FLAMEGRAPH_H */
