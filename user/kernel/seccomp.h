/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * seccomp filters (libseccomp) for the processes that handle untrusted input once unprivileged;
 * any other system call fails with EPERM. The lists: docs/architecture.md (seccomp.c).
 */
#ifndef SH_SECCOMP_H
#define SH_SECCOMP_H

/* Load the poller's filter (needs PR_SET_NO_NEW_PRIVS, which privdrop() sets). 0 or -1. */
int seccomp_poller(void);
/* Load the broker's filter, setting PR_SET_NO_NEW_PRIVS. 0 or -1. */
int seccomp_broker(void);

#endif /* SH_SECCOMP_H */
