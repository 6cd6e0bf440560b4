// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: broker_check(), the validation of the requests the
 * unprivileged poller sends --profile's root broker (user/profile/broker.c),
 * on arbitrary bytes as a request. A request it lets through must be one
 * of the four kinds, of a real tgid, and a path in a process's root must
 * be absolute, NUL-terminated and free of ".." components.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/broker.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct broker_req r;
	const char *p;

	memset(&r, 0, sizeof(r));
	memcpy(&r, data, size < sizeof(r) ? size : sizeof(r));
	if (broker_check(&r))
		return 0;
	if (r.what > SYM_ROOT_FILE || !r.tgid || r.tgid > 0x7fffffffu)
		abort();
	if (r.what == SYM_MAP_FILE && r.start >= r.end)
		abort();
	if (r.what != SYM_ROOT_FILE)
		return 0;
	p = r.path;
	if (!memchr(p, '\0', sizeof(r.path)) || p[0] != '/')
		abort();
	for (const char *c = p; *c; c++)
		if (c[0] == '/' && c[1] == '.' && c[2] == '.' && (c[3] == '/' || !c[3]))
			abort();
	return 0;
}
