/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A pprof profile (github.com/google/pprof, proto/profile.proto) built
 * sample by sample and encoded as protobuf (uncompressed: the caller
 * gzips it). Two sample values, "samples" (count) and the default
 * "off_cpu" (nanoseconds); mappings, locations, functions and strings
 * are made once each, whatever the number of samples that use them.
 */
#ifndef SH_PPROF_H
#define SH_PPROF_H

#include <stddef.h>
#include <linux/types.h>

struct pprof;

/* One frame of a sample; strings are copied. */
struct pprof_frame {
	const char *name;	/* the function */
	const char *file;	/* its source file, or NULL */
	const char *map_file;	/* the mapped file, NULL: no mapping (a marker, the comm) */
	const char *build_id;	/* the mapping's build id, or NULL */
	__u64 addr;		/* the frame's address (0 for a marker) */
	__u64 map_start, map_limit, map_pgoff;
};

/* A profile of @value_type (e.g. "off_cpu") in nanoseconds. NULL: no memory. */
struct pprof *pprof_new(const char *value_type);
void pprof_free(struct pprof *pp);

/*
 * A sample of @count samples and @ns nanoseconds, frames @f[0..@n) leaf
 * first, with the labels comm (string), pid and tid (numbers). 0 or -1.
 */
int pprof_add(struct pprof *pp, const struct pprof_frame *f, size_t n, __u64 count, __u64 ns,
	      const char *comm, __u32 pid, __u32 tid);

/* The profile as protobuf into *@buf (malloc'd, *@len bytes). 0 or -1. */
int pprof_encode(struct pprof *pp, __u64 time_ns, __u64 duration_ns, char **buf, size_t *len);

#endif /* SH_PPROF_H */
