// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks' allowed CPUs from a machine root's proc/<pid>/status, and each
 * other thread's proc/<pid>/task/<tid>/status: the "Cpus_allowed_list:"
 * line (fs/proc/array.c task_cpus_allowed(), 2.6.28+), which shows
 * p->cpus_mask — taskset, sched_setaffinity() (per thread) and the task's
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

static int pid_at(const char *s)
{
	long v = strtol(s, NULL, 10);

	return v > 0 && v <= INT_MAX ? (int)v : 0;
}

int sr_proc_status_task(const char *rel, int *tgid)
{
	const char *task = strstr(rel, "/task/");

	*tgid = pid_at(rel + strlen("proc/"));
	return task ? pid_at(task + strlen("/task/")) : *tgid;
}

/* Append the restricted masks of @rel_pattern's files to *@a (*@n used, *@cap allocated). */
static int load_pattern(const struct sr_root *root, const char *rel_pattern, int nr_cpus,
			struct sr_affinity **a, size_t *n, size_t *cap)
{
	char pattern[PATH_MAX + 32];
	size_t skip = strlen(root->path) + 1;	/* "ROOT/" */
	glob_t g;
	int ret;

	if (sr_root_path(root, rel_pattern, pattern, sizeof(pattern)))
		return 0;
	ret = glob(pattern, 0, NULL, &g);
	if (ret)
		return ret == GLOB_NOSPACE ? -ENOMEM : 0;
	if (*n + g.gl_pathc > *cap) {
		size_t want = *n + g.gl_pathc;
		struct sr_affinity *m = realloc(*a, want * sizeof(**a));

		if (!m) {
			globfree(&g);
			return -ENOMEM;
		}
		*a = m;
		*cap = want;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *rel = g.gl_pathv[i] + skip;
		int tgid, pid = sr_proc_status_task(rel, &tgid);

		if (pid && restricted(root, rel, nr_cpus, &(*a)[*n].mask))
			(*a)[(*n)++].pid = pid;
	}
	globfree(&g);
	return 0;
}

/* Sorted by pid, one entry per pid (a thread group's leader may be listed twice). */
static size_t sort_unique(struct sr_affinity *a, size_t n)
{
	size_t k = 0;

	sr_affinity_sort(a, n);
	for (size_t i = 0; i < n; i++)
		if (!k || a[k - 1].pid != a[i].pid)
			a[k++] = a[i];
	return k;
}

int sr_affinity_load(const char *dir, int nr_cpus, struct sr_affinity **out)
{
	static const char *const patterns[] = {
		"proc/[0-9]*/status", "proc/[0-9]*/task/[0-9]*/status",
	};
	struct sr_affinity *a = NULL;
	struct sr_root root;
	size_t n = 0, cap = 0;
	int ret = 0;

	*out = NULL;
	if (!dir || nr_cpus < 1 || sr_root_set(&root, dir))
		return 0;
	for (size_t i = 0; !ret && i < sizeof(patterns) / sizeof(patterns[0]); i++)
		ret = load_pattern(&root, patterns[i], nr_cpus, &a, &n, &cap);
	if (ret || !n) {
		free(a);
		return ret;
	}
	*out = a;
	return (int)sort_unique(a, n);
}
