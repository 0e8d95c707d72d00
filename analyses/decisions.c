// SPDX-License-Identifier: GPL-2.0
/*
 * decisions: with --decisions FILE, one NDJSON line per placement (wakeup
 * or fork).  A line waits for its task's switch-in, so that it carries the
 * wait (waking -> switch-in) and where the task ran; it is written then, at
 * the task's next wakeup, or at the end of the trace.  At most one line per
 * task is held: memory stays O(tasks + CPUs) however long the trace.
 * Every field keeps one type on every line (a column for DuckDB or Spark).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

struct held {
	int pid;
	uint64_t index;
	json_t *line;
};

struct decisions {
	FILE *f;
	bool failed;
	struct sr_pidtab held;		/* struct held: a line waiting for its switch-in */
};

static int dec_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct decisions *d;

	if (!v->opts->decisions)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	a->data = d;
	if (sr_pidtab_init(&d->held, sizeof(struct held)))
		return -ENOMEM;
	d->f = strcmp(v->opts->decisions, "-") ? fopen(v->opts->decisions, "w") : stdout;
	return d->f ? 0 : -errno;
}

static json_t *flags_json(const struct sr_wakeup *w)
{
	json_t *a = json_array();

	if (w->hot)
		json_array_append_new(a, json_string("cache_hot"));
	/* an inferred CPU is uncertain when the task may have moved unseen */
	if (w->uncertain)
		json_array_append_new(a, json_string(w->chosen_inferred ? "uncertain" : "lost_events"));
	if (!w->paired && !w->fork)
		json_array_append_new(a, json_string("standalone"));
	if (w->nr_migrations)
		json_array_append_new(a, json_string("migrated"));
	if (w->prev_idle)
		json_array_append_new(a, json_string("prev_idle"));
	if (w->target_idle)
		json_array_append_new(a, json_string("chosen_idle"));
	if (w->chosen_inferred)
		json_array_append_new(a, json_string("chosen_inferred"));
	return a;
}

static json_t *policies_json(const struct sr_wakeup *w, const struct sr_view *v)
{
	json_t *a = json_array();

	for (int i = 0; a && i < w->nr_dec; i++) {
		const struct sr_brief *b = &w->dec[i];

		json_array_append_new(a, json_pack("{s:s, s:o, s:b, s:o, s:b, s:s, s:o}",
			"policy", v->policy[i].name,
			"cpu", b->cpu >= 0 ? json_integer(b->cpu) : json_null(),
			"sync_assumed", b->sync_assumed,
			"cpu_other_sync", b->alt_cpu >= 0 && b->alt_cpu != b->cpu ?
				json_integer(b->alt_cpu) : json_null(),
			"determined", b->determined && !w->uncertain,
			"decided_by", sr_decider_name(b->decided_by),
			"depends_on", sr_deps_json(b->depends)));
	}
	return a;
}

/* How the chosen, prev and waker CPUs stand to each other. */
static json_t *relation_json(const struct sr_wakeup *w, const struct sr_topo *t)
{
	return json_pack("{s:s, s:s, s:s}", "chosen_prev", sr_an_relation(t, w->cpu, w->prev_cpu),
			 "chosen_waker", sr_an_relation(t, w->cpu, w->waker_cpu),
			 "prev_waker", sr_an_relation(t, w->prev_cpu, w->waker_cpu));
}

static const char *actual_name(const struct sr_wakeup *w)
{
	if (w->fork)
		return w->cpu == w->waker_cpu ? "parent_cpu" : "other";
	return sr_outcome_name(w->actual);
}

static json_t *line_json(const struct sr_wakeup *w, const struct sr_view *v)
{
	char when[32];

	sr_an_fmt_time(w->ts, when, sizeof(when));
	return json_pack("{s:s, s:s, s:I, s:I, s:s, s:i, s:o, s:i, s:i, s:i, s:i, s:s, s:o, s:n,"
			 " s:n, s:o, s:o}", "schema", "schedreplay-decision/1",
			 "kind", w->fork ? "fork" : "wakeup", "wakeup", (json_int_t)w->index,
			 "ts_ns", (json_int_t)w->ts, "time", when,
			 "pid", w->task->v.pid, "comm", sr_json_str(w->task->comm),
			 "waker_pid", w->waker_pid, "waker_cpu", w->waker_cpu,
			 "prev_cpu", w->prev_cpu, "cpu", w->cpu, "actual", actual_name(w),
			 "relation", relation_json(w, v->topo), "wait_ns", "ran_on",
			 "flags", flags_json(w), "policies", policies_json(w, v));
}

static void write_line(struct decisions *d, struct held *h)
{
	if (!d->failed && (json_dumpf(h->line, d->f, JSON_COMPACT) || fputc('\n', d->f) == EOF))
		d->failed = true;
	json_decref(h->line);
	h->line = NULL;
	h->index = 0;
}

static int dec_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	struct decisions *d = a->data;
	struct held *h;

	if (w->cls != SR_W_PLACED && !w->fork)
		return 0;
	h = sr_pidtab_get(&d->held, w->task->v.pid);
	if (!h)
		return -ENOMEM;
	if (h->line)
		write_line(d, h);	/* woken again before it ran: its wait is unknown */
	h->line = line_json(w, a->view);
	h->index = w->index;
	return h->line ? 0 : -ENOMEM;
}

static int dec_run(struct sr_analysis *a, const struct sr_task *t, int cpu, uint64_t ts)
{
	struct decisions *d = a->data;
	struct held *h = sr_pidtab_find(&d->held, t->v.pid);

	if (!h || !h->line || h->index != t->note.index || ts < t->note.ts)
		return 0;
	json_object_set_new(h->line, "wait_ns", json_integer((json_int_t)(ts - t->note.ts)));
	json_object_set_new(h->line, "ran_on", json_integer(cpu));
	write_line(d, h);
	return 0;
}

static int by_index(const void *x, const void *y)
{
	const struct held *a = x, *b = y;

	return (a->index > b->index) - (a->index < b->index);
}

/* The lines still held (never seen switching in), in wakeup order. */
static int dec_report(struct sr_analysis *a, json_t *report)
{
	struct decisions *d = a->data;

	qsort(d->held.slots, d->held.nr_slots, sizeof(struct held), by_index);
	for (size_t i = 0; i < d->held.nr_slots; i++) {
		struct held *h = sr_pidtab_slot(&d->held, i);

		if (h->line)
			write_line(d, h);
	}
	d->held.used = 0;	/* sorted out of hash order: nothing may look it up again */
	memset(d->held.slots, 0, d->held.nr_slots * sizeof(struct held));
	if (fflush(d->f) || d->failed)
		return -EIO;
	return 0;
}

static void dec_fini(struct sr_analysis *a)
{
	struct decisions *d = a->data;

	for (size_t i = 0; d->held.slots && i < d->held.nr_slots; i++)
		json_decref(((struct held *)sr_pidtab_slot(&d->held, i))->line);
	sr_pidtab_free(&d->held);
	if (d->f && d->f != stdout)
		fclose(d->f);
	free(d);
}

const struct sr_analysis_ops sr_decisions_analysis = {
	.name = "decisions",
	.help = "NDJSON line per placement with its wait (--decisions FILE)",
	.init = dec_init,
	.wakeup = dec_wakeup,
	.run = dec_run,
	.report = dec_report,
	.fini = dec_fini,
};
