// SPDX-License-Identifier: GPL-2.0
/*
 * diff: two policies on the same trace.  Agreement counts; each
 * disagreement classified by the steps that decided and by how far apart
 * the two CPUs are; per-task impact; and a counterfactual cost, labelled
 * an estimate: was B's CPU idle at the waking and for how long afterwards,
 * against how long the task actually waited where it went.
 */
#include <errno.h>
#include <stdlib.h>
#include "hist.h"
#include "pidtab.h"
#include "run.h"

#define NR_BY SR_BY_NR_DECIDERS

/* A disagreement waiting for its task to run, keyed by pid. */
struct pend {
	int pid;
	uint64_t index;
	bool b_idle, a_is_kernel;
};

struct task_impact {
	int pid;
	char comm[SR_COMM_LEN];
	uint64_t disagreements;
	int64_t est_gain_ns;		/* Σ (actual wait - 0) where B's CPU was idle */
};

struct cpu_watch {
	uint64_t n, sum_start;		/* disagreements that found this CPU idle as B's */
};

/* Σ over such disagreements of how long B's CPU then stayed idle, exact in O(CPUs). */
struct idle_span {
	uint64_t n, total_ns;
};

struct diff {
	uint64_t placed, agree, disagree, undetermined, undet_same;
	uint64_t by[NR_BY][NR_BY];	/* [A's decider][B's decider] */
	uint64_t rel[SR_REL_NR];
	uint64_t a_kernel, b_kernel, neither;
	uint64_t b_idle, b_busy;
	struct idle_span b_idle_for;	/* how long B's idle CPU stayed idle */
	struct sr_hist wait_a;		/* actual wait, where the kernel did what A did */
	uint64_t est_cases, est_not_run;
	int64_t est_gain_ns;
	struct cpu_watch *watch;	/* per CPU */
	struct sr_pidtab pend;		/* struct pend */
	struct sr_pidtab tasks;		/* struct task_impact */
};

static int diff_init(void **priv, const struct sr_run *run)
{
	struct diff *d;
	int n = run->info->nr_cpus;

	if (run->opts.mode != SR_MODE_DIFF || run->nr_policies != 2)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	*priv = d;
	d->watch = calloc(n, sizeof(*d->watch));
	if (!d->watch || sr_pidtab_init(&d->pend, sizeof(struct pend)) ||
	    sr_pidtab_init(&d->tasks, sizeof(struct task_impact)))
		return -ENOMEM;
	return 0;
}

static int note_task(struct diff *d, const struct sr_wakeup *w, bool b_idle)
{
	struct task_impact *ti = sr_pidtab_get(&d->tasks, w->task->v.pid);
	struct pend *p = sr_pidtab_get(&d->pend, w->task->v.pid);

	if (!ti || !p)
		return -ENOMEM;
	memcpy(ti->comm, w->task->comm, SR_COMM_LEN);
	ti->disagreements++;
	p->index = w->index;
	p->b_idle = b_idle;
	p->a_is_kernel = w->dec[0].cpu == w->cpu;
	return 0;
}

static int diff_wakeup(void *priv, const struct sr_wakeup *w, const struct sr_run *run)
{
	const struct sr_brief *a = &w->dec[0], *b = &w->dec[1];
	struct diff *d = priv;

	if (w->cls != SR_W_PLACED || w->nr_dec != 2 || a->cpu < 0 || b->cpu < 0)
		return 0;
	d->placed++;
	if (!a->determined || !b->determined || w->uncertain) {
		d->undetermined++;
		d->undet_same += a->cpu == b->cpu;
		return 0;
	}
	if (a->cpu == b->cpu) {
		d->agree++;
		return 0;
	}
	d->disagree++;
	d->by[a->decided_by % NR_BY][b->decided_by % NR_BY]++;
	d->rel[sr_topo_relation(&run->topo, a->cpu, b->cpu)]++;
	if (a->cpu == w->cpu)
		d->a_kernel++;
	else if (b->cpu == w->cpu)
		d->b_kernel++;
	else
		d->neither++;
	if (b->cpu_idle) {
		d->b_idle++;
		d->watch[b->cpu].n++;
		d->watch[b->cpu].sum_start += w->ts;
	} else {
		d->b_busy++;
	}
	return note_task(d, w, b->cpu_idle);
}

static int diff_event(void *priv, const struct sr_event *ev, const struct sr_run *run)
{
	struct diff *d = priv;
	const struct sr_rq *rq;
	struct cpu_watch *cw;

	if (ev->cpu < 0 || ev->cpu >= run->info->nr_cpus)
		return 0;
	rq = &run->state.rq[ev->cpu];
	cw = &d->watch[ev->cpu];
	/* the CPU is no longer idle: every disagreement that found it idle learns how long */
	if (cw->n && (rq->curr_pid || rq->nr_running)) {
		d->b_idle_for.n += cw->n;
		d->b_idle_for.total_ns += cw->n * ev->ts - cw->sum_start;
		cw->n = 0;
		cw->sum_start = 0;
	}
	return 0;
}

static int diff_run(void *priv, const struct sr_task *t, int cpu, uint64_t ts,
		    const struct sr_run *run)
{
	struct diff *d = priv;
	struct pend *p = sr_pidtab_find(&d->pend, t->v.pid);
	struct task_impact *ti;
	uint64_t wait;

	if (!p || !p->index || p->index != t->note.index)
		return 0;
	wait = ts - t->note.ts;
	p->index = 0;
	if (!p->a_is_kernel)
		return 0;
	sr_hist_add(&d->wait_a, wait);
	if (!p->b_idle)
		return 0;
	/* B's CPU was idle: the task would have started at once there. */
	d->est_cases++;
	d->est_gain_ns += (int64_t)wait;
	ti = sr_pidtab_find(&d->tasks, t->v.pid);
	if (ti)
		ti->est_gain_ns += (int64_t)wait;
	return 0;
}

static int by_count(const void *x, const void *y)
{
	const struct task_impact *a = x, *b = y;

	if (a->disagreements != b->disagreements)
		return a->disagreements < b->disagreements ? 1 : -1;
	return a->pid - b->pid;
}

static json_t *steps_json(const struct diff *d)
{
	json_t *a = json_array();

	for (int i = 0; a && i < NR_BY; i++)
		for (int j = 0; j < NR_BY; j++)
			if (d->by[i][j])
				json_array_append_new(a, json_pack("{s:s, s:s, s:I}",
					"a_decided_by", sr_decider_name(i),
					"b_decided_by", sr_decider_name(j),
					"count", (json_int_t)d->by[i][j]));
	return a;
}

static json_t *tasks_json(struct diff *d, int top)
{
	json_t *a = json_array();
	int n = 0;

	/* sorting the table in place is fine: the run is over */
	qsort(d->tasks.slots, d->tasks.nr_slots, sizeof(struct task_impact), by_count);
	for (size_t i = 0; a && i < d->tasks.nr_slots && n < top; i++) {
		const struct task_impact *t = sr_pidtab_slot(&d->tasks, i);

		if (!t->pid)
			continue;
		json_array_append_new(a, json_pack("{s:i, s:s, s:I, s:I}", "pid", t->pid,
			"comm", t->comm, "disagreements", (json_int_t)t->disagreements,
			"estimated_latency_saved_by_b_ns", (json_int_t)t->est_gain_ns));
		n++;
	}
	return a;
}

static int diff_report(void *priv, json_t *report, const struct sr_run *run)
{
	struct diff *d = priv;
	json_t *rel = json_object();

	for (int i = 0; rel && i < SR_REL_NR; i++)
		json_object_set_new(rel, sr_relation_name(i), json_integer((json_int_t)d->rel[i]));
	return json_object_set_new(report, "diff", json_pack(
		"{s:s, s:s, s:I, s:I, s:I, s:{s:I, s:I}, s:o, s:o, s:{s:I, s:I, s:I},"
		" s:{s:b, s:s, s:I, s:I, s:o, s:o, s:I, s:I}, s:o}",
		"a", run->policy[0].name, "b", run->policy[1].name,
		"placed", (json_int_t)d->placed, "agree", (json_int_t)d->agree,
		"disagree", (json_int_t)d->disagree,
		"undetermined", "count", (json_int_t)d->undetermined,
		"same_primary_answer", (json_int_t)d->undet_same,
		"by_step", steps_json(d), "by_relation", rel,
		"kernel_chose", "as_a", (json_int_t)d->a_kernel, "as_b", (json_int_t)d->b_kernel,
		"neither", (json_int_t)d->neither,
		"counterfactual", "estimate", 1,
		"method", "for each determined disagreement where the kernel did what A did: if B's "
			  "CPU was idle at the waking, B would have run the task at once, saving the "
			  "wait the task actually had; busy B CPUs are not estimated",
		"b_cpu_idle", (json_int_t)d->b_idle, "b_cpu_busy", (json_int_t)d->b_busy,
		"b_idle_cpu_stayed_idle", json_pack("{s:I, s:I}", "count",
			(json_int_t)d->b_idle_for.n, "total_ns", (json_int_t)d->b_idle_for.total_ns),
		"actual_wait_where_kernel_did_a", sr_hist_json(&d->wait_a),
		"estimated_cases", (json_int_t)d->est_cases,
		"estimated_latency_saved_by_b_ns", (json_int_t)d->est_gain_ns,
		"tasks", tasks_json(d, run->opts.top))) ? -ENOMEM : 0;
}

static void diff_fini(void *priv)
{
	struct diff *d = priv;

	free(d->watch);
	sr_pidtab_free(&d->pend);
	sr_pidtab_free(&d->tasks);
	free(d);
}

const struct sr_analysis_ops sr_diff_analysis = {
	.name = "diff",
	.help = "two policies compared, with a counterfactual latency estimate",
	.init = diff_init,
	.event = diff_event,
	.wakeup = diff_wakeup,
	.run = diff_run,
	.report = diff_report,
	.fini = diff_fini,
};
