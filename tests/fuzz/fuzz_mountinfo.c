// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: cg_find_mount() on arbitrary /proc/self/mountinfo
 * text, for the cgroup2 hierarchy and for the v1 "cpu" controller, with an
 * output buffer of 1 to 256 bytes (the first input byte), allocated to
 * the byte so that ASan catches any overrun. A mount point found must be
 * a NUL-terminated string that fits the buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "model/cgroup.h"


int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const char *const ctrls[] = { NULL, "cpu", "name=systemd" };
	char *text, *out;
	size_t len, i;

	if (!size)
		return 0;
	len = (size_t)data[0] + 1;
	text = strndup((const char *)data + 1, size - 1);
	out = malloc(len);	/* exactly len bytes: ASan sees any overrun */
	if (!text || !out)
		abort();
	for (i = 0; i < sizeof(ctrls) / sizeof(ctrls[0]); i++) {
		memset(out, 'x', len);
		if (!cg_find_mount(text, ctrls[i], out, len) &&
		    (!memchr(out, '\0', len) || strlen(out) >= len))
			abort();
	}
	free(out);
	free(text);
	return 0;
}
