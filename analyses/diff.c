// SPDX-License-Identifier: GPL-2.0
/*
 * diff: two policies on the same trace.  Agreement counts; each
 * disagreement classified by the steps that decided and by how far apart
 * the two CPUs are; per-task impact; and a counterfactual cost, labelled
 * an estimate: was B's CPU idle at the waking and for how long afterwards,
 * against how long the task actually waited where it went.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "base.h"
#include "analysis.h"

#define NR_BY SR_BY_NR_DECIDERS
#define METHOD "for each determined disagreement where the kernel did what A did: if B's " \
	       "CPU was idle at the waking, B would have run the task at once, saving the " \
	       "wait the task actually had; busy B CPUs are not estimated"

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

static int diff_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct diff *d;
	int n = v->info->nr_cpus;

	if (v->opts->mode != SR_MODE_DIFF || v->nr_policies != 2)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	a->data = d;
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

static int diff_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	const struct sr_view *v = a->view;
	struct diff *d = a->data;
	const struct sr_brief *pa, *pb;

	if (w->cls != SR_W_PLACED || w->nr_dec != 2)
		return 0;	/* forks and unreplayed wakeups have no answers (dec NULL) */
	pa = &w->dec[0];
	pb = &w->dec[1];
	if (pa->cpu < 0 || pb->cpu < 0)
		return 0;
	d->placed++;
	if (!pa->determined || !pb->determined || w->uncertain) {
		d->undetermined++;
		d->undet_same += pa->cpu == pb->cpu;
		return 0;
	}
	if (pa->cpu == pb->cpu) {
		d->agree++;
		return 0;
	}
	d->disagree++;
	d->by[pa->decided_by % NR_BY][pb->decided_by % NR_BY]++;
	d->rel[sr_topo_relation(v->topo, pa->cpu, pb->cpu)]++;
	if (pa->cpu == w->cpu)
		d->a_kernel++;
	else if (pb->cpu == w->cpu)
		d->b_kernel++;
	else
		d->neither++;
	if (pb->cpu_idle) {
		d->b_idle++;
		d->watch[pb->cpu].n++;
		d->watch[pb->cpu].sum_start += w->ts;
	} else {
		d->b_busy++;
	}
	return note_task(d, w, pb->cpu_idle);
}

static int diff_event(struct sr_analysis *a, const struct sr_event *ev)
{
	const struct sr_view *v = a->view;
	struct diff *d = a->data;
	const struct sr_rq *rq;
	struct cpu_watch *cw;

	if (ev->cpu < 0 || ev->cpu >= v->info->nr_cpus)
		return 0;
	rq = &v->state->rq[ev->cpu];
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

static int diff_run(struct sr_analysis *a, const struct sr_task *t, int cpu, uint64_t ts)
{
	struct diff *d = a->data;
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

/* Most affected first; sorting the table in place is fine once the run is over. */
static void sort_tasks(struct diff *d)
{
	qsort(d->tasks.slots, d->tasks.nr_slots, sizeof(struct task_impact), by_count);
}

static json_t *tasks_json(struct diff *d, int top)
{
	json_t *a = json_array();
	int n = 0;

	sort_tasks(d);
	for (size_t i = 0; a && i < d->tasks.nr_slots && n < top; i++) {
		const struct task_impact *t = sr_pidtab_slot(&d->tasks, i);

		if (!t->pid)
			continue;
		json_array_append_new(a, json_pack("{s:i, s:o, s:I, s:I}", "pid", t->pid,
			"comm", sr_json_str(t->comm), "disagreements", (json_int_t)t->disagreements,
			"estimated_latency_saved_by_b_ns", (json_int_t)t->est_gain_ns));
		n++;
	}
	return a;
}

static int diff_report(struct sr_analysis *a, json_t *report)
{
	const struct sr_view *v = a->view;
	struct diff *d = a->data;
	json_t *rel = json_object();

	for (int i = 0; rel && i < SR_REL_NR; i++)
		json_object_set_new(rel, sr_relation_name(i), json_integer((json_int_t)d->rel[i]));
	return json_object_set_new(report, "diff", json_pack(
		"{s:s, s:s, s:I, s:I, s:I, s:{s:I, s:I}, s:o, s:o, s:{s:I, s:I, s:I},"
		" s:{s:b, s:s, s:I, s:I, s:o, s:o, s:I, s:I}, s:o}",
		"a", v->policy[0].name, "b", v->policy[1].name,
		"placed", (json_int_t)d->placed, "agree", (json_int_t)d->agree,
		"disagree", (json_int_t)d->disagree,
		"undetermined", "count", (json_int_t)d->undetermined,
		"same_primary_answer", (json_int_t)d->undet_same,
		"by_step", steps_json(d), "by_relation", rel,
		"kernel_chose", "as_a", (json_int_t)d->a_kernel, "as_b", (json_int_t)d->b_kernel,
		"neither", (json_int_t)d->neither,
		"counterfactual", "estimate", 1,
		"method", METHOD,
		"b_cpu_idle", (json_int_t)d->b_idle, "b_cpu_busy", (json_int_t)d->b_busy,
		"b_idle_cpu_stayed_idle", json_pack("{s:I, s:I}", "count",
			(json_int_t)d->b_idle_for.n, "total_ns", (json_int_t)d->b_idle_for.total_ns),
		"actual_wait_where_kernel_did_a", sr_hist_json(&d->wait_a),
		"estimated_cases", (json_int_t)d->est_cases,
		"estimated_latency_saved_by_b_ns", (json_int_t)d->est_gain_ns,
		"tasks", tasks_json(d, v->opts->top))) ? -ENOMEM : 0;
}

/* ------------------------------------------------------------ text rendering */

static void pct(FILE *f, const char *what, uint64_t n, uint64_t of)
{
	fprintf(f, "  %-34s %8" PRIu64, what, n);
	if (of)
		fprintf(f, "  (%.1f%%)", 100.0 * (double)n / (double)of);
	fputc('\n', f);
}

static void print_disagreements(FILE *f, const struct diff *d)
{
	fprintf(f, "\nDisagreements, by the steps that decided (A / B):\n");
	for (int i = 0; i < NR_BY; i++)
		for (int j = 0; j < NR_BY; j++)
			if (d->by[i][j])
				fprintf(f, "  %-20s / %-20s %8" PRIu64 "\n", sr_decider_name(i),
					sr_decider_name(j), d->by[i][j]);
	fprintf(f, "By distance between A's and B's CPU: same core %" PRIu64 ", same LLC %" PRIu64
		", cross-LLC %" PRIu64 ", cross-node %" PRIu64 "\n", d->rel[SR_REL_SAME_CORE],
		d->rel[SR_REL_SAME_LLC], d->rel[SR_REL_CROSS_LLC], d->rel[SR_REL_CROSS_NODE]);
	fprintf(f, "The kernel chose as A %" PRIu64 ", as B %" PRIu64 ", neither %" PRIu64 "\n",
		d->a_kernel, d->b_kernel, d->neither);
}

static void print_tasks(FILE *f, struct diff *d, int top)
{
	int n = 0;

	sort_tasks(d);
	for (size_t i = 0; i < d->tasks.nr_slots && n < top; i++) {
		const struct task_impact *t = sr_pidtab_slot(&d->tasks, i);
		char comm[SR_TEXT_SIZE(SR_COMM_LEN)];

		if (!t->pid)
			continue;
		if (!n++)
			fprintf(f, "\nTasks most affected:\n");
		fprintf(f, "  %7d %-16s %6" PRIu64 " disagreements, est. %.3f ms saved by B\n",
			t->pid, sr_text(t->comm, comm, sizeof(comm)), t->disagreements, (double)t->est_gain_ns / 1e6);
	}
}

void sr_diff_print(const struct sr_analysis *a, FILE *f)
{
	const struct sr_view *v = a->view;
	struct diff *d = a->data;

	fprintf(f, "A = %s, B = %s: %" PRIu64 " placed wakeups\n", v->policy[0].name,
		v->policy[1].name, d->placed);
	pct(f, "both determined, same CPU", d->agree, d->placed);
	pct(f, "both determined, different CPUs", d->disagree, d->placed);
	pct(f, "undetermined (unobservable inputs)", d->undetermined, d->placed);
	if (d->disagree)
		print_disagreements(f, d);
	fprintf(f, "\nCounterfactual cost (an ESTIMATE): B's CPU was idle at the waking in %"
		PRIu64 " disagreements, busy in %" PRIu64 ".\n", d->b_idle, d->b_busy);
	fprintf(f, "  where the kernel did what A did and B's CPU was idle (%" PRIu64
		" cases), B would have saved about %.3f ms of wakeup latency in all\n",
		d->est_cases, (double)d->est_gain_ns / 1e6);
	fprintf(f, "  (%s)\n", METHOD);
	print_tasks(f, d, v->opts->top);
}

static void diff_fini(struct sr_analysis *a)
{
	struct diff *d = a->data;

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
