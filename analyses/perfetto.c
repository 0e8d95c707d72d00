// SPDX-License-Identifier: GPL-2.0
/*
 * perfetto: with --perfetto FILE, the trace as a Chrome JSON trace
 * (the "Trace Event Format" ui.perfetto.dev and chrome://tracing open):
 * one track per CPU with a slice per task run, each placement as an
 * instant on the waker's CPU carrying every policy's answer, and a flow
 * from the waking to the switch-in.  Built with jansson and written when
 * the report is: memory grows with the events kept, capped (--time
 * narrows a long trace).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

#define MAX_EVENTS	2000000

struct slice {
	uint64_t start;			/* 0: none open */
	int pid;
	char comm[SR_COMM_LEN];
};

struct flow {
	int pid;
	uint64_t index;
};

struct perfetto {
	json_t *events;
	size_t n;
	bool truncated;
	struct slice *cpu;		/* the run in progress per CPU */
	struct sr_pidtab flows;		/* struct flow: a waking waiting for its switch-in */
};

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static void add(struct perfetto *p, json_t *ev)
{
	if (!ev)
		return;
	if (p->n >= MAX_EVENTS) {
		p->truncated = true;
		json_decref(ev);
		return;
	}
	json_array_append_new(p->events, ev);
	p->n++;
}

static int pf_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct perfetto *p;

	if (!v->opts->perfetto)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	a->data = p;
	p->events = json_array();
	p->cpu = calloc(v->info->nr_cpus, sizeof(*p->cpu));
	if (!p->events || !p->cpu || sr_pidtab_init(&p->flows, sizeof(struct flow)))
		return -ENOMEM;
	add(p, json_pack("{s:s, s:i, s:s, s:{s:s}}", "ph", "M", "pid", 0, "name", "process_name",
			 "args", "name", "CPUs"));
	for (int c = 0; c < v->info->nr_cpus; c++) {
		char name[32];

		snprintf(name, sizeof(name), "CPU %d", c);
		add(p, json_pack("{s:s, s:i, s:i, s:s, s:{s:s}}", "ph", "M", "pid", 0, "tid", c,
				 "name", "thread_name", "args", "name", name));
		add(p, json_pack("{s:s, s:i, s:i, s:s, s:{s:i}}", "ph", "M", "pid", 0, "tid", c,
				 "name", "thread_sort_index", "args", "sort_index", c));
	}
	return 0;
}

static void close_slice(struct perfetto *p, const struct sr_view *v, int cpu, uint64_t ts)
{
	struct slice *s = &p->cpu[cpu];

	if (s->start && s->pid > 0 && ts > s->start &&
	    sr_filter_time(&v->opts->filter, s->start))
		add(p, json_pack("{s:s, s:s, s:o, s:i, s:i, s:f, s:f, s:{s:i}}", "ph", "X",
				 "cat", "sched", "name", sr_json_str(s->comm), "pid", 0, "tid", cpu,
				 "ts", us(s->start), "dur", us(ts - s->start), "args", "pid", s->pid));
	s->start = 0;
}

static int pf_event(struct sr_analysis *a, const struct sr_event *ev)
{
	struct perfetto *p = a->data;
	struct slice *s;

	if (ev->type != SR_EV_SWITCH || ev->cpu < 0 || ev->cpu >= a->view->info->nr_cpus)
		return 0;
	close_slice(p, a->view, ev->cpu, ev->ts);
	s = &p->cpu[ev->cpu];
	*s = (struct slice){ .start = ev->ts, .pid = ev->next_pid };
	memcpy(s->comm, ev->next_comm, SR_COMM_LEN);
	return 0;
}

static json_t *answers_json(const struct sr_wakeup *w, const struct sr_view *v)
{
	json_t *o = json_object();

	for (int i = 0; o && i < w->nr_dec; i++)
		json_object_set_new(o, v->policy[i].name, json_pack("{s:o, s:s, s:b}",
			"cpu", w->dec[i].cpu >= 0 ? json_integer(w->dec[i].cpu) : json_null(),
			"decided_by", sr_decider_name(w->dec[i].decided_by),
			"determined", w->dec[i].determined && !w->uncertain));
	return o;
}

/* The placement as an instant on the waker's CPU, and the start of its flow. */
static int pf_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	const struct sr_view *v = a->view;
	struct perfetto *p = a->data;
	struct flow *f;
	char name[48];

	if ((w->cls != SR_W_PLACED && w->kind == SR_WAKE_TTWU) || w->waker_cpu < 0)
		return 0;
	snprintf(name, sizeof(name), "%s %s",
		 w->kind == SR_WAKE_TTWU ? "wake" : sr_wake_kind_name(w->kind), w->task->comm);
	add(p, json_pack("{s:s, s:s, s:s, s:o, s:i, s:i, s:f, s:{s:I, s:i, s:o, s:i, s:i, s:s,"
			 " s:o}}", "ph", "i", "s", "t", "cat", "placement", "name", sr_json_str(name),
			 "pid", 0, "tid", w->waker_cpu, "ts", us(w->ts),
			 "args", "wakeup", (json_int_t)w->index, "pid", w->task->v.pid,
			 "comm", sr_json_str(w->task->comm), "prev_cpu", w->prev_cpu, "chosen_cpu", w->cpu,
			 "relation", sr_an_relation(v->topo, w->cpu, w->prev_cpu),
			 "policies", answers_json(w, v)));
	if (w->kind == SR_WAKE_EXEC)
		return 0;	/* it runs on: no slice for a flow to end on */
	add(p, json_pack("{s:s, s:s, s:s, s:I, s:i, s:i, s:f}", "ph", "s", "cat", "wakeup",
			 "name", "wakeup", "id", (json_int_t)w->index, "pid", 0,
			 "tid", w->waker_cpu, "ts", us(w->ts)));
	f = sr_pidtab_get(&p->flows, w->task->v.pid);
	if (!f)
		return -ENOMEM;
	f->index = w->index;
	return 0;
}

/* The flow ends on the slice the task starts. */
static int pf_run(struct sr_analysis *a, const struct sr_task *t, int cpu, uint64_t ts)
{
	struct perfetto *p = a->data;
	struct flow *f = sr_pidtab_find(&p->flows, t->v.pid);

	if (!f || !f->index || f->index != t->note.index)
		return 0;
	add(p, json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:i, s:f}", "ph", "f", "bp", "e",
			 "cat", "wakeup", "name", "wakeup", "id", (json_int_t)f->index, "pid", 0,
			 "tid", cpu, "ts", us(ts)));
	f->index = 0;
	return 0;
}

static int pf_report(struct sr_analysis *a, json_t *report)
{
	const struct sr_view *v = a->view;
	struct perfetto *p = a->data;
	json_t *doc;
	int ret;

	for (int c = 0; c < v->info->nr_cpus; c++)
		close_slice(p, v, c, v->info->last_ts);
	doc = json_pack("{s:O, s:s, s:{s:s, s:s, s:b}}", "traceEvents", p->events,
			"displayTimeUnit", "ns", "otherData", "source", "schedreplay",
			"trace", v->info->release[0] ? v->info->release : "unknown kernel",
			"truncated", p->truncated);
	if (!doc)
		return -ENOMEM;
	ret = json_dump_file(doc, v->opts->perfetto, JSON_COMPACT) ? -EIO : 0;
	json_decref(doc);
	return ret;
}

static void pf_fini(struct sr_analysis *a)
{
	struct perfetto *p = a->data;

	json_decref(p->events);
	free(p->cpu);
	sr_pidtab_free(&p->flows);
	free(p);
}

const struct sr_analysis_ops sr_perfetto_analysis = {
	.name = "perfetto",
	.help = "the trace as a Chrome JSON trace for ui.perfetto.dev (--perfetto FILE)",
	.init = pf_init,
	.event = pf_event,
	.wakeup = pf_wakeup,
	.run = pf_run,
	.report = pf_report,
	.fini = pf_fini,
};
