// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The Prometheus metric families of every exposition (prom_family.h). */
#include <stdio.h>
#include <string.h>

#include "prom/prom_family.h"
#include "lib/names.h"

const struct prom_family prom_families[PROM_FAMILY_NR] = {
	[PROM_WAIT_SECONDS] = {
		"schedhist_wait_seconds", PROM_TYPE_HISTOGRAM,
		/* several metrics; prom_help() names the one metric of a single one */
		"How long tasks waited, in seconds, since schedhist started; the label metric "
		"says which wait. Never sum across metric: offcpu = runq + blocked, wait by "
		"wait, so a sum counts each wait twice.", "seconds", PROM_FROM_VIEW },
	[PROM_EVENTS] = {
		"schedhist_events_total", PROM_TYPE_COUNTER,
		"Candidate waits the kernel side saw: switch-ins of non-idle tasks (for blocked: "
		"those whose switch-out was a sleep).", NULL, PROM_FROM_VIEW },
	[PROM_LOST_EVENTS] = {
		"schedhist_lost_events_total", PROM_TYPE_COUNTER,
		"Candidate waits not recorded, by reason: no_start (the wait began before "
		"tracing), filtered (outside -p or -c), dropped (histogram update failed), "
		"clock_skew (two CPUs' clocks disagreed: the end was stamped before the start).",
		NULL, PROM_FROM_VIEW },
	[PROM_OVERFLOW_EVENTS] = {
		"schedhist_overflow_events_total", PROM_TYPE_COUNTER,
		"Waits of new keys that the kernel counted under the key [other], by reason: "
		"map_full (its key map was full: raise --max-keys), no_mem (no kernel memory "
		"for a new key at that instant); together, every wait of [other].",
		NULL, PROM_FROM_VIEW },
	[PROM_KEYS] = {
		"schedhist_keys", PROM_TYPE_GAUGE,
		"Keys in the kernel's histogram map now.", NULL, PROM_FROM_VIEW },
	[PROM_INTERVAL_MAX] = {
		"schedhist_interval_max_wait_seconds", PROM_TYPE_GAUGE,
		"The longest wait of the last interval, in seconds: exact (the kernel's own "
		"measure, not a bucket edge), for each exported key; tid and comm name the task "
		"that had it. Absent for a key without a wait in the interval.",
		"seconds", PROM_FROM_VIEW },
	[PROM_KMEM_BYTES] = {
		"schedhist_kernel_memory_bytes", PROM_TYPE_GAUGE,
		"Kernel memory of schedhist's BPF maps, bytes: reserved (every map at its worst, "
		"every hash entry taken) and budget (--max-kernel-mem).", NULL, PROM_FROM_VIEW },
	[PROM_KMEM_KEYS] = {
		"schedhist_kernel_memory_keys", PROM_TYPE_GAUGE,
		"Keys the kernel maps hold at most (--max-keys, or fewer to fit "
		"--max-kernel-mem).", NULL, PROM_FROM_VIEW },
	[PROM_CULPRIT_SECONDS] = {
		"schedhist_culprit_wait_seconds_total", PROM_TYPE_COUNTER,
		"Seconds the key waited for a CPU behind the culprit, the key of the task that "
		"held the CPU when each wait ended (--culprits, runq), since the culprit was "
		"admitted: at most 5 culprits per key, each kept for good; [rest] takes the "
		"waits behind every other culprit and those blamed on nobody.",
		"seconds", PROM_FROM_CULPRIT },
	[PROM_CULPRIT_WAITS] = {
		"schedhist_culprit_waits_total", PROM_TYPE_COUNTER,
		"Waits of the key that ended behind the culprit (as "
		"schedhist_culprit_wait_seconds_total).", NULL, PROM_FROM_CULPRIT },
	[PROM_CG_PERIODS] = {
		"schedhist_cgroup_periods_total", PROM_TYPE_COUNTER,
		"Quota periods in which the cgroup had runnable tasks (cpu.stat nr_periods), since "
		"schedhist exported it: throttled_periods over this is the throttled fraction of "
		"the quota's time.", NULL, PROM_FROM_CGROUP },
	[PROM_THROTTLED_PERIODS] = {
		"schedhist_cgroup_throttled_periods_total", PROM_TYPE_COUNTER,
		"Times the cgroup was throttled, out of CPU quota for the rest of a period "
		"(cpu.stat nr_throttled), since schedhist exported it.", NULL, PROM_FROM_CGROUP },
	[PROM_THROTTLED_SECONDS] = {
		"schedhist_cgroup_throttled_seconds_total", PROM_TYPE_COUNTER,
		"Seconds the cgroup was throttled, summed over its CPUs (cpu.stat throttled_usec, "
		"v1 throttled_time), since schedhist exported it.", "seconds", PROM_FROM_CGROUP },
	[PROM_PRESSURE_SOME] = {
		"schedhist_cgroup_pressure_some_seconds_total", PROM_TYPE_COUNTER,
		"Seconds in which some task of the cgroup was runnable and not running "
		"(cpu.pressure some total), since schedhist exported it.",
		"seconds", PROM_FROM_CGROUP },
	[PROM_PRESSURE_FULL] = {
		"schedhist_cgroup_pressure_full_seconds_total", PROM_TYPE_COUNTER,
		"Seconds in which every non-idle task of the cgroup was runnable and not running "
		"(cpu.pressure full total), since schedhist exported it.",
		"seconds", PROM_FROM_CGROUP },
	[PROM_CAUSE_SECONDS] = {
		"schedhist_wait_cause_seconds_total", PROM_TYPE_COUNTER,
		"Seconds the key waited for a CPU, by what that CPU did meanwhile (--causes, "
		"runq): self (tasks of the waiter's CPU cgroup, or process for -k pid), neighbour "
		"(other tasks), kernel (kernel threads), throttled (its CFS quota), steal "
		"(hypervisor), other (idle, migrated, start unseen); they add up to the key's "
		"waited seconds.", "seconds", PROM_FROM_CAUSE },
	[PROM_STACKS_LOST] = {
		"schedhist_stacks_lost_total", PROM_TYPE_COUNTER,
		"Waits longer than the stack kept for their key, metric and interval whose "
		"kernel stack was not taken (--stacks): another CPU was writing that stack at "
		"the instant; the key's max then has no stack.", NULL, PROM_FROM_STACKS },
	[PROM_BUILD_INFO] = {
		"schedhist_build_info", PROM_TYPE_INFO,
		"The schedhist version; always 1.", NULL, PROM_FROM_VIEW },
};

const char *prom_help(int f, size_t nmetrics, int metric, char buf[PROM_HELP_MAX])
{
	if (f != PROM_WAIT_SECONDS || nmetrics != 1)
		return prom_families[f].help;
	snprintf(buf, PROM_HELP_MAX,
		 "How long tasks waited, in seconds, since schedhist started: %s.",
		 metric_words(metric));
	return buf;
}

int prom_om_name_len(int f)
{
	const struct prom_family *fam = &prom_families[f];
	size_t len = strlen(fam->name);

	if (fam->type == PROM_TYPE_COUNTER)
		len -= strlen("_total");
	else if (fam->type == PROM_TYPE_INFO)
		len -= strlen("_info");
	return (int)len;
}

bool prom_family_seconds(int f)
{
	return prom_families[f].unit && !strcmp(prom_families[f].unit, "seconds");
}
