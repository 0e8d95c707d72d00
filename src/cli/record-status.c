// SPDX-License-Identifier: GPL-2.0
/*
 * COMMAND's tasks' proc status files (their Cpus_allowed_list above all),
 * kept while it runs: a wrapper such as taskset sets the mask after our
 * fork and execs the program, a threaded program pins its threads one by
 * one (pthread_setaffinity_np()), and the snapshot, taken when the
 * recording ends, misses every task that has exited by then.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* Keep @text (owned) as the latest contents of @rel; dropped when there is no room. */
static void keep(struct rec *r, const char *rel, char *text)
{
	struct sr_snapshot_file *f;
	size_t i;

	for (i = 0; i < r->nr_cmd_files && strcmp(r->cmd_files[i].rel, rel); i++)
		;
	if (i == r->nr_cmd_files) {
		char *name = r->nr_cmd_files < REC_MAX_CMD_TASKS ? strdup(rel) : NULL;

		f = name ? realloc(r->cmd_files, (i + 1) * sizeof(*f)) : NULL;
		if (!f) {
			free(name);
			free(text);
			return;
		}
		r->cmd_files = f;
		r->cmd_files[r->nr_cmd_files++] = (struct sr_snapshot_file){ name, NULL };
	}
	free((char *)r->cmd_files[i].text);
	r->cmd_files[i].text = text;
}

void sr_rec_status_poll(struct rec *r)
{
	char path[64], rel[64];
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
		if (!text)
			continue;
		/* where the snapshot keeps it: the leader's proc/PID/status, else under task/ */
		if (tid == r->cmd_pid)
			snprintf(rel, sizeof(rel), "proc/%ld/status", tid);
		else
			snprintf(rel, sizeof(rel), "proc/%d/task/%ld/status", (int)r->cmd_pid, tid);
		keep(r, rel, text);
	}
	closedir(d);
}

void sr_rec_status_free(struct rec *r)
{
	for (size_t i = 0; i < r->nr_cmd_files; i++) {
		free((char *)r->cmd_files[i].rel);
		free((char *)r->cmd_files[i].text);
	}
	free(r->cmd_files);
	r->cmd_files = NULL;
	r->nr_cmd_files = 0;
}
