// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The log level: the one piece of state of the logging interface. */
#include "lib/log.h"

static int level = SH_LOG_WARN;

void log_set_level(int l)
{
	level = l;
}

int log_level(void)
{
	return level;
}
