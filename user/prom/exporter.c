// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Fleet mode: reading -> Prometheus view -> HTTP pages and --prom-file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prom/exporter.h"
#include "prom/prom_native.h"
#include "lib/log.h"
#include "lib/exit_codes.h"

int exporter_open(struct exporter *x, const struct exporter_spec *sp)
{
	char err[512];
	int m;

	memset(x, 0, sizeof(*x));
	if (!sp->listen && !sp->prom_file)
		return 0;
	x->on = true;
	x->native = !sp->prom_classic;
	for (m = 0; m < SH_METRIC_NR; m++) {
		if (!(sp->metrics & (1U << m)))
			continue;
		if (prom_view_init(&x->view[x->nviews], m, sp->key_type,
				   sp->max_series)) {
			pr_warn("out of memory\n");
			return SH_EXIT_FAIL;
		}
		prom_view_remember(&x->view[x->nviews], PROM_REMEMBER_NS);
		/* the kernel blames runq waits only */
		x->view[x->nviews].culprits = sp->culprits && m == SH_METRIC_RUNQ;
		x->view[x->nviews].causes = sp->causes && m == SH_METRIC_RUNQ;
		x->view[x->nviews].stacks = sp->stacks;
		x->view[x->nviews].culprit_mode = sp->culprit_mode;
		x->nviews++;
	}
	if (sp->prom_file) {
		if (atomic_file_open(&x->file, "--prom-file", sp->prom_file, err, sizeof(err))) {
			pr_warn("%s\n", err);
			return SH_EXIT_USAGE;
		}
		x->filing = true;
	}
	if (sp->listen) {
		if (http_bind(&x->http, sp->listen))
			return SH_EXIT_FAIL;
		x->http.stale_ns = HTTP_STALE_READINGS * sp->interval_ns;
		x->listening = true;
	}
	return 0;
}

/* Render the view into @x's buffer @fmt, its memory kept across readings. 0, or -1 (no memory). */
static int render(struct exporter *x, enum exporter_format fmt)
{
	struct outbuf *b = &x->page[fmt];
	FILE *f;
	int bad;

	ob_reset(b);
	f = ob_stream(b);
	if (!f)
		return -1;
	bad = fmt == EXPORT_PROTOBUF ? render_prom_native(f, x->view, x->nviews)
				     : render_prom(f, x->view, x->nviews, fmt == EXPORT_OM);
	return fclose(f) || bad || b->failed ? -1 : 0;
}

/*
 * 0, or -errno of a failed --prom-file write (-ENOMEM: rendering failed). @first: the start's
 * write, reported by the caller; later ones warned once by atomic_file_update().
 */
static int publish(struct exporter *x, bool first)
{
	struct outbuf *text = &x->page[EXPORT_TEXT], *om = &x->page[EXPORT_OM];
	int err = 0;

	if (render(x, EXPORT_TEXT))
		return -ENOMEM;
	if (x->filing)
		err = first ? atomic_file_write(&x->file, text->p, text->len)
			    : atomic_file_update(&x->file, text->p, text->len);
	if (x->listening) {
		if (render(x, EXPORT_OM))
			return -ENOMEM;
		/* the server copies them: the buffers are ours to render into again */
		http_publish(&x->http, text->p, text->len, om->p, om->len);
		/* native histograms for the scrapers that ask, unless --prom-classic */
		if (x->native) {
			if (render(x, EXPORT_PROTOBUF))
				return -ENOMEM;
			http_publish_protobuf(&x->http, x->page[EXPORT_PROTOBUF].p,
					      x->page[EXPORT_PROTOBUF].len);
		}
	}
	return err;
}

int exporter_start(struct exporter *x, const char *as_user)
{
	int err;

	if (!x->on)
		return 0;
	/* the first write tells at once whether the (new) user may write there */
	err = publish(x, true);
	if (err == -ENOMEM) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	if (err) {
		pr_warn("cannot write --prom-file %s: %s%s%s%s\n", x->file.path, strerror(-err),
			as_user ? " (as user " : "", as_user ? as_user : "",
			as_user ? "; --user names another)" : "");
		return SH_EXIT_FAIL;
	}
	if (x->listening) {
		if (http_start(&x->http))
			return SH_EXIT_FAIL;
		fprintf(stderr, "Serving Prometheus metrics on http://%s/metrics\n", x->http.where);
	}
	return 0;
}

/* The culprits of each group of @iv (culprits_every()) into view @v, after its waits. */
static int add_culprits(struct prom_view *v, const struct report *iv,
			const struct culprit_set *set)
{
	const struct culprit *list;
	size_t i, n;

	for (i = 0; i < iv->ngroups; i++) {
		const struct report_group *g = &iv->groups[i];

		if (g->synthetic)
			continue;
		list = culprit_set_of(set, i, &n);
		if (prom_view_culprits(v, g->name, g->t.count, g->t.sum_ns, list, n))
			return -1;
	}
	return 0;
}

int exporter_publish(struct exporter *x, const struct tick *t)
{
	int err, i;

	if (!x->on)
		return 0;
	for (i = 0; i < t->n && i < x->nviews; i++) {
		struct prom_view *v = &x->view[i];
		const struct tick_metric *m = &t->m[i];

		if (prom_view_update(v, &m->interval, &m->since_start))
			return -1;
		if (v->culprits && t->spec.culprits && add_culprits(v, &m->interval, &m->culprits))
			return -1;
	}
	/* a daemon outlives a full disk: atomic_file_update() warns, the next interval retries */
	err = publish(x, false);
	if (x->listening && err != -ENOMEM)
		http_reading_done(&x->http);
	return err == -ENOMEM ? -1 : 0;
}

void exporter_close(struct exporter *x)
{
	int i;

	if (!x->on)
		return;
	if (x->listening)
		http_stop(&x->http);
	if (x->filing)
		atomic_file_close(&x->file);
	for (i = 0; i < x->nviews; i++)
		prom_view_free(&x->view[i]);
	for (i = 0; i < EXPORT_FORMAT_NR; i++)
		ob_free(&x->page[i]);
	memset(x, 0, sizeof(*x));
}
