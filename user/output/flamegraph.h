/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The --flamegraph picture: an SVG flame graph of folded stacks, drawn by
 * schedhist itself. Each frame's width is its share of the waited time;
 * its <title> gives the frame, its time and its share of the whole. A
 * label is drawn only where it fits its frame, cut with ".." to fit, so
 * labels never overlap nor leave their frame (FG_CHAR_W is at least the
 * advance of a character of the monospace font used; tests/svg_layout.py
 * measures it in Chromium).
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

/*
 * Write the SVG of the @n stacks to @f, titled @title. Frames narrower
 * than FG_MIN_W are not drawn (their time is in their parent's), and the
 * picture's height is that of the deepest frame drawn. 0 or -1 (no memory).
 */
int flamegraph_write(FILE *f, const char *title, const struct fg_stack *s, size_t n);

#endif /* SH_FLAMEGRAPH_H */
