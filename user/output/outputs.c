// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The outputs behind struct output: stdout and the heatmap. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/outputs.h"
#include "lib/loop.h"
#include "lib/log.h"
#include "lib/exit_codes.h"

/* stdout */

struct print_out {
	struct render_spec spec;	/* text reports */
	bool json;			/* JSON Lines instead */
	/* One buffer for the process, reused: per-report buffers fragmented the heap. */
	struct outbuf b;
};

/* One report, written whole (write_whole()). 0, or its -errno (-EPIPE: the reader is gone). */
static int print_one(struct print_out *p, const struct report *r)
{
	ob_reset(&p->b);
	if (p->json)
		render_json(&p->b, r);
	else
		render_text(&p->b, r, &p->spec);
	if (p->b.failed)
		return -ENOMEM;
	return write_whole(STDOUT_FILENO, p->b.p, p->b.len);
}

static enum out_status print_emit(void *ctx, const struct tick *t)
{
	int err = 0, i;

	for (i = 0; i < t->n && !err; i++)
		err = print_one(ctx, &t->m[i].shown);
	/* the reader went away (EPIPE): a quiet end; anything else is a failure */
	if (!err)
		return OUT_OK;
	if (err == -EPIPE)
		return OUT_DONE;
	if (err == -ECANCELED)
		pr_warn("cannot write the report: a second stop signal came while the reader "
			"was not reading; the report is cut\n");
	else
		pr_warn("cannot write the report: %s\n", strerror(-err));
	return OUT_FAILED;
}

static void print_close(void *ctx)
{
	struct print_out *p = ctx;

	if (!p)
		return;
	ob_free(&p->b);
	free(p);
}

int print_output_open(struct output *out, const struct render_spec *sp, bool json)
{
	struct print_out *p = calloc(1, sizeof(*p));
	int fl;

	*out = (struct output){ .name = "stdout", .ctx = p, .emit = print_emit,
				   .close = print_close };
	if (!p) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	p->spec = *sp;
	p->json = json;
	/* a closed stdout would only show at the first report, maybe hours later */
	fl = fcntl(STDOUT_FILENO, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		pr_warn("standard output is %s: nowhere to print reports\n",
			fl < 0 ? "closed" : "open read-only");
		return SH_EXIT_FAIL;
	}
	return 0;
}

/* the heatmap */

static int heatmap_start(void *ctx, const char *as_user)
{
	struct heatmap *hm = ctx;
	int err = heatmap_write_first(hm);

	/* the first write, as the user it runs as from now on, tells at once */
	if (!err)
		return 0;
	pr_warn("cannot write --heatmap %s: %s%s%s%s\n", hm->path, strerror(-err),
		as_user ? " (as user " : "", as_user ? as_user : "",
		as_user ? "; --user names another)" : "");
	return SH_EXIT_FAIL;
}

/* The first metric measured; a failed write is warned once and retried, as --prom-file. */
static enum out_status heatmap_emit(void *ctx, const struct tick *t)
{
	if (heatmap_add(ctx, &t->m[0].shown) || heatmap_write(ctx)) {
		pr_warn("out of memory\n");
		return OUT_FATAL;
	}
	return OUT_OK;
}

static void heatmap_close(void *ctx)
{
	if (ctx)
		heatmap_free(ctx);
	free(ctx);
}

int heatmap_output_open(struct output *out, const struct heatmap_spec *sp)
{
	struct heatmap *hm = malloc(sizeof(*hm));
	char err[512];

	*out = (struct output){ .name = "--heatmap", .ctx = hm, .start = heatmap_start,
				   .emit = heatmap_emit, .close = heatmap_close };
	if (!hm) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	/* a bad path fails now, before anything is loaded (nothing is written yet) */
	if (heatmap_init(hm, sp, err, sizeof(err))) {
		pr_warn("%s\n", err);
		return SH_EXIT_USAGE;
	}
	return 0;
}
