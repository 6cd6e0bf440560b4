// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What this kernel and process offer, asked before and while loading (kernel_probe.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <cap-ng.h>

#include "schedhist.h"
#include "kernel/kernel_probe.h"
#include "model/cgroup.h"
#include "lib/log.h"

int probe_cgroup_subsys_id(const char *name)
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
	/* css_set::subsys[] has CGROUP_SUBSYS_COUNT entries */
	if (ret >= SH_CGROUP_SUBSYS_MAX || (count >= 0 && ret >= count))
		return -1;
	return ret;
}

const char *probe_missing_tracepoint(const struct tp *tps, int n)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const char *missing = NULL;
	char name[64];
	int i;

	if (!btf)
		return NULL;
	for (i = 0; i < n && !missing; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", tps[i].name);
		if (tps[i].want && btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0)
			missing = tps[i].name;
	}
	btf__free(btf);
	return missing;
}

bool has_member(const struct btf *btf, const char *sname, const char *mname)
{
	const struct btf_type *t;
	const struct btf_member *m;
	int id, i;

	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), mname))
			return true;
	return false;
}

static bool missing_member(const struct btf *btf, const char *const (*need)[2], size_t n,
			   char *msg, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!has_member(btf, need[i][0], need[i][1])) {
			snprintf(msg, len, "the kernel's BTF has no %s::%s", need[i][0],
				 need[i][1]);
			return true;
		}
	}
	return false;
}

int probe_method(const char **why, int *clock)
{
	static const char *const rq_clock[][2] = {
		{ "task_struct", "se" },
		{ "sched_entity", "cfs_rq" },
		{ "cfs_rq", "rq" },			/* CONFIG_FAIR_GROUP_SCHED */
		{ "rq", "clock" },
	};
	static const char *const info[][2] = {
		{ "task_struct", "sched_info" },	/* CONFIG_SCHED_INFO */
		{ "sched_info", "last_queued" },
		{ "sched_info", "run_delay" },
		{ "sched_info", "pcount" },
	};
	static char msg[128];
	struct btf *btf = btf__load_vmlinux_btf();

	*why = NULL;
	*clock = SH_CLOCK_KTIME;
	if (!btf) {
		*why = "no kernel BTF";
		return SH_METHOD_WAKEUP;
	}
	if (!missing_member(btf, rq_clock, sizeof(rq_clock) / sizeof(rq_clock[0]), msg,
			    sizeof(msg))) {
		*clock = SH_CLOCK_RQ;
		if (missing_member(btf, info, sizeof(info) / sizeof(info[0]), msg, sizeof(msg)))
			*why = msg;
	} else {
		*why = msg;
	}
	btf__free(btf);
	return *why ? SH_METHOD_WAKEUP : SH_METHOD_SCHED_INFO;
}

/* The power of two at or above pid_max, at most SH_TASK_ENTRIES_MAX (beyond: task storage). */
__u32 probe_task_table_size(void)
{
	unsigned long pid_max = SH_TASK_ENTRIES_MAX;
	__u32 n = 1;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");

	if (f) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = SH_TASK_ENTRIES_MAX;
		fclose(f);
	}
	while (n < pid_max && n < SH_TASK_ENTRIES_MAX)
		n <<= 1;
	return n;
}

#ifndef CAP_BPF
#define CAP_BPF 39	/* Linux 5.8; older uapi headers lack it */
#endif
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

int probe_preflight(void)
{
	bool admin, bpf, perfmon;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		pr_warn("kernel BTF not found at /sys/kernel/btf/vmlinux: schedhist needs a kernel "
			"built with CONFIG_DEBUG_INFO_BTF=y (in a container: mount /sys/kernel/btf)\n");
		return -1;
	}
	if (capng_get_caps_process()) {
		pr_warn("cannot read this process's capabilities\n");
		return -1;
	}
	/* loading needs CAP_BPF, attaching tracepoints CAP_PERFMON; CAP_SYS_ADMIN stands for both */
	admin = capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN);
	bpf = admin || capng_have_capability(CAPNG_EFFECTIVE, CAP_BPF);
	perfmon = admin || capng_have_capability(CAPNG_EFFECTIVE, CAP_PERFMON);
	if (!bpf || !perfmon) {
		pr_warn("missing capabilit%s %s%s%s: %s %s (podman --cap-add, Kubernetes "
			"securityContext.capabilities.add)\n", bpf || perfmon ? "y" : "ies",
			bpf ? "" : "CAP_BPF", bpf || perfmon ? "" : " and ", perfmon ? "" : "CAP_PERFMON",
			geteuid() ? "run as root, or grant" : "grant", bpf || perfmon ? "it" : "them");
		return -1;
	}
	return 0;
}
