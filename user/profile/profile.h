/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --profile: where tasks wait, per (task, kernel stack, user stack), from
 * bpf/profile.bpf.c: load and attach the profile object, read its
 * cumulative map every second on lib/loop.h's schedule (new processes'
 * maps are read then, see symbolize.h; what gone ones left is removed
 * from the kernel, prof_table.h), and every interval diff it against the
 * last report's reading into folded stacks (text), the top stacks per key
 * (JSON Lines), the SVG flame graph (--flamegraph) and the pprof profile
 * (--pprof) of the run so far (prof_report.h).
 */
#ifndef SH_PROFILE_USER_H
#define SH_PROFILE_USER_H

#include "profile/spec_profile.h"

/* Run the profile until the count, the duration or a stop signal. An exit code. */
int profile_run(const struct profile_spec *sp);

#endif /* SH_PROFILE_USER_H */
