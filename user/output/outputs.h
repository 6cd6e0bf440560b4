/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The poll loop's outputs, each opened before loading; out->close() frees even after failure. */
#ifndef SH_OUTPUTS_H
#define SH_OUTPUTS_H

#include <stdbool.h>
#include "output/output.h"
#include "output/render.h"
#include "output/heatmap.h"

/* The reports on stdout: text (@sp), or JSON Lines with @json. */
int print_output_open(struct output *out, const struct render_spec *sp, bool json);

/* The SVG heatmap of the first metric measured. */
int heatmap_output_open(struct output *out, const struct heatmap_spec *sp);

#endif /* SH_OUTPUTS_H */
