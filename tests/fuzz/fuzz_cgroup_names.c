// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: labels from cgroup paths (user/model/cgroup_names.c). Any
 * user with a delegated subtree names cgroups, so the path is untrusted.
 * For any bytes (up to a NUL): a unit is one whole component of the path,
 * a container id 64 lower-case hex digits that appear in the path, its
 * short form its first 12, a pod uid 36 characters (dashed) or 32 hex
 * digits; a QoS class only with a kubepods level in the path; the count
 * returned matches the fields; the short name fits any buffer, always
 * terminated.
 */
#include <stdlib.h>
#include <string.h>

#include "model/cgroup_names.h"


static int is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* Is @unit a whole '/'-separated component of @path? */
static int is_component(const char *path, const char *unit)
{
	size_t n = strlen(unit);
	const char *p = path;

	while ((p = strstr(p, unit))) {
		if (p > path && p[-1] == '/' && (p[n] == '/' || p[n] == '\0'))
			return 1;
		p++;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *in = malloc(size + 1), buf[64];
	struct cg_labels l;
	size_t len, cut;
	int n;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	n = cg_labels_parse(in, &l);
	if (n != !!l.unit[0] + !!l.container_id[0] + !!l.pod_uid[0] + (l.qos != CG_QOS_NONE))
		abort();
	if (l.unit[0] && (strlen(l.unit) >= CG_UNIT_MAX || !is_component(in, l.unit)))
		abort();
	if (l.container_id[0] && (strlen(l.container_id) != CG_ID_MAX - 1 ||
				  !is_hex(l.container_id, CG_ID_MAX - 1) || !strstr(in, l.container_id)))
		abort();
	if (strncmp(l.container_id_short, l.container_id, CG_SHORT_ID_LEN) ||
	    strlen(l.container_id_short) != (l.container_id[0] ? CG_SHORT_ID_LEN : 0))
		abort();
	len = strlen(l.pod_uid);
	if (len && len != CG_POD_UID_MAX - 1 && !(len == 32 && is_hex(l.pod_uid, 32)))
		abort();
	if (len == CG_POD_UID_MAX - 1 && (l.pod_uid[8] != '-' || l.pod_uid[23] != '-'))
		abort();
	if (l.qos != CG_QOS_NONE && !strstr(in, "kubepods"))
		abort();
	if (l.pod_uid[0] && l.qos == CG_QOS_NONE)
		abort();
	for (cut = 0; cut <= sizeof(buf); cut++) {
		memset(buf, 'x', sizeof(buf));
		len = cg_labels_describe(&l, in, buf, cut);
		if (cut && (len >= cut || buf[len] != '\0' || strlen(buf) != len))
			abort();
	}
	free(in);
	return 0;
}
