// SPDX-License-Identifier: GPL-2.0
/* explain as text: the same struct explain.c renders as JSON, for a person. */
#include <inttypes.h>
#include <stdio.h>
#include "explain.h"

static void print_ns(FILE *f, int64_t ns)
{
	fprintf(f, "%" PRId64 ".%09" PRId64, ns / 1000000000, ns % 1000000000);
}

static void print_value(FILE *f, const struct sr_val *v)
{
	if (v->is_unsigned && v->v < 0)
		fprintf(f, "%.0f", (double)(uint64_t)v->v);	/* 2.6.37's u64 wraps */
	else
		fprintf(f, "%" PRId64, v->v);
}

/* A step's values; a name given twice shows once, at its first place, with its last value. */
static void print_values(FILE *f, const struct sr_step *s)
{
	bool first = true;

	for (int i = 0; i < s->nvals; i++) {
		const struct sr_val *last = &s->vals[i];
		bool seen = false;

		for (int k = 0; k < i && !seen; k++)
			seen = !strcmp(s->vals[k].name, s->vals[i].name);
		if (seen)
			continue;
		for (int k = i + 1; k < s->nvals; k++)
			if (!strcmp(s->vals[k].name, s->vals[i].name))
				last = &s->vals[k];
		fprintf(f, "%s%s=", first ? "  [" : ", ", s->vals[i].name);
		print_value(f, last);
		first = false;
	}
	if (!first)
		fputc(']', f);
}

static void print_decision(FILE *f, const char *label, const struct sr_decision *d)
{
	if (d->cpu < 0) {
		fprintf(f, "  %s: the model refused this input\n", label);
		return;
	}
	fprintf(f, "  %s -> CPU %d, decided by %s%s\n", label, d->cpu,
		sr_decider_name(d->decided_by), d->determined ? "" : " (undetermined)");
	for (int i = 0; i < d->trail.n; i++) {
		const struct sr_step *s = &d->trail.steps[i];

		fprintf(f, "    %2d. %s: %s -> %s", i + 1, s->fn, s->check ? s->check : "",
			s->result ? s->result : "");
		if (s->cpu >= 0)
			fprintf(f, " (CPU %d)", s->cpu);
		print_values(f, s);
		fputc('\n', f);
	}
	if (d->depends) {
		fprintf(f, "    depends on inputs the trace cannot show:");
		for (int bit = 0; bit < 16; bit++)
			if (d->depends & (1u << bit))
				fprintf(f, " %s", sr_dep_name(1u << bit));
		fputc('\n', f);
	}
}

static void print_cpus(FILE *f, const struct sr_explain_cand *c, int nr_cpus, int nr_policies)
{
	if (c->placed_ts > c->ts)
		fprintf(f, "\nCPUs that mattered, when select_task_rq_fair() ran (%.1f us after "
			"the sched_waking):\n", (double)(c->placed_ts - c->ts) / 1000.0);
	else
		fprintf(f, "\nCPUs that mattered, at the sched_waking:\n");
	fprintf(f, "  CPU  roles              curr   nr_running  load_weight  load_avg  util_avg\n");
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		const struct sr_rq *rq = &c->rq[cpu];
		char roles[64] = "";

		if (!sr_explain_mattered(c, cpu, nr_policies))
			continue;
		snprintf(roles, sizeof(roles), "%s%s%s%s%s", cpu == c->prev_cpu ? "prev" : "",
			 cpu == c->prev_cpu && cpu == c->this_cpu ? "," : "",
			 cpu == c->this_cpu ? "waker" : "",
			 cpu == c->w.cpu && (cpu == c->prev_cpu || cpu == c->this_cpu) ? "," : "",
			 cpu == c->w.cpu ? "chosen" : "");
		fprintf(f, "  %3d  %-16s %6d  %10u  %11lu  %8lu  %8lu%s%s\n", cpu, roles,
			rq->curr_pid, rq->nr_running, rq->load_weight, rq->load_avg, rq->util_avg,
			!rq->curr_pid && !rq->nr_running ? "  idle" : "",
			rq->uncertain ? "  (uncertain)" : "");
	}
}

static void print_sync(FILE *f, const struct sr_explain_cand *c)
{
	static const char *const why[] = {
		[SR_SYNC_SRC_IRQ] = "it was issued from interrupt context or by the idle task",
		[SR_SYNC_SRC_TASK] = "a task issued it and nothing contradicts the *_sync wakeups "
				     "pipes and sockets use",
		[SR_SYNC_SRC_EVIDENCE] = "that is how the kernel placed earlier wakeups by wakers "
					 "of this name",
	};
	const char *set = c->sync_guess == SR_YES ? "set" : "clear";

	if (c->sync_fact != SR_UNKNOWN) {
		fprintf(f, "\nWF_SYNC was %s: recorded by the select_task_rq_fair() probe.\n",
			c->sync_fact == SR_YES ? "set" : "clear");
		return;
	}
	if (c->sync_guess == SR_UNKNOWN)
		return;
	if ((unsigned int)c->sync_source < SR_ARRAY_SIZE(why) && why[c->sync_source])
		fprintf(f, "\nWF_SYNC is not in the trace; the analyses assume it %s: %s.\n", set,
			why[c->sync_source]);
	else
		fprintf(f, "\nWF_SYNC is not in the trace; the analyses assume it %s.\n", set);
}

static void print_policies(FILE *f, const struct sr_explain_cand *c, const struct sr_view *v)
{
	print_sync(f, c);
	for (int i = 0; i < v->nr_policies; i++) {
		const struct sr_policy *pol = &v->policy[i];

		fprintf(f, "\nPolicy %s (%s)%s:\n", pol->name,
			pol->kernel_range ? pol->kernel_range : "",
			sr_explain_primary(c, i)->cpu == c->w.cpu ? ", matches the kernel" :
			", differs from the kernel");
		print_decision(f, c->nr_dec[i] == 2 ? "if not WF_SYNC" : "decision", &c->dec[i][0]);
		if (c->nr_dec[i] == 2)
			print_decision(f, "if WF_SYNC", &c->dec[i][1]);
	}
}

static void print_head(FILE *f, const struct sr_explain *e, const struct sr_explain_cand *c)
{
	const char *cls = sr_wclass_name(c->w.cls);
	char comm[SR_TEXT_SIZE(SR_COMM_LEN)];

	fprintf(f, "Wakeup #%" PRIu64 " of %d (%s) at ", c->w.index, e->pid,
		sr_text(c->comm, comm, sizeof(comm)));
	print_ns(f, (int64_t)c->ts);
	fprintf(f, " s: %s wakeup by pid %d on CPU %d, prev CPU %d\n", cls, c->w.waker_pid,
		c->w.waker_cpu, c->w.prev_cpu);
	fprintf(f, "The kernel chose CPU %d%s%s.", c->w.cpu, c->w.cls == SR_W_PLACED ? " = " : "",
		c->w.cls == SR_W_PLACED ? sr_outcome_name(c->w.actual) : "");
	if (c->w.since_out >= 0)
		fprintf(f, " The task had switched out %.1f us before%s.",
			(double)c->w.since_out / 1e3, c->w.hot ? " (cache-hot)" : "");
	fputc('\n', f);
	if (c->w.cls != SR_W_PLACED)
		fprintf(f, "No CPU selection ran: the task was %s.\n",
			c->w.cls == SR_W_RUNNABLE ? "still running or queued" :
			"in an unknown state");
}

void sr_explain_print(const struct sr_analysis *a, FILE *f)
{
	const struct sr_explain *e = a->data;
	const struct sr_explain_cand *c = e->best;
	char comm[SR_TEXT_SIZE(SR_COMM_LEN)];

	print_head(f, e, c);
	if (c->has_ctx) {
		print_cpus(f, c, e->nr_cpus, a->view->nr_policies);
		print_policies(f, c, a->view);
	}
	fprintf(f, "\nThen: enqueued on CPU %d while %s (%d) ran there with nr_running %u; ",
		c->w.cpu, sr_text(c->target_comm, comm, sizeof(comm)), c->target_curr, c->target_nr);
	if (c->ran)
		fprintf(f, "switched in on CPU %d after %.1f us.\n", c->run_cpu,
			(double)(c->run_ts - c->ts) / 1e3);
	else
		fprintf(f, "its switch-in was not seen (not recorded, or after the trace).\n");
}
