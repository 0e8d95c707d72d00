// SPDX-License-Identifier: GPL-2.0
/*
 * Write a trace.dat from the per-CPU ring-buffer pages a tracefs instance
 * gave (trace-stream.c streams them into files while recording), as
 * `trace-cmd record` does but with the instance's pages stored as the
 * top-level buffer (trace-cmd 3.1's extract -B stores them as a named
 * buffer, and has no option not to).  Headers, the formats of the events
 * recorded only, the options readers look at, command lines and the CPU
 * data, with libtracecmd's output API.
 */
#define _GNU_SOURCE		/* asprintf */
#include <errno.h>
#include <fcntl.h>
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

	if (o->uname) {
		add_string_option(out, SR_TDAT_UNAME, o->uname);
	} else if (!uname(&u)) {
		snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.nodename, u.release,
			 u.machine);
		add_string_option(out, SR_TDAT_UNAME, buf);
	}
	add_string_option(out, SR_TDAT_VERSION, o->writer);
	for (int i = 0; i < o->nr_options; i++)
		tracecmd_add_option(out, o->options[i].id, o->options[i].size, o->options[i].data);
	if (!o->inst)
		return;		/* pages from elsewhere (tests/tools/mkwide.c): no stats */
	text = tracefs_instance_file_read(o->inst, "trace_clock", NULL);
	if (text) {
		add_string_option(out, SR_TDAT_TRACECLOCK, text);
		free(text);
	}
	for (int cpu = 0; cpu < o->nr_cpus; cpu++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = o->has_buffer[cpu] ? tracefs_instance_file_read(o->inst, file, NULL) : NULL;
		snprintf(buf, sizeof(buf), "CPU: %d\n%s", cpu, text ? text : "");
		free(text);
		add_string_option(out, SR_TDAT_CPUSTAT, buf);
	}
}

/* The formats to store: the events recorded ("sched/sched_switch", ...), or all. */
static struct tracecmd_event_list *event_list(const char *const *events)
{
	struct tracecmd_event_list *list = NULL, *e;
	size_t n = 0;

	while (events && events[n])
		n++;
	if (!n)
		return NULL;
	list = calloc(n, sizeof(*list));
	for (size_t i = 0; list && i < n; i++) {
		e = &list[i];
		e->glob = events[i];
		e->next = i + 1 < n ? &list[i + 1] : NULL;
	}
	return list;
}

static int write_headers(const struct sr_trace_out *o, struct tracecmd_output *out)
{
	struct tracecmd_event_list *list = event_list(o->events);
	int ret;

	if (o->events && o->events[0] && !list)
		return -ENOMEM;
	tracecmd_set_quiet(out, true);
	tracecmd_set_out_clock(out, o->clock);
	/* an empty file: sched events need no symbols, and /proc/kallsyms is megabytes */
	ret = (o->kallsyms && tracecmd_output_set_kallsyms(out, o->kallsyms)) ||
	      tracecmd_output_set_compression(out, "any") ||
	      tracecmd_output_write_headers(out, list) ? neg_errno() : 0;
	free(list);
	return ret;
}

int sr_trace_write_files(const struct sr_trace_out *o, char *const *files, struct sr_err *err)
{
	struct tracecmd_output *out;
	int ret;

	errno = 0;
	out = tracecmd_output_create(o->path);
	if (!out)
		return sr_err_set(err, neg_errno(), "%s: cannot create: %s", o->path,
				  strerror(errno));
	ret = write_headers(o, out);
	if (ret) {
		sr_err_set(err, ret, "%s: cannot write the headers: %s", o->path, strerror(-ret));
		goto out_err;
	}
	add_options(o, out);
	errno = 0;
	if (tracecmd_write_cmdlines(out) || tracecmd_append_cpu_data(out, o->nr_cpus, files)) {
		ret = sr_err_set(err, neg_errno(), "%s: cannot write the trace data: %s", o->path,
				 strerror(errno ? errno : EIO));
		goto out_err;
	}
	tracecmd_output_close(out);
	return 0;
out_err:
	tracecmd_output_close(out);
	unlink(o->path);
	return ret;
}
