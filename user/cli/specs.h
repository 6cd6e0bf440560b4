/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The command line as each module's small spec (modules never see struct options); pure. */
#ifndef SH_SPECS_H
#define SH_SPECS_H

#include "cli/options.h"
#include "model/report.h"
#include "output/render.h"
#include "output/heatmap.h"
#include "kernel/loader.h"
#include "prom/exporter.h"
#include "output/live_page.h"
#include "output/live.h"
#include "profile/profile.h"

struct report_spec report_spec_of(const struct options *o);
struct render_spec render_spec_of(const struct options *o);
struct heatmap_spec heatmap_spec_of(const struct options *o);
/* @cg: what the cgroup options resolved to. */
struct loader_spec loader_spec_of(const struct options *o, const struct cgroup_cfg *cg);
struct exporter_spec exporter_spec_of(const struct options *o);
struct live_page_spec live_page_spec_of(const struct options *o);
struct live_spec live_spec_of(const struct options *o);
/* @cg: what -c resolved to. */
struct profile_spec profile_spec_of(const struct options *o, const struct cgroup_cfg *cg);

#endif /* SH_SPECS_H */
