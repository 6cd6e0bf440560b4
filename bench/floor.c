// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Loads and attaches the empty floor programs of bench/floor.bpf.c (or,
 * with -c, the ones that only read the clock; with -s STEP, the one step
 * program step_STEP), prints "Attached" on stderr, and holds them until
 * SIGTERM or SIGINT.
 * usage: floor [-c | -s STEP] [-v]   (-v shows libbpf's log)
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"

static volatile sig_atomic_t stop;
static bool verbose;

static void on_signal(int sig)
{
	stop = sig;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose && level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct floor_bpf *skel;
	bool clock = false, found = false;
	const char *step = NULL;
	struct bpf_program *prog;
	sigset_t block, old;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			verbose = true;
		} else if (!strcmp(argv[i], "-c")) {
			clock = true;
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			step = argv[++i];
		} else {
			fprintf(stderr, "usage: floor [-c | -s STEP] [-v]\n");
			return 2;
		}
	}
	libbpf_set_print(libbpf_print);
	sigemptyset(&sa.sa_mask);
	/* blocked until the wait below, so an early signal is not lost */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigprocmask(SIG_BLOCK, &block, &old)) {
		fprintf(stderr, "floor: cannot install signal handlers: %s\n", strerror(errno));
		return 1;
	}

	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	/* one pair or one step only: the others are neither loaded nor attached */
	bpf_program__set_autoload(skel->progs.floor_switch, !clock && !step);
	bpf_program__set_autoload(skel->progs.floor_wakeup, !clock && !step);
	bpf_program__set_autoload(skel->progs.clock_switch, clock && !step);
	bpf_program__set_autoload(skel->progs.clock_wakeup, clock && !step);
	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = bpf_program__name(prog);

		if (!strncmp(name, "step_", 5)) {
			bool want = step && !strcmp(name + 5, step);

			bpf_program__set_autoload(prog, want);
			found |= want;
		}
	}
	if (step && !found) {
		fprintf(stderr, "floor: no step '%s' in the BPF object\n", step);
		floor_bpf__destroy(skel);
		return 2;
	}
	err = floor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "floor: cannot load the BPF programs: %s%s\n", strerror(-err),
			geteuid() ? " (run as root)" : "");
		floor_bpf__destroy(skel);
		return 1;
	}
	err = floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "floor: cannot attach to sched_switch/sched_wakeup: %s\n",
			strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}
	if (step)
		fprintf(stderr, "Attached: step_%s. SIGTERM to end.\n", step);
	else
		fprintf(stderr, "Attached: %s. SIGTERM to end.\n",
			clock ? "clock_switch, clock_wakeup" : "floor_switch, floor_wakeup");
	while (!stop)
		sigsuspend(&old);
	floor_bpf__destroy(skel);
	return 0;
}
