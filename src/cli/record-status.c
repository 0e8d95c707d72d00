// SPDX-License-Identifier: GPL-2.0
/*
 * COMMAND's tasks' proc status files (their Cpus_allowed_list above all),
 * kept while it runs: a wrapper such as taskset sets the mask after our
 * fork and execs the program, a threaded program pins its threads one by
 * one (pthread_setaffinity_np()), and the snapshot, taken when the
 * recording ends, misses every task that has exited by then.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "record.h"

#define STATUS_MAX	8192

/* The whole of @path (a proc status file), or NULL. */
static char *read_text(const char *path)
{
	char buf[STATUS_MAX];
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	if (len <= 0)
		return NULL;
	buf[len] = '\0';
	return strdup(buf);
}

/* Keep @text (owned) as @tid's latest status; dropped when there is no room. */
static void keep(struct rec *r, int tid, char *text)
{
	struct rec_task_status *t;
	size_t i;

	for (i = 0; i < r->nr_cmd_tasks && r->cmd_tasks[i].tid != tid; i++)
		;
	if (i == r->nr_cmd_tasks) {
		if (r->nr_cmd_tasks == REC_MAX_CMD_TASKS) {
			free(text);
			return;
		}
		t = realloc(r->cmd_tasks, (r->nr_cmd_tasks + 1) * sizeof(*t));
		if (!t) {
			free(text);
			return;
		}
		r->cmd_tasks = t;
		r->cmd_tasks[r->nr_cmd_tasks++] = (struct rec_task_status){ tid, NULL };
	}
	free(r->cmd_tasks[i].text);
	r->cmd_tasks[i].text = text;
}

void sr_rec_status_poll(struct rec *r)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	if (r->cmd_pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)r->cmd_pid);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		long tid = strtol(e->d_name, NULL, 10);
		char *text;

		if (tid <= 0 || tid > INT_MAX)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/status", (int)r->cmd_pid, tid);
		text = read_text(path);
		if (text)
			keep(r, (int)tid, text);
	}
	closedir(d);
}

/* mkdir for each directory of @path below @from (a prefix of it, which exists). */
static int make_dirs(char *path, size_t from)
{
	for (char *p = strchr(path + from, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

/* Where the snapshot keeps @tid's status: the leader's proc/PID/status, else under task/. */
static int status_path(const struct rec *r, const char *dir, int tid, char *buf, size_t size)
{
	int n = tid == r->cmd_pid ?
		snprintf(buf, size, "%s/proc/%d/status", dir, tid) :
		snprintf(buf, size, "%s/proc/%d/task/%d/status", dir, (int)r->cmd_pid, tid);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

void sr_rec_status_write(const struct rec *r, const char *dir)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < r->nr_cmd_tasks; i++) {
		const struct rec_task_status *t = &r->cmd_tasks[i];
		FILE *f;

		if (!t->text || status_path(r, dir, t->tid, path, sizeof(path)) ||
		    !access(path, F_OK) ||		/* still alive at the snapshot: its own copy */
		    make_dirs(path, strlen(dir) + 1))
			continue;
		f = fopen(path, "we");
		if (!f)
			continue;
		fputs(t->text, f);
		fclose(f);
	}
}

void sr_rec_status_free(struct rec *r)
{
	for (size_t i = 0; i < r->nr_cmd_tasks; i++)
		free(r->cmd_tasks[i].text);
	free(r->cmd_tasks);
	r->cmd_tasks = NULL;
	r->nr_cmd_tasks = 0;
}
