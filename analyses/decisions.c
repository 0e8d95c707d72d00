// SPDX-License-Identifier: GPL-2.0
/*
 * decisions: with --decisions FILE, one NDJSON line per placement (wakeup
 * or fork).  A line waits for its task's switch-in, so that it carries the
 * wait (waking -> switch-in) and where the task ran; it is written then, at
 * the task's next wakeup, or at the end of the trace.  At most one line per
 * task is held, as plain data: memory stays O(tasks + CPUs) however long
 * the trace, and a line is rendered once, when written, by one reused yajl
 * generator (decisions-line.c) straight into the writer's staging buffer.
 * FILE ending in .gz or .zst is compressed.  Every field keeps one type on
 * every line (a column for DuckDB or Spark).
 */
#include <errno.h>
#include <stdlib.h>
#include "decisions-line.h"

struct decisions {
	struct sr_ndjson out;
	struct dline line;
	int nr_pol;
	bool failed;
	struct sr_pidtab held;		/* struct held: a line waiting for its switch-in */
};

static int dec_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct decisions *d;
	int ret;

	if (!v->opts->decisions)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	a->data = d;
	d->nr_pol = v->nr_policies;
	if (sr_pidtab_init(&d->held, sizeof(struct held)) || sr_dline_init(&d->line, v, &d->out))
		return -ENOMEM;
	ret = sr_ndjson_open_by_name(&d->out, v->opts->decisions);
	if (ret)
		d->out.failed = true;
	return ret;
}

static void write_line(struct decisions *d, struct held *h)
{
	if (sr_dline_render(&d->line, h))
		d->failed = true;
	h->live = false;
	h->index = 0;
}

static int dec_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	struct decisions *d = a->data;
	struct held *h;

	if (w->cls != SR_W_PLACED && w->kind == SR_WAKE_TTWU)
		return 0;
	h = sr_pidtab_get(&d->held, w->task->v.pid);
	if (!h)
		return -ENOMEM;
	if (h->live)
		write_line(d, h);	/* woken again before it ran: its wait is unknown */
	if (!h->dec && !(h->dec = calloc(d->nr_pol ? (size_t)d->nr_pol : 1, sizeof(*h->dec))))
		return -ENOMEM;
	sr_dline_hold(h, w, a->view);
	if (w->kind == SR_WAKE_EXEC) {
		h->ran_on = w->cpu;	/* it runs there: the wait is no wakeup latency */
		write_line(d, h);
	}
	return 0;
}

static int dec_run(struct sr_analysis *a, const struct sr_task *t, int cpu, uint64_t ts)
{
	struct decisions *d = a->data;
	struct held *h = sr_pidtab_find(&d->held, t->v.pid);

	if (!h || !h->live || h->index != t->note.index || ts < t->note.ts)
		return 0;
	h->wait_ns = (int64_t)(ts - t->note.ts);
	h->ran_on = cpu;
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

		if (h->live)
			write_line(d, h);
		free(h->dec);
	}
	d->held.used = 0;	/* sorted out of hash order: nothing may look it up again */
	memset(d->held.slots, 0, d->held.nr_slots * sizeof(struct held));
	if (sr_ndjson_close(&d->out) || d->failed)
		return -EIO;
	return 0;
}

static void dec_fini(struct sr_analysis *a)
{
	struct decisions *d = a->data;

	for (size_t i = 0; d->held.slots && i < d->held.nr_slots; i++)
		free(((struct held *)sr_pidtab_slot(&d->held, i))->dec);
	sr_pidtab_free(&d->held);
	sr_ndjson_close(&d->out);
	sr_dline_free(&d->line);
	free(d);
}

const struct sr_analysis_ops sr_decisions_analysis = {
	.name = "decisions",
	.help = "NDJSON line per placement with its wait (--decisions FILE; .gz, .zst compress)",
	.init = dec_init,
	.wakeup = dec_wakeup,
	.run = dec_run,
	.report = dec_report,
	.fini = dec_fini,
};
