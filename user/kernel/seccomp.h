/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * seccomp filters (libseccomp) for the processes that handle untrusted
 * input once privileges are dropped. Any system call not listed fails
 * with EPERM. The poller's list: reading and writing open descriptors,
 * memory never executable (mmap and mprotect without PROT_EXEC), BPF map
 * reads, the broker's socket, clocks and sleeps, signals, and creating
 * output files (openat only with O_WRONLY|O_CREAT|O_EXCL, or a directory
 * read-only, then rename/unlink in it): it opens no existing file, runs
 * no program, opens no socket. The broker's list: receive, open
 * read-only, fstat, send, close. Built with AddressSanitizer, the poller
 * goes without its filter (LeakSanitizer needs ptrace at exit).
 */
#ifndef SH_SECCOMP_H
#define SH_SECCOMP_H

/* Load the poller's filter (needs PR_SET_NO_NEW_PRIVS, which privdrop() sets). 0 or -1. */
int seccomp_poller(void);
/* Load the broker's filter, setting PR_SET_NO_NEW_PRIVS. 0 or -1. */
int seccomp_broker(void);

#endif /* SH_SECCOMP_H */
