/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Names read from a cgroup path alone (unit, container id, pod, QoS class), by the conventions
 * schedhist(8) lists in "Cgroup names"; units only where systemd manages the tree.
 */
#ifndef SH_CGROUP_NAMES_H
#define SH_CGROUP_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Longest systemd unit name, NUL included (systemd's UNIT_NAME_MAX). */
#define CG_UNIT_MAX 256
/* A container id: 64 lower-case hex digits, NUL included. */
#define CG_ID_MAX 65
/* The short form "docker ps" and "crictl ps" show: the id's first 12 digits. */
#define CG_SHORT_ID_LEN 12
/* A pod uid: 36 characters (8-4-4-4-12 hex), NUL included. */
#define CG_POD_UID_MAX 37

enum cg_qos {
	CG_QOS_NONE,		/* not under kubepods, or kubepods itself */
	CG_QOS_GUARANTEED,	/* a pod directly under kubepods (no QoS level) */
	CG_QOS_BURSTABLE,	/* under kubepods-burstable / kubepods/burstable */
	CG_QOS_BESTEFFORT,	/* under kubepods-besteffort / kubepods/besteffort */
};

struct cg_labels {
	char unit[CG_UNIT_MAX];		/* innermost systemd unit, "" if none (or no systemd) */
	char container_id[CG_ID_MAX];	/* innermost container's id, "" if none */
	char container_id_short[CG_SHORT_ID_LEN + 1];	/* its first 12 digits */
	char pod_uid[CG_POD_UID_MAX];	/* the pod's uid, dashed form, "" if none */
	int qos;			/* enum cg_qos */
};

/* Labels of cgroup @path (from the root) into @l; how many of the four were found. */
int cg_labels_parse(const char *path, struct cg_labels *l);

/* Does systemd manage the hierarchy at @mount (@run_dir exists, or the root has init.scope)? */
bool cg_systemd_detect(const char *mount, const char *run_dir);

/* Whether cg_labels_parse() names units (default true); set once from cg_systemd_detect(). */
void cg_names_systemd(bool managed);

/* "guaranteed", "burstable", "besteffort", or NULL for CG_QOS_NONE. */
const char *cg_qos_name(int qos);

/* The short name beside @path ("container <id>, pod <uid>, <qos>"; "" if none); its length. */
size_t cg_labels_describe(const struct cg_labels *l, const char *path, char *buf, size_t n);

#endif /* SH_CGROUP_NAMES_H */
