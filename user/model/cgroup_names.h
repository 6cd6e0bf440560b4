/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Names people recognise, read from a cgroup path alone (no runtime is
 * asked): the systemd unit, the container id, the Kubernetes pod and its
 * QoS class, by the path conventions of systemd, Docker, Podman,
 * containerd, CRI-O and the kubelet, both with the systemd cgroup driver
 * ("kubepods-burstable-pod<uid>.slice/cri-containerd-<id>.scope") and
 * with the cgroupfs driver ("/kubepods/burstable/pod<uid>/<id>",
 * "/docker/<id>"). The forms recognised are listed in schedhist(8),
 * OUTPUT, "Cgroup names". A pure function of the path (and of whether
 * systemd manages the hierarchy, decided once at start): the renderers
 * call it for each cgroup key they write.
 *
 * A component is a systemd unit only when systemd manages the hierarchy:
 * a directory named like a unit ("nn.slice") that someone made by hand on
 * a host without systemd is a directory, not a unit.
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

/*
 * Labels of cgroup @path (relative to the hierarchy root, "/" for the
 * root; a name in brackets such as "[other]" or "[removed id=N]" has
 * none) into @l. Returns how many of unit, container_id, pod_uid and qos
 * were found (0: nothing to add).
 */
int cg_labels_parse(const char *path, struct cg_labels *l);

/*
 * Does systemd manage the cgroup hierarchy mounted at @mount? Yes when
 * systemd runs here (/run/systemd/system is a directory, the test of
 * sd_booted()) or when the hierarchy's root has init.scope, the cgroup
 * systemd puts its PID 1 in (seen from a container that mounts the
 * host's hierarchy but not its /run). @run_dir is "/run/systemd/system"
 * (another for tests).
 */
bool cg_systemd_detect(const char *mount, const char *run_dir);

/*
 * Whether cg_labels_parse() names units: true (the default) when systemd
 * manages the hierarchy; main sets it from cg_systemd_detect() once the
 * hierarchy is found, before anything is rendered.
 */
void cg_names_systemd(bool managed);

/* "guaranteed", "burstable", "besteffort", or NULL for CG_QOS_NONE. */
const char *cg_qos_name(int qos);

/*
 * The short name the text report shows beside the path: "container
 * <12 hex>" (with ", pod <uid>" and the QoS class when in a pod), else
 * "pod <uid>, <qos>", else "<qos>" for a QoS level, else "unit <unit>"
 * when the unit is not the path's last component (a cgroup a service made
 * below its own). "" when the path says nothing more than itself. Returns
 * the length written (cut to @n - 1 bytes, always terminated).
 */
size_t cg_labels_describe(const struct cg_labels *l, const char *path, char *buf, size_t n);

#endif /* SH_CGROUP_NAMES_H */
