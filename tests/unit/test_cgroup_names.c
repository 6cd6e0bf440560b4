// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of user/model/cgroup_names.c: a table of cgroup paths as systemd,
 * Docker, Podman, containerd, CRI-O and the kubelet (systemd and cgroupfs
 * drivers, kind's nested nodes, a kubelet with its own cgroup root) make
 * them, each with the labels it must give, and near misses that must give
 * none; then the short names the text report shows.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "model/cgroup_names.h"
#include "check.h"


/* ids and uids in the forms the runtimes write them */
#define CID "3f4e1b2a9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define CID2 "b16a2f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a"
#define UID_DASH "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
#define UID_UNDER "0f1e2d3c_4b5a_6978_8a9b_0c1d2e3f4a5b"
#define UID_HASH "6d2c1b1e9c4f4e8a9b0c1d2e3f4a5b6c"

/* path, then the unit, container id, pod uid and QoS it must give (NULL: none) */
enum { PATH, UNIT, CID_, POD, QOS };
static const char *const table[][5] = {
	/* systemd */
	{ "/system.slice/nginx.service", "nginx.service" },
	{ "/system.slice", "system.slice" },
	{ "/user.slice/user-1000.slice/session-2.scope", "session-2.scope" },
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/"
	  "app-gnome-firefox-2345.scope", "app-gnome-firefox-2345.scope" },
	{ "/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service" },
	{ "/system.slice/dev-disk-by\\x2duuid-0a1b.swap", "dev-disk-by\\x2duuid-0a1b.swap" },
	{ "/system.slice/docker.socket", "docker.socket" },
	{ "/system.slice/-.mount", "-.mount" },
	/* a service's own sub-cgroup (Delegate=yes): the unit is the service */
	{ "/system.slice/containerd.service/payload", "containerd.service" },
	/* Docker: systemd driver, cgroupfs driver, rootless */
	{ "/system.slice/docker-" CID ".scope", "docker-" CID ".scope", CID },
	{ "/docker/" CID, NULL, CID },
	{ "/user.slice/user-1000.slice/user@1000.service/docker-" CID ".scope",
	  "docker-" CID ".scope", CID },
	/* Podman: systemd and cgroupfs managers, and a container's own init cgroup */
	{ "/machine.slice/libpod-" CID ".scope", "libpod-" CID ".scope", CID },
	{ "/machine.slice/libpod-" CID ".scope/container", "libpod-" CID ".scope", CID },
	{ "/libpod_parent/libpod-" CID, NULL, CID },
	/* Kubernetes, systemd driver: containerd and CRI-O, each QoS class */
	{ "/kubepods.slice", "kubepods.slice" },
	{ "/kubepods.slice/kubepods-burstable.slice", "kubepods-burstable.slice", NULL, NULL,
	  "burstable" },
	{ "/kubepods.slice/kubepods-besteffort.slice", "kubepods-besteffort.slice", NULL, NULL,
	  "besteffort" },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_UNDER ".slice",
	  "kubepods-burstable-pod" UID_UNDER ".slice", NULL, UID_DASH, "burstable" },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_UNDER
	  ".slice/cri-containerd-" CID ".scope", "cri-containerd-" CID ".scope", CID, UID_DASH,
	  "burstable" },
	{ "/kubepods.slice/kubepods-pod" UID_UNDER ".slice/crio-" CID ".scope",
	  "crio-" CID ".scope", CID, UID_DASH, "guaranteed" },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_UNDER
	  ".slice/crio-" CID ".scope", "crio-" CID ".scope", CID, UID_DASH, "besteffort" },
	/* CRI-O's conmon beside the container: the pod, but no container */
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_UNDER
	  ".slice/crio-conmon-" CID ".scope", "crio-conmon-" CID ".scope", NULL, UID_DASH,
	  "besteffort" },
	/* dockershim: Docker's scope in a pod */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_UNDER
	  ".slice/docker-" CID ".scope", "docker-" CID ".scope", CID, UID_DASH, "burstable" },
	/* a static pod: its uid is its manifest's hash */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_HASH ".slice",
	  "kubepods-burstable-pod" UID_HASH ".slice", NULL, UID_HASH, "burstable" },
	/* a kubelet with --cgroup-root=/kubelet: one more slice level in every name */
	{ "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/"
	  "kubelet-kubepods-burstable-pod" UID_UNDER ".slice/cri-containerd-" CID ".scope",
	  "cri-containerd-" CID ".scope", CID, UID_DASH, "burstable" },
	/* Kubernetes, cgroupfs driver */
	{ "/kubepods/burstable/pod" UID_DASH "/" CID, NULL, CID, UID_DASH, "burstable" },
	{ "/kubepods/besteffort/pod" UID_DASH "/" CID, NULL, CID, UID_DASH, "besteffort" },
	{ "/kubepods/pod" UID_DASH "/" CID, NULL, CID, UID_DASH, "guaranteed" },
	{ "/kubepods/besteffort/pod" UID_DASH, NULL, NULL, UID_DASH, "besteffort" },
	{ "/kubepods/burstable", NULL, NULL, NULL, "burstable" },
	{ "/kubepods/burstable/pod" UID_DASH "/crio-" CID, NULL, CID, UID_DASH, "burstable" },
	/* kind: a pod's container inside a node that is itself a Docker container */
	{ "/docker/" CID2 "/kubepods/burstable/pod" UID_DASH "/" CID, NULL, CID, UID_DASH,
	  "burstable" },
	/* ... and the pod alone there: the node's id is not the pod's container */
	{ "/docker/" CID2 "/kubepods/burstable/pod" UID_DASH, NULL, NULL, UID_DASH,
	  "burstable" },
	{ "/system.slice/docker-" CID2 ".scope/kubelet.slice/kubelet-kubepods.slice/"
	  "kubelet-kubepods-pod" UID_UNDER ".slice", "kubelet-kubepods-pod" UID_UNDER ".slice",
	  NULL, UID_DASH, "guaranteed" },
	/* nothing to say */
	{ "/" },
	{ "[other]" },
	{ "[removed id=4321]" },
	{ "[unresolved id=4321]" },
	{ "/a/b" },
	{ "/workload" },
	/* near misses: short or upper-case ids, a pod outside kubepods, odd names */
	{ "/system.slice/docker-3f4e1b2a9c8d.scope", "docker-3f4e1b2a9c8d.scope" },
	{ "/docker/3F4E1B2A9C8D7E6F5A4B3C2D1E0F9A8B7C6D5E4F3A2B1C0D9E8F7A6B5C4D3E2F" },
	{ "/docker/" CID "0" },
	{ "/pod" UID_DASH },
	{ "/kubepods/burstable/pod0f1e2d3c-4b5a-6978-8a9b", NULL, NULL, NULL, "burstable" },
	{ "/kubepods/guaranteed/pod" UID_DASH },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podfoo.slice",
	  "kubepods-burstable-podfoo.slice", NULL, NULL, "burstable" },
	{ "/not-kubepods/burstable/pod" UID_DASH },
	/* a uid that is not one, after a pod: the pod's uid stays whole */
	{ "/kubepods/pod" UID_DASH "/kubepods-pod11111111_2222_3333_4444_55555555555z.slice",
	  "kubepods-pod11111111_2222_3333_4444_55555555555z.slice", NULL, UID_DASH, "guaranteed" },
	{ "/system.slice/my service.service", "system.slice" },
	{ "/system.slice/.service/x", "system.slice" },
	{ "/system.slice/nginx.servicex", "system.slice" },
};

static void test_table(void)
{
	struct cg_labels l;
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const char *qos;
		int n, want;

		n = cg_labels_parse(table[i][PATH], &l);
		qos = cg_qos_name(l.qos);
		want = !!table[i][UNIT] + !!table[i][CID_] + !!table[i][POD] + !!table[i][QOS];
		if (strcmp(l.unit, table[i][UNIT] ? table[i][UNIT] : "") ||
		    strcmp(l.container_id, table[i][CID_] ? table[i][CID_] : "") ||
		    strcmp(l.pod_uid, table[i][POD] ? table[i][POD] : "") ||
		    strcmp(qos ? qos : "", table[i][QOS] ? table[i][QOS] : "") || n != want) {
			fprintf(stderr, "  %s:\n    got unit '%s' id '%s' pod '%s' qos '%s' (%d)\n",
				table[i][PATH], l.unit, l.container_id, l.pod_uid, qos ? qos : "", n);
			CHECK(!"labels as the table says");
		}
		if (table[i][CID_])
			CHECK(!strncmp(l.container_id_short, table[i][CID_], CG_SHORT_ID_LEN) &&
			      strlen(l.container_id_short) == CG_SHORT_ID_LEN);
		else
			CHECK(!l.container_id_short[0]);
	}
}

/* A unit name of 255 characters is one; of 256 (systemd's limit) it is not. */
static void test_unit_length(void)
{
	char path[400], unit[300];
	struct cg_labels l;

	memset(unit, 'a', sizeof(unit));
	strcpy(unit + 255 - strlen(".service"), ".service");
	snprintf(path, sizeof(path), "/system.slice/%s", unit);
	CHECK_EQ_U64(cg_labels_parse(path, &l), 1);
	CHECK_EQ_U64(strlen(l.unit), 255);
	memset(unit, 'a', sizeof(unit));
	strcpy(unit + 256 - strlen(".service"), ".service");
	snprintf(path, sizeof(path), "/x/%s", unit);
	CHECK_EQ_U64(cg_labels_parse(path, &l), 0);
	CHECK(!l.unit[0]);
	CHECK_EQ_U64(cg_labels_parse(NULL, &l), 0);
}

static void describe(const char *path, const char *want)
{
	struct cg_labels l;
	char buf[256];
	size_t n;

	cg_labels_parse(path, &l);
	n = cg_labels_describe(&l, path, buf, sizeof(buf));
	if (strcmp(buf, want) || n != strlen(want)) {
		fprintf(stderr, "  %s:\n    described '%s', want '%s'\n", path, buf, want);
		CHECK(!"short name");
	}
}

static void test_describe(void)
{
	struct cg_labels l;
	char small[8];
	const char *p = "/system.slice/docker-" CID ".scope";

	describe(p, "container 3f4e1b2a9c8d");
	describe("/docker/" CID, "container 3f4e1b2a9c8d");
	describe("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_UNDER
		 ".slice/cri-containerd-" CID ".scope",
		 "container 3f4e1b2a9c8d, pod " UID_DASH ", burstable");
	describe("/kubepods/besteffort/pod" UID_DASH, "pod " UID_DASH ", besteffort");
	describe("/system.slice/containerd.service/payload", "unit containerd.service");
	/* the path says it already */
	describe("/system.slice/nginx.service", "");
	describe("/kubepods.slice/kubepods-burstable.slice", "");
	describe("/", "");
	describe("[other]", "");
	/* cut, always terminated */
	cg_labels_parse(p, &l);
	CHECK_EQ_U64(cg_labels_describe(&l, p, small, sizeof(small)), sizeof(small) - 1);
	CHECK(!strcmp(small, "contain"));
	CHECK_EQ_U64(cg_labels_describe(&l, p, small, 0), 0);
}

/*
 * Units only where systemd manages the hierarchy: on a host without it, a
 * directory named like a unit is no unit (no label, no "(unit nn.slice)"),
 * while container ids and pods still come from their names; the rule that
 * decides: /run/systemd/system, or init.scope at the hierarchy's root.
 */
static void test_no_systemd(void)
{
	char dir[] = "/tmp/sh-cgnames-XXXXXX", sub[64], run[64];
	struct cg_labels l;

	cg_names_systemd(false);
	CHECK(cg_labels_parse("/nn.slice/worker", &l) == 0 && !l.unit[0]);
	describe("/nn.slice/worker", "");
	describe("/system.slice/containerd.service/payload", "");
	CHECK(cg_labels_parse("/system.slice/docker-" CID ".scope", &l) == 1);
	CHECK(!l.unit[0] && !strcmp(l.container_id, CID));
	cg_names_systemd(true);
	describe("/nn.slice/worker", "unit nn.slice");

	CHECK(mkdtemp(dir) != NULL);
	snprintf(run, sizeof(run), "%s/run-systemd-system", dir);
	snprintf(sub, sizeof(sub), "%s/init.scope", dir);
	CHECK(!cg_systemd_detect(dir, run));	/* neither */
	CHECK(!mkdir(sub, 0700));
	CHECK(cg_systemd_detect(dir, run));	/* systemd's PID 1 cgroup at the root */
	CHECK(!rmdir(sub));
	CHECK(!mkdir(run, 0700));
	CHECK(cg_systemd_detect(dir, run));	/* systemd runs here */
	CHECK(!rmdir(run));
	CHECK(!rmdir(dir));
}

int main(void)
{
	TEST(test_table);
	TEST(test_unit_length);
	TEST(test_describe);
	TEST(test_no_systemd);
	return test_summary();
}
