// SPDX-License-Identifier: GPL-2.0
/*
 * work_conservation: the Wasted Cores invariant, streamed.  An episode is
 * a stretch where one CPU runs idle while another has tasks waiting
 * (nr_running >= 2).  Affinity is not in the trace: every waiting task is
 * assumed able to run on the idle CPU (reported as such).  Also counts
 * load-balancer migrations that moved a task from a less to a more loaded
 * CPU ("useless"), and, for those between two LLCs, whether Jianyong Wu's
 * "allow imbalance between LLCs under NUMA" (May 2025, never merged) would
 * have kept the imbalance instead.  State per CPU only: O(CPUs).
 */
#include <errno.h>
#include <stdlib.h>
#include "analysis.h"

struct episode {
	int cpu;			/* the idle CPU */
	int busy_cpu;			/* an overloaded CPU when the episode began */
	unsigned int busy_nr;		/* its nr_running then */
	uint64_t start, end;
};

struct wc {
	int nr_cpus;
	bool *idle, *over;		/* per CPU, as last seen */
	struct episode *open;		/* per CPU: the episode in progress (start 0: none) */
	int nr_over;
	uint64_t count, total_ns, short_count;
	struct episode *worst;		/* the longest, sorted, at most top */
	int nr_worst, top;
	uint64_t balancer_moves, useless_moves, sideways_moves;
	uint64_t cross_llc_moves, wu_reached, wu_applies, wu_kept;
	unsigned int kver;		/* the first policy's kernel, for Wu's verdict */
	struct sr_llc_imb_verdict *verdict;	/* reused: its trail is large */
};

static int wc_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct wc *w;
	int n = v->info->nr_cpus;

	if (v->opts->mode != SR_MODE_ANALYZE)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->nr_cpus = n;
	w->top = v->opts->top;
	w->kver = v->nr_policies ? v->policy[0].knobs.kver : 0;
	w->idle = calloc(n, sizeof(*w->idle));
	w->over = calloc(n, sizeof(*w->over));
	w->open = calloc(n, sizeof(*w->open));
	w->worst = calloc(w->top, sizeof(*w->worst));
	w->verdict = malloc(sizeof(*w->verdict));
	a->data = w;
	return w->idle && w->over && w->open && w->worst && w->verdict ? 0 : -ENOMEM;
}

static int first_over(const struct wc *w)
{
	for (int c = 0; c < w->nr_cpus; c++)
		if (w->over[c])
			return c;
	return -1;
}

static void keep_worst(struct wc *w, const struct episode *e)
{
	int i;

	if (w->nr_worst == w->top && e->end - e->start <= w->worst[w->top - 1].end -
	    w->worst[w->top - 1].start)
		return;
	if (w->nr_worst < w->top)
		w->nr_worst++;
	for (i = w->nr_worst - 1; i > 0 && w->worst[i - 1].end - w->worst[i - 1].start <
	     e->end - e->start; i--)
		w->worst[i] = w->worst[i - 1];
	w->worst[i] = *e;
}

/* An episode names the overloaded CPU it began with. */
static void start(struct wc *w, int cpu, uint64_t ts, const struct sr_view *v)
{
	struct episode *e = &w->open[cpu];
	int busy;

	if (e->start)
		return;
	busy = first_over(w);
	*e = (struct episode){ .cpu = cpu, .start = ts ? ts : 1, .busy_cpu = busy,
			       .busy_nr = busy >= 0 ? v->state->rq[busy].nr_running : 0 };
}

static void stop(struct wc *w, int cpu, uint64_t ts, const struct sr_view *v)
{
	struct episode e = w->open[cpu];

	if (!e.start)
		return;
	w->open[cpu].start = 0;
	e.end = ts;
	if (e.end - e.start < (uint64_t)v->opts->idle_threshold_ns) {
		w->short_count++;
		return;
	}
	w->count++;
	w->total_ns += e.end - e.start;
	keep_worst(w, &e);
}

/*
 * One CPU's flags changed: open or close the episodes that depend on them.
 * Out of line, as balancer_move(): inlined, they made wc_event() save six
 * registers and a frame on every event for work that runs on few.
 */
static __attribute__((noinline)) void flags_changed(struct wc *w, int cpu, bool idle, bool over, uint64_t ts,
			  const struct sr_view *v)
{
	int was = w->nr_over;

	if (over != w->over[cpu])
		w->nr_over += over ? 1 : -1;
	w->over[cpu] = over;
	if (idle != w->idle[cpu]) {
		w->idle[cpu] = idle;
		if (idle && w->nr_over)
			start(w, cpu, ts, v);
		else if (!idle)
			stop(w, cpu, ts, v);
	}
	if (!was == !w->nr_over)
		return;
	for (int c = 0; c < w->nr_cpus; c++) {
		if (!w->idle[c])
			continue;
		if (w->nr_over)
			start(w, c, ts, v);
		else
			stop(w, c, ts, v);
	}
}

/*
 * Re-read one CPU's flags.  Inline, and the rest apart: it runs for every
 * event, and nearly always finds them as they were.
 */
static inline void refresh(struct wc *w, int cpu, uint64_t ts, const struct sr_view *v)
{
	const struct sr_rq *rq = &v->state->rq[cpu];
	bool known = v->state->cpu[cpu].curr_known && !rq->uncertain;
	bool idle = known && !rq->curr_pid && !rq->nr_running;
	bool over = known && rq->nr_running >= 2;

	if (idle != w->idle[cpu] || over != w->over[cpu])
		flags_changed(w, cpu, idle, over, ts, v);
}

static bool cpu_in(const struct wc *w, int cpu)
{
	return (unsigned int)cpu < (unsigned int)w->nr_cpus;	/* 0 <= cpu < nr_cpus */
}

/* An LLC as the balancer sees it, before the move (@delta undoes it). */
static void llc_group(const struct sr_view *v, int cpu, int delta, struct sr_lb_group *g)
{
	const struct sr_cpu_topo *c = &v->topo->cpu[cpu];
	int o;

	*g = (struct sr_lb_group){ 0 };
	sr_for_each_cpu(o, &c->llc) {
		const struct sr_rq *rq = &v->state->rq[o];

		g->sum_nr_running += rq->nr_running;
		g->idle_cpus += !rq->curr_pid && !rq->nr_running;
		g->group_weight++;
		g->group_capacity += rq->capacity;
		/* cpu_util_cfs(): capped at the CPU's capacity */
		g->group_util += rq->util_avg < rq->capacity ? rq->util_avg : rq->capacity;
		g->group_runnable += rq->runnable_avg;	/* cpu_runnable() */
	}
	g->sum_nr_running += delta;
}

/* The domain of @dst where @src's LLC is a sibling group: the child spans the LLC. */
static int llc_parent_level(const struct sr_topo *t, int dst, int src)
{
	const struct sr_cpu_topo *c = &t->cpu[dst];

	for (int l = 1; l < c->nr_levels; l++)
		if (sr_mask_test(&c->sd[l].span, src) &&
		    (c->sd[l - 1].flags & SD_SHARE_PKG_RESOURCES))
			return l;
	return -1;
}

/* Would Wu's allowance have kept this cross-LLC imbalance? */
static void wu_verdict(struct wc *w, const struct sr_event *ev, const struct sr_view *v)
{
	struct sr_llc_imb_verdict *verdict = w->verdict;
	struct sr_llc_imb_in in;
	int level;

	if (sr_cpus_share_cache(v->topo, ev->orig_cpu, ev->dest_cpu))
		return;
	w->cross_llc_moves++;
	level = llc_parent_level(v->topo, ev->dest_cpu, ev->orig_cpu);
	if (w->kver < SR_KV(6, 0) || level < 0 ||
	    sr_llc_imb_domain(v->topo, ev->dest_cpu, level, w->kver, &in))
		return;
	llc_group(v, ev->dest_cpu, -1, &in.local);
	llc_group(v, ev->orig_cpu, +1, &in.busiest);
	in.dst_idle = in.local.idle_cpus > 0;
	if (!sr_llc_imbalance_wu(&in, verdict)) {
		w->wu_reached += verdict->reached;
		w->wu_applies += verdict->wu_applies;
		w->wu_kept += verdict->kept;
	}
}

/* A migration of a queued task not being woken is the load balancer's. */
static __attribute__((noinline)) void balancer_move(struct wc *w, const struct sr_event *ev, const struct sr_view *v)
{
	const struct sr_task *t = sr_state_task(v->state, ev->pid);
	unsigned int src, dst;

	if (!t || t->state != SR_T_QUEUED || t->pending || !cpu_in(w, ev->orig_cpu) ||
	    !cpu_in(w, ev->dest_cpu) || ev->orig_cpu == ev->dest_cpu)
		return;
	/* counts after the move; before it, src had one more and dst one fewer */
	src = v->state->rq[ev->orig_cpu].nr_running + 1;
	dst = v->state->rq[ev->dest_cpu].nr_running - 1;
	w->balancer_moves++;
	if (src < dst)
		w->useless_moves++;
	else if (src == dst)
		w->sideways_moves++;
	wu_verdict(w, ev, v);
}

/* refresh() @cpu unless it is out of range or named before it in the event (@a, @b, @c). */
static void refresh_new(struct wc *w, int cpu, int a, int b, int c, uint64_t ts,
			const struct sr_view *v)
{
	if (cpu_in(w, cpu) && cpu != a && cpu != b && cpu != c)
		refresh(w, cpu, ts, v);
}

/* A migration's (or a probe's) orig and dest, after cpu and target. */
static __attribute__((noinline)) void refresh_ends(struct wc *w, const struct sr_event *ev,
						   const struct sr_view *v)
{
	refresh_new(w, ev->orig_cpu, ev->cpu, ev->target_cpu, ev->target_cpu, ev->ts, v);
	refresh_new(w, ev->dest_cpu, ev->cpu, ev->target_cpu, ev->orig_cpu, ev->ts, v);
}

/*
 * Each CPU the event names once, in the order cpu, target, orig, dest: a
 * second refresh at the same moment finds nothing changed.  Most events
 * name no orig or dest (-1): their CPUs are refreshed here, the rest out
 * of line, so that this runs on few registers.
 */
static int wc_event(struct sr_analysis *a, const struct sr_event *ev)
{
	const struct sr_view *v = a->view;
	struct wc *w = a->data;

	if (ev->type == SR_EV_MIGRATE)
		balancer_move(w, ev, v);
	if (cpu_in(w, ev->cpu))
		refresh(w, ev->cpu, ev->ts, v);
	refresh_new(w, ev->target_cpu, ev->cpu, ev->cpu, ev->cpu, ev->ts, v);
	if (ev->orig_cpu >= 0 || ev->dest_cpu >= 0)
		refresh_ends(w, ev, v);
	return 0;
}

static int wc_report(struct sr_analysis *a, json_t *report)
{
	const struct sr_view *v = a->view;
	struct wc *w = a->data;
	json_t *worst = json_array();

	for (int c = 0; c < w->nr_cpus; c++)
		stop(w, c, v->info->last_ts, v);
	for (int i = 0; worst && i < w->nr_worst; i++) {
		const struct episode *e = &w->worst[i];

		json_array_append_new(worst, json_pack("{s:i, s:I, s:I, s:I, s:i, s:i}",
			"idle_cpu", e->cpu, "start_ns", (json_int_t)e->start,
			"end_ns", (json_int_t)e->end, "duration_ns", (json_int_t)(e->end - e->start),
			"waiting_on_cpu", e->busy_cpu, "its_nr_running", (int)e->busy_nr));
	}
	return json_object_set_new(report, "work_conservation", json_pack(
		"{s:I, s:b, s:I, s:I, s:I, s:o, s:{s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I}}}",
		"threshold_ns", (json_int_t)v->opts->idle_threshold_ns,
		"affinity_assumed_all_cpus", 1,
		"episodes", (json_int_t)w->count, "total_ns", (json_int_t)w->total_ns,
		"shorter_episodes", (json_int_t)w->short_count, "worst", worst,
		"balancer_migrations", "count", (json_int_t)w->balancer_moves,
		"to_busier_cpu", (json_int_t)w->useless_moves,
		"between_equal_cpus", (json_int_t)w->sideways_moves,
		"cross_llc", (json_int_t)w->cross_llc_moves,
		"llc_imbalance_allowance", "has_spare_case", (json_int_t)w->wu_reached,
		"allowance_applies", (json_int_t)w->wu_applies,
		"would_keep_imbalance", (json_int_t)w->wu_kept)) ? -ENOMEM : 0;
}

static void wc_fini(struct sr_analysis *a)
{
	struct wc *w = a->data;

	free(w->idle);
	free(w->over);
	free(w->open);
	free(w->worst);
	free(w->verdict);
	free(w);
}

const struct sr_analysis_ops sr_work_conservation_analysis = {
	.name = "work_conservation",
	.help = "idle CPUs while others have waiting tasks; useless balancer migrations",
	.init = wc_init,
	.event = wc_event,
	.report = wc_report,
	.fini = wc_fini,
};
