/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --profile: where tasks wait, per (task, kernel stack, user stack), from bpf/profile.bpf.c,
 * read every second and reported every interval (prof_report.h).
 */
#ifndef SH_PROFILE_USER_H
#define SH_PROFILE_USER_H

#include "profile/spec_profile.h"

/* Run the profile until the count, the duration or a stop signal. An exit code. */
int profile_run(const struct profile_spec *sp);

#endif /* SH_PROFILE_USER_H */
