// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The live page of --listen: heatmap and top keys, reloading itself. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live_page.h"
#include "render.h"
#include "escape.h"
#include "render_extra.h"

#ifndef SCHEDHIST_VERSION
#define SCHEDHIST_VERSION "0.0.0-dev"
#endif

int live_page_init(struct sh_live_page *lp, const struct live_page_spec *sp)
{
	memset(lp, 0, sizeof(*lp));
	lp->spec = *sp;
	return heatmap_init_mem(&lp->hm, &sp->hm, LIVE_PAGE_COLUMNS);
}

void live_page_free(struct sh_live_page *lp)
{
	heatmap_free(&lp->hm);
	memset(lp, 0, sizeof(*lp));
}

int live_page_add(struct sh_live_page *lp, const struct sh_report *r)
{
	size_t i;

	if (heatmap_add(&lp->hm, r))
		return -1;
	lp->nrows = 0;
	for (i = 0; i < r->ngroups && lp->nrows < LIVE_PAGE_ROWS; i++) {
		const struct sh_group *g = &r->groups[i];
		struct lp_row *w = &lp->rows[lp->nrows++];

		if (name_escape(w->name, sizeof(w->name) - 4, g->name) >= sizeof(w->name) - 4)
			strcat(w->name, "...");
		w->count = g->t.count;
		w->avg = g->t.count ? g->t.sum_ns / g->t.count : 0;
		w->p50 = g->pct.p50;
		w->p90 = g->pct.p90;
		w->p99 = g->pct.p99;
		w->p999 = g->pct.p999;
		/* the columns of --summary for these options */
		extra_share(w->throttled, sizeof(w->throttled), g->cgs.has_throttle,
			    g->cgs.throttled_ns, r);
		extra_pressure(w->psi_some, sizeof(w->psi_some), g->cgs.has_some,
			       g->cgs.pressure_some_ns, r);
		extra_top_culprit(w->culprit, sizeof(w->culprit), g);
		w->max = g->t.max_ns;
		w->max_tid = g->t.max_tid;
		name_escape(w->max_comm, sizeof(w->max_comm), g->t.max_comm);
	}
	lp->when = r->when;
	lp->waits = r->all.count;
	lp->lost = report_lost(r);
	lp->have_report = true;
	return 0;
}

/* @s (escaped already: valid UTF-8, no controls) as HTML text. */
static void html(FILE *f, const char *s)
{
	escaped_write_xml(f, s);
}

int live_page_render(const struct sh_live_page *lp, char **buf, size_t *len)
{
	const struct live_page_spec *o = &lp->spec;
	FILE *f = open_memstream(buf, len);
	char host[72] = "?", hv[160], v[6][32], ts[32];
	bool cgs = o->key_type == SH_KEY_CGROUP;
	unsigned int refresh = (unsigned int)((o->interval_ns + 999999999ULL) / 1000000000ULL);
	size_t i;

	if (!f)
		return -1;
	if (refresh < 1)
		refresh = 1;
	gethostname(host, sizeof(host) - 1);
	name_escape(hv, sizeof(hv), host);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"refresh\" content=\"%u\">\n<title>schedhist on ", refresh);
	html(f, hv);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:16px;color:#111}\n"
	      "h1{font-size:18px;margin:0 0 4px}p{margin:0 0 10px;font-size:13px}\n"
	      "table{border-collapse:collapse;font-size:13px;margin-top:10px}\n"
	      "th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}\n"
	      "th:first-child,td:first-child{text-align:left}\n"
	      "th{background:#f4f4f4}\n"
	      "</style></head><body>\n<h1>schedhist " SCHEDHIST_VERSION " on ", f);
	html(f, hv);
	fputs("</h1>\n<p>", f);
	html(f, metric_words(o->metric));	/* plain ASCII */
	fprintf(f, "; per %s; every %u s (this page reloads itself); ", key_name(o->key_type),
		refresh);
	if (lp->have_report) {
		fmt_rfc3339(ts, sizeof(ts), &lp->when);
		fprintf(f, "latest reading %s, %" PRIu64 " waits, %" PRIu64 " lost; ", ts,
			(uint64_t)lp->waits, (uint64_t)lp->lost);
	} else {
		fputs("no reading yet; ", f);
	}
	fputs("Prometheus metrics at <a href=\"/metrics\">/metrics</a></p>\n", f);
	heatmap_svg(f, &lp->hm);
	/* the columns of the --summary table for the same options */
	fprintf(f, "<table id=\"top\">\n<tr><th>%s</th><th>count</th>", key_name(o->key_type));
	for (i = 0; i < 6; i++)
		fprintf(f, "<th>%s %s</th>", (const char *[]){ "avg", "p50", "p90", "p99", "p99.9",
							      "max" }[i], unit_name(o->unit));
	if (cgs)
		fputs("<th>throttled</th><th>psi some</th>", f);
	if (o->culprits)
		fputs("<th>top culprit</th>", f);
	fputs("<th>max by (tid comm)</th></tr>\n", f);
	for (i = 0; i < lp->nrows; i++) {
		const struct lp_row *w = &lp->rows[i];

		const __u64 ns[6] = { w->avg, w->p50, w->p90, w->p99, w->p999, w->max };
		size_t j;

		fputs("<tr class=\"key\"><td>", f);
		html(f, w->name);
		fprintf(f, "</td><td>%" PRIu64 "</td>", (uint64_t)w->count);
		for (j = 0; j < 6; j++) {
			fmt_wait(v[j], sizeof(v[j]), ns[j], o->unit);
			fprintf(f, "<td>%s</td>", v[j]);
		}
		if (cgs)
			fprintf(f, "<td>%s</td><td>%s</td>", w->throttled, w->psi_some);
		if (o->culprits) {
			fputs("<td>", f);
			html(f, w->culprit);
			fputs("</td>", f);
		}
		fputs("<td>", f);
		if (w->max_tid) {
			fprintf(f, "%u ", w->max_tid);
			html(f, w->max_comm);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</body></html>\n", f);
	if (fclose(f)) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return 0;
}
