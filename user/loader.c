// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Opens the skeleton, sets the knobs, loads, attaches only what is needed. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <cap-ng.h>

#include "schedhist.h"
#include "schedhist.skel.h"
#include "loader.h"
#include "kmem.h"
#include "hist.h"
#include "cgroup.h"
#include "log.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* -vv: libbpf's warnings and info (the verifier log); -vvv: its debug */
	if (log_level() < SH_LOG_DEBUG || (level == LIBBPF_DEBUG && log_level() <= SH_LOG_DEBUG))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const char *hint(int err)
{
	if (err == EPERM || err == EACCES)
		return geteuid() ? " (run as root, or with CAP_BPF and CAP_PERFMON)"
				 : " (is BPF restricted by lockdown, a security module or a seccomp profile?)";
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

/* Live keys beyond which the kernel folds gone keys itself (see loader_start). */
#define FOLD_ABOVE 512

/* The tracepoints a run attaches to, by program. */
struct tp {
	const char *name;		/* tracepoint */
	bool want;			/* this run needs it */
};

/*
 * After a failed load: the first tracepoint the run needs that the kernel's
 * BTF lacks (tp_btf programs attach through its btf_trace_NAME typedef),
 * or NULL if they are all there and the failure was something else.
 */
static const char *missing_tracepoint(const struct tp *tps, int n)
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

/* Does struct @sname in @btf have member @mname? */
static bool has_member(const struct btf *btf, const char *sname, const char *mname)
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

/* The first of @n (struct, member) pairs @btf lacks, said in @msg (@len bytes); false if none. */
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

int loader_probe_method(const char **why, int *clock)
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

static int attach(struct loader *l, struct bpf_program *prog, struct bpf_link **slot,
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

/* Create a fixed entry (key [other] or [exited]) before any event needs it. */
static int make_entry(struct loader *l, __u64 id, const char *what, size_t vsize)
{
	struct sh_key k = { .id = id };
	void *zero = calloc(l->ncpus, vsize);
	int err = 0;

	if (!zero || bpf_map_update_elem(l->hists_fd, &k, zero, BPF_NOEXIST)) {
		pr_warn("cannot create the %s entry of the key map: %s\n", what, strerror(errno));
		err = -1;
	}
	free(zero);
	return err;
}

/* --causes: the [other] entry of the cause map, which takes the keys it has no room for. */
static int make_cause_other(struct loader *l)
{
	struct sh_key k = { .id = SH_OTHER_ID };
	void *zero = calloc(1, sizeof(struct sh_causes));
	int err = 0;

	if (!zero || bpf_map_update_elem(l->cause_fd, &k, zero, BPF_NOEXIST)) {
		pr_warn("cannot create the [other] entry of the cause map: %s\n", strerror(errno));
		err = -1;
	}
	free(zero);
	return err;
}

/* Map @fd's @len bytes (rounded up to pages) into *@mem, *@mlen. */
static int map_array(int fd, size_t len, void **mem, size_t *mlen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	*mlen = (len + page - 1) / page * page;
	p = mmap(NULL, *mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	*mem = p;
	return 0;
}

/*
 * The store, its keys, its seq brackets and the CPUs' caches, mapped
 * (BPF_F_MMAPABLE): the poller reads them in place at every reading,
 * with no copy and no system call.
 */
static int map_slots(struct loader *l)
{
	size_t vsize = (size_t)l->nmetrics * hist_bytes();
	void *keys, *seq;

	if (map_array(l->slots_fd, (size_t)l->nr_slots * vsize, &l->slots_mem, &l->slots_len) ||
	    map_array(l->slot_keys_fd, (size_t)l->nr_slots * sizeof(struct sh_key), &keys,
		      &l->slot_keys_len))
		goto fail;
	l->slot_keys_mem = keys;
	if (map_array(l->slot_seq_fd, (size_t)l->nr_slots * sizeof(struct sh_slot_seq), &seq,
		      &l->slot_seq_len))
		goto fail;
	l->slot_seq_mem = seq;
	if (map_array(l->cache_fd, (size_t)l->ncpus * l->cache_entries * sh_cent_size(l->nmetrics, sh_nb),
		      &l->cache_mem, &l->cache_len))
		goto fail;
	return 0;
fail:
	pr_warn("cannot map the key store: %s\n", strerror(errno));
	return -1;
}

/*
 * Before attaching: every slot free (slot_keys: SH_FREE_ID), and every
 * slot index on the free stack, the last pushed first out: slots are
 * taken from 0 up.
 */
static int init_slots(struct loader *l)
{
	struct sh_key free_key = { .id = SH_FREE_ID };
	size_t csize = sh_cent_size(l->nmetrics, sh_nb);
	__u32 i;

	/* every cache entry empty (an entry of zeroes would hold slot 0) */
	for (i = 0; i < (__u32)l->ncpus * l->cache_entries; i++)
		((struct sh_cent *)((char *)l->cache_mem + i * csize))->idx = SH_CENT_EMPTY;

	for (i = 0; i < l->nr_slots; i++)
		if (bpf_map_update_elem(l->slot_keys_fd, &i, &free_key, BPF_ANY))
			goto fail;
	for (i = l->nr_slots; i-- > 0;)
		if (bpf_map_update_elem(l->free_fd, NULL, &i, BPF_ANY))
			goto fail;
	return 0;
fail:
	pr_warn("cannot set up the key store: %s\n", strerror(errno));
	return -1;
}

/*
 * The sched_switch program for @sp: one compiled for its metric set and
 * method where there is one (runq, offcpu and all three by sched_info;
 * runq by the wakeup method), in its plain form when nothing but the
 * metrics is asked for (key none or cpu, no filter, no --culprits, no
 * --stacks, no --causes), runq with --culprit-mode time its own, else the
 * one for any settings. --causes has a program for each metric set with
 * runq (sched_info: options and start_probe() refuse the rest), which
 * tests --culprits and --culprit-mode like the one for any settings: the
 * one for any has no --causes code. Its link slot in *@link.
 */
static struct bpf_program *switch_prog(struct schedhist_bpf *skel, int method,
				       const struct loader_spec *sp, struct bpf_link ***link)
{
	struct {
		__u32 metrics;
		struct bpf_program *prog;
		struct bpf_link **link;
	} progs[] = {
#define PROG(suffix, bits) \
		{ bits, skel->progs.schedhist_switch_##suffix, &skel->links.schedhist_switch_##suffix },
		SH_SWITCH_VARIANTS(PROG)
#undef PROG
	};
	bool plain = (sp->key_type == SH_KEY_NONE || sp->key_type == SH_KEY_CPU) && !sp->pid &&
		     !sp->cg.filter_id && !sp->culprits && !sp->stacks && !sp->causes;
	__u32 want = sp->metrics | (plain ? SH_SWITCH_PLAIN : 0) |
		     (method == SH_METHOD_WAKEUP ? SH_SWITCH_WAKEUP : 0) |
		     /* --causes' programs test --culprit-mode at run time */
		     (sp->causes ? SH_SWITCH_CAUSES :
		      sp->culprits && sp->culprit_mode == SH_CULPRIT_TIME ? SH_SWITCH_CULPRIT_TIME : 0);
	size_t i;

	/* every one off; the caller turns on the one it attaches */
	bpf_program__set_autoload(skel->progs.schedhist_switch, false);
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		bpf_program__set_autoload(progs[i].prog, false);
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		if (progs[i].metrics == want) {
			*link = progs[i].link;
			return progs[i].prog;
		}
	}
	*link = &skel->links.schedhist_switch;
	return skel->progs.schedhist_switch;
}

/*
 * Entries of the task table: the power of two at or above the kernel's
 * pid_max (every live tid has its own entry), at most SH_TASK_ENTRIES_MAX
 * (beyond, tids share entries and the tasks that find theirs taken keep
 * their state in task storage: exact, a little slower).
 */
static __u32 task_table_size(void)
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

int loader_preflight(void)
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

/* Keys that live in the key maps (cpu keys are the per-CPU index, none has one). */
static bool keyed_of(const struct loader_spec *sp)
{
	return sp->key_type != SH_KEY_NONE && sp->key_type != SH_KEY_CPU;
}

/* The programs a run may load: tracepoint, whether this run needs it, program, link. */
#define NPROGS 7
struct prog_plan {
	struct tp tps[NPROGS];
	struct bpf_program *progs[NPROGS];
	struct bpf_link **links[NPROGS];
};

/* Does the running kernel's BTF have member @mname of struct @sname? */
static bool kernel_has(const char *sname, const char *mname)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool has = btf && has_member(btf, sname, mname);

	btf__free(btf);
	return has;
}

/*
 * The CPUs, the metrics, and the method and clock this kernel gives for @sp;
 * -2 (a usage error, like a missing BTF) for a feature this kernel lacks.
 */
static int start_probe(struct loader *l, const struct loader_spec *sp)
{
	const char *why;
	int m, clock;

	memset(l, 0, sizeof(*l));
	libbpf_set_print(libbpf_print);
	l->ncpus = libbpf_num_possible_cpus();
	if (l->ncpus <= 0) {
		pr_warn("cannot count possible CPUs: %s\n", strerror(-l->ncpus));
		return -1;
	}
	l->metrics = sp->metrics;
	for (m = 0; m < SH_METRIC_NR; m++)
		l->nmetrics += !!(sp->metrics & (1U << m));

	l->method = loader_probe_method(&why, &clock);
	if (sp->method == SH_METHOD_SCHED_INFO && l->method != SH_METHOD_SCHED_INFO) {
		pr_warn("--method sched_info: not on this kernel (%s)\n", why);
		return -2;
	}
	if (sp->clock == SH_CLOCK_RQ && clock != SH_CLOCK_RQ) {
		pr_warn("--clock rq: not on this kernel (%s)\n", why);
		return -2;
	}
	/* ktime is the wakeup method's clock (options.c refuses it with --method sched_info) */
	if (sp->method == SH_METHOD_WAKEUP || sp->clock == SH_CLOCK_KTIME)
		l->method = SH_METHOD_WAKEUP;
	if (l->method == SH_METHOD_WAKEUP && sp->method == SH_METHOD_AUTO &&
	    sp->clock != SH_CLOCK_KTIME)
		pr_info("method wakeup: %s\n", why);
	l->clock = sp->clock == SH_CLOCK_KTIME ? SH_CLOCK_KTIME : clock;
	/* the cause split starts where sched_info stamps a wait (bpf/cause.bpf.h) */
	if (sp->causes && l->method != SH_METHOD_SCHED_INFO) {
		pr_warn("--causes needs the sched_info method, which this run does not use (%s)\n",
			why ? why : "--method wakeup or --clock ktime");
		return -2;
	}
	/* without it the throttled cause would read 0 (6.1 lacks it) */
	if (sp->causes && !kernel_has("cfs_rq", "throttled_clock_self_time")) {
		pr_warn("--causes: not on this kernel (its BTF has no cfs_rq::throttled_clock_self_time, "
			"a cgroup's own throttled time, which the throttled cause is)\n");
		return -2;
	}
	return 0;
}

/* Open the BPF object, set its settings, and choose the programs this run loads. */
static int start_open(struct loader *l, const struct loader_spec *sp, struct prog_plan *pp)
{
	const struct cgroup_cfg *cg = &sp->cg;
	struct schedhist_bpf *skel;
	bool hooks, tasks;
	struct bpf_link **sw_link;
	int i;

	skel = schedhist_bpf__open();
	if (!skel) {
		pr_warn("cannot open BPF object: %s\n", strerror(errno));
		return -1;
	}
	l->skel = skel;
	skel->rodata->metrics = sp->metrics;
	skel->rodata->method = l->method;
	skel->rodata->clock_src = l->clock;
	skel->rodata->key_type = sp->key_type;
	skel->rodata->nr_cpus = l->ncpus;
	skel->rodata->filter_tgid = sp->pid;
	skel->rodata->cgroup_hier = cg->hier;
	skel->rodata->cgroup_depth = sp->cgroup_depth;
	skel->rodata->filter_cgid = cg->filter_id;
	skel->rodata->filter_cglevel = cg->filter_level;
	skel->rodata->culprits = sp->culprits;
	skel->rodata->culprit_mode = sp->culprit_mode;
	skel->rodata->stacks = sp->stacks;
	/* the grid (--schema): the kernel's bucket index and histogram length */
	skel->rodata->schema = (__u32)sh_schema;
	skel->rodata->nbuckets = (__u32)sh_nb;
	grid_cells(sh_schema, (__u64 *)skel->rodata->cell_top, (__u8 *)skel->rodata->cell_base);

	/*
	 * Wakeup programs only for the wakeup method: sched_wakeup when a
	 * wait needs the wakeup time (offcpu alone does not), sched_wakeup_new
	 * always (a new task's first wait starts there). Reclaim programs
	 * only for keys that die: tasks (tid, pid) and cgroups.
	 */
	hooks = l->method == SH_METHOD_WAKEUP &&
		(sp->metrics & ((1U << SH_METRIC_RUNQ) | (1U << SH_METRIC_BLOCKED)));
	tasks = sp->key_type == SH_KEY_TID || sp->key_type == SH_KEY_PID;
	l->reclaims = tasks || sp->key_type == SH_KEY_CGROUP;
	/*
	 * Attached from the last to the first: sched_process_free (it frees
	 * task table entries) before sched_switch takes any, so no entry
	 * outlives its task.
	 */
	*pp = (struct prog_plan){
		.tps = {
			{ "sched_switch", true },
			{ "sched_wakeup", hooks },
			{ "sched_wakeup_new", l->method == SH_METHOD_WAKEUP },
			{ "cgroup_release", sp->key_type == SH_KEY_CGROUP },
			{ "sched_process_free", tasks || l->method == SH_METHOD_SCHED_INFO },
			{ "sched_wakeup", sp->causes },
			{ "sched_wakeup_new", sp->causes },
		},
		.progs = {
			switch_prog(skel, l->method, sp, &sw_link), skel->progs.schedhist_wakeup,
			skel->progs.schedhist_wakeup_new, skel->progs.schedhist_cgroup_release,
			skel->progs.schedhist_task_free, skel->progs.schedhist_cause_wakeup,
			skel->progs.schedhist_cause_wakeup_new,
		},
	};
	pp->links[0] = sw_link;
	pp->links[1] = &skel->links.schedhist_wakeup;
	pp->links[2] = &skel->links.schedhist_wakeup_new;
	pp->links[3] = &skel->links.schedhist_cgroup_release;
	pp->links[4] = &skel->links.schedhist_task_free;
	pp->links[5] = &skel->links.schedhist_cause_wakeup;
	pp->links[6] = &skel->links.schedhist_cause_wakeup_new;
	for (i = 0; i < NPROGS; i++)
		bpf_program__set_autoload(pp->progs[i], pp->tps[i].want);
	l->switch_link = pp->links[0];
	return 0;
}

/*
 * Cache entries per CPU: SH_CACHE, or SCHEDHIST_CACHE_ENTRIES (a power of
 * two up to SH_CACHE_MAX; 1 makes the tests' workloads miss at every
 * switch between two keys on a CPU). 0, or -2 when it is not one (said why).
 */
static int cache_size(struct loader *l)
{
	const char *e = getenv("SCHEDHIST_CACHE_ENTRIES");
	unsigned long n;
	char *end;

	l->cache_entries = SH_CACHE;
	if (!e)
		return 0;
	errno = 0;
	n = strtoul(e, &end, 10);
	if (errno || end == e || *end || !n || n > SH_CACHE_MAX || (n & (n - 1))) {
		pr_warn("SCHEDHIST_CACHE_ENTRIES '%s': want a power of two from 1 to %u\n", e,
			SH_CACHE_MAX);
		return -2;
	}
	l->cache_entries = (__u32)n;
	return 0;
}

/*
 * Size the maps: the task table, and the keys (--max-keys, or fewer to
 * fit --max-kernel-mem on this many CPUs). 0, -2 when even one key does
 * not fit the budget (said why), -1.
 */
static int start_size(struct loader *l, const struct loader_spec *sp)
{
	struct schedhist_bpf *skel = l->skel;
	bool keyed = keyed_of(sp);
	struct kmem_plan plan;
	struct kmem_cfg kc;
	__u32 max_keys;
	size_t vsize;

	if (cache_size(l))
		return -2;
	/* the task table (sched_info method): an entry per possible tid, up to a cap */
	l->task_entries = l->method != SH_METHOD_SCHED_INFO ? 1 :
			sp->task_table ? sp->task_table : task_table_size();
	skel->rodata->task_mask = l->task_entries - 1;
	bpf_map__set_max_entries(skel->maps.tasks, l->task_entries);
	/* one histogram per metric in every value; [other] and [exited] besides the keys */
	vsize = (size_t)l->nmetrics * hist_bytes();
	/*
	 * every key takes a slot of the store, the key map holds [other] and
	 * [exited]: --max-keys in all (see loader.h), or fewer when the maps
	 * would not fit --max-kernel-mem on this many CPUs
	 */
	kc = (struct kmem_cfg){ .ncpus = l->ncpus, .nmetrics = l->nmetrics, .schema = sh_schema, .keyed = keyed,
				.key_cpu = sp->key_type == SH_KEY_CPU, .max_keys = sp->max_keys,
				.task_entries = l->task_entries, .culprits = sp->culprits,
				.culprit_time = sp->culprit_mode == SH_CULPRIT_TIME,
				.stacks = sp->stacks, .causes = sp->causes,
				.cache_entries = l->cache_entries };
	if (kmem_fit(&kc, sp->max_kernel_mem, sp->max_keys_set, &plan)) {
		if (sp->max_keys_set)
			pr_warn("--max-keys %u needs %llu MiB of kernel memory on %d possible CPUs, "
				"above --max-kernel-mem %llu MiB: raise it or lower --max-keys\n",
				sp->max_keys, (unsigned long long)(plan.total + (1 << 20) - 1) >> 20,
				l->ncpus, (unsigned long long)sp->max_kernel_mem >> 20);
		else
			pr_warn("--max-kernel-mem %llu MiB is too small: these settings need %llu MiB "
				"on %d possible CPUs for a single key\n",
				(unsigned long long)sp->max_kernel_mem >> 20,
				(unsigned long long)(plan.total + (1 << 20) - 1) >> 20, l->ncpus);
		return -2;
	}
	max_keys = kc.max_keys;
	if (keyed && max_keys < sp->max_keys)
		pr_info("--max-kernel-mem %llu MiB holds %u keys on %d possible CPUs (of %u asked): "
			"the keys beyond go to [other]\n", (unsigned long long)sp->max_kernel_mem >> 20,
			max_keys, l->ncpus, sp->max_keys);
	l->max_keys = keyed ? max_keys : 0;
	l->kmem_bytes = plan.total;
	l->kmem_budget = sp->max_kernel_mem;
	l->nr_slots = plan.nr_slots;
	skel->rodata->nr_slots = l->nr_slots;
	skel->rodata->cache_mask = l->cache_entries - 1;
	/*
	 * gone keys stay (marked) for the poller while their place (the
	 * slots, the key map) holds at most half its capacity, and at most
	 * FOLD_ABOVE keys: beyond, a fork storm would fill it with dead keys
	 * between two readings (and in the key map, every new key takes a
	 * fresh element that the kernel's caches, refilled in the
	 * background, may not have at that instant: no_mem); the kernel
	 * folds them into [exited] then, and frees their slots itself
	 */
	skel->rodata->fold_above = (max_keys - l->nr_slots) / 2 < FOLD_ABOVE ?
				   (max_keys - l->nr_slots) / 2 : FOLD_ABOVE;
	skel->rodata->slot_fold_above = l->nr_slots / 2 < FOLD_ABOVE ? l->nr_slots / 2 : FOLD_ABOVE;
	bpf_map__set_max_entries(skel->maps.hists, keyed ? max_keys - l->nr_slots + 2 : 1);
	bpf_map__set_max_entries(skel->maps.slots, plan.max_entries[KMEM_SLOTS]);
	bpf_map__set_max_entries(skel->maps.slot_seq, plan.max_entries[KMEM_SLOT_SEQ]);
	bpf_map__set_max_entries(skel->maps.cache, plan.max_entries[KMEM_CACHE]);
	bpf_map__set_max_entries(skel->maps.slot_keys, l->nr_slots ? l->nr_slots : 1);
	bpf_map__set_max_entries(skel->maps.free_slots, l->nr_slots ? l->nr_slots : 1);
	/* every key of either place, and [other] and [exited] */
	bpf_map__set_max_entries(skel->maps.keydir, l->nr_slots ? max_keys + 2 : 1);
	/*
	 * --culprits: a few culprits per key (the poller removes idle pairs);
	 * --stacks: one entry per key of the key map (key cpu: per CPU)
	 */
	if (sp->culprits)
		bpf_map__set_max_entries(skel->maps.culprit_map, SH_CULPRITS_PER_KEY *
					 (max_keys + 2));
	/* --causes: every key, [other] besides (key cpu: per CPU); the groups' run times */
	if (sp->causes) {
		bpf_map__set_max_entries(skel->maps.cause_map, keyed ? max_keys + 2 :
					 sp->key_type == SH_KEY_CPU ? (__u32)l->ncpus : 1);
		bpf_map__set_max_entries(skel->maps.cause_self, SH_CAUSE_GROUPS);
	}
	/* --culprit-mode time: each CPU's ring of its last runs */
	if (sp->culprits && sp->culprit_mode == SH_CULPRIT_TIME)
		bpf_map__set_max_entries(skel->maps.run_ring, (__u32)l->ncpus);
	if (sp->stacks)
		bpf_map__set_max_entries(skel->maps.stack_map, keyed ? max_keys + 2 :
					 sp->key_type == SH_KEY_CPU ? (__u32)l->ncpus : 1);
	if (bpf_map__set_value_size(skel->maps.hists, vsize) ||
	    bpf_map__set_value_size(skel->maps.slots, vsize) ||
	    bpf_map__set_value_size(skel->maps.cache, sh_cent_size(l->nmetrics, sh_nb)) ||
	    bpf_map__set_value_size(skel->maps.cache_spare, sh_cent_size(l->nmetrics, sh_nb)) ||
	    bpf_map__set_value_size(skel->maps.newval, vsize)) {
		pr_warn("cannot size the key map's values: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Load the programs; a missing tracepoint said by name. */
static int start_load(struct loader *l, const struct prog_plan *pp)
{
	int err = schedhist_bpf__load(l->skel);

	if (err) {
		const char *tp = missing_tracepoint(pp->tps, NPROGS);

		err = -err;
		if (tp)	/* libbpf says only ESRCH ("No such process") */
			pr_warn("cannot load BPF programs: this kernel has no BTF tracepoint %s "
				"(no btf_trace_%s in /sys/kernel/btf/vmlinux)%s\n", tp, tp,
				log_level() < SH_LOG_DEBUG ? "; -vv shows libbpf's log" : "");
		else
			pr_warn("cannot load BPF programs: %s%s%s\n", strerror(err), hint(err),
				log_level() < SH_LOG_DEBUG ? "; -vv shows libbpf's log" : "");
		return -1;
	}
	return 0;
}

/* The maps' fds and mappings, the slots made free, [other] and [exited] made. */
static int start_map(struct loader *l, const struct loader_spec *sp)
{
	struct schedhist_bpf *skel = l->skel;
	size_t vsize = (size_t)l->nmetrics * hist_bytes();

	l->hists_fd = bpf_map__fd(skel->maps.hists);
	l->pcpu_fd = bpf_map__fd(skel->maps.pcpu);
	l->culprit_fd = sp->culprits ? bpf_map__fd(skel->maps.culprit_map) : -1;
	l->stack_fd = sp->stacks ? bpf_map__fd(skel->maps.stack_map) : -1;
	l->cause_fd = sp->causes ? bpf_map__fd(skel->maps.cause_map) : -1;
	l->slots_fd = bpf_map__fd(skel->maps.slots);
	l->slot_keys_fd = bpf_map__fd(skel->maps.slot_keys);
	l->keydir_fd = bpf_map__fd(skel->maps.keydir);
	l->free_fd = bpf_map__fd(skel->maps.free_slots);
	l->slot_seq_fd = bpf_map__fd(skel->maps.slot_seq);
	l->cache_fd = bpf_map__fd(skel->maps.cache);
	if (l->nr_slots && (map_slots(l) || init_slots(l)))
		return -1;

	/* made up front, so overflow and reclaim never need a new element */
	if (keyed_of(sp) && make_entry(l, SH_OTHER_ID, "[other]", vsize))
		return -1;
	if (l->reclaims && make_entry(l, SH_EXITED_ID, "[exited]", vsize))
		return -1;
	if (sp->causes && keyed_of(sp) && make_cause_other(l))
		return -1;

	l->live_keys = &skel->bss->sh_live_keys;
	l->slots_taken = &skel->bss->sh_slots_taken;
	return 0;
}

/* Attach the programs this run needs, from the last to the first. */
static int start_attach(struct loader *l, const struct prog_plan *pp)
{
	int i;

	for (i = NPROGS - 1; i >= 0; i--)
		if (pp->tps[i].want && attach(l, pp->progs[i], pp->links[i], pp->tps[i].name))
			return -1;
	pr_info("attached %d program(s), method %s, clock %s, %d possible CPUs, key map capacity %u"
		" (%u in slots, a cache of %u per CPU) + [other]%s, task table %u entries, kernel memory"
		" %llu bytes at most (--max-kernel-mem %llu MiB)\n", l->nlinks,
		method_name(l->method), clock_name(l->clock), l->ncpus,
		l->max_keys, l->nr_slots, l->nr_slots ? l->cache_entries : 0,
		l->reclaims ? " + [exited]" : "",
		l->method == SH_METHOD_SCHED_INFO ? l->task_entries : 0,
		(unsigned long long)l->kmem_bytes, (unsigned long long)l->kmem_budget >> 20);
	return 0;
}

int loader_start(struct loader *l, const struct loader_spec *sp)
{
	struct prog_plan pp;
	int err;

	err = start_probe(l, sp);
	if (err)
		return err;
	if (start_open(l, sp, &pp))
		goto fail;
	err = start_size(l, sp);
	if (err) {
		loader_close(l);
		return err;
	}
	if (start_load(l, &pp) || start_map(l, sp) || start_attach(l, &pp))
		goto fail;
	return 0;
fail:
	loader_close(l);
	return -1;
}

/*
 * Wait until every tracepoint program run that began before now has ended.
 * Tracepoint probes run in RCU read-side sections (with preemption off),
 * and MEMBARRIER_CMD_GLOBAL waits for a grace period (synchronize_rcu).
 * Where that command is refused (nohz_full), a pause far longer than any
 * program run does the same in practice.
 */
void loader_grace_period(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(10000);
}

void loader_detach(struct loader *l)
{
	if (!l->skel)
		return;
	schedhist_bpf__detach(l->skel);
	/*
	 * Closing a link removes the tracepoint probe but does not wait for
	 * a program already running on another CPU: one that counted an
	 * event as seen may not have recorded it yet: a grace period lets
	 * them finish and makes the final reading exact.
	 */
	loader_grace_period();
}

__u64 loader_keys_made(const struct loader *l)
{
	return l->skel ? l->skel->bss->sh_keys_made : 0;
}

void loader_close(struct loader *l)
{
	if (l->slots_mem)
		munmap(l->slots_mem, l->slots_len);
	if (l->slot_keys_mem)
		munmap(l->slot_keys_mem, l->slot_keys_len);
	if (l->slot_seq_mem)
		munmap(l->slot_seq_mem, l->slot_seq_len);
	if (l->cache_mem)
		munmap(l->cache_mem, l->cache_len);
	if (l->skel)
		schedhist_bpf__destroy(l->skel);
	memset(l, 0, sizeof(*l));
}

void loader_read_begin(struct loader *l)
{
	if (!l->reclaims || !l->switch_link || !*l->switch_link)
		return;	/* nothing folds, or detached: nothing runs any more */
	/* docs/key-lifecycle.md, "No fold while the poller reads" */
	l->skel->bss->sh_reading = 1;
	__sync_synchronize();
	loader_grace_period();
}

void loader_read_end(struct loader *l)
{
	__sync_synchronize();
	l->skel->bss->sh_reading = 0;
}

__u32 loader_next_epoch(struct loader *l)
{
	__u32 old = l->skel->data->sh_epoch;

	l->skel->data->sh_epoch = old + 1;
	__sync_synchronize();
	return old;
}
