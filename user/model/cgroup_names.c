// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Labels from cgroup path conventions (cgroup_names.h), read from the root down: an inner match
 * overrides an outer one, and a kubepods level starts afresh (no node container's id in a pod).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "model/cgroup_names.h"
#include "lib/util.h"

#define CG_ID_LEN (CG_ID_MAX - 1)
#define CG_UID_LEN (CG_POD_UID_MAX - 1)
/* static pods' uid is the hash of their manifest: 32 hex digits, no dashes */
#define CG_HASH_UID_LEN 32

struct comp {
	const char *s;
	size_t len;
};

static bool has_suffix(struct comp c, const char *sfx)
{
	size_t n = strlen(sfx);

	return c.len > n && !memcmp(c.s + c.len - n, sfx, n);
}

static bool has_prefix(struct comp c, const char *pfx)
{
	size_t n = strlen(pfx);

	return c.len >= n && !memcmp(c.s, pfx, n);
}

static bool is_lower_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

static bool all_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!is_lower_hex(s[i]))
			return false;
	return len > 0;
}

/* A systemd unit with a cgroup (.service .scope .slice .socket .mount .swap). */
static bool is_unit(struct comp c)
{
	static const char *const types[] = { ".service", ".scope", ".slice", ".socket",
					     ".mount", ".swap" };
	size_t i;
	bool typed = false;

	if (c.len >= CG_UNIT_MAX)
		return false;
	for (i = 0; i < ARRAY_SIZE(types); i++)
		typed |= has_suffix(c, types[i]);
	if (!typed)
		return false;
	for (i = 0; i < c.len; i++) {
		char ch = c.s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || strchr(":-_.\\@", ch)))
			return false;
	}
	return true;
}

/* A container: "<runtime>-<64 hex>[.scope]" or "<64 hex>"; the id's start in @id. */
static bool is_container(struct comp c, const char **id)
{
	static const char *const runtimes[] = { "docker-", "cri-containerd-", "crio-",
						"libpod-" };
	size_t i, len = c.len;

	if (has_suffix(c, ".scope"))
		len -= strlen(".scope");
	if (len == CG_ID_LEN && c.len == CG_ID_LEN && all_hex(c.s, CG_ID_LEN)) {
		*id = c.s;
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(runtimes); i++) {
		size_t p = strlen(runtimes[i]);

		if (has_prefix(c, runtimes[i]) && len == p + CG_ID_LEN &&
		    all_hex(c.s + p, CG_ID_LEN)) {
			*id = c.s + p;
			return true;
		}
	}
	return false;
}

/* "pod<uid>": dashed, with underscores (systemd), or a static pod's hash; dashed into @out. */
static bool pod_uid(const char *s, size_t len, char out[CG_POD_UID_MAX])
{
	char uid[CG_POD_UID_MAX];	/* @out keeps an outer pod's uid unless this is one */
	size_t i;

	if (len < 3 || memcmp(s, "pod", 3))
		return false;
	s += 3;
	len -= 3;
	if (len == CG_HASH_UID_LEN && all_hex(s, len)) {
		memcpy(out, s, len);
		out[len] = '\0';
		return true;
	}
	if (len != CG_UID_LEN)
		return false;
	for (i = 0; i < len; i++) {
		bool sep = i == 8 || i == 13 || i == 18 || i == 23;

		if (sep ? s[i] != '-' && s[i] != '_' : !is_lower_hex(s[i]))
			return false;
		uid[i] = sep ? '-' : s[i];
	}
	uid[len] = '\0';
	memcpy(out, uid, sizeof(uid));
	return true;
}

static int qos_of(const char *s, size_t len)
{
	if (len == 9 && !memcmp(s, "burstable", 9))
		return CG_QOS_BURSTABLE;
	if (len == 10 && !memcmp(s, "besteffort", 10))
		return CG_QOS_BESTEFFORT;
	return CG_QOS_NONE;
}

/* Entering a kubepods level: what was found outside it is the node's, not the pod's. */
static void enter_kubepods(struct cg_labels *l)
{
	l->container_id[0] = '\0';
	l->pod_uid[0] = '\0';
	l->qos = CG_QOS_NONE;
}

/* A systemd-driver slice "...kubepods[-qos][-pod<uid>].slice". */
static void kube_slice(struct comp c, struct cg_labels *l)
{
	const char *p = c.s, *end = c.s + c.len - strlen(".slice"), *dash;
	bool kube = false;
	int qos = CG_QOS_NONE;

	for (; p < end; p = dash + 1) {
		size_t len;

		dash = memchr(p, '-', (size_t)(end - p));
		if (!dash)
			dash = end;
		len = (size_t)(dash - p);
		if (!kube) {
			kube = len == 8 && !memcmp(p, "kubepods", 8);
			if (kube && dash == end)
				enter_kubepods(l);	/* "kubepods.slice" itself */
			continue;
		}
		if (qos == CG_QOS_NONE && (qos = qos_of(p, len)) != CG_QOS_NONE) {
			enter_kubepods(l);
			l->qos = qos;
			continue;
		}
		/* the rest of the name is the pod (its uid has "_" for "-") */
		if (pod_uid(p, (size_t)(end - p), l->pod_uid)) {
			l->container_id[0] = '\0';
			l->qos = qos != CG_QOS_NONE ? qos : CG_QOS_GUARANTEED;
		}
		return;
	}
}

static bool systemd_managed = true;

void cg_names_systemd(bool managed)
{
	systemd_managed = managed;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool cg_systemd_detect(const char *mount, const char *run_dir)
{
	char init[4200];

	if (is_dir(run_dir))
		return true;
	if ((size_t)snprintf(init, sizeof(init), "%s/init.scope", mount) >= sizeof(init))
		return false;
	return is_dir(init);
}

int cg_labels_parse(const char *path, struct cg_labels *l)
{
	const char *p = path, *id;
	/* cgroupfs driver: which kubepods level the previous component was */
	enum { OUTSIDE, KUBEPODS, QOS } kube = OUTSIDE;
	int found;

	memset(l, 0, sizeof(*l));
	if (!path || path[0] != '/')
		return 0;	/* "[other]", "[removed id=N]": not a path */
	while (*p) {
		struct comp c;

		while (*p == '/')
			p++;
		c.s = p;
		while (*p && *p != '/')
			p++;
		c.len = (size_t)(p - c.s);
		if (!c.len)
			break;
		if (systemd_managed && is_unit(c)) {
			memcpy(l->unit, c.s, c.len);
			l->unit[c.len] = '\0';
		}
		if (has_suffix(c, ".slice")) {
			kube_slice(c, l);
			kube = OUTSIDE;
		} else if (c.len == 8 && !memcmp(c.s, "kubepods", 8)) {
			enter_kubepods(l);
			kube = KUBEPODS;
			continue;
		} else if (kube == KUBEPODS && qos_of(c.s, c.len) != CG_QOS_NONE) {
			l->qos = qos_of(c.s, c.len);
			kube = QOS;
			continue;
		} else if (kube != OUTSIDE && pod_uid(c.s, c.len, l->pod_uid)) {
			if (l->qos == CG_QOS_NONE)
				l->qos = CG_QOS_GUARANTEED;
			l->container_id[0] = '\0';
			kube = OUTSIDE;
			continue;
		}
		kube = OUTSIDE;
		if (is_container(c, &id)) {
			memcpy(l->container_id, id, CG_ID_LEN);
			l->container_id[CG_ID_LEN] = '\0';
		}
	}
	if (l->container_id[0]) {
		memcpy(l->container_id_short, l->container_id, CG_SHORT_ID_LEN);
		l->container_id_short[CG_SHORT_ID_LEN] = '\0';
	}
	found = !!l->unit[0] + !!l->container_id[0] + !!l->pod_uid[0] + (l->qos != CG_QOS_NONE);
	return found;
}

const char *cg_qos_name(int qos)
{
	switch (qos) {
	case CG_QOS_GUARANTEED:
		return "guaranteed";
	case CG_QOS_BURSTABLE:
		return "burstable";
	case CG_QOS_BESTEFFORT:
		return "besteffort";
	}
	return NULL;
}

static bool unit_is_leaf(const char *unit, const char *path)
{
	const char *last = strrchr(path, '/');

	return last && !strcmp(last + 1, unit);
}

size_t cg_labels_describe(const struct cg_labels *l, const char *path, char *buf, size_t n)
{
	const char *qos = cg_qos_name(l->qos);
	int len = 0;

	if (!n)
		return 0;
	buf[0] = '\0';
	if (l->container_id[0])
		len = snprintf(buf, n, "container %s%s%s%s%s", l->container_id_short,
			       l->pod_uid[0] ? ", pod " : "", l->pod_uid,
			       l->pod_uid[0] && qos ? ", " : "", l->pod_uid[0] && qos ? qos : "");
	else if (l->pod_uid[0])
		len = snprintf(buf, n, "pod %s%s%s", l->pod_uid, qos ? ", " : "", qos ? qos : "");
	else if (l->unit[0] && path && !unit_is_leaf(l->unit, path))
		len = snprintf(buf, n, "unit %s", l->unit);
	if (len < 0)
		return 0;
	return (size_t)len < n ? (size_t)len : n - 1;
}
