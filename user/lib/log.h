/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* One logging interface: warnings always, info and debug by -v (main sets the level once). */
#ifndef SH_LOG_H
#define SH_LOG_H

#include <stdio.h>

enum log_level {
	SH_LOG_WARN = 0,	/* errors and warnings: always shown */
	SH_LOG_INFO = 1,	/* -v: counters, what was attached */
	SH_LOG_DEBUG = 2,	/* -vv: libbpf's own log, map details */
};

/* The level shown from now on (a -v count: beyond SH_LOG_DEBUG is kept). */
void log_set_level(int level);
int log_level(void);

#define pr_warn(fmt, ...) fprintf(stderr, "schedhist: " fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)                                                   \
	do {                                                                \
		if (log_level() >= SH_LOG_INFO)                             \
			fprintf(stderr, "schedhist: " fmt, ##__VA_ARGS__);  \
	} while (0)
#define pr_debug(fmt, ...)                                                  \
	do {                                                                \
		if (log_level() >= SH_LOG_DEBUG)                            \
			fprintf(stderr, "schedhist: " fmt, ##__VA_ARGS__);  \
	} while (0)

#endif /* SH_LOG_H */
