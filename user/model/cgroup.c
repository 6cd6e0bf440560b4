// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* cgroup mount discovery and id <-> path resolution. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/cgroup.h"
#include "lib/util.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

static bool has_token(const char *list, const char *tok)
{
	size_t n = strlen(tok);
	const char *p = list;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && !strncmp(p, tok, n))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

static const struct {
	const char *subsys;	/* kernel name: <subsys>_cgrp_id */
	const char *option;	/* v1 mount option */
} cg_aliases[] = {
	{ "io", "blkio" },
};

const char *cg_subsys_name(const char *ctrl)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cg_aliases); i++)
		if (!strcmp(ctrl, cg_aliases[i].option))
			return cg_aliases[i].subsys;
	return ctrl;
}

const char *cg_mount_option(const char *ctrl)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cg_aliases); i++)
		if (!strcmp(ctrl, cg_aliases[i].subsys))
			return cg_aliases[i].option;
	return ctrl;
}

int cg_find_mount(const char *mountinfo, const char *ctrl, char *out, size_t len)
{
	const char *line = mountinfo;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		char buf[8192], *f[16], *sep, *save = NULL, *tok;
		int nf = 0;

		if (n < sizeof(buf)) {
			memcpy(buf, line, n);
			buf[n] = '\0';
			/* id parent dev root mountpoint opts [optional...] - fstype source superopts */
			sep = strstr(buf, " - ");
			if (sep) {
				*sep = '\0';
				for (tok = strtok_r(buf, " ", &save); tok && nf < 5;
				     tok = strtok_r(NULL, " ", &save))
					f[nf++] = tok;
				save = NULL;
				/* a field missing before " - " would shift the rest */
				for (tok = nf == 5 ? strtok_r(sep + 3, " ", &save) : NULL;
				     tok && nf < 8; tok = strtok_r(NULL, " ", &save))
					f[nf++] = tok;
			}
			if (nf == 8 && !strcmp(f[3], "/")) {
				bool match = ctrl ? !strcmp(f[5], "cgroup") && has_token(f[7], ctrl)
						  : !strcmp(f[5], "cgroup2");
				if (match) {
					unescape(f[4]);
					if (strlen(f[4]) < len) {
						strcpy(out, f[4]);
						return 0;
					}
				}
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	return -1;
}

int cg_open(struct cgroups *cg, const char *ctrl)
{
	char *text = NULL;
	size_t cap = 0, n = 0;
	FILE *f;
	int ret;

	memset(cg, 0, sizeof(*cg));
	cg->ctrl = ctrl;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 65536);

			if (!t) {
				free(text);
				fclose(f);
				return -1;
			}
			text = t;
		}
		size_t r = fread(text + n, 1, 4096, f);

		if (!r)
			break;
		n += r;
	}
	fclose(f);
	if (!text)
		return -1;
	text[n] = '\0';
	ret = cg_find_mount(text, ctrl ? cg_mount_option(ctrl) : NULL, cg->mount,
			    sizeof(cg->mount));
	free(text);
	return ret;
}

void cg_close(struct cgroups *cg)
{
	size_t i;

	for (i = 0; i < cg->nnames; i++)
		free(cg->names[i].path);
	free(cg->names);
	cg->names = NULL;
	cg->nnames = 0;
}

int cg_lookup(struct cgroups *cg, const char *user_path, __u64 *id, __u32 *level,
	      char *err, size_t errlen)
{
	char abs[PATH_MAX], real[PATH_MAX], realmnt[PATH_MAX];
	size_t ml;
	struct stat st, mst;
	const char *p;
	__u32 lv = 0;
	int n;

	if (!realpath(cg->mount, realmnt)) {
		snprintf(err, errlen, "cannot resolve cgroup mount %s: %s", cg->mount,
			 strerror(errno));
		return -1;
	}
	ml = strlen(realmnt);
	/* a path under the mount as given, else one relative to the root */
	if (!strncmp(user_path, realmnt, ml) && (user_path[ml] == '/' || !user_path[ml]))
		n = snprintf(abs, sizeof(abs), "%s", user_path);
	else
		n = snprintf(abs, sizeof(abs), "%s%s%s", realmnt, user_path[0] == '/' ? "" : "/",
			     user_path);
	if (n < 0 || (size_t)n >= sizeof(abs)) {
		snprintf(err, errlen, "cgroup path too long: %.64s...", user_path);
		return -1;
	}
	if (!realpath(abs, real) || stat(real, &st)) {
		if (!stat(user_path, &st))	/* exists, but outside the hierarchy */
			snprintf(err, errlen, "%s is not a cgroup directory of the %s hierarchy "
				 "at %s", user_path, cg->ctrl ? cg->ctrl : "cgroup2", realmnt);
		else
			snprintf(err, errlen, "cgroup %s not found under %s: %s", user_path,
				 realmnt, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || stat(realmnt, &mst) || st.st_dev != mst.st_dev ||
	    strncmp(real, realmnt, ml) || (real[ml] != '/' && real[ml])) {
		snprintf(err, errlen, "%s is not a cgroup directory of the %s hierarchy at %s",
			 user_path, cg->ctrl ? cg->ctrl : "cgroup2", realmnt);
		return -1;
	}
	for (p = real + ml; *p; p++)
		if (*p == '/' && p[1])
			lv++;
	*id = st.st_ino;
	*level = lv;
	return 0;
}

struct walk {
	struct cgroups *cg;		/* names learnt go to cg->names */
	size_t cap;			/* allocated cg->names */
	size_t mlen;			/* strlen(cg->mount) */
	dev_t dev;			/* the hierarchy's: mounts below it are not walked */
	char **unreadable;		/* directories it could not list, relative paths */
	size_t nunreadable;
};

static int add_name(struct walk *w, __u64 id, char *path)
{
	struct cgroups *cg = w->cg;

	if (array_reserve(&cg->names, &w->cap, cg->nnames, sizeof(*cg->names), 256))
		return -1;
	cg->names[cg->nnames].id = id;
	cg->names[cg->nnames].path = path;
	cg->nnames++;
	return 0;
}

/* Directory @path (@st) is cgroup @st->st_ino; @unreadable: its children cannot be listed. */
static int learn(struct walk *w, const char *path, const struct stat *st, bool unreadable)
{
	char *rel = strdup(path[w->mlen] ? path + w->mlen : "/");

	if (!rel || add_name(w, st->st_ino, rel)) {
		free(rel);
		return -1;
	}
	if (unreadable) {
		char **t = realloc(w->unreadable, (w->nunreadable + 1) * sizeof(*t));
		char *copy = strdup(rel);

		if (!t || !copy) {
			free(copy);
			if (t)
				w->unreadable = t;
			return -1;
		}
		w->unreadable = t;
		w->unreadable[w->nunreadable++] = copy;
	}
	return 0;
}

/* @path and every cgroup below it on the mount, links not followed. 0, or -1 (no memory: stops). */
static int walk_dir(struct walk *w, char *path, size_t len, const struct stat *st)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int err;

	if (!d)	/* a cgroup whose children this user may not list (mode 0700), or gone */
		return errno == EACCES ? learn(w, path, st, true) : 0;
	err = learn(w, path, st, false);
	while (!err && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct stat cst;

		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || len + 1 + n >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		if (!lstat(path, &cst) && S_ISDIR(cst.st_mode) && cst.st_dev == w->dev)
			err = walk_dir(w, path, len + 1 + n, &cst);
		path[len] = '\0';
	}
	closedir(d);
	return err;
}

static bool below_unreadable(const struct walk *w, const char *path)
{
	size_t i, n;

	for (i = 0; i < w->nunreadable; i++) {
		n = strlen(w->unreadable[i]);
		if (!strcmp(w->unreadable[i], "/") ||
		    (!strncmp(path, w->unreadable[i], n) && path[n] == '/'))
			return true;
	}
	return false;
}

static int cmp_name(const void *a, const void *b)
{
	const struct cg_name *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct cg_name *find(const struct cgroups *cg, __u64 id)
{
	struct cg_name k = { .id = id };

	if (!cg->nnames)
		return NULL;
	return bsearch(&k, cg->names, cg->nnames, sizeof(k), cmp_name);
}

void cg_walk(struct cgroups *cg, __u64 gen)
{
	struct walk w = { .cg = cg, .mlen = strlen(cg->mount) };
	struct cg_name *old = cg->names;
	size_t nold = cg->nnames, i;
	char path[PATH_MAX];
	struct stat st;

	cg->names = NULL;
	cg->nnames = 0;
	if (w.mlen < sizeof(path) && !lstat(cg->mount, &st) && S_ISDIR(st.st_mode)) {
		w.dev = st.st_dev;
		memcpy(path, cg->mount, w.mlen + 1);
		walk_dir(&w, path, w.mlen, &st);
	}
	qsort(cg->names, cg->nnames, sizeof(*cg->names), cmp_name);
	/*
	 * Names learnt earlier of cgroups below a directory this walk could not list stay named;
	 * any other name it did not see is a removed cgroup.
	 */
	for (i = 0; i < nold; i++) {
		if (w.nunreadable && !find(cg, old[i].id) && below_unreadable(&w, old[i].path) &&
		    !add_name(&w, old[i].id, old[i].path))
			old[i].path = NULL;
		free(old[i].path);
	}
	free(old);
	qsort(cg->names, cg->nnames, sizeof(*cg->names), cmp_name);
	cg->partial = w.nunreadable > 0;
	for (i = 0; i < w.nunreadable; i++)
		free(w.unreadable[i]);
	free(w.unreadable);
	cg->walk_gen = gen;
}

const char *cg_path(struct cgroups *cg, __u64 id, __u64 gen)
{
	struct cg_name *n = find(cg, id);

	if (n)
		return n->path;
	if (cg->walk_gen == gen && cg->nnames)
		return NULL;	/* walked already this interval */
	cg_walk(cg, gen);
	n = find(cg, id);
	return n ? n->path : NULL;
}

const char *cg_known(const struct cgroups *cg, __u64 id)
{
	struct cg_name *n = find(cg, id);

	return n ? n->path : NULL;
}

bool cg_exists(struct cgroups *cg, __u64 id)
{
	struct cg_name *n = find(cg, id);
	char abs[PATH_MAX];
	struct stat st;
	int len;

	/* unknown after a walk that saw everything: removed; else it may hide */
	if (!n)
		return cg->partial;
	len = snprintf(abs, sizeof(abs), "%s%s", cg->mount, strcmp(n->path, "/") ? n->path : "");
	if (len < 0 || (size_t)len >= sizeof(abs))
		return true;	/* cannot check: keep it */
	if (stat(abs, &st))
		return errno != ENOENT && errno != ENOTDIR;	/* EACCES: cannot tell, keep it */
	return st.st_ino == id;	/* another one of that name: the old one is gone */
}
