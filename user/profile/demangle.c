// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "profile/demangle.h"

bool sym_demangle(const char *name, char *buf, size_t len)
{
	char *d;
	size_t n;

	/* only the prefixes of the manglings we name: a C name is never touched */
	if (!len || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return false;
	/* DMGL_AUTO picks the mangling, Rust first (legacy Rust is "_ZN...17h<hash>E") */
	d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (!d)
		return false;
	n = strlen(d);
	if (n >= len)
		n = len - 1;
	memcpy(buf, d, n);
	buf[n] = '\0';
	free(d);
	return true;
}
