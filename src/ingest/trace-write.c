// SPDX-License-Identifier: GPL-2.0
/*
 * Write a trace.dat from a tracefs instance, as `trace-cmd extract` does
 * but with the instance's pages stored as the top-level buffer (trace-cmd
 * 3.1's extract -B stores them as a named buffer, and has no option not
 * to).  Drains each CPU's ring buffer into a temporary file, then writes
 * headers, the options readers look at, command lines and the CPU data
 * with libtracecmd's output API.
 */
#define _GNU_SOURCE		/* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "trace.h"
#include "tracecmd-priv.h"

/* libtracefs and libtracecmd return -1 and (mostly) leave errno set. */
static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

static void free_files(char **files, int n, const char *tmp)
{
	for (int i = 0; files && i < n; i++) {
		if (files[i])
			unlink(files[i]);
		free(files[i]);
	}
	free(files);
	if (tmp[0])
		rmdir(tmp);
}

/* Drain each CPU's ring buffer into @tmp/cpuN; a CPU without a buffer gets an empty file. */
static int extract_cpus(const struct sr_trace_out *o, const char *tmp, char **files,
			struct sr_err *err)
{
	for (int cpu = 0; cpu < o->nr_cpus; cpu++) {
		struct tracecmd_recorder *rec;
		long ret;
		int fd;

		if (asprintf(&files[cpu], "%s/cpu%d", tmp, cpu) < 0) {
			files[cpu] = NULL;
			return sr_err_set(err, -ENOMEM, "out of memory");
		}
		if (!o->has_buffer[cpu]) {
			fd = open(files[cpu], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			if (fd < 0)
				return sr_err_set(err, -errno, "%s: %s", files[cpu], strerror(errno));
			close(fd);
			continue;
		}
		rec = tracecmd_create_buffer_recorder(files[cpu], cpu, 0, o->inst);
		if (!rec)
			return sr_err_set(err, neg_errno(), "cannot read CPU %d's ring buffer", cpu);
		ret = tracecmd_flush_recording(rec, true);
		tracecmd_free_recorder(rec);
		if (ret < 0)
			return sr_err_set(err, -EIO, "cannot read CPU %d's ring buffer", cpu);
	}
	return 0;
}

static void add_string_option(struct tracecmd_output *out, unsigned short id, const char *s)
{
	tracecmd_add_option(out, id, (int)strlen(s) + 1, s);
}

/*
 * The options `trace-cmd extract` writes that readers look at.  Each CPU's
 * stats are read after the drain ("entries" are then what was left unread,
 * 0 when all went to the file), as trace-cmd stores them.
 */
static void add_options(const struct sr_trace_out *o, struct tracecmd_output *out)
{
	char buf[1024], file[64];
	struct utsname u;
	char *text;

	text = tracefs_instance_file_read(o->inst, "trace_clock", NULL);
	if (text) {
		add_string_option(out, SR_TDAT_TRACECLOCK, text);
		free(text);
	}
	if (!uname(&u)) {
		snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.nodename, u.release,
			 u.machine);
		add_string_option(out, SR_TDAT_UNAME, buf);
	}
	add_string_option(out, SR_TDAT_VERSION, o->writer);
	for (int cpu = 0; cpu < o->nr_cpus; cpu++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = o->has_buffer[cpu] ? tracefs_instance_file_read(o->inst, file, NULL) : NULL;
		snprintf(buf, sizeof(buf), "CPU: %d\n%s", cpu, text ? text : "");
		free(text);
		add_string_option(out, SR_TDAT_CPUSTAT, buf);
	}
}

/* The formats to store as write_headers wants them: a list, or NULL for all. */
static struct tracecmd_event_list *format_list(const struct sr_trace_out *o)
{
	struct tracecmd_event_list *l = NULL;

	for (int i = o->formats ? o->nr_formats - 1 : -1; i >= 0; i--) {
		struct tracecmd_event_list *n = malloc(sizeof(*n));

		if (!n)
			break;		/* a shorter list only stores fewer formats */
		*n = (struct tracecmd_event_list){ .next = l, .glob = o->formats[i] };
		l = n;
	}
	return l;
}

static void free_list(struct tracecmd_event_list *l)
{
	while (l) {
		struct tracecmd_event_list *n = l->next;

		free(l);
		l = n;
	}
}

static int write_file(const struct sr_trace_out *o, char **files, struct sr_err *err)
{
	struct tracecmd_event_list *list = format_list(o);
	struct tracecmd_output *out;
	int ret = 0;

	out = tracecmd_output_create(o->path);
	if (!out) {
		free_list(list);
		return sr_err_set(err, neg_errno(), "%s: cannot create: %s", o->path,
				  strerror(errno));
	}
	tracecmd_set_quiet(out, true);
	tracecmd_set_out_clock(out, o->clock);
	/* an empty file for kallsyms stores none: sched events need no symbols */
	if ((!o->kallsyms && tracecmd_output_set_kallsyms(out, "/dev/null")) ||
	    tracecmd_output_set_compression(out, "any") ||
	    tracecmd_output_write_headers(out, list)) {
		ret = sr_err_set(err, neg_errno(), "%s: cannot write the headers", o->path);
		goto out_err;
	}
	add_options(o, out);
	if (tracecmd_write_cmdlines(out) || tracecmd_append_cpu_data(out, o->nr_cpus, files)) {
		ret = sr_err_set(err, neg_errno(), "%s: cannot write the trace data", o->path);
		goto out_err;
	}
	tracecmd_output_close(out);
	free_list(list);
	return 0;
out_err:
	tracecmd_output_close(out);
	free_list(list);
	unlink(o->path);
	return ret;
}

int sr_trace_write_instance(const struct sr_trace_out *o, struct sr_err *err)
{
	char tmp[PATH_MAX] = "";
	char **files;
	int ret;

	files = calloc(o->nr_cpus, sizeof(*files));
	if (!files)
		return sr_err_set(err, -ENOMEM, "out of memory");
	if (snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", o->path) >= (int)sizeof(tmp) ||
	    !mkdtemp(tmp)) {
		ret = sr_err_set(err, -errno, "cannot create a temporary directory next to %s: %s",
				 o->path, strerror(errno));
		tmp[0] = '\0';
		goto out;
	}
	ret = extract_cpus(o, tmp, files, err);
	if (!ret)
		ret = write_file(o, files, err);
out:
	free_files(files, o->nr_cpus, tmp);
	return ret;
}
