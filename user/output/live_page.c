// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The live page of --listen: heatmap and top keys, reloading itself. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/live_page.h"
#include "output/render.h"
#include "lib/escape.h"
#include "output/render_extra.h"
#include "lib/util.h"

int live_page_init(struct live_page *lp, const struct live_page_spec *sp)
{
	memset(lp, 0, sizeof(*lp));
	lp->spec = *sp;
	return heatmap_init_mem(&lp->hm, &sp->hm, LIVE_PAGE_COLUMNS);
}

void live_page_free(struct live_page *lp)
{
	heatmap_free(&lp->hm);
	memset(lp, 0, sizeof(*lp));
}

int live_page_add(struct live_page *lp, const struct report *r)
{
	size_t i;

	if (heatmap_add(&lp->hm, r))
		return -1;
	lp->nrows = 0;
	for (i = 0; i < r->ngroups && lp->nrows < LIVE_PAGE_ROWS; i++) {
		const struct report_group *g = &r->groups[i];
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

/* The most cells of a row: key, count, 6 waits, throttled, psi, culprit, max by. */
#define LP_MAX_CELLS 12

struct lp_cells {
	char c[LP_MAX_CELLS][sizeof(((struct lp_row *)0)->culprit)];
	size_t n;
};

/* The column titles of the table, as --summary has them for these options. */
static void head_cells(const struct live_page_spec *o, struct lp_cells *out)
{
	static const char *const waits[] = { "avg", "p50", "p90", "p99", "p99.9", "max" };
	size_t i;

	out->n = 0;
	snprintf(out->c[out->n++], sizeof(out->c[0]), "%s", key_name(o->key_type));
	snprintf(out->c[out->n++], sizeof(out->c[0]), "count");
	for (i = 0; i < 6; i++)
		snprintf(out->c[out->n++], sizeof(out->c[0]), "%s %s", waits[i], unit_name(o->unit));
	if (o->key_type == SH_KEY_CGROUP) {
		snprintf(out->c[out->n++], sizeof(out->c[0]), "throttled");
		snprintf(out->c[out->n++], sizeof(out->c[0]), "psi some");
	}
	if (o->culprits)
		snprintf(out->c[out->n++], sizeof(out->c[0]), "top culprit");
	snprintf(out->c[out->n++], sizeof(out->c[0]), "max by (tid comm)");
}

/* The cells of row @w (escaped names, not yet in HTML or JSON syntax). */
static void row_cells(const struct live_page_spec *o, const struct lp_row *w,
		      struct lp_cells *out)
{
	const __u64 ns[6] = { w->avg, w->p50, w->p90, w->p99, w->p999, w->max };
	size_t j;

	out->n = 0;
	snprintf(out->c[out->n++], sizeof(out->c[0]), "%s", w->name);
	snprintf(out->c[out->n++], sizeof(out->c[0]), "%" PRIu64, (uint64_t)w->count);
	for (j = 0; j < 6; j++)
		fmt_wait(out->c[out->n++], sizeof(out->c[0]), ns[j], o->unit);
	if (o->key_type == SH_KEY_CGROUP) {
		snprintf(out->c[out->n++], sizeof(out->c[0]), "%s", w->throttled);
		snprintf(out->c[out->n++], sizeof(out->c[0]), "%s", w->psi_some);
	}
	if (o->culprits)
		snprintf(out->c[out->n++], sizeof(out->c[0]), "%s", w->culprit);
	if (w->max_tid)
		snprintf(out->c[out->n++], sizeof(out->c[0]), "%u %s", w->max_tid, w->max_comm);
	else
		out->c[out->n++][0] = '\0';
}

/* The page's refresh period: the interval, rounded up to a second. */
static unsigned int refresh_s(const struct live_page_spec *o)
{
	unsigned int s = (unsigned int)((o->interval_ns + 999999999ULL) / 1000000000ULL);

	return s < 1 ? 1 : s;
}

/* The status line above the heatmap (ASCII or escaped: safe as HTML and JSON). */
static void status_line(FILE *f, const struct live_page *lp)
{
	char ts[32];

	if (lp->have_report) {
		fmt_rfc3339(ts, sizeof(ts), &lp->when);
		fprintf(f, "latest reading %s, %" PRIu64 " waits, %" PRIu64 " lost", ts,
			(uint64_t)lp->waits, (uint64_t)lp->lost);
	} else {
		fputs("no reading yet", f);
	}
}

/* The reading's time as the table's data-reading attribute (RFC 3339), or "". */
static void reading_attr(FILE *f, const struct live_page *lp)
{
	char ts[32] = "";

	if (lp->have_report)
		fmt_rfc3339(ts, sizeof(ts), &lp->when);
	fputs(ts, f);
}

/*
 * The page's one script: every interval it fetches /live.json and rewrites the status line and
 * table in place; the whole page reloads every LIVE_PAGE_RELOAD_S (or interval, if longer).
 */
static const char live_script[] =
	"<script>\n"
	"(function(){\n"
	"var period=+document.body.dataset.refresh*1000;\n"
	"function cell(tag,text){var e=document.createElement(tag);e.textContent=text;return e;}\n"
	"function show(d){\n"
	" document.getElementById('status').textContent=d.status;\n"
	" var t=document.getElementById('top');\n"
	" while(t.rows.length>1)t.deleteRow(1);\n"
	" d.rows.forEach(function(r){var tr=t.insertRow(-1);tr.className='key';\n"
	"  r.forEach(function(c){tr.appendChild(cell('td',c));});});\n"
	" t.dataset.reading=d.reading;\n"
	"}\n"
	"function tick(){\n"
	" fetch('/live.json',{cache:'no-store'}).then(function(r){return r.ok?r.json():null;})\n"
	"  .then(function(d){if(d)show(d);}).catch(function(){})\n"
	"  .then(function(){setTimeout(tick,period);});\n"
	"}\n"
	"setTimeout(tick,period);\n"
	"setTimeout(function(){location.reload();},Math.max(period,%u000));\n"
	"})();\n"
	"</script>\n";

int live_page_render(const struct live_page *lp, struct outbuf *out)
{
	const struct live_page_spec *o = &lp->spec;
	FILE *f;
	char host[72] = "?", hv[160];
	unsigned int refresh = refresh_s(o);
	struct lp_cells cells;
	size_t i, j;

	ob_reset(out);
	if (!(f = ob_stream(out)))
		return -1;
	gethostname(host, sizeof(host) - 1);
	name_escape(hv, sizeof(hv), host);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<noscript><meta http-equiv=\"refresh\" content=\"%u\"></noscript>\n"
		   "<title>schedhist on ", refresh);
	html(f, hv);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:16px;color:#111}\n"
	      "h1{font-size:18px;margin:0 0 4px}p{margin:0 0 10px;font-size:13px}\n"
	      "table{border-collapse:collapse;font-size:13px;margin-top:10px}\n"
	      "th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}\n"
	      "th:first-child,td:first-child{text-align:left}\n"
	      "th{background:#f4f4f4}\n"
	      "</style></head>\n", f);
	fprintf(f, "<body data-refresh=\"%u\">\n<h1>schedhist " SCHEDHIST_VERSION " on ", refresh);
	html(f, hv);
	fputs("</h1>\n<p>", f);
	html(f, metric_words(o->metric));	/* plain ASCII */
	fprintf(f, "; per %s; table every %u s, heatmap every %u s; <span id=\"status\">",
		key_name(o->key_type), refresh, refresh > LIVE_PAGE_RELOAD_S ? refresh
									   : LIVE_PAGE_RELOAD_S);
	status_line(f, lp);
	fputs("</span>; Prometheus metrics at <a href=\"/metrics\">/metrics</a></p>\n", f);
	heatmap_svg(f, &lp->hm);
	/* the columns of the --summary table for the same options */
	fputs("<table id=\"top\" data-reading=\"", f);
	reading_attr(f, lp);
	fputs("\">\n<tr>", f);
	head_cells(o, &cells);
	for (j = 0; j < cells.n; j++) {
		fputs("<th>", f);
		html(f, cells.c[j]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (i = 0; i < lp->nrows; i++) {
		row_cells(o, &lp->rows[i], &cells);
		fputs("<tr class=\"key\">", f);
		for (j = 0; j < cells.n; j++) {
			fputs("<td>", f);
			html(f, cells.c[j]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	fprintf(f, live_script, LIVE_PAGE_RELOAD_S);
	fputs("</body></html>\n", f);
	return fclose(f) || out->failed ? -1 : 0;
}

int live_page_render_json(const struct live_page *lp, struct outbuf *out)
{
	struct lp_cells cells;
	size_t i, j;
	FILE *f;

	ob_reset(out);
	if (!(f = ob_stream(out)))
		return -1;
	fputs("{\"reading\":\"", f);
	reading_attr(f, lp);
	fputs("\",\"status\":\"", f);
	status_line(f, lp);
	fputs("\",\"rows\":[", f);
	for (i = 0; i < lp->nrows; i++) {
		row_cells(&lp->spec, &lp->rows[i], &cells);
		fputs(i ? ",[" : "[", f);
		for (j = 0; j < cells.n; j++) {
			if (j)
				fputc(',', f);
			escaped_write_json(f, cells.c[j]);
		}
		fputc(']', f);
	}
	fputs("]}\n", f);
	return fclose(f) || out->failed ? -1 : 0;
}
