/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The few helpers every module of the poller would otherwise define again. */
#ifndef SH_UTIL_H
#define SH_UTIL_H

/* The elements of array @a (an array, not a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The version the Makefile passes (git describe); a build outside it says so. */
#ifndef SCHEDHIST_VERSION
#define SCHEDHIST_VERSION "0.0.0-dev"
#endif

#endif /* SH_UTIL_H */
