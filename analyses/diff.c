// SPDX-License-Identifier: GPL-2.0
/*
 * diff: two policies on the same trace.  The primary answers of both on
 * every placed wakeup, with determinacy as a column rather than a filter:
 * two answers that differ only where an input the trace cannot show is
 * read are still a difference, and the report says which inputs block them
 * and what would decide them.  Each disagreement is classified by the
 * steps that decided and by how far apart the two CPUs are; per-task
 * impact; and a counterfactual cost, labelled an estimate.
 */
#include <errno.h>
#include <stdlib.h>
#include "base.h"
#include "diff.h"

static const char *const det_names[SR_DET_NR] = { "both", "a_only", "b_only", "neither" };

/*
 * What would settle an answer that reads each input: a knob of the policy
 * (--policy P:KNOB=V), an option, or a better recording.  Only the inputs
 * a knob or an option can decide name one.
 */
static const char *const hints[SR_DIFF_NR_DEPS] = {
	[0] = "WF_SYNC: record with 'schedreplay record --probes' (kernels 5.8+), which logs it",
	[1] = "cgroup shares: --assume-root-cgroup, or --cgroup-weight ID=W",
	[2] = "PELT warm-up: a trace that starts earlier (tasks seen for ~100 ms)",
	[3] = "DELAY_DEQUEUE (6.12+): knob-free; only the kernel's EEVDF lag decides it",
	[4] = "vCPU preemption: not in any trace",
	[5] = "lost events: record with a larger buffer (record -b KB)",
	[6] = "topology: --topology with a machine snapshot",
	[7] = "SIS_PROP scan cost: knob sis_avg_scan_cost=NS (try the range), or SIS_PROP=0",
	[8] = "idle hints: knob SIS_UTIL=0 removes nr_idle_scan; has_idle_cores has no knob",
	[9] = "affinity: not in the sched events",
	[10] = "recent_used_cpu: a trace that starts before the task's previous wakeup",
	[11] = "idle_stamp: a trace that starts before the CPU went idle",
	[12] = "load estimate: knob-free; record --probes gives the kernel's own loads",
	[13] = "wakee_flips: a trace that starts before the tasks (or their parents) woke others",
	[14] = "exec time: knob-free; record --probes shows sched_exec()'s own select_task_rq_fair()",
	[15] = "concurrent wakeup: knob-free; the instant of another CPU's enqueue is not traced",
	[16] = "kernel patches: its boot parameters name scheduler code outside mainline",
};

uint64_t sr_diff_total(const uint64_t *by_det)
{
	uint64_t n = 0;

	for (int i = 0; i < SR_DET_NR; i++)
		n += by_det[i];
	return n;
}

const char *sr_diff_decider_hint(int bit)
{
	return bit >= 0 && bit < SR_DIFF_NR_DEPS && hints[bit] ? hints[bit] : "unknown input";
}

int sr_diff_blocking(const struct sr_diff *d, int order[SR_DIFF_NR_DEPS])
{
	int n = 0;

	for (int i = 0; i < SR_DIFF_NR_DEPS; i++) {
		int k;

		if (!d->blocked[i][2])
			continue;
		/* insertion: ties keep the input order */
		for (k = n++; k > 0 && d->blocked[order[k - 1]][2] < d->blocked[i][2]; k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
	return n;
}

const char *sr_diff_not_estimated(const struct sr_diff *d)
{
	if (!sr_diff_total(d->differ))
		return "the two policies never disagree";
	if (!d->a_kernel)
		return "the kernel never did what A did where they disagree: what A cost is unseen";
	if (!d->b_idle)
		return "B's CPU was busy at every disagreement: how long the task would have "
		       "queued there is not modelled";
	if (!d->est_cases)
		return "no disagreement where the kernel did what A did found B's CPU idle";
	return NULL;
}

static int diff_init(struct sr_analysis *a)
{
	const struct sr_view *v = a->view;
	struct sr_diff *d;

	if (v->opts->mode != SR_MODE_DIFF || v->nr_policies != 2)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	a->data = d;
	d->watch = calloc(v->info->nr_cpus, sizeof(*d->watch));
	if (!d->watch || sr_pidtab_init(&d->pend, sizeof(struct sr_diff_pend)) ||
	    sr_pidtab_init(&d->tasks, sizeof(struct sr_diff_task)))
		return -ENOMEM;
	return 0;
}

static int note_task(struct sr_diff *d, const struct sr_wakeup *w, bool b_idle)
{
	struct sr_diff_task *ti = sr_pidtab_get(&d->tasks, w->task->v.pid);
	struct sr_diff_pend *p = sr_pidtab_get(&d->pend, w->task->v.pid);

	if (!ti || !p)
		return -ENOMEM;
	memcpy(ti->comm, w->task->comm, SR_COMM_LEN);
	ti->disagreements++;
	p->index = w->index;
	p->b_idle = b_idle;
	p->a_is_kernel = w->dec[0].cpu == w->cpu;
	return 0;
}

static enum sr_diff_det determinacy(const struct sr_wakeup *w)
{
	bool a = w->dec[0].determined && !w->uncertain;
	bool b = w->dec[1].determined && !w->uncertain;

	return a ? (b ? SR_DET_BOTH : SR_DET_A_ONLY) : (b ? SR_DET_B_ONLY : SR_DET_NEITHER);
}

/* Which inputs the two differing answers rest on. */
static void count_blocked(struct sr_diff *d, const struct sr_brief *pa, const struct sr_brief *pb)
{
	for (int i = 0; i < SR_DIFF_NR_DEPS; i++) {
		bool in_a = pa->depends & (1u << i), in_b = pb->depends & (1u << i);

		d->blocked[i][0] += in_a;
		d->blocked[i][1] += in_b;
		d->blocked[i][2] += in_a || in_b;
	}
}

/* The counter of the answer the kernel's @cpu followed: A's, B's or neither. */
static uint64_t *followed(uint64_t *as_a, uint64_t *as_b, uint64_t *neither,
			  const struct sr_brief *pa, const struct sr_brief *pb, int cpu)
{
	return pa->cpu == cpu ? as_a : pb->cpu == cpu ? as_b : neither;
}

/* A fork or exec placement: same or different, and which one the kernel took. */
static void count_apart(struct sr_diff_apart *ap, const struct sr_wakeup *w)
{
	const struct sr_brief *pa = &w->dec[0], *pb = &w->dec[1];

	if (pa->cpu < 0 || pb->cpu < 0)
		return;
	ap->placed++;
	if (pa->cpu == pb->cpu)
		return;
	ap->differ++;
	ap->differ_det += pa->determined && pb->determined && !w->uncertain;
	*followed(&ap->a_kernel, &ap->b_kernel, &ap->neither, pa, pb, w->cpu) += 1;
}

static json_t *apart_json(const struct sr_diff_apart *ap)
{
	return json_pack("{s:I, s:I, s:I, s:{s:I, s:I, s:I}}", "placed", (json_int_t)ap->placed,
			 "different_cpu", (json_int_t)ap->differ,
			 "different_both_determined", (json_int_t)ap->differ_det,
			 "kernel_chose", "as_a", (json_int_t)ap->a_kernel,
			 "as_b", (json_int_t)ap->b_kernel, "neither", (json_int_t)ap->neither);
}

static int diff_wakeup(struct sr_analysis *a, const struct sr_wakeup *w)
{
	const struct sr_view *v = a->view;
	struct sr_diff *d = a->data;
	const struct sr_brief *pa, *pb;
	enum sr_diff_det det;

	if (w->kind != SR_WAKE_TTWU && w->nr_dec == 2) {
		count_apart(w->kind == SR_WAKE_FORK ? &d->forks : &d->execs, w);
		return 0;
	}
	if (w->cls != SR_W_PLACED || w->nr_dec != 2)
		return 0;	/* unreplayed wakeups have no answers (dec NULL) */
	pa = &w->dec[0];
	pb = &w->dec[1];
	if (pa->cpu < 0 || pb->cpu < 0)
		return 0;
	d->placed++;
	det = determinacy(w);
	if (pa->cpu == pb->cpu) {
		d->same[det]++;
		return 0;
	}
	d->differ[det]++;
	count_blocked(d, pa, pb);
	d->by[pa->decided_by % SR_DIFF_NR_BY][pb->decided_by % SR_DIFF_NR_BY]++;
	d->rel[sr_topo_relation(v->topo, pa->cpu, pb->cpu)]++;
	*followed(&d->a_kernel, &d->b_kernel, &d->neither, pa, pb, w->cpu) += 1;
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
	struct sr_diff *d = a->data;
	const struct sr_rq *rq;
	struct sr_diff_watch *cw;

	if (ev->cpu < 0 || ev->cpu >= v->info->nr_cpus)
		return 0;
	rq = &v->state->rq[ev->cpu];
	cw = &d->watch[ev->cpu];
	/* the CPU is no longer idle: every disagreement that found it idle learns how long */
	if (cw->n && (rq->curr_pid || rq->nr_running)) {
		d->idle_for_n += cw->n;
		d->idle_for_ns += cw->n * ev->ts - cw->sum_start;
		cw->n = 0;
		cw->sum_start = 0;
	}
	return 0;
}

static int diff_run(struct sr_analysis *a, const struct sr_task *t, int cpu, uint64_t ts)
{
	struct sr_diff *d = a->data;
	struct sr_diff_pend *p = sr_pidtab_find(&d->pend, t->v.pid);
	struct sr_diff_task *ti;
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
	const struct sr_diff_task *a = x, *b = y;

	if (a->disagreements != b->disagreements)
		return a->disagreements < b->disagreements ? 1 : -1;
	return a->pid - b->pid;
}

void sr_diff_sort_tasks(struct sr_diff *d)
{
	qsort(d->tasks.slots, d->tasks.nr_slots, sizeof(struct sr_diff_task), by_count);
}

/* ------------------------------------------------------------ JSON rendering */

static json_t *steps_json(const struct sr_diff *d)
{
	json_t *a = json_array();

	for (int i = 0; a && i < SR_DIFF_NR_BY; i++)
		for (int j = 0; j < SR_DIFF_NR_BY; j++)
			if (d->by[i][j])
				json_array_append_new(a, json_pack("{s:s, s:s, s:I}",
					"a_decided_by", sr_decider_name(i),
					"b_decided_by", sr_decider_name(j),
					"count", (json_int_t)d->by[i][j]));
	return a;
}

static json_t *determinacy_json(const struct sr_diff *d)
{
	json_t *o = json_object();

	for (int i = 0; o && i < SR_DET_NR; i++)
		json_object_set_new(o, det_names[i], json_pack("{s:I, s:I}",
			"same_cpu", (json_int_t)d->same[i], "different_cpu", (json_int_t)d->differ[i]));
	return o;
}

static json_t *blocked_json(const struct sr_diff *d)
{
	json_t *a = json_array();
	int order[SR_DIFF_NR_DEPS], n = sr_diff_blocking(d, order);

	for (int i = 0; a && i < n; i++) {
		int best = order[i];

		json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:I, s:s}",
			"input", sr_dep_name(1u << best), "differing", (json_int_t)d->blocked[best][2],
			"in_a", (json_int_t)d->blocked[best][0], "in_b", (json_int_t)d->blocked[best][1],
			"would_decide", sr_diff_decider_hint(best)));
	}
	return a;
}

static json_t *tasks_json(struct sr_diff *d, int top)
{
	json_t *a = json_array();
	int n = 0;

	sr_diff_sort_tasks(d);
	for (size_t i = 0; a && i < d->tasks.nr_slots && n < top; i++) {
		const struct sr_diff_task *t = sr_pidtab_slot(&d->tasks, i);

		if (!t->pid)
			continue;
		json_array_append_new(a, json_pack("{s:i, s:o, s:I, s:I}", "pid", t->pid,
			"comm", sr_json_str(t->comm), "disagreements", (json_int_t)t->disagreements,
			"estimated_latency_saved_by_b_ns", (json_int_t)t->est_gain_ns));
		n++;
	}
	return a;
}

static json_t *counterfactual_json(const struct sr_diff *d)
{
	const char *why = sr_diff_not_estimated(d);

	return json_pack("{s:b, s:b, s:s?, s:s, s:I, s:I, s:{s:I, s:I}, s:o, s:I, s:o}",
		"estimate", 1, "estimated", !why, "not_estimated_because", why,
		"method", SR_DIFF_METHOD,
		"b_cpu_idle", (json_int_t)d->b_idle, "b_cpu_busy", (json_int_t)d->b_busy,
		"b_idle_cpu_stayed_idle", "count", (json_int_t)d->idle_for_n,
		"total_ns", (json_int_t)d->idle_for_ns,
		"actual_wait_where_kernel_did_a", sr_hist_json(&d->wait_a),
		"estimated_cases", (json_int_t)d->est_cases,
		"estimated_latency_saved_by_b_ns", why ? json_null() : json_integer(d->est_gain_ns));
}

static int diff_report(struct sr_analysis *a, json_t *report)
{
	const struct sr_view *v = a->view;
	struct sr_diff *d = a->data;
	json_t *rel = json_object();

	for (int i = 0; rel && i < SR_REL_NR; i++)
		json_object_set_new(rel, sr_relation_name(i), json_integer((json_int_t)d->rel[i]));
	return json_object_set_new(report, "diff", json_pack(
		"{s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:{s:I, s:I, s:I}, s:o, s:o, s:o, s:o}",
		"a", v->policy[0].name, "b", v->policy[1].name,
		"placed", (json_int_t)d->placed, "same_cpu", (json_int_t)sr_diff_total(d->same),
		"different_cpu", (json_int_t)sr_diff_total(d->differ),
		"by_determinacy", determinacy_json(d), "blocking_inputs", blocked_json(d),
		"by_step", steps_json(d), "by_relation", rel,
		"kernel_chose", "as_a", (json_int_t)d->a_kernel, "as_b", (json_int_t)d->b_kernel,
		"neither", (json_int_t)d->neither,
		"counterfactual", counterfactual_json(d),
		"tasks", tasks_json(d, v->opts->top),
		"forks", apart_json(&d->forks), "execs", apart_json(&d->execs))) ? -ENOMEM : 0;
}

static void diff_fini(struct sr_analysis *a)
{
	struct sr_diff *d = a->data;

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
