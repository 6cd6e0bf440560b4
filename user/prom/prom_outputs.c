// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Fleet mode's outputs behind struct output: the exporter and the live page it serves. */
#include <stdlib.h>

#include "prom/prom_outputs.h"
#include "lib/log.h"
#include "lib/exit_codes.h"

/* the exporter */

static int exporter_out_start(void *ctx, const char *as_user)
{
	return exporter_start(ctx, as_user);
}

static enum out_status exporter_emit(void *ctx, const struct tick *t)
{
	if (exporter_publish(ctx, t)) {
		pr_warn("out of memory\n");
		return OUT_FATAL;
	}
	return OUT_OK;
}

static void exporter_out_close(void *ctx)
{
	if (ctx)
		exporter_close(ctx);
	free(ctx);
}

int exporter_output_open(struct output *out, const struct exporter_spec *sp,
			 struct exporter **xp)
{
	struct exporter *x = calloc(1, sizeof(*x));

	*out = (struct output){ .name = "exporter", .ctx = x, .start = exporter_out_start,
				   .emit = exporter_emit, .close = exporter_out_close };
	*xp = x;
	if (!x) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	/* what needs privileges: bind --listen, open the --prom-file directory */
	return exporter_open(x, sp);
}

/* the live page of --listen */

struct live_page_out {
	struct live_page lp;
	struct exporter *x;		/* whose HTTP server serves it */
	struct outbuf html, json;	/* the page and its table, rendered (kept for the next) */
};

static int live_page_publish(struct live_page_out *w)
{
	if (live_page_render(&w->lp, &w->html) || live_page_render_json(&w->lp, &w->json))
		return -1;
	http_publish_live(&w->x->http, w->html.p, w->html.len, w->json.p, w->json.len);
	return 0;
}

/* Before the first reading: a page that says so. */
static int live_page_start(void *ctx, const char *as_user)
{
	if (live_page_publish(ctx)) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	return 0;
}

static enum out_status live_page_emit(void *ctx, const struct tick *t)
{
	struct live_page_out *w = ctx;

	if (live_page_add(&w->lp, &t->m[0].shown) || live_page_publish(w)) {
		pr_warn("out of memory\n");
		return OUT_FATAL;
	}
	return OUT_OK;
}

static void live_page_close(void *ctx)
{
	struct live_page_out *w = ctx;

	if (w) {
		live_page_free(&w->lp);
		ob_free(&w->html);
		ob_free(&w->json);
	}
	free(w);
}

int live_page_output_open(struct output *out, const struct live_page_spec *sp,
			  struct exporter *x)
{
	struct live_page_out *w = calloc(1, sizeof(*w));

	*out = (struct output){ .name = "live page", .ctx = w, .start = live_page_start,
				   .emit = live_page_emit, .close = live_page_close };
	if (!w || live_page_init(&w->lp, sp)) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	w->x = x;
	return 0;
}
