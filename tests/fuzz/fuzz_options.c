// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: the command line. The input is split at NUL bytes into
 * up to 64 arguments after "schedhist", and parse_options() must either
 * accept them (-1) with every field in its documented range, stop with
 * 0 (--help, --version), or refuse them with 2 after exactly one line on
 * stderr. Its stdout and stderr go to a memory buffer (the FILE pointers
 * are swapped, so ASan still reports on fd 2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedhist.h"
#include "cli/options.h"
#include "lib/parse.h"
#include "lib/log.h"


#define MAX_ARGS 64

static char errbuf[65536];

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[MAX_ARGS + 2];
	FILE *real_out = stdout, *real_err = stderr, *err, *out;
	struct options o;
	size_t i, start = 0, lines = 0;
	int argc = 0, rc;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = "schedhist";
	for (i = 0; i <= size && argc <= MAX_ARGS; i++) {
		if (i == size || !copy[i]) {
			argv[argc++] = copy + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;

	memset(errbuf, 0, sizeof(errbuf));
	err = fmemopen(errbuf, sizeof(errbuf) - 1, "w");
	out = fopen("/dev/null", "w");
	if (!err || !out)
		abort();
	stdout = out;
	stderr = err;
	rc = parse_options(argc, argv, &o);
	stdout = real_out;
	stderr = real_err;
	fclose(out);
	fclose(err);

	if (rc != -1 && rc != SH_EXIT_OK && rc != SH_EXIT_USAGE)
		abort();
	for (i = 0; errbuf[i]; i++)
		lines += errbuf[i] == '\n';
	if (rc == SH_EXIT_USAGE && (lines != 1 || strncmp(errbuf, "schedhist: ", 11)))
		abort();	/* a usage error is exactly one "schedhist: " line */
	if (rc != SH_EXIT_USAGE && lines)
		abort();	/* nothing on stderr otherwise */
	if (rc == -1) {
		if (o.metric < SH_METRIC_OFFCPU || o.metric > SH_METRIC_BLOCKED)
			abort();
		if (o.key_type < SH_KEY_NONE || o.key_type > SH_KEY_PIDNS)
			abort();
		if (o.interval_ns > 86400 * NSEC_PER_SEC || o.max_keys < 1 || o.max_keys > 1000000)
			abort();
		if (o.count && !o.interval_ns)
			abort();
		if (o.pid < 0 || o.pid > 4194304)
			abort();
		if (o.cgroup_depth && o.key_type != SH_KEY_CGROUP)
			abort();
		if ((o.cgroup_path && !*o.cgroup_path) || (o.heatmap && !*o.heatmap))
			abort();
	}
	free(copy);
	return 0;
}
