/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A pprof profile (proto/profile.proto) built sample by sample, encoded uncompressed; values
 * "samples" and "off_cpu" (ns); mappings, locations, functions and strings made once each.
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

/* A sample of @count and @ns, frames @f[0..@n) leaf first, labels comm, pid, tid. 0 or -1. */
int pprof_add(struct pprof *pp, const struct pprof_frame *f, size_t n, __u64 count, __u64 ns,
	      const char *comm, __u32 pid, __u32 tid);

/* The profile as protobuf into *@buf (malloc'd, *@len bytes). 0 or -1. */
int pprof_encode(struct pprof *pp, __u64 time_ns, __u64 duration_ns, char **buf, size_t *len);

#endif /* SH_PPROF_H */
