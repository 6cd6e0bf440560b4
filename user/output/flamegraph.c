// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The --flamegraph SVG: folded stacks merged into a tree, drawn root at the bottom. */
#include <stdlib.h>
#include <string.h>

#include "output/flamegraph.h"
#include "lib/escape.h"

struct fg_node {
	char *name;
	__u64 wait_ns;
	__u64 count;
	struct fg_node *child, *sibling;	/* children in order of first sight */
	struct fg_node *last;			/* the last child, for appending */
};

static struct fg_node *node_child(struct fg_node *p, const char *name, size_t len)
{
	struct fg_node *c;

	for (c = p->child; c; c = c->sibling)
		if (strlen(c->name) == len && !memcmp(c->name, name, len))
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = strndup(name, len);
	if (!c->name) {
		free(c);
		return NULL;
	}
	if (p->last)
		p->last->sibling = c;
	else
		p->child = c;
	p->last = c;
	return c;
}

static void node_free(struct fg_node *n)
{
	while (n) {
		struct fg_node *next = n->sibling;

		node_free(n->child);
		free(n->name);
		free(n);
		n = next;
	}
}

/* Levels drawn below and at @n: frames narrower than FG_MIN_W are not drawn, nor counted. */
static int depth_of(const struct fg_node *n, double scale)
{
	int d = 0;

	if ((double)n->wait_ns * scale < FG_MIN_W)
		return 0;
	for (const struct fg_node *c = n->child; c; c = c->sibling) {
		int cd = depth_of(c, scale);

		if (cd > d)
			d = cd;
	}
	return d + 1;
}

/* A warm colour from the name (kernel frames, "_[k]", in orange-yellow). */
static void colour(const char *name, int *r, int *g, int *b)
{
	unsigned int h = 2166136261u;
	size_t len = strlen(name);

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	if (len > 4 && !strcmp(name + len - 4, "_[k]")) {
		*r = 205 + (int)(h % 50);
		*g = 150 + (int)(h / 50 % 70);
		*b = 20 + (int)(h / 3500 % 40);
	} else {
		*r = 200 + (int)(h % 55);
		*g = 60 + (int)(h / 55 % 110);
		*b = 40 + (int)(h / 6050 % 40);
	}
}

struct fg_ctx {
	FILE *f;
	double scale;		/* px per ns */
	__u64 total;
	int height;
};

static void label(FILE *f, const char *name, double x, double y, double w)
{
	size_t fit = (size_t)((w - 6) / FG_CHAR_W), len = strlen(name);

	if (fit < 3)
		return;
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FG_FRAME_H - 5);
	if (len <= fit) {
		escaped_write_xml(f, name);
	} else {
		char *cut = strndup(name, fit - 2);

		if (cut)
			escaped_write_xml(f, cut);
		fputs("..", f);
		free(cut);
	}
	fputs("</text>", f);
}

static void draw(struct fg_ctx *c, const struct fg_node *n, double x, int level)
{
	double w = (double)n->wait_ns * c->scale;
	double y = c->height - (level + 1) * FG_FRAME_H;
	int r, g, b;

	if (w < FG_MIN_W)
		return;
	colour(n->name, &r, &g, &b);
	fputs("<g><title>", c->f);
	escaped_write_xml(c->f, n->name);
	fprintf(c->f, " (%.3f ms, %llu waits, %.2f%%)</title>", n->wait_ns / 1e6,
		(unsigned long long)n->count, c->total ? 100.0 * n->wait_ns / c->total : 0.0);
	fprintf(c->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\"/>", x, y, w, FG_FRAME_H - 1, r, g, b);
	label(c->f, n->name, x, y, w);
	fputs("</g>\n", c->f);
	for (const struct fg_node *ch = n->child; ch; ch = ch->sibling) {
		draw(c, ch, x, level + 1);
		x += (double)ch->wait_ns * c->scale;
	}
}

int flamegraph_write(FILE *f, const char *title, const struct fg_stack *s, size_t n)
{
	struct fg_node root = { .name = "all" };
	struct fg_ctx c = { .f = f };
	int depth, ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		struct fg_node *p = &root;
		const char *q = s[i].folded;

		root.wait_ns += s[i].wait_ns;
		root.count += s[i].count;
		while (p) {
			size_t len = strcspn(q, ";");

			p = node_child(p, q, len);
			if (!p) {
				ret = -1;
				break;
			}
			p->wait_ns += s[i].wait_ns;
			p->count += s[i].count;
			if (!q[len])
				break;
			q += len + 1;
		}
	}
	c.total = root.wait_ns;
	c.scale = root.wait_ns ? (double)(FG_WIDTH - 20) / root.wait_ns : 0;
	/* the picture is as tall as the frames drawn, as flamegraph.pl's --minwidth */
	depth = depth_of(&root, c.scale);
	c.height = 40 + depth * FG_FRAME_H + 10;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\">\n"
		"<style>text{font-family:\"DejaVu Sans Mono\",monospace;font-size:%dpx;"
		"fill:#000;pointer-events:none}rect:hover{stroke:#000}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size:16px\">",
		FG_WIDTH, c.height, FG_WIDTH, c.height, FG_FONT_PX, FG_WIDTH / 2);
	escaped_write_xml(f, title);
	fputs("</text>\n<g id=\"frames\" transform=\"translate(10,-10)\">\n", f);
	root.name = "all";
	if (root.wait_ns)
		draw(&c, &root, 0, 0);
	fputs("</g>\n</svg>\n", f);
	node_free(root.child);
	return ret || ferror(f) ? -1 : 0;
}
