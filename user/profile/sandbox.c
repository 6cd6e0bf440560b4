// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --profile once attached: the broker, then the poller unprivileged and seccomp-limited. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "kernel/privdrop.h"
#include "kernel/seccomp.h"
#include "lib/exit_codes.h"
#include "lib/log.h"
#include "profile/sandbox.h"

struct probe {
	int fd;
	void *key;
};

/* The map still readable: a first key, or none (an empty map). */
static int probe_map(void *arg)
{
	const struct probe *p = arg;

	if (!bpf_map_get_next_key(p->fd, NULL, p->key) || errno == ENOENT)
		return 0;
	return -errno;
}

int sandbox_enter(const struct sandbox_spec *sp, struct sym_cache *sym, struct broker **b)
{
	struct user u = { 0 };
	struct probe pr = { .fd = sp->map_fd, .key = calloc(1, sp->key_size ? sp->key_size : 1) };
	int err;

	*b = NULL;
	if (!pr.key) {
		pr_warn("out of memory\n");
		return SH_EXIT_FAIL;
	}
	/* started as root: the parser of untrusted files does not stay root */
	if (sp->user ? privdrop_lookup(sp->user, &u)
		     : !geteuid() && privdrop_lookup(PRIVDROP_DEFAULT_USER, &u)) {
		free(pr.key);
		return SH_EXIT_FAIL;
	}
	*b = broker_start();
	if (!*b) {
		free(pr.key);
		return SH_EXIT_FAIL;
	}
	sym_set_opener(sym, broker_open, *b);
	err = privdrop(&u, probe_map, &pr);
	free(pr.key);
	if (err)
		return SH_EXIT_FAIL;
	/* the output's directory, as the new user: fail now, not at the first report */
	if (sp->out_dirfd >= 0 && faccessat(sp->out_dirfd, ".", W_OK | X_OK, AT_EACCESS)) {
		pr_warn("cannot write in the directory of %s: %s%s%s%s\n", sp->out_what,
			strerror(errno), u.set ? " (as user " : "", u.set ? u.name : "",
			u.set ? "; --user names another)" : "");
		return SH_EXIT_FAIL;
	}
	return seccomp_poller() ? SH_EXIT_FAIL : 0;
}
