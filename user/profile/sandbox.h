/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --profile once attached: the broker forked, privileges dropped, the seccomp filter loaded;
 * the poller then parses every untrusted file (maps, ELF) unprivileged.
 */
#ifndef SH_SANDBOX_H
#define SH_SANDBOX_H

#include "profile/broker.h"
#include "profile/symbolize.h"

struct sandbox_spec {
	const char *user;	/* --user, NULL: nobody when root */
	int map_fd;		/* a BPF map the poller reads (the probe after the drop) */
	size_t key_size;	/* its key's size */
	int out_dirfd;		/* --flamegraph's directory, -1: none (checked writable) */
	const char *out_what;	/* its option, for the message */
};

/* 0, or an exit code after printing why; *@b: the broker, for broker_stop(). */
int sandbox_enter(const struct sandbox_spec *sp, struct sym_cache *sym, struct broker **b);

#endif /* SH_SANDBOX_H */
