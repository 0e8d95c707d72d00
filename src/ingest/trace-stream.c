// SPDX-License-Identifier: GPL-2.0
/*
 * Stream a tracefs instance's ring buffers to disk while it records, as
 * `trace-cmd record` does: one reader per CPU splices full pages from
 * per_cpu/cpuN/trace_pipe_raw into its own file (libtracecmd's recorder),
 * so a recording is bounded by the disk, not by the buffer, and events
 * are lost only when a reader falls behind — which the kernel marks on the
 * next page it hands over, and the reader of the file sees as a lost
 * window.  Readers are threads blocked in select() until the kernel wakes
 * them (buffer_percent); stopping wakes them, and each then drains the
 * partial pages left.  The files live in a directory next to the output,
 * on the same file system, until sr_trace_write_files() assembles them.
 */
#define _GNU_SOURCE		/* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "trace.h"
#include "tracecmd-priv.h"

struct reader {
	struct sr_stream *s;
	struct tracecmd_recorder *rec;
	pthread_t thread;
	bool running;
	atomic_bool stopping;		/* sr_stream_stop() woke it */
	int err;			/* -errno of a failed read or write, else 0 */
};

struct sr_stream {
	int nr_cpus;
	char dir[PATH_MAX];
	char **files;
	struct reader *r;
	pthread_t owner;
	int notify;
};

/*
 * libtracecmd 1.3's recorder returns EAGAIN, without draining what is
 * left, when it is stopped while a splice is under way (the descriptor
 * turns non-blocking): drain it here then.
 */
static void *read_cpu(void *arg)
{
	struct reader *r = arg;
	int ret;

	errno = 0;
	ret = tracecmd_start_recording(r->rec, 0);
	if (ret < 0 && errno == EAGAIN && atomic_load(&r->stopping)) {
		errno = 0;
		ret = tracecmd_flush_recording(r->rec, true) < 0 ? -1 : 0;
	}
	if (ret < 0) {
		r->err = errno ? -errno : -EIO;
		if (r->s->notify && !atomic_load(&r->stopping))
			pthread_kill(r->s->owner, r->s->notify);
	}
	return NULL;
}

/* An empty file for a CPU without a buffer (offline): the file still has its slot. */
static int empty_file(const char *path, struct sr_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return sr_err_set(err, -errno, "%s: %s", path, strerror(errno));
	close(fd);
	return 0;
}

static int start_cpu(struct sr_stream *s, const struct sr_stream_opts *o, int cpu,
		     struct sr_err *err)
{
	struct reader *r = &s->r[cpu];
	int ret;

	if (asprintf(&s->files[cpu], "%s/cpu%d", s->dir, cpu) < 0) {
		s->files[cpu] = NULL;
		return sr_err_set(err, -ENOMEM, "out of memory");
	}
	if (!o->has_buffer[cpu])
		return empty_file(s->files[cpu], err);
	errno = 0;
	r->rec = tracecmd_create_buffer_recorder(s->files[cpu], cpu, 0, o->inst);
	if (!r->rec)
		return sr_err_set(err, errno ? -errno : -EIO, "cannot read CPU %d's ring buffer: %s",
				  cpu, strerror(errno ? errno : EIO));
	r->s = s;
	ret = pthread_create(&r->thread, NULL, read_cpu, r);
	if (ret)
		return sr_err_set(err, -ret, "cannot start CPU %d's reader: %s", cpu, strerror(ret));
	r->running = true;
	return 0;
}

int sr_stream_start(struct sr_stream **out, const struct sr_stream_opts *o, struct sr_err *err)
{
	struct sr_stream *s = calloc(1, sizeof(*s));
	int ret = 0;

	*out = s;
	if (!s)
		return sr_err_set(err, -ENOMEM, "out of memory");
	s->nr_cpus = o->nr_cpus;
	s->owner = pthread_self();
	s->notify = o->notify_signal;
	s->files = calloc(o->nr_cpus, sizeof(*s->files));
	s->r = calloc(o->nr_cpus, sizeof(*s->r));
	if (!s->files || !s->r)
		return sr_err_set(err, -ENOMEM, "out of memory");
	if (snprintf(s->dir, sizeof(s->dir), "%s.tmp-XXXXXX", o->near) >= (int)sizeof(s->dir) ||
	    !mkdtemp(s->dir)) {
		ret = sr_err_set(err, errno ? -errno : -ENAMETOOLONG, "cannot create a directory "
				 "next to %s for the per-CPU data: %s", o->near, strerror(errno));
		s->dir[0] = '\0';
		return ret;
	}
	for (int cpu = 0; !ret && cpu < o->nr_cpus; cpu++)
		ret = start_cpu(s, o, cpu, err);
	return ret;
}

int sr_stream_failed(const struct sr_stream *s)
{
	for (int cpu = 0; s && cpu < s->nr_cpus; cpu++)
		if (s->r[cpu].err)
			return s->r[cpu].err;
	return 0;
}

int sr_stream_stop(struct sr_stream *s, struct sr_err *err)
{
	int ret;

	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (!s->r[cpu].running)
			continue;
		atomic_store(&s->r[cpu].stopping, true);
		tracecmd_stop_recording(s->r[cpu].rec);
	}
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (s->r[cpu].running)
			pthread_join(s->r[cpu].thread, NULL);
		s->r[cpu].running = false;
		tracecmd_free_recorder(s->r[cpu].rec);
		s->r[cpu].rec = NULL;
	}
	ret = sr_stream_failed(s);
	if (ret)
		return sr_err_set(err, ret, "cannot store the ring buffers' pages in %s: %s",
				  s->dir, strerror(-ret));
	return 0;
}

long long sr_stream_bytes(const struct sr_stream *s)
{
	long long total = 0;
	struct stat st;

	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->files[cpu] && !stat(s->files[cpu], &st))
			total += st.st_size;
	return total;
}

int sr_stream_write(struct sr_stream *s, const struct sr_trace_out *o, struct sr_err *err)
{
	struct sr_trace_out out = *o;
	char path[PATH_MAX + 16];
	int ret;

	if (o->kallsyms)	/* record --kallsyms */
		return sr_trace_write_files(&out, s->files, err);
	snprintf(path, sizeof(path), "%s/kallsyms", s->dir);
	ret = empty_file(path, err);
	if (ret)
		return ret;
	out.kallsyms = path;
	ret = sr_trace_write_files(&out, s->files, err);
	unlink(path);
	return ret;
}

void sr_stream_free(struct sr_stream *s)
{
	if (!s)
		return;
	if (s->r)
		sr_stream_stop(s, NULL);
	for (int cpu = 0; s->files && cpu < s->nr_cpus; cpu++) {
		if (s->files[cpu])
			unlink(s->files[cpu]);
		free(s->files[cpu]);
	}
	if (s->dir[0])
		rmdir(s->dir);
	free(s->files);
	free(s->r);
	free(s);
}
