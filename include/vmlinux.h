/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A trimmed vmlinux.h: only the kernel types and fields the BPF side reads.
 * Every struct carries preserve_access_index, so each field access is a
 * CO-RE relocation that libbpf resolves against the running kernel's BTF
 * (/sys/kernel/btf/vmlinux) at load time: member offsets and the layout of
 * the rest of each struct do not matter here, only member names and types.
 * Why trimmed rather than a full `bpftool btf dump` (134k lines on 6.x):
 * the build does not depend on the build host's kernel, and a reader sees
 * exactly which kernel state schedhist touches.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
typedef int pid_t;
enum { false = 0, true = 1 };

/* uapi constants (include/uapi/linux/bpf.h) */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_PERCPU_HASH = 10,
	BPF_MAP_TYPE_STACK = 23,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
	BPF_F_LOCK = 4,
};

enum {
	BPF_F_NO_PREALLOC = 1,
	BPF_F_MMAPABLE = 1024,
};

enum {
	BPF_LOCAL_STORAGE_GET_F_CREATE = 1,
};

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct kernfs_node {
	u64 id;
};

struct cgroup;

struct cgroup_subsys_state {
	struct cgroup *cgroup;
};

struct cgroup_root {
	int hierarchy_id;
};

struct cgroup {
	struct cgroup_subsys_state self;
	int level;
	struct kernfs_node *kn;
	struct cgroup_root *root;
	struct cgroup *ancestors[0];
};

struct css_set {
	struct cgroup_subsys_state *subsys[32];	/* CGROUP_SUBSYS_COUNT: size irrelevant to CO-RE */
	struct cgroup *dfl_cgrp;
};

struct thread_info {
	u32 cpu;
};

typedef struct {
	int counter;
} atomic_t;

typedef struct refcount_struct {
	atomic_t refs;
} refcount_t;

struct signal_struct {
	refcount_t sigcnt;
	atomic_t live;
};

/* the run queue: its clock is what sched_info stamps with (rq_clock()) */
struct rq {
	u64 clock;
	int cpu;		/* CONFIG_SMP */
	u64 prev_steal_time;	/* --causes: CONFIG_PARAVIRT_TIME_ACCOUNTING */
};

struct cfs_rq {
	struct rq *rq;		/* CONFIG_FAIR_GROUP_SCHED */
	/* --causes: CONFIG_CFS_BANDWIDTH, 6.8 and later */
	u64 throttled_clock_self;
	u64 throttled_clock_self_time;
};

struct task_group;

struct sched_entity {
	struct cfs_rq *cfs_rq;	/* CONFIG_FAIR_GROUP_SCHED */
};

/* CONFIG_SCHED_INFO: what /proc/PID/task/TID/schedstat shows */
struct sched_info {
	unsigned long pcount;
	unsigned long long run_delay;
	unsigned long long last_queued;
};

struct ns_common {
	unsigned int inum;
};

struct pid_namespace {
	struct ns_common ns;
};

struct nsproxy {
	struct pid_namespace *pid_ns_for_children;
};

struct task_struct {
	struct thread_info thread_info;
	unsigned int __state;
	unsigned int flags;		/* --causes: PF_KTHREAD */
	unsigned int cpu;
	struct sched_entity se;
	struct sched_info sched_info;
	pid_t pid;
	pid_t tgid;
	char comm[16];
	struct signal_struct *signal;
	struct css_set *cgroups;
	struct nsproxy *nsproxy;
	u64 start_time;
	struct task_group *sched_task_group;	/* --causes: CONFIG_CGROUP_SCHED */
};

#pragma clang attribute pop

#endif /* __VMLINUX_H__ */
