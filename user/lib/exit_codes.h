/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Exit codes, documented in the man page's EXIT STATUS. */
#ifndef SH_EXIT_CODES_H
#define SH_EXIT_CODES_H

#define SH_EXIT_OK 0
#define SH_EXIT_FAIL 1	/* runtime failure: load, attach, map read, output */
#define SH_EXIT_USAGE 2	/* bad command line */

#endif /* SH_EXIT_CODES_H */
