// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Dropping capabilities (libcap-ng) and switching user once attached. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <cap-ng.h>

#include "kernel/privdrop.h"
#include "lib/log.h"

#ifndef CAP_BPF
#define CAP_BPF 39	/* Linux 5.8; older uapi headers lack it */
#endif

int privdrop_lookup(const char *name, struct user *u)
{
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	errno = 0;
	pw = getpwnam(name);
	if (!pw) {
		if (errno)
			pr_warn("cannot look up user '%s': %s\n", name, strerror(errno));
		else
			pr_warn("no such user: '%s' (see getent passwd)\n", name);
		return -1;
	}
	u->set = true;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->name, sizeof(u->name), "%s", name);
	return 0;
}

/* No supplementary groups, always: without CAP_SETGID that is fine only if there are none. */
static int drop_groups(void)
{
	if (!setgroups(0, NULL) || (errno == EPERM && getgroups(0, NULL) == 0))
		return 0;
	pr_warn("cannot drop the supplementary groups: %s (give schedhist CAP_SETGID, or run "
		"it without supplementary groups)\n", strerror(errno));
	return -1;
}

/* setgid, setuid; with @keep_permitted the permitted set survives. */
static int switch_user(const struct user *u, bool keep_permitted)
{
	if (keep_permitted && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		pr_warn("cannot keep capabilities across the user switch: %s\n", strerror(errno));
		return -1;
	}
	if (setresgid(u->gid, u->gid, u->gid) || setresuid(u->uid, u->uid, u->uid)) {
		pr_warn("cannot switch to user %s (uid %u, gid %u): %s\n", u->name,
			(unsigned int)u->uid, (unsigned int)u->gid, strerror(errno));
		return -1;
	}
	if (keep_permitted)
		prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	return 0;
}

static int apply_caps(int keep, bool effective)
{
	capng_clear(CAPNG_SELECT_CAPS);
	if (keep >= 0 && capng_update(CAPNG_ADD,
				      effective ? CAPNG_EFFECTIVE | CAPNG_PERMITTED
						: CAPNG_PERMITTED, (unsigned int)keep))
		return -1;
	return capng_apply(CAPNG_SELECT_CAPS) ? -1 : 0;
}

static void say_who(const char *caps)
{
	struct passwd *pw = getpwuid(getuid());
	struct group *gr = getgrgid(getgid());

	pr_info("running as user %s (uid %u), group %s (gid %u), no supplementary groups, %s\n",
		pw ? pw->pw_name : "?", (unsigned int)getuid(), gr ? gr->gr_name : "?",
		(unsigned int)getgid(), caps);
}

int privdrop(const struct user *u, int (*probe)(void *arg), void *arg)
{
	int keep = -1, err;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		pr_warn("cannot set no_new_privs: %s\n", strerror(errno));
		return -1;
	}
	if (capng_get_caps_process()) {
		pr_warn("cannot read this process's capabilities\n");
		return -1;
	}
	/* the one capability map reads may need on older kernels (see the header) */
	if (capng_have_capability(CAPNG_PERMITTED, CAP_BPF))
		keep = CAP_BPF;
	else if (capng_have_capability(CAPNG_PERMITTED, CAP_SYS_ADMIN))
		keep = CAP_SYS_ADMIN;
	/* a service manager may have narrowed the bounding set and taken CAP_SETPCAP */
	if (capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP)) {
		capng_clear(CAPNG_SELECT_BOUNDS);
		if (capng_apply(CAPNG_SELECT_BOUNDS)) {
			pr_warn("cannot empty the capability bounding set\n");
			return -1;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL) {
		pr_warn("cannot clear the ambient capabilities: %s\n", strerror(errno));
		return -1;
	}
	if (drop_groups() || (u->set && switch_user(u, keep >= 0)))
		return -1;
	/* nothing effective; at most @keep left permitted, for the fallback */
	if (apply_caps(keep, false)) {
		pr_warn("cannot drop capabilities\n");
		return -1;
	}
	err = probe(arg);
	if (err == -EPERM && keep >= 0) {
		if (apply_caps(keep, true) || (err = probe(arg))) {
			pr_warn("cannot read the BPF maps after dropping privileges: %s\n",
				strerror(err ? -err : EPERM));
			return -1;
		}
		pr_warn("this kernel refuses BPF map reads without %s (Linux before 5.19 with "
			"kernel.unprivileged_bpf_disabled set): kept it, dropped every other "
			"capability\n", keep == CAP_BPF ? "CAP_BPF" : "CAP_SYS_ADMIN");
		say_who(keep == CAP_BPF ? "CAP_BPF only" : "CAP_SYS_ADMIN only");
		return 0;
	}
	if (err) {
		pr_warn("cannot read the BPF maps after dropping privileges: %s\n", strerror(-err));
		return -1;
	}
	if (apply_caps(-1, false)) {
		pr_warn("cannot drop capabilities\n");
		return -1;
	}
	/* check what the kernel says, not what we asked for */
	if (capng_get_caps_process() || capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE) {
		pr_warn("capabilities remain after dropping them all\n");
		return -1;
	}
	say_who("no capabilities");
	return 0;
}

int privdrop_fleet_user(const char *name, struct user *u)
{
	/* started as root: a daemon does not stay root, nobody unless --user says */
	if (name ? privdrop_lookup(name, u)
		 : !geteuid() && privdrop_lookup(PRIVDROP_DEFAULT_USER, u)) {
		if (!name)
			pr_warn("fleet mode switches to user %s once attached: pass --user NAME "
				"to name another (--user root keeps root)\n", PRIVDROP_DEFAULT_USER);
		return -1;
	}
	return 0;
}
