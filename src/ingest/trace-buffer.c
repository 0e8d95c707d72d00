// SPDX-License-Identifier: GPL-2.0
/*
 * Which buffer of the file to read.  `trace-cmd record -B NAME` and
 * `extract -B NAME` store a tracefs instance's events as a named buffer,
 * next to a top-level one that may be empty: reading only the top level
 * would count 0 events and look like a quiet trace.  So the buffer read is
 * the one asked for (--buffer), else the top level if it holds sched
 * events, else the first instance that does, and the trace says which.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace-priv.h"

/* Records looked at per CPU before deciding a buffer holds no sched event. */
#define SCAN_RECORDS	4096

static bool sched_type(enum sr_ev_type type)
{
	return type == SR_EV_SWITCH || type == SR_EV_WAKING || type == SR_EV_WAKEUP ||
	       type == SR_EV_WAKEUP_NEW;
}

/* Whether one of @h's first records is a sched event; leaves @h rewound. */
static bool holds_sched(struct sr_trace *t, struct tracecmd_input *h)
{
	bool found = false;

	for (int cpu = 0; cpu < tracecmd_cpus(h) && !found; cpu++) {
		sr_tr_lib_enter(t, cpu);
		for (int n = 0; n < SCAN_RECORDS && !found; n++) {
			struct tep_record *rec = n ? tracecmd_read_data(h, cpu) :
						     tracecmd_read_cpu_first(h, cpu);

			if (!rec)
				break;
			found = sched_type(sr_tr_record_type(t, rec));
			tracecmd_free_record(rec);
		}
		tracecmd_set_cpu_to_timestamp(h, cpu, 0);
		sr_tr_lib_leave(t);
	}
	return found;
}

static struct tracecmd_input *open_instance(struct sr_trace *t, int i)
{
	struct tracecmd_input *h;

	sr_tr_lib_enter(t, -1);
	h = tracecmd_buffer_instance_handle(t->top, i);
	sr_tr_lib_leave(t);
	return h;
}

static void use_instance(struct sr_trace *t, struct tracecmd_input *h, const char *name)
{
	t->handle = h;
	snprintf(t->info.buffer, sizeof(t->info.buffer), "%s", name);
}

/* "top-level, a, b": what the file has, for an error. */
static void list_buffers(struct sr_trace *t, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "the top-level buffer");

	for (int i = 0; i < tracecmd_buffer_instances(t->top) && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, ", '%s'",
					tracecmd_buffer_instance_name(t->top, i));
}

static int open_named(struct sr_trace *t, const char *name, const char *path,
		      struct sr_err *err)
{
	char have[256];

	for (int i = 0; i < tracecmd_buffer_instances(t->top); i++) {
		const char *n = tracecmd_buffer_instance_name(t->top, i);
		struct tracecmd_input *h;

		if (!n || strcmp(n, name))
			continue;
		h = open_instance(t, i);
		if (!h)
			return sr_err_set(err, -EINVAL, "%s: cannot read buffer '%s' (corrupt file)",
					  path, name);
		use_instance(t, h, name);
		return 0;
	}
	if (!name[0] || !strcmp(name, "top-level"))
		return 0;	/* the top level, already in use */
	list_buffers(t, have, sizeof(have));
	return sr_err_set(err, -ENOENT, "%s: no buffer named '%s' (the file has %s)", path, name,
			  have);
}

/* Name the other buffers that hold sched events: the user may want one of them. */
static void note_others(struct sr_trace *t, int from)
{
	char *note = t->info.buffers_note;
	size_t size = sizeof(t->info.buffers_note), len = 0;

	for (int i = from; i < tracecmd_buffer_instances(t->top) && len < size; i++) {
		struct tracecmd_input *h = open_instance(t, i);

		if (h && holds_sched(t, h))
			len += (size_t)snprintf(note + len, size - len, "%s'%s'", len ? ", " : "",
						tracecmd_buffer_instance_name(t->top, i));
		if (h)
			tracecmd_close(h);
	}
}

int sr_tr_choose_buffer(struct sr_trace *t, const char *name, const char *path,
			struct sr_err *err)
{
	int nr = tracecmd_buffer_instances(t->top);

	t->handle = t->top;
	t->info.buffer_given = name != NULL;
	if (name)
		return open_named(t, name, path, err);
	if (!nr || holds_sched(t, t->top)) {
		note_others(t, 0);
		return 0;
	}
	for (int i = 0; i < nr; i++) {
		struct tracecmd_input *h = open_instance(t, i);

		if (!h)
			continue;
		if (holds_sched(t, h)) {
			use_instance(t, h, tracecmd_buffer_instance_name(t->top, i));
			note_others(t, i + 1);
			return 0;
		}
		tracecmd_close(h);
	}
	return 0;	/* nothing anywhere: the top level says so */
}

void sr_tr_close_buffer(struct sr_trace *t)
{
	if (t->handle && t->handle != t->top)
		tracecmd_close(t->handle);
	t->handle = NULL;
}
