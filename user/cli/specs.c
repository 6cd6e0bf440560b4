// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* struct options -> the specs of report, renderers, heatmap, loader, exporter, profile. */
#include "cli/specs.h"

struct report_spec report_spec_of(const struct options *o)
{
	return (struct report_spec){ .key_type = o->key_type, .cumulative = o->cumulative,
				     .sort = o->sort, .top = o->top, .min_count = o->min_count };
}

struct render_spec render_spec_of(const struct options *o)
{
	return (struct render_spec){ .unit = o->unit, .timestamp = o->timestamp,
				     .summary = o->summary, .counters = o->verbose > 0,
				     .min_wait_ns = o->min_wait_ns, .culprits = o->culprits,
				     .causes = o->causes };
}

struct heatmap_spec heatmap_spec_of(const struct options *o)
{
	return (struct heatmap_spec){ .path = o->heatmap, .key = o->heatmap_key,
				      .metric = o->metric, .key_type = o->key_type,
				      .lines = o->heatmap_lines, .cumulative = o->cumulative };
}

struct loader_spec loader_spec_of(const struct options *o, const struct cgroup_cfg *cg)
{
	return (struct loader_spec){ .metrics = o->metrics, .method = o->method,
				     .clock = o->clock,
				     .key_type = o->key_type, .pid = o->pid,
				     .cgroup_depth = o->cgroup_depth, .max_keys = o->max_keys,
				     .max_keys_set = o->max_keys_set,
				     .max_kernel_mem = (__u64)o->max_kernel_mem_mib << 20,
				     .task_table = o->task_table, .culprits = o->culprits,
				     .culprit_mode = o->culprit_mode, .stacks = o->stacks,
				     .causes = o->causes, .cg = *cg };
}

struct exporter_spec exporter_spec_of(const struct options *o)
{
	return (struct exporter_spec){ .listen = o->listen ? &o->listen_addr : NULL, .prom_file = o->prom_file,
				       .metrics = o->metrics,
				       .key_type = o->key_type, .sort = o->sort,
				       .max_series = o->top ? o->top : o->max_keys,
				       .prom_classic = o->prom_classic, .culprits = o->culprits,
				       .causes = o->causes, .stacks = o->stacks,
				       .culprit_mode = o->culprit_mode,
				       .interval_ns = o->interval_ns };
}

struct live_page_spec live_page_spec_of(const struct options *o)
{
	return (struct live_page_spec){ .hm = heatmap_spec_of(o), .metric = o->metric,
					.key_type = o->key_type, .unit = o->unit,
					.interval_ns = o->interval_ns,
					.culprits = o->culprits && o->metric == SH_METRIC_RUNQ };
}

struct live_spec live_spec_of(const struct options *o)
{
	return (struct live_spec){ .key_type = o->key_type, .unit = o->unit, .sort = o->sort,
				   .top = o->top, .interval_ns = o->interval_ns };
}

struct profile_spec profile_spec_of(const struct options *o, const struct cgroup_cfg *cg)
{
	return (struct profile_spec){ .metric = o->metric, .key_type = o->key_type,
				      .tgid = (__u32)o->pid, .cgroup_hier = cg->hier,
				      .cgroup_id = cg->filter_id, .cgroup_level = cg->filter_level,
				      .interval_ns = o->interval_ns, .count = o->count,
				      .duration_ns = o->duration_ns, .cumulative = o->cumulative,
				      .json = o->json, .unit = o->unit, .top = o->top,
				      .max_entries = o->max_keys, .flamegraph = o->flamegraph,
				      .pprof = o->pprof, .stack_kinds = (__u32)o->profile_stacks,
				      .sample_p = o->profile_sample_p,
				      .sample_ns = o->profile_sample_ns, .user = o->user };
}
