// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The kernel memory of every schedhist map from its definition
 * (user/model/kmem.c), for a few numbers of possible CPUs: what bench/run.sh
 * prints next to bpftool map show's bytes_memlock, and what
 * tests/integration/kmem_bpftool.sh compares with it.
 *
 *   kmem [-M NMETRICS] [-k keyed|none|cpu] [-n MAX_KEYS] [-t TASK_TABLE]
 *        [-s SCHEMA] [-c CACHE_ENTRIES] [-C] [-T] [-S] [-X] [-b BUDGET_MIB] CPUS...
 *
 * -s --schema (0-3, the histograms' length), -c the cache entries per CPU
 * (SCHEDHIST_CACHE_ENTRIES, 16 by default), -C --culprits, -T --culprits
 * --culprit-mode time, -S --stacks, -X --causes; -b fits the key capacity into the budget
 * as the loader does (without it, -n as given). One line per map and
 * CPU count: "cpus map max_entries bytes entry_bytes", then "cpus total
 * keys bytes".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedhist.h"
#include "model/kmem.h"

static unsigned long num(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || !v) {
		fprintf(stderr, "kmem: invalid %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct kmem_cfg c = { .nmetrics = 1, .keyed = true, .max_keys = 10240,
			      .task_entries = 32768, .cache_entries = SH_CACHE };
	unsigned long long budget = 0;
	struct kmem_plan p;
	int opt, i, k;

	while ((opt = getopt(argc, argv, "M:k:n:t:s:c:CTSXb:")) != -1) {
		switch (opt) {
		case 'M': c.nmetrics = (int)num(optarg, "-M"); break;
		case 'k':
			c.keyed = !strcmp(optarg, "keyed");
			c.key_cpu = !strcmp(optarg, "cpu");
			if (!c.keyed && !c.key_cpu && strcmp(optarg, "none")) {
				fprintf(stderr, "kmem: -k keyed, none or cpu\n");
				return 2;
			}
			break;
		case 'n': c.max_keys = (unsigned)num(optarg, "-n"); break;
		case 't': c.task_entries = (unsigned)num(optarg, "-t"); break;
		case 's':
			if (strlen(optarg) != 1 || optarg[0] < '0' || optarg[0] > '0' + SH_SCHEMA_MAX) {
				fprintf(stderr, "kmem: -s 0 to %d\n", SH_SCHEMA_MAX);
				return 2;
			}
			c.schema = optarg[0] - '0';
			break;
		case 'c': c.cache_entries = (unsigned)num(optarg, "-c"); break;
		case 'C': c.culprits = true; break;
		case 'T': c.culprits = c.culprit_time = true; break;
		case 'S': c.stacks = true; break;
		case 'X': c.causes = true; break;
		case 'b': budget = (unsigned long long)num(optarg, "-b") << 20; break;
		default: return 2;
		}
	}
	if (optind == argc || c.nmetrics > 3) {
		fprintf(stderr, "usage: kmem [-M 1-3] [-k keyed|none|cpu] [-n KEYS] [-t TASKS] [-s 0-3] [-c ENTRIES] [-C] "
			"[-T] [-S] [-X] [-b MIB] CPUS...\n");
		return 2;
	}
	for (i = optind; i < argc; i++) {
		struct kmem_cfg ci = c;

		ci.ncpus = (int)num(argv[i], "CPU count");
		if (budget ? kmem_fit(&ci, budget, false, &p) : (kmem_layout(&ci, &p), 0)) {
			printf("%d total 0 %llu (over the budget)\n", ci.ncpus,
			       (unsigned long long)p.total);
			continue;
		}
		for (k = 0; k < KMEM_NR; k++)
			printf("%d %s %u %llu %llu\n", ci.ncpus, kmem_map_names[k], p.max_entries[k],
			       (unsigned long long)p.bytes[k], (unsigned long long)p.entry_bytes[k]);
		printf("%d total %u %llu\n", ci.ncpus, ci.keyed ? ci.max_keys : 0,
		       (unsigned long long)p.total);
	}
	return 0;
}
