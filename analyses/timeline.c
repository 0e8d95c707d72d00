// SPDX-License-Identifier: GPL-2.0
/*
 * timeline: who ran on each CPU and how many tasks were queued there, over
 * one time window, for the pictures (--svg, --png).  explain's window is
 * around its wakeup (--window before the waking, three times that after);
 * analyze's is --time, or the whole trace.  Only the CPUs an event touches
 * are looked at, and the segments are capped: O(events in the window).
 */
#include <errno.h>
#include <stdlib.h>
#include "timeline.h"

static void window(const struct sr_view *v, uint64_t *from, uint64_t *to)
{
	const struct sr_analysis_opts *o = v->opts;

	*from = 0;
	*to = UINT64_MAX;
	if (o->mode == SR_MODE_EXPLAIN && o->explain_at_ns >= 0) {
		*from = (uint64_t)o->explain_at_ns > (uint64_t)o->window_ns ?
			(uint64_t)(o->explain_at_ns - o->window_ns) : 0;
		*to = (uint64_t)o->explain_at_ns + 3 * (uint64_t)o->window_ns;
		return;
	}
	if (o->filter.has_start)
		*from = o->filter.start_ns;
	if (o->filter.has_end)
		*to = o->filter.end_ns;
}

static int tl_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct sr_timeline *tl;

	/* explain's second pass (its time known) and analyze draw one; diff draws its own */
	if (!v->opts->plot || v->opts->mode == SR_MODE_DIFF ||
	    (v->opts->mode == SR_MODE_EXPLAIN && v->opts->explain_index))
		return 0;
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	a->data = tl;
	window(v, &tl->from, &tl->to);
	if (v->opts->mode == SR_MODE_EXPLAIN) {
		tl->pid = v->opts->explain_pid;
		tl->at = (uint64_t)v->opts->explain_at_ns;
		tl->margin = (uint64_t)v->opts->window_ns / 2;
	}
	tl->nr_cpus = v->info->nr_cpus;
	tl->open = calloc(tl->nr_cpus, sizeof(*tl->open));
	if (!tl->open || sr_pidtab_init(&tl->comms, sizeof(struct sr_tl_task)))
		return -ENOMEM;
	return 0;
}

static int keep_comm(struct sr_timeline *tl, const struct sr_state *s, int pid)
{
	const struct sr_task *t = pid > 0 ? sr_state_task(s, pid) : NULL;
	struct sr_tl_task *k;

	if (!t || sr_pidtab_find(&tl->comms, pid))
		return 0;
	k = sr_pidtab_get(&tl->comms, pid);
	if (!k)
		return -ENOMEM;
	memcpy(k->comm, t->comm, SR_COMM_LEN);
	return 0;
}

static int close_seg(struct sr_timeline *tl, int cpu, uint64_t end)
{
	struct sr_tl_seg *o = &tl->open[cpu];

	if (!o->start || end <= o->start) {
		o->start = 0;
		return 0;
	}
	o->end = end;
	if (tl->nr_seg == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 1024;
		struct sr_tl_seg *n;

		if (cap > SR_TL_MAX_SEGS) {
			tl->truncated = true;
			return 0;
		}
		n = realloc(tl->seg, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		tl->seg = n;
		tl->cap = cap;
	}
	tl->seg[tl->nr_seg++] = *o;
	o->start = 0;
	return 0;
}

/* Start or continue @cpu's stretch at @ts with what the state says now. */
static int look(struct sr_timeline *tl, const struct sr_view *v, int cpu, uint64_t ts)
{
	const struct sr_rq *rq;
	struct sr_tl_seg *o;
	int pid, ret;

	if (cpu < 0 || cpu >= tl->nr_cpus)
		return 0;
	rq = &v->state->rq[cpu];
	o = &tl->open[cpu];
	pid = v->state->cpu[cpu].curr_known ? rq->curr_pid : -1;
	if (o->start && o->pid == pid && o->nr_running == rq->nr_running)
		return 0;
	ret = close_seg(tl, cpu, ts);
	if (ret)
		return ret;
	*o = (struct sr_tl_seg){ .start = ts, .pid = pid, .cpu = (uint16_t)cpu,
				 .nr_running = (uint16_t)(rq->nr_running > 0xffff ? 0xffff :
							   rq->nr_running) };
	return keep_comm(tl, v->state, pid);
}

static int tl_event(struct sr_analysis *a, const struct sr_event *ev)
{
	struct sr_timeline *tl = a->data;
	int ret = 0;

	if (ev->ts < tl->from || (tl->last > tl->to && !tl->pid))
		return 0;
	/* explain's task may wait longer than the window: keep going until it runs */
	if (tl->pid && ev->type == SR_EV_SWITCH && ev->next_pid == tl->pid && ev->ts >= tl->at) {
		if (ev->ts + tl->margin > tl->to)
			tl->to = ev->ts + tl->margin;
		tl->pid = 0;
	}
	if (ev->ts > tl->to && !tl->pid) {
		for (int c = 0; !ret && c < tl->nr_cpus; c++)
			ret = close_seg(tl, c, tl->to);
		tl->last = ev->ts;
		return ret;
	}
	if (!tl->first) {
		/* every CPU as it stands when the window opens */
		tl->first = tl->from ? tl->from : ev->ts;
		for (int c = 0; !ret && c < tl->nr_cpus; c++)
			ret = look(tl, a->view, c, tl->first);
	}
	tl->last = ev->ts;
	ret = ret ? ret : look(tl, a->view, ev->cpu, ev->ts);
	if (!ret && (ev->type == SR_EV_WAKEUP || ev->type == SR_EV_WAKEUP_NEW ||
		     ev->type == SR_EV_WAKING))
		ret = look(tl, a->view, ev->target_cpu, ev->ts);
	if (!ret && ev->type == SR_EV_MIGRATE) {
		ret = look(tl, a->view, ev->orig_cpu, ev->ts);
		ret = ret ? ret : look(tl, a->view, ev->dest_cpu, ev->ts);
	}
	return ret;
}

const char *sr_tl_comm(const struct sr_timeline *tl, int pid)
{
	const struct sr_tl_task *k = pid > 0 ? sr_pidtab_find(&tl->comms, pid) : NULL;

	return k ? k->comm : pid ? "?" : "<idle>";
}

/* Past the window, and explain's task has run. */
static bool tl_done(const struct sr_analysis *a)
{
	const struct sr_timeline *tl = a->data;

	return tl->last > tl->to && !tl->pid;
}

static void tl_fini(struct sr_analysis *a)
{
	struct sr_timeline *tl = a->data;

	free(tl->open);
	free(tl->seg);
	sr_pidtab_free(&tl->comms);
	free(tl);
}

const struct sr_analysis_ops sr_timeline_analysis = {
	.name = "timeline",
	.help = "per-CPU occupancy over a window, for --svg/--png",
	.init = tl_init,
	.event = tl_event,
	.fini = tl_fini,
	.done = tl_done,
};
