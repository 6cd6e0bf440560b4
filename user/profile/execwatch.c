// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --profile's exec watcher: each new program's maps read while it runs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
	struct ring_buffer *rb;
	struct sym_cache *sym;
	int now_fd;		/* exec_now */
	__u64 ns_per_tick;
	__u64 second, reads_this_second, seen, read;
};

static __s64 probe(void *arg, __u32 tgid)
{
	const struct execwatch *w = arg;
	__u32 id;

	return bpf_map_lookup_elem(w->now_fd, &tgid, &id) ? -1 : (__s64)id;
}

static int on_exec(void *ctx, void *data, size_t size)
{
	struct execwatch *w = ctx;
	const struct sh_prof_exec *ev = data;
	__u64 now = now_ns(), due;

	if (size < sizeof(*ev))
		return 0;
	w->seen++;
	if (now / NSEC_PER_SEC != w->second) {
		w->second = now / NSEC_PER_SEC;
		w->reads_this_second = 0;
	}
	if (w->reads_this_second >= EXECWATCH_READS_PER_S)
		return 0;	/* an exec storm: its programs named if their waits find them */
	w->reads_this_second++;
	/* the dynamic loader maps the libraries after execve(): let it */
	due = ev->time_ns + EXECWATCH_DELAY_NS;
	if (due > now) {
		struct timespec ts = { .tv_sec = (time_t)((due - now) / NSEC_PER_SEC),
				       .tv_nsec = (long)((due - now) % NSEC_PER_SEC) };

		while (nanosleep(&ts, &ts) && errno == EINTR && !stop_count())
			;
	}
	if (sym_process(w->sym, ev->tgid, ev->start_ns / w->ns_per_tick, ev->exec_id))
		w->read++;
	return 0;
}

static void on_ready(void *arg)
{
	struct execwatch *w = arg;

	ring_buffer__consume(w->rb);
}

struct execwatch *execwatch_start(struct sym_cache *sym, const struct execwatch_spec *sp)
{
	struct execwatch *w = calloc(1, sizeof(*w));
	int e;

	if (!w)
		return NULL;
	w->sym = sym;
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
	if ((e = profile_execs_bpf__load(w->skel)) || (e = profile_execs_bpf__attach(w->skel)))
		goto fail;
	w->now_fd = bpf_map__fd(w->skel->maps.exec_now);
	w->rb = ring_buffer__new(bpf_map__fd(w->skel->maps.exec_events), on_exec, w, NULL);
	if (!w->rb) {
		e = -errno;
		goto fail;
	}
	sym_set_exec_probe(sym, probe, w);
	loop_watch(ring_buffer__epoll_fd(w->rb), on_ready, w);
	return w;
fail:
	pr_warn("cannot watch execve() (%s): a program's maps are read when its first wait is "
		"named, maybe after it ran another\n", strerror(-e));
	execwatch_stop(w);
	return NULL;
}

void execwatch_stop(struct execwatch *w)
{
	if (!w)
		return;
	if (w->rb) {
		loop_watch(-1, NULL, NULL);
		sym_set_exec_probe(w->sym, NULL, NULL);
		ring_buffer__free(w->rb);
	}
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
