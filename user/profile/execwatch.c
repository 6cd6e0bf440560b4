// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --profile's exec watcher: the exec log polled, each new program's maps read while it runs. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/loop.h"
#include "schedhist_profile.h"
#include "profile_execs.skel.h"
#include "profile/execwatch.h"

struct execwatch {
	struct profile_execs_bpf *skel;
	struct sym_cache *sym;
	int now_fd;		/* exec_now */
	int timer_fd;		/* wakes the poller every EXECWATCH_POLL_NS, -1: none */
	bool watching;		/* the timer given to loop_watch(), the exec probe set */
	__u64 ns_per_tick;
	__u64 next;		/* the number of the next execve() to take from the log */
	__u64 second, reads_this_second, seen, read, missed;
};

enum slot_state {
	SLOT_TAKEN,		/* copied whole */
	SLOT_WRITING,		/* its execve() still being written: come back */
	SLOT_OVERWRITTEN,	/* a later execve() took the slot: missed */
};

static __s64 probe(void *arg, __u32 tgid)
{
	const struct execwatch *w = arg;
	__u32 id;

	return bpf_map_lookup_elem(w->now_fd, &tgid, &id) ? -1 : (__s64)id;
}

static __u64 log_head(const struct execwatch *w)
{
	return __atomic_load_n(&w->skel->bss->exec_head, __ATOMIC_ACQUIRE);
}

/* Execve() number @idx from its slot into @ev, through the slot's seqlock. */
static enum slot_state copy_slot(const struct execwatch *w, __u64 idx, struct sh_prof_exec *ev)
{
	const struct sh_prof_exec *s = &w->skel->bss->exec_log[idx & (SH_PROF_EXEC_LOG - 1)];
	__u64 seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE), again;

	ev->tgid = __atomic_load_n(&s->tgid, __ATOMIC_RELAXED);
	ev->exec_id = __atomic_load_n(&s->exec_id, __ATOMIC_RELAXED);
	ev->start_ns = __atomic_load_n(&s->start_ns, __ATOMIC_RELAXED);
	ev->time_ns = __atomic_load_n(&s->time_ns, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	again = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	/*
	 * A later writer takes exec_head before it writes: if the copy holds
	 * any of its fields, exec_head shows it now, whatever seq said.
	 */
	if (log_head(w) - idx > SH_PROF_EXEC_LOG)
		return SLOT_OVERWRITTEN;
	return seq == idx + 1 && again == idx + 1 ? SLOT_TAKEN : SLOT_WRITING;
}

/* An execve(): its program's maps read once due. False: not due yet, come back. */
static bool on_exec(struct execwatch *w, const struct sh_prof_exec *ev)
{
	__u64 now = now_ns();

	if (now / NSEC_PER_SEC != w->second) {
		w->second = now / NSEC_PER_SEC;
		w->reads_this_second = 0;
	}
	if (w->reads_this_second >= EXECWATCH_READS_PER_S) {
		w->seen++;
		return true;	/* an exec storm: its programs named if their waits find them */
	}
	/* the dynamic loader maps the libraries after execve(): let it */
	if (ev->time_ns + EXECWATCH_DELAY_NS > now)
		return false;
	w->seen++;
	w->reads_this_second++;
	if (sym_process(w->sym, ev->tgid, ev->start_ns / w->ns_per_tick, ev->exec_id))
		w->read++;
	return true;
}

/*
 * Every execve() logged since the last call, in order, up to one not yet
 * due or still being written. @end: all of them, none read (the profile
 * is over), one being written counted missed.
 */
static void take_log(struct execwatch *w, bool end)
{
	__u64 head = log_head(w);

	if (head - w->next > SH_PROF_EXEC_LOG) {
		w->missed += head - SH_PROF_EXEC_LOG - w->next;	/* overwritten before this poll */
		w->next = head - SH_PROF_EXEC_LOG;
	}
	for (; w->next < head; w->next++) {
		struct sh_prof_exec ev;

		switch (copy_slot(w, w->next, &ev)) {
		case SLOT_OVERWRITTEN:
			w->missed++;
			continue;
		case SLOT_WRITING:
			if (!end)
				return;
			w->missed++;
			continue;
		case SLOT_TAKEN:
			break;
		}
		if (end)
			w->seen++;
		else if (!on_exec(w, &ev))
			return;
	}
}

static void on_timer(void *arg)
{
	struct execwatch *w = arg;
	__u64 expirations;

	/* non-blocking: also called after a signal, the timer maybe not expired */
	if (read(w->timer_fd, &expirations, sizeof(expirations)) < 0) {
		/* EAGAIN: polled early all the same */
	}
	take_log(w, false);
}

_Static_assert(EXECWATCH_POLL_NS < NSEC_PER_SEC, "the timer's period is set in tv_nsec");

static int start_timer(struct execwatch *w)
{
	struct itimerspec its = {
		.it_interval = { .tv_nsec = (long)EXECWATCH_POLL_NS },
		.it_value = { .tv_nsec = (long)EXECWATCH_POLL_NS },
	};

	w->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->timer_fd < 0 || timerfd_settime(w->timer_fd, 0, &its, NULL))
		return -errno;
	return 0;
}

struct execwatch *execwatch_start(struct sym_cache *sym, const struct execwatch_spec *sp)
{
	struct execwatch *w = calloc(1, sizeof(*w));
	int e;

	if (!w)
		return NULL;
	w->sym = sym;
	w->timer_fd = -1;
	w->ns_per_tick = sp->ns_per_tick ? sp->ns_per_tick : 1;
	w->skel = profile_execs_bpf__open();
	if (!w->skel) {
		e = -errno;
		goto fail;
	}
	w->skel->rodata->filter_tgid = sp->tgid;
	w->skel->rodata->cgroup_hier = sp->cgroup_hier;
	w->skel->rodata->filter_cgid = sp->cgroup_id;
	w->skel->rodata->filter_cglevel = sp->cgroup_level;
	/* skel->bss: the kernel's memory (the program's atomics need a kernel that mmaps it) */
	if ((e = profile_execs_bpf__load(w->skel)) || (e = profile_execs_bpf__attach(w->skel)) ||
	    (e = start_timer(w)))
		goto fail;
	w->now_fd = bpf_map__fd(w->skel->maps.exec_now);
	sym_set_exec_probe(sym, probe, w);
	loop_watch(w->timer_fd, on_timer, w);
	w->watching = true;
	return w;
fail:
	pr_warn("cannot watch execve() (%s): a program's maps are read when its first wait is "
		"named, maybe after it ran another\n", strerror(-e));
	execwatch_stop(w);
	return NULL;
}

void execwatch_end(struct execwatch *w)
{
	if (!w)
		return;
	profile_execs_bpf__detach(w->skel);
	take_log(w, true);
}

void execwatch_stop(struct execwatch *w)
{
	if (!w)
		return;
	if (w->watching) {
		loop_watch(-1, NULL, NULL);
		sym_set_exec_probe(w->sym, NULL, NULL);
	}
	if (w->timer_fd >= 0)
		close(w->timer_fd);
	profile_execs_bpf__destroy(w->skel);
	free(w);
}

__u64 execwatch_seen(const struct execwatch *w)
{
	return w ? w->seen : 0;
}

__u64 execwatch_read(const struct execwatch *w)
{
	return w ? w->read : 0;
}

__u64 execwatch_missed(const struct execwatch *w)
{
	return w ? w->missed : 0;
}
