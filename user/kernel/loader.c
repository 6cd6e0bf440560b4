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
#include "kernel/loader.h"
#include "model/kmem.h"
#include "model/hist.h"
#include "model/cgroup.h"
#include "lib/log.h"
#include "kernel/kernel_probe.h"

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

static int attach(struct loader *l, struct bpf_program *prog, struct bpf_link **link,
		  const char *what)
{
	/* kept in the skeleton's link, so __detach and __destroy release it */
	*link = bpf_program__attach(prog);
	if (!*link) {
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

/* The store, its keys, seq brackets and caches, mapped: read in place, no copy, no syscall. */
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

/* Before attaching: every slot free, all on the free stack so slots are taken from 0 up. */
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
 * The sched_switch program compiled for @sp's metric set and method, its plain form when
 * only metrics are asked for, else the one for any settings; its link slot in *@link.
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

/* The programs a run may load: tracepoint, whether this run needs it, program, link. */
#define NPROGS 7
struct prog_plan {
	struct tp tps[NPROGS];
	struct bpf_program *progs[NPROGS];
	struct bpf_link **links[NPROGS];
};

static bool kernel_has(const char *sname, const char *mname)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool has = btf && has_member(btf, sname, mname);

	btf__free(btf);
	return has;
}

/* The CPUs, metrics, method and clock for @sp; -2 (usage) for a feature this kernel lacks. */
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

	l->method = probe_method(&why, &clock);
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
	skel->rodata->schema = (__u32)sh_schema;
	skel->rodata->nbuckets = (__u32)sh_nb;
	grid_cells(sh_schema, (__u64 *)skel->rodata->cell_top, (__u8 *)skel->rodata->cell_base);

	/*
	 * Wakeup hooks only for the wakeup method (sched_wakeup only if a metric needs the wakeup
	 * time); reclaim hooks only for keys that die (tasks, cgroups).
	 */
	hooks = l->method == SH_METHOD_WAKEUP &&
		(sp->metrics & ((1U << SH_METRIC_RUNQ) | (1U << SH_METRIC_BLOCKED)));
	tasks = sp->key_type == SH_KEY_TID || sp->key_type == SH_KEY_PID;
	l->reclaims = tasks || sp->key_type == SH_KEY_CGROUP;
	/* Attached last to first: sched_process_free before sched_switch takes any entry. */
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

static int start_load(struct loader *l, const struct prog_plan *pp)
{
	int err = schedhist_bpf__load(l->skel);

	if (err) {
		const char *tp = probe_missing_tracepoint(pp->tps, NPROGS);

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
	if (loader_keyed(sp) && make_entry(l, SH_OTHER_ID, "[other]", vsize))
		return -1;
	if (l->reclaims && make_entry(l, SH_EXITED_ID, "[exited]", vsize))
		return -1;
	if (sp->causes && loader_keyed(sp) && make_cause_other(l))
		return -1;

	l->live_keys = &skel->bss->sh_live_keys;
	l->slots_taken = &skel->bss->sh_slots_taken;
	return 0;
}

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
	err = loader_size(l, sp);
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

/* Wait out every program run begun before now: an RCU grace period (membarrier, else a pause). */
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
	/* A closed link does not wait for a program running elsewhere: the grace period does. */
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

struct read_maps loader_maps(const struct loader *l, int key_type)
{
	return (struct read_maps){ .pcpu_fd = l->pcpu_fd, .hists_fd = l->hists_fd,
				   .key_type = key_type, .live_keys = l->live_keys,
				   .slots_taken = l->slots_taken, .nr_slots = l->nr_slots,
				   .cache_entries = l->cache_entries, .slots_mem = l->slots_mem,
				   .slot_keys_mem = l->slot_keys_mem, .slot_seq_mem = l->slot_seq_mem,
				   .cache_mem = l->cache_mem, .keydir_fd = l->keydir_fd,
				   .free_fd = l->free_fd, .grace_period = loader_grace_period };
}
