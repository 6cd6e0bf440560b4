// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Opens the skeleton, sets the knobs, loads, attaches only what is needed. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "schedhist.h"
#include "schedhist.skel.h"
#include "loader.h"
#include "cgroup.h"
#include "log.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* -vv: libbpf's warnings and info (the verifier log); -vvv: its debug */
	if (sh_log_level < SH_LOG_DEBUG || (level == LIBBPF_DEBUG && sh_log_level <= SH_LOG_DEBUG))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const char *hint(int err)
{
	if (err == EPERM || err == EACCES)
		return geteuid() ? " (run as root, or with CAP_BPF and CAP_PERFMON)"
				 : " (is BPF restricted by lockdown or a security module?)";
	return "";
}

int loader_cgroup_subsys_id(const char *name)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	char want[128];
	int id, i, ret = -1, count = -1;

	if (!btf)
		return -1;
	snprintf(want, sizeof(want), "%s_cgrp_id", cg_subsys_name(name));
	id = btf__find_by_name_kind(btf, "cgroup_subsys_id", BTF_KIND_ENUM);
	if (id > 0) {
		t = btf__type_by_id(btf, id);
		e = btf_enum(t);
		for (i = 0; i < btf_vlen(t); i++, e++) {
			const char *n = btf__name_by_offset(btf, e->name_off);

			if (!strcmp(n, want))
				ret = e->val;
			else if (!strcmp(n, "CGROUP_SUBSYS_COUNT"))
				count = e->val;
		}
	}
	btf__free(btf);
	/* css_set::subsys[] has CGROUP_SUBSYS_COUNT slots */
	if (ret >= SH_CGROUP_SUBSYS_MAX || (count >= 0 && ret >= count))
		return -1;
	return ret;
}

/*
 * After a failed load: the first tracepoint the run needs that the kernel's
 * BTF lacks (tp_btf programs attach through its btf_trace_NAME typedef),
 * or NULL if they are all there and the failure was something else.
 */
static const char *missing_tracepoint(const struct options *o)
{
	static const char *const tps[] = { "sched_switch", "sched_wakeup", "sched_wakeup_new" };
	int n = o->metric == SH_METRIC_OFFCPU ? 1 : o->metric == SH_METRIC_BLOCKED ? 2 : 3;
	struct btf *btf = btf__load_vmlinux_btf();
	const char *missing = NULL;
	char name[64];
	int i;

	if (!btf)
		return NULL;
	for (i = 0; i < n && !missing; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", tps[i]);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0)
			missing = tps[i];
	}
	btf__free(btf);
	return missing;
}

static int attach(struct sh_loader *l, struct bpf_program *prog, struct bpf_link **slot,
		  const char *what)
{
	/* kept in the skeleton's slot, so __detach and __destroy release it */
	*slot = bpf_program__attach(prog);
	if (!*slot) {
		int err = errno;

		pr_warn("cannot attach to tracepoint %s: %s%s\n", what, strerror(err), hint(err));
		return -1;
	}
	l->nlinks++;
	return 0;
}

int loader_start(struct sh_loader *l, const struct options *o, const struct sh_cgroup_cfg *cg)
{
	struct schedhist_bpf *skel;
	bool wakeups = o->metric != SH_METRIC_OFFCPU;
	struct sh_key other = { .id = SH_OTHER_ID };
	void *zero = NULL;
	int err;

	memset(l, 0, sizeof(*l));
	libbpf_set_print(libbpf_print);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		pr_warn("kernel BTF not found at /sys/kernel/btf/vmlinux: schedhist needs a kernel "
			"built with CONFIG_DEBUG_INFO_BTF=y\n");
		return -1;
	}
	l->ncpus = libbpf_num_possible_cpus();
	if (l->ncpus <= 0) {
		pr_warn("cannot count possible CPUs: %s\n", strerror(-l->ncpus));
		return -1;
	}

	skel = schedhist_bpf__open();
	if (!skel) {
		pr_warn("cannot open BPF object: %s\n", strerror(errno));
		return -1;
	}
	l->skel = skel;
	skel->rodata->metric = o->metric;
	skel->rodata->key_type = o->key_type;
	skel->rodata->filter_tgid = o->pid;
	skel->rodata->cgroup_hier = cg->hier;
	skel->rodata->cgroup_depth = o->cgroup_depth;
	skel->rodata->filter_cgid = cg->filter_id;
	skel->rodata->filter_cglevel = cg->filter_level;

	/* the wakeup programs only for the metrics that need them */
	bpf_program__set_autoload(skel->progs.schedhist_wakeup, wakeups);
	bpf_program__set_autoload(skel->progs.schedhist_wakeup_new, o->metric == SH_METRIC_RUNQ);
	bpf_map__set_max_entries(skel->maps.hists, o->max_keys + 1);

	err = schedhist_bpf__load(skel);
	if (err) {
		const char *tp = missing_tracepoint(o);

		err = -err;
		if (tp)	/* libbpf says only ESRCH ("No such process") */
			pr_warn("cannot load BPF programs: this kernel has no BTF tracepoint %s "
				"(no btf_trace_%s in /sys/kernel/btf/vmlinux)%s\n", tp, tp,
				sh_log_level < SH_LOG_DEBUG ? "; -vv shows libbpf's log" : "");
		else
			pr_warn("cannot load BPF programs: %s%s%s\n", strerror(err), hint(err),
				sh_log_level < SH_LOG_DEBUG ? "; -vv shows libbpf's log" : "");
		goto fail;
	}
	l->hists_fd = bpf_map__fd(skel->maps.hists);
	l->pcpu_fd = bpf_map__fd(skel->maps.pcpu);

	/* [other] exists before any event, so overflow never needs a new slot */
	zero = calloc(l->ncpus, sizeof(struct sh_hist));
	if (!zero || bpf_map_update_elem(l->hists_fd, &other, zero, BPF_NOEXIST)) {
		pr_warn("cannot create the [other] entry of the key map: %s\n", strerror(errno));
		goto fail;
	}
	free(zero);
	zero = NULL;

	if (attach(l, skel->progs.schedhist_switch, &skel->links.schedhist_switch, "sched_switch"))
		goto fail;
	if (wakeups && attach(l, skel->progs.schedhist_wakeup, &skel->links.schedhist_wakeup,
			       "sched_wakeup"))
		goto fail;
	if (o->metric == SH_METRIC_RUNQ && attach(l, skel->progs.schedhist_wakeup_new,
						   &skel->links.schedhist_wakeup_new, "sched_wakeup_new"))
		goto fail;
	pr_info("attached %d program(s), %d possible CPUs, key map capacity %u + [other]\n",
		l->nlinks, l->ncpus, o->max_keys);
	return 0;
fail:
	free(zero);
	loader_close(l);
	return -1;
}

void loader_detach(struct sh_loader *l)
{
	if (!l->skel)
		return;
	schedhist_bpf__detach(l->skel);
	/*
	 * Closing a link removes the tracepoint probe but does not wait for
	 * a program already running on another CPU: one that counted an
	 * event as seen may not have recorded it yet. Tracepoint probes run
	 * in RCU read-side sections, so a grace period (which
	 * MEMBARRIER_CMD_GLOBAL waits for) lets them finish and makes the
	 * final reading exact. Where that command is refused (nohz_full),
	 * a pause far longer than any program run does the same in practice.
	 */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(10000);
}

void loader_close(struct sh_loader *l)
{
	if (l->skel)
		schedhist_bpf__destroy(l->skel);
	memset(l, 0, sizeof(*l));
}

__u32 loader_next_epoch(struct sh_loader *l)
{
	__u32 old = l->skel->data->sh_epoch;

	l->skel->data->sh_epoch = old + 1;
	__sync_synchronize();
	return old;
}
