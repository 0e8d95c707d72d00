// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks' allowed CPUs from a machine root's proc/<pid>/status: the
 * "Cpus_allowed_list:" line (fs/proc/array.c task_cpus_allowed(), 2.6.28+),
 * which shows p->cpus_mask — taskset, sched_setaffinity() and the task's
 * cpuset.  A trace shows no affinity; a task forked during it inherits its
 * parent's (dup_task_struct()), which the state follows.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machine-priv.h"

#define STATUS_KEY	"Cpus_allowed_list:"

static int by_pid(const void *a, const void *b)
{
	const struct sr_affinity *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

void sr_affinity_sort(struct sr_affinity *a, size_t n)
{
	qsort(a, n, sizeof(*a), by_pid);
}

/* The mask of one status file; false when it has none, or all CPUs. */
static bool restricted(const struct sr_root *root, const char *rel, int nr_cpus,
		       struct sr_cpumask *m)
{
	char *text, *line, *end;
	bool ok = false;
	int c, n = 0;

	if (sr_root_read(root, rel, &text))
		return false;
	line = strstr(text, "\n" STATUS_KEY);
	if (line) {
		line += strlen("\n" STATUS_KEY);
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		ok = !sr_cpulist_parse(line, m);
	}
	free(text);
	if (!ok)
		return false;
	sr_for_each_cpu(c, m) {
		if (c >= nr_cpus)
			return false;	/* a CPU the trace does not have: not this machine */
		n++;
	}
	return n > 0 && n < nr_cpus;
}

static int pid_of(const char *rel)
{
	long v = strtol(rel + strlen("proc/"), NULL, 10);

	return v > 0 && v <= INT_MAX ? (int)v : 0;
}

int sr_affinity_load(const char *dir, int nr_cpus, struct sr_affinity **out)
{
	char pattern[PATH_MAX + 32];
	struct sr_root root;
	struct sr_affinity *a = NULL;
	size_t skip, n = 0;
	glob_t g;
	int ret;

	*out = NULL;
	if (!dir || nr_cpus < 1 || sr_root_set(&root, dir) ||
	    sr_root_path(&root, "proc/[0-9]*/status", pattern, sizeof(pattern)))
		return 0;
	ret = glob(pattern, 0, NULL, &g);
	if (ret == GLOB_NOSPACE)
		return -ENOMEM;
	if (ret)
		return 0;
	skip = strlen(root.path) + 1;	/* "ROOT/" */
	a = calloc(g.gl_pathc, sizeof(*a));
	if (!a) {
		globfree(&g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *rel = g.gl_pathv[i] + skip;
		int pid = pid_of(rel);

		if (pid && restricted(&root, rel, nr_cpus, &a[n].mask))
			a[n++].pid = pid;
	}
	globfree(&g);
	if (!n) {
		free(a);
		return 0;
	}
	sr_affinity_sort(a, n);
	*out = a;
	return (int)n;
}
