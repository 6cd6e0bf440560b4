/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* One logging interface for the poller: warnings always, info and debug by -v. */
#ifndef SH_LOG_H
#define SH_LOG_H

#include <stdio.h>

enum sh_log_level {
	SH_LOG_WARN = 0,	/* errors and warnings: always shown */
	SH_LOG_INFO = 1,	/* -v: counters, what was attached */
	SH_LOG_DEBUG = 2,	/* -vv: libbpf's own log, map details */
};

/* Set once from the options; read by the macros below. */
extern int sh_log_level;

#define pr_warn(fmt, ...) fprintf(stderr, "schedhist: " fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)                                                   \
	do {                                                                \
		if (sh_log_level >= SH_LOG_INFO)                            \
			fprintf(stderr, "schedhist: " fmt, ##__VA_ARGS__);  \
	} while (0)
#define pr_debug(fmt, ...)                                                  \
	do {                                                                \
		if (sh_log_level >= SH_LOG_DEBUG)                           \
			fprintf(stderr, "schedhist: " fmt, ##__VA_ARGS__);  \
	} while (0)

/* Exit codes, documented in the man page's EXIT STATUS. */
#define SH_EXIT_OK 0
#define SH_EXIT_FAIL 1	/* runtime failure: load, attach, map read, output */
#define SH_EXIT_USAGE 2	/* bad command line */

#endif /* SH_LOG_H */
